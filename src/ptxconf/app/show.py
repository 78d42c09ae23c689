"""`ptxconf show ...`: the oracle's answers as pictures (terminal, or SVG with --svg FILE).

* `show smem-offsets` : a shared-memory operand as (mn, k) cells, coloured by chunk or bank
* `show fragment`     : a wgmma fragment as thread x register, or (`--by thread`) as the
                        rows x cols tile it covers, each cell its owner `T5V2` (CuTe's
                        print_layout of the (thread, value) layout)
* `show descriptor`   : a descriptor's fields, and with the operand options `explain` takes
                        (--instr/--operand, or --dtype/--major/--mn/--k) the addresses the
                        tensor core reads with it

Pictures fit the terminal (ptxconf.app.terminal): wider or longer ones are summarised, --full
prints every cell.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ptxconf.app.draw import Cell, Grid, fragment_grid, fragment_owner_grid, smem_grid, svg_file
from ptxconf.app.options import int_arg, operand_options, picture_options, spec_options
from ptxconf.app.terminal import print_grid

if TYPE_CHECKING:
    from ptxconf.oracle.explain.operand import Operand
    from ptxconf.oracle.explain.readmap import Descriptor
    from ptxconf.oracle.spec import Spec



#: The most threads `--threads` may name (a warpgroup has 128).
MAX_THREADS = 1024


def _threads(text: str) -> list[int]:
    """'0-7' or '0,1,32' -> thread ids (ranges low to high, at most MAX_THREADS in all)."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.strip().isdigit() or not (hi or lo).strip().isdigit():
            raise argparse.ArgumentTypeError(f"expected threads like 0-7 or 0,1,32, got {text!r}")
        first, last = int(lo), int(hi or lo)
        if last < first:
            raise argparse.ArgumentTypeError(f"{part!r}: a range runs low to high (like 0-7)")
        if len(out) + last - first + 1 > MAX_THREADS:
            raise argparse.ArgumentTypeError(f"{text!r} names more than {MAX_THREADS} threads")
        out += range(first, last + 1)
    return out


def add_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """The `show` subcommands."""
    show = sub.add_parser("show", help="draw the oracle's answers (terminal or --svg)")
    ss = show.add_subparsers(dest="show_cmd", required=True)

    so = ss.add_parser("smem-offsets", help="a shared-memory operand as (mn, k) cells")
    spec_options(so)
    so.add_argument("--dtype", required=True)
    so.add_argument("--major", choices=("K", "MN"), required=True)
    so.add_argument("--swizzle", required=True)
    so.add_argument("--mn", type=int_arg, required=True)
    so.add_argument("--k", type=int_arg, required=True)
    so.add_argument("--lbo", type=int_arg, required=True, help="bytes")
    so.add_argument("--sbo", type=int_arg, required=True, help="bytes")
    so.add_argument("--base-offset", type=int_arg, default=0, help="bytes")
    so.add_argument("--base-offset-field", type=int_arg, default=0)
    picture_options(so)

    fr = ss.add_parser("fragment", help="a wgmma fragment as thread x register, or as the "
                       "tile it covers (--by thread)")
    spec_options(fr)
    fr.add_argument("--instr", required=True)
    fr.add_argument("--operand", choices=("A", "D"), required=True)
    fr.add_argument("--by", choices=("register", "thread"), default="register",
                    help="register: a row per thread, a column per register (default); thread: "
                    "the rows x cols tile, each cell the thread and value index holding it "
                    "(T5V2), as CuTe's print_layout draws a (thread, value) layout")
    fr.add_argument("--threads", type=_threads, default=None,
                    help="threads to draw (--by register, default: 0-7, 32, 64, 96; --by "
                    "thread, default all: the others' cells are '.')")
    picture_options(fr, colour=False)

    de = ss.add_parser("descriptor", help="a descriptor's fields, and the addresses the tensor "
                       "core reads with it for an operand (the options explain takes)")
    de.add_argument("value", type=int_arg)
    spec_options(de)
    operand_options(de)
    picture_options(de)

    from ptxconf.app.show_ldmatrix import add_parsers
    add_parsers(ss)  # `show ldmatrix`, `show stmatrix`


def _emit(grid: Grid, args: argparse.Namespace) -> None:
    print_grid(grid, full=args.full)
    if args.svg is not None:
        args.svg.write_text(svg_file(grid, full=args.full), encoding="utf-8")
        print(f"svg: {args.svg}")


def smem_picture(spec: Spec, dtype: str, major: str, swizzle: str, mn: int, k: int, lbo: int,
                 sbo: int, base_offset: int, field: int, color_by: str) -> Grid:
    """The oracle's answer to an smem-offsets query as a picture (offsets from the start)."""
    from ptxconf.oracle import banks
    from ptxconf.oracle.canonical import SmemQuery
    from ptxconf.oracle.descriptor import descriptor_format
    from ptxconf.oracle.domain import smem_answer

    q = SmemQuery(dtype, major, swizzle, mn, k, lbo, sbo, base_offset, base_offset_field=field)
    out = smem_answer(spec, q)
    granule = 1 << descriptor_format(spec).field("leading_byte_offset").encode_shift_bits
    notes = [f"warning: {w['code']} - {w['message']}" for w in out["warnings"]]
    title = (f"{major}-major {swizzle} {dtype} {mn}x{k}: LBO {lbo} B, SBO {sbo} B"
             + (f", start +{base_offset} B" if base_offset else ""))
    return smem_grid(title, out["offsets"], units=out["units"], color_by=color_by,
                     chunk_bytes=granule, bank_bytes=banks.BANK_BYTES, banks=banks.BANKS,
                     notes=notes)


#: The symbols of the read map's marks, and what they mean.
ALIASED, OUTSIDE = "*", "!"


