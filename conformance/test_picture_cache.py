"""report.html's pictures kept (app/picture_cache.py): a report drawn again reads the grids of
its pictures back instead of computing them (no NumPy imported), and renders the page a report
drawn without the cache renders; a kept entry that is tampered with, forged with values of
another type, or not a regular file is not used (the pictures are computed again)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ptxconf.app import picture_cache
from ptxconf.app.report import load_results
from ptxconf.app.report_html import html_report
from ptxconf.app.report_pictures import Pictures
from ptxconf.core.results import Result, Status, dumps
from ptxconf.core.trust import sign
from ptxconf.oracle.spec import Spec, default_spec

EVIDENCE = Path(__file__).resolve().parents[1] / "reports" / "evidence" / "h100" / "results.json"


@pytest.fixture(scope="module")
def spec() -> Spec:
    return default_spec()


@pytest.fixture(scope="module")
def evidence() -> tuple[list[Result], dict[str, Any]]:
    """The H100 run's failures and discrepancies, and some passing GPU cases (their oracle
    pictures)."""
    results, meta = load_results(EVIDENCE)
    passing = [r for r in results if r.status is Status.PASS and r.provider.startswith("gpu-")]
    return [r for r in results if r.status is not Status.PASS] + passing[:60], meta


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    return tmp_path / "pictures"


def test_a_report_drawn_again_reads_its_pictures_and_imports_no_numpy(
        tmp_path: Path, evidence: tuple[list[Result], dict[str, Any]], spec: Spec) -> None:
    results, meta = evidence
    source = tmp_path / "results.json"
    source.write_text(dumps(results, meta))
    expected = html_report(*load_results(source), spec)  # no cache
    code = ("import json, sys\n"
            "from pathlib import Path\n"
            "from ptxconf.app.report import load_results\n"
            "from ptxconf.app.report_html import html_report\n"
            "from ptxconf.oracle.spec import default_spec\n"
            f"page = html_report(*load_results(Path({str(source)!r})), default_spec(), cache=True)\n"
            "print(json.dumps({'page': page, 'numpy': 'numpy' in sys.modules}))\n")
    env = {**os.environ, "PTXCONF_CACHE_DIR": str(tmp_path / "cache")}
    pages = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True, env=env).stdout) for _ in range(2)]
    assert pages[0]["numpy"], "the first report computed its pictures (NumPy imported)"
    assert not pages[1]["numpy"], "the second report computed its pictures again"
    assert pages[0]["page"] == pages[1]["page"] == expected


def _one_discrepancy(evidence: tuple[list[Result], dict[str, Any]], spec: Spec) -> Result:
    return next(r for r in evidence[0] if r.status is Status.DISCREPANCY
                and Pictures(spec).case(r))


def _entry(cache: Path) -> Path:
    (path,) = cache.glob("*.json")
    return path


def test_a_tampered_entry_is_not_used(cache: Path, evidence: tuple[list[Result], dict[str, Any]],
                                      spec: Spec) -> None:
    r = _one_discrepancy(evidence, spec)
    fresh = [ref.picture.svg for ref in Pictures(spec).case(r)]
    assert [ref.picture.svg for ref in Pictures(spec, cache=True).case(r)] == fresh
    path = _entry(cache)
    data = json.loads(path.read_text())
    data["pictures"][0][1]["cells"][0][0][0] = "tampered"  # the digest no longer matches
    path.write_text(json.dumps(data))
    key = path.stem
    assert picture_cache.get(key) is None
    data["pictures"][0][1]["cells"][0][0][1] = "3"  # a group that is not an int, digest forged
    data["digest"] = sign(key, picture_cache._canonical(data["pictures"]))
    path.write_text(json.dumps(data))
    assert picture_cache.get(key) is None
    assert [ref.picture.svg for ref in Pictures(spec, cache=True).case(r)] == fresh
    assert picture_cache.get(key) is not None, "the pictures computed again were kept again"
    path.unlink()
    path.symlink_to(tmp := path.with_suffix(".elsewhere"))
    tmp.write_text("{}")
    assert picture_cache.get(key) is None


def test_a_forged_text_is_drawn_escaped(cache: Path, evidence: tuple[list[Result], dict[str, Any]],
                                        spec: Spec) -> None:
    """An entry with a valid digest holds only texts, numbers and flags: a text that is markup
    shows as text."""
    r = _one_discrepancy(evidence, spec)
    Pictures(spec, cache=True).case(r)
    path = _entry(cache)
    data = json.loads(path.read_text())
    data["pictures"][0][1]["title"] = "<script>alert(1)</script>"
    data["digest"] = sign(path.stem, picture_cache._canonical(data["pictures"]))
    path.write_text(json.dumps(data))
    (ref, *_) = Pictures(spec, cache=True).case(r)
    assert "<script>" not in ref.picture.svg
    assert "&lt;script&gt;" in ref.picture.svg


def test_a_result_read_from_a_cache_finds_the_pictures_of_the_run_that_computed_it() -> None:
    """A warm run's result says `cached`; its pictures are the cold run's (the key leaves out
    how a result was obtained, never what it found)."""
    fresh = Result("c[k]", "c", Status.DISCREPANCY, "differs", {"n": 1}, provider="p")
    cached = Result("c[k]", "c", Status.DISCREPANCY, "differs", {"n": 1, "cached": True},
                    provider="p")
    other = Result("c[k]", "c", Status.DISCREPANCY, "differs", {"n": 2, "cached": True},
                   provider="p")
    assert picture_cache.case_key(cached, "s") == picture_cache.case_key(fresh, "s")
    assert picture_cache.case_key(other, "s") != picture_cache.case_key(fresh, "s")
