"""The mutation audit of the oracle's code with mutmut (`tox -e oracle-mutants`).

Each run draws FRESH mutants: a seed per run (printed; `--seed N` repeats a run), and per module
of `[tool.mutmut] only_mutate` a uniform random sample of `--per-module N` of its mutants
(`random.Random(f"{seed}:{module}")`, so a module's draw does not depend on which others run).
mutmut runs them with `[tool.mutmut]`'s test selection, read at run time (`--tests` replaces it
for one run). Per module it prints a score, (killed + timeout + explained survivors) / judged
mutants, against the module's floor in reports/mutation/floors.json, and exits 1 when a module
is below its floor or has none. A survivor is explained by an entry of
reports/mutation/explained.toml naming its module, its function and a snippet of its diff
(never mutmut's positional mutant id, which every edit shifts); each unexplained survivor is
printed with its diff and an entry to paste.

mutmut names a mutant after its file's path (`ptxconf/oracle/descriptor.py` ->
`ptxconf.oracle.descriptor`) and puts its mutated copy first on `sys.path`; the tests import
`ptxconf.oracle.descriptor`. So mutmut runs in a staging tree laid out under the import names
(`.mutmut-stage/`, ignored, built anew each run): `ptxconf/` (the repo's `src/ptxconf/`),
`conformance/` and `pyproject.toml`. Modules are named by their path under src/ptxconf
(`oracle/descriptor.py`).

A mutant's run stops, counted as a timeout (caught, as mutmut counts its own timeouts), when one
of its tests has used --test-time-limit CPU seconds (mutmut_profile.py arms it before each test).

    python reports/mutation/run_mutmut.py [--seed N] [--per-module N] [--module PATH ...]
                                          [--jobs N] [--source worktree|head] [--tests TEST ...]
                                          [--test-time-limit S] [--report PATH]
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / ".mutmut-stage"
FLOORS = ROOT / "reports" / "mutation" / "floors.json"
EXPLAINED = ROOT / "reports" / "mutation" / "explained.toml"
REPORT = STAGE / "report.json"
#: repo folder -> where it lies in the staging tree (its import name)
LAYOUT = {"src/ptxconf": "ptxconf", "conformance": "conformance"}
#: the package's folder in the repository (the summary's module paths are relative to it)
PACKAGE = "src/ptxconf"
PROFILE = "mutmut"
#: CPU seconds one test of a mutant's run may take (--test-time-limit): the slowest test of the
#: selection takes about 50 s in mutmut's stats run (test_facts.py's every-field sweep), so twice
#: that and some: a mutant looping in a test stops two minutes into it, not at mutmut's own
#: limit (15 x the estimate of all the mutant's tests: up to two hours). A limit on the whole
#: run would also stop survivors that reach many tests (notation's: 967, about 8 minutes) and
#: count them as caught.
TEST_TIME_LIMIT_S = 120
#: The variable that passes it to mutmut_profile.py in mutmut's children.
LIMIT_ENV = "PTXCONF_MUTANT_TEST_CPU_S"


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in {"__pycache__", ".hypothesis", ".pytest_cache"}}


def _from_head() -> dict[str, bytes]:
    """Every file of the code folders (not conformance/) at git HEAD, by its repository path."""
    folders = [src for src in LAYOUT if src != "conformance"]
    raw = subprocess.run(["git", "archive", "--format=tar", "HEAD", *folders],
                         cwd=ROOT, check=True, capture_output=True).stdout
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        for m in tar.getmembers():
            if m.isfile():
                f = tar.extractfile(m)
                assert f is not None
                out[m.name] = f.read()
    return out


def _replace_list(pyproject: str, key: str, items: list[str]) -> str:
    """The staged pyproject with the list `key = [...]` of `[tool.mutmut]` replaced."""
    key = f"{key} = ["
    start = pyproject.index(key)
    end = pyproject.index("\n]\n", start) + 3
    listed = "".join(f"    {json.dumps(t)},\n" for t in items)
    return pyproject[:start] + key + "\n" + listed + "]\n" + pyproject[end:]


def select_tests(pyproject: str, tests: list[str]) -> str:
    """The staged pyproject's `[tool.mutmut]` with its test selection replaced by `tests` (a
    module group's own fast tests: mutmut runs, for each mutant, every selected test that
    reaches its function, so a wide selection makes every mutant slow)."""
    return _replace_list(pyproject, "pytest_add_cli_args_test_selection", tests)


def select_mutated(pyproject: str, files: list[str]) -> str:
    """The staged pyproject's `[tool.mutmut]` mutating only `files` (staging-tree globs)."""
    return _replace_list(pyproject, "only_mutate", files)


