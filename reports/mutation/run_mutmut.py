"""Mutation testing of the oracle's pure code with mutmut (`tox -e oracle-mutants`).

mutmut names a mutant after its file's path (`ptxconf/oracle/descriptor.py` ->
`ptxconf.oracle.descriptor`) and puts its mutated copy first on `sys.path`; the tests import
`ptxconf.oracle.descriptor`. So mutmut runs in a staging tree laid out under the import names:
`ptxconf/` (the repo's `src/ptxconf/`: its code, spec/ and findings), `conformance/`, and
`pyproject.toml`, whose `[tool.mutmut]` section (paths in the staging tree's terms) says what is
mutated and which tests run. The tests there import the mutated copy (mutmut's `mutants/` comes
first on sys.path, ahead of the installed package). The summary names each module by its path
under src/ptxconf (`oracle/descriptor.py`; the repository's `oracle` link leads there).

    python reports/mutation/run_mutmut.py [--jobs N] [--source worktree|head] [--keep] [--merge]
                                          [--summary PATH] [--no-run] [--tests TEST ...]
                                          [--mutate FILE ...] [--sample N --seed S]
                                          [--] [MUTANT_GLOB ...]

Writes a summary (per module: mutants, killed, survived, timeout, score; each survivor with its
diff on one line) to reports/mutation/summary.json. The staging tree is `.mutmut-stage/`
(ignored); it is built anew each run unless `--keep` (then mutmut reuses its earlier results).
`--merge` keeps, from the summary already there, every module this staging tree has not run, so
a run of some modules does not drop the others' results; `runs` names, for every module, the
run (date, commit, command, note) its figures come from.

`--mutate` replaces `[tool.mutmut]`'s `only_mutate` for this run (staging-tree paths, e.g.
`ptxconf/oracle/proofs/*.py`). `--sample N --seed S` generates every mutant of those files, then
runs a uniform random sample of N of them (`random.Random(S)`, over the mutants the globs match):
for modules whose tests are too slow to run every mutant (the Z3 proofs, the spec mutants).
Their summary entries say `sampled` (how many of how many, the seed) and the 95% interval of
the score; the survivors of the sample are explained like any other.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import fnmatch
import hashlib
import io
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / ".mutmut-stage"
SUMMARY = ROOT / "reports" / "mutation" / "summary.json"
#: The first runs (before the tests they prompted) and how each survivor was handled.
FIRST_RUN = ROOT / "reports" / "mutation" / "first-run.json"
TRIAGE = ROOT / "reports" / "mutation" / "triage.json"
README = ROOT / "reports" / "mutation" / "README.md"
BEGIN, END = "<!-- tables: run_mutmut.py --markdown -->", "<!-- /tables -->"
SCORES_BEGIN, SCORES_END = "<!-- scores: run_mutmut.py --markdown -->", "<!-- /scores -->"
#: repo folder -> where it lies in the staging tree (its import name)
LAYOUT = {"src/ptxconf": "ptxconf", "conformance": "conformance"}
#: the package's folder in the repository (the summary's module paths are relative to it)
PACKAGE = "src/ptxconf"
PROFILE = "mutmut"


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
    text = select_tests(text, tests) if tests else text
    (STAGE / "pyproject.toml").write_text(select_mutated(text, mutate) if mutate else text,
                                          encoding="utf-8")
    shutil.copy2(Path(__file__).with_name("mutmut_profile.py"), STAGE / "mutmut_profile.py")


def generated_mutants(jobs: int) -> list[str]:
    """Generate mutmut's mutants in STAGE (no test runs) and name every one, in a stable order."""
    code = ("import os; from mutmut.__main__ import create_mutants; "
            "from mutmut.mutation.trampoline import set_mutant_under_test; "
            "from mutmut.utils.file_utils import copy_src_dir, copy_also_copy_files, "
            "setup_source_paths; os.makedirs('mutants', exist_ok=True); "
            "set_mutant_under_test('mutant_generation'); copy_src_dir(); copy_also_copy_files(); "
            f"setup_source_paths(); create_mutants({jobs})")
    subprocess.run([sys.executable, "-c", code], cwd=STAGE, check=True, capture_output=True)
    names = []
    for meta in sorted((STAGE / "mutants").rglob("*.py.meta")):
        names += json.loads(meta.read_text())["exit_code_by_key"]
    return sorted(names, key=_mutant_sort_key)


