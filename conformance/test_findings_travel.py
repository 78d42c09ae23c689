"""Known findings travel with their spec (ptxconf.oracle.findings, README "Which spec"): a spec
tree's findings.yaml judges that tree's discrepancies, `--findings FILE` names another file
instead, every message names the file it judged by, and a findings file is checked on load
(`path:line: SPEC-FINDINGS - message`, exit 2, never a traceback).

Each test copies the bundled spec (scratch_spec.copy_spec, its findings.yaml with it), edits the
copy's YAML, and runs the real command in-process.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from scratch_spec import (
    K32_F16_CASE,
    K32_F16_FINDING,
    K32_F16_VALID_N,
    S143_CASE,
    S143_FINDING,
    S143_FIXED,
    copy_spec,
    replace_once,
    without_finding,
)

from ptxconf.app.cli import main
from ptxconf.app.report import load_results
from ptxconf.core.results import Result, Status
from ptxconf.oracle.findings import FINDINGS_NAME, Findings, bundled_findings, judge
from ptxconf.oracle.spec import load_spec

SpecLine = Callable[[str], tuple[dict[str, str], str]]


def _cases(findings: Path) -> int:
    """How many case ids a findings file lists (read here with plain YAML)."""
    return sum(len(entry["cases"]) for entry in yaml.safe_load(findings.read_text())["findings"])


def _check(capsys: pytest.CaptureFixture[str], spec_line: SpecLine, report: Path, case_id: str,
           *argv: str) -> tuple[int, dict[str, str], str, Result]:
    """`ptxconf check --gpu off --only CASE ARGV`: exit code, the spec line's fields, the rest of
    stdout, and the case's result as results.json has it."""
    code = main(["check", "--gpu", "off", "--only", case_id, "--report-dir", str(report), *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    fields, rest = spec_line(out)
    results, _ = load_results(report / "results.json")
    mine = [r for r in results if r.id == case_id]
    assert len(mine) == 1, [r.id for r in results]
    return code, fields, rest, mine[0]


def _needs_nvrtc() -> str | None:
    from ptxconf.gpu import build

    return build.nvrtc_problem() or build.include_problem()


# --- a scratch tree's own findings.yaml judges it ---------------------------------------------


@pytest.mark.skipif(_needs_nvrtc() is not None, reason=f"an assembler-witness case: {_needs_nvrtc()}")
def test_a_scratch_spec_is_judged_by_its_own_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      spec_line: SpecLine) -> None:
    """k32-f16-valid-n-blank: the PTX ISA leaves the k32 .f16 accumulator's valid-N cell blank,
    the assembler accepts the f32 set. Filled in a scratch copy, the case passes, so the finding
    the copy's findings.yaml still lists is stale; taken out of that file, the case passes."""
    root = copy_spec(tmp_path / "spec")
    own = root / FINDINGS_NAME
    listed = _cases(own)
    replace_once(root / K32_F16_VALID_N[0], *K32_F16_VALID_N[1:])
    code, line, out, r = _check(capsys, spec_line, tmp_path / "r1", K32_F16_CASE, "--spec-dir", str(root))
    assert (line["findings"], line["known"]) == (str(own), str(listed))
    assert code == 1
    assert (r.status, r.code, r.fields["finding"]) == (Status.FAIL, "finding_stale", K32_F16_FINDING)
    assert r.message.startswith(f"known finding {K32_F16_FINDING} no longer happens (the case passes: ")
    assert r.message.endswith(f"); remove it from {own}"), r.message
    assert f"  {K32_F16_CASE}: {r.message}" in out.splitlines(), out

    without_finding(own, K32_F16_FINDING)
    code, line, out, r = _check(capsys, spec_line, tmp_path / "r2", K32_F16_CASE, "--spec-dir", str(root))
    assert (line["findings"], line["known"]) == (str(own), str(listed - 4))  # the finding had 4 cases
    assert code == 0, out
    assert (r.status, r.code) == (Status.PASS, "ok"), r
    # the bundled spec's findings are its own: still the finding, not touched by the scratch tree
    assert bundled_findings().explain(K32_F16_CASE).name == K32_F16_FINDING


# --- --findings FILE instead of the tree's own ---------------------------------------------------


def test_the_findings_flag_judges_instead_of_the_trees_file(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             spec_line: SpecLine) -> None:
    """cutedsl-period-s143 (a CPU case): a findings file without it, named by --findings, makes
    the discrepancy new while the tree's own file (still listing it) would call it known; with
    the row fixed, the tree's file calls the finding stale and the named file lets it pass."""
    root = copy_spec(tmp_path / "spec")
    own = root / FINDINGS_NAME
    mine = without_finding(own, S143_FINDING, dest=tmp_path / "mine.yaml")
    assert _cases(mine) == _cases(own) - 1

    def check(report: str, *extra: str) -> tuple[int, dict[str, str], str, Result]:
        return _check(capsys, spec_line, tmp_path / report, S143_CASE, "--spec-dir", str(root), *extra)

    code, line, _, r = check("r1", "--findings", str(mine))
    assert (line["findings"], line["known"], code) == (str(mine), str(_cases(mine)), 1)
    assert (r.status, r.code) == (Status.FAIL, "finding_new")
    assert r.message.startswith(f"new spec discrepancy (not in {mine}): "), r.message
    code, line, _, r = check("r2")
    assert (line["findings"], code) == (str(own), 0)
    assert (r.status, r.code, r.fields["finding"]) == (Status.DISCREPANCY, "finding_known", S143_FINDING)

    replace_once(root / S143_FIXED[0], *S143_FIXED[1:])
    code, _, _, r = check("r3")
    assert (code, r.status, r.code) == (1, Status.FAIL, "finding_stale")
    assert r.message.endswith(f"; remove it from {own}"), r.message
    code, _, _, r = check("r4", "--findings", str(mine))
    assert (code, r.status, r.code) == (0, Status.PASS, "ok")


@pytest.mark.parametrize("argv", [["spec", "validate", "--assembler", "off", "--checks", "off"],
                                  ["spec", "list"],
                                  ["oracle", "descriptor", "encode", "--start-address", "0", "--lbo",
                                   "16", "--sbo", "1024", "--swizzle", "128B"]],
                         ids=["spec validate", "spec list", "oracle descriptor encode"])
def test_every_command_takes_a_findings_file(argv: list[str], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str], spec_line: SpecLine) -> None:
    mine = without_finding(load_spec().root / FINDINGS_NAME, S143_FINDING, dest=tmp_path / "mine.yaml")
    assert main([*argv, "--findings", str(mine)]) == 0
    line, _ = spec_line(capsys.readouterr().out)
    assert (line["findings"], line["known"]) == (str(mine), str(_cases(mine)))