def present_tests(listed: list[str], root: Path) -> tuple[list[str], list[str]]:
    """The test selection's entries whose file exists under `root` (options such as
    --deselect kept), and those whose file does not (a test file renamed or folded into
    another while its selection entry still names it)."""
    kept, gone = [], []
    for t in listed:
        (gone if not t.startswith("-") and not (root / t.split("::")[0]).is_file()
         else kept).append(t)
    return kept, gone


def build_stage(source: str, keep: bool, tests: list[str] | None = None,
                mutate: list[str] | None = None) -> None:
    """Lay the repository out under its import names in STAGE (keeping STAGE/mutants if keep)."""
    if STAGE.exists() and not keep:
        shutil.rmtree(STAGE)
    STAGE.mkdir(exist_ok=True)
    for dest in set(LAYOUT.values()):
        if (STAGE / dest).exists():
            shutil.rmtree(STAGE / dest)
    head = _from_head() if source == "head" else {}
    for src, dest in sorted(LAYOUT.items(), key=lambda kv: kv[1].count("/")):
        if head and src != "conformance":
            for name, data in head.items():
                if name.startswith(src + "/"):
                    target = STAGE / dest / name.removeprefix(src + "/")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
        else:
            shutil.copytree(ROOT / src, STAGE / dest, ignore=_ignore, dirs_exist_ok=True)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    if not tests:
        listed = tomllib.loads(text)["tool"]["mutmut"]["pytest_add_cli_args_test_selection"]
        tests, gone = present_tests(listed, STAGE)
        for t in gone:
            print(f"run_mutmut: warning: {t} (in [tool.mutmut]'s test selection) is not in "
                  "conformance/: left out of this run", file=sys.stderr)
        tests = tests if gone else None
    text = select_tests(text, tests) if tests else text
    (STAGE / "pyproject.toml").write_text(select_mutated(text, mutate) if mutate else text,
                                          encoding="utf-8")
    shutil.copy2(Path(__file__).with_name("mutmut_profile.py"), STAGE / "mutmut_profile.py")


def generated_mutants(jobs: int) -> dict[str, list[str]]:
    """Generate mutmut's mutants in STAGE (no test runs): module (path under src/ptxconf) ->
    its mutants' names, in a stable order."""
    code = ("import os; from mutmut.__main__ import create_mutants; "
            "from mutmut.mutation.trampoline import set_mutant_under_test; "
            "from mutmut.utils.file_utils import copy_src_dir, copy_also_copy_files, "
            "setup_source_paths; os.makedirs('mutants', exist_ok=True); "
            "set_mutant_under_test('mutant_generation'); copy_src_dir(); copy_also_copy_files(); "
            f"setup_source_paths(); create_mutants({jobs})")
    subprocess.run([sys.executable, "-c", code], cwd=STAGE, check=True, capture_output=True)
    out: dict[str, list[str]] = {}
    for meta in sorted((STAGE / "mutants").rglob("*.py.meta")):
        names = json.loads(meta.read_text())["exit_code_by_key"]
        if names:
            out[module_of(meta)] = sorted(names, key=_mutant_sort_key)
    return out


