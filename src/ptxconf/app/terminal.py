"""Grids and text in the terminal: every line fits its width, and nothing depends on colour.

A grid (ptxconf.app.draw.Grid) is printed as plain text, its cells right-aligned in columns of
one width. One wider than the terminal is *summarised* by default: as many leading columns as
fit, then an elision column `..`, and at most SUMMARY_ROWS rows; a line under the grid says
what was left out. `full=True` (the commands' `--full`) prints every cell, its columns wrapped
into bands that each fit. A marked cell carries its symbol after its text (`0x410*`), and the
grid's mark legend says what each symbol means, so a piped grid keeps its marks; where stdout
is a terminal the cells are coloured too (rich).

The width is the terminal's (shutil.get_terminal_size: $COLUMNS, else the terminal stdout is
on), FALLBACK_COLUMNS where stdout is no terminal and $COLUMNS is unset.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from ptxconf.app.draw import TERMINAL, Cell, Grid

#: The width when stdout is no terminal and $COLUMNS is unset.
FALLBACK_COLUMNS = 120
#: The narrowest width honoured (a grid needs its row labels and one column).
MIN_COLUMNS = 40
#: The most rows a summarised grid shows (--full shows all).
SUMMARY_ROWS = 64
#: What stands for left-out columns and rows.
ELIDED = ".."
#: The widest prose is wrapped at, however wide the terminal (lines stay readable).
PROSE_COLUMNS = 100


def columns() -> int:
    """The terminal's width in characters (FALLBACK_COLUMNS when there is none)."""
    return max(MIN_COLUMNS, shutil.get_terminal_size((FALLBACK_COLUMNS, 24)).columns)


def prose_width() -> int:
    """The width prose is wrapped at: the terminal's, at most PROSE_COLUMNS."""
    return min(columns(), PROSE_COLUMNS)


def wrap(text: str, indent: str = "", hang: str | None = None, width: int | None = None) -> str:
    """`text` wrapped to the prose width, its first line indented `indent`, the rest `hang`
    (default: `indent` plus four spaces); long words (addresses, ids) are never split."""
    more = indent + "    " if hang is None else hang
    return textwrap.fill(text, width or prose_width(), initial_indent=indent,
                         subsequent_indent=more, break_long_words=False, break_on_hyphens=False)


def command(text: str, indent: str = "  ") -> str:
    """A shell command wrapped to the prose width with backslash continuations (it still
    pastes as one command)."""
    width = prose_width() - 2
    lines = textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "    ",
                          break_long_words=False, break_on_hyphens=False)
    return " \\\n".join(lines)


@dataclass(frozen=True)
class Segment:
    """A run of text and its terminal style (None: plain)."""

    text: str
    style: str | None = None


Line = tuple[Segment, ...]


def _cell(c: Cell, width: int, marks: bool) -> Segment:
    text = c.text.rjust(width) + (c.symbol.ljust(1) if marks else "")
    style = "bold red" if c.marked else (TERMINAL[c.group % len(TERMINAL)]
                                         if c.group is not None else None)
    return Segment(" " + text, style)


def _span(labels: Sequence[str], shown: Sequence[int]) -> str:
    return f"{labels[shown[0]]}-{labels[shown[-1]]}" if len(shown) > 1 else labels[shown[0]]


def _band(grid: Grid, cols: Sequence[int], rows: Sequence[int], width: int, label_w: int,
          marks: bool, elided_cols: bool, elided_rows: bool) -> list[Line]:
    corner = f"{grid.row_axis}\\{grid.col_axis}" if grid.row_axis or grid.col_axis else ""
    head: list[Segment] = [Segment(corner.rjust(label_w), "dim")]
    head += [Segment(" " + grid.cols[j].rjust(width + marks), "dim") for j in cols]
    if elided_cols:
        head.append(Segment(" " + ELIDED, "dim"))
    out: list[Line] = [tuple(head)]
    for i in rows:
        line = [Segment(grid.rows[i].rjust(label_w), "dim")]
        line += [_cell(grid.cells[i][j], width, marks) for j in cols]
        if elided_cols:
            line.append(Segment(" " + ELIDED, "dim"))
        out.append(tuple(line))
    if elided_rows:
        out.append((Segment(ELIDED.rjust(label_w), "dim"),))
    return out


