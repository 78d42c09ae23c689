"""`ptxconf show ldmatrix` / `show stmatrix` (app/show_ldmatrix.py): the row addresses and the stored
matrices as text grids within 120 columns, and with --smem-layout a tile's addresses and what the
instruction moves.

Expected cells are worked by hand from the PTX ISA's words (as in test_ldmatrix.py): lane l
supplies row l % 8 of matrix l // 8; lane t holds row t / 4, elements 2 (t % 4) and 2 (t % 4) + 1;
with .trans stored row k is the registers' column k, so stored row 0 is held by lanes 0, 4, ...,
28 (element 0 each). A row-major 16x16 f16 tile puts row 9 at 9 x 32 = 288 = 0x120 bytes.
Swizzle<3,3,3> on the bytes of a 32-column f16 tile (64-byte rows) flips bit 3 of every odd
row: row 1's columns 0-3 sit at bytes 72-79, columns 4-7 at 64-71, columns 12-15 at 80-87; the
instruction reads 16 bytes from 72, columns 0-3 and then 12-15 for 4-7: four elements wrong in
each of the 8 odd rows of .x2's 16, 32 in all.
"""

from __future__ import annotations

import pytest

from ptxconf.app.cli import main


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["show", *args])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def _rows(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def test_x4_draws_who_supplies_each_row_and_holds_each_element(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _show(capsys, "ldmatrix", "--num", "x4")
    assert code == 0
    assert max(len(line) for line in lines) <= 120
    rows = _rows(lines)
    assert ["m3", *(f"T{t}" for t in range(24, 32))] in rows
    assert ["7", *(f"T{t}.{e}" for t in range(28, 32) for e in (0, 1))] in rows
    assert lines[0].startswith("spec: ")
    assert lines[1].startswith("ldmatrix.sync.aligned.m8n8.x4.shared.b16:")


def test_trans_draws_the_stored_rows_as_the_registers_columns(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _show(capsys, "ldmatrix", "--num", "x1", "--trans")
    assert code == 0
    assert ["0", *(f"T{t}.0" for t in range(0, 32, 4))] in _rows(lines)


def test_stmatrix_draws_the_same_lanes(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _show(capsys, "stmatrix", "--num", "x2")
    assert code == 0
    assert lines[1].startswith("stmatrix.sync.aligned.m8n8.x2.shared.b16: stores 2 ")
    assert ["m1", *(f"T{t}" for t in range(8, 16))] in _rows(lines)


def test_a_tile_shows_each_lanes_address_and_its_bank_conflicts(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _show(capsys, "ldmatrix", "--num", "x4", "--smem-layout", "(16,16):(16,1)",
                           "--dtype", "f16")
    assert code == 0
    assert max(len(line) for line in lines) <= 120
    assert any("T9  m1.1 (9,0) 0x0120" in line for line in lines)
    assert not any("!" in cell for row in _rows(lines) for cell in row if cell.startswith("T"))
    tail = lines[lines.index("") + 1:]
    assert any("2-way" in line for line in tail)


def test_a_swizzle_that_splits_rows_marks_the_elements_moved_from_elsewhere(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _show(capsys, "ldmatrix", "--num", "x2", "--smem-layout",
                           "Swizzle<3,3,3> o 0 o (16,32):(32,1)", "--dtype", "f16")
    assert code == 0
    marked = [cell for row in _rows(lines) for cell in row
              if cell.startswith("T") and cell.endswith("!")]
    assert len(marked) == 32
    assert max(len(line) for line in lines) <= 120


def test_a_canonical_layout_by_name_is_a_tile(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _show(capsys, "stmatrix", "--num", "x4", "--trans", "--smem-layout",
                           "MN_SW128", "--dtype", "bf16")
    assert code == 0
    assert any(line.startswith("tile MN_SW128 (bf16, 16 k x 64 mn)") for line in lines)


@pytest.mark.parametrize("args", [
    ("ldmatrix", "--num", "x8"),
    ("ldmatrix", "--shape", "m4n4"),
    ("stmatrix", "--num", "x4", "--smem-layout", "(16,16):(16,1)"),
    ("ldmatrix", "--num", "x4", "--smem-layout", "(8,8):(8,1)", "--dtype", "f16"),
    ("ldmatrix", "--num", "x4", "--smem-layout", "(16,16):(16,1)", "--dtype", "f32"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                          args: tuple[str, ...]) -> None:
    code, _, err = _show(capsys, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("ptxconf: error: ")
