"""`ptxconf report RESULTS_JSON` on input of any shape: a clear one-line error and exit 2, or a
rendered report; never a traceback, and nothing written for a file it refuses."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import UNICODE, budget

from ptxconf.app.cli import main
from ptxconf.core.results import SCHEMA_VERSION

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(UNICODE, max_size=8),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(UNICODE, max_size=6), inner, max_size=4), max_leaves=20)
RESULT = st.fixed_dictionaries({}, optional={
    "id": JSON | st.text(UNICODE, max_size=12), "check": JSON | st.text(UNICODE, max_size=8),
    "status": JSON | st.sampled_from(["pass", "fail", "discrepancy", "skip", "unknown"]),
    "message": JSON, "fields": JSON, "seconds": JSON, "device": JSON, "code": JSON})
DOCUMENT = JSON | st.fixed_dictionaries(
    {"schema_version": st.sampled_from([1, SCHEMA_VERSION, 0, "2", None]),
     "results": st.lists(RESULT, max_size=3) | JSON}, optional={"meta": JSON})


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, str, list[Path]]:
    work = Path(tempfile.mkdtemp(dir=tmp_path))
    src = work / "in" / "results.json"
    src.parent.mkdir()
    src.write_text(text)
    out = work / "out"
    code = main(["report", str(src), "--out-dir", str(out)])
    err = capsys.readouterr().err
    return code, err, sorted(out.glob("*")) if out.exists() else []


@settings(max_examples=budget(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=DOCUMENT)
def test_any_json_is_rendered_or_refused_in_one_line(tmp_path: Path, capsys, doc) -> None:
    code, err, written = _run(tmp_path, capsys, json.dumps(doc))
    assert "Traceback" not in err
    if code == 0:
        assert [p.name for p in written] == ["codequality.json", "junit.xml", "report.html", "results.json",
                                             "summary.md"]
    else:
        assert code == 2, err
        assert err.count("\n") == 1, err
        assert err.startswith("ptxconf: error: "), err
        assert written == []


@pytest.mark.parametrize(("text", "says"), [
    ("[]", "expected a JSON object, got list"),
    ("null", "expected a JSON object, got NoneType"),
    ('{"schema_version": 2, "results": [5]}', "results[0] - expected an object, got int"),
    ('{"schema_version": 2, "results": [{"id": 7, "check": "c", "status": "pass"}]}',
     "expected a string 'id'"),
    ('{"schema_version": 99, "results": []}', "schema_version 99 is not one this ptxconf reads"),
    ('{"schema_version": 2, "results": {}}', "expected 'results' as a list"),
    ("{" * 5000, "not JSON"),
    ('{"schema_version": 2, "results": [], "meta": ' + "[" * 200 + "]" * 200 + "}",
     "nested deeper than"),
])
def test_the_wrong_shapes_seen_in_the_field(tmp_path: Path, capsys, text: str, says: str) -> None:
    code, err, written = _run(tmp_path, capsys, text)
    assert code == 2, err
    assert says in err, err
    assert err.count("\n") == 1, err
    assert written == [], err
