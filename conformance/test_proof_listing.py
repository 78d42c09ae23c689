"""The claims' listing (oracle/proofs/listing.py): a run whose wanted claims are all answered by
the proof cache reads them through the listing, generating only the claims that are not plain
proofs (a refutation re-checks its counterexample), with the verdicts of a run that generates
every claim; a tampered listing, or a wanted claim the cache does not answer, makes the run
generate every claim as before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("z3", reason="the proofs need z3-solver")

from ptxconf.core.cases import Case, execute
from ptxconf.core.results import Result, Status
from ptxconf.oracle.proofs import claims as claims_mod
from ptxconf.oracle.proofs import listing
from ptxconf.oracle.proofs.cache import ProofCache
from ptxconf.oracle.proofs.cases import proof_cases
from ptxconf.oracle.spec import Spec, default_spec

TIMEOUT_S = 30.0
#: A refutation with a known finding (layouts), and two plain proofs of two other modules.
WANTED = ("proof.layout_injective[wgmma/canonical_layouts:K_SW32]",
          "proof.swizzle_bijective[wgmma/canonical_layouts:MN_SW64]",
          "proof.descriptor_range[cute/gmma_descriptor:start_address]")


@pytest.fixture(scope="module")
def spec() -> Spec:
    return default_spec()


def _cases(spec: Spec, wanted: tuple[str, ...] = WANTED) -> list[Case]:
    """The proof cases of a run of `wanted` (every claim's case, made as `check` makes them)."""
    return proof_cases(spec, timeout_s=TIMEOUT_S, cache=True, workers=0, wanted=set(wanted).__contains__)


def _run(spec: Spec, wanted: tuple[str, ...] = WANTED) -> list[Result]:
    return [spec.findings.judge(execute(c)) for c in _cases(spec, wanted) if c.id in wanted]


def _plain(results: list[Result]) -> list[tuple[Any, ...]]:
    """What a run reports of each result, less how long it took and whether it was cached."""
    return [(r.id, r.status, r.code, r.message,
             {k: v for k, v in r.fields.items() if k not in ("cached", "seconds")}) for r in results]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    return tmp_path / "proofs"


@pytest.fixture(scope="module")
def cold_run(spec: Spec, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Result]]:
    """A cold run of WANTED, once a module: the cache folder it filled and its results (each
    test that starts from it works on a copy: `warmed`)."""
    folder = tmp_path_factory.mktemp("cold")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PTXCONF_CACHE_DIR", str(folder))
        return folder, _run(spec)


@pytest.fixture
def warmed(cold_run: tuple[Path, list[Result]], cache_dir: Path) -> list[Result]:
    """The test's cache folder as the cold run of WANTED left it: that run's results."""
    folder, results = cold_run
    shutil.copytree(folder, cache_dir.parent, dirs_exist_ok=True)
    return results


def _generated(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[int]]:
    """Records the listing's generator modules asked for, and the runs that generate every claim."""
    modules: list[str] = []
    whole: list[int] = []
    real_generated, real_indexed = listing.generated, claims_mod.indexed_claims

    def generated(spec: Spec, module: int) -> Any:
        modules.append(listing.MODULES[module])
        return real_generated(spec, module)

    def indexed(spec: Spec) -> Any:
        whole.append(1)
        return real_indexed(spec)

    monkeypatch.setattr(listing, "generated", generated)
    monkeypatch.setattr(claims_mod, "indexed_claims", indexed)
    return modules, whole


def test_the_listing_modules_are_the_generators_in_order() -> None:
    assert [g.__module__ for g in claims_mod.GENERATORS] == [
        f"ptxconf.oracle.proofs.{m}" for m in listing.MODULES]


def test_a_warm_run_generates_only_the_claims_that_are_not_plain_proofs(
        spec: Spec, cache_dir: Path, warmed: list[Result], monkeypatch: pytest.MonkeyPatch) -> None:
    cold = warmed
    assert {r.id: r.status for r in cold} == dict(zip(WANTED, (Status.DISCREPANCY, Status.PASS,
                                                               Status.PASS), strict=True))
    assert len(list((cache_dir / "listings").glob("*.json"))) == 1
    modules, whole = _generated(monkeypatch)
    warm = _run(spec)
    assert whole == [], "a warm run generated every claim"
    assert modules == ["layouts"], "only the refutation's module (its counterexample re-checked)"
    assert _plain(warm) == _plain(cold)
    assert all(r.fields.get("cached") for r in warm)


