"""Pictures: grids built from oracle answers, drawn as SVG and in the terminal."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ptxconf.app.cli import main
from ptxconf.app.draw import Cell, Grid, device_matrix, fragment_grid, mismatch_grids, smem_grid, to_svg

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
                 "--mn", "8", "--k", "16", "--lbo", "16", "--sbo", "1024", "--svg", str(svg)])
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
