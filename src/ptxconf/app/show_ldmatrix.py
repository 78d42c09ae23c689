"""`ptxconf show ldmatrix` / `show stmatrix`: which lane supplies which row address and which lane
holds which element, as text grids within 120 columns (the terminal's width where narrower,
prose wrapped as every command's: ptxconf.app.terminal); with `--smem-layout` also where each row
address points in a shared-memory tile and whether the instruction moves the tile's elements
(ptxconf.oracle.ldmatrix, ptxconf.oracle.ldmatrix_smem).

* `show ldmatrix --num x4 [--trans] [--shape m8n8]`: the row addresses (matrix x row -> lane)
  and each matrix as stored (row x col -> lane.element, in register r<matrix>);
* `... --smem-layout LAYOUT --dtype f16 [--start BYTES]`: LAYOUT is a CuTe layout, (row, col) ->
  element offset with its swizzle on byte addresses (as `explain layout` reads it), or a
  canonical layout's name (K_SW128, MN_INTER: packed densely; MN-major read along MN). Each
  lane's address and the tile region moved, an element the instruction does not move where the
  tile means marked `!`, then what is wrong (alignment, a row split by the swizzle, elements,
  bank conflicts) or that nothing is.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ptxconf.app import terminal
from ptxconf.app.options import int_arg, spec_options

if TYPE_CHECKING:
    from ptxconf.oracle.ldmatrix import Form
    from ptxconf.oracle.ldmatrix_smem import TileAccess
    from ptxconf.oracle.spec import Spec

#: The widest line a picture prints, however wide the terminal (its width where narrower:
#: ptxconf.app.terminal; 120 where stdout is no terminal).
WIDTH = 120


def width() -> int:
    """The width the grids fit: the terminal's, at most WIDTH."""
    return min(WIDTH, terminal.columns())


def _prose(text: str, indent: str = "") -> list[str]:
    """A sentence wrapped as every command's prose is (ptxconf.app.terminal.wrap)."""
    return terminal.wrap(text, indent).split("\n")
INSTRUCTIONS = ("ldmatrix", "stmatrix")


def add_parsers(ss: argparse._SubParsersAction[Any]) -> None:
    """`show ldmatrix` and `show stmatrix`."""
    for name in INSTRUCTIONS:
        moves = "loads" if name == "ldmatrix" else "stores"
        p = ss.add_parser(name, help=f"which lane supplies which row address and holds which "
                                     f"element of the matrices {name} {moves}")
        spec_options(p)
        p.add_argument("--num", default="x4", help=".x1, .x2 or .x4 (default x4)")
        p.add_argument("--trans", action="store_true")
        p.add_argument("--shape", default="m8n8")
        p.add_argument("--type", dest="elem_type", default=None,
                       help="the .type (default: the shape's first)")
        p.add_argument("--smem-layout", metavar="LAYOUT",
                       help="a CuTe layout (row, col) -> element offset, or a canonical "
                            "layout's name (K_SW128)")
        p.add_argument("--dtype", help="the tile's element type (with --smem-layout)")
        p.add_argument("--start", type=int_arg, default=0, metavar="BYTES",
                       help="the tile's start address (default 0)")


def cmd(args: argparse.Namespace, spec: Spec) -> int:
    """Print the pictures of one form (ValueError for a form or tile the spec has not)."""
    from ptxconf.oracle import ldmatrix as lm

    shape = next((s for s in lm.forms(spec, args.show_cmd, derivable=False)
                  if s.shape.shape == args.shape.lstrip(".")), None)
    if shape is None:
        raise ValueError(f"{args.show_cmd} has no shape {args.shape!r} in the spec")
    kind = args.elem_type or shape.shape.types[0]
    name = ".".join([args.show_cmd, args.shape.lstrip("."), args.num.lstrip("."),
                     *(["trans"] if args.trans else []), kind.lstrip(".")])
    form = lm.form(spec, name)
    lines = form_lines(form)
    if args.smem_layout is not None:
        if args.dtype is None:
            raise ValueError("--smem-layout needs --dtype (the tile's element type)")
        from ptxconf.oracle import ldmatrix_smem

        t = ldmatrix_smem.tile(spec, args.smem_layout, args.dtype, start_bytes=args.start)
        lines += tile_lines(ldmatrix_smem.access(spec, form, t))
    for line in lines:
        print(line)
    return 0