def ran_mutants() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """From the staging tree's last mutmut run: per module, every mutant, and those it ran."""
    every: dict[str, list[str]] = {}
    ran: dict[str, list[str]] = {}
    for meta in sorted((STAGE / "mutants").rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        done = sorted((n for n, c in codes.items() if c is not None), key=_mutant_sort_key)
        if done:
            every[module_of(meta)], ran[module_of(meta)] = list(codes), done
    return every, ran


def module_of(meta: Path) -> str:
    """`.../mutants/ptxconf/oracle/descriptor.py.meta` -> `oracle/descriptor.py`."""
    rel = meta.relative_to(STAGE / "mutants").as_posix().removesuffix(".meta")
    return rel.removeprefix(LAYOUT[PACKAGE] + "/")


def sample(by_module: dict[str, list[str]], per_module: int, seed: int) -> dict[str, list[str]]:
    """Per module, a uniform random sample of `per_module` of its mutants (all if fewer), drawn
    with `random.Random(f"{seed}:{module}")`: the same seed gives the same draw, whichever
    other modules run."""
    return {module: sorted(random.Random(f"{seed}:{module}").sample(names, min(per_module,
                                                                               len(names))),
                           key=_mutant_sort_key)
            for module, names in sorted(by_module.items())}


def function_of(mutant: str) -> str:
    """The function a mutant changes: `ptxconf.oracle.banks.x__param_modes__mutmut_4` ->
    `_param_modes`; a method `...xǁSpecǁof__mutmut_2` -> `Spec.of`."""
    mangled = mutant.rpartition(".")[2].rpartition("__mutmut_")[0]
    if mangled.startswith("xǁ"):
        return ".".join(mangled.removeprefix("xǁ").split("ǁ"))
    return mangled.removeprefix("x_")


def one_line(diff: str) -> str:
    """A unified diff of one function as `- old  + new` on one line."""
    minus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    plus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return f"- {' | '.join(minus)}  + {' | '.join(plus)}"


def _squash(text: str) -> str:
    return " ".join(text.split())


def load_explained(path: Path = EXPLAINED) -> list[dict]:
    """The explanations: `[[explained]]` tables of module, function, snippets (or snippet) and
    why; refused with its position when a key is missing."""
    import tomllib

    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("explained", []) \
        if path.exists() else []
    for i, e in enumerate(entries, 1):
        if "snippet" in e:
            e.setdefault("snippets", []).append(e.pop("snippet"))
        missing = [k for k in ("module", "function", "snippets", "why") if not e.get(k)]
        if missing:
            raise ValueError(f"{path}: [[explained]] entry {i} lacks {', '.join(missing)}")
    return entries


def explanation(entries: list[dict], module: str, function: str, diff: str) -> str | None:
    """Why a survivor may survive: the first entry of its module and function one of whose
    snippets occurs in its one-line diff (whitespace squashed); None when none does."""
    line = _squash(diff)
    for e in entries:
        if e["module"] == module and e["function"] == function and any(
                _squash(s) in line for s in e["snippets"]):
            return str(e["why"])
    return None


CAUGHT = {"killed", "timeout", "caught by type check", "segfault"}
NOT_RUN = {"not checked", "skipped", "check was interrupted by user"}


def score_module(statuses: dict[str, str], diffs: dict[str, str], module: str,
                 entries: list[dict]) -> dict:
    """One module's figures from its sampled mutants' statuses (name -> mutmut status) and the
    survivors' one-line diffs: an explained survivor counts as caught, an unexplained one
    against the score."""
    counts: dict[str, int] = {}
    explained, unexplained = [], []
    for name, status in sorted(statuses.items(), key=lambda kv: _mutant_sort_key(kv[0])):
        counts[status] = counts.get(status, 0) + 1
        if status in CAUGHT or status in NOT_RUN:
            continue
        item = {"mutant": name, "function": function_of(name), "status": status,
                "diff": diffs.get(name, "")}
        why = explanation(entries, module, item["function"], item["diff"])
        (explained if why else unexplained).append({**item, "why": why} if why else item)
    judged = sum(v for k, v in counts.items() if k not in NOT_RUN)
    caught = sum(v for k, v in counts.items() if k in CAUGHT)
    return {"judged": judged, "caught": caught, "explained": len(explained),
            "unexplained": unexplained, "explained_survivors": explained, "counts": counts,
            "score": round((caught + len(explained)) / judged, 4) if judged else None,
            "interval_95": wilson(caught + len(explained), judged)}


def below_floor(scores: dict[str, dict], floors: dict[str, float]) -> list[str]:
    """What fails the audit: each module whose score is below its floor, or that has no floor."""
    out = []
    for module, m in sorted(scores.items()):
        if module not in floors:
            out.append(f"{module}: no floor in {FLOORS.name} (add one)")
        elif m["score"] is not None and m["score"] < floors[module]:
            out.append(f"{module}: score {m['score']:.3f} below its floor {floors[module]:.2f}")
    return out


def table(scores: dict[str, dict], floors: dict[str, float], drawn: dict[str, tuple[int, int]]) -> str:
    """The per-module lines of a run: sampled of all, caught, explained, unexplained, score,
    floor and whether it holds."""
    rows = [("module", "sampled", "caught", "explained", "unexplained", "score", "floor", "")]
    for module, m in sorted(scores.items()):
        floor = floors.get(module)
        ok = "no floor" if floor is None else (
            "ok" if m["score"] is None or m["score"] >= floor else "BELOW FLOOR")
        rows.append((module, f"{drawn[module][0]} of {drawn[module][1]}", str(m["caught"]),
                     str(m["explained"]), str(len(m["unexplained"])),
                     "-" if m["score"] is None else f"{m['score']:.3f}",
                     "-" if floor is None else f"{floor:.2f}", ok))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                     for r in rows)


