"""report.html and summary.md: what a person reads first, built from results made here."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ptxconf.app.report import load_results, write_reports
from ptxconf.app.report_html import anchor_id, html_report, markdown_summary
from ptxconf.core.cases import CODES
from ptxconf.core.results import Result, Status
from ptxconf.oracle import interpret as I
from ptxconf.oracle.findings import judge, known_findings
from ptxconf.oracle.records import SwizzleAtom
from ptxconf.oracle.spec import default_spec

SMEM_ORACLE = ("ptxconf oracle smem-offsets --dtype f16 --major K --swizzle 128B --mn 64 --k 16 "
               "--lbo 16 --sbo 1024 --json")


class Page(HTMLParser):
    """Every start tag (in document order), the text of each <pre>, and all text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.pres: list[str] = []
        self.text: list[str] = []
        self._pre: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "pre":
            self._pre = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._pre is not None:
            self.pres.append("".join(self._pre))
            self._pre = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._pre is not None:
            self._pre.append(data)

    def ids(self) -> list[str]:
        return [str(a["id"]) for _, a in self.tags if a.get("id")]

    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    """A finding's dotted field keys as the nested fields a case reports."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        cur = out
        *parents, last = key.split(".")
        for p in parents:
            cur = cur.setdefault(p, {})
        cur[last] = value
    return out


def _smem_failure() -> tuple[Result, I.Diff]:
    spec = default_spec()
    from ptxconf.oracle.canonical import SmemQuery
    from ptxconf.oracle.domain import smem_answer

    offs = np.array(smem_answer(spec, SmemQuery("f16", "K", "128B", 64, 16, 16, 1024))["offsets"])
    found = offs.copy()
    found[3, 5] ^= 0x10
    diff = I.diff_grid("A K_SW128 f16 address map", offs, found, axes=("m", "k"), fmt=I.hex_fmt,
                       extra={"oracle": SMEM_ORACLE})
    r = Result("gpu.smem_map[wgmma.test:A:K_SW128]", "gpu.smem_map", Status.FAIL, diff.message(),
               {"operand": {"layout": "K_SW128", "oracle": SMEM_ORACLE}, "diff": diff.details()}, 0.25,
               "Test GPU (cc 9.0)", code="silicon_disagrees", provider="gpu-discovery")
    return r, diff


@pytest.fixture(scope="module")
def run() -> dict[str, Any]:
    spec = default_spec()
    atom = spec.of(SwizzleAtom)[0]
    cid, finding = next(iter(known_findings().items()))
    known = judge(Result(cid, cid.split("[")[0], Status.DISCREPANCY, "the documents disagree",
                         _nest(dict(finding.fields)), provider="self-consistency"))
    failure, diff = _smem_failure()
    big = {"map": [f"lane {i}: big-field-marker-{i}" for i in range(64)]}
    passes = [
        Result(f"atom.canonical[{atom.key}]", "atom.canonical", Status.PASS, "atom agrees",
               provider="self-consistency"),
        Result("gpu.e2e[wgmma.test:SS:K_SW128]", "gpu.e2e", Status.PASS, "bit-exact",
               {"A": {"oracle": SMEM_ORACLE}}, 0.01, "Test GPU (cc 9.0)", provider="gpu-e2e"),
        Result("gpu.wmma.load[m16n16k16.test]", "gpu.wmma.load", Status.PASS, "every element once", big,
               0.02, "Test GPU (cc 9.0)", provider="gpu-wmma"),
        Result("proof.small[x]", "proof.small", Status.PASS, "proved", {"proof_status": "proved"},
               provider="proofs"),
    ]
    skip = Result("gpu.wmma.align[m8n8k4.test]", "gpu.wmma.align", Status.SKIP, "not runnable here",
                  code="not_runnable", provider="gpu-wmma")
    unknown = Result("proof.timeout[y]", "proof.timeout", Status.UNKNOWN, "solver gave up",
                     {"proof_status": "unknown"}, 20.0, code="proof_unknown", provider="proofs")
    # passing cases first, as a run may list them: the page must still put failures on top
    results = [*passes, known, skip, unknown, failure]
    meta = {"started": "2026-01-01T00:00:00+00:00", "host": "testhost", "commit": "abc123def456",
            "spec_sha256": "f" * 64, "seconds": 12.5, "spec_dir": str(spec.root)}
    page = html_report(results, meta)
    return {"results": results, "meta": meta, "page": page, "parsed": Page(page), "atom": atom,
            "known": known, "finding": finding, "failure": failure, "diff": diff, "big": big,
            "passes": passes}


def test_one_anchor_per_case_id(run: dict[str, Any]) -> None:
    """Every case has one anchor; what needs attention links to itself in the page, and the
    page's script gives each passing or skipped row its link (made once, not written a row)."""
    ids = run["parsed"].ids()
    for r in run["results"]:
        assert ids.count(anchor_id(r.id)) == 1, r.id
    assert len(ids) == len(set(ids))
    hrefs = {a.get("href") for t, a in run["parsed"].tags if t == "a"}
    attention = [r for r in run["results"] if r.status in (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY)]
    assert all(f"#{anchor_id(r.id)}" in hrefs for r in attention)
    rows = {str(a.get("id")) for t, a in run["parsed"].tags if t == "tr" and a.get("id")}
    assert rows == {anchor_id(r.id) for r in run["results"] if r not in attention}
    script = run["page"].split("<script", 1)[1]
    assert 'a.href = "#" + td.parentElement.id' in script


