"""The picture of a failure or spec discrepancy: its layout drawn with the cells that matter
marked, derived from the result's fields and the oracle (never drawn by hand).

`figures(result, spec)` picks by the case's check: two coordinates at one address (the
collision marked, every other aliased element dashed), a documented layout against the one
built (the differing cells marked), the mode a sentence misstates, the values a comment leaves
out, the major-ness each document reads, a swizzle's period, the valid N each source lists.
GPU results (readings, mistaken descriptors, shared-memory maps) are drawn by
`ptxconf.app.figures_gpu`. Each `Figure` is a `Grid` (`ptxconf.app.draw`) and a caption; the
report fits it to the page's bounds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ptxconf.app.case_layouts import Collision, case_key, collision, spec_row
from ptxconf.app.draw import Cell, Grid

if TYPE_CHECKING:
    from ptxconf.core.results import Result
    from ptxconf.oracle.spec import Spec

#: 16-byte chunks of a 128-byte line: the colour of an address (where the swizzle moves it).
CHUNK_BYTES = 16
LINE_CHUNKS = 8
CHUNK_LEGEND = "colour: the 16-byte chunk of a 128-byte line the address falls in"
#: Palette slots by meaning (ptxconf.app.draw.PALETTE): green agrees, red disagrees.
AGREES, DISAGREES = 6, 3


@dataclass(frozen=True)
class Figure:
    """One picture of a case: the grid and what it shows."""

    grid: Grid
    caption: str


def _chunk_group(byte_address: int) -> int:
    return (byte_address // CHUNK_BYTES) % LINE_CHUNKS


# --- two coordinates at one address ---------------------------------------------------------------


def address_map(layout_text: str, bits: int, units: str) -> tuple[list[list[int]], str]:
    """A layout's (mn, k) map: swizzled byte addresses (bits for sub-byte types) where
    `units` is "bytes", the element offsets otherwise; and the unit's name."""
    import numpy as np

    from ptxconf.oracle.algebra import parse
    from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
    from ptxconf.oracle.canonical import address_units, crd2idx_array, swizzled_offset

    lay = parse(layout_text)
    outer = lay.outer if isinstance(lay, ComposedLayout) else lay
    if isinstance(outer, Swizzle):
        raise ValueError(f"{layout_text}: a swizzle alone has no coordinates")
    swz = lay.inner if isinstance(lay, ComposedLayout) and isinstance(lay.inner, Swizzle) else None
    mn, k = outer[0].size(), outer[1].size()
    i, j = np.meshgrid(np.arange(mn, dtype=np.int64), np.arange(k, dtype=np.int64), indexing="ij")
    elems: Any = crd2idx_array((i, j), outer.shape, outer.stride)  # elementwise, as the oracle's
    if units != "bytes":
        return np.asarray(elems, dtype=np.int64).tolist(), "element offsets"
    unit = address_units(bits)
    if swz is None:
        addr = np.asarray(elems, dtype=np.int64) * bits // (8 if unit == "bytes" else 1)
    else:
        addr = np.asarray(swizzled_offset(elems, bits, swz, "bytes"), dtype=np.int64)
    out: list[list[int]] = addr.tolist()
    return out, unit


def collision_figure(c: Collision, spec: Spec) -> Figure:
    """The layout's map, the case's coordinates marked, every other element that shares an
    address dashed, coloured by the 16-byte chunk."""
    bits = spec.element_bits(c.dtype)
    addr, unit = address_map(c.layout, bits, c.units)
    counts = Counter(a for row in addr for a in row)
    points = set(c.points)

    def byte_of(a: int) -> int:
        return a * bits // 8 if unit == "element offsets" else a // 8 if unit == "bits" else a

    cells = tuple(tuple(Cell(f"{a:#x}" if unit != "element offsets" else str(a),
                             _chunk_group(byte_of(a)), (i, j) in points, related=counts[a] > 1)
                        for j, a in enumerate(row)) for i, row in enumerate(addr))
    shared = addr[c.points[0][0]][c.points[0][1]] if c.points else 0
    at = f"{shared:#x}" if unit != "element offsets" else str(shared)
    title = (f"{c.layout} ({c.dtype}): " + " and ".join(f"(mn {p[0]}, k {p[1]})" for p in c.points)
             + f" both at {at}")
    what = ("byte addresses (the swizzle on the byte address, as the hardware reads)"
            if unit == "bytes" else f"{unit}")
    grid = Grid(title, tuple(str(i) for i in range(len(addr))),
                tuple(str(j) for j in range(len(addr[0]) if addr else 0)), cells, "mn", "k",
                f"{CHUNK_LEGEND}; marked: the case's coordinates at one address; dashed: every "
                "other element that shares an address", (f"cells: {what}",))
    return Figure(grid, f"{c.row_key}: where the layout puts each element; the case's "
                        f"coordinates marked ({c.units})")


