"""Descriptor encode/decode (oracle/descriptor.py) against the spec's bit fields and CUTLASS's
witness: round trips, the table's fields and unused bits worked by hand, the format read from the
spec given, and what encode refuses (naming the keyword and what would fit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import raises_naming
from hypothesis import given
from hypothesis import strategies as st

from ptxconf.oracle import descriptor
from ptxconf.oracle.descriptor import DescriptorError, DescriptorFormat, descriptor_format
from ptxconf.oracle.records import DescriptorField
from ptxconf.oracle.spec import Spec, default_spec

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
    assert fields["lbo_bytes"] >> 4 == 16
    assert fields["sbo_bytes"] >> 4 == 8


@pytest.mark.parametrize(("kwargs", "match"), [
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


# --- the table's bit ranges, worked by hand ----------------------------------------------------
# Every expected value below comes from the PTX ISA's Matrix Descriptor Format table (the bit
# ranges cited in spec/wgmma/matrix_descriptor.yaml: start address 13-0, LBO 29-16, SBO 45-32,
# base offset 51-49, layout type 63-62 with SWIZZLE_NONE 0, 128B 1, 64B 2, 32B 3; the 14-bit
# address fields hold `(addr & 0x3FFFF) >> 4`), written out by hand, never read from the code.


def _bits(hi: int, lo: int) -> int:
    return ((1 << (hi - lo + 1)) - 1) << lo


#: The table's fields, bits hi..lo.
USED = _bits(13, 0) | _bits(29, 16) | _bits(45, 32) | _bits(51, 49) | _bits(63, 62)
#: The bits no field of the table covers: 15-14, 31-30, 48-46, 61-52.
UNUSED = _bits(15, 14) | _bits(31, 30) | _bits(48, 46) | _bits(61, 52)
ALL_ONES = (1 << 64) - 1


def test_the_table_covers_64_bits_exactly_once() -> None:
    # The two hand-written masks partition the 64-bit word (guards the literals below).
    assert USED & UNUSED == 0
    assert USED | UNUSED == ALL_ONES


def test_used_mask_is_the_tables_fields() -> None:
    assert FMT.used_mask() == USED


@pytest.mark.parametrize(("value", "unused"), [
    (0, 0),
    (ALL_ONES, UNUSED),
    (USED, 0),
    (1 << 14, 1 << 14),   # just above the start address
    (1 << 30, 1 << 30),   # just above LBO
    (1 << 46, 1 << 46),   # just above SBO
    (1 << 52, 1 << 52),   # just above the base offset
])
def test_unused_bits_are_those_outside_every_field(value: int, unused: int) -> None:
    fields = FMT.decode(value)
    assert fields["unused_bits"] == f"{unused:#018x}"


@pytest.mark.parametrize("bit", [14, 15, 30, 31, 46, 47, 48, 52, 61])
def test_a_bit_outside_the_fields_decodes_to_all_zero_fields(bit: int) -> None:
    fields = FMT.decode(1 << bit)
    assert (fields["start_address_bytes"], fields["lbo_bytes"], fields["sbo_bytes"],
            fields["base_offset"], fields["layout_type_code"]) == (0, 0, 0, 0, 0)


@pytest.mark.parametrize("value", [1 << 64, (1 << 64) + 5, 1 << 65, -1])
def test_decode_refuses_what_is_not_64_bits(value: int) -> None:
    with pytest.raises(DescriptorError, match="not a 64-bit value"):
        FMT.decode(value)


def test_decode_takes_the_largest_64_bit_value() -> None:
    fields = FMT.decode(ALL_ONES)
    assert fields["start_address_bytes"] == 0x3FFF << 4
    assert fields["base_offset"] == 7
    assert fields["layout_type_code"] == 3
    assert fields["swizzle"] == "32B"


@pytest.mark.parametrize(("swizzle", "code"), [("none", 0), ("128B", 1), ("64B", 2), ("32B", 3)])
def test_layout_type_code_is_the_tables(swizzle: str, code: int) -> None:
    value = FMT.encode(start_address_bytes=0, lbo_bytes=0, sbo_bytes=0, swizzle=swizzle)
    assert value == code << 62
    assert FMT.decode(value)["layout_type_code"] == code


# A worked value: start 0x400 (stored 0x40), LBO 256 (16), SBO 128 (8), 128B (1), base 0.
WORKED = 0x40 | (16 << 16) | (8 << 32) | (1 << 62)


def test_base_offset_defaults_to_zero() -> None:
    assert FMT.encode(start_address_bytes=0x400, lbo_bytes=256, sbo_bytes=128, swizzle="128B") == WORKED


def test_module_level_encode_and_decode_use_the_bundled_format() -> None:
    assert descriptor.encode(0x400, 256, 128, "128B") == WORKED
    assert descriptor.encode(0x400, 256, 128, "128B", 5) == WORKED | (5 << 49)
    assert descriptor.encode(start_address_bytes=0x400, lbo_bytes=256, sbo_bytes=128,
                             swizzle="128B") == WORKED
    fields = descriptor.decode(WORKED | (5 << 49))
    assert (fields["start_address_bytes"], fields["lbo_bytes"], fields["sbo_bytes"],
            fields["swizzle"], fields["base_offset"]) == (0x400, 256, 128, "128B", 5)


def test_descriptor_format_reads_the_spec_it_is_given() -> None:
    # A spec whose layout-type codes are swapped: the format must follow it, not the bundled one.
    rows = tuple(r if r.id != "layout_type" else
                 DescriptorField(id="layout_type", file=descriptor.DESCRIPTOR_FILE, lsb_bits=62,
                                 width_bits=2, codes={"none": 3, "128B": 2, "64B": 1, "32B": 0})
                 for r in default_spec().in_file(DescriptorField, descriptor.DESCRIPTOR_FILE))
    other = descriptor_format(Spec(root=Path("."), rows=rows))
    assert other.swizzle_code("none") == 3
    assert descriptor_format(None).swizzle_code("none") == 0
    with raises_naming(TypeError, "got object"):
        descriptor_format(object())  # type: ignore[arg-type]


def test_a_spec_missing_a_field_is_refused_by_name() -> None:
    rows = tuple(r for r in default_spec().in_file(DescriptorField, descriptor.DESCRIPTOR_FILE)
                 if r.id != "base_offset")
    with pytest.raises(DescriptorError, match=r"lacks fields \['base_offset'\]"):
        DescriptorFormat.from_rows(rows)


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"lbo_bytes": 24}, ("lbo_bytes=24:", "16")),
    ({"sbo_bytes": -16}, ("sbo_bytes=-16:", ">= 0")),
    ({"start_address_bytes": 1 << 18}, ("start_address_bytes=0x40000:", "18-bit", "(max 0x3fff0)")),
    ({"base_offset": 8}, ("base_offset=8:", "3-bit base_offset", "(max 7)")),
    ({"swizzle": "16B"}, ("swizzle '16B':", "['128B', '32B', '64B', 'none']")),
])
def test_errors_name_the_keyword_and_what_would_fit(kwargs: dict, named: tuple[str, ...]) -> None:
    """The message starts with the keyword and its value (its wording: messages_oracle.py's
    descriptor.*)."""
    args = {"start_address_bytes": 0, "lbo_bytes": 16, "sbo_bytes": 16, "swizzle": "none",
            "base_offset": 0, **kwargs}
    with raises_naming(DescriptorError, *named) as info:
        FMT.encode(**args)
    assert str(info.value).startswith(named[0])


def test_a_field_with_no_keyword_is_named_by_its_id() -> None:
    # A format may carry a field encode() has no keyword for; its errors name the field id.
    rows = (*default_spec().in_file(DescriptorField, descriptor.DESCRIPTOR_FILE),
            DescriptorField(id="version", lsb_bits=46, width_bits=2))
    fmt = DescriptorFormat.from_rows(rows)
    with raises_naming(DescriptorError, "version=-1:") as info:
        fmt.pack_field("version", -1)
    assert str(info.value).startswith("version=-1:")
    assert fmt.pack_field("version", 1) == 1 << 46
