"""The mutation audit's machinery (reports/mutation/run_mutmut.py), on stand-in data without
mutmut: the draw is seeded and reproducible, a survivor is matched to its explanation by
module, function and diff snippet (never by mutmut's positional id), an explained survivor
counts as caught, and a module below its floor fails the audit. And the per-test time limit of
a mutant's run (mutmut_profile.py, in a child process: importing it loads its hypothesis
profile): past it the kernel stops the run with SIGXCPU, the exit mutmut reads as a timeout."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

MUTATION = Path(__file__).resolve().parents[1] / "reports" / "mutation"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_mutmut", MUTATION / "run_mutmut.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


R = _tool()
MOD = "oracle/m.py"
ENTRIES = [{"module": MOD, "function": "f", "snippets": ["+ x = a + 2"],
            "why": "equivalent: a is never read"},
           {"module": MOD, "function": "C.g", "snippets": ["strict=False"],
            "why": "equivalent: equal lengths"}]


def _names(module: str, n: int) -> list[str]:
    return [f"ptxconf.{module}.x_f__mutmut_{i}" for i in range(1, n + 1)]


def test_the_draw_is_seeded_per_module_and_reproducible() -> None:
    pool = {"oracle/a.py": _names("oracle.a", 40), "oracle/b.py": _names("oracle.b", 40),
            "oracle/small.py": _names("oracle.small", 3)}
    one = R.sample(pool, 10, seed=7)
    assert one == R.sample(pool, 10, seed=7), "the same seed draws the same mutants"
    assert one != R.sample(pool, 10, seed=8), "another seed draws others"
    assert {m: len(v) for m, v in one.items()} == {"oracle/a.py": 10, "oracle/b.py": 10,
                                                   "oracle/small.py": 3}
    assert all(set(v) <= set(pool[m]) and len(set(v)) == len(v) for m, v in one.items())
    alone = R.sample({"oracle/a.py": pool["oracle/a.py"]}, 10, seed=7)
    assert alone["oracle/a.py"] == one["oracle/a.py"], "a module's draw ignores the others"


def test_a_mutant_names_its_function() -> None:
    assert R.function_of("ptxconf.oracle.banks.x__param_modes__mutmut_4") == "_param_modes"
    assert R.function_of("ptxconf.oracle.spec.xǁSpecǁof__mutmut_12") == "Spec.of"
    assert R.function_of("ptxconf.oracle.x_y.x_decode__mutmut_1") == "decode"


def test_a_survivor_is_explained_by_function_and_snippet_not_by_id() -> None:
    diff = "- x = a + 1  + x = a + 2"
    # any id: the match is module, function and a snippet of the diff
    for name in ("ptxconf.oracle.m.x_f__mutmut_3", "ptxconf.oracle.m.x_f__mutmut_97"):
        assert R.explanation(ENTRIES, MOD, R.function_of(name), diff) == "equivalent: a is never read"
    assert R.explanation(ENTRIES, MOD, "f", "- x = a + 1  + x = a - 1") is None, "another diff"
    assert R.explanation(ENTRIES, MOD, "h", diff) is None, "another function"
    assert R.explanation(ENTRIES, "oracle/n.py", "f", diff) is None, "another module"
    assert R.explanation(ENTRIES, MOD, "C.g", "- zip(a, b, strict=True)  +   zip(a, b,  strict=False)")


def test_an_explained_survivor_counts_as_caught_and_an_unexplained_one_against() -> None:
    statuses = {"ptxconf.oracle.m.x_f__mutmut_1": "killed",
                "ptxconf.oracle.m.x_f__mutmut_2": "timeout",
                "ptxconf.oracle.m.x_f__mutmut_5": "survived",
                "ptxconf.oracle.m.x_f__mutmut_6": "no tests",
                "ptxconf.oracle.m.x_f__mutmut_7": "not checked"}
    diffs = {"ptxconf.oracle.m.x_f__mutmut_5": "- x = a + 1  + x = a + 2",
             "ptxconf.oracle.m.x_f__mutmut_6": "- return x  + return None"}
    got = R.score_module(statuses, diffs, MOD, ENTRIES)
    assert (got["judged"], got["caught"], got["explained"]) == (4, 2, 1)
    assert [s["mutant"] for s in got["unexplained"]] == ["ptxconf.oracle.m.x_f__mutmut_6"]
    assert got["score"] == 0.75
    assert R.score_module(statuses, diffs, MOD, [])["score"] == 0.5


def test_a_module_below_its_floor_fails_the_audit() -> None:
    scores = {"oracle/a.py": {"score": 0.80, "caught": 8, "explained": 0, "unexplained": [{}] * 2},
              "oracle/b.py": {"score": 0.95, "caught": 19, "explained": 0, "unexplained": [{}]},
              "oracle/c.py": {"score": 1.0, "caught": 5, "explained": 0, "unexplained": []}}
    floors = {"oracle/a.py": 0.85, "oracle/b.py": 0.95}
    failed = R.below_floor(scores, floors)
    assert len(failed) == 2
    assert failed[0].startswith("oracle/a.py: score 0.800 below its floor 0.85")
    assert failed[1].startswith("oracle/c.py: no floor"), "a module with no floor fails too"
    assert R.below_floor(scores, {**floors, "oracle/a.py": 0.80, "oracle/c.py": 1.0}) == []
    lines = R.table(scores, floors, dict.fromkeys(scores, (10, 99))).splitlines()
    assert "BELOW FLOOR" in lines[1]
    assert lines[2].endswith("ok")
    assert lines[3].endswith("no floor")


def test_a_pasted_entry_explains_its_survivor(tmp_path: Path) -> None:
    s = {"mutant": "ptxconf.oracle.m.x_f__mutmut_9", "function": "f", "status": "survived",
         "diff": '- y = "a" if k else b  + y = "a" if k else None'}
    (tmp_path / "e.toml").write_text(R.paste_entry(MOD, s) + "\n", encoding="utf-8")
    entries = R.load_explained(tmp_path / "e.toml")
    assert R.explanation(entries, MOD, "f", s["diff"]) == "equivalent: ..."
    assert R.explanation(entries, MOD, "f", '- y = "a" if k else b  + y = "XXaXX" if k else b') is None


def test_an_explanation_lacking_a_key_is_refused(tmp_path: Path) -> None:
    (tmp_path / "e.toml").write_text('[[explained]]\nmodule = "oracle/m.py"\nfunction = "f"\n'
                                     'why = "equivalent"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="entry 1 lacks snippets"):
        R.load_explained(tmp_path / "e.toml")


def test_the_wilson_interval_solves_its_defining_equation() -> None:
    """Each bound p of the 95% interval of k/n satisfies |k/n - p| = z*sqrt(p(1-p)/n)."""
    for k, n in ((95, 100), (7, 40), (300, 300), (0, 12)):
        for p in R.wilson(k, n):
            if p in (0.0, 1.0) and k in (0, n):
                continue  # the bound at an end is the end itself
            assert abs(abs(k / n - p) - 1.96 * (p * (1 - p) / n) ** 0.5) < 2e-4, (k, n, p)
        low, high = R.wilson(k, n)
        assert low <= k / n <= high


def test_the_selection_is_read_from_pyproject_at_run_time() -> None:
    """The staged pyproject keeps [tool.mutmut]'s lists unless a run replaces them."""
    text = ('[tool.mutmut]\nonly_mutate = [\n    "ptxconf/a.py",\n]\n'
            'pytest_add_cli_args_test_selection = [\n    "conformance/test_a.py",\n]\nx = 1\n')
    got = tomllib.loads(R.select_mutated(text, ["ptxconf/oracle/descriptor.py"]))["tool"]["mutmut"]
    assert got["only_mutate"] == ["ptxconf/oracle/descriptor.py"]
    assert got["pytest_add_cli_args_test_selection"] == ["conformance/test_a.py"]
    got = tomllib.loads(R.select_tests(text, ["conformance/test_b.py"]))["tool"]["mutmut"]
    assert got["pytest_add_cli_args_test_selection"] == ["conformance/test_b.py"]