def test_a_tampered_listing_is_not_read(spec: Spec, cache_dir: Path, warmed: list[Result],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    cold = warmed
    path = next((cache_dir / "listings").glob("*.json"))
    data = json.loads(path.read_text())
    data["claims"][0][2] += " and more"  # a statement edited: its digest no longer matches
    path.write_text(json.dumps(data))
    modules, whole = _generated(monkeypatch)
    again = _run(spec)
    assert whole == [1], "the tampered listing was read"
    assert _plain(again) == _plain(cold)
    os.unlink(path)
    path.mkdir()  # not a regular file: not read either
    assert listing.get(ProofCache(spec), TIMEOUT_S) is None


def test_a_wanted_claim_the_cache_does_not_answer_generates_every_claim(
        spec: Spec, cache_dir: Path, warmed: list[Result], monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold run's cache with WANTED[0]'s entry gone (as if it was never proved): making the
    run's cases generates every claim, none through the listing."""
    missing = next(r for r in warmed if r.id == WANTED[0])
    ProofCache(spec)._path(missing.id, missing.fields["statement"], TIMEOUT_S).unlink()
    modules, whole = _generated(monkeypatch)
    _cases(spec)
    assert whole == [1]
    assert modules == []


def test_a_warm_run_of_plain_proofs_imports_no_claim_module_and_no_numpy(
        cache_dir: Path, warmed: list[Result]) -> None:
    """In a fresh interpreter: the cases of two cached proofs (the cold run's), from the
    listing, with neither the claims' generators nor NumPy imported."""
    wanted = WANTED[1:]
    cold = [r for r in warmed if r.id in wanted]
    out = _fresh(wanted, cache_dir, judged=False, also=(
        "'modules': sorted(m for m in sys.modules if m == 'numpy' or m.startswith("
        "('ptxconf.oracle.proofs.claims', 'ptxconf.oracle.proofs.swizzles', "
        "'ptxconf.oracle.proofs.descriptors')))"))
    assert out["modules"] == []
    assert out["status"] == [r.status.value for r in cold]
    assert out["message"] == [r.message for r in cold]


def test_a_warm_run_re_checks_a_known_refutation_without_the_solver(
        cache_dir: Path, warmed: list[Result]) -> None:
    """In a fresh interpreter: the cached refutation of a claim with a known finding is
    re-checked by its generator's module (layouts), which imports without Z3
    (ptxconf.oracle.proofs.solver), with the verdicts of the cold run."""
    cold = warmed
    out = _fresh(WANTED, cache_dir, judged=True, also=(
        "'layouts': 'ptxconf.oracle.proofs.layouts' in sys.modules, 'z3': 'z3' in sys.modules"))
    assert out["layouts"], "the known refutation was not re-checked by its module"
    assert not out["z3"]
    assert out["status"] == [r.status.value for r in cold]
    assert out["message"] == [r.message for r in cold]


def test_the_solver_stand_in_imports_z3_at_the_first_name_used() -> None:
    code = ("import json, sys\n"
            "from ptxconf.oracle.proofs.solver import z3\n"
            "before = 'z3' in sys.modules\n"
            "sort = z3.BoolSort()\n"
            "print(json.dumps([before, 'z3' in sys.modules, z3.BoolSort is sys.modules['z3'].BoolSort]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [False, True, True]
    from ptxconf.oracle.proofs import solver

    assert solver.z3.BitVecSort(8).size() == 8


def _fresh(wanted: tuple[str, ...] | list[str], cache_dir: Path, *, judged: bool, also: str
           ) -> dict:
    """In a fresh interpreter over the test's proof cache: the wanted proof cases run (and
    judged by the spec's findings where `judged`), their statuses and messages, and the JSON
    entries `also` adds (Python source of dict items, `sys` imported)."""
    got = "spec.findings.judge(execute(c))" if judged else "execute(c)"
    code = (
        "import json, sys\n"
        "from ptxconf.core.cases import execute\n"
        "from ptxconf.oracle.proofs.cases import proof_cases\n"
        "from ptxconf.oracle.spec import default_spec\n"
        "spec = default_spec()\n"
        f"wanted = {wanted!r}\n"
        f"cases = proof_cases(spec, timeout_s={TIMEOUT_S}, cache=True, workers=0, "
        "wanted=set(wanted).__contains__)\n"
        f"got = [{got} for c in cases if c.id in wanted]\n"
        "print(json.dumps({'status': [r.status.value for r in got], "
        f"'message': [r.message for r in got], {also}}}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PTXCONF_CACHE_DIR": str(cache_dir.parent)})
    out: dict = json.loads(done.stdout)
    return out
