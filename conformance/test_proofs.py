"""Z3 proofs over the spec: one test per proof case, ids from spec rows (proof.<claim>[<row key>]).

Every claim must be proved, or refuted where oracle/findings.py explains the refutation
(a known spec discrepancy, with a counterexample and a pasteable reproduce line). Unknown never
passes; a listed finding that is no longer refuted is stale and fails.
"""

from __future__ import annotations

import ast
import contextlib
import io
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptxconf.core.results import Result, Status
from ptxconf.oracle.canonical import SmemQuery, smem_offsets
from ptxconf.oracle.findings import explain, judge, known_findings
from ptxconf.oracle.proofs.cache import ProofCache
from ptxconf.oracle.proofs.cases import proof_cases, run_claim
from ptxconf.oracle.proofs.claims import all_claims
from ptxconf.oracle.proofs.distinguish import DistinguishingProbe, distinguishing_probes
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, default_spec, load_spec

#: One worker runs the module: the known refutations are proved once for its tests (`refuted`).
pytestmark = [pytest.mark.z3, pytest.mark.xdist_group("test_proofs")]

TIMEOUT_S = 30.0
CASES = list(proof_cases(default_spec(), timeout_s=TIMEOUT_S))


REFUTED = [c for c in CASES if explain(c.id) is not None]


@pytest.fixture(scope="module")
def refuted() -> dict[str, Result]:
    """Each known refutation proved once (Z3's default seed), as the case returns it."""
    return {c.id: c.run() for c in REFUTED}


@pytest.mark.parametrize("case", REFUTED, ids=[c.id for c in REFUTED])
def test_known_refutation_reproduces(case, refuted: dict[str, Result]) -> None:
    """Each known refutation (verdict in test_cases.py) carries a counterexample whose
    pasteable reproduce line shows the collision."""
    result = judge(refuted[case.id])
    assert result.fields["proof_status"] == "refuted", result.message
    assert result.code == "finding_known", result.message
    assert result.fields["counterexample"]["points"], result.fields
    assert _reproduced_collision(result)


def test_a_collision_is_named_in_coordinate_order(refuted: dict[str, Result]) -> None:
    """A collision is an unordered pair: its points come in (mn, k) order whichever one the
    solver found first, so a recorded finding holds under any Z3 version (seen: Z3 4.15 and
    5.4 name Figure 167's pair in opposite orders)."""
    collisions = [judge(refuted[c.id]) for c in REFUTED
                  if c.id.startswith(("proof.layout_injective[", "proof.example_injective["))]
    assert len(collisions) >= 4
    for r in collisions:
        points = r.fields["counterexample"]["points"]
        assert len(points) == 2, r.id
        assert points[0]["address"] == points[1]["address"], r.id
        assert (points[0]["mn"], points[0]["k"]) < (points[1]["mn"], points[1]["k"]), r.id


@pytest.fixture
def solver_seed():
    """Set Z3's random seeds for the test (a stand-in for another Z3 version: another model
    for the same query); back to 0, Z3's default, after it."""
    import z3

    def use(seed: int) -> None:
        z3.set_param("smt.random_seed", seed)
        z3.set_param("sat.random_seed", seed)

    yield use
    use(0)


@pytest.mark.slow(reason="every known refutation proved again under two other seeds (seconds): by "
                  "default test_known_refutation_reproduces proves each under Z3's default seed, and "
                  "test_a_collision_is_named_in_coordinate_order with "
                  "test_named_in_order_orders_a_collision_and_leaves_other_pairs_alone checks the "
                  "ordering rule that makes a recorded finding hold whichever model Z3 returns")
@pytest.mark.parametrize("seed", [1, 7])
def test_known_findings_hold_whichever_model_the_solver_returns(solver_seed, seed: int) -> None:
    """The recorded counterexamples do not depend on which model Z3 returns: under these seeds
    it names every collision's pair the other way round (seen before the ordering rule)."""
    solver_seed(seed)
    assert len(REFUTED) >= 4, "the four collisions are known findings"
    for case in REFUTED:
        result = judge(case.run())
        assert result.code == "finding_known", (seed, result.message)


def test_named_in_order_orders_a_collision_and_leaves_other_pairs_alone() -> None:
    from ptxconf.oracle.proofs.render import Point, named_in_order

    a, b = Point((0, 8), "K", 16, 256), Point((1, 0), "K", 16, 256)
    assert named_in_order(b, a) == (a, b)
    assert named_in_order(a, b) == (a, b)
    c = Point((0, 0), "K", 16, 512)  # not a collision: the order given carries meaning
    assert named_in_order(b, c) == (b, c)


def _run_reproduce(line: str, fresh_process: bool = False) -> str:
    """Run a reproduce line (``python -c CODE``): its stdout. In a fresh interpreter (this one's
    executable) where `fresh_process`, else CODE run here with names of its own, as `-c` runs
    it (test_broken_layout_is_refuted pastes one into a fresh process)."""
    argv = shlex.split(line)
    assert argv[0] == "python", line
    assert argv[1:2] == ["-c"], line
    assert len(argv) == 3, line
    if fresh_process:
        done = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True,
                              check=True, timeout=120)
        return done.stdout.strip()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(argv[2], "<reproduce_python>", "exec"), {"__name__": "__main__"})
    return out.getvalue().strip()


def _reproduced_collision(result: Result, fresh_process: bool = False) -> bool:
    """The reproduce line prints two equal addresses."""
    printed = ast.literal_eval(_run_reproduce(result.fields["reproduce_python"], fresh_process))
    return len(printed) == 2 and printed[0] == printed[1]


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_every_finding_names_a_case() -> None:
    proof_findings = {k for k in known_findings() if k.startswith("proof.")}
    missing = sorted(proof_findings - {c.id for c in CASES})
    assert not missing, f"findings without a case: {missing}"


