"""The swizzle proofs (oracle/proofs/swizzles.py): a swizzle's bit flips, its period block (the
least power-of-two period and the smallest block it keeps, with the query count of the
searches), a negative shift and a wrong stated period refuted.

Expected values are worked by hand from CuTe's Swizzle<B,M,S>: x ^ ((x >> S) & (((1 << B) - 1)
<< M)), which flips bits M..M+B-1 with bits M+S..M+S+B-1 and repeats every 2^(B+M+S) (for S >=
0; CuTe's shiftr by a negative S shifts left); the period claim's searches try q = 0, 1, ... in
order (one Z3 query each), after the block and the shift queries. A refutation comes from a
scratch copy of the bundled spec with one row edited (conformance/scratch_spec.py). Outcomes are
asserted by status, code and fields; the messages' wording is pinned by messages_proofs.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import SHARED_PROOFS, expect_fields, proved_once
from case_outcomes import prove_module_claim as _prove
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.proofs import swizzles
from ptxconf.oracle.proofs.swizzles import Raw

pytestmark = pytest.mark.z3

CANON = "wgmma/canonical_layouts"


def test_swizzle_at_flips_bits_4_to_6_with_bits_7_to_9() -> None:
    """Swizzle<3,4,3>(0x380) = 0x380 ^ (0x70 & 0x70) = 0x3f0; (0x80) = 0x90; Swizzle<1,4,3>
    flips bit 4 alone: (0x380) = 0x390."""
    assert Raw(3, 4, 3).at(0x380) == 0x3F0
    assert Raw(3, 4, 3).at(0x80) == 0x90
    assert Raw(1, 4, 3).at(0x380) == 0x390
    assert str(Raw(3, 4, 3)) == "Swizzle<3,4,3>"


@pytest.mark.xdist_group(SHARED_PROOFS)
def test_period_block_of_k_sw128() -> None:
    """Swizzle<3,4,3>: period 2^10; it commutes with +q only for q = 1024 (q = 0..10 tried: 11
    queries), and keeps 2^q-blocks from q = 7 (bits 4..6 flip; q = 0..7 tried: 8 queries), after
    the block and the shift queries: 21."""
    got = proved_once(swizzles, f"proof.swizzle_period_block[{CANON}:K_SW128]")
    expect_fields(got, Status.PASS, "ok", proof_status="proved",
                  statement="Swizzle<3,4,3> maps each aligned period block onto itself",
                  counterexample=None, reproduce_python=None,
                  facts={"queries": 21, "period": 1024, "least_period": 1024, "smallest_block": 128})


def test_period_block_whose_smallest_block_is_half_the_period(tmp_path: Path) -> None:
    """CuTeDSL's SW32 atom with S = 1: Swizzle<1,4,1> flips bit 4 with bit 5; period 2^6 = 64,
    +32 moves bit 5 so the least period is 64 (q = 0..6: 7 queries); bit 4 is the only bit it
    moves, so 32-blocks are kept and 16-blocks not (q = 0..5: 6 queries); 1 + 1 + 7 + 6 = 15."""
    spec = edited_spec(tmp_path, "cutedsl/atom_selection.yaml",
                       "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, strided_elems: 8, "
                       "try_order: 2",
                       "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 1, strided_elems: 8, "
                       "try_order: 2")
    got = _prove(swizzles, spec, "proof.swizzle_period_block[cutedsl/atom_selection:SW32]")
    expect_fields(got, Status.PASS, "ok", proof_status="proved",
                  statement="Swizzle<1,4,1> maps each aligned period block onto itself",
                  counterexample=None, reproduce_python=None,
                  facts={"queries": 15, "period": 64, "least_period": 64, "smallest_block": 32})


def test_period_block_of_a_negative_shift_is_refuted(tmp_path: Path) -> None:
    """CuTe's Swizzle<B,M,S> is x ^ shiftr(x & (((1 << B) - 1) << (M + max(0, S))), S), a negative
    S shifting left: Swizzle<1,4,-3> flips bit 7 with bit 4 (0x10 -> 0x90), so it does not keep
    the aligned 2^(B+M+S) = 4-blocks; the row loads, and the claim must be refuted (swizzles.py:
    "a broken row is refuted with a counterexample")."""
    spec = edited_spec(tmp_path, "cutedsl/atom_selection.yaml",
                       "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, strided_elems: 8",
                       "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: -3, strided_elems: 8")
    got = _prove(swizzles, spec, "proof.swizzle_period_block[cutedsl/atom_selection:SW32]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted"), got.message


def test_a_wrong_stated_period_is_refuted_with_both_periods(tmp_path: Path) -> None:
    """period.S143 (Swizzle<1,4,3>) stated as 128 units: it flips bit 4 with bit 7, so adding
    2^q for q <= 7 can change bit 7 and the least period is 2^8 = 256 (q = 0..8: 9 queries,
    after the block and the shift queries: 11)."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml",
                       "id: period.S143, example: period, swizzle_bits: 1, swizzle_base: 4, "
                       "swizzle_shift: 3, period_units: 256",
                       "id: period.S143, example: period, swizzle_bits: 1, swizzle_base: 4, "
                       "swizzle_shift: 3, period_units: 128")
    got = _prove(swizzles, spec, "proof.swizzle_period_block[cutedsl/worked_examples:period.S143]")
    expect_fields(got, Status.DISCREPANCY, "refuted", proof_status="refuted",
                  statement="Swizzle<1,4,3> maps each aligned period block onto itself",
                  counterexample={"period_units": 128, "least_period": 256}, reproduce_python=None,
                  facts={"queries": 11})
