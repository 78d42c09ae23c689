"""Every case reproducible by a `ptxconf` command: each result a report writes carries
`reproduce` (`ptxconf check --gpu on|off --only '<id>'`), the `ptxconf` lines that compute or
draw it in `reproduce_also`, a Python one-liner only as `reproduce_python`; and the reports are
whole where they are downloaded: no `file://` anywhere, the spec rows they cite embedded."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from ptxconf.app.report import load_results, write_reports
from ptxconf.app.report_html import html_report
from ptxconf.app.report_spec import spec_anchor
from ptxconf.app.reproduce import check_command, show_command, with_reproduce
from ptxconf.core.results import Result, Status
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec

EVIDENCE = Path(__file__).resolve().parents[1] / "reports" / "evidence" / "h100" / "results.json"
ORACLE = ("ptxconf oracle smem-offsets --dtype f16 --major K --swizzle 128B --mn 64 --k 16 --lbo 16 "
          "--sbo 1024 --json")
K_SW32 = "proof.layout_injective[wgmma/canonical_layouts:K_SW32]"


@pytest.fixture(scope="module")
def evidence() -> tuple[list[Result], dict[str, Any]]:
    return load_results(EVIDENCE)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory,
            evidence: tuple[list[Result], dict[str, Any]]) -> Path:
    """The H100 run's reports written again (`ptxconf report` does this)."""
    out = tmp_path_factory.mktemp("reports")
    write_reports(out, *evidence)
    return out


def test_every_written_result_reproduces_with_ptxconf_check(written: Path) -> None:
    data = json.loads((written / "results.json").read_text())
    assert len(data["results"]) > 1500
    for r in data["results"]:
        line = r["fields"]["reproduce"]
        gpu = "on" if r["provider"].startswith("gpu-") else "off"
        assert line == f"ptxconf check --gpu {gpu} --only {shlex.quote(r['id'])}", r["id"]
        assert all(c.startswith("ptxconf ") for c in r["fields"].get("reproduce_also", [])), r["id"]


def test_the_page_shows_each_cases_ptxconf_line(written: Path) -> None:
    data = json.loads((written / "results.json").read_text())
    page = (written / "report.html").read_text()
    text = " ".join(re.sub(r"<[^>]+>", "", page).replace("&#39;", "'").split())
    for r in data["results"]:
        assert r["fields"]["reproduce"] in text, r["id"]
    assert "python -c" not in " ".join(re.findall(r"reproduce</span> <code>([^<]*)", page))


def test_no_report_file_links_to_a_file(written: Path) -> None:
    files = sorted(written.iterdir())
    assert [f.name for f in files] == ["codequality.json", "junit.xml", "report.html", "results.json",
                                       "summary.md"]
    for path in files:
        assert "file://" not in path.read_text(encoding="utf-8"), path.name


def test_a_python_one_liner_becomes_reproduce_python() -> None:
    line = 'python -c "print(1)"'
    r = Result("proof.x[y:z]", "proof.x", Status.DISCREPANCY, "refuted", {"reproduce": line},
               provider="proofs")
    got = with_reproduce(r)
    assert got.fields["reproduce_python"] == line
    assert got.fields["reproduce"] == "ptxconf check --gpu off --only 'proof.x[y:z]'"
    assert got.fields["reproduce_also"] == ["ptxconf prove --only 'proof.x[y:z]' --json"]


def test_with_reproduce_is_the_same_twice(evidence: tuple[list[Result], dict[str, Any]], spec: Spec) -> None:
    sample = evidence[0][:200] + [r for r in evidence[0] if r.status is Status.DISCREPANCY]
    assert {r.status for r in sample} >= {Status.PASS, Status.DISCREPANCY}
    for r in sample:
        once = with_reproduce(r, spec)
        assert with_reproduce(once, spec) == once, r.id


def test_a_gpu_case_also_names_its_oracle_answer_and_the_show_line_that_draws_it() -> None:
    r = Result("gpu.smem_map[w:A:K_SW128]", "gpu.smem_map", Status.FAIL, "differs",
               {"operand": {"oracle": ORACLE}}, provider="gpu-discovery")
    got = with_reproduce(r)
    assert got.fields["reproduce"] == "ptxconf check --gpu on --only 'gpu.smem_map[w:A:K_SW128]'"
    shown = ORACLE.replace("oracle", "show", 1).removesuffix(" --json")
    assert got.fields["reproduce_also"] == [shown]  # the oracle line stays where the fields hold it
    assert show_command(ORACLE) == shown


def test_a_refuted_layout_names_the_explain_line_that_finds_its_collision(
        evidence: tuple[list[Result], dict[str, Any]], spec: Spec,
        cli: Callable[..., tuple[int, str, str]]) -> None:
    """K_SW32 at k=2 (T=8, rows 2T = 16 elements apart, SBO 0): the explain line's layout puts
    (mn 0, k 16) and (mn 1, k 0) at one address, as the counterexample says."""
    r = next(x for x in evidence[0] if x.id == K_SW32)
    row = spec.get(CanonicalLayout, "K_SW32")
    want = (f"ptxconf explain layout 'Swizzle<{row.swizzle_bits},{row.swizzle_base},{row.swizzle_shift}> "
            "o ((8,1),(8,4)):((16,0),(1,8))' --dtype f16")
    also = with_reproduce(r, spec).fields["reproduce_also"]
    assert want in also
    code, out, _ = cli(*shlex.split(want)[1:], "--no-grid")
    assert code == 1
    assert "(mn 0, k 16) and (mn 1, k 0) are both at 0x20" in " ".join(out.split())


def test_check_command_quotes_the_id_for_the_shell() -> None:
    r = Result("gpu.address.start[w:K_SW128:+256:base_offset=2]", "gpu.address.start", Status.PASS,
               provider="gpu-address")
    assert shlex.split(check_command(r))[-1] == r.id


def test_cited_spec_rows_are_embedded_with_their_text(spec: Spec) -> None:
    row = spec.get(CanonicalLayout, "K_SW128")
    r = Result(f"canonical.injective[{row.key}]", "canonical.injective", Status.PASS, "ok",
               provider="self-consistency")
    page = html_report([r], {"spec_dir": str(spec.root)}, spec)
    assert f'href="#{spec_anchor(row.key)}"' in page
    block = page[page.index(f'id="{spec_anchor(row.key)}"'):]
    block = block[:block.index("</div>")]
    assert f"spec/{row.file}:{row.line}" in block
    line = (Path(spec.root) / row.file).read_text().splitlines()[row.line - 1]
    assert str(escape(line)) in block
    assert "file://" not in page