def test_a_selected_test_file_that_is_gone_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "conformance").mkdir()
    (tmp_path / "conformance" / "test_a.py").write_text("", encoding="utf-8")
    kept, gone = R.present_tests(["conformance/test_a.py", "conformance/test_a.py::test_x",
                                  "conformance/test_gone.py", "--deselect=conformance/x.py::t"],
                                 tmp_path)
    assert kept == ["conformance/test_a.py", "conformance/test_a.py::test_x",
                    "--deselect=conformance/x.py::t"]
    assert gone == ["conformance/test_gone.py"]


def _profile_child(mutant: str, limit: str, then: str) -> subprocess.CompletedProcess[str]:
    """A Python process that loads mutmut_profile.py as mutmut's child running `mutant` would
    (MUTANT_UNDER_TEST, the limit in R.LIMIT_ENV), arms the limit as before a test, then runs
    `then`."""
    code = (f"import sys; sys.path.insert(0, {str(MUTATION)!r}); import resource, time; "
            "import mutmut_profile as P; before = resource.getrlimit(resource.RLIMIT_CPU); "
            f"P.arm_test_limit(); {then}")
    env = {**os.environ, "MUTANT_UNDER_TEST": mutant, R.LIMIT_ENV: limit}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=False)


BUSY = "t = time.process_time()\nwhile time.process_time() - t < 60: pass"


def test_a_test_past_the_time_limit_stops_the_mutants_run_as_a_timeout() -> None:
    # a test that loops: a tenth of a CPU second allowed (the kernel's limit is whole seconds:
    # the next one the process reaches), the kernel sends SIGXCPU (mutmut's
    # status_by_exit_code: -24, "timeout", which the audit counts as caught)
    got = _profile_child("ptxconf.oracle.m.x_f__mutmut_1", "0.1", f"exec({BUSY!r})")
    assert got.returncode == -signal.SIGXCPU, (got.returncode, got.stderr)
    assert "timeout" in R.CAUGHT


def test_the_time_limit_is_armed_only_in_a_mutants_run() -> None:
    # mutmut's stats and clean runs (MUTANT_UNDER_TEST "stats", "") keep their CPU limit, a
    # mutant's run gets one: one process (one start) plays the three, the mutant's last
    show = ("for name in ('stats', '', 'ptxconf.oracle.m.x_f__mutmut_1'):\n"
            "    os.environ['MUTANT_UNDER_TEST'] = name\n"
            "    P.arm_test_limit()\n"
            "    print(resource.getrlimit(resource.RLIMIT_CPU) == before)")
    got = _profile_child("stats", "30", f"import os; exec({show!r})")
    assert (got.returncode, got.stdout.split()) == (0, ["True", "True", "False"]), got.stderr


def test_the_time_limit_counts_from_the_cpu_used_and_keeps_mutmuts_own_when_lower() -> None:
    got = _profile_child("stats", "1", "print(P.next_soft_limit(3.2, 120, resource.RLIM_INFINITY), "
                                       "P.next_soft_limit(3.2, 120, 60), P.LIMIT_ENV)")
    assert got.stdout.split() == ["124", "60", R.LIMIT_ENV], got.stderr
