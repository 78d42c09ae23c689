"""report.html's pictures: one for every failure and discrepancy, each within the page's bounds,
the cells that matter marked (the colliding coordinates, the swizzled rows, the misread mode),
and one reference picture per canonical shared-memory layout.

The expected cells come from the result's own fields (a counterexample's points, the two
coordinates a check names), from the README's `explain` example, or from reasoning about the
swizzle (Swizzle<B,4,3> XORs address bits 4.. with bits 7..), never from the pictures' code.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

import pytest
from emulator import SPEC as EMU_SPEC  # conformance/emulator.py
from emulator import Emulator, run_case

from ptxconf.app.case_layouts import collision
from ptxconf.app.draw import MAX_HEIGHT_PX, MAX_WIDTH_PX, Grid
from ptxconf.app.figures import figures
from ptxconf.app.figures_gpu import gpu_figures, mistake_figure, reference_figures, smem_chunk_grid
from ptxconf.app.report_html import anchor_id, html_report
from ptxconf.core.results import Result, Status
from ptxconf.oracle.algebra import parse
from ptxconf.oracle.canonical import SmemQuery, swizzled_offset
from ptxconf.oracle.findings import judge
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec

#: With test_report.py's test of the H100 page, on one worker (`--dist loadgroup`): the page is
#: rendered once a process (conftest.py's h100_page).
pytestmark = pytest.mark.xdist_group("h100-evidence-page")
SVG = "{http://www.w3.org/2000/svg}"
#: The most bytes one picture may take.
MAX_PICTURE_BYTES = 100 * 1024
_V = "wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16"
#: GPU cases and a wrong device model each fails under (the emulator): a failure of each kind
#: of GPU picture (a diff, an oracle map, readings, a mistaken descriptor, kernels).
EMULATED_FAILURES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("gpu.compile[wgmma:00]", {"wrong": "k_off_by_one"}),
    (f"gpu.variant[{_V}:SS:t00]", {"wrong": "d_thread_off_by_one"}),
    ("gpu.smem_map[wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16:A:K_SW128]",
     {"swizzle_unit": "elements"}),
    (f"gpu.address.start[{_V}:K_SW128:+256:base_offset=2]", {"wrong": "d_thread_off_by_one"}),
    ("gpu.address.unused_lbo[wgmma.mma_async.sync.aligned.m64n136k16.f16.f16.f16:K_SW128]",
     {"wrong": "k_lbo_used"}),
    ("gpu.hypothesis[k_swizzled_lbo]", {"wrong": "k_lbo_used"}),
    ("gpu.mistake[lbo_sbo_swapped]", {"swizzle_unit": "elements"}),
    ("gpu.mma_sync[SM70_8x8x4_F32F16F16F32_TN]", {"wrong": "mma_sync_lane_off_by_one"}),
    ("gpu.ldmatrix[m8n8.x4.b16:K_SW128]", {"wrong": "warp_matrix_lane_off_by_one"}),
    ("gpu.wmma.load[m16n16k16.f16.a.row]", {"wrong": "wmma_ignores_ldm"}),
    ("gpu.wmma.store[m16n16k16.f16.c:row]", {"wrong": "wmma_store_thread_off_by_one"}),
)


def card_svgs(page: str, case_id: str) -> list[str]:
    """The <svg> pictures drawn in a case's card (links to a picture drawn elsewhere resolved)."""
    start = page.index('<article class="card s-')
    card = page[page.index(f'id="{anchor_id(case_id)}"', start):]
    card = card[:card.index("</article>")]
    svgs = re.findall(r"<svg.*?</svg>", card, re.S)
    for pid in re.findall(r'<a href="#(pic-\d+)">', card):
        drawn = page[page.index(f'id="{pid}"'):]
        svgs.append(re.search(r"<svg.*?</svg>", drawn, re.S).group(0))  # type: ignore[union-attr]
    return svgs


def marks(svg: str) -> set[str]:
    """The cells a picture marks, by `row,col` label."""
    return {str(r.get("data-at")) for r in ET.fromstring(svg).iter(f"{SVG}rect")
            if r.get("class") == "mark"}


