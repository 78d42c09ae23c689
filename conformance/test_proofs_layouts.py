"""The layout-injectivity proofs (oracle/proofs/layouts.py): a repeat step's name, the exact
non-overlap condition on LBO/SBO at an (m, k), a two-point report, a swizzled layout's k bound
and its conditions, and the claim's own check that the condition implies injectivity.

Expected values are worked by hand from the canonical layouts (wgmma/canonical_layouts.yaml,
e.g. K_SW128 = Swizzle<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T))), T = 128 / element width, the
instruction types' first type of each width (f16, tf32, e4m3, b1) and the documented claims: a
layout's core is injective iff 2k * 16 B fits the swizzle row; a repeat step must avoid the
core's difference set, written as open byte ranges (oracle/proofs/intervals.py). A collision's
two points come in either order (Z3 picks). Outcomes are asserted by status, code and fields (Z3's
query count aside); the messages' wording is pinned by messages_proofs.py.
"""

from __future__ import annotations

import pytest
import z3
from case_outcomes import SHARED_PROOFS, proof_facts, proved_once
from case_outcomes import prove_module_claim as _prove

from ptxconf.core.results import Status
from ptxconf.oracle.proofs import intervals, layouts
from ptxconf.oracle.proofs.encode import Encoder
from ptxconf.oracle.proofs.runner import Prover
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import default_spec

pytestmark = pytest.mark.z3

CANON = "wgmma/canonical_layouts"
DTYPES = "f16, tf32, e4m3, b1"


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


@pytest.mark.xdist_group(SHARED_PROOFS)
def test_k_sw128_layout_claim_names_its_k_bound_and_condition() -> None:
    """K_SW128 = Swizzle<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T)): rows 8T elements (128 B) apart,
    a row holds 2k chunks of 16 B, so the core is injective iff 32k <= 128 B, k <= 4, for every
    width; at k = 5 (m = 1, LBO = SBO = 0, minimized) row 1 meets chunk 8 of row 0 at 128 B,
    swizzled to 0x90 (bit 7 flips bit 4). For m, k <= 3 the shown (m, k) is the least with a
    repeat leaf of two values, m = 2, k = 1: the core spans rows j * 128 B + [0, 30] B, |j| <= 7,
    so SBO must avoid (-32, 32) + 128j."""
    got = proved_once(layouts, f"proof.layout_injective[{CANON}:K_SW128]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    for named in ("iff k <= 4", f"({DTYPES}); at k=5: K_SW128 f16 m=1 k=5 LBO=0x0 SBO=0x0: ",
                  "for m, k <= 3", "at m=2, k=1: SBO not in (-32, 32) + 128j for |j| <= 7 B"):
        assert named in got.message, (named, got.message)
    assert got.fields["statement"] == (
        "K_SW128 = Swizzle<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T)) is injective (bytes reading) "
        "for every m, k, under an exact, satisfiable condition on LBO/SBO")
    cex = got.fields["counterexample"]
    assert {k: cex[k] for k in ("dtype", "m", "k", "lbo_bytes", "sbo_bytes")} == {
        "dtype": "f16", "m": 1, "k": 5, "lbo_bytes": 0, "sbo_bytes": 0}
    assert {(p["mn"], p["k"], p["row"], p["chunk"]) for p in cex["points"]} == {(1, 0, 1, 0), (0, 64, 0, 8)}
    assert sorted(p["address"] for p in cex["points"]) == ["0x090", "0x090"]
    assert cex["summary"] in got.message, got.message
    facts = proof_facts(got)
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
    assert 0 < lbo < 128
    assert lbo % 16 == 0
    p1, p2 = cex["points"]
    addrs = [2 * (8 * p["mn"] + p["k"] % 8) + lbo * (p["k"] // 8) for p in (p1, p2)]
    assert addrs[0] == addrs[1]
    assert (p1["mn"], p1["k"]) != (p2["mn"], p2["k"])
    assert [p["address"] for p in (p1, p2)] == [f"{addrs[0]:#05x}"] * 2
    assert cex["summary"] == (
        f"K_INTER f16 m=1 k=1 LBO={lbo:#x} SBO={sbo:#x}: (mn {p1['mn']}, k {p1['k']}: row {p1['mn']}, "
        f"chunk {p1['k'] // 8}) and (mn {p2['mn']}, k {p2['k']}: row {p2['mn']}, chunk {p2['k'] // 8}) "
        f"both at {addrs[0]:#05x}")
    assert got.message.startswith("K_INTER: ")
    assert got.message.endswith(f"injectivity: {cex['summary']}")
