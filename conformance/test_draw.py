"""Pictures: grids built from oracle answers, drawn as SVG and in the terminal."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ptxconf.app.cli import main
from ptxconf.app.draw import (
    GAP,
    MAX_HEIGHT_PX,
    MAX_WIDTH_PX,
    Cell,
    Grid,
    device_matrix,
    fit,
    fit_together,
    fragment_grid,
    mismatch_grids,
    page_svg,
    smem_grid,
    to_svg,
)

SVG = "{http://www.w3.org/2000/svg}"


def _rects(svg: str) -> list[ET.Element]:
    return ET.fromstring(svg).findall(f".//{SVG}rect")


def test_smem_grid_colours_by_chunk_and_by_bank() -> None:
    offs = [[0, 2, 16, 18], [128, 130, 144, 146]]
    g = smem_grid("t", offs, units="bytes", color_by="chunk", chunk_bytes=16, bank_bytes=4, banks=32)
    assert [[c.group for c in row] for row in g.cells] == [[0, 0, 1, 1], [0, 0, 1, 1]]
    b = smem_grid("t", offs, units="bytes", color_by="bank", chunk_bytes=16, bank_bytes=4, banks=32)
    assert [[c.group for c in row] for row in b.cells] == [[0, 0, 4, 4], [0, 0, 4, 4]]
    assert (g.row_axis, g.col_axis, g.rows, g.cols) == ("mn", "k", ("0", "1"), ("0", "1", "2", "3"))


def test_sub_byte_offsets_are_coloured_by_the_byte_they_fall_in() -> None:
    g = smem_grid("b1", [[0, 127, 128]], units="bits", color_by="chunk", chunk_bytes=16,
                  bank_bytes=4, banks=32)
    assert [c.group for c in g.cells[0]] == [0, 0, 1]


def test_svg_has_one_cell_rectangle_per_position_plus_background() -> None:
    g = smem_grid("t", [[0, 16], [32, 48]], units="bytes", color_by="chunk", chunk_bytes=16,
                  bank_bytes=4, banks=32)
    svg = to_svg(g)
    assert len(_rects(svg)) == 1 + 4
    texts = [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]
    assert "0x30" in texts
    assert "t" in texts


def test_mismatch_marks_exactly_the_differing_cells() -> None:
    exp, obs = mismatch_grids("D", [[1, 2], [3, 4]], [[1, 9], [3, 4]])
    for g in (exp, obs):
        assert [[c.marked for c in row] for row in g.cells] == [[False, True], [False, False]]
    marked = [r for r in _rects(to_svg(obs)) if r.get("stroke") == "#d62728"]
    assert len(marked) == 1


def test_fragment_grid_is_thread_by_register() -> None:
    entries = [[0, 0, 0, 0, 0], [0, 0, 1, 0, 1], [0, 1, 0, 8, 0], [1, 0, 0, 0, 2]]
    g = fragment_grid("f", entries)
    assert g.rows == ("T0", "T1")
    assert g.cols == ("r0", "r1")
    assert g.cells[0][0].text == "0,0 0,1"
    assert g.cells[0][1].text == "8,0"
    assert g.cells[1][1].text == ""
    assert g.cells[1][1].group is None


def test_device_matrix_marks_disagreement() -> None:
    g = device_matrix("m", ["a", "b"], ["H100", "H200"],
                      {("a", "H100"): "pass", ("a", "H200"): "pass", ("b", "H100"): "pass",
                       ("b", "H200"): "fail"})
    assert [c.marked for c in g.cells[0]] == [False, False]
    assert [c.marked for c in g.cells[1]] == [True, True]


def test_grid_rejects_labels_that_do_not_fit() -> None:
    with pytest.raises(ValueError, match="labels"):
        Grid("g", ("0",), ("0", "1"), ((Cell("x"),),))


def test_show_smem_offsets_draws_and_writes_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "op.svg"
    code = main(["show", "smem-offsets", "--dtype", "bf16", "--major", "K", "--swizzle", "128B",
                 "--mn", "8", "--k", "16", "--lbo", "16", "--sbo", "1024", "--svg", str(svg), "--full"])
    out = capsys.readouterr().out
    assert code == 0
    assert "K-major 128B bf16 8x16" in out
    assert "mn\\k" in out
    assert "0x90" in out
    assert len(_rects(svg.read_text())) == 1 + 8 * 16


def test_show_fragment_labels_threads_and_registers(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["show", "fragment", "--instr", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
                 "--operand", "D", "--threads", "0-3"])
    out = capsys.readouterr().out
    assert code == 0
    assert "T0" in out
    assert "T3" in out
    assert "T4" not in out
    assert "r0" in out


def test_show_descriptor_decodes_and_draws(capsys: pytest.CaptureFixture[str]) -> None:
    enc = ["oracle", "descriptor", "encode", "--start-address", "0", "--lbo", "16", "--sbo", "1024",
           "--swizzle", "128B", "--json"]
    assert main(enc) == 0
    import json

    value = json.loads(capsys.readouterr().out)["value"]
    code = main(["show", "descriptor", value, "--dtype", "bf16", "--major", "K", "--mn", "8",
                 "--k", "16"])
    out = capsys.readouterr().out
    assert code == 0
    assert "sbo_bytes" in out
    assert "1024" in out
    assert "0x90" in out


# --- bounded pictures (report.html) -----------------------------------------------------------------


def _big(marks: set[tuple[int, int]]) -> Grid:
    cells = tuple(tuple(Cell(f"{i * 128 + j * 2:#x}", j % 8, (i, j) in marks) for j in range(80))
                  for i in range(40))
    return Grid("big", tuple(map(str, range(40))), tuple(map(str, range(80))), cells, "mn", "k")


def test_fit_keeps_the_rows_and_columns_around_the_marked_cells() -> None:
    got = fit(_big({(3, 64), (0, 0)}))
    assert {"0", "64"} <= set(got.cols)
    assert {"0", "3"} <= set(got.rows)
    assert GAP in got.cols  # columns left out between 0 and 64
    assert got.notes[-1].startswith("shown: ")
    kept = [(got.rows[i], got.cols[j]) for i, row in enumerate(got.cells) for j, c in enumerate(row)
            if c.marked]
    assert sorted(kept) == [("0", "0"), ("3", "64")]


def test_a_fitted_picture_is_within_the_bounds_and_names_its_marked_cells() -> None:
    svg = page_svg(fit(_big({(3, 64)})))
    root = ET.fromstring(svg)
    assert float(root.get("width", "0")) <= MAX_WIDTH_PX
    assert float(root.get("height", "0")) <= MAX_HEIGHT_PX
    assert [r.get("data-at") for r in root.iter(f"{SVG}rect") if r.get("class") == "mark"] == ["3,64"]


def test_a_grid_that_fits_is_left_whole() -> None:
    g = smem_grid("t", [[0, 16], [32, 48]], units="bytes", color_by="chunk", chunk_bytes=16,
                  bank_bytes=4, banks=32)
    assert fit(g) is g


def test_page_svg_escapes_what_cells_and_titles_say() -> None:
    g = Grid("a <b> & c", ("r",), ("c",), ((Cell("<x&y>", 0, True),),))
    root = ET.fromstring(page_svg(g))
    assert "<x&y>" in [t.text for t in root.iter(f"{SVG}text")]
    assert root.find(f"{SVG}title").text == "a <b> & c"  # type: ignore[union-attr]


def test_fit_together_cuts_both_sides_alike() -> None:
    a, b = fit_together([_big({(30, 70)}), _big(set())])
    assert (a.rows, a.cols) == (b.rows, b.cols)
    assert "70" in a.cols


def test_an_svg_file_is_bounded_unless_full_is_asked(tmp_path, cli) -> None:
    """`show smem-offsets --svg` of a 64x64 bank map (3,264 px wide and 711 KB when every cell
    was drawn): within the report's bounds by default, every cell with --full."""
    import re

    from ptxconf.app.draw import MAX_HEIGHT_PX, MAX_WIDTH_PX

    argv = ["show", "smem-offsets", "--dtype", "f16", "--major", "K", "--swizzle", "128B",
            "--mn", "64", "--k", "64", "--lbo", "16", "--sbo", "1024", "--color-by", "bank"]
    sizes = {}
    for name, more in (("bounded", []), ("full", ["--full"])):
        path = tmp_path / f"{name}.svg"
        code, _, err = cli(*argv, "--svg", str(path), *more)
        assert code == 0, err
        text = path.read_text()
        width, height = (int(float(x)) for x in re.search(
            r'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"', text).groups())
        sizes[name] = (width, height, len(text.encode()))
    width, height, size = sizes["bounded"]
    assert width <= MAX_WIDTH_PX
    assert height <= MAX_HEIGHT_PX
    assert size <= 100_000
    assert sizes["full"][0] > MAX_WIDTH_PX, "--full draws all 64 columns"
