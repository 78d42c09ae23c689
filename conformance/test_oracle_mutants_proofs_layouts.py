"""Z3 claims of oracle/proofs/ (banks, swizzles, layouts, descriptors, intervals) that mutation
testing found unasserted (reports/mutation/README.md, the first sample of `proofs/`).

conformance/test_proofs.py builds every claim at collection time, which mutmut does in its parent
process with the original code, and asserts little of a proved claim's text; these tests build
the claims inside the test (the module's own `claims(spec)`), prove the one with the wanted id
through `ptxconf.oracle.proofs.cases.run_claim`, and compare the whole outcome a report shows:
status, code, message, statement, counterexample and facts (all but Z3's query count where that
count depends on a model Z3 chose). A layout operand's report and its LBO/SBO condition's step
names are also called directly, on coordinates and steps picked by hand.

Expected values are worked by hand:

* from the bundled spec's rows: the canonical layouts (wgmma/canonical_layouts.yaml, e.g.
  K_SW32 = Swizzle<1,4,3> o ((8,m),(T,2k)):((2T,SBO),(1,T))), T = 128 / element width
  (wgmma/normalization.yaml), the instruction types' first type of each width (f16, tf32, e4m3,
  b1), the descriptor fields (wgmma/matrix_descriptor.yaml: start_address bits [0, 14) storing
  a >> 4 of an 18-bit address; base_offset [49, 52); layout_type [62, 64)) and the 16-byte start
  alignment (wgmma/smem_alignment.yaml);
* from CuTe's Swizzle<B,M,S>: x ^ ((x >> S) & (((1 << B) - 1) << M)), which flips bits M..M+B-1
  with bits M+S..M+S+B-1 and repeats every 2^(B+M+S) (for S >= 0; CuTe's shiftr by a negative S
  shifts left, flipping bits M-S..M-S+B-1 with bits M..M+B-1);
* from the documented claims (oracle/proofs/*.py docstrings): a bank group is (byte address >>
  4) mod 8 and the 8 rows of a core-matrix column must hit 8 groups; a layout's core is
  injective iff 2k * 16 B fits the swizzle row; a repeat step must avoid the core's difference
  set, written as open byte ranges; the period claim's searches try q = 0, 1, ... in order (one
  Z3 query each), so its query count is counted by hand;
* a refutation comes from a scratch copy of the bundled spec with one row's text edited
  (conformance/scratch_spec.py), its counterexample worked from the edited row.

Two tests show defects the survivors led to, fixed since (the bank claim's message named 16-B
starts whatever the start field's granule; a negative swizzle shift was proved as the identity).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import z3
from case_outcomes import prove_module_claim as _prove
from scratch_spec import edited_spec

from ptxconf.core.results import Result, Status
from ptxconf.oracle.proofs import banks, descriptors, intervals, layouts, swizzles
from ptxconf.oracle.proofs.encode import Encoder
from ptxconf.oracle.proofs.runner import Prover
from ptxconf.oracle.proofs.swizzles import Raw
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import default_spec

CANON = "wgmma/canonical_layouts"
DTYPES = "f16, tf32, e4m3, b1"


def _facts(got: Result) -> dict[str, object]:
    """The facts without Z3's query count."""
    return {k: v for k, v in got.fields["facts"].items() if k != "queries"}


# --- banks -------------------------------------------------------------------------------------