def paste_entry(module: str, s: dict) -> str:
    """A `[[explained]]` entry for an unexplained survivor, to complete with why."""
    plus = s["diff"].partition("  + ")[2]
    plus = f"+ {plus}" if plus.strip() else s["diff"]
    return (f"[[explained]]\nmodule = {json.dumps(module)}\nfunction = {json.dumps(s['function'])}"
            f"\nsnippet = {json.dumps(plus)}\nwhy = \"equivalent: ...\"")


def wilson(killed: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion `killed / n` (0..1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = killed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def read_results(chosen: dict[str, list[str]]) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """mutmut's status of each chosen mutant and each survivor's one-line diff (run in STAGE)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    statuses: dict[str, dict[str, str]] = {}
    diffs: dict[str, str] = {}
    for module, names in chosen.items():
        path = Path(LAYOUT[PACKAGE]) / module
        codes = json.loads((STAGE / "mutants" / f"{path}.meta").read_text())["exit_code_by_key"]
        statuses[module] = {n: status_by_exit_code[codes.get(n)] for n in names}
        for n, status in statuses[module].items():
            if status not in CAUGHT and status not in NOT_RUN:
                diffs[n] = one_line(get_diff_for_mutant(n, path=path))
    return statuses, diffs


def _mutant_sort_key(key: str) -> tuple[str, int]:
    stem, _, n = key.rpartition("__mutmut_")
    return stem, int(n) if n.isdigit() else 0


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


#: Tests that cannot run in mutmut's forked children: they start worker processes through
#: multiprocessing's fork server, which belongs to mutmut's parent ("No child processes"), so
#: they fail under every mutant and would count every mutant they reach as killed.
NOT_IN_A_FORK = ("conformance/test_proof_pool.py",)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, help="the run's seed (default: a fresh one, printed)")
    ap.add_argument("--per-module", type=int, default=10, metavar="N",
                    help="mutants drawn per module (default 10; all of a smaller module)")
    ap.add_argument("--module", nargs="+", metavar="PATH",
                    help="only these modules (paths under src/ptxconf, e.g. oracle/descriptor.py; "
                         "globs allowed) instead of every module of [tool.mutmut] only_mutate")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutmut --max-children")
    ap.add_argument("--source", choices=["worktree", "head"], default="worktree",
                    help="mutate the working tree's code (default) or git HEAD's (tests: always the "
                         "working tree's conformance/)")
    ap.add_argument("--tests", nargs="+", metavar="TEST",
                    help="run these tests (paths or node ids) instead of [tool.mutmut]'s selection")
    ap.add_argument("--test-time-limit", type=float, default=TEST_TIME_LIMIT_S, metavar="S",
                    help="CPU seconds one test of a mutant's run may take; past it the run stops "
                         f"and the mutant counts as a timeout, caught (default {TEST_TIME_LIMIT_S})")
    ap.add_argument("--explained", type=Path, default=EXPLAINED, help="the explanations file")
    ap.add_argument("--rescore", action="store_true",
                    help="run nothing: score the last run's mutants (its report) again, e.g. after "
                         "explaining a survivor")
    ap.add_argument("--report", type=Path, default=REPORT,
                    help=f"where the run's figures go as JSON (default {REPORT.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    unfit = [t for t in args.tests or [] if t.split("::")[0] in NOT_IN_A_FORK]
    if unfit:
        print(f"run_mutmut: error: {', '.join(unfit)} cannot run in mutmut's forked children (they "
              "start worker processes through the parent's fork server) and would count every "
              "mutant they reach as killed; leave them out", file=sys.stderr)
        return 2
    floors = json.loads(FLOORS.read_text(encoding="utf-8"))["floors"]
    entries = load_explained(args.explained)
    if args.rescore:
        last = json.loads(args.report.read_text(encoding="utf-8")) if args.report.exists() else {}
        seed, args.per_module = last.get("seed", -1), last.get("per_module", 0)
        args.test_time_limit = last.get("test_time_limit_s")
        commit = last.get("commit", "")
        every, chosen = ran_mutants()
        print(f"the last run again (seed {seed}), explanations from {args.explained}")
    else:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
        mutate = [f"{LAYOUT[PACKAGE]}/{m}" for m in args.module] if args.module else None
        print(f"seed {seed} (repeat this run with --seed {seed}), {args.per_module} mutants per "
              f"module, {args.test_time_limit:g} CPU s a test", flush=True)
        commit = _git("rev-parse", "HEAD")  # the tree staged (its tests, its explanations)
        build_stage(args.source, False, args.tests, mutate)
        every = generated_mutants(args.jobs)
        chosen = sample(every, args.per_module, seed)
        print(f"{sum(map(len, chosen.values()))} mutants of {sum(map(len, every.values()))} in "
              f"{len(chosen)} modules", flush=True)
        env = {**os.environ, "HYPOTHESIS_PROFILE": PROFILE, "PYTHONDONTWRITEBYTECODE": "1",
               LIMIT_ENV: f"{args.test_time_limit:g}"}
        names = [n for ns in chosen.values() for n in ns]
        rc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children",
                             str(args.jobs), *names], cwd=STAGE, env=env).returncode
        if rc != 0:
            print(f"mutmut run exited {rc}", file=sys.stderr)
            return rc
    os.chdir(STAGE)
    statuses, diffs = read_results(chosen)
    scores = {m: score_module(statuses[m], diffs, m, entries) for m in chosen}
    print()
    print(table(scores, floors, {m: (len(chosen[m]), len(every[m])) for m in chosen}))
    for module, m in sorted(scores.items()):
        for s in m["unexplained"]:
            print(f"\nunexplained survivor ({s['status']}) of {module}, {s['function']}: {s['diff']}\n"
                  f"  mutmut show {s['mutant']}   (in {STAGE.relative_to(ROOT)}/)\n"
                  f"  kill it with a test, or explain it in {EXPLAINED.relative_to(ROOT)}:\n"
                  + "\n".join("    " + ln for ln in paste_entry(module, s).splitlines()))
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps({
        "tool": f"mutmut {_version('mutmut')}", "seed": seed, "per_module": args.per_module,
        "commit": commit, "source": args.source,
        "test_time_limit_s": args.test_time_limit,
        "modules": {m: {**scores[m], "of": len(every[m]), "floor": floors.get(m)} for m in chosen},
    }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    failed = below_floor(scores, floors)
    print(f"\nreport: {args.report}")
    if failed:
        print("FAILED: " + "; ".join(failed) + f" (seed {seed})", file=sys.stderr)
        return 1
    print(f"every module at or above its floor (seed {seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