def test_k_swizzled_bound_is_reported(refuted: dict[str, Result]) -> None:
    result = refuted["proof.layout_injective[wgmma/canonical_layouts:K_SW128]"]
    assert result.fields["facts"]["k_bound"] == 4
    assert "injective iff k <= 4" in result.message


def _scratch_spec(tmp_path: Path, rel: str, old: str, new: str):
    """A copy of spec/ with one row edited; the loaded Spec."""
    root = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, root)
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return load_spec(root)


def _run_case(spec, case_id: str) -> Result:
    case = next(c for c in proof_cases(spec, timeout_s=TIMEOUT_S) if c.id == case_id)
    return case.run()


def test_broken_swizzle_is_refuted(tmp_path: Path) -> None:
    spec = _scratch_spec(tmp_path, "wgmma/canonical_layouts.yaml",
                         '(1,T))", swizzle_bits: 3, swizzle_base: 4, swizzle_shift: 3}',
                         '(1,T))", swizzle_bits: 3, swizzle_base: 4, swizzle_shift: 2}')
    result = _run_case(spec, "proof.swizzle_bijective[wgmma/canonical_layouts:K_SW128]")
    assert result.fields["proof_status"] == "refuted"
    assert result.status is Status.DISCREPANCY
    assert "Swizzle<3,4,2> is not" in result.message
    assert "0x" in result.message
    printed = ast.literal_eval(_run_reproduce(result.fields["reproduce_python"]))
    cex = result.fields["counterexample"]
    if "y" in cex:  # two addresses with one image
        assert printed[0] == printed[1]
    else:  # not an involution: x -> s(x) -> s(s(x)) != x
        assert printed[1] != cex["x"]


def test_broken_layout_is_refuted(tmp_path: Path) -> None:
    spec = _scratch_spec(tmp_path, "wgmma/canonical_layouts.yaml",
                         '"((8,m),(T,2k)):((1T,SBO),(1,LBO))"',
                         '"((8,m),(T,2k)):((1,SBO),(1,LBO))"')
    result = _run_case(spec, "proof.layout_injective[wgmma/canonical_layouts:K_INTER]")
    assert result.fields["proof_status"] == "refuted"
    assert "never injective" in result.message
    assert "(mn 0, k 1: row 0, chunk 0) and (mn 1, k 0: row 1, chunk 0) both at 0x002" in (
        result.message)
    assert str(spec.root) in result.fields["reproduce_python"]
    assert _reproduced_collision(result, fresh_process=True)


def test_wrong_repeat_bytes_is_a_discrepancy(tmp_path: Path) -> None:
    spec = _scratch_spec(tmp_path, "wgmma/base_offset.yaml", "repeat_bytes: 512,",
                         "repeat_bytes: 256,")
    result = _run_case(spec, "proof.base_alignment[wgmma/base_offset:base_offset.64B]")
    assert result.fields["proof_status"] == "refuted"
    assert result.status is Status.DISCREPANCY
    assert "repeats every 512 B" in result.message
    assert "the table says 256 B" in result.message
    swizzled, expected = _run_reproduce(result.fields["reproduce_python"]).split()
    assert swizzled != expected


@pytest.fixture(scope="module")
def probes() -> list[DistinguishingProbe]:
    """The searches as the GPU lanes make them: through the run's proof cache (conftest.py),
    where the first of the run's sessions or this fixture keeps them."""
    return distinguishing_probes(default_spec(), cache=ProofCache(default_spec()))


def _probe(probes, hypothesis: str, row: str, dtype: str) -> DistinguishingProbe:
    return next(p for p in probes if (p.hypothesis, p.row.split(":")[1], p.dtype) ==
                (hypothesis, row, dtype))


def test_unit_readings_coincide_exactly_where_expected(probes) -> None:
    unit_probes = [p for p in probes if p.hypothesis == "swizzle_unit"]
    assert unit_probes, "no swizzle_unit probe"
    for p in unit_probes:
        same = p.swizzle == "none" or p.dtype in ("e4m3", "s8", "u8")
        assert p.distinguishable is not same, p.reason


def test_probes_replay_through_the_oracle(probes) -> None:
    spec = default_spec()
    replayable = [p for p in probes if p.distinguishable and p.hypothesis != "base_offset"]
    assert replayable, "no distinguishable probe to replay"
    for p in replayable:
        got = []
        for reading in p.readings:
            q = SmemQuery(p.dtype, p.major, p.swizzle, p.mn_elems, p.k_elems, p.lbo_bytes,
                          p.sbo_bytes, p.start_bytes or 0,
                          swizzle_unit=reading if p.hypothesis == "swizzle_unit" else "bytes",
                          mn_lbo_sbo_roles=reading if p.hypothesis != "swizzle_unit"
                          else "as_documented")
            mn, k = p.coord
            got.append(smem_offsets(spec, q)[mn][k])
        assert tuple(got) == p.addresses, p
        assert got[0] != got[1], p


def test_roles_probe_is_valid_under_both_readings(probes) -> None:
    p = _probe(probes, "mn_lbo_sbo_roles", "MN_SW128", "f16")
    assert p.distinguishable
    assert p.lbo_bytes != p.sbo_bytes
    assert min(p.lbo_bytes, p.sbo_bytes) >= 1024, p


def test_unknown_never_passes() -> None:
    claim = next(c for c in all_claims(default_spec())
                 if c.id == "proof.layout_injective[wgmma/canonical_layouts:K_INTER]")
    result = run_claim(claim, timeout_s=1e-9)
    assert result.fields["proof_status"] == "unknown"
    assert result.status is Status.UNKNOWN
    assert result.status.failing
    assert "timeout" in result.message