def sample(names: list[str], globs: list[str], n: int, seed: int) -> list[str]:
    """A uniform random sample of `n` of the named mutants the globs match (all when no glob)."""
    pool = [m for m in names if not globs or any(fnmatch.fnmatchcase(m, g) for g in globs)]
    chosen = random.Random(seed).sample(pool, min(n, len(pool)))
    return sorted(chosen, key=_mutant_sort_key)


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


def _one_line(diff: str) -> str:
    """A unified diff of one function as `- old / + new` on one line."""
    minus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    plus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return f"- {' | '.join(minus)}  + {' | '.join(plus)}"


def summarize(argv: list[str], source: str, note: str = "", seed: int | None = None) -> dict:
    """Read mutmut's results from STAGE/mutants (run inside STAGE); with `seed`, the run was a
    sample (drawn with that seed) and each module says so, with its score's 95% interval."""
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.file_utils import walk_mutatable_files

    modules: dict[str, dict] = {}
    for path in walk_mutatable_files():
        m = SourceFileMutationData(path=path)
        m.load()
        if all(code is None for code in m.exit_code_by_key.values()):
            continue  # not run (e.g. filtered out by a mutant glob)
        repo_path = "oracle/" + str(path).removeprefix("ptxconf/oracle/")  # under src/ptxconf
        counts: dict[str, int] = {}
        survivors = []
        for key, code in sorted(m.exit_code_by_key.items(), key=lambda kv: _mutant_sort_key(kv[0])):
            status = status_by_exit_code[code]
            counts[status] = counts.get(status, 0) + 1
            if status in {"survived", "no tests", "suspicious"}:
                survivors.append({"mutant": key, "status": status,
                                  "diff": _one_line(get_diff_for_mutant(key, path=path))})
        total = sum(counts.values())
        killed, timeout = counts.get("killed", 0), counts.get("timeout", 0)
        judged = total - counts.get("not checked", 0)
        source_bytes = (ROOT / PACKAGE / repo_path).read_bytes() if source == "worktree" else \
            subprocess.run(["git", "show", f"HEAD:{PACKAGE}/{repo_path}"], cwd=ROOT,
                           capture_output=True).stdout
        modules[repo_path] = {
            "mutants": judged, "killed": killed, "survived": counts.get("survived", 0),
            "timeout": timeout, "no_tests": counts.get("no tests", 0),
            "not_checked": counts.get("not checked", 0),
            "other": {k: v for k, v in counts.items()
                      if k not in {"killed", "survived", "timeout", "no tests", "not checked"}},
            "score": round((killed + timeout) / judged, 4) if judged else None,
            "sha256": hashlib.sha256(source_bytes).hexdigest(),
            "survivors": survivors,
        }
        if seed is not None:
            modules[repo_path]["sampled"] = {"of": total, "seed": seed,
                                             "interval_95": wilson(killed + timeout, judged)}
    return {
        "tool": f"mutmut {_version('mutmut')}",
        "command": "tox -e oracle-mutants" + (" -- " + " ".join(argv) if argv else ""),
        "note": note,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": _git("rev-parse", "HEAD"),
        "source": source,
        "hypothesis_profile": PROFILE,
        "score": "(killed + timeout) / (mutants - not checked); a mutant no selected test reaches "
                 "counts as not killed",
        "modules": modules,
    }


