"""Pictures, from one module: a labelled grid of cells, drawn as SVG (drawsvg) in the style of the
PTX ISA's layout figures, and in the terminal by ptxconf.app.terminal.

Every picture is a `Grid`: row and column labels, one `Cell` (text and a colour group) per
position, an optional mark (a differing cell; `related`: a dashed one, the same kind of cell
as the marked ones), a legend. Builders turn oracle answers into grids: a shared-memory operand
coloured by 16-byte chunk or by bank, a fragment map as thread x register, a mismatch as
expected and observed side by side, a device matrix.

Pictures in a report are bounded (`MAX_WIDTH_PX`, `MAX_HEIGHT_PX`): `fit` keeps the rows and
columns around the cells that matter (a gap `…` where some are left out) and `page_svg` draws
the result compactly (one path per colour, the marks as rectangles that name their cell).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: Fill colours of the colour groups, cycled (a qualitative palette readable in print).
PALETTE: tuple[str, ...] = (
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6",
)
#: Terminal colours of the same groups (rich colour names).
TERMINAL: tuple[str, ...] = (
    "cyan", "yellow", "magenta", "red", "blue", "dark_orange", "green", "pink1",
    "grey70", "purple", "pale_green1", "gold1", "sky_blue1", "chartreuse3", "orange1", "plum2",
)
MARK = "#d62728"
#: A marked cell's symbol in plain text where its grid names no other (Grid.marks).
MARK_SYMBOL = "*"


@dataclass(frozen=True)
class Cell:
    """One position: its text, its colour group (None: uncoloured), whether it is marked and
    with which plain-text symbol (the terminal prints it after the text; "": MARK_SYMBOL)."""

    text: str
    group: int | None = None
    marked: bool = False
    mark: str = ""
    related: bool = False

    @property
    def symbol(self) -> str:
        """The symbol the terminal prints after the text ("" for an unmarked cell)."""
        return (self.mark or MARK_SYMBOL) if self.marked else ""


@dataclass(frozen=True)
class Grid:
    """A labelled grid of cells."""

    title: str
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]
    row_axis: str = ""
    col_axis: str = ""
    legend: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: What each mark symbol means: (symbol, meaning), in the order the legend lists them.
    marks: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if len(self.cells) != len(self.rows) or any(len(r) != len(self.cols) for r in self.cells):
            raise ValueError(f"{self.title}: {len(self.rows)}x{len(self.cols)} labels for a "
                             f"{len(self.cells)}-row grid")


# --- builders --------------------------------------------------------------------------------


def smem_grid(title: str, offsets: Sequence[Sequence[int]], *, units: str, color_by: str,
              chunk_bytes: int, bank_bytes: int, banks: int, notes: Sequence[str] = (),
              origin: str = "from the descriptor start") -> Grid:
    """A shared-memory operand: (mn, k) cells holding their address, coloured by the chunk
    (the descriptor's 16-byte unit) the address falls in, or by its bank. The caller passes the
    geometry from the oracle (descriptor granule, bank width and count) and says what the
    numbers count from (`origin`, in the legend)."""
    if color_by not in ("chunk", "bank"):
        raise ValueError(f"color_by={color_by!r}: expected 'chunk' or 'bank'")
    per_byte = 8 if units == "bits" else 1
    cells = []
    for row in offsets:
        line = []
        for off in row:
            addr = off // per_byte
            group = ((addr // chunk_bytes) % (banks * bank_bytes // chunk_bytes) if color_by == "chunk"
                     else (addr // bank_bytes) % banks)
            line.append(Cell(f"{off:#x}", group))
        cells.append(tuple(line))
    legend = (f"colour: which {chunk_bytes}-byte chunk of a {banks * bank_bytes}-byte bank row the address "
              f"falls in ({units} {origin})"
              if color_by == "chunk" else f"colour: bank ({banks} banks x {bank_bytes} B)")
    return Grid(title, tuple(str(i) for i in range(len(offsets))),
                tuple(str(j) for j in range(len(offsets[0]) if offsets else 0)), tuple(cells),
                "mn", "k", legend, tuple(notes))


def fragment_grid(title: str, entries: Sequence[Sequence[int]], *, threads: Sequence[int] | None = None,
                  notes: Sequence[str] = ()) -> Grid:
    """A register fragment as thread x register: each cell names the (row, col) it holds,
    coloured by the row (as the PTX fragment figures shade by row)."""
    by: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    regs: set[int] = set()
    thread_ids: set[int] = set()
    for thread, reg, sub, row, col in entries:
        by.setdefault((thread, reg), []).append((sub, row, col))
        regs.add(reg)
        thread_ids.add(thread)
    shown = sorted(thread_ids) if threads is None else list(threads)
    reg_list = sorted(regs)
    cells = []
    for t in shown:
        line = []
        for r in reg_list:
            held = sorted(by.get((t, r), []))
            text = " ".join(f"{row},{col}" for _, row, col in held)
            line.append(Cell(text, held[0][1] if held else None))
        cells.append(tuple(line))
    return Grid(title, tuple(f"T{t}" for t in shown), tuple(f"r{r}" for r in reg_list),
                tuple(cells), "thread", "register", "each cell: row,col of the element it holds "
                "(sub-elements left to right); colour: row", tuple(notes))


def fragment_owner_grid(title: str, entries: Sequence[Sequence[int]], rows: int, cols: int, *,
                        elems_per_register: int, threads: Sequence[int] | None = None,
                        axes: tuple[str, str] = ("row", "col"), notes: Sequence[str] = ()) -> Grid:
    """A register fragment as the tile it covers, CuTe's `print_layout` of a (thread, value)
    layout: rows x cols cells, each naming the thread that holds the element and its value
    index, `T5V2` (value = register x elements per register + subelement, the order of CuTe's
    value mode), coloured by thread. Cells of threads outside `threads` are '.'."""
    shown = None if threads is None else set(threads)
    text = [["." for _ in range(cols)] for _ in range(rows)]
    group: list[list[int | None]] = [[None] * cols for _ in range(rows)]
    for thread, reg, sub, row, col in entries:
        if shown is None or thread in shown:
            text[row][col] = f"T{thread}V{reg * elems_per_register + sub}"
            group[row][col] = thread
    cells = tuple(tuple(Cell(text[i][j], group[i][j]) for j in range(cols)) for i in range(rows))
    return Grid(title, tuple(str(i) for i in range(rows)), tuple(str(j) for j in range(cols)),
                cells, axes[0], axes[1], "each cell: the thread that holds the element and its "
                "value index (T5V2: thread 5, value 2); colour: thread", tuple(notes))


def mismatch_grids(what: str, expected: Sequence[Sequence[Any]], observed: Sequence[Sequence[Any]],
                   axes: tuple[str, str] = ("row", "col")) -> tuple[Grid, Grid]:
    """Expected and observed side by side, the differing cells marked in both."""
    def grid(title: str, data: Sequence[Sequence[Any]]) -> Grid:
        cells = tuple(tuple(Cell(str(v), None, expected[i][j] != observed[i][j])
                            for j, v in enumerate(row)) for i, row in enumerate(data))
        return Grid(title, tuple(str(i) for i in range(len(data))),
                    tuple(str(j) for j in range(len(data[0]) if len(data) else 0)), cells,
                    axes[0], axes[1], "marked: differs from the other side")
    return grid(f"{what}: expected", expected), grid(f"{what}: observed", observed)


def device_matrix(title: str, case_ids: Sequence[str], devices: Sequence[str],
                  status: dict[tuple[str, str], str]) -> Grid:
    """Case x device, each cell the case's status on that device."""
    # Palette slots by meaning: green pass, yellow discrepancy, grey skip, purple unknown, red fail.
    order = {"pass": 6, "discrepancy": 1, "skip": 8, "unknown": 2, "fail": 3}
    cells = tuple(tuple(Cell(status.get((c, d), "-"), order.get(status.get((c, d), "")),
                             len({status.get((c, x)) for x in devices}) > 1)
                        for d in devices) for c in case_ids)
    return Grid(title, tuple(case_ids), tuple(devices), cells, "case", "device",
                "marked: the devices disagree")


# --- renderers -------------------------------------------------------------------------------


def to_svg(grid: Grid, *, cell_px: int = 0) -> str:
    """The grid as an SVG document (drawsvg), row and column labels, legend and notes below."""
    import drawsvg as dw

    longest = max([len(c.text) for row in grid.cells for c in row] + [1])
    cw = cell_px or max(22, 7 * longest + 8)
    ch = 18
    corner = f"{grid.row_axis} \\ {grid.col_axis}"
    lw = max([len(r) for r in grid.rows] + [len(corner), 2]) * 7 + 12
    top = 44
    texts = [len(grid.title) * 8] + [len(x) * 6 for x in (grid.legend, *grid.notes)]
    width = max(lw + cw * len(grid.cols) + 10, max(texts) + 10)
    foot = 18 * (1 + len(grid.notes))
    height = top + ch * len(grid.rows) + foot + 10
    d = dw.Drawing(width, height, font_family="monospace", font_size=11)
    d.append(dw.Rectangle(0, 0, width, height, fill="white"))
    d.append(dw.Text(grid.title, 13, 4, 14, font_weight="bold"))
    d.append(dw.Text(corner, 10, 4, top - 6, fill="#555"))
    for j, label in enumerate(grid.cols):
        d.append(dw.Text(label, 10, lw + j * cw + cw / 2, top - 6, text_anchor="middle", fill="#555"))
    for i, label in enumerate(grid.rows):
        y = top + i * ch
        d.append(dw.Text(label, 10, lw - 6, y + ch - 5, text_anchor="end", fill="#555"))
        for j, c in enumerate(grid.cells[i]):
            x = lw + j * cw
            fill = PALETTE[c.group % len(PALETTE)] if c.group is not None else "#ffffff"
            d.append(dw.Rectangle(x, y, cw, ch, fill=fill, stroke=MARK if c.marked else "#999",
                                  stroke_width=2.5 if c.marked else 0.5))
            d.append(dw.Text(c.text, 10, x + cw / 2, y + ch - 5, text_anchor="middle"))
    y = top + ch * len(grid.rows) + 16
    for line in (grid.legend, *grid.notes):
        if line:
            d.append(dw.Text(line, 10, 4, y, fill="#333"))
            y += 18
    return str(d.as_svg())


# --- bounded pictures for a page ----------------------------------------------------------------

#: The largest picture a report holds, in CSS pixels (a laptop screen: no sideways scrolling).
MAX_WIDTH_PX = 1200
MAX_HEIGHT_PX = 900
#: Label text and cell geometry of `page_svg` (10 px monospace: about 6 px a character).
CHAR_PX = 6.1
ROW_PX = 16
TOP_PX = 24
GAP = "…"
#: The most cells a picture holds (each is about 60 bytes of SVG: a picture stays under 100 KB).
MAX_CELLS = 480
#: Marked cells drawn one rectangle each, naming its cell; more are one path.
MAX_NAMED_MARKS = 64
#: How wide a picture's title alone may make it (longer titles wrap).
TEXT_PX = 720


def _cell_px(grid: Grid) -> int:
    longest = max([len(c.text) for row in grid.cells for c in row] + [len(c) for c in grid.cols]
                  + [1])
    return max(14, round(CHAR_PX * longest + 7))


def _label_px(grid: Grid) -> int:
    corner = f"{grid.row_axis} \\ {grid.col_axis}" if grid.row_axis or grid.col_axis else ""
    return round(CHAR_PX * max([len(r) for r in grid.rows] + [len(corner), 2]) + 10)


def _picked(n: int, focus: Sequence[int], budget: int) -> list[int]:
    """Which of n indices to keep within `budget` slots (a gap between kept runs takes one):
    every index where n fits, else runs grown evenly around the focus (the first index when
    there is none)."""
    if n <= budget:
        return list(range(n))
    centres = sorted({f for f in focus if 0 <= f < n}) or [0]
    if len(centres) > budget // 3:  # too many to show around each: from the first on
        centres = centres[:1]

    def cost(kept: set[int]) -> int:
        idx = sorted(kept)
        gaps = sum(1 for a, b in zip(idx, idx[1:], strict=False) if b > a + 1)
        return len(idx) + gaps + (idx[0] > 0) + (idx[-1] < n - 1)

    kept = set(centres)
    for radius in range(1, n):
        grown = set(kept)
        for c in centres:
            grown.update(range(max(0, c - radius), min(n, c + radius + 1)))
        if cost(grown) > budget:
            # one side more where only one fits: the side after each centre (rows and columns
            # read forwards from the cell that matters)
            for c in centres:
                more = set(kept) | set(range(c, min(n, c + radius + 1)))
                if cost(more) <= budget:
                    kept = more
            break
        kept = grown
    return sorted(kept)


def window(grid: Grid, rows: Sequence[int], cols: Sequence[int]) -> Grid:
    """The grid's `rows` x `cols` (sorted indices), a `…` row or column where some are left
    out (before, between and after the kept ones)."""
    def with_gaps(idx: Sequence[int], n: int) -> list[int | None]:
        out: list[int | None] = []
        prev = -1
        for i in idx:
            if i > prev + 1:
                out.append(None)
            out.append(i)
            prev = i
        if prev < n - 1:
            out.append(None)
        return out

    rr = with_gaps(rows, len(grid.rows))
    cc = with_gaps(cols, len(grid.cols))
    blank = Cell("")
    cells = tuple(tuple(blank if i is None or j is None else grid.cells[i][j] for j in cc)
                  for i in rr)
    return Grid(grid.title, tuple(GAP if i is None else grid.rows[i] for i in rr),
                tuple(GAP if j is None else grid.cols[j] for j in cc), cells, grid.row_axis,
                grid.col_axis, grid.legend, grid.notes)


def _marked(grids: Sequence[Grid]) -> list[tuple[int, int]]:
    return [(i, j) for g in grids for i, row in enumerate(g.cells) for j, c in enumerate(row)
            if c.marked]


def _cut(grid: Grid, focus: Sequence[tuple[int, int]], max_width_px: int,
         max_height_px: int, max_rows: int = 0) -> tuple[list[int], list[int]] | None:
    """The row and column indices `fit` keeps, or None where the whole grid fits."""
    cols_fit = max((max_width_px - _label_px(grid) - 8) // _cell_px(grid), 3)
    foot = ROW_PX * (2 + len(grid.notes) + 1)
    rows_fit = max(min((max_height_px - TOP_PX - foot - 40) // ROW_PX,
                       MAX_CELLS // min(cols_fit, len(grid.cols)), max_rows or len(grid.rows)), 3)
    rows = _picked(len(grid.rows), [f[0] for f in focus], rows_fit)
    cols = _picked(len(grid.cols), [f[1] for f in focus], cols_fit)
    if len(rows) == len(grid.rows) and len(cols) == len(grid.cols):
        return None
    return rows, cols


def _shown(grid: Grid, rows: Sequence[int], cols: Sequence[int]) -> str:
    shown = []
    if len(rows) < len(grid.rows):
        shown.append(f"{len(rows)} of {len(grid.rows)} {grid.row_axis or 'rows'}")
    if len(cols) < len(grid.cols):
        shown.append(f"{len(cols)} of {len(grid.cols)} {grid.col_axis or 'columns'}")
    return f"shown: {', '.join(shown)} ({GAP}: left out)"


def fit(grid: Grid, focus: Sequence[tuple[int, int]] = (), *, max_width_px: int = MAX_WIDTH_PX,
        max_height_px: int = MAX_HEIGHT_PX, max_rows: int = 0) -> Grid:
    """The grid cut to fit `page_svg` within the bounds (and `max_rows`, where given): the rows
    and columns around `focus` ((row, col) indices; the marked cells where none is given), `…`
    where some are left out, and a note naming how much is shown."""
    return fit_together([grid], focus, max_width_px=max_width_px, max_height_px=max_height_px,
                        max_rows=max_rows)[0]


def fit_together(grids: Sequence[Grid], focus: Sequence[tuple[int, int]] = (), *,
                 max_width_px: int = MAX_WIDTH_PX, max_height_px: int = MAX_HEIGHT_PX,
                 max_rows: int = 0) -> list[Grid]:
    """`fit` for grids of one shape drawn side by side (expected and observed): the same rows
    and columns of each, chosen for the one with the widest cells."""
    widest = max(grids, key=_cell_px)
    cut = _cut(widest, focus or _marked(grids), max_width_px, max_height_px, max_rows)
    if cut is None:
        return list(grids)
    rows, cols = cut
    note = _shown(widest, rows, cols)
    return [Grid(w.title, w.rows, w.cols, w.cells, w.row_axis, w.col_axis, w.legend, (*w.notes, note))
            for w in (window(g, rows, cols) for g in grids)]


def _wrap(text: str, width_px: float) -> list[str]:
    import textwrap

    return textwrap.wrap(text, max(int(width_px / CHAR_PX), 20)) or [""]


def svg_file(grid: Grid, *, full: bool = False) -> str:
    """An SVG file of the grid: bounded as a report's pictures are (`fit`, then `page_svg`,
    within MAX_WIDTH_PX x MAX_HEIGHT_PX around the marked cells), or every cell (`full`)."""
    if full:
        return to_svg(grid)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + page_svg(fit(grid)) + "\n"


def page_svg(grid: Grid) -> str:
    """The grid as one compact inline <svg> (no XML prolog): one path per colour group, grid
    lines as one path, each marked cell a rectangle naming its cell (`data-at="row,col"` by
    label; `class="mark"`, or `"related"` dashed), texts escaped. Title, legend and notes wrap
    to the picture's width, at most MAX_WIDTH_PX (`fit` a grid first)."""
    from html import escape

    cw, lw = _cell_px(grid), _label_px(grid)
    ncols, nrows = len(grid.cols), len(grid.rows)
    cells_w = lw + cw * ncols + 8
    # as wide as the cells, the title (up to TEXT_PX) or 320 px; legend and notes wrap to it
    width = min(max(cells_w, min(round(len(grid.title) * CHAR_PX * 1.2) + 12, TEXT_PX), 320),
                MAX_WIDTH_PX)
    if cells_w > width:
        raise ValueError(f"{grid.title}: {ncols} columns of {cw} px do not fit {MAX_WIDTH_PX} px; "
                         "fit() it first")
    title = _wrap(grid.title, (width - 8) * 0.85)
    top = TOP_PX + 15 * len(title)
    foot = [line for t in (grid.legend, *grid.notes) if t for line in _wrap(t, width - 8)]
    height = top + ROW_PX * nrows + 8 + 15 * len(foot) + 4
    out = [f'<svg class="pic" role="img" xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" '
           f'font-size="10"><title>{escape(grid.title)}</title>'
           f'<rect width="{width}" height="{height}" fill="#fff"/>']
    out.append('<g font-size="12" font-weight="bold">' + "".join(
        f'<text x="4" y="{14 + 15 * i}">{escape(t)}</text>' for i, t in enumerate(title)) + "</g>")
    corner = f"{grid.row_axis} \\ {grid.col_axis}" if grid.row_axis or grid.col_axis else ""
    labels = [f'<text x="4" y="{top - 5}">{escape(corner)}</text>'] if corner else []
    labels += [f'<text x="{lw + j * cw + cw / 2:g}" y="{top - 5}" text-anchor="middle">'
               f"{escape(c)}</text>" for j, c in enumerate(grid.cols)]
    labels += [f'<text x="{lw - 5}" y="{top + i * ROW_PX + 12}" text-anchor="end">{escape(r)}</text>'
               for i, r in enumerate(grid.rows)]
    out.append('<g fill="#555">' + "".join(labels) + "</g>")
    fills: dict[int, list[str]] = {}
    for i, row in enumerate(grid.cells):
        j = 0
        while j < len(row):  # a run of one colour is one rectangle
            group, run = row[j].group, 1
            while j + run < len(row) and row[j + run].group == group:
                run += 1
            if group is not None:
                fills.setdefault(group % len(PALETTE), []).append(
                    f"M{lw + j * cw} {top + i * ROW_PX}h{cw * run}v{ROW_PX}h-{cw * run}z")
            j += run
    out += [f'<path fill="{PALETTE[g]}" d="{"".join(d)}"/>' for g, d in sorted(fills.items())]
    lines = [f"M{lw} {top + i * ROW_PX}h{cw * ncols}" for i in range(nrows + 1)]
    lines += [f"M{lw + j * cw} {top}v{ROW_PX * nrows}" for j in range(ncols + 1)]
    out.append(f'<path fill="none" stroke="#aaa" stroke-width=".5" d="{"".join(lines)}"/>')
    out.append('<g text-anchor="middle">' + "".join(  # a row a group: its cells name x only
        f'<g transform="translate(0 {top + i * ROW_PX + 12})">' + "".join(
            f'<text x="{lw + j * cw + cw // 2}">{escape(c.text)}</text>'
            for j, c in enumerate(row) if c.text) + "</g>"
        for i, row in enumerate(grid.cells)) + "</g>")
    for kind, style in (("related", 'stroke-width="1.2" stroke-dasharray="3 2"'),
                        ("mark", 'stroke-width="2.5"')):
        at = [(i, j) for i, row in enumerate(grid.cells) for j, c in enumerate(row)
              if (c.marked if kind == "mark" else c.related and not c.marked)]
        if len(at) > MAX_NAMED_MARKS:  # one path, counted
            d = "".join(f"M{lw + j * cw} {top + i * ROW_PX}h{cw}v{ROW_PX}h-{cw}z" for i, j in at)
            out.append(f'<path class="{kind}" data-count="{len(at)}" fill="none" stroke="{MARK}" '
                       f'{style} d="{d}"/>')
        elif at:
            out.append(f'<g fill="none" stroke="{MARK}" {style}>' + "".join(
                f'<rect class="{kind}" data-at="{escape(grid.rows[i])},{escape(grid.cols[j])}" '
                f'x="{lw + j * cw}" y="{top + i * ROW_PX}" width="{cw}" height="{ROW_PX}"/>'
                for i, j in at) + "</g>")
    y = top + ROW_PX * nrows + 8
    out.append('<g fill="#333">' + "".join(
        f'<text x="4" y="{y + 11 + 15 * i}">{escape(t)}</text>' for i, t in enumerate(foot))
        + "</g></svg>")
    return "".join(out)


__all__ = ["GAP", "MARK_SYMBOL", "MAX_HEIGHT_PX", "MAX_WIDTH_PX", "Cell", "Grid", "device_matrix",
           "fit", "fit_together", "fragment_grid", "fragment_owner_grid", "mismatch_grids",
           "page_svg", "smem_grid", "svg_file", "to_svg", "window"]
