"""What a CI system shows of a run: junit.xml as GitHub's and GitLab's test views read it (known
spec discrepancies listed as skipped with their finding, skipped groups summarised, every
testcase that has one naming its spec file and line), `check --annotations github`'s workflow
commands, and the commit taken from the CI environment outside a checkout."""

from __future__ import annotations

import xml.dom.minidom
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ptxconf.app.cli import main
from ptxconf.app.report import github_annotations, junit
from ptxconf.core.results import Result, Status
from ptxconf.oracle.spec import default_spec

#: The JUnit shape Jenkins' schema, GitLab and the GitHub test-report actions read: elements
#: and the attributes each may carry (file and line on a testcase as pytest writes them).
SHAPE = {"testsuite": ({"name", "tests", "failures", "errors", "skipped", "time", "timestamp",
                        "hostname"}, {"properties", "testcase", "system-out", "system-err"}),
         "properties": (set(), {"property"}), "property": ({"name", "value"}, set()),
         "testcase": ({"classname", "name", "time", "file", "line"},
                      {"skipped", "failure", "error", "system-out", "system-err"}),
         "skipped": ({"message"}, set()), "failure": ({"type", "message"}, set()),
         "error": ({"type", "message"}, set()), "system-out": (set(), set()),
         "system-err": (set(), set())}

ROW = "canonical.injective[wgmma/canonical_layouts:K_SW128]"


def _results() -> list[Result]:
    gpu = [Result(f"gpu.variant[v{i}]", "gpu.variant", Status.SKIP, "CuPy: not importable",
                  code="dependency_missing", provider="gpu-sweep") for i in range(40)]
    return [Result(ROW, "canonical.injective", Status.PASS, "injective", provider="self-consistency"),
            Result("worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]",
                   "worked_example.injective", Status.DISCREPANCY, "not injective",
                   {"finding": "fig167", "explanation": "Figure 167 overlaps"}, code="finding_known"),
            Result("proof.layout_injective[wgmma/canonical_layouts:K_SW32]", "proof.layout_injective",
                   Status.FAIL, "refuted, 100% sure: a,b", code="refuted_oracle"), *gpu]


def _line(key: str) -> int:
    """The line of the bundled spec's row `key` (read off the loaded rows, not the code under
    test)."""
    return next(r.line for r in default_spec().rows if r.key == key)


def _check_shape(node: ET.Element) -> None:
    attrs, children = SHAPE[node.tag]
    assert set(node.attrib) <= attrs, (node.tag, set(node.attrib) - attrs)
    for child in node:
        assert child.tag in children, (node.tag, child.tag)
        _check_shape(child)


def test_junit_lists_discrepancies_summarises_skips_and_names_spec_rows() -> None:
    text = junit(_results(), {"seconds": 1.0}, default_spec())
    xml.dom.minidom.parseString(text.encode())
    suite = ET.fromstring(text)
    _check_shape(suite)
    cases = {tc.attrib["name"]: tc for tc in suite.iter("testcase")}
    assert set(cases) == {ROW, "worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]",
                          "proof.layout_injective[wgmma/canonical_layouts:K_SW32]",
                          "gpu-sweep: 40 cases skipped"}
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["skipped"]) == ("4", "1", "2")
    known = cases["worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]"]
    assert known.find("skipped").attrib["message"] == "known spec discrepancy (fig167): not injective"
    assert known.find("system-out").text == "Figure 167 overlaps"
    assert (cases[ROW].attrib["file"], cases[ROW].attrib["line"]) == (
        "spec/wgmma/canonical_layouts.yaml", str(_line("wgmma/canonical_layouts:K_SW128")))
    assert cases["gpu-sweep: 40 cases skipped"].find("skipped").attrib["message"] == (
        "40 cases: CuPy: not importable")
    assert "file" not in cases["gpu-sweep: 40 cases skipped"].attrib


def test_github_annotations_are_workflow_commands_at_the_spec_row() -> None:
    lines = github_annotations(_results(), default_spec())
    assert lines == [
        "::warning file=spec/wgmma/worked_examples.yaml,line="
        f"{_line('wgmma/worked_examples:fig167.K.32B.tf32')},"
        "title=worked_example.injective[wgmma/worked_examples%3Afig167.K.32B.tf32]::"
        "finding_known: not injective",
        f"::error file=spec/wgmma/canonical_layouts.yaml,line={_line('wgmma/canonical_layouts:K_SW32')},"
        "title=proof.layout_injective[wgmma/canonical_layouts%3AK_SW32]::refuted_oracle: refuted, "
        "100%25 sure: a,b"]
    strict = github_annotations(_results(), default_spec(), strict=True)
    assert [x.split(" ", 1)[0] for x in strict] == ["::error", "::error"]


def test_check_prints_the_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--gpu", "off", "--only", "fig167", "--annotations", "github",
                 "--report-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    marks = [x for x in out.splitlines() if x.startswith("::")]
    assert len(marks) == 2, out
    assert all(x.startswith("::warning file=spec/wgmma/worked_examples.yaml,line=") for x in marks)


def test_outside_a_checkout_the_commit_comes_from_the_ci_system(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from ptxconf.app import run

    monkeypatch.chdir(tmp_path)  # no git checkout here
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv("PTXCONF_COMMIT", raising=False)
    for v in run.CI_COMMIT_VARIABLES:
        monkeypatch.delenv(v, raising=False)
    assert run._commit() == "unknown"
    monkeypatch.setenv("CI_COMMIT_SHA", "0123456789abcdef0123")
    assert run._commit() == "0123456789ab"
    monkeypatch.setenv("GITHUB_SHA", "fedcba9876543210")
    assert run._commit() == "fedcba987654"
    monkeypatch.setenv("PTXCONF_COMMIT", "mine")
    assert run._commit() == "mine"


def test_code_quality_lists_failures_and_discrepancies_at_their_rows() -> None:
    """GitLab's Code Quality report (codequality.json): a failure is major, a known spec
    discrepancy minor (major under --strict); each at its spec row; a fingerprint per case."""
    import json

    from ptxconf.app.report import code_quality

    issues = json.loads(code_quality(_results(), default_spec()))
    fig167 = _line("wgmma/worked_examples:fig167.K.32B.tf32")
    k_sw32 = _line("wgmma/canonical_layouts:K_SW32")
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("worked_example.injective", "minor",
         {"path": "spec/wgmma/worked_examples.yaml", "lines": {"begin": fig167}}),
        ("proof.layout_injective", "major",
         {"path": "spec/wgmma/canonical_layouts.yaml", "lines": {"begin": k_sw32}})]
    assert len({i["fingerprint"] for i in issues}) == 2
    strict = json.loads(code_quality(_results(), default_spec(), strict=True))
    assert [i["severity"] for i in strict] == ["major", "major"]
