"""Bad input never crashes `ptxconf check` or `ptxconf prove`: command lines built by
hypothesis from their real option names and values wrong in every way (junk numbers, NaN and
infinite timeouts, missing, unwritable and NUL-bearing paths, folders that are not runs, a
broken spec, stray `--`). Each ends with exit 0, 1 or 2 and no traceback; a refusal (exit 2)
is one line on stderr; a check that ran (exit 0 or 1) published its report set.

To stay fast (CI runs these in `tox -e py`), every command line ends with `--only` and a
selection of one cheap case or of none, and runs in-process in a scratch folder. (`ptxconf
bench` is not fuzzed here.)
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import budget

from ptxconf.app.cli import main
from ptxconf.app.report import load_results, write_set
from ptxconf.core.results import SCHEMA_VERSION
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR

#: (options taking a value, flags) of each command.
CHECK_OPTIONS = (["--spec-dir", "--gpu", "--report-dir", "--only", "--timeout-s", "--resume",
                  "--verify-cache", "--verify-seed"],
                 ["--strict", "--quiet", "--json", "--no-cache"])
PROVE_OPTIONS = (["--spec-dir", "--timeout-s", "--only", "--verify-cache", "--verify-seed"],
                 ["--json", "--no-cache"])
#: Junk for any option; `@NAME` is a path in the example's scratch folder (see `_scratch`).
VALUES = ["auto", "on", "off", "ON", "", " ", "0", "-1", "1e-3", "2", "nan", "inf", "-inf", "1e999",
          "x", "-", "--", "spec.lint[", "proof.", "\u2603", "a\x00b", "-h", "@DIR", "@FILE",
          "@MISSING", "@UNDER_FILE", "@RUN", "@DONE", "@BADRUN", "@BADSPEC"]
#: Values each option plausibly gets (right and wrong), drawn as often as the junk.
PLAUSIBLE = {"--spec-dir": ["@SPEC", "@SPEC", "@BADSPEC", "@DIR", "@MISSING", "@FILE"],
             "--gpu": ["auto", "on", "off"],
             "--report-dir": ["@DIR", "@MISSING", "@UNDER_FILE", "@FILE", "@RUN", ""],
             "--resume": ["@RUN", "@RUN", "@DONE", "@BADRUN", "@DIR", "@MISSING"],
             "--timeout-s": ["2", "0.5", "1e-3", "0", "-1", "nan", "inf", "1e999", "x"],
             "--only": ["spec.lint[", "proof.", ""],
             "--verify-cache": ["1", "0.5", "0", "2", "nan"],
             "--verify-seed": ["0", "7", "-1", "x"]}
#: A spec problem as the loader prints it: `path:line: RULE - message`.
SPEC_PROBLEM = re.compile(r"^.+:\d+: SPEC-[A-Z]+ - ")
ONE_LINT = "spec.lint[cute/gmma_descriptor]"
ONE_PROOF = "proof.swizzle_bijective[wgmma/canonical_layouts:MN_INTER]"
#: The selections every command line ends with: one cheap case, or none.
CHECK_ONLY = [ONE_LINT, ONE_PROOF, ONE_PROOF, "descriptor.witness[cute/gmma_descriptor:start_address]",
              "no-such-case", "\u2603"]
PROVE_ONLY = [ONE_PROOF, ONE_PROOF, ONE_PROOF, "no-such-proof", "\u2603"]


def _argv(command: str, options: tuple[list[str], list[str]], only: list[str]
          ) -> st.SearchStrategy[list[str]]:
    """`command`, then options with values, flags and (less often) stray words in any order,
    then `--only` and one of `only`."""
    valued, flags = options
    pair = st.sampled_from(valued).flatmap(lambda o: st.tuples(st.just(o), st.one_of(
        st.sampled_from(PLAUSIBLE[o]), st.sampled_from(VALUES))).map(list))
    flag = st.sampled_from(flags).map(lambda f: [f])
    stray = st.sampled_from(valued + flags + VALUES).map(lambda w: [w])
    words = st.lists(st.one_of(pair, pair, pair, flag, stray), max_size=5)
    return st.tuples(words, st.sampled_from(only)).map(
        lambda t: [command, *(w for part in t[0] for w in part), "--only", t[1]])


def _scratch(work: Path) -> dict[str, str]:
    """The example's paths: the bundled spec, an empty folder, a file, paths that cannot exist
    or be written, an interrupted run, a completed run, a folder whose results.json is junk, a
    broken spec."""
    (work / "dir").mkdir()
    (work / "file.txt").write_text("not a folder")
    result = {"id": ONE_LINT, "check": "spec.lint", "status": "pass", "code": "ok"}
    for name, meta in (("run", {"incomplete": {"completed": 1}}), ("done", {})):
        write_set(work / name, {"results.json": json.dumps(
            {"schema_version": SCHEMA_VERSION, "meta": meta, "results": [result]})})
    write_set(work / "badrun", {"results.json": "{not json"})
    (work / "badspec").mkdir()
    (work / "badspec" / "broken.yaml").write_text("kind: [unclosed\n")
    return {"@SPEC": str(DEFAULT_SPEC_DIR), "@DIR": "dir", "@FILE": "file.txt", "@MISSING": "missing/deeper",
            "@UNDER_FILE": "file.txt/sub", "@RUN": "run", "@DONE": "done", "@BADRUN": "badrun",
            "@BADSPEC": "badspec"}


def _run(argv: list[str], root: Path, capsys: pytest.CaptureFixture[str],
         monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str, list[Path]]:
    """main(argv) in a fresh scratch folder with a cold proof cache (a cached outcome would
    hide what a junk timeout does to the solver): (exit status, stdout, stderr, the
    results.json files it wrote)."""
    work = Path(tempfile.mkdtemp(dir=root))
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(work / "cache"))
    paths = _scratch(work)
    argv = [paths.get(a, a) for a in argv]
    before = {p: p.read_bytes() for p in work.rglob("results.json")}
    with contextlib.chdir(work):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: -h (0) or a usage error (2)
            code = exc.code if isinstance(exc.code, int) else 2
    captured = capsys.readouterr()
    written = [p for p in work.rglob("results.json") if before.get(p) != p.read_bytes()]
    return code, captured.out, captured.err, written


def _ends_cleanly(argv: list[str], code: int, err: str) -> None:
    event(f"exit {code}" + (f": {err.partition('error: ')[2][:28]}" if code == 2 else ""))
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:  # one line, the usage error; or a spec's problems, one line each
        lines = err.splitlines()
        assert err.endswith("\n"), (argv, err)
        assert lines, (argv, err)
        assert (len(lines) == 1 and ": error: " in err) or all(map(SPEC_PROBLEM.match, lines)), (
            argv, err)


FUZZ = settings(max_examples=budget(60), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(argv=_argv("check", CHECK_OPTIONS, CHECK_ONLY))
def test_any_check_command_line_ends_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str],
                                            argv: list[str]) -> None:
    code, _, err, published = _run(argv, tmp_path, capsys, monkeypatch)
    _ends_cleanly(argv, code, err)
    assert code in (0, 1) or not published, (argv, "a refused command wrote a report")
    if code in (0, 1) and "-h" not in argv:
        assert len(published) == 1, (argv, "a run that ended published no report")
        for path in published:  # bad input is refused up front, never a case that raised
            raised = [r.id for r in load_results(path)[0] if r.code == "raised"]
            assert not raised, (argv, raised)


@FUZZ
@given(argv=_argv("prove", PROVE_OPTIONS, PROVE_ONLY))
def test_any_prove_command_line_ends_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str],
                                            argv: list[str]) -> None:
    code, out, err, written = _run(argv, tmp_path, capsys, monkeypatch)
    _ends_cleanly(argv, code, err)
    assert not written, (argv, "prove wrote a report")
    if code in (0, 1) and "-h" not in argv:  # bad input never becomes a proof that raised
        rows = json.loads(out)["results"] if "--json" in argv else [
            {"status": line.split()[0]} for line in out.splitlines()]
        assert rows, (argv, out)
        assert all(r["status"] != "error" for r in rows), (argv, out)


@pytest.mark.parametrize("command", ["check", "prove"])
@pytest.mark.parametrize(("value", "says"), [
    ("nan", "expected a positive number of seconds, got 'nan'"),
    ("inf", "expected a positive number of seconds, got 'inf'"),
    ("0", "expected a positive number of seconds, got '0'"),
    ("-1", "expected a positive number of seconds, got '-1'"),
    ("x", "expected a positive number of seconds, got 'x'"),
])
def test_a_timeout_that_is_no_time_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, command: str,
                                              value: str, says: str) -> None:
    """Found by the fuzz: NaN and infinite timeouts reached Z3 as a 'raised' proof, and 0 or a
    negative one made every proof 'unknown'."""
    code, _, err, _ = _run([command, "--timeout-s", value, "--only", ONE_PROOF], tmp_path, capsys,
                           monkeypatch)
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert f"argument --timeout-s: {says}" in err, err


@pytest.mark.parametrize("option", ["--spec-dir", "--report-dir", "--resume"])
@pytest.mark.parametrize(("value", "says"), [("a\x00b", "'a\\x00b' (a NUL byte)"), ("", "''")])
def test_a_path_that_names_nothing_is_refused_by_its_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        option: str, value: str, says: str) -> None:
    """Found by the fuzz: a NUL byte was `ptxconf: error: embedded null byte`, naming no
    option; an empty --spec-dir loaded the working folder as a spec, --report-dir wrote there."""
    code, _, err, _ = _run(["check", option, value, "--only", ONE_LINT], tmp_path, capsys,
                           monkeypatch)
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert f"argument {option}: expected a path, got {says}" in err, err