# --- a printed layout against the one built ----------------------------------------------------


def layout_values(text: str) -> list[list[int]]:
    """A layout's values over its (row, col) domain (a rank-1 layout as one column)."""
    from ptxconf.oracle.algebra import Swizzle, parse
    from ptxconf.oracle.algebra.table import grid, offsets

    lay = parse(text)
    if isinstance(lay, Swizzle):
        raise ValueError(f"{text}: a swizzle alone has no coordinates")
    if lay.rank() == 1:
        return [[v] for v in offsets(lay).tolist()]
    return grid(lay, lay[0].size(), lay[1].size()).tolist()  # type: ignore[no-any-return]


def compare_figures(what: str, built: str, printed: str, built_label: str, printed_label: str,
                    elems_per_chunk: int = 0) -> list[Figure]:
    """The two layouts side by side over the union of their domains, each cell the offset of
    that coordinate; marked where they differ or only one has the coordinate (`·`). Coloured
    by 16-byte chunk where `elems_per_chunk` says how many elements one holds."""
    a, b = layout_values(built), layout_values(printed)
    rows = max(len(a), len(b))
    cols = max(len(a[0]), len(b[0]))

    def at(m: list[list[int]], i: int, j: int) -> int | None:
        return m[i][j] if i < len(m) and j < len(m[0]) else None

    def grid(title: str, m: list[list[int]]) -> Grid:
        cells = []
        for i in range(rows):
            line = []
            for j in range(cols):
                v = at(m, i, j)
                group = (v // elems_per_chunk) % LINE_CHUNKS if v is not None and elems_per_chunk else None
                line.append(Cell("·" if v is None else str(v), group, at(a, i, j) != at(b, i, j)))
            cells.append(tuple(line))
        legend = "marked: the two differ at this coordinate (·: outside this layout)"
        if elems_per_chunk:
            legend = f"colour: the 16-byte chunk of the offset ({elems_per_chunk} elements); " + legend
        return Grid(title, tuple(str(i) for i in range(rows)), tuple(str(j) for j in range(cols)),
                    tuple(cells), "row", "col", legend, ("cells: the layout's offset (elements)",))

    return [Figure(grid(f"{built_label}: {built}", a), f"{what}: {built_label}"),
            Figure(grid(f"{printed_label}: {printed}", b), f"{what}: {printed_label}")]


def _elems_per_chunk(spec: Spec, row: Any) -> int:
    dtype = getattr(row, "dtype", "") or "bf16"
    try:
        return CHUNK_BYTES * 8 // spec.element_bits(dtype)
    except Exception:  # noqa: BLE001 - a type this spec lacks: no colour
        return 0


def _printed_vs_built(result: Result, spec: Spec) -> list[Figure]:
    f = result.fields
    printed, built = f.get("printed"), f.get("built")
    if not isinstance(printed, str) or not isinstance(built, str):
        return []
    row = spec_row(spec, case_key(result))
    return compare_figures(result.id, built, printed, "built", "as printed",
                           _elems_per_chunk(spec, row))


# --- a sentence's mode, a comment's shape ----------------------------------------------------------


def _mode_statement(result: Result, spec: Spec) -> list[Figure]:
    """The mode's offsets as the printed layout has them and as the sentence says."""
    from ptxconf.oracle.algebra import Layout, parse

    f = result.fields
    layout, mode = f.get("layout"), f.get("mode")
    if not isinstance(layout, str) or not isinstance(mode, list):
        return []
    sub: Any = parse(layout)
    for i in mode:
        sub = sub[int(i)]
    if not isinstance(sub, Layout):
        return []
    size = int(f.get("layout_size", sub.size()))
    stated_size = int(f.get("stated_size", size))
    stride = int(f.get("layout_stride", sub(1) - sub(0) if sub.size() > 1 else 0))
    stated_stride = int(f.get("stated_stride", stride))
    n = max(size, stated_size)
    has = [str(sub(i)) if i < size else "·" for i in range(n)]
    said = [str(sub(0) + i * stated_stride) if i < stated_size else "·" for i in range(n)]
    cells = (tuple(Cell(v, None, False) for v in has),
             tuple(Cell(v, None, v != w) for v, w in zip(said, has, strict=True)))
    grid = Grid(f"mode {mode} of {layout}: the offset at each coordinate",
                ("printed layout", "the sentence"), tuple(str(i) for i in range(n)), cells,
                "reading", "coordinate", "marked: where the sentence's size or stride gives "
                "another offset than the printed layout (·: no such coordinate)",
                (f"the layout: size {size}, stride {stride}; the sentence: size {stated_size}, "
                 f"stride {stated_stride}",))
    return [Figure(grid, f"{result.id}: the mode the sentence describes")]


_COMMENT_V = re.compile(r"V(?P<v>\d+(?:x\d+)*)")


def _domain_comment(result: Result, spec: Spec) -> list[Figure]:
    """The layout's value mode (thread 0), each cell the index it maps to; marked: the values
    outside the shape the comment says."""
    from ptxconf.oracle.algebra import Swizzle, parse

    f = result.fields
    layout, comment = f.get("layout"), f.get("comment")
    m = _COMMENT_V.search(comment) if isinstance(comment, str) else None
    if not isinstance(layout, str) or m is None:
        return []
    lay = parse(layout)
    if isinstance(lay, Swizzle):
        return []
    val = lay[1]
    said = tuple(int(x) for x in m["v"].split("x"))
    if val.rank() == 2:
        rows, cols = val[0].size(), val[1].size()
    else:
        rows, cols = val.size(), 1
    cells = []
    for i in range(rows):
        line = []
        for j in range(cols):
            flat = i + j * rows
            outside = (i >= said[0] or j >= said[1]) if len(said) == 2 else flat >= said[0]
            index = lay((0, (i, j) if val.rank() == 2 else i))
            line.append(Cell(str(index), None, outside))
        cells.append(tuple(line))
    grid = Grid(f"{layout}: thread 0's values (the comment {comment!r} says V{m['v']})",
                tuple(str(i) for i in range(rows)), tuple(str(j) for j in range(cols)),
                tuple(cells), "value mode 0", "value mode 1",
                "marked: values the layout has outside the comment's value shape",
                ("cells: the (M,K) index thread 0's value maps to",))
    return [Figure(grid, f"{result.id}: the values a thread holds")]


# --- which mode is contiguous ------------------------------------------------------------------


def _major_convention(result: Result, spec: Spec) -> list[Figure]:
    """Operand A's first core matrices as each document reads it (f16, no swizzle): the
    16-byte chunk at address 0 marked, so the direction elements are contiguous shows."""
    from ptxconf.oracle.canonical import SmemQuery, smem_offsets
    from ptxconf.oracle.interpret import compact_strides

    f = result.fields
    out = []
    for major, who in ((f.get("major"), case_key(result)), (f.get("other_major"), f.get("other"))):
        if major not in ("K", "MN"):
            return []
        mn, k = 8, 16
        lbo, sbo = compact_strides(spec, "f16", str(major), "none", mn, k)
        offs = smem_offsets(spec, SmemQuery("f16", str(major), "none", mn, k, lbo, sbo))
        cells = tuple(tuple(Cell(str(a // 2), _chunk_group(a), a < CHUNK_BYTES) for a in row)
                      for row in offs)
        grid = Grid(f"{f.get('operand', 'A')} read as {major}-major ({who})",
                    tuple(str(i) for i in range(mn)), tuple(str(j) for j in range(k)), cells,
                    "mn", "k", f"{CHUNK_LEGEND}; marked: the first 16 bytes, contiguous along "
                    f"{'K' if major == 'K' else 'M/N'}", ("cells: element offset (f16, no swizzle)",))
        out.append(Figure(grid, f"{result.id}: {major}-major, as {who} reads it"))
    return out


# --- a swizzle's period ----------------------------------------------------------------------


def _period(result: Result, spec: Spec) -> list[Figure]:
    """Two periods of the swizzle on byte addresses, one row a row width: the first row the
    stated period says repeats row 0 but does not marked, the row where it does dashed."""
    from ptxconf.oracle.algebra.swizzle import Swizzle

    f = result.fields
    row = spec_row(spec, case_key(result))
    try:
        swz = Swizzle(int(getattr(row, "swizzle_bits")), int(getattr(row, "swizzle_base")),  # noqa: B009
                      int(getattr(row, "swizzle_shift")))  # noqa: B009
        stated, period, width = (int(f["stated_bytes"]), int(f["period_bytes_if_byte_offsets"]),
                                 int(f["row_width_bytes"]))
    except (AttributeError, KeyError, TypeError, ValueError):
        return []
    unit = 1 << swz.base
    cols, rows = width // unit, 2 * period // width

    def pattern(r: int) -> list[int]:
        return [(swz(r * width + c * unit) % width) // unit for c in range(cols)]

    step = max(stated // width, 1)
    wrong = next((r for r in range(step, rows, step) if pattern(r) != pattern(0)), None)
    repeat = period // width
    cells = tuple(tuple(Cell(f"{swz(r * width + c * unit):#x}", p, r == wrong,
                             related=r == repeat) for c, p in enumerate(pattern(r)))
                  for r in range(rows))
    grid = Grid(f"{swz} on byte addresses: repeats every {period} B, not every {stated} B",
                tuple(f"{r * width:#x}" for r in range(rows)), tuple(str(c) for c in range(cols)),
                cells, f"{width}-B row", f"{unit}-B unit",
                f"colour: the unit's place in its row after the swizzle; marked: the first row a "
                f"{stated}-B period says repeats row 0 but does not; dashed: {period} B, where the "
                "pattern repeats", ("cells: the swizzled byte address of each unit",))
    return [Figure(grid, f"{result.id}: the swizzle's pattern over two periods")]


# --- the valid N each source lists ------------------------------------------------------------------


def parse_n_ranges(text: Any) -> set[int]:
    """The N set of `n_ranges` text ("8..256 step 8, 264"); empty for None or "none"."""
    out: set[int] = set()
    if not isinstance(text, str):
        return out
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\.\.(\d+) step (\d+)\s*", part)
        if m:
            out.update(range(int(m[1]), int(m[2]) + 1, int(m[3])))
        elif part.strip().isdigit():
            out.add(int(part))
    return out


def _valid_n(result: Result, spec: Spec) -> list[Figure]:
    """N against the sources: the document's row and the assembler's per form; marked: the
    document's cells where the assembler disagrees."""
    f = result.fields
    accepted = f.get("accepted_n")
    if not isinstance(accepted, Mapping):
        return []
    documented = parse_n_ranges(f.get("documented_n"))
    forms = {str(k): parse_n_ranges(v) for k, v in accepted.items()}
    ns = sorted(documented.union(*forms.values()))
    if not ns:
        return []
    every = set().union(*forms.values())
    doc = tuple(Cell("✓" if n in documented else "", AGREES if n in documented else None,
                     (n in documented) != (n in every)) for n in ns)
    rows = [doc] + [tuple(Cell("✓" if n in s else "", AGREES if n in s else None) for n in ns)
                    for s in forms.values()]
    grid = Grid(f"valid N of {case_key(result)}", ("document", *(f"assembler {k}" for k in forms)),
                tuple(str(n) for n in ns), tuple(rows), "source", "N",
                "✓: listed (document) or accepted (assembler); marked: the document disagrees "
                "with the assembler", (f"document: {f.get('documented_n') or 'no N listed'}",))
    return [Figure(grid, f"{result.id}: which N each source gives")]


def _said(value: Any) -> str:
    """A side of a disagreement as a cell's text."""
    if isinstance(value, list | tuple):
        return ", ".join(_said(v) for v in value)
    return {True: "yes", False: "no"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def _example_vs_section(result: Result, spec: Spec) -> list[Figure]:
    """What a document's example says against what its own section says, a row a key it
    disagrees on (its fields: key -> [the example's, the section's]); marked: every cell of a
    row where they differ."""
    f = result.fields
    keys = [k for k in f.get("disagree") or () if isinstance(f.get(k), list | tuple) and len(f[k]) == 2]
    if not keys:
        return []
    rows = tuple((Cell(_said(f[k][0]), None, True), Cell(_said(f[k][1]), AGREES)) for k in keys)
    grid = Grid(f"{case_key(result)}: the example against its section", tuple(keys),
                ("the example", "its section"), rows, "key", "source",
                "marked: what the example says where its section says otherwise")
    return [Figure(grid, f"{result.id}: the example and its section, side by side")]


# --- the dispatcher ---------------------------------------------------------------------------------

#: Check name -> the builder of its figures (results of other checks: `figures_gpu`, then none).
BUILDERS: dict[str, Callable[[Result, Spec], list[Figure]]] = {
    "cutedsl.printed_atom": _printed_vs_built,
    "cutedsl.tile_to_shape": _printed_vs_built,
    "cutedsl.tile_atom": _printed_vs_built,
    "cutedsl.tile_modes": _printed_vs_built,
    "cute.mode_statement": _mode_statement,
    "cute.domain_comment": _domain_comment,
    "major.convention": _major_convention,
    "cutedsl.period": _period,
    "witness.valid_n": _valid_n,
    "warp.example": _example_vs_section,
}


def figures(result: Result, spec: Spec) -> Sequence[Figure]:
    """The pictures of a document discrepancy or a collision (none for a result of another
    check: `ptxconf.app.figures_gpu.gpu_figures` draws those)."""
    c = collision(result, spec)
    if c is not None:
        return [collision_figure(c, spec)]
    build = BUILDERS.get(result.check)
    return build(result, spec) if build is not None else []


__all__ = ["BUILDERS", "Figure", "address_map", "collision_figure", "compare_figures", "figures",
           "layout_values", "parse_n_ranges"]