def test_the_loaded_spec_carries_the_findings_it_was_given(tmp_path: Path) -> None:
    root = copy_spec(tmp_path / "spec")
    own = load_spec(root).findings
    assert own.path == str(root / FINDINGS_NAME)
    assert S143_CASE in own.by_case
    mine = without_finding(root / FINDINGS_NAME, S143_FINDING, dest=tmp_path / "mine.yaml")
    named = load_spec(root, findings=mine).findings
    assert named.path == str(mine)
    assert S143_CASE not in named.by_case
    assert set(own.by_case) - set(named.by_case) == {S143_CASE}
    # a tree without a findings file has none: every discrepancy of it is new, said so
    (root / FINDINGS_NAME).unlink()
    bare = load_spec(root).findings
    assert bare.by_case == {}
    assert bare.path == f"{root / FINDINGS_NAME} (absent)"
    disc = Result(S143_CASE, "cutedsl.period", Status.DISCREPANCY, "A says 1, B says 2", {},
                  code="documents_disagree")
    assert judge(disc, bare).message == f"new spec discrepancy (not in {bare.path}): A says 1, B says 2"
    assert judge(disc, Findings("x/findings.yaml")).code == "finding_new"
    # judge's default is the bundled spec's findings, which list the case (with fields this
    # result lacks)
    assert judge(disc).code == "finding_changed"


