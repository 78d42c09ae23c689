"""`ptxconf explain ...`: paste a descriptor or a CuTe layout from a kernel, get what the tensor
core reads, what is wrong with it, and the descriptor meant (ptxconf.oracle.explain).

* `explain descriptor VALUE` : every field; the addresses the tensor core reads (the oracle,
                               with the base-offset field as the H100 uses it); whether they
                               make an operand (injective, inside --smem-bytes, the swizzle
                               pattern at the tile base, banks per core matrix); the picture;
                               each classic mistake with its rule, spec rows and evidence; the
                               corrected descriptor
* `explain layout TEXT`      : a CuTe smem layout -> major-ness, swizzle, LBO, SBO and the
                               descriptor(s) for --start-address, checked element by element;
                               or why no descriptor reads it, and the nearby layouts one does

Exit status: 0 a valid operand (a layout a descriptor reads), 1 a mistake named (no
descriptor), 2 bad input.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ptxconf.app.command_io import emit
from ptxconf.app.draw import Cell, Grid, print_grid, smem_grid, to_svg
from ptxconf.app.options import int_arg, spec_options

if TYPE_CHECKING:
    from ptxconf.oracle.explain.diagnose import Explanation
    from ptxconf.oracle.spec import Spec

WIDTH = 100



def _bytes(text: str) -> int:
    """A byte count or address: 0 or more, below 2**32."""
    value = int_arg(text)
    if not 0 <= value < 1 << 32:
        raise argparse.ArgumentTypeError(f"expected bytes from 0 to 2**32 - 1, got {text!r}")
    return value


def _descriptor_value(text: str) -> int:
    """A 64-bit descriptor value."""
    value = int_arg(text)
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"expected a 64-bit descriptor (0 to 2**64 - 1), got {text!r}")
    return value


def _operand_args(p: argparse.ArgumentParser) -> None:
    spec_options(p)
    p.add_argument("--instr", help="the wgmma instruction (append :RS or give --form RS for "
                   "the register-A form)")
    p.add_argument("--operand", choices=("A", "B"))
    p.add_argument("--form", choices=("SS", "RS"))
    p.add_argument("--dtype", help="element type (with --instr: its .atype/.btype)")
    p.add_argument("--major", choices=("K", "MN"),
                   help="with --instr: MN means imm-trans = 1 (default K)")
    p.add_argument("--mn", type=int_arg)
    p.add_argument("--k", type=int_arg)
    p.add_argument("--json", action="store_true", help="print everything as one JSON object")


def add_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """The `explain` subcommands."""
    ex = sub.add_parser("explain", help="what a descriptor or a CuTe layout makes the tensor "
                        "core read, what is wrong with it, the descriptor meant")
    es = ex.add_subparsers(dest="explain_cmd", required=True)
    de = es.add_parser("descriptor", help="decode a descriptor, judge its read map, name the "
                       "mistake, give the corrected value")
    de.add_argument("value", type=_descriptor_value)
    _operand_args(de)
    de.add_argument("--smem-bytes", type=_bytes, help="the tile's allocation, bytes from the "
                    "tile base")
    de.add_argument("--tile-base", type=_bytes, help="where the tile (its swizzle pattern and "
                    "allocation) begins (default: the start rounded down to 128 B)")
    de.add_argument("--color-by", choices=("chunk", "bank"), default="chunk")
    de.add_argument("--svg", type=Path, help="write the read map's picture as SVG here")
    de.add_argument("--no-grid", action="store_true", help="leave the picture out")
    la = es.add_parser("layout", help="synthesise the descriptor of a CuTe shared-memory layout")
    la.add_argument("layout", help='e.g. "Swizzle<3,4,3> o 0 o ((8,8),64):((64,512),1)"')
    _operand_args(la)
    la.add_argument("--start-address", type=int_arg, default=0, help="the tile's shared-memory "
                    "address, bytes (default 0)")
    la.add_argument("--color-by", choices=("chunk", "bank"), default="chunk")
    la.add_argument("--svg", type=Path, help="write the first operand's read map as SVG here")
    la.add_argument("--no-grid", action="store_true", help="leave the picture out")
    la.add_argument("--swizzle-unit", choices=("bytes", "elements"), default="bytes",
                    help="what the layout's swizzle acts on: bytes (CuTe's smem pointer "
                    "swizzle; default) or the element offsets as written")


def _wrap(text: str, indent: str = "    ") -> str:
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent)


# --- explain descriptor ------------------------------------------------------------------------


def _grid(spec: Spec, e: Explanation, color_by: str) -> Grid:
    from ptxconf.oracle import banks

    rm = e.readmap
    g = smem_grid(f"{e.desc.value:#018x}: {e.operand.describe()}", rm.offsets(), units="bytes",
                  color_by=color_by, chunk_bytes=16, bank_bytes=banks.BANK_BYTES,
                  banks=banks.BANKS,
                  notes=(f"cells: bytes from the start {e.desc.start_address:#x}; marked: two "
                         "elements at one address, or outside the allocation",))
    addr = rm.addresses
    flat = addr.ravel().tolist()
    counts: dict[int, int] = {}
    for x in flat:
        counts[x] = counts.get(x, 0) + 1
    size = e.operand.elem_bytes
    ctx = e.context
    cells = []
    for i, row in enumerate(g.cells):
        line = []
        for j, c in enumerate(row):
            x = int(addr[i, j])
            out = ctx.smem_bytes is not None and (
                x < ctx.tile_base or x + size > ctx.tile_base + ctx.smem_bytes)
            line.append(Cell(c.text, c.group, counts[x] > 1 or out))
        cells.append(tuple(line))
    return Grid(g.title, g.rows, g.cols, tuple(cells), g.row_axis, g.col_axis, g.legend, g.notes)


def _check_lines(spec: Spec, e: Explanation) -> list[str]:
    from ptxconf.oracle.explain.readmap import base_rule

    a, ctx, op, d = e.analysis, e.context, e.operand, e.desc
    n = op.mn * op.k
    out = []
    if a.alias is None:  # injective (readmap.analyse sets the two together)
        out.append(f"  injective   yes: {n} elements at {n} addresses")
    else:
        p, q, x = a.alias
        out.append(f"  injective   NO: (mn {p[0]}, k {p[1]}) and (mn {q[0]}, k {q[1]}) both at "
                   f"{x:#x}")
    where = f"[{a.span[0]:#x}, {a.span[1]:#x}) ({a.span_bytes} B)"
    if ctx.smem_bytes is None:
        out.append(f"  allocation  reads {where}; no --smem-bytes given")
    elif a.outside:
        out.append(f"  allocation  NO: reads {where}; {a.outside} elements outside "
                   f"[{ctx.tile_base:#x}, {ctx.tile_base + ctx.smem_bytes:#x})")
    else:
        out.append(f"  allocation  yes: reads {where} inside [{ctx.tile_base:#x}, "
                   f"{ctx.tile_base + ctx.smem_bytes:#x})")
    rule = base_rule(spec, d.swizzle)
    if rule is None:
        out.append("  phase       no swizzle")
    else:
        head = (f"the {d.swizzle} pattern starts {a.hw_phase} B into its {rule.repeat_bytes}-B "
                "repeat")
        if a.phase_ok:
            out.append(f"  phase       yes: {head}, as the tile's (at {ctx.tile_base:#x})")
        else:
            out.append(f"  phase       NO: {head} (start - base_offset x 128), the tile's (at "
                       f"{ctx.tile_base:#x}) {a.want_phase} B")
    b = e.banks
    if b.get("worst_degree", 0) <= 1:
        out.append(f"  banks       conflict-free: the 8 16-byte row reads of each of "
                   f"{b.get('core_matrices', 0)} core matrices hit distinct banks")
    else:
        out.append(f"  banks       {b['conflicted']} of {b['core_matrices']} core matrices "
                   f"conflict, worst {b['worst_degree']}-way: {b.get('worst', '')}")
    for s in a.suspects:
        out.append(f"  ignored     {s.field} = {s.value}: {s.why}")
    return out


def _print_descriptor(spec: Spec, e: Explanation, args: argparse.Namespace) -> None:
    d, op = e.desc, e.operand
    print(f"descriptor {d.value:#018x}: {op.describe()}")
    bits = d.bit_fields(spec)
    for name, value in (("start_address", f"{d.start_address:#x}"), ("lbo", f"{d.lbo} B"),
                        ("sbo", f"{d.sbo} B"), ("base_offset", str(d.base_offset)),
                        ("swizzle", d.swizzle)):
        b = bits[name]
        how = f" << {b['shift']}" if b["shift"] else ""
        print(f"  {name:14} {value:10} bits {b['bits'][0]}-{b['bits'][1]}: {b['raw']:#x}{how}")
    for note in e.notes:
        print(_wrap(f"note: {note}", "  "))
    print(_wrap(f"the tensor core reads {e.readmap.layout} (elements), swizzled on the byte "
                "address start + offset - (base_offset << 7) as the H100 does:", ""))
    print("\n".join(_check_lines(spec, e)))
    print(f"verdict: {e.verdict}" + (" operand" if e.verdict == "valid" else ""))
    for dg in e.diagnoses:
        print(f"mistake {dg.code} ({dg.severity}): {dg.title}")
        print(_wrap(dg.message))
        print(_wrap(f"rule: {dg.rule}"))
        print(_wrap(f"spec: {', '.join(dg.spec_rows)}"))
        print(_wrap(f"evidence: {', '.join(dg.evidence)}"))
        if dg.fix:
            fix = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in dg.fix.items())
            print(_wrap(f"fix: {fix}"))
    if e.corrected is not None:
        print(f"corrected descriptor: {e.corrected.desc.text()}")
        for alt in e.alternatives:
            print(f"  also valid: {alt.desc.text()} (changes {', '.join(alt.changed)})")
        extra = "".join(f" --{flag} {v:#x}" if flag == "tile-base" else f" --{flag} {v}"
                        for flag, v in (("smem-bytes", e.context.smem_bytes),
                                        ("tile-base", args.tile_base)) if v is not None)
        print(f"  ptxconf explain descriptor {e.corrected.desc.value:#018x} {op.cli()}{extra}")
    if not args.no_grid:
        print_grid(_grid(spec, e, args.color_by))
    if args.svg is not None:
        args.svg.write_text(to_svg(_grid(spec, e, args.color_by)), encoding="utf-8")
        print(f"svg: {args.svg}")


def _descriptor(args: argparse.Namespace, spec: Spec) -> int:
    from ptxconf.app.providers import gpu_case_ids
    from ptxconf.oracle.explain.diagnose import explain_descriptor
    from ptxconf.oracle.explain.operand import resolve

    op = resolve(spec, instr=args.instr, operand=args.operand, form=args.form, dtype=args.dtype,
                 major=args.major, mn=args.mn, k=args.k)
    e = explain_descriptor(spec, op, args.value, tile_base=args.tile_base,
                           smem_bytes=args.smem_bytes, evidence_ids=gpu_case_ids(spec))
    if args.json:
        out = e.as_dict(spec)
        if args.svg is not None:
            args.svg.write_text(to_svg(_grid(spec, e, args.color_by)), encoding="utf-8")
            out["svg"] = str(args.svg)
        emit(args, out, "")
    else:
        _print_descriptor(spec, e, args)
    return 0 if e.verdict == "valid" else 1


# --- explain layout ----------------------------------------------------------------------------


def _layout(args: argparse.Namespace, spec: Spec) -> int:
    from ptxconf.oracle import facts
    from ptxconf.oracle.explain.operand import ExplainError, resolve
    from ptxconf.oracle.explain.readmap import linear
    from ptxconf.oracle.explain.synthesize import Synthesis, parse_layout, synthesize

    mn, k = args.mn, args.k
    if not args.instr and (mn is None or k is None):
        if args.dtype is None:
            raise ExplainError("EXPLAIN-OPERAND", "give --instr and --operand, or --dtype")
        ul = parse_layout(spec, args.layout, args.dtype, args.swizzle_unit)
        mn, k = (ul.mn if mn is None else mn), (ul.k if k is None else k)
    op = resolve(spec, instr=args.instr, operand=args.operand, form=args.form, dtype=args.dtype,
                 major=args.major or "K", mn=mn, k=k)
    majors = (args.major,) if args.major else tuple(
        m for m in ("K", "MN") if m == "K" or facts.takes_imm_trans(spec, op.dtype))
    got = synthesize(spec, args.layout, op, majors=majors, start=args.start_address,
                     swizzle_unit=args.swizzle_unit)
    if args.json:
        emit(args, got.as_dict(), "")
        return 0 if isinstance(got, Synthesis) else 1
    ul = got.layout
    print(f"layout {ul.text} ({ul.dtype}; its swizzle read on {ul.swizzle_unit}: "
          f"{ul.swizzle_text()} on byte addresses)")
    if not isinstance(got, Synthesis):
        print(f"  tile {ul.mn}x{ul.k} (mn x k); no descriptor reads it:")
        for r in got.reasons:
            print(_wrap(f"- {r}", "    "))
        if got.suggestions:
            print("nearby layouts a descriptor reads:")
            for s in got.suggestions:
                print(_wrap(f"{s['layout']} (--swizzle-unit {s['swizzle_unit']}: {s['why']}): "
                            f"{s['major']}-major {s['swizzle']}, LBO {s['lbo']} B, SBO {s['sbo']} "
                            f"B -> {s['descriptor']}", "  "))
        return 1
    op, d = got.operand, got.desc
    nb = len(got.blocks)
    print(f"  tile {ul.mn}x{ul.k} (mn x k) = {nb} operand{'s' if nb > 1 else ''} of "
          f"{op.mn}x{op.k}: {op.describe()}")
    what = "imm-trans-" + op.name.lower() if op.name else "imm-trans"
    lin = linear(spec, op, d.swizzle)
    unused = {n: "" if lin.uses(n) else " (not used)" for n in ("lbo", "sbo")}
    print(f"wgmma reads it as: {op.major}-major ({what} = {op.imm_trans}), {d.swizzle} swizzle, "
          f"LBO {d.lbo} B{unused['lbo']}, SBO {d.sbo} B{unused['sbo']}, base_offset "
          f"{d.base_offset}")
    print(f"descriptor at start {got.start:#x}: {d.value:#018x}")
    steps = got.block_steps()
    for b in got.blocks[1:]:
        print(f"  block (mn {b.origin[0]}, k {b.origin[1]}): {b.desc.value:#018x} (start "
              f"{b.desc.start_address:#x})")
    if steps["k_block"] is not None:
        print(f"  each k-block: start + {steps['k_block']} B")
    for m, sw in got.others:
        print(f"  (read the same by {m}-major {sw} too)")
    if not args.no_grid or args.svg is not None:
        from ptxconf.app.show import smem_picture

        grid = smem_picture(spec, op.dtype, op.major, d.swizzle, op.mn, op.k, d.lbo, d.sbo, 0,
                            0, args.color_by)
        if not args.no_grid:
            print_grid(grid)
        if args.svg is not None:
            args.svg.write_text(to_svg(grid), encoding="utf-8")
            print(f"svg: {args.svg}")
    proof = got.as_dict()["proof"]
    print(_wrap(f"checked: the oracle's read map of each descriptor equals the layout on all "
                f"{got.checked} elements (bytes; swizzle on byte addresses, as silicon showed); "
                f"CuTe's {atom(op.major, d.swizzle)} tile is proved read exactly for every start "
                f"aligned to the swizzle repeat: {proof}", ""))
    return 0


def atom(major: str, swizzle: str) -> str:
    """K_SW128 and so on."""
    from ptxconf.oracle.records import atom_name

    return atom_name(major, swizzle)


def cmd_explain(args: argparse.Namespace, spec: Spec) -> int:
    """Explain one descriptor or layout."""
    if args.explain_cmd == "descriptor":
        return _descriptor(args, spec)
    return _layout(args, spec)


__all__ = ["add_parser", "cmd_explain"]
