"""Grids and prose in the terminal (app/terminal.py): every line fits the width, a grid too wide
or too long is summarised and says what it left out, `full` prints every cell in bands, marks
are plain-text symbols with a legend, and the width is $COLUMNS, the terminal's, else 120.

Expected values are worked by hand from the module's documented layout: a row label column as
wide as the widest row label (or the axis corner), then per grid column one space and a field as
wide as the widest cell text or column label, one character more where any cell is marked.
"""

from __future__ import annotations

import os

import pytest

from ptxconf.app import terminal
from ptxconf.app.draw import Cell, Grid


def _grid(rows: int, cols: int, marked: frozenset[tuple[int, int]] = frozenset()) -> Grid:
    """Cells 'r.c' (3 to 5 characters), those in `marked` marked '!'."""
    cells = tuple(tuple(Cell(f"{i}.{j}", None, (i, j) in marked, "!" if (i, j) in marked else "")
                        for j in range(cols)) for i in range(rows))
    return Grid("t", tuple(str(i) for i in range(rows)), tuple(str(j) for j in range(cols)), cells,
                "mn", "k", "legend", ("a note",), (("!", "outside"),))


def _text(grid: Grid, width: int, full: bool = False) -> list[str]:
    return ["".join(s.text for s in line) for line in terminal.render(grid, width, full=full)]


def test_a_grid_that_fits_is_printed_whole() -> None:
    # 4 x 3: label column len("mn\\k") = 4; fields len("3.2") = 3: 4 + 3 * 4 = 16 characters
    lines = _text(_grid(4, 3), 40)
    assert lines[:3] == ["t", "mn\\k   0   1   2", "   0 0.0 0.1 0.2"]
    assert lines[-2:] == ["legend", "a note"]  # no mark in the grid: no mark legend
    assert max(map(len, lines)) == 16


def test_a_wide_grid_is_summarised_to_the_width_and_says_what_it_left_out() -> None:
    # 12 x 30: fields len("11.29") = 5, label 4: a line of n columns is 4 + 6n; with the
    # elision column (3 more) n = (60 - 4 - 3) // 6 = 8 columns fit
    lines = _text(_grid(12, 30), 60)
    assert lines[1] == "mn\\k" + "".join(f"{j:>6}" for j in range(8)) + " .."
    assert lines[2] == "   0" + "".join(f"{'0.' + str(j):>6}" for j in range(8)) + " .."
    assert max(map(len, lines)) <= 60
    assert lines[-1] == "showing k 0-7 of 30: --full prints every cell"


def test_a_long_grid_shows_its_first_rows() -> None:
    lines = _text(_grid(terminal.SUMMARY_ROWS + 6, 2), 60)
    body = [x for x in lines if x.lstrip().split(" ")[0].isdigit()]
    assert len(body) == terminal.SUMMARY_ROWS
    assert "..".rjust(4) in lines
    assert lines[-1] == (f"showing mn 0-{terminal.SUMMARY_ROWS - 1} of {terminal.SUMMARY_ROWS + 6}: "
                         "--full prints every cell")


def test_full_prints_every_cell_in_bands_that_fit() -> None:
    lines = _text(_grid(12, 30), 40, full=True)
    assert max(map(len, lines)) <= 40
    cells = {tok for x in lines for tok in x.split() if "." in tok and tok != ".."}
    assert cells == {f"{i}.{j}" for i in range(12) for j in range(30)}
    # (40 - 4) // 6 = 6 columns a band: 5 bands, each headed by its part
    assert [x for x in lines if x.startswith("(k ")] == [
        f"(k {j}-{j + 5}: part {j // 6 + 1} of 5)" for j in range(0, 30, 6)]


def test_marks_are_symbols_after_the_text_with_a_legend() -> None:
    lines = _text(_grid(2, 3, frozenset({(1, 2)})), 40)
    # a marked grid's fields are one character wider: 3 + 1
    assert lines[1:4] == ["mn\\k    0    1    2", "   0 0.0  0.1  0.2 ", "   1 1.0  1.1  1.2!"]
    assert lines[-1] == "marks: ! outside"


def test_an_unmarked_symbol_defaults_to_a_star() -> None:
    assert Cell("0x10", marked=True).symbol == "*"
    assert Cell("0x10").symbol == ""


def test_without_colour_the_legend_says_where_colours_are_seen() -> None:
    g = Grid("t", ("0",), ("0",), ((Cell("x", 1),),), legend="colour: the chunk")
    plain = _text(g, 60)
    assert plain[-1] == "colour (on a terminal, and in --svg): the chunk"
    coloured = ["".join(s.text for s in line) for line in terminal.render(g, 60, colour=True)]
    assert coloured[-1] == "colour: the chunk"


def test_the_width_is_columns_else_the_terminals_else_120(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "90")
    assert terminal.columns() == 90
    monkeypatch.delenv("COLUMNS")

    def no_terminal(fd: int = 1) -> os.terminal_size:
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert terminal.columns() == terminal.FALLBACK_COLUMNS == 120
    assert terminal.prose_width() == terminal.PROSE_COLUMNS


def test_prose_and_commands_wrap_without_splitting_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    text = "one " * 12 + "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 end"
    lines = terminal.wrap(text, "  ").splitlines()
    assert lines[0].startswith("  one")
    assert all(x.startswith("      ") for x in lines[1:])
    assert "      wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" in lines
    cmd = terminal.command("ptxconf explain descriptor 0x4000004000010000 --instr I --operand A")
    parts = cmd.split(" \\\n")
    assert len(parts) > 1
    assert " ".join(p.strip() for p in parts) == ("ptxconf explain descriptor 0x4000004000010000 "
                                                  "--instr I --operand A")