# --- a findings file is checked on load ---------------------------------------------------------

ENTRY = "- name: a\n  cases: ['x.y[z]']\n  fields: {}\n  explanation: why\n"

MALFORMED = [
    ("findings: {}\n", 1, "a findings file is a mapping with one key, findings: a list of entries"),
    (ENTRY, 1, "a findings file is a mapping with one key, findings: a list of entries"),
    ("findings:\n- just text\n", 2, "expected a finding (name, cases, fields, explanation)"),
    ("findings:\n- name: a\n  cases: ['x.y[z]']\n  fields: {}\n", 2,
     "finding 'a': expected explanation as a str, got NoneType"),
    ("findings:\n- name: a\n  cases: x.y[z]\n  fields: {}\n  explanation: why\n", 2,
     "finding 'a': expected cases as a list, got str"),
    ("findings:\n- name: a\n  cases: [[x, y]]\n  fields: {}\n  explanation: why\n", 2,
     "finding 'a': expected cases as a list of strings, got [['x', 'y']]"),
    ("findings:\n- name: a\n  cases: []\n  fields: {}\n  explanation: why\n", 2,
     "finding 'a': expected at least one case id in cases"),
    ("findings:\n" + ENTRY + "  seen_on: 5\n", 2, "finding 'a': expected seen_on as a list of strings, got 5"),
    ("findings:\n" + ENTRY + "  seen_on: H100\n", 2,
     "finding 'a': expected seen_on as a list of strings, got 'H100'"),
    ("findings:\n" + ENTRY + ENTRY, 6, "finding 'a' is listed twice"),
    ("findings:\n" + ENTRY + ENTRY.replace("name: a", "name: b"), 6, "case x.y[z] has two findings (a, b)"),
]


@pytest.mark.parametrize(("text", "line", "message"), MALFORMED, ids=[m for _, _, m in MALFORMED])
def test_a_malformed_findings_file_is_refused_at_its_line(text: str, line: int, message: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    code = main(["check", "--gpu", "off", "--only", S143_CASE, "--report-dir", str(tmp_path / "r"),
                 "--findings", str(bad)])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"{bad}:{line}: SPEC-FINDINGS - {message}\n")
    assert not (tmp_path / "r").exists(), "nothing ran"


def test_a_trees_own_malformed_findings_file_fails_validation(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_spec(tmp_path / "spec")
    own = root / FINDINGS_NAME
    # fig167-not-injective's one case written as text, not a list (its entry starts a line above)
    case = "'worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]'"
    line = replace_once(own, f"- name: fig167-not-injective\n  cases: [{case}]\n",
                        f"- name: fig167-not-injective\n  cases: {case}\n")
    message = "finding 'fig167-not-injective': expected cases as a list, got str"
    assert main(["spec", "validate", "--assembler", "off", "--spec-dir", str(root)]) == 2
    assert capsys.readouterr() == ("", f"{own}:{line}: SPEC-FINDINGS - {message}\n")
    assert main(["spec", "validate", "--assembler", "off", "--spec-dir", str(root), "--json"]) == 2
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert problems == [{"path": str(own), "line": line, "rule": "SPEC-FINDINGS", "message": message}]


def test_a_findings_file_that_is_not_yaml_is_refused_at_its_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Unreadable YAML is the linter's SPEC-YAML, in a findings file as in a spec file; a named
    file that is not there is refused the same way."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("findings:\n- name: a\n  cases: [x\n")
    assert main(["spec", "list", "--findings", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == "", err
    assert err.startswith(f"{bad}:4: SPEC-YAML - malformed YAML: "), err
    missing = tmp_path / "missing.yaml"
    assert main(["spec", "list", "--findings", str(missing)]) == 2
    assert capsys.readouterr() == ("", f"{missing}:1: SPEC-YAML - cannot read: not a regular file\n")