def _handling(triage: dict[str, str], mutant: str) -> str:
    """How a mutant was handled: its own entry, else the most specific pattern matching it (a
    character class before a `*`, a longer pattern before a shorter one), whatever the order."""
    import fnmatch

    if mutant in triage:
        return triage[mutant]
    matching = [p for p in triage if fnmatch.fnmatchcase(mutant, p)]
    if not matching:
        return "UNTRIAGED"
    return triage[min(matching, key=lambda p: ("*" in p, -len(p)))]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def render(summary: dict, first: dict, triage: dict[str, str]) -> str:
    """The README's tables: per module the first and the last run's counts, and every mutant
    that survived either run, with its diff, its status in the last run and how it was handled."""
    out = []
    order = ["oracle/descriptor.py", "oracle/algebra/swizzle.py", "oracle/canonical.py", "oracle/banks.py",
             "oracle/domain.py", "oracle/verdicts.py", "oracle/wmma.py", "oracle/fragments.py"]
    for path, mod in sorted(summary["modules"].items(),
                            key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)):
        before = first.get("modules", {}).get(path)
        out += [f"### {path}", "",
                "| run | mutants | killed | survived | timeout | no tests | score |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for name, m in (("first (before the new tests)", before), ("last (summary.json)", mod)):
            if m:
                out.append(f"| {name} | {m['mutants']} | {m['killed']} | {m['survived']} | "
                           f"{m['timeout']} | {m['no_tests']} | {m['score']} |")
        if "sampled" in mod:
            out += ["", f"A uniform random sample of {mod['mutants']} of the module's "
                        f"{mod['sampled']['of']} mutants (seed {mod['sampled']['seed']}); the "
                        f"score's 95% interval is {mod['sampled']['interval_95']}."]
        now = {s["mutant"]: s for s in mod["survivors"]}
        rows = {s["mutant"]: s for s in (before or {}).get("survivors", [])}
        rows.update(now)
        out += ["", "| mutant | diff (- original + mutant) | last run | handled |",
                "| --- | --- | --- | --- |"]
        for key in sorted(rows, key=_mutant_sort_key):
            status = now[key]["status"] if key in now else "killed"
            how = _handling(triage, key)
            if how == "UNTRIAGED" and status == "killed":
                how = "killed in the last run"
            elif how.startswith("killed") and status != "killed":
                how = f"NOT KILLED (meant: {how})"
            short = key.removeprefix("ptxconf.oracle.")
            out.append(f"| `{_cell(short)}` | `{_cell(rows[key]['diff'])}` | {status} | {_cell(how)} |")
        out.append("")
    return "\n".join(out)


def score_table(summary: dict) -> str:
    """One row per module of the last runs (those run whole, then the sampled ones; best score
    first), the totals of the modules run whole, and those of the sampled ones with their
    score's 95% interval."""
    rows = sorted(summary["modules"].items(),
                  key=lambda kv: ("sampled" in kv[1], -kv[1]["score"], kv[0]))
    out = ["| module | mutants | killed | timeout | survived (all explained) | no tests | score |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for path, m in rows:
        drawn = f" of {m['sampled']['of']:,} (sample)" if "sampled" in m else ""
        score = f"{m['score']} ({m['sampled']['interval_95'][0]}..{m['sampled']['interval_95'][1]})" \
            if "sampled" in m else f"{m['score']}"
        out.append(f"| {path} | {m['mutants']:,}{drawn} | {m['killed']:,} | {m['timeout']} | "
                   f"{m['survived']} | {m['no_tests']} | {score} |")
    keys = ("mutants", "killed", "timeout", "survived", "no_tests")
    for label, part in (("", [m for _, m in rows if "sampled" not in m]),
                        ("sampled ", [m for _, m in rows if "sampled" in m])):
        if not part:
            continue
        tot = {k: sum(m[k] for m in part) for k in keys}
        hit = tot["killed"] + tot["timeout"]
        score = f"{hit / tot['mutants']:.4f}"
        if label:
            low, high = wilson(hit, tot["mutants"])
            score += f" ({low}..{high})"
        name = f"all {len(part)}{' ' + label.strip() if label else ''}"
        out.append(f"| **{name}** | {tot['mutants']:,} | {tot['killed']:,} | "
                   f"{tot['timeout']} | {tot['survived']} | {tot['no_tests']} | {score} |")
    return "\n".join(out)


def _replace_between(text: str, begin: str, end: str, body: str) -> str:
    head, found, rest = text.partition(begin)
    if not found:
        return text
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def write_readme_tables(summary: dict) -> None:
    first = json.loads(FIRST_RUN.read_text()) if FIRST_RUN.exists() else {}
    triage = json.loads(TRIAGE.read_text()) if TRIAGE.exists() else {}
    text = README.read_text() if README.exists() else f"{BEGIN}\n{END}\n"
    text = _replace_between(text, SCORES_BEGIN, SCORES_END, score_table(summary))
    README.write_text(_replace_between(text, BEGIN, END, render(summary, first, triage)))


def this_run(summary: dict) -> dict:
    """Where and how this summary's own run was made, as a `runs` entry."""
    return {k: summary.get(k) for k in ("date", "commit", "command", "note")}


def merge_carried(summary: dict, previous: dict) -> dict:
    """`summary` with every module of `previous` it lacks (not run in this staging tree) carried
    over unchanged; `runs` names, for every module, the run its figures come from."""
    runs = {path: this_run(summary) for path in summary["modules"]}
    earlier = {**previous.get("carried", {}), **previous.get("runs", {})}
    for path, mod in previous.get("modules", {}).items():
        if path in summary["modules"]:
            continue
        summary["modules"][path] = mod
        runs[path] = earlier.get(path) or this_run(previous)
    summary["runs"] = runs
    return summary


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
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutmut --max-children")
    ap.add_argument("--source", choices=["worktree", "head"], default="worktree",
                    help="mutate the working tree's code (default) or git HEAD's (tests: always the "
                         "working tree's conformance/)")
    ap.add_argument("--keep", action="store_true", help="reuse the staging tree's earlier mutmut results")
    ap.add_argument("--no-run", action="store_true", help="only write the summary of the last run")
    ap.add_argument("--summary", type=Path, default=SUMMARY)
    ap.add_argument("--merge", action="store_true",
                    help="keep the modules of the summary already there that this staging tree has not run")
    ap.add_argument("--note", default="", help="a line stored in the summary (how the runs were made)")
    ap.add_argument("--markdown", action="store_true",
                    help="rewrite the tables of reports/mutation/README.md from the summary")
    ap.add_argument("--tests", nargs="+", metavar="TEST",
                    help="run these tests (paths or node ids) instead of [tool.mutmut]'s selection")
    ap.add_argument("--mutate", nargs="+", metavar="FILE",
                    help="mutate these files (staging-tree globs) instead of [tool.mutmut]'s only_mutate")
    ap.add_argument("--sample", type=int, metavar="N",
                    help="run a uniform random sample of N of the mutants (the globs narrow the draw)")
    ap.add_argument("--seed", type=int, default=0, help="the sample's random seed")
    ap.add_argument("mutants", nargs="*", help="mutant names or globs (e.g. 'ptxconf.oracle.descriptor.*')")
    args = ap.parse_args(argv)
    unfit = [t for t in args.tests or [] if t.split("::")[0] in NOT_IN_A_FORK]
    if unfit:
        print(f"run_mutmut: error: {', '.join(unfit)} cannot run in mutmut's forked children (they "
              "start worker processes through the parent's fork server) and would count every "
              "mutant they reach as killed; leave them out", file=sys.stderr)
        return 2

    if not args.no_run:
        build_stage(args.source, args.keep, args.tests, args.mutate)
        env = {**os.environ, "HYPOTHESIS_PROFILE": PROFILE, "PYTHONDONTWRITEBYTECODE": "1"}
        names = args.mutants
        if args.sample is not None:
            every = generated_mutants(args.jobs)
            names = sample(every, args.mutants, args.sample, args.seed)
            print(f"sample: {len(names)} of {len(every)} mutants (seed {args.seed})")
        rc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs),
                             *names], cwd=STAGE, env=env).returncode
        if rc != 0:
            print(f"mutmut run exited {rc}", file=sys.stderr)
            return rc
    os.chdir(STAGE)
    shown = [a for i, a in enumerate(argv) if a != "--note" and (i == 0 or argv[i - 1] != "--note")]
    summary = summarize(shown, args.source, args.note,
                        args.seed if args.sample is not None else None)
    if args.merge and args.summary.exists():
        summary = merge_carried(summary, json.loads(args.summary.read_text()))
    else:
        summary["runs"] = {path: this_run(summary) for path in summary["modules"]}
    args.summary.parent.mkdir(parents=True, exist_ok=True)
    args.summary.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for path, mod in summary["modules"].items():
        drawn = f" (a sample of {mod['sampled']['of']}, 95% interval " \
                f"{mod['sampled']['interval_95']})" if "sampled" in mod else ""
        print(f"{path}: {mod['mutants']} mutants{drawn}, {mod['killed']} killed, {mod['survived']} "
              f"survived, {mod['timeout']} timeout, {mod['no_tests']} no tests, score {mod['score']}")
    print(f"summary: {args.summary}")
    if args.markdown:
        write_readme_tables(summary)
        print(f"tables: {README}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
