"""The committed mutation report accounts for every survivor (reports/mutation/)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

MUTATION = Path(__file__).resolve().parents[1] / "reports" / "mutation"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_mutmut", MUTATION / "run_mutmut.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_an_own_entry_wins_over_a_pattern_and_a_class_over_a_star() -> None:
    handling = _tool()._handling
    triage = {"m.f__mutmut_*": "equivalent: star", "m.f__mutmut_1[12]": "equivalent: class",
              "m.f__mutmut_11": "killed by t"}
    assert handling(triage, "m.f__mutmut_11") == "killed by t"
    assert handling(triage, "m.f__mutmut_12") == "equivalent: class"
    assert handling(triage, "m.f__mutmut_3") == "equivalent: star"
    assert handling(triage, "m.g__mutmut_3") == "UNTRIAGED"


def test_every_survivor_of_the_last_runs_is_explained() -> None:
    if not (MUTATION / "summary.json").is_file():
        pytest.skip("no reports/mutation/summary.json in this checkout")
    handling = _tool()._handling
    summary = json.loads((MUTATION / "summary.json").read_text(encoding="utf-8"))
    triage = json.loads((MUTATION / "triage.json").read_text(encoding="utf-8"))
    survivors = [s for mod in summary["modules"].values() for s in mod["survivors"]]
    assert survivors, "the report lists its survivors"
    unexplained = [s["mutant"] for s in survivors
                   if handling(triage, s["mutant"]) == "UNTRIAGED"
                   or handling(triage, s["mutant"]).startswith("killed")]
    assert not unexplained, f"survivors with no explanation (or meant killed): {unexplained}"


def test_a_merged_summary_names_each_modules_own_run() -> None:
    merge = _tool().merge_carried
    previous = {"date": "d0", "commit": "c0", "command": "cmd0", "note": "n0",
                "modules": {"a.py": {"score": 1.0}, "b.py": {"score": 0.5}},
                "runs": {"a.py": {"date": "d-a", "commit": "c-a", "command": "x", "note": "y"}}}
    now = {"date": "d1", "commit": "c1", "command": "cmd1", "note": "n1",
           "modules": {"b.py": {"score": 0.9}}}
    got = merge(now, previous)
    assert got["modules"] == {"b.py": {"score": 0.9}, "a.py": {"score": 1.0}}
    assert got["runs"] == {"b.py": {"date": "d1", "commit": "c1", "command": "cmd1", "note": "n1"},
                           "a.py": {"date": "d-a", "commit": "c-a", "command": "x", "note": "y"}}


def test_every_module_of_the_report_names_its_run() -> None:
    if not (MUTATION / "summary.json").is_file():
        pytest.skip("no reports/mutation/summary.json in this checkout")
    summary = json.loads((MUTATION / "summary.json").read_text(encoding="utf-8"))
    assert summary["modules"] and set(summary["runs"]) == set(summary["modules"])
    assert all(run.get("date") and run.get("commit") for run in summary["runs"].values())


def test_a_sample_is_drawn_from_the_matching_mutants_the_same_way_for_a_seed() -> None:
    sample = _tool().sample
    names = [f"ptxconf.oracle.m{m}.f__mutmut_{i}" for m in (1, 2) for i in range(1, 41)]
    one = sample(names, ["ptxconf.oracle.m1.*"], 10, seed=7)
    assert len(one) == 10 and len(set(one)) == 10
    assert all(n.startswith("ptxconf.oracle.m1.") for n in one)
    assert one == sample(names, ["ptxconf.oracle.m1.*"], 10, seed=7)
    assert one != sample(names, ["ptxconf.oracle.m1.*"], 10, seed=8)
    assert sample(names, [], 500, seed=1) == names, "a sample larger than the pool is all of it"


def test_the_wilson_interval_solves_its_defining_equation() -> None:
    """Each bound p of the 95% interval of k/n satisfies |k/n - p| = z*sqrt(p(1-p)/n)."""
    wilson = _tool().wilson
    for k, n in ((95, 100), (7, 40), (300, 300), (0, 12)):
        for p in wilson(k, n):
            if p in (0.0, 1.0) and k in (0, n):
                continue  # the bound at an end is the end itself
            assert abs(abs(k / n - p) - 1.96 * (p * (1 - p) / n) ** 0.5) < 2e-4, (k, n, p)
        low, high = wilson(k, n)
        assert low <= k / n <= high
