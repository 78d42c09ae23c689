"""The proofs' parameter domains (oracle/proofs/params.py): an offset's domain is bounded by its
address range where that is below what the field's bits hold (wgmma/matrix_descriptor.yaml:
14 bits of a >> 4, an 18-bit address)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scratch_spec import edited_spec

from ptxconf.oracle.proofs import params

pytestmark = pytest.mark.z3


def test_an_address_range_below_the_field_bounds_the_domain(tmp_path: Path) -> None:
    """start_address with address_bits 17: its 14 bits of a >> 4 reach 0x3fff0, but the address
    stops at 2^17 - 16 = 0x1fff0; LBO keeps its 18 bits: 2^18 - 16 = 0x3fff0 (both at once)."""
    spec = edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml",
                       "width_bits: 14, encode_shift_bits: 4, address_bits: 18}\n  - {id: leading",
                       "width_bits: 14, encode_shift_bits: 4, address_bits: 17}\n  - {id: leading")
    assert params.offset_domain(spec, "start_address") == params.OffsetDomain(
        "start_address", 16, 0x1FFF0)
    assert params.offset_domain(spec, "LBO") == params.OffsetDomain(
        "leading_byte_offset", 16, 0x3FFF0)
