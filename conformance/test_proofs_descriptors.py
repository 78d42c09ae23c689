"""The descriptor proofs (oracle/proofs/descriptors.py): each field's largest value and its round
trip, a field that overlaps a neighbour named, a field past bit 63 against the oracle's bound,
and the start-address alignment.

Expected values are worked by hand from the descriptor fields (wgmma/matrix_descriptor.yaml:
start_address bits [0, 14) storing a >> 4 of an 18-bit address, leading_byte_offset [16, 30) and
stride_byte_offset [32, 46) the same, base_offset [49, 52), layout_type [62, 64)) and the 16-byte
start alignment (wgmma/smem_alignment.yaml). A refutation comes from a scratch copy of the
bundled spec with one row edited (conformance/scratch_spec.py); the values of a round trip's
counterexample are Z3's, so the message is checked for the values it names. Outcomes are
asserted by status, code and fields; the messages' wording is pinned by messages_proofs.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_fields, proof_facts
from case_outcomes import prove_module_claim as _prove
from scratch_spec import descriptor_field_replaced

from ptxconf.core.results import Status
from ptxconf.oracle.proofs import descriptors
from ptxconf.oracle.spec import default_spec

pytestmark = pytest.mark.z3


def test_start_address_range_is_the_18_bit_bound() -> None:
    """start_address: 14 bits of a >> 4, an 18-bit address: the largest is 2^18 - 16 = 0x3fff0
    (= (2^14 - 1) << 4), stored as 0x3fff."""
    got = _prove(descriptors, default_spec(),
                 "proof.descriptor_range[wgmma/matrix_descriptor:start_address]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.PASS, "ok", "proved")
    assert proof_facts(got) == {"max": 0x3FFF0}
    for named in ("0x3fff0", "stored as 0x3fff", "14 bits", "granularity 16"):
        assert named in got.message, (named, got.message)


def test_layout_type_past_bit_63_is_refuted(tmp_path: Path) -> None:
    """layout_type moved to lsb 63 keeps only its low bit inside the 64-bit descriptor: 1 round
    trips, 2 and 3 do not; the oracle's bound is still (2^2 - 1) << 0 = 3."""
    spec = descriptor_field_replaced("layout_type", lsb_bits=63)
    got = _prove(descriptors, spec, "proof.descriptor_range[wgmma/matrix_descriptor:layout_type]")
    assert (got.status, got.code) == (Status.FAIL, "refuted_oracle")
    assert got.fields["counterexample"] == {"proved_max": "0x1", "oracle_max": "0x3"}
    assert got.fields["reproduce_python"] is None


def test_overlapping_base_offset_names_the_field_it_overlaps(tmp_path: Path) -> None:
    """base_offset moved to lsb 44 ([44, 47)) meets stride_byte_offset's [32, 46) only: it reads
    back (desc >> 44) & 7, SBO's stored bits 12..13 (SBO >> 4 >> 12) or'ed in."""
    spec = descriptor_field_replaced("base_offset", lsb_bits=44)
    got = _prove(descriptors, spec, "proof.descriptor_roundtrip[wgmma/matrix_descriptor:base_offset]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    cex = got.fields["counterexample"]
    assert list(cex) == ["start_address", "leading_byte_offset", "stride_byte_offset",
                         "base_offset", "layout_type"]
    v = {k: int(x, 16) for k, x in cex.items()}
    back = (v["base_offset"] | ((v["stride_byte_offset"] >> 4) >> 12)) & 7
    assert back != v["base_offset"]
    assert f"base_offset={v['base_offset']:#x} reads back as {back:#x}" in got.message, got.message
    assert got.message.endswith("; overlaps stride_byte_offset"), got.message


def test_a_field_overlapping_one_neighbour_names_only_it(tmp_path: Path) -> None:
    """base_offset moved to lsb 29 ([29, 32)) meets leading_byte_offset's [16, 30) at bit 29
    only; stride_byte_offset starts at 32, just past it, and is not named. It reads back as
    (desc >> 29) & 7: its own bits with LBO's stored bit 13 (LBO >> 4 >> 13) or'ed into bit 0."""
    spec = descriptor_field_replaced("base_offset", lsb_bits=29)
    got = _prove(descriptors, spec, "proof.descriptor_roundtrip[wgmma/matrix_descriptor:base_offset]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    v = {k: int(x, 16) for k, x in got.fields["counterexample"].items()}
    back = v["base_offset"] | ((v["leading_byte_offset"] >> 4) >> 13) & 1
    assert back != v["base_offset"]
    assert f"base_offset={v['base_offset']:#x} reads back as {back:#x}" in got.message, got.message
    assert got.message.endswith("; overlaps leading_byte_offset"), got.message


def test_start_alignment_is_16_bytes_of_an_18_bit_range() -> None:
    """wgmma.smem_operand_start: 16-byte alignment; the field keeps a >> 4 in 14 bits of an 18-bit
    address: exactly the multiples of 16 below 2^18 round-trip (one query, no counterexample)."""
    got = _prove(descriptors, default_spec(),
                 "proof.start_alignment[wgmma/smem_alignment:wgmma.smem_operand_start]")
    expect_fields(got, Status.PASS, "ok", proof_status="proved", statement=(
        "wgmma_smem_operand: the start-address field represents exactly the 16-byte-aligned "
        "addresses of its range"), counterexample=None, reproduce_python=None, facts={"queries": 1})
    for named in ("a % 16 == 0", "a < 2^18", "a >> 4 in 14 bits"):
        assert named in got.message, (named, got.message)