def test_failing_cases_come_before_passing_ones(run: dict[str, Any]) -> None:
    ids = run["parsed"].ids()
    pos = {r.id: ids.index(anchor_id(r.id)) for r in run["results"]}
    attention = [r for r in run["results"] if r.status in (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY)]
    quiet = [r for r in run["results"] if r.status in (Status.PASS, Status.SKIP)]
    assert max(pos[r.id] for r in attention) < min(pos[r.id] for r in quiet)
    assert pos[run["failure"].id] < pos[run["known"].id]


def test_known_discrepancy_shows_its_finding(run: dict[str, Any]) -> None:
    assert run["known"].code == "finding_known"
    text = run["parsed"].all_text()
    assert run["finding"].name in text
    assert " ".join(run["finding"].explanation.split()) in text


def test_code_meaning_is_a_tooltip(run: dict[str, Any]) -> None:
    titles = [a.get("title") for t, a in run["parsed"].tags if t == "abbr"]
    assert CODES[run["failure"].code] in titles


def test_large_fields_of_a_passing_case_stay_in_results_json(run: dict[str, Any]) -> None:
    page = run["page"]
    assert "big-field-marker-7" not in page
    small = json.dumps(run["passes"][3].fields)
    assert len(small) < 300
    assert "proof_status: proved" in run["parsed"].all_text()
    family = page[:page.index(f'id="{anchor_id("gpu.wmma.load[m16n16k16.test]")}"')]
    family = family[family.rindex('<details class="family"'):]
    assert "The fields of 1 of these cases are too large to show here: they are in results.json" \
        in " ".join(family.split())


def test_filter_controls_exist(run: dict[str, Any]) -> None:
    tags = run["parsed"].tags
    boxes = {a.get("value") for t, a in tags if t == "input" and a.get("name") == "status"}
    assert boxes == {s.value for s in Status}
    ids = {a.get("id"): t for t, a in tags}
    assert ids.get("f-provider") == "select"
    assert ids.get("f-family") == "select"
    assert ids.get("f-search") == "input"
    options = {a.get("value") for t, a in tags if t == "option"}
    assert "" in options
    assert "<script" in run["page"]
    assert "http" not in run["page"].split("<script", 1)[1].split("</script>")[0]


def test_self_consistency_case_links_its_spec_row(run: dict[str, Any]) -> None:
    atom = run["atom"]
    text = run["parsed"].all_text()
    assert f"spec/{atom.file}:{atom.line}" in text
    hrefs = [str(a.get("href")) for t, a in run["parsed"].tags if t == "a"]
    assert any(h.endswith(f"#{atom.source.anchor}") for h in hrefs)


def test_diff_window_is_text_lines_not_escapes(run: dict[str, Any]) -> None:
    window = run["diff"].window
    assert window.count("\n") >= 3
    want = [line.split() for line in window.splitlines()]
    shown = [p for p in run["parsed"].pres if p.splitlines()[:1] == window.splitlines()[:1]]
    assert len(shown) == 1
    assert [line.split() for line in shown[0].splitlines()] == want
    assert "\\n" not in shown[0]
    assert "\\t" not in shown[0]


def test_failing_mismatch_draws_its_pictures_once(run: dict[str, Any]) -> None:
    page = run["page"]
    card = page[page.index(f'id="{anchor_id(run["failure"].id)}"'):]
    card = card[:card.index("</article>")]
    assert card.count("<svg") == 3  # expected, observed, and the oracle's layout
    figures = [a.get("id") for t, a in run["parsed"].tags if t == "figure"]
    assert len(figures) == len(set(figures)) == page.count("<svg")


def test_summary_md_lists_failures_and_discrepancies(run: dict[str, Any]) -> None:
    md = markdown_summary(run["results"], run["meta"])
    lines = md.splitlines()
    assert len(lines) < 100
    for r in run["results"]:
        listed = [line for line in lines if f"`{r.id}`" in line]
        if r.status in (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY):
            assert len(listed) == 1
            assert f"`{r.code}`" in listed[0]
            assert r.message in listed[0]
        else:
            assert not listed
    assert "Test GPU (cc 9.0)" in md
    assert run["meta"]["commit"] in md
    assert f"| fail | {sum(r.status is Status.FAIL for r in run['results'])} |" in md


def test_write_reports_paths(tmp_path: Path, run: dict[str, Any]) -> None:
    paths = write_reports(tmp_path, run["results"], run["meta"])
    assert [p.name for p in paths] == ["results.json", "junit.xml", "report.html", "summary.md",
                                       "codequality.json"]
    assert all(p.is_file() for p in paths)
    again, meta = load_results(paths[0])
    assert [r.id for r in again] == [r.id for r in run["results"]]
    assert meta == run["meta"]


@pytest.mark.xdist_group("h100-evidence-page")  # the page rendered once (conftest.py)
def test_committed_h100_evidence_renders_at_under_700_bytes_a_case(h100_page: dict[str, Any]) -> None:
    """The page grows with its cases at a bounded cost each (the pictures and the embedded spec
    rows included): 3,354 cases were 2.2 MB at 7d81b09, 2.0 MB for 2,951 before it."""
    results, meta, page = h100_page["list"], h100_page["meta"], h100_page["page"]
    assert len(results) > 1500
    assert len(page.encode("utf-8")) < 700 * len(results)
    ids = Page(page).ids()
    assert all(ids.count(anchor_id(r.id)) == 1 for r in results)
    assert markdown_summary(results, meta).count("\n") < 100