def marked(grid: Grid) -> set[tuple[str, str]]:
    return {(grid.rows[i], grid.cols[j]) for i, row in enumerate(grid.cells)
            for j, c in enumerate(row) if c.marked}


def within_bounds(svg: str) -> bool:
    root = ET.fromstring(svg)
    return (float(root.get("width", "0")) <= MAX_WIDTH_PX and float(root.get("height", "0")) <= MAX_HEIGHT_PX
            and len(svg.encode()) <= MAX_PICTURE_BYTES)


@pytest.fixture(scope="module")
def evidence(h100_page: dict[str, Any]) -> dict[str, Any]:
    """The H100 run's results by id and its report page (conftest.py's h100_page)."""
    return h100_page


@pytest.fixture(scope="module")
def emulated() -> dict[str, Any]:
    results = [judge(run_case(Emulator(EMU_SPEC, **model), cid)) for cid, model in EMULATED_FAILURES]
    return {"results": results, "page": html_report(results, {})}


def test_every_discrepancy_of_the_h100_run_has_a_picture_within_the_bounds(evidence: dict[str, Any]) -> None:
    """The H100 run's known discrepancies (the CPU run's and the base-offset finding)."""
    found = [r for r in evidence["results"].values() if r.status is Status.DISCREPANCY]
    assert found
    assert {r.code for r in found} == {"finding_known"}
    assert "gpu.hypothesis[base_offset]" in {r.id for r in found}
    for r in found:
        svgs = card_svgs(evidence["page"], r.id)
        assert svgs, r.id
        assert all(within_bounds(s) for s in svgs), r.id
        assert any(marks(s) or 'class="mark"' in s for s in svgs), f"{r.id}: nothing marked"


def test_every_emulated_gpu_failure_has_a_picture_within_the_bounds(emulated: dict[str, Any]) -> None:
    assert [r.status for r in emulated["results"]] == [Status.FAIL] * len(EMULATED_FAILURES)
    for r in emulated["results"]:
        svgs = card_svgs(emulated["page"], r.id)
        assert svgs, r.id
        assert all(within_bounds(s) for s in svgs), r.id


def test_every_picture_of_the_h100_report_is_within_the_bounds(evidence: dict[str, Any]) -> None:
    svgs = re.findall(r"<svg.*?</svg>", evidence["page"], re.S)
    assert len(svgs) > 20
    assert all(within_bounds(s) for s in svgs)


def _collision_addresses(text: str, bits: int) -> dict[tuple[int, int], int]:
    """Every (mn, k) of a `Swizzle o layout` text and its swizzled byte address."""
    lay = parse(text)
    outer, swz = lay.outer, lay.inner  # type: ignore[union-attr]
    return {(i, j): swizzled_offset(outer((i, j)), bits, swz, "bytes")  # type: ignore[arg-type]
            for i in range(outer[0].size()) for j in range(outer[1].size())}


@pytest.mark.parametrize("row", ["K_SW32", "K_SW64", "K_SW128"])
def test_a_refuted_layout_marks_exactly_its_two_colliding_coordinates(
        evidence: dict[str, Any], spec: Spec, row: str) -> None:
    r = evidence["results"][f"proof.layout_injective[wgmma/canonical_layouts:{row}]"]
    cex = r.fields["counterexample"]
    points = {(p["mn"], p["k"]) for p in cex["points"]}
    found = collision(r, spec)
    assert found is not None
    assert set(found.points) == points
    (fig,) = figures(r, spec)
    assert {(int(a), int(b)) for a, b in marked(fig.grid)} == points
    for i, j in points:  # the address the counterexample names, in the marked cells
        assert int(fig.grid.cells[i][j].text, 16) == int(cex["points"][0]["address"], 16)
    svg = card_svgs(evidence["page"], r.id)[0]
    assert marks(svg) == {f"{i},{j}" for i, j in points}
    # dashed: exactly the elements some other element shares an address with (counted here)
    c = spec.get(CanonicalLayout, row)
    t = 8  # f16
    width = t * 2 ** c.swizzle_bits  # the row stride: 2T, 4T, 8T (elements)
    text = (f"Swizzle<{c.swizzle_bits},{c.swizzle_base},{c.swizzle_shift}> o "
            f"((8,1),(8,{2 * cex['k']})):(({width},0),(1,8))")
    addr = _collision_addresses(text, 16)
    counts = Counter(addr.values())
    related = {(i, j) for i, row_ in enumerate(fig.grid.cells) for j, cell in enumerate(row_) if cell.related}
    assert related == {p for p, a in addr.items() if counts[a] > 1}


