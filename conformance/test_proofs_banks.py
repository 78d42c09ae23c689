"""The bank-conflict proofs (oracle/proofs/banks.py): the 8 rows of a core-matrix column hit 8

pytestmark = pytest.mark.z3
distinct 16-byte bank groups, the k each width is proved at, the conflict the layout would have
without its swizzle, and the start granule the proof ranged over.

The claims are built inside each test (`banks.claims(spec)`, case_outcomes.prove_module_claim)
and their outcome asserted by status, code and fields (Z3's query count aside); the messages'
wording is pinned by messages_proofs.py.

Expected values are worked by hand from the canonical layouts (wgmma/canonical_layouts.yaml,
K_INTER = ((8,m),(T,2k)):((1T,SBO),(1,LBO)), K_SW32 = Swizzle<1,4,3> o ((8,m),(T,2k)):((2T,SBO),
(1,T))), T = 128 / element width, the instruction types' first type of each width (f16, tf32,
e4m3, b1) and the documented claim: a bank group is (byte address >> 4) mod 8; a layout's core
is injective iff 2k * 16 B fits the swizzle row. The message once named 16-B starts whatever
the start field's granule (fixed; the last test shows it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import SHARED_PROOFS, proof_facts, proved_once
from case_outcomes import prove_module_claim as _prove
from scratch_spec import descriptor_field_replaced

from ptxconf.core.results import Status
from ptxconf.oracle.proofs import banks
from ptxconf.oracle.spec import default_spec

CANON = "wgmma/canonical_layouts"
DTYPES = "f16, tf32, e4m3, b1"


@pytest.mark.xdist_group(SHARED_PROOFS)
def test_bank_claim_of_the_unswizzled_k_major_layout() -> None:
    """K_INTER: its core is injective for every k, so the claim is made at k = 2 for each width;
    no swizzle, so the tail says none is needed and no unswizzled conflict is searched."""
    got = proved_once(banks, f"proof.bank_conflict_free[{CANON}:K_INTER]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert f"for {DTYPES}, every chunk and element, m=2, k=2, all LBO/SBO and 16-B-aligned starts" \
        in got.message, got.message
    assert got.fields["proof_status"] == "proved"
    assert got.fields["statement"] == (
        "K_INTER: the 8 rows of a core-matrix column hit 8 distinct bank groups")
    assert (got.fields["counterexample"], got.fields["reproduce_python"]) == (None, None)
    assert proof_facts(got) == {"unswizzled_conflict": None,
                                "k": {"f16": 2, "tf32": 2, "e4m3": 2, "b1": 2}}


def _k_sw32_plain_bytes(mn: int, k: int) -> int:
    """K_SW32 without its swizzle, f16 (T = 8), m = 2, k = 1, SBO = 0: ((8,2),(8,2)):((16,0),(1,8))
    elements, 2 bytes each."""
    return 2 * ((mn % 8) * 16 + (k % 8) + (k // 8) * 8)


def test_bank_claim_of_k_sw32_names_the_unswizzled_conflict() -> None:
    """K_SW32: 2k * 16 B <= 32 B holds for k = 1 only, so k = 1; swizzled, conflict-free; without
    the swizzle rows are 32 B apart, so row 4 (128 B on) is the least row in row 0's bank group,
    at start 0, LBO 0, SBO 0 (each minimized first); f16 is the first width tried."""
    got = _prove(banks, default_spec(), f"proof.bank_conflict_free[{CANON}:K_SW32]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.PASS, "ok", "proved")
    assert f"for {DTYPES}, every chunk and element, m=2, k=1, all LBO/SBO and 16-B-aligned starts" \
        in got.message, got.message
    facts = proof_facts(got)
    assert facts["k"] == {"f16": 1, "tf32": 1, "e4m3": 1, "b1": 1}
    base = facts["unswizzled_conflict"]
    assert isinstance(base, dict)
    assert got.message.endswith(f": {base['summary']}"), got.message
    assert set(base) == {"summary", "dtype", "points", "bank_group", "reproduce_python"}
    assert base["dtype"] == "f16"
    p1, p2 = base["points"]
    assert (p1["row"], p2["row"]) == (0, 4)
    # the coordinates Z3 left free (the chunk, the element, the m repeat) are the same in both
    assert (p1["k"], p1["chunk"], p1["mn"] // 8) == (p2["k"], p2["chunk"], p2["mn"] // 8)
    addrs = [_k_sw32_plain_bytes(p["mn"], p["k"]) for p in (p1, p2)]
    assert [p["address"] for p in (p1, p2)] == [f"{a:#05x}" for a in addrs]
    assert addrs[1] - addrs[0] == 128
    group = (addrs[0] >> 4) % 8
    assert base["bank_group"] == group == (addrs[1] >> 4) % 8
    assert base["summary"] == (
        f"(mn {p1['mn']}, k {p1['k']}: row 0, chunk {p1['chunk']}) at {addrs[0]:#05x} and "
        f"(mn {p2['mn']}, k {p2['k']}: row 4, chunk {p2['chunk']}) at {addrs[1]:#05x}, both in "
        f"bank group {group} (start 0x0, LBO 0x0, SBO 0x0)")
    # the line prints each point's bank group: (start + offset in bytes) >> 4 (16-B groups)
    # mod 8 (32 banks of 4 B: 8 groups a 128-B line), for the layout without its swizzle
    assert base["reproduce_python"] == (
        'python -c "from ptxconf.oracle.spec import default_spec; from ptxconf.oracle.canonical '
        "import canonical_row, instantiate, row_swizzle, swizzled_offset; r = canonical_row("
        "default_spec(), 'K', '32B'); L = instantiate(r, 8, 2, 1, 0, 0); print([((0 + L(c) * 16 "
        f"// 8) >> 4) % 8 for c in [({p1['mn']}, {p1['k']}), ({p2['mn']}, {p2['k']})]])\"")


def test_bank_claim_names_the_start_granule_it_was_proved_for(tmp_path: Path) -> None:
    """start_address stored as a >> 5 (encode_shift_bits 5): starts are multiples of 2^5 = 32 B.
    K_INTER stays conflict-free (a start adds one constant to all 8 rows, 16 B apart), and the
    message must name the starts the proof ranged over: 32-B-aligned, not 16."""
    spec = descriptor_field_replaced("start_address", encode_shift_bits=5)
    got = _prove(banks, spec, f"proof.bank_conflict_free[{CANON}:K_INTER]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert "m=2, k=2, all LBO/SBO and 32-B-aligned starts (bytes reading)" in got.message, got.message
