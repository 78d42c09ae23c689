"""Descriptor encode/decode against the spec's bit fields and CUTLASS's witness."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ptxconf.oracle.descriptor import DescriptorError, DescriptorFormat, descriptor_format
from ptxconf.oracle.records import DescriptorField
from ptxconf.oracle.spec import default_spec

FMT = descriptor_format()
WITNESS = DescriptorFormat.from_rows(default_spec().in_file(DescriptorField,
                                                              "cute/gmma_descriptor.yaml"))
u16 = st.integers(0, (1 << 14) - 1).map(lambda v: v << 4)


@given(u16, u16, u16, st.sampled_from(["none", "32B", "64B", "128B"]), st.integers(0, 7))
def test_round_trip(start: int, lbo: int, sbo: int, swizzle: str, base: int) -> None:
    value = FMT.encode(start_address_bytes=start, lbo_bytes=lbo, sbo_bytes=sbo, swizzle=swizzle,
                       base_offset=base)
    fields = FMT.decode(value)
    assert (fields["start_address_bytes"], fields["lbo_bytes"], fields["sbo_bytes"],
            fields["swizzle"], fields["base_offset"]) == (start, lbo, sbo, swizzle, base)
    assert value == WITNESS.encode(start_address_bytes=start, lbo_bytes=lbo, sbo_bytes=sbo,
                                   swizzle=swizzle, base_offset=base)


def test_figure_168_encodings() -> None:
    # PTX ISA Figure 168: LBO = 128 * sizeof(bf16) -> 16, SBO = 64 * sizeof(bf16) -> 8.
    fields = FMT.decode(FMT.encode(start_address_bytes=0, lbo_bytes=256, sbo_bytes=128,
                                   swizzle="none"))
    assert fields["lbo_bytes"] >> 4 == 16 and fields["sbo_bytes"] >> 4 == 8


@pytest.mark.parametrize("kwargs,match", [
    ({"lbo_bytes": 24}, "not a multiple of 16"),
    ({"sbo_bytes": 1 << 18}, "18-bit address range"),
    ({"start_address_bytes": -16}, ">= 0"),
    ({"base_offset": 8}, "does not fit the 3-bit base_offset field"),
])
def test_unrepresentable_values_are_named(kwargs: dict, match: str) -> None:
    args = {"start_address_bytes": 0, "lbo_bytes": 16, "sbo_bytes": 16, "swizzle": "none",
            "base_offset": 0, **kwargs}
    with pytest.raises(DescriptorError, match=match):
        FMT.encode(**args)


def test_max_values() -> None:
    assert FMT.max_value("leading_byte_offset") == ((1 << 14) - 1) * 16
    assert FMT.max_value("start_address") == (1 << 18) - 16