def test_figure_167_marks_the_two_coordinates_its_check_names(evidence: dict[str, Any], spec: Spec) -> None:
    r = evidence["results"]["worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]"]
    (fig,) = figures(r, spec)
    first, second = tuple(r.fields["first"]), tuple(r.fields["second"])
    assert marked(fig.grid) == {(str(first[0]), str(first[1])), (str(second[0]), str(second[1]))}
    assert fig.grid.cells[first[0]][first[1]].text == fig.grid.cells[second[0]][second[1]].text \
        == str(r.fields["offset"])


def test_a_mistaken_descriptor_marks_the_two_elements_explain_names(spec: Spec) -> None:
    """README's example: LBO and SBO swapped, `(mn 0, k 8) and (mn 8, k 0) both at 0x10`."""
    r = Result("gpu.mistake[lbo_sbo_swapped]", "gpu.mistake", Status.FAIL, "a wrong product", {
        "explain": "ptxconf explain descriptor 0x4000000100400000 --instr "
                   "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 --operand A --smem-bytes 8192"},
        provider="gpu-mistakes")
    fig = mistake_figure(spec, r)
    assert fig is not None
    assert marked(fig.grid) == {("0", "8"), ("8", "0")}
    assert fig.grid.cells[0][8].text == fig.grid.cells[8][0].text == "0x10"


def test_a_swizzle_period_marks_the_first_row_the_stated_period_gets_wrong(
        evidence: dict[str, Any], spec: Spec) -> None:
    """Swizzle<1,4,3> on bytes XORs bit 4 with bit 7: 32-byte rows 0x0-0x60 keep their order,
    0x80 is the first swapped one, and 0x100 (256 B) starts the pattern again."""
    r = evidence["results"]["cutedsl.period[cutedsl/worked_examples:period.S143]"]
    (fig,) = figures(r, spec)
    assert {row for row, _ in marked(fig.grid)} == {"0x80"}
    assert [c.text for c in fig.grid.cells[fig.grid.rows.index("0x80")]] == ["0x90", "0x80"]
    related = {fig.grid.rows[i] for i, row in enumerate(fig.grid.cells) if any(c.related for c in row)}
    assert related == {"0x100"}


def test_a_printed_mode_marks_the_coordinates_it_places_elsewhere(evidence: dict[str, Any], spec: Spec) -> None:
    """(16,2):(1,16) and (16,2):(1,512) agree on column 0 (offsets 0-15) and differ on all of
    column 1 (16-31 against 512-527)."""
    r = evidence["results"]["cutedsl.tile_modes[cutedsl/worked_examples:tile.K_SW32.32x32.by_hand]"]
    built, printed = figures(r, spec)
    want = {(str(i), "1") for i in range(16)}
    assert marked(built.grid) == marked(printed.grid) == want
    assert [built.grid.cells[i][1].text for i in (0, 15)] == ["512", "527"]
    assert [printed.grid.cells[i][1].text for i in (0, 15)] == ["16", "31"]


def test_the_k32_valid_n_picture_marks_the_documents_blank_row(evidence: dict[str, Any], spec: Spec) -> None:
    r = evidence["results"]["witness.valid_n[wgmma/instruction_types:k32.f16.e4m3.e4m3]"]
    (fig,) = figures(r, spec)
    assert fig.grid.cols == tuple(str(n) for n in range(8, 257, 8))
    assert marked(fig.grid) == {("document", str(n)) for n in range(8, 257, 8)}


