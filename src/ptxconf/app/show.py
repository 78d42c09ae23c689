"""`ptxconf show ...`: the oracle's answers as pictures (terminal, or SVG with --svg FILE).

* `show smem-offsets` : a shared-memory operand as (mn, k) cells, coloured by chunk or bank
* `show fragment`     : a wgmma fragment as thread x register
* `show descriptor`   : a descriptor's fields, and with --dtype/--major/--mn/--k the operand
                        it describes
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ptxconf.app.draw import Grid, fragment_grid, print_grid, smem_grid, to_svg
from ptxconf.app.options import int_arg, spec_options

if TYPE_CHECKING:
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
    so.add_argument("--color-by", choices=("chunk", "bank"), default="chunk")
    so.add_argument("--svg", type=Path, help="write the picture as SVG here")

    fr = ss.add_parser("fragment", help="a wgmma fragment as thread x register")
    spec_options(fr)
    fr.add_argument("--instr", required=True)
    fr.add_argument("--operand", choices=("A", "D"), required=True)
    fr.add_argument("--threads", type=_threads, default=None,
                    help="threads to draw (default: 0-7, 32, 64, 96; 'all' is 0-127)")
    fr.add_argument("--svg", type=Path)

    de = ss.add_parser("descriptor", help="a descriptor's fields, and the operand it describes")
    de.add_argument("value", type=int_arg)
    spec_options(de)
    de.add_argument("--dtype")
    de.add_argument("--major", choices=("K", "MN"))
    de.add_argument("--mn", type=int_arg)
    de.add_argument("--k", type=int_arg)
    de.add_argument("--color-by", choices=("chunk", "bank"), default="chunk")
    de.add_argument("--svg", type=Path)


def _emit(grid: Grid, svg: Path | None) -> None:
    print_grid(grid)
    if svg is not None:
        svg.write_text(to_svg(grid), encoding="utf-8")
        print(f"svg: {svg}")


def smem_picture(spec: Spec, dtype: str, major: str, swizzle: str, mn: int, k: int, lbo: int,
                 sbo: int, base_offset: int, field: int, color_by: str) -> Grid:
    """The oracle's read map of one operand as a picture (shared by show and explain)."""
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


def cmd_show(args: argparse.Namespace, spec: Spec) -> int:
    """Draw one answer."""
    if args.show_cmd == "smem-offsets":
        _emit(smem_picture(spec, args.dtype, args.major, args.swizzle, args.mn, args.k, args.lbo,
                    args.sbo, args.base_offset, args.base_offset_field, args.color_by), args.svg)
        return 0
    if args.show_cmd == "fragment":
        from ptxconf.oracle.fragments import fragment_map

        fmap = fragment_map(args.instr, args.operand, spec)
        threads = args.threads
        if threads is None:
            threads = [t for t in (*range(8), 32, 64, 96) if any(e[0] == t for e in fmap.entries)]
        prov = fmap.provenance
        note = (f"{prov.get('status', '')} from {prov.get('fragment', '')}: "
                f"(thread, value) -> element {prov.get('layout', '')}")
        if prov.get("hypothesis"):
            note += f" (hypothesis {prov['hypothesis']})"
        grid = fragment_grid(f"{args.instr} operand {args.operand}",
                             [list(e) for e in fmap.entries], threads=threads, notes=(note,))
        _emit(grid, args.svg)
        return 0
    from ptxconf.oracle.descriptor import descriptor_format

    fields = descriptor_format(spec).decode(args.value)
    print(f"descriptor {args.value:#018x}")
    for name, value in fields.items():
        print(f"  {name:24} {value}")
    wanted = (args.dtype, args.major, args.mn, args.k)
    if any(w is None for w in wanted):
        if any(w is not None for w in wanted):
            raise ValueError("drawing the operand needs all of --dtype, --major, --mn, --k")
        return 0
    grid = smem_picture(spec, args.dtype, args.major, str(fields["swizzle"]), args.mn, args.k,
                 int(str(fields["lbo_bytes"])), int(str(fields["sbo_bytes"])),
                 0, int(str(fields.get("base_offset", 0))), args.color_by)
    _emit(grid, args.svg)
    return 0


__all__ = ["add_parser", "cmd_show", "smem_picture"]