def read_map_picture(spec: Spec, op: Operand, desc: Descriptor, color_by: str, *,
                     tile_base: int | None = None, smem_bytes: int | None = None) -> Grid:
    """What the tensor core reads with a descriptor for an operand (the oracle's read map, as
    explain judges it): (mn, k) cells holding absolute shared-memory byte addresses, marked
    ALIASED where two elements share an address and OUTSIDE past [tile_base, tile_base +
    smem_bytes) (shared by show and explain)."""
    from ptxconf.oracle import banks
    from ptxconf.oracle.explain.readmap import read_map

    rm = read_map(spec, op, desc)
    g = smem_grid(f"{desc.value:#018x}: {op.describe()}", rm.addresses.tolist(), units="bytes",
                  color_by=color_by, chunk_bytes=16, bank_bytes=banks.BANK_BYTES,
                  banks=banks.BANKS, origin="at their absolute shared-memory addresses",
                  notes=("cells: the byte address the tensor core reads each (mn, k) element "
                         "at",))
    return _marked(g, rm.addresses, op.elem_bytes, tile_base, smem_bytes)


def _marked(g: Grid, addr: Any, size: int, tile_base: int | None, smem_bytes: int | None,
            aliased: str = "two elements read at one address") -> Grid:
    """`g` with its cells marked ALIASED (two elements at one address) or OUTSIDE the allocation
    [tile_base, tile_base + smem_bytes), and the marks' legend."""
    from collections import Counter

    counts = Counter(addr.ravel().tolist())
    marks = {ALIASED: aliased}
    span = None if smem_bytes is None or tile_base is None else (tile_base, tile_base + smem_bytes)
    if span is not None:
        marks[OUTSIDE] = f"outside the allocation [{span[0]:#x}, {span[1]:#x})"
    cells = []
    for i, row in enumerate(g.cells):
        line = []
        for j, c in enumerate(row):
            x = int(addr[i, j])
            out = span is not None and (x < span[0] or x + size > span[1])
            mark = OUTSIDE if out else ALIASED if counts[x] > 1 else ""
            line.append(Cell(c.text, c.group, bool(mark), mark))
        cells.append(tuple(line))
    return replace(g, cells=tuple(cells), marks=tuple(marks.items()))


def layout_picture(spec: Spec, title: str, addresses: Any, elem_bytes: int, color_by: str) -> Grid:
    """A layout's own addresses (absolute bytes, [mn, k]) as a picture, the aliased ones marked:
    what explain draws for a layout no descriptor reads."""
    from ptxconf.oracle import banks

    g = smem_grid(title, addresses.tolist(), units="bytes", color_by=color_by, chunk_bytes=16,
                  bank_bytes=banks.BANK_BYTES, banks=banks.BANKS,
                  origin="at their absolute shared-memory addresses",
                  notes=("cells: the byte address the layout puts each (mn, k) element at",))
    return _marked(g, addresses, elem_bytes, None, None, "two elements at one address")


def _fragment(spec: Spec, args: argparse.Namespace) -> Grid:
    from ptxconf.oracle.fragments import fragment_map

    fmap = fragment_map(args.instr, args.operand, spec)
    prov = fmap.provenance
    note = (f"{prov.get('status', '')} from {prov.get('fragment', '')}: "
            f"(thread, value) -> element {prov.get('layout', '')}")
    if prov.get("hypothesis"):
        note += f" (hypothesis {prov['hypothesis']})"
    title = f"{args.instr} operand {args.operand}"
    entries = [list(e) for e in fmap.entries]
    if args.by == "thread":
        return fragment_owner_grid(f"{title}: the {fmap.rows}x{fmap.cols} tile by owner", entries,
                                   fmap.rows, fmap.cols, elems_per_register=fmap.elems_per_register,
                                   threads=args.threads, axes=("m", "k" if args.operand == "A" else "n"),
                                   notes=(note,))
    threads = args.threads
    if threads is None:
        threads = [t for t in (*range(8), 32, 64, 96) if any(e[0] == t for e in fmap.entries)]
    return fragment_grid(title, entries, threads=threads, notes=(note,))


def _descriptor(spec: Spec, args: argparse.Namespace) -> int:
    from ptxconf.oracle.descriptor import descriptor_format
    from ptxconf.oracle.explain.operand import resolve
    from ptxconf.oracle.explain.readmap import Descriptor

    fields = descriptor_format(spec).decode(args.value)
    print(f"descriptor {args.value:#018x}")
    for name, value in fields.items():
        print(f"  {name:24} {value}")
    named = (args.instr, args.operand, args.form, args.dtype, args.major, args.mn, args.k)
    if all(w is None for w in named):
        return 0
    op = resolve(spec, instr=args.instr, operand=args.operand, form=args.form, dtype=args.dtype,
                 major=args.major, mn=args.mn, k=args.k)
    _emit(read_map_picture(spec, op, Descriptor.decode(spec, args.value), args.color_by), args)
    return 0


def cmd_show(args: argparse.Namespace, spec: Spec) -> int:
    """Draw one answer."""
    if args.show_cmd in ("ldmatrix", "stmatrix"):
        from ptxconf.app.show_ldmatrix import cmd
        return cmd(args, spec)
    if args.show_cmd == "smem-offsets":
        _emit(smem_picture(spec, args.dtype, args.major, args.swizzle, args.mn, args.k, args.lbo,
                           args.sbo, args.base_offset, args.base_offset_field, args.color_by),
              args)
        return 0
    if args.show_cmd == "fragment":
        _emit(_fragment(spec, args), args)
        return 0
    return _descriptor(spec, args)


__all__ = ["ALIASED", "OUTSIDE", "add_parser", "cmd_show", "layout_picture", "read_map_picture",
           "smem_picture"]