def test_bank_claim_of_the_unswizzled_k_major_layout() -> None:
    """K_INTER: its core is injective for every k, so the claim is made at k = 2 for each width;
    no swizzle, so the tail says none is needed and no unswizzled conflict is searched."""
    got = _prove(banks, default_spec(), f"proof.bank_conflict_free[{CANON}:K_INTER]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert got.message == (
        f"K_INTER: for {DTYPES}, every chunk and element, m=2, k=2, all LBO/SBO and 16-B-aligned "
        "starts (bytes reading), rows 0..7 of a core-matrix column fall in 8 distinct 16-byte "
        "bank groups; no swizzle needed: a core matrix's 8 rows are 16 B apart")
    assert got.fields["proof_status"] == "proved"
    assert got.fields["statement"] == (
        "K_INTER: the 8 rows of a core-matrix column hit 8 distinct bank groups")
    assert (got.fields["counterexample"], got.fields["reproduce"]) == (None, None)
    assert _facts(got) == {"unswizzled_conflict": None,
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
    assert (got.status, got.code) == (Status.PASS, "ok")
    head = (f"K_SW32: for {DTYPES}, every chunk and element, m=2, k=1, all LBO/SBO and 16-B-aligned "
            "starts (bytes reading), rows 0..7 of a core-matrix column fall in 8 distinct 16-byte "
            "bank groups; without its swizzle the same layout conflicts: ")
    assert got.message.startswith(head), got.message
    facts = _facts(got)
    assert facts["k"] == {"f16": 1, "tf32": 1, "e4m3": 1, "b1": 1}
    base = facts["unswizzled_conflict"]
    assert isinstance(base, dict)
    assert got.message == head + base["summary"]
    assert set(base) == {"summary", "dtype", "points", "bank_group", "reproduce"}
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
    assert base["reproduce"] == (
        'python -c "from ptxconf.oracle.spec import default_spec; from ptxconf.oracle.canonical '
        "import canonical_row, instantiate, row_swizzle, swizzled_offset; r = canonical_row("
        "default_spec(), 'K', '32B'); L = instantiate(r, 8, 2, 1, 0, 0); print([((0 + L(c) * 16 "
        f"// 8) >> 4) % 8 for c in [({p1['mn']}, {p1['k']}), ({p2['mn']}, {p2['k']})]])\"")


def test_bank_claim_names_the_start_granule_it_was_proved_for(tmp_path: Path) -> None:
    """start_address stored as a >> 5 (encode_shift_bits 5): starts are multiples of 2^5 = 32 B.
    K_INTER stays conflict-free (a start adds one constant to all 8 rows, 16 B apart), and the
    message must name the starts the proof ranged over: 32-B-aligned, not 16."""
    spec = edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml",
                       "width_bits: 14, encode_shift_bits: 4, address_bits: 18}\n  - {id: leading",
                       "width_bits: 14, encode_shift_bits: 5, address_bits: 18}\n  - {id: leading")
    got = _prove(banks, spec, f"proof.bank_conflict_free[{CANON}:K_INTER]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert "m=2, k=2, all LBO/SBO and 32-B-aligned starts (bytes reading)" in got.message, got.message


# --- swizzles ----------------------------------------------------------------------------------

def test_swizzle_at_flips_bits_4_to_6_with_bits_7_to_9() -> None:
    """Swizzle<3,4,3>(0x380) = 0x380 ^ (0x70 & 0x70) = 0x3f0; (0x80) = 0x90; Swizzle<1,4,3>
    flips bit 4 alone: (0x380) = 0x390."""
    assert Raw(3, 4, 3).at(0x380) == 0x3F0
    assert Raw(3, 4, 3).at(0x80) == 0x90
    assert Raw(1, 4, 3).at(0x380) == 0x390
    assert str(Raw(3, 4, 3)) == "Swizzle<3,4,3>"


def test_period_block_of_k_sw128() -> None:
    """Swizzle<3,4,3>: period 2^10; it commutes with +q only for q = 1024 (q = 0..10 tried: 11
    queries), and keeps 2^q-blocks from q = 7 (bits 4..6 flip; q = 0..7 tried: 8 queries), after
    the block and the shift queries: 21."""
    got = _prove(swizzles, default_spec(), f"proof.swizzle_period_block[{CANON}:K_SW128]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert got.message == (
        "Swizzle<3,4,3> maps every aligned 1024-block (its period 2^(B+M+S)) onto itself and "
        "commutes with +1024; the least power-of-two period is 1024, the smallest block it "
        "preserves 128")
    assert got.fields["statement"] == "Swizzle<3,4,3> maps each aligned period block onto itself"
    assert got.fields["facts"] == {"queries": 21, "period": 1024, "least_period": 1024,
                                   "smallest_block": 128}


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
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert got.message == (
        "Swizzle<1,4,1> maps every aligned 64-block (its period 2^(B+M+S)) onto itself and "
        "commutes with +64; the least power-of-two period is 64, the smallest block it "
        "preserves 32")
    assert got.fields["facts"] == {"queries": 15, "period": 64, "least_period": 64,
                                   "smallest_block": 32}


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


# --- layouts and intervals ---------------------------------------------------------------------

def test_step_text_names_each_repeat_step() -> None:
    """A step sum(delta_i * stride_i) in template names: a coefficient 1 unwritten, the first
    term unsigned, a later one with its sign: SBO - LBO is ``SBO-LBO``, 2 SBO + LBO ``2SBO+LBO``."""
    names = ["SBO", "LBO"]
    assert layouts._step_text((0, 1), names) == "LBO"
    assert layouts._step_text((1, -1), names) == "SBO-LBO"
    assert layouts._step_text((1, 1), names) == "SBO+LBO"
    assert layouts._step_text((2, -1), names) == "2SBO-LBO"
    assert layouts._step_text((1, 2), names) == "SBO+2LBO"


def test_k_inter_condition_at_m2_k1_lists_every_step() -> None:
    """K_INTER = ((8,m),(T,2k)):((1T,SBO),(1,LBO)), f16 (T = 8): the core (8 rows of T) is
    elements 0..63, bytes 0..126, so D = [-126, 126] B, open (-128, 128). At m = 2, k = 1 the m
    leaf (SBO) and the 2k leaf (LBO) take 2 values: steps d1 SBO + d2 LBO, |d| <= 1, first non-zero
    positive, in the order (d1, d2) = (0, 1), (1, -1), (1, 0), (1, 1)."""
    spec = default_spec()
    row = next(r for r in spec.of(CanonicalLayout) if r.id == "K_INTER")
    op = layouts.Operand.of(spec, row, "f16")
    cond = layouts.condition(Prover(z3.Context(), 30.0), op, 2, 1)
    assert cond.terms == ("LBO", "SBO-LBO", "SBO", "SBO+LBO")
    assert cond.text() == "LBO, SBO-LBO, SBO, SBO+LBO not in (-128, 128) B"


def test_report_of_two_points_at_different_addresses() -> None:
    """Operand.report with two coordinates that do not collide names both addresses ("at A and
    B"). K_SW32 f16 (T = 8) at m = k = 1: leaf coordinates (row, m, element, chunk); row 4 is
    4 * 2T = 64 elements = 128 B on, which Swizzle<1,4,3> on bytes moves to 0x90 (bit 7 flips
    bit 4); chunk 4 * 16 / 128 = 0."""
    spec = default_spec()
    row = next(r for r in spec.of(CanonicalLayout) if r.id == "K_SW32")
    op = layouts.Operand.of(spec, row, "f16")
    cex, line = op.report(Encoder(z3.Context()), (0, 0, 0, 0), (4, 0, 0, 0), 1, 1, 0, 0)
    summary = ("K_SW32 f16 m=1 k=1 LBO=0x0 SBO=0x0: (mn 0, k 0: row 0, chunk 0) and "
               "(mn 4, k 0: row 4, chunk 0) at 0x000 and 0x090")
    assert cex == {"summary": summary, "dtype": "f16", "m": 1, "k": 1, "lbo_bytes": 0,
                   "sbo_bytes": 0, "points": [
                       {"mn": 0, "k": 0, "row": 0, "chunk": 0, "address": "0x000"},
                       {"mn": 4, "k": 0, "row": 4, "chunk": 0, "address": "0x090"}]}
    assert line == (
        'python -c "from ptxconf.oracle.spec import default_spec; from ptxconf.oracle.canonical '
        "import canonical_row, instantiate, row_swizzle, swizzled_offset; r = canonical_row("
        "default_spec(), 'K', '32B'); L = instantiate(r, 8, 1, 1, 0, 0); print([hex(swizzled_offset("
        "L(c), 16, row_swizzle(r), 'bytes')) for c in [(0, 0), (4, 0)]])\"")

def test_k_sw128_layout_claim_names_its_k_bound_and_condition() -> None:
    """K_SW128 = Swizzle<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T)): rows 8T elements (128 B) apart,
    a row holds 2k chunks of 16 B, so the core is injective iff 32k <= 128 B, k <= 4, for every
    width; at k = 5 (m = 1, LBO = SBO = 0, minimized) row 1 meets chunk 8 of row 0 at 128 B,
    swizzled to 0x90 (bit 7 flips bit 4). For m, k <= 3 the shown (m, k) is the least with a
    repeat leaf of two values, m = 2, k = 1: the core spans rows j * 128 B + [0, 30] B, |j| <= 7,
    so SBO must avoid (-32, 32) + 128j."""
    got = _prove(layouts, default_spec(), f"proof.layout_injective[{CANON}:K_SW128]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    head = ("K_SW128 is not injective for every k: its core is injective iff k <= 4 (2k*16 B <= 128 B, "
            f"the swizzle row width) ({DTYPES}); at k=5: K_SW128 f16 m=1 k=5 LBO=0x0 SBO=0x0: ")
    tail = ("; for m, k <= 3 (k within the bound), injective iff every repeat step avoids the core's "
            f"difference set (the same in bytes for {DTYPES}); at m=2, k=1: SBO not in (-32, 32) + "
            "128j for |j| <= 7 B")
    pair = {"(mn 1, k 0: row 1, chunk 0)", "(mn 0, k 64: row 0, chunk 8)"}
    match = re.fullmatch(re.escape(head) + r"(\(.*?\)) and (\(.*?\)) both at 0x090" + re.escape(tail),
                         got.message)
    assert match is not None, got.message
    assert set(match.groups()) == pair
    assert got.fields["statement"] == (
        "K_SW128 = Swizzle<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T)) is injective (bytes reading) "
        "for every m, k, under an exact, satisfiable condition on LBO/SBO")
    cex = got.fields["counterexample"]
    assert {k: cex[k] for k in ("dtype", "m", "k", "lbo_bytes", "sbo_bytes")} == {
        "dtype": "f16", "m": 1, "k": 5, "lbo_bytes": 0, "sbo_bytes": 0}
    assert sorted(p["address"] for p in cex["points"]) == ["0x090", "0x090"]
    facts = _facts(got)
    assert set(facts) == {"k_bound", "reading", "conditions", "showcase"}
    assert (facts["k_bound"], facts["reading"]) == (4, "bytes")
    conditions = facts["conditions"]
    assert list(conditions) == ["f16", "tf32", "e4m3", "b1"]
    assert conditions["f16"]["m=1,k=1"] == "always (no repeat step)"
    assert conditions["f16"]["m=2,k=1"] == "SBO not in (-32, 32) + 128j for |j| <= 7 B"
    # m = 3: the m leaf takes 3 values, steps SBO and 2SBO
    assert conditions["b1"]["m=3,k=1"] == "SBO, 2SBO not in (-32, 32) + 128j for |j| <= 7 B"
    assert (facts["showcase"]["m"], facts["showcase"]["k"]) == (2, 1)
    assert facts["showcase"]["condition"] == "SBO not in (-32, 32) + 128j for |j| <= 7 B"


def test_a_too_small_difference_set_is_caught_by_the_claims_own_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the core's difference set cut to {0}, the condition at m = k = 1 for K_INTER
    (((8,m),(T,2k)):((1T,SBO),(1,LBO)), f16: (mn, k) at 2 * (8 * mn + k % 8) + LBO * (k // 8)
    bytes) only asks LBO != 0, and Z3's check that it implies injectivity finds two coordinates
    at one address: LBO below the core's 128 B, the claim refuted with that collision."""
    monkeypatch.setattr(intervals, "differences", lambda image, step: [(0, 0)])
    got = _prove(layouts, default_spec(), f"proof.layout_injective[{CANON}:K_INTER]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted"), got.message
    cex = got.fields["counterexample"]
    assert {k: cex[k] for k in ("dtype", "m", "k")} == {"dtype": "f16", "m": 1, "k": 1}
    lbo, sbo = cex["lbo_bytes"], cex["sbo_bytes"]
    assert 0 < lbo < 128 and lbo % 16 == 0
    p1, p2 = cex["points"]
    addrs = [2 * (8 * p["mn"] + p["k"] % 8) + lbo * (p["k"] // 8) for p in (p1, p2)]
    assert addrs[0] == addrs[1] and (p1["mn"], p1["k"]) != (p2["mn"], p2["k"])
    assert [p["address"] for p in (p1, p2)] == [f"{addrs[0]:#05x}"] * 2
    assert got.message == (
        f"K_INTER: the non-overlap condition does not imply injectivity: K_INTER f16 m=1 k=1 "
        f"LBO={lbo:#x} SBO={sbo:#x}: (mn {p1['mn']}, k {p1['k']}: row {p1['mn']}, chunk {p1['k'] // 8}) "
        f"and (mn {p2['mn']}, k {p2['k']}: row {p2['mn']}, chunk {p2['k'] // 8}) both at {addrs[0]:#05x}")
    assert cex["summary"] == got.message.split("injectivity: ", 1)[1]


def test_describe_centres_three_equal_runs() -> None:
    """Runs [-144, -112], [-16, 16], [112, 144] bits of 16-bit steps open to (-20, -12), (-4, 4),
    (12, 20) bytes: equal widths, one gap of 16, the middle one centred: one pattern."""
    diff = [(-144, -112), (-16, 16), (112, 144)]
    assert intervals.describe(diff, 16) == "(-4, 4) + 16j for |j| <= 1"


def test_describe_lists_an_even_number_of_runs() -> None:
    """Two runs [-144, -112], [-16, 16] open to (-20, -12), (-4, 4): equal widths, one gap, the
    second centred, but an even count has no middle run: listed one by one."""
    assert intervals.describe([(-144, -112), (-16, 16)], 16) == "(-20, -12) u (-4, 4)"


# --- descriptors -------------------------------------------------------------------------------

def test_start_address_range_is_the_18_bit_bound() -> None:
    """start_address: 14 bits of a >> 4, an 18-bit address: the largest is 2^18 - 16 = 0x3fff0
    (= (2^14 - 1) << 4), stored as 0x3fff."""
    got = _prove(descriptors, default_spec(),
                 "proof.descriptor_range[wgmma/matrix_descriptor:start_address]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert got.message == ("start_address: largest representable value 0x3fff0 (262128 bytes), "
                           "stored as 0x3fff in 14 bits; granularity 16")
    assert _facts(got) == {"max": 0x3FFF0}


def test_layout_type_past_bit_63_is_refuted(tmp_path: Path) -> None:
    """layout_type moved to lsb 63 keeps only its low bit inside the 64-bit descriptor: 1 round
    trips, 2 and 3 do not; the oracle's bound is still (2^2 - 1) << 0 = 3."""
    spec = edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml", "lsb_bits: 62, width_bits: 2",
                       "lsb_bits: 63, width_bits: 2")
    got = _prove(descriptors, spec, "proof.descriptor_range[wgmma/matrix_descriptor:layout_type]")
    assert (got.status, got.code) == (Status.FAIL, "refuted_oracle")
    assert got.message == ("layout_type: the largest value that round-trips is 0x1, the oracle's "
                           "bound is 0x3")
    assert got.fields["counterexample"] == {"proved_max": "0x1", "oracle_max": "0x3"}
    assert got.fields["reproduce"] is None


def test_overlapping_base_offset_names_the_field_it_overlaps(tmp_path: Path) -> None:
    """base_offset moved to lsb 44 ([44, 47)) meets stride_byte_offset's [32, 46) only: it reads
    back (desc >> 44) & 7, SBO's stored bits 12..13 (SBO >> 4 >> 12) or'ed in."""
    spec = edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml", "lsb_bits: 49, width_bits: 3",
                       "lsb_bits: 44, width_bits: 3")
    got = _prove(descriptors, spec, "proof.descriptor_roundtrip[wgmma/matrix_descriptor:base_offset]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    cex = got.fields["counterexample"]
    assert list(cex) == ["start_address", "leading_byte_offset", "stride_byte_offset",
                         "base_offset", "layout_type"]
    v = {k: int(x, 16) for k, x in cex.items()}
    back = (v["base_offset"] | ((v["stride_byte_offset"] >> 4) >> 12)) & 7
    assert back != v["base_offset"]
    assert got.message == (
        f"base_offset={v['base_offset']:#x} reads back as {back:#x} (with "
        f"start_address={v['start_address']:#x}, leading_byte_offset={v['leading_byte_offset']:#x}, "
        f"stride_byte_offset={v['stride_byte_offset']:#x}, layout_type={v['layout_type']:#x}); "
        "overlaps stride_byte_offset")


def test_start_alignment_is_16_bytes_of_an_18_bit_range() -> None:
    """wgmma.smem_operand_start: 16-byte alignment; the field keeps a >> 4 in 14 bits of an 18-bit
    address: exactly the multiples of 16 below 2^18 round-trip (one query, no counterexample)."""
    got = _prove(descriptors, default_spec(),
                 "proof.start_alignment[wgmma/smem_alignment:wgmma.smem_operand_start]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert got.message == ("for every 32-bit address a: decode(encode(a)) == a iff a % 16 == 0 and "
                           "a < 2^18 (the field stores a >> 4 in 14 bits)")
    assert got.fields["statement"] == (
        "wgmma_smem_operand: the start-address field represents exactly the 16-byte-aligned "
        "addresses of its range")
    assert got.fields["facts"] == {"queries": 1}
