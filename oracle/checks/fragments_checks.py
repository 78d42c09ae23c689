"""Register-fragment checks: counts add up, match the shape, and tie to the instruction table."""

from __future__ import annotations

from collections.abc import Iterator

from ptxconf.oracle.checks import Case, expect_equal, fail, make_case
from ptxconf.oracle.records import InstructionType, RegisterFragment
from ptxconf.oracle.spec import Spec

#: wgmma's M, and the bits of one register.
WGMMA_M = 64
WARPGROUP_THREADS = 128
REGISTER_BITS = 32
#: N values to try where a table states no valid-N set: every multiple of 8 up to 256.
PROBE_N = tuple(range(8, 257, 8))


def cases(spec: Spec) -> Iterator[Case]:
    """Counts per fragment row; cross references per instruction-type row."""
    for row in spec.of(RegisterFragment):
        yield make_case("fragment.counts", row.key, lambda row=row: _counts(spec, row))
    for row in spec.of(InstructionType):
        yield make_case("instruction.fragments", row.key, lambda row=row: _instr(spec, row))


def _counts(spec: Spec, row: RegisterFragment) -> str:
    """registers x elements/register == elements == share of the M x (K or N) tile per thread."""
    for t in row.types:
        expect_equal(f"elements per {REGISTER_BITS}-bit register of {t}", row.elems_per_register,
                     REGISTER_BITS // spec.element_bits(t), source=row.key,
                     witness=f"{REGISTER_BITS} / width({t})")
    ns = row.valid_n_values() or PROBE_N
    for n in ns:
        if n % 8 or not 8 <= n <= 256:
            raise fail(f"valid N {n} is not a multiple of 8 in [8, 256]")
        try:
            regs, elems = row.registers_for(n), row.elements_for(n)
        except ValueError as exc:
            raise fail(f"N={n}: {exc}") from None
        expect_equal(f"elements (N={n})", elems, regs * row.elems_per_register, source=row.key,
                     witness="registers x elements per register")
        cols = row.k_elems if row.operand == "A" else n
        expect_equal(f"elements per thread (N={n})", elems, WGMMA_M * cols // WARPGROUP_THREADS,
                     source=row.key, witness=f"{WGMMA_M}x{cols} tile over {WARPGROUP_THREADS} threads")
    return f"counts agree for N in {ns[0]}..{ns[-1]} ({len(ns)} values)"


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
