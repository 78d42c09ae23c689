"""`ptxconf explain ...`: paste a descriptor or a CuTe layout from a kernel, get what the tensor
core reads, what is wrong with it, and the descriptor meant (ptxconf.oracle.explain).

* `explain descriptor VALUE` : every field; the addresses the tensor core reads (the oracle,
                               with the base-offset field as the H100 uses it); whether they
                               make an operand (injective, inside --smem-bytes, the swizzle
                               pattern at the tile base, banks per core matrix); the picture;
                               each classic mistake with its rule, spec rows and evidence; the
                               corrected descriptor
* `explain layout TEXT`      : a CuTe smem layout, as CUTLASS or CuTe DSL prints it ->
                               major-ness, swizzle, LBO, SBO and the descriptor(s) for
                               --start-address, checked element by element; or why no
                               descriptor reads it (the domain rule it breaks, or the nearby
                               layouts one reads)

Both say what they assumed where the options say nothing (the tile base, the major-ness, the
start, the swizzle unit, one operand) and, where another value changes the verdict, the
verdict with it (ptxconf.oracle.explain.assumed). Text and pictures fit the terminal
(ptxconf.app.terminal; --full prints every cell of a picture). Addresses are absolute
shared-memory byte addresses throughout, the picture's cells included.

Exit status: 0 a valid operand (a layout a descriptor reads), 1 a mistake named (no
descriptor), 2 bad input.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ptxconf.app.command_io import emit
from ptxconf.app.draw import svg_file
from ptxconf.app.options import int_arg, operand_options, picture_options, spec_options
from ptxconf.app.terminal import command, print_grid, wrap

if TYPE_CHECKING:
    from ptxconf.app.draw import Grid
    from ptxconf.oracle.explain.assumed import Assumption
    from ptxconf.oracle.explain.diagnose import Explanation
    from ptxconf.oracle.explain.operand import Operand
    from ptxconf.oracle.explain.synthesize import Refusal, Synthesis
    from ptxconf.oracle.spec import Spec


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
    operand_options(p)
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
                    "allocation) begins (default: assumed, the start rounded down to 128 B)")
    picture_options(de, svg_help="write the read map's picture as SVG here")
    de.add_argument("--no-grid", action="store_true", help="leave the picture out")
    la = es.add_parser("layout", help="synthesise the descriptor of a CuTe shared-memory layout")
    la.add_argument("layout", help='as CuTe prints it, e.g. "Sw<3,4,3> o smem_ptr[16b](unset) o '
                    '((_8,_8),_64):((_64,_512),_1)" or "Swizzle<3,4,3> o 0 o ((8,8),64):((64,512),1)"')
    _operand_args(la)
    la.add_argument("--start-address", type=int_arg, help="the tile's shared-memory address, "
                    "bytes (default: assumed 0)")
    picture_options(la, svg_help="write the first operand's read map as SVG here")
    la.add_argument("--no-grid", action="store_true", help="leave the picture out")
    la.add_argument("--swizzle-unit", choices=("bytes", "elements"),
                    help="what the layout's swizzle acts on: bytes (CuTe's smem pointer "
                    "swizzle) or the element offsets as written (default: what the print "
                    "says, e.g. smem_ptr[16b](unset): bytes; else assumed bytes)")
    from ptxconf.app.explain_tma import add_parser as add_tma_parser

    add_tma_parser(es)


# --- the picture -------------------------------------------------------------------------------


def _picture(spec: Spec, args: argparse.Namespace, grid: Grid) -> None:
    """Print the picture (unless --no-grid) and write its SVG (--svg)."""
    if not args.no_grid:
        print_grid(grid, full=args.full)
    if args.svg is not None:
        args.svg.write_text(svg_file(grid, full=args.full), encoding="utf-8")
        print(f"svg: {args.svg}")


def _assumed(assumed: tuple[Assumption, ...]) -> None:
    for a in assumed:
        print(wrap(f"assumed: {a.said}; {a.option} says otherwise"))
        for o in a.otherwise:
            print(wrap(f"with {o.options} ({o.why}): {o.verdict}", "  "))


# --- explain descriptor ------------------------------------------------------------------------


def _check_lines(spec: Spec, e: Explanation) -> list[tuple[str, str]]:
    from ptxconf.oracle.explain.readmap import base_rule

    a, ctx, op, d = e.analysis, e.context, e.operand, e.desc
    n = op.mn * op.k
    out = []
    if a.alias is None:  # injective (readmap.analyse sets the two together)
        out.append(("injective", f"yes: {n} elements at {n} addresses"))
    else:
        p, q, x = a.alias
        out.append(("injective", f"NO: (mn {p[0]}, k {p[1]}) and (mn {q[0]}, k {q[1]}) both at "
                    f"{x:#x}"))
    where = f"[{a.span[0]:#x}, {a.span[1]:#x}) ({a.span_bytes} B)"
    if ctx.smem_bytes is None:
        out.append(("allocation", f"reads {where}; no --smem-bytes given"))
    elif a.outside:
        out.append(("allocation", f"NO: reads {where}; {a.outside} elements outside "
                    f"[{ctx.tile_base:#x}, {ctx.tile_base + ctx.smem_bytes:#x})"))
    else:
        out.append(("allocation", f"yes: reads {where} inside [{ctx.tile_base:#x}, "
                    f"{ctx.tile_base + ctx.smem_bytes:#x})"))
    rule = base_rule(spec, d.swizzle)
    if rule is None:
        out.append(("phase", "no swizzle"))
    else:
        head = (f"the {d.swizzle} pattern starts {a.hw_phase} B into its {rule.repeat_bytes}-B "
                "repeat")
        if a.phase_ok:
            out.append(("phase", f"yes: {head}, as the tile's (at {ctx.tile_base:#x})"))
        else:
            out.append(("phase", f"NO: {head} (start - base_offset x 128), the tile's (at "
                        f"{ctx.tile_base:#x}) {a.want_phase} B"))
    b = e.banks
    if b.get("worst_degree", 0) <= 1:
        out.append(("banks", f"conflict-free: the 8 16-byte row reads of each of "
                    f"{b.get('core_matrices', 0)} core matrices hit distinct banks"))
    else:
        out.append(("banks", f"{b['conflicted']} of {b['core_matrices']} core matrices "
                    f"conflict, worst {b['worst_degree']}-way: {b.get('worst', '')}"))
    for s in a.suspects:
        out.append(("ignored", f"{s.field} = {s.value}: {s.why}"))
    return out


def _print_descriptor(spec: Spec, e: Explanation, args: argparse.Namespace,
                      assumed: tuple[Assumption, ...]) -> None:
    from ptxconf.app.show import read_map_picture

    d, op = e.desc, e.operand
    print(wrap(f"descriptor {d.value:#018x}: {op.describe()}"))
    bits = d.bit_fields(spec)
    for name, value in (("start_address", f"{d.start_address:#x}"), ("lbo", f"{d.lbo} B"),
                        ("sbo", f"{d.sbo} B"), ("base_offset", str(d.base_offset)),
                        ("swizzle", d.swizzle)):
        b = bits[name]
        how = f" << {b['shift']}" if b["shift"] else ""
        print(f"  {name:14} {value:10} bits {b['bits'][0]}-{b['bits'][1]}: {b['raw']:#x}{how}")
    for note in e.notes:
        print(wrap(f"note: {note}", "  "))
    print(wrap(f"the tensor core reads {e.readmap.layout} (elements), swizzled on the byte "
               "address start + offset - (base_offset << 7) as the H100 does:"))
    for label, text in _check_lines(spec, e):
        print(wrap(f"{label:11} {text}", "  ", " " * 14))
    print(f"verdict: {e.verdict}" + (" operand" if e.verdict == "valid" else ""))
    _assumed(assumed)
    for dg in e.diagnoses:
        print(wrap(f"mistake {dg.code} ({dg.severity}): {dg.title}"))
        print(wrap(dg.message, "    "))
        print(wrap(f"rule: {dg.rule}", "    "))
        print(wrap(f"spec: {', '.join(dg.spec_rows)}", "    "))
        print(wrap(f"evidence: {', '.join(dg.evidence)}", "    "))
        if dg.fix:
            fix = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in dg.fix.items())
            print(wrap(f"fix: {fix}", "    "))
    if e.corrected is not None:
        print(wrap(f"corrected descriptor: {e.corrected.desc.text()}"))
        for alt in e.alternatives:
            print(wrap(f"also valid: {alt.desc.text()} (changes {', '.join(alt.changed)})", "  "))
        extra = "".join(f" --{flag} {v:#x}" if flag == "tile-base" else f" --{flag} {v}"
                        for flag, v in (("smem-bytes", e.context.smem_bytes),
                                        ("tile-base", args.tile_base)) if v is not None)
        print(command(f"ptxconf explain descriptor {e.corrected.desc.value:#018x} {op.cli()}"
                      f"{extra}"))
    if not args.no_grid or args.svg is not None:
        ctx = e.context
        _picture(spec, args, read_map_picture(spec, op, d, args.color_by,
                                              tile_base=ctx.tile_base,
                                              smem_bytes=ctx.smem_bytes))


def _descriptor(args: argparse.Namespace, spec: Spec) -> int:
    from ptxconf.app.providers import gpu_case_ids
    from ptxconf.app.show import read_map_picture
    from ptxconf.oracle.explain.assumed import descriptor_assumptions
    from ptxconf.oracle.explain.diagnose import explain_descriptor
    from ptxconf.oracle.explain.operand import resolve

    op = resolve(spec, instr=args.instr, operand=args.operand, form=args.form, dtype=args.dtype,
                 major=args.major, mn=args.mn, k=args.k)
    ids = gpu_case_ids(spec)
    e = explain_descriptor(spec, op, args.value, tile_base=args.tile_base,
                           smem_bytes=args.smem_bytes, evidence_ids=ids)
    assumed = descriptor_assumptions(spec, op, args.value, e,
                                     tile_base_given=args.tile_base is not None,
                                     major_given=args.major is not None, evidence_ids=ids)
    if args.json:
        out = e.as_dict(spec)
        out["assumed"] = [a.as_dict() for a in assumed]
        if args.svg is not None:
            grid = read_map_picture(spec, op, e.desc, args.color_by, tile_base=e.context.tile_base,
                                    smem_bytes=e.context.smem_bytes)
            args.svg.write_text(svg_file(grid, full=args.full), encoding="utf-8")
            out["svg"] = str(args.svg)
        emit(args, out, "")
    else:
        _print_descriptor(spec, e, args, assumed)
    return 0 if e.verdict == "valid" else 1


# --- explain layout ----------------------------------------------------------------------------


def _layout_operand(args: argparse.Namespace, spec: Spec) -> Operand:
    """The operand the layout is read as: --instr's, or the flags' (the dtype a CuTe DSL print
    names standing in for --dtype, the extents the layout's)."""
    from ptxconf.oracle.explain.operand import ExplainError, resolve
    from ptxconf.oracle.explain.printed import parse_layout, printed_dtype, widths_hint

    mn, k, dtype = args.mn, args.k, args.dtype
    if not args.instr and dtype is None:
        dtype = printed_dtype(spec, args.layout)
        if dtype is None:
            raise ExplainError("EXPLAIN-OPERAND", "give --instr and --operand, or --dtype"
                               + widths_hint(spec, args.layout))
    if not args.instr and (mn is None or k is None):
        ul = parse_layout(spec, args.layout, dtype, args.swizzle_unit)
        mn, k = (ul.mn if mn is None else mn), (ul.k if k is None else k)
    return resolve(spec, instr=args.instr, operand=args.operand, form=args.form, dtype=dtype,
                   major=args.major or "K", mn=mn, k=k)


def _print_refusal(got: Refusal) -> None:
    ul = got.layout
    print(f"  tile {ul.mn}x{ul.k} (mn x k); no descriptor reads it:")
    for r in got.reasons:
        print(wrap(f"- {r}", "    ", "      "))
    if got.suggestions:
        print("nearby layouts a descriptor reads:")
        for s in got.suggestions:
            print(wrap(f"{s['layout']} (--swizzle-unit {s['swizzle_unit']}: {s['why']}): "
                       f"{s['major']}-major {s['swizzle']}, LBO {s['lbo']} B, SBO {s['sbo']} "
                       f"B -> {s['descriptor']}", "  "))


def _print_synthesis(spec: Spec, got: Synthesis) -> None:
    from ptxconf.oracle.explain.readmap import linear

    ul, op, d = got.layout, got.operand, got.desc
    nb = len(got.blocks)
    print(wrap(f"tile {ul.mn}x{ul.k} (mn x k) = {nb} operand{'s' if nb > 1 else ''} of "
               f"{op.mn}x{op.k}: {op.describe()}", "  ", "      "))
    what = "imm-trans-" + op.name.lower() if op.name else "imm-trans"
    lin = linear(spec, op, d.swizzle)
    unused = {n: "" if lin.uses(n) else " (not used)" for n in ("lbo", "sbo")}
    print(wrap(f"wgmma reads it as: {op.major}-major ({what} = {op.imm_trans}), {d.swizzle} "
               f"swizzle, LBO {d.lbo} B{unused['lbo']}, SBO {d.sbo} B{unused['sbo']}, "
               f"base_offset {d.base_offset}"))
    print(f"descriptor at start {got.start:#x}: {d.value:#018x}")
    for b in got.blocks[1:]:
        print(f"  block (mn {b.origin[0]}, k {b.origin[1]}): {b.desc.value:#018x} (start "
              f"{b.desc.start_address:#x})")
    steps = got.block_steps()
    if steps["k_block"] is not None:
        print(f"  each k-block: start + {steps['k_block']} B")
    for m, sw in got.others:
        print(f"  (read the same by {m}-major {sw} too)")


def _layout(args: argparse.Namespace, spec: Spec) -> int:
    from ptxconf.oracle import facts
    from ptxconf.oracle.explain.assumed import layout_assumptions
    from ptxconf.oracle.explain.printed import ASSUMED, GIVEN
    from ptxconf.oracle.explain.synthesize import Synthesis, synthesize

    op = _layout_operand(args, spec)
    majors = (args.major,) if args.major else tuple(
        m for m in ("K", "MN") if m == "K" or facts.takes_imm_trans(spec, op.dtype))
    start = 0 if args.start_address is None else args.start_address
    got = synthesize(spec, args.layout, op, majors=majors, start=start,
                     swizzle_unit=args.swizzle_unit)
    assumed = layout_assumptions(spec, args.layout, op, got, majors=majors, start=start,
                                 start_given=args.start_address is not None,
                                 instr_given=bool(args.instr))
    ok = isinstance(got, Synthesis)
    ul = got.layout
    if args.json:
        emit(args, {**got.as_dict(), "assumed": [a.as_dict() for a in assumed],
                    "notes": list(ul.notes)}, "")
        return 0 if ok else 1
    said = "" if ul.unit_source in (ASSUMED, GIVEN) else f", as {ul.unit_source} says"
    print(wrap(f"layout {ul.text} ({ul.dtype}; its swizzle read on {ul.swizzle_unit}{said}: "
               f"{ul.swizzle_text()} on byte addresses)"))
    for note in ul.notes:
        print(wrap(f"note: {note}", "  "))
    if not isinstance(got, Synthesis):
        _print_refusal(got)
        _assumed(assumed)
        if not args.no_grid or args.svg is not None:
            from ptxconf.app.show import layout_picture
            from ptxconf.oracle.canonical import BITS_PER_BYTE

            _picture(spec, args, layout_picture(
                spec, f"the layout's own addresses at start {start:#x} (no descriptor reads it)",
                ul.addresses(start), ul.bits // BITS_PER_BYTE, args.color_by))
        return 1
    _print_synthesis(spec, got)
    _assumed(assumed)
    if not args.no_grid or args.svg is not None:
        from ptxconf.app.show import read_map_picture

        _picture(spec, args, read_map_picture(spec, got.operand, got.desc, args.color_by))
    proof = got.as_dict()["proof"]
    print(wrap(f"checked: the oracle's read map of each descriptor equals the layout on all "
               f"{got.checked} elements (bytes; swizzle on byte addresses, as silicon showed); "
               f"CuTe's {atom(got.operand.major, got.desc.swizzle)} tile is proved read exactly "
               f"for every start aligned to the swizzle repeat: {proof}"))
    return 0


def atom(major: str, swizzle: str) -> str:
    """K_SW128 and so on."""
    from ptxconf.oracle.records import atom_name

    return atom_name(major, swizzle)


def cmd_explain(args: argparse.Namespace, spec: Spec) -> int:
    """Explain one descriptor or layout."""
    if args.explain_cmd == "descriptor":
        return _descriptor(args, spec)
    if args.explain_cmd == "tma":
        from ptxconf.app.explain_tma import cmd_explain_tma

        return cmd_explain_tma(args, spec)
    return _layout(args, spec)


__all__ = ["add_parser", "cmd_explain"]