def test_the_major_convention_picture_marks_the_contiguous_mode(evidence: dict[str, Any], spec: Spec) -> None:
    """The first 16 bytes of f16 A: eight elements down M (MN-major), along K (K-major)."""
    r = evidence["results"]["major.convention[cute/major_conventions:cute-name.A.N]"]
    mn_major, k_major = figures(r, spec)
    assert marked(mn_major.grid) == {(str(i), "0") for i in range(8)}
    assert marked(k_major.grid) == {("0", str(j)) for j in range(8)}


def test_the_base_offset_finding_draws_each_readings_map(evidence: dict[str, Any], spec: Spec) -> None:
    r = evidence["results"]["gpu.hypothesis[base_offset]"]
    figs = gpu_figures(r, spec)
    documented, silicon, readings = figs
    assert "documented" in documented.grid.title
    assert "silicon" in silicon.grid.title
    assert marked(documented.grid) == marked(silicon.grid)
    assert marked(documented.grid)
    assert all(documented.grid.cells[i][j].text != silicon.grid.cells[i][j].text
               for i, j in ((int(a), documented.grid.cols.index(b)) for a, b in marked(documented.grid)))
    assert marked(readings.grid)
    assert {col for _, col in marked(readings.grid)} == {"absolute"}


def test_one_reference_picture_per_canonical_layout(evidence: dict[str, Any], spec: Spec) -> None:
    refs = reference_figures(spec)
    rows = spec.of(CanonicalLayout)
    assert [family for family, _ in refs] == [f"{r.major}-major {r.swizzle}" for r in rows]
    section = evidence["page"][evidence["page"].index('<section id="references">'):]
    section = section[:section.index("</section>")]
    assert section.count("<svg") == len(rows)


def test_the_k_sw128_reference_is_the_xor_pattern(spec: Spec) -> None:
    """K-major 128B, packed (SBO 1024 B): chunk c of row r at r % 8 * 128 + (c ^ r % 8) * 16,
    plus 1024 B for each 8-row group."""
    (_, fig), = [x for x in reference_figures(spec) if x[0] == "K-major 128B"]
    g = fig.grid
    assert (len(g.rows), len(g.cols)) == (16, 8)  # two 8-row groups, eight chunks a 128-B row
    for r in range(len(g.rows)):
        for c in range(len(g.cols)):
            want = r // 8 * 1024 + r % 8 * 128 + (c ^ r % 8) * 16
            assert int(g.cells[r][c].text, 16) == want, (r, c)


def test_a_b1_map_is_drawn_by_chunk_so_its_swizzle_shows(spec: Spec) -> None:
    """A b1 256x256 K-major 128B map an element a cell is one colour for 128 cells; by 16-byte
    chunk the first 8 rows each start in another chunk of the 128-byte line."""
    g = smem_chunk_grid(spec, SmemQuery("b1", "K", "128B", 256, 256, 16, 1024), "b1")
    assert g.cols == ("0-127", "128-255")
    assert [g.cells[r][0].group for r in range(8)] == list(range(8))
    assert [g.cells[r][1].group for r in range(8)] == [1 ^ r for r in range(8)]


def test_the_h100_smem_maps_link_to_the_reference_pictures_by_chunk(evidence: dict[str, Any]) -> None:
    """The 320 passing shared-memory maps (b1 256x256 among them) are not drawn an element a
    cell: their family links each layout it covers to its reference picture, drawn by chunk."""
    page = evidence["page"]
    family = page[page.index('id="family-gpu-discovery.gpu.smem_map"'):]
    family = family[:family.index("</details>")]
    linked = set(re.findall(r'<a href="#(pic-\d+)">', family))
    section = page[page.index('<section id="references">'):]
    section = section[:section.index("</section>")]
    drawn = set(re.findall(r'<figure class="pic" id="(pic-\d+)">', section))
    assert linked == drawn
    assert len(drawn) == 8
    assert section.count("8 a chunk") == 8
