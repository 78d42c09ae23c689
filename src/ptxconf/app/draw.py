"""Pictures, from one module: a labelled grid of cells, drawn as SVG (drawsvg) in the style of the
PTX ISA's layout figures, and in the terminal by ptxconf.app.terminal.

Every picture is a `Grid`: row and column labels, one `Cell` (text and a colour group) per
position, an optional mark (a differing cell), a legend. Builders turn oracle answers into
grids: a shared-memory operand coloured by 16-byte chunk or by bank, a fragment map as thread x
register, a mismatch as expected and observed side by side, a device matrix.
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


__all__ = ["MARK_SYMBOL", "Cell", "Grid", "device_matrix", "fragment_grid", "fragment_owner_grid",
           "mismatch_grids", "smem_grid", "to_svg"]
