"""`ptxconf explain tma`: does a tile TMA wrote pair with a wgmma descriptor?

    ptxconf explain tma --swizzle 128B --dtype bf16 --box 64x64 [--base 0x400] [--major K]
        --descriptor 0x4000004000010040

The box (CUtensorMapSwizzle mode, element type, boxDim rows x cols with cols the inner
dimension, shared-memory destination) is written as ptxconf.oracle.tma models it; the
descriptor reads the box as one operand (K-major: mn = rows, k = cols; MN-major the other way
round) as ptxconf.oracle.explain.readmap models it. The answer: whether every element is read
where TMA put it; if not, the mistake named (ptxconf.oracle.explain.tma_pair.CODES), the first
elements read elsewhere and what they hold, the descriptor that pairs (fewest fields changed)
and the tensor-map swizzle that pairs with the descriptor as given; a picture of what wgmma
finds at each (mn, k). Exit status: 0 pairs, 1 a mismatch named, 2 bad input.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ptxconf.app.command_io import emit
from ptxconf.app.draw import Cell, Grid, svg_file
from ptxconf.app.options import int_arg, picture_options, spec_options
from ptxconf.app.terminal import command, print_grid, wrap

if TYPE_CHECKING:
    from ptxconf.oracle.explain.tma_pair import TmaExplanation
    from ptxconf.oracle.spec import Spec

#: Elements read elsewhere listed in the text (all are in --json's first 16 and the picture).
SHOWN = 4


def box_arg(text: str) -> tuple[int, int]:
    """ROWSxCOLS, e.g. 64x64 (cols: the inner, contiguous dimension)."""
    rows, sep, cols = text.lower().partition("x")
    value = (int(rows), int(cols)) if rows.isdecimal() and cols.isdecimal() else (0, 0)
    if not sep or min(value) <= 0:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLS (positive), got {text!r}")
    return value


def add_parser(es: argparse._SubParsersAction[Any]) -> None:
    """The `explain tma` subcommand."""
    p = es.add_parser("tma", help="whether a tile TMA wrote (cp.async.bulk.tensor with a tensor "
                      "map) pairs with a wgmma descriptor, and the fix if not")
    p.add_argument("--swizzle", required=True, help="the tensor map's swizzle mode: none, 32B, "
                   "64B or 128B (CU_TENSOR_MAP_SWIZZLE_*)")
    p.add_argument("--dtype", required=True, help="element type")
    p.add_argument("--box", type=box_arg, required=True, help="boxDim as ROWSxCOLS, COLS the "
                   "inner (contiguous) dimension, e.g. 64x64")
    p.add_argument("--base", type=int_arg, help="the box's shared-memory address, bytes "
                   "(default: assumed on every swizzle repeat, 0)")
    p.add_argument("--major", choices=("K", "MN"), default="K", help="which operand dimension "
                   "the box's inner one is: K (default; mn = rows, k = cols) or MN")
    p.add_argument("--descriptor", type=int_arg, required=True, help="the wgmma descriptor")
    spec_options(p)
    p.add_argument("--json", action="store_true", help="print everything as one JSON object")
    picture_options(p, colour=False, svg_help="write what wgmma finds at each (mn, k) as SVG")
    p.add_argument("--no-grid", action="store_true", help="leave the picture out")


def picture(e: TmaExplanation) -> Grid:
    """What wgmma finds at each (mn, k): the operand element TMA put there, marked where it is
    another (`-`: an address TMA wrote no element at)."""
    found = e.pairing.found
    rows = []
    for i in range(found.shape[0]):
        row = []
        for j in range(found.shape[1]):
            a, b = int(found[i, j, 0]), int(found[i, j, 1])
            row.append(Cell("-" if a < 0 else f"{a},{b}", None, (a, b) != (i, j)))
        rows.append(tuple(row))
    return Grid(f"what wgmma finds at each (mn, k): the element TMA put at the address it reads "
                f"({e.box.describe()}; descriptor {e.desc.value:#018x})",
                tuple(str(i) for i in range(found.shape[0])),
                tuple(str(j) for j in range(found.shape[1])), tuple(rows), "mn", "k",
                notes=("cells: mn,k of the element found; '-': no element written there",),
                marks=(("*", "another element than (mn, k)"),))


def _flags(e: TmaExplanation, args: argparse.Namespace) -> str:
    b = e.box
    return (f"--swizzle {b.swizzle} --dtype {b.dtype} --box {b.rows}x{b.cols} --base "
            f"{b.base:#x}{' --major MN' if args.major == 'MN' else ''}")


def _print(e: TmaExplanation, args: argparse.Namespace, spec: Spec) -> None:
    from ptxconf.oracle import tma

    b, d, op = e.box, e.desc, e.operand
    print(wrap(f"box: {b.describe()} ({tma.enum_row(spec, b.swizzle).id}): TMA writes (row, col) "
               f"to {tma.swizzle_of(spec, b.swizzle)}({b.base:#x} + row x {b.pitch_bytes} + col x "
               f"{b.elem_bytes}) on byte addresses"))
    print(wrap(f"descriptor {d.value:#018x}: {d.swizzle} swizzle, start {d.start_address:#x}, LBO "
               f"{d.lbo} B, SBO {d.sbo} B, base_offset {d.base_offset}; read as {op.describe()} "
               f"({'mn = rows, k = cols' if op.major == 'K' else 'mn = cols, k = rows'})"))
    print(f"verdict: {e.verdict}")
    if e.code is not None:
        print(wrap(f"mistake {e.code}: {e.message}"))
        for (i, j), f, a in e.pairing.moved()[:SHOWN]:
            held = "no element" if f is None else f"(mn {f[0]}, k {f[1]})"
            print(wrap(f"(mn {i}, k {j}) is read at {a:#x}, which holds {held}", "  "))
    if e.corrected is not None:
        print(wrap(f"corrected descriptor: {e.corrected.text()} (changes "
                   f"{', '.join(e.corrected.changed(d))})"))
        print(command(f"ptxconf explain tma {_flags(e, args)} --descriptor "
                      f"{e.corrected.value:#018x}"))
    elif e.code is not None:
        print("corrected descriptor: none nearby pairs (start, mode, LBO/SBO, base-offset field "
              "each the box's or yours)")
    if e.code is not None:
        fix = ", ".join(e.tensor_maps) or "none"
        print(wrap(f"tensor-map swizzle that pairs with this descriptor as given: {fix}"))
    print(wrap(f"evidence: {', '.join(e.evidence)}"))
    if args.base is None:
        print(wrap("assumed: the box is at 0x0 (on every swizzle repeat); --base says otherwise"))
    if not args.no_grid:
        print_grid(picture(e), full=args.full)


def cmd_explain_tma(args: argparse.Namespace, spec: Spec) -> int:
    """Pair the box with the descriptor."""
    from ptxconf.oracle.explain.tma_pair import explain_tma

    rows, cols = args.box
    e = explain_tma(spec, swizzle=args.swizzle, dtype=args.dtype, rows=rows, cols=cols,
                    base=0 if args.base is None else args.base, major=args.major,
                    value=args.descriptor)
    if args.svg is not None:
        args.svg.write_text(svg_file(picture(e), full=args.full), encoding="utf-8")
    if args.json:
        out = e.as_dict()
        out["assumed"] = [] if args.base is not None else [
            {"what": "base", "said": "the box is at 0x0", "option": "--base"}]
        if args.svg is not None:
            out["svg"] = str(args.svg)
        emit(args, out, "")
    else:
        _print(e, args, spec)
        if args.svg is not None:
            print(f"svg: {args.svg}")
    return 0 if e.verdict == "pairs" else 1


__all__ = ["add_parser", "box_arg", "cmd_explain_tma", "picture"]
