"""Register-fragment checks: counts add up, match the shape, and tie to the instruction table;
the instruction table's operands (imm-trans, imm-scale, where A and B live); the element
types' encodings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from ptxconf.core.results import Status
from ptxconf.oracle import facts
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import (
    CuteLayout,
    ElementType,
    InstructionOperand,
    InstructionType,
    OperandStorage,
    RegisterFragment,
    count_expr,
)
from ptxconf.oracle.spec import Spec

#: A section title's shape: m64nNk16.
_SHAPE = re.compile(r"m(?P<m>\d+)nNk(?P<k>\d+)")
#: A register type: f16x2 (two 16-bit lanes), b32, f32, s32.
_REGISTER_TYPE = re.compile(r"[a-z]+(?P<bits>\d+)(?:x(?P<lanes>\d+))?")
#: A PTX type name that ends in its width: .s4, .f16, .bf16, .tf32 (its 32-bit container).
_WIDTH_NAME = re.compile(r"[a-z]+(?P<bits>\d+)")
#: A float type whose name states its encoding: e4m3 = 4 exponent bits, 3 mantissa bits.
_EXMY = re.compile(r"e(?P<e>\d+)m(?P<m>\d+)")


def probe_n(spec: Spec) -> tuple[int, ...]:
    """N values to try where a table states no valid-N set: every N some row states."""
    return tuple(sorted({n for r in spec.of(RegisterFragment) for n in r.valid_n_values() or ()}))


def cases(spec: Spec) -> Iterator[Case]:
    """Counts per fragment row; cross references per instruction-type row."""
    for row in spec.of(RegisterFragment):
        yield make_case("fragment.counts", row.key, partial(_counts, spec, row))
    for itype in spec.of(InstructionType):
        yield make_case("instruction.fragments", itype.key, partial(_instr, spec, itype))
    for itype in spec.of(InstructionType):
        yield make_case("instruction.operands", itype.key, partial(_operands, spec, itype))
    for op in spec.of(InstructionOperand):
        yield make_case("instruction.immediate", op.key, partial(_immediate, spec, op))
    for st in spec.of(OperandStorage):
        yield make_case("operand.storage", st.key, partial(_storage, spec, st))
    for et in spec.of(ElementType):
        yield make_case("element_type.format", et.key, partial(_format, et))


def last_index(text: str, n: int) -> int:
    """The last element index a table writes: "7", or "N/2 - 1" (W = N/2 - 1) at N."""
    head, minus, tail = text.replace(" ", "").rpartition("-")
    if not minus:
        return count_expr(text, n)
    if not tail.isdigit():
        raise ValueError(f"last index {text!r}: expected '<count> - <integer>'")
    return count_expr(head, n) - int(tail)


def _counts(spec: Spec, row: RegisterFragment) -> str:
    """registers x elements/register == elements == share of the M x (K or N) tile per thread;
    the section's shape is m<M>nNk<K>; the listed elements end at index elements - 1."""
    register_bits = facts.register_bits(spec)
    wgmma_m, threads = facts.wgmma_m(spec), facts.warpgroup_threads(spec)
    shape = _SHAPE.fullmatch(row.shape or "")
    if shape is None or row.last_index is None:
        raise fail(f"{row.key}: expected shape m<M>nNk<K> and last_index, got {row.shape!r}, "
                   f"{row.last_index!r}")
    expect_equal("M of the section's shape", int(shape["m"]), wgmma_m, source=row.key,
                 witness=f"rows of {facts.D_ATOM_ROW} (seed 004)", status=Status.DISCREPANCY)
    expect_equal("K of the section's shape", int(shape["k"]), row.k_elems, source=row.key,
                 witness="the row's k_elems")
    reg = _REGISTER_TYPE.fullmatch(row.register_type)
    if reg is None:
        raise fail(f"{row.key}: register type {row.register_type!r} does not read as "
                   ".<type><bits>[x<lanes>]")
    expect_equal(f"bits of a .{row.register_type} register",
                 int(reg["bits"]) * int(reg["lanes"] or 1), register_bits, source=row.key,
                 witness="facts.register_bits")
    _figure(spec, row)
    for t in row.types:
        expect_equal(f"elements per {register_bits}-bit register of {t}", row.elems_per_register,
                     register_bits // spec.element_bits(t), source=row.key,
                     witness=f"{register_bits} / width({t})")
    ns = row.valid_n_values() or probe_n(spec)
    atom_n = spec.get(CuteLayout, facts.D_ATOM_ROW).codomain_mn[1]
    for n in ns:
        if n % atom_n:
            raise fail(f"valid N {n} is not a multiple of {atom_n}, the N of the accumulator "
                       f"atom {facts.D_ATOM_ROW} that an M x N accumulator repeats")
        try:
            regs, elems = row.registers_for(n), row.elements_for(n)
        except ValueError as exc:
            raise fail(f"N={n}: {exc}") from None
        expect_equal(f"elements (N={n})", elems, regs * row.elems_per_register, source=row.key,
                     witness="registers x elements per register")
        try:
            last = last_index(row.last_index, n)
        except ValueError as exc:
            raise fail(f"N={n}: {exc}") from None
        expect_equal(f"elements listed (N={n})", last + 1, elems, source=row.key,
                     witness=f"a0 .. a{row.last_index} / d0 .. d({row.last_index})")
        cols = row.k_elems if row.operand == "A" else n
        expect_equal(f"elements per thread (N={n})", elems, wgmma_m * cols // threads,
                     source=row.key, witness=f"{wgmma_m}x{cols} tile over {threads} threads")
    return f"counts agree for N in {ns[0]}..{ns[-1]} ({len(ns)} values)"