def form_lines(form: Form) -> list[str]:
    """The row addresses and the stored matrices of one form."""
    from ptxconf.oracle import ldmatrix as lm

    shape = form.shape
    held = lm.fragment(form)
    rows, cols = form.stored_dims
    moves = "loads" if shape.instruction == "ldmatrix" else "stores"
    out = _prose(f"{form.ptx}: {moves} {form.matrices} {shape.m_elems}x{shape.n_elems} matrices "
                 f"of {shape.element_bits}-bit elements"
                 f"{' (column-major)' if form.trans else ''}; {form.registers} register(s) a "
                 f"lane; {shape.target}")
    out += _prose("spec: " + ", ".join(f"spec/{r.file}:{r.line}" for r in
                                       (shape, form.addresses, form.fragment) if r), "  ") + [""]
    suppliers = lm.row_suppliers(form)
    by_row = {mr: lane for lane, mr in suppliers.items()}
    out += _prose("row addresses: the lane whose address starts each stored row (the others' "
                  "are not used)")
    out += _grid("matrix", "row", [f"m{m}" for m in range(form.matrices)],
                 [str(r) for r in range(rows)],
                 [[f"T{by_row[(m, r)]}" for r in range(rows)] for m in range(form.matrices)])
    out.append("")
    out += _prose("elements as stored (row: the row an address starts, col: its element): the "
                  "lane.element that holds it")
    cell = {(h.matrix, h.row, h.col): f"T{h.lane}.{h.element}" for h in held}
    regs = {m: sorted({h.register for h in held if h.matrix == m}) for m in range(form.matrices)}
    grids: dict[tuple[tuple[str, ...], ...], list[int]] = {}
    for m in range(form.matrices):
        key = tuple(tuple(cell[(m, r, c)] for c in range(cols)) for r in range(rows))
        grids.setdefault(key, []).append(m)
    for key, ms in grids.items():
        names = ", ".join(f"m{m} in {'/'.join(f'r{x}' for x in regs[m])}" for m in ms)
        out += _grid("row", "col", [str(r) for r in range(rows)], [str(c) for c in range(cols)],
                     key, title=names + (": the same lanes and elements" if len(ms) > 1 else ""))
    return out


def tile_lines(acc: TileAccess) -> list[str]:
    """Each lane's address in the tile, the region moved (marked where wrong), the verdict."""
    t, form = acc.tile, acc.form
    ax0, ax1 = t.axes
    where = ", ".join(f"m{m} at ({ax0} {r}, {ax1} {c})" for m, (r, c) in enumerate(acc.origins))
    out = ["", *_prose(f"tile {t.name} ({t.dtype}, {t.dims[0]} {ax0} x {t.dims[1]} {ax1}): "
                       f"{where}"),
           *_prose("row addresses in the tile (lane: matrix.row -> tile element, byte address):")]
    cells = [f"T{r.lane:<2} m{r.matrix}.{r.row} ({r.tile_row},{r.tile_col}) {r.address_bytes:#06x}"
             + ("" if r.aligned and r.whole_row else " !") for r in acc.rows]
    per = max(1, (width() - 2) // (max(len(c) for c in cells) + 3))
    wide = max(len(x) for x in cells)
    for i in range(0, len(cells), per):
        out.append(("  " + "   ".join(f"{c:<{wide}}" for c in cells[i:i + per])).rstrip())
    r0 = min(r for r, _ in acc.origins)
    c0 = min(c for _, c in acc.origins)
    srows, scols = form.stored_dims
    r1 = max(r for r, _ in acc.origins) + srows
    c1 = max(c for _, c in acc.origins) + scols
    text = {m.meant: f"T{m.held.lane}r{m.held.register}.{m.held.element}" + ("" if m.ok else "!")
            for m in acc.moved}
    verb = "reads" if form.shape.instruction == "ldmatrix" else "writes"
    out += _prose(f"the tile elements {form.shape.instruction} {verb}: the lane, register and "
                  "element that hold each (! where the byte it moves is another element)")
    cell_w = max(len(x) for x in text.values()) + 1
    fit = max(1, (width() - len(f"{ax0}\\{ax1}") - 1) // cell_w)
    band_cols = fit - fit % scols if fit >= scols else fit
    for band in range(c0, c1, band_cols):
        span = range(band, min(band + band_cols, c1))
        out += _grid(ax0, ax1, [str(r) for r in range(r0, r1)], [str(c) for c in span],
                     [[text.get((r, c), ".") for c in span] for r in range(r0, r1)])
    problems = acc.problems()
    out.append("")
    if problems:
        out += _prose(f"{form.name} over {t.name}: {len(problems)} problem(s)")
        out += [line for p in problems for line in _prose(p, "  ")]
    else:
        out += _prose(f"{form.name} over {t.name}: moves every element where the tile has it; "
                      f"{acc.row_align}-byte aligned rows; banks: "
                      + ("conflict-free" if acc.bank_degree <= 1 else f"{acc.bank_degree}-way"))
    return out


def _grid(row_axis: str, col_axis: str, row_labels: Sequence[str], col_labels: Sequence[str],
          cells: Sequence[Sequence[str]], title: str = "") -> list[str]:
    """A labelled text grid: right-aligned columns as wide as their widest cell."""
    corner = f"{row_axis}\\{col_axis}"
    lw = max([len(corner), *(len(x) for x in row_labels)])
    cw = max([len(x) for x in col_labels] + [len(c) for row in cells for c in row])
    lines = [title] if title else []
    lines.append(f"{corner:>{lw}} " + " ".join(f"{x:>{cw}}" for x in col_labels))
    lines += [f"{label:>{lw}} " + " ".join(f"{c:>{cw}}" for c in row)
              for label, row in zip(row_labels, cells, strict=True)]
    return lines


__all__ = ["WIDTH", "add_parsers", "cmd", "form_lines", "tile_lines", "width"]