def render(grid: Grid, width: int, *, full: bool = False, colour: bool = False) -> list[Line]:
    """The grid as lines of at most `width` characters: summarised, or every cell (`full`);
    without `colour` the legend says where its colours are seen."""
    marks = any(c.marked for row in grid.cells for c in row)
    cell_w = max([len(c.text) for row in grid.cells for c in row] + [len(x) for x in grid.cols]
                 + [1])
    corner = f"{grid.row_axis}\\{grid.col_axis}"
    label_w = max([len(x) for x in grid.rows] + [len(corner)])
    step = cell_w + marks + 1
    fit = max(1, (width - label_w) // step)
    n_rows, n_cols = len(grid.rows), len(grid.cols)
    out: list[Line] = [(Segment(line, "bold"),) for line in
                       textwrap.wrap(grid.title, width, subsequent_indent="    ",
                                     break_long_words=False) or [""]]
    if full or (n_cols <= fit and n_rows <= SUMMARY_ROWS):
        bands = [list(range(j, min(j + fit, n_cols))) for j in range(0, n_cols, fit)] or [[]]
        for b, cols in enumerate(bands):
            if len(bands) > 1:
                what = f"{grid.col_axis or 'columns'} {_span(grid.cols, cols)}"
                out.append((Segment(f"({what}: part {b + 1} of {len(bands)})", "dim"),))
            out += _band(grid, cols, range(n_rows), cell_w, label_w, marks, False, False)
        left_out = ""
    else:
        room = fit if n_cols <= fit else max(1, (width - label_w - len(ELIDED) - 1) // step)
        cols = list(range(min(room, n_cols)))
        rows = list(range(min(SUMMARY_ROWS, n_rows)))
        out += _band(grid, cols, rows, cell_w, label_w, marks, len(cols) < n_cols,
                     len(rows) < n_rows)
        parts = [f"{axis or what} {_span(labels, shown)} of {len(labels)}"
                 for axis, what, labels, shown in ((grid.row_axis, "rows", grid.rows, rows),
                                                   (grid.col_axis, "columns", grid.cols, cols))
                 if len(shown) < len(labels)]
        left_out = f"showing {' and '.join(parts)}: --full prints every cell"
    legend = grid.legend
    if not colour and legend.startswith("colour:"):
        legend = "colour (on a terminal, and in --svg):" + legend.removeprefix("colour:")
    foot = [legend, *grid.notes]
    if grid.marks and marks:
        foot.append("marks: " + "; ".join(f"{s} {meaning}" for s, meaning in grid.marks))
    if left_out:
        foot.append(left_out)
    for text in foot:
        if text:
            out += [(Segment(line, "dim"),) for line in
                    textwrap.wrap(text, width, subsequent_indent="  ", break_long_words=False)]
    return out


def print_grid(grid: Grid, *, full: bool = False, width: int | None = None) -> None:
    """Print a grid fitted to the terminal (`render`), coloured where stdout is a terminal."""
    tty = sys.stdout.isatty()
    lines = render(grid, width or columns(), full=full, colour=tty)
    if not tty:
        print("\n".join("".join(s.text for s in line) for line in lines))
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    for line in lines:
        text = Text()
        for s in line:
            text.append(s.text, style=s.style or "")
        console.print(text)


__all__ = ["ELIDED", "FALLBACK_COLUMNS", "PROSE_COLUMNS", "SUMMARY_ROWS", "Segment", "columns",
           "command", "print_grid", "prose_width", "render", "wrap"]