def _figure(spec: Spec, row: RegisterFragment) -> None:
    """One figure per section and operand, the A figure just before the D figure, sections in
    increasing figure order (Figures 148-155: m64nNk16 A, D; k8 A, D; k32 A, D; k256 A, D)."""
    by_part: dict[tuple[int, str], set[int]] = {}
    for f in spec.of(RegisterFragment):
        by_part.setdefault((f.k_elems, f.operand), set()).add(f.figure)
    figs = by_part[(row.k_elems, row.operand)]
    if len(figs) != 1:
        raise fail(f"{row.key}: the k{row.k_elems} {row.operand} rows cite figures {sorted(figs)}")
    a, d = by_part.get((row.k_elems, "A")), by_part.get((row.k_elems, "D"))
    if a and d and min(d) != min(a) + 1:
        raise fail(f"{row.key}: k{row.k_elems} A is Figure {min(a)}, D Figure {min(d)}: not "
                   "consecutive")
    firsts = sorted(min(v) for v in by_part.values())
    if len(set(firsts)) != len(firsts):
        raise fail(f"{row.key}: two sections or operands cite one figure ({firsts})")


def _instr(spec: Spec, row: InstructionType) -> str:
    """The fragments an instruction names exist and hold its types, at its K."""
    frags = {f.id: f for f in spec.of(RegisterFragment)}
    for ref, typ, operand in ((row.fragment_a, row.atype, "A"), (row.fragment_d, row.dtype, "D")):
        frag = frags.get(ref)
        if frag is None:
            raise fail(f"fragment {ref!r} is not in the register-fragment table")
        if frag.operand != operand or frag.k_elems != row.k_elems or typ not in frag.types:
            raise fail(f"fragment {ref} (k{frag.k_elems}, {frag.operand}, {list(frag.types)}) "
                       f"does not hold {operand} of type {typ} at k{row.k_elems}")
    t_elems = 128 // spec.element_bits(row.atype)
    expect_equal("K of one instruction", row.k_elems, 2 * t_elems, source=row.key,
                 witness="the canonical K-major layout's (T,2k) with k=1, T = 128/width(atype)")
    if spec.element_bits(row.atype) != spec.element_bits(row.btype):
        raise fail(f"A ({row.atype}) and B ({row.btype}) differ in width")
    return f"A {row.fragment_a}, D {row.fragment_d}, K = 2T = {row.k_elems}"


