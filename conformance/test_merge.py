"""`ptxconf report merge`: several devices' runs as one matrix, expectations applied or stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptxconf.app.cli import main
from ptxconf.app.report import write_reports
from ptxconf.core.results import Result, Status


def _run(root: Path, name: str, device: str, statuses: dict[str, Status]) -> Path:
    out = root / name
    results = [Result("gpu.device[sm_90a]", "gpu.device", Status.PASS,
                      f"NVIDIA {device} (cc 9.0)", provider="gpu-device")]
    results += [Result(cid, cid.split("[")[0], st, f"{cid} on {device}",
                       code="ok" if st is Status.PASS else "silicon_disagrees", device=device)
                for cid, st in statuses.items()]
    write_reports(out, results, {"host": name})
    return out


def test_merge_names_devices_and_where_they_disagree(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path, "a", "H100 80GB HBM3", {"x.y[1]": Status.PASS, "x.y[2]": Status.PASS})
    b = _run(tmp_path, "b", "H200", {"x.y[1]": Status.PASS, "x.y[2]": Status.FAIL})
    out = tmp_path / "m"
    assert main(["report", "merge", str(a), str(b), "-o", str(out)]) == 0
    merged = json.loads((out / "merged.json").read_text())
    assert merged["devices"] == ["H100", "H200"]
    assert merged["disagree"] == ["x.y[2]"]
    assert merged["cases"]["x.y[2]"]["H200"]["status"] == "fail"
    page = (out / "matrix.html").read_text()
    assert "Where devices disagree" in page
    assert "x.y[2]" in page
    assert "<svg" in page
    assert "x.y[2]`: H100: pass; H200: fail" in (out / "summary.md").read_text()


def test_an_expectation_accepts_a_known_difference_and_goes_stale(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path, "a", "H100", {"x.y[1]": Status.PASS, "x.y[2]": Status.PASS})
    b = _run(tmp_path, "b", "H200", {"x.y[1]": Status.PASS, "x.y[2]": Status.FAIL})
    exp = tmp_path / "h200.yaml"
    exp.write_text("device: H200\nexpect:\n  - {case: 'x.y[2]', status: fail, reason: known}\n"
                   "  - {case: 'x.y[1]', status: fail, reason: was broken once}\n")
    out = tmp_path / "m"
    code = main(["report", "merge", str(a), str(b), "-o", str(out), "--expect", str(exp)])
    merged = json.loads((out / "merged.json").read_text())
    assert code == 1, "a stale expectation fails the merge"
    assert merged["cases"]["x.y[2]"]["H200"]["status"] == "discrepancy"
    assert merged["cases"]["x.y[2]"]["H200"]["code"] == "expected_difference"
    assert [e["case"] for e in merged["expectations_stale"]] == ["x.y[1]"]


@pytest.mark.parametrize(("text", "said"), [
    ("[]", "expected {device"), ("device: H200\n", "expected {device"),
    ("device: H200\nexpect: [{case: 1}]\n", "needs string case, status and reason"),
    ("device: H200\nexpect: [{case: a, status: odd, reason: r}]\n", "is not one of"),
    # read as spec files are: bounded depth and size, no aliases
    ("a: " + "[" * 50_000 + "]" * 50_000 + "\n", "expected nesting at most 16 deep"),
    ("device: H200\nexpect: []\n" + "# padding\n" * 120_000, "at most 1048576 bytes"),
    ("device: &d H200\nother: *d\nexpect: []\n", "alias"),
])
def test_bad_expectation_files_are_one_line(tmp_path: Path, capsys, text: str, said: str) -> None:
    a = _run(tmp_path, "a", "H100", {"x.y[1]": Status.PASS})
    exp = tmp_path / "e.yaml"
    exp.write_text(text)
    code = main(["report", "merge", str(a), "-o", str(tmp_path / "m"), "--expect", str(exp)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert str(exp) in err, err
    assert said in err, err


def test_two_runs_of_one_device_are_refused(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path, "a", "H100", {"x.y[1]": Status.PASS})
    b = _run(tmp_path, "b", "H100", {"x.y[1]": Status.PASS})
    assert main(["report", "merge", str(a), str(b), "-o", str(tmp_path / "m")]) == 2
    assert "two runs name the same device" in capsys.readouterr().err


def test_a_merge_never_writes_into_a_run_it_merges(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path, "a", "H100", {"x.y[1]": Status.PASS})
    b = _run(tmp_path, "b", "H200", {"x.y[1]": Status.PASS})
    before = {p.name: p.read_bytes() for p in a.iterdir()}
    assert main(["report", "merge", str(a), str(b), "-o", str(a)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "is one of the runs merged" in err, err
    assert {p.name: p.read_bytes() for p in a.iterdir()} == before


def test_an_interrupted_run_is_merged_marked_incomplete(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path, "a", "H100", {"x.y[1]": Status.PASS})
    b = tmp_path / "b"
    write_reports(b, [Result("gpu.device[sm_90a]", "gpu.device", Status.PASS, "NVIDIA H200 (cc 9.0)",
                             provider="gpu-device")],
                  {"host": "b", "incomplete": {"interrupted_by": "SIGTERM", "completed": 1}})
    out = tmp_path / "m"
    code = main(["report", "merge", str(a), str(b), "-o", str(out)])
    said = capsys.readouterr().out
    assert code == 1, said
    assert "INCOMPLETE: the runs of H200 were interrupted" in said
    assert json.loads((out / "merged.json").read_text())["incomplete_runs"] == ["H200"]
    assert (out / "summary.md").read_text().splitlines()[2].startswith("**INCOMPLETE**: the runs of H200")
    assert "<b>INCOMPLETE</b>" in (out / "matrix.html").read_text()


def test_an_expectation_for_a_device_no_run_is_from_is_reported(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path, "a", "H100", {"x.y[1]": Status.PASS})
    exp = tmp_path / "b200.yaml"
    exp.write_text("device: B200\nexpect:\n  - {case: 'x.y[1]', status: fail, reason: r}\n")
    out = tmp_path / "m"
    assert main(["report", "merge", str(a), "-o", str(out), "--expect", str(exp)]) == 0
    said = capsys.readouterr().out
    assert f"1 expectation(s) for a device no run is from, not applied: B200 ({exp})" in said
    merged = json.loads((out / "merged.json").read_text())
    assert [e["device"] for e in merged["expectations_absent_device"]] == ["B200"]


def test_control_characters_and_markup_never_reach_the_reports_raw(tmp_path: Path) -> None:
    """A NUL in a message would make junit.xml unreadable; `<script>` in summary.md would be
    markup on a CI page."""
    import xml.dom.minidom

    results = [Result("x.y[1]", "x.y", Status.FAIL, "bad\x00 <script>alert(1)</script>",
                      {"raw": "\x01"}, code="mismatch")]
    write_reports(tmp_path, results, {"host": "h"})
    xml.dom.minidom.parseString((tmp_path / "junit.xml").read_bytes())
    assert "\\x00" in (tmp_path / "junit.xml").read_text()
    summary = (tmp_path / "summary.md").read_text()
    assert "<script>" not in summary
    assert "&lt;script&gt;" in summary
    assert "\x00" not in summary