def _operands(spec: Spec, row: InstructionType) -> str:
    """k_major_only is "the types spell no imm-trans-a/b": seed 000 makes imm-trans the only
    way to ask for an MN-major operand."""
    trans = (row.atype in spec.get(InstructionOperand, "imm-trans-a").types
             and row.btype in spec.get(InstructionOperand, "imm-trans-b").types)
    expect_equal("k_major_only", row.k_major_only, not trans, source=row.key,
                 witness="wgmma/instruction_operands imm-trans-a/b (no imm-trans: K-major only)")
    scale = facts.takes_imm_scale(spec, row.atype)
    return (f".{row.atype}: imm-trans {'spelled' if trans else 'not spelled'} (K-major only: "
            f"{row.k_major_only}), imm-scale {'spelled' if scale else 'not spelled'}")


def _immediate(spec: Spec, op: InstructionOperand) -> str:
    """The A and B rows of an immediate agree; every type is an operand type of some
    instruction; imm-scale is spelled for exactly the float operand types."""
    other = spec.get(InstructionOperand, f"{op.immediate}-{'b' if op.operand == 'A' else 'a'}")
    expect_equal("types", sorted(op.types), sorted(other.types), source=op.key,
                 witness=other.key)
    atypes = {r.atype for r in spec.of(InstructionType)} | {r.btype for r in
                                                             spec.of(InstructionType)}
    unknown = sorted(set(op.types) - atypes)
    if unknown:
        raise fail(f"{op.key}: {unknown} are operand types of no wgmma instruction row")
    if op.immediate == "imm-scale":
        floats = sorted(t for t in atypes if spec.get(ElementType, t).kind == "float")
        expect_equal("types spelling imm-scale", sorted(op.types), floats, source=op.key,
                     witness="the float operand types of wgmma/instruction_types")
    return f"{op.id}: {', '.join(op.types)}"


def _storage(spec: Spec, st: OperandStorage) -> str:
    """An operand the document lets live in registers has register-fragment rows; one that
    must be in shared memory has none."""
    rows = [f.id for f in spec.of(RegisterFragment) if f.operand == st.operand]
    if st.registers and not rows:
        raise fail(f"{st.key}: {st.operand} may be in registers, yet no register-fragment row "
                   f"holds it")
    if not st.registers and rows:
        raise discrepancy(f"{st.key}: {st.operand} must be in shared memory, yet the "
                          f"register-fragment tables hold it ({', '.join(rows)})",
                          operand=st.operand, fragments=rows)
    if not st.shared_memory:
        raise fail(f"{st.key}: every wgmma multiplicand may be in shared memory")
    return f"{st.operand}: registers {st.registers} ({len(rows)} fragment rows)"


def _format(et: ElementType) -> str:
    """A type name ending in digits states the width (.s4, .f16); a float is sign + exponent +
    mantissa (+ padding) bits of its width, and an eXmY name states its exponent and mantissa;
    other kinds have no float columns."""
    cols = (et.exponent_bits, et.mantissa_bits, et.padding_bits, et.finite_only)
    named = _WIDTH_NAME.fullmatch(et.id)
    if named is not None:
        expect_equal("width (bits)", et.width_bits, int(named["bits"]), source=et.key,
                     witness=f"the PTX type name .{et.id}")
    if et.kind != "float":
        if any(c is not None for c in cols):
            raise fail(f"{et.key}: a {et.kind} type with float-encoding columns")
        return f"{et.id}: {et.width_bits}-bit {et.kind}"
    if et.exponent_bits is None or et.mantissa_bits is None or et.finite_only is None:
        raise fail(f"{et.key}: a float needs exponent_bits, mantissa_bits and finite_only")
    total = 1 + et.exponent_bits + et.mantissa_bits + (et.padding_bits or 0)
    expect_equal("sign + exponent + mantissa + padding bits", total, et.width_bits,
                 source=et.key, witness="width_bits")
    name = _EXMY.fullmatch(et.id)
    if name is not None:
        expect_equal("exponent and mantissa bits", (et.exponent_bits, et.mantissa_bits),
                     (int(name["e"]), int(name["m"])), source=et.key,
                     witness=f"the type name {et.id}")
    return (f"{et.id}: 1 + {et.exponent_bits} + {et.mantissa_bits}"
            + (f" + {et.padding_bits} padding" if et.padding_bits else "")
            + f" = {et.width_bits} bits" + (", finite only" if et.finite_only else ""))
