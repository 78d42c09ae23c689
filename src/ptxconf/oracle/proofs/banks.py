"""Bank conflicts: the 8 rows of one core-matrix column hit 8 distinct 16-byte bank groups.

Shared memory has 32 banks of 4 bytes, so an aligned 128-byte line holds 8 groups of 16 bytes
and a 16-byte access occupies one group: ``group = (byte address >> 4) mod 8``. The tensor core
reads a core matrix as 8 rows of one 16-byte chunk; the rows are the first leaf of the
non-major mode (K-major: the MN mode's 8; MN-major: the K mode's 8). The claim varies that
leaf over 0..7 with every other coordinate fixed (symbolic: any chunk, any element in it, any
repeat), for symbolic LBO/SBO over the descriptor's range and any 16-byte-aligned start
(absolute reading: swizzle(start + offset)). The same layout without its swizzle is then
searched for a conflict, which the swizzled rows are expected to have.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import z3

from ptxconf.oracle.banks import BANK_BYTES, BANKS
from ptxconf.oracle.canonical import BITS_PER_BYTE
from ptxconf.oracle.proofs import render
from ptxconf.oracle.proofs.encode import BitForm, Encoder
from ptxconf.oracle.proofs.layouts import READING, Operand, core_bound
from ptxconf.oracle.proofs.params import offset_domain, symbolic_offsets, wgmma_dtypes
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec

#: Bytes one tensor-core row access reads: a 16-byte chunk.
ACCESS_BYTES = 16
#: Rows of a core matrix.
CORE_ROWS = 8
#: The operand shape the claim is made at: m repeats, and k as large as the core stays
#: injective (so a K-major swizzled row spans its whole swizzle row), at most K_REPEATS_MAX.
M_REPEATS, K_REPEATS_MAX = 2, 2


def row_leaf(form: BitForm, major: str) -> int:
    """The index of the 8-row leaf: the first leaf of the non-major mode."""
    mode = 0 if major == "K" else 1
    first = next(i for i, lf in enumerate(form.leaves) if lf.mode == mode)
    if form.leaves[first].shape.symbols or form.leaves[first].shape.const != CORE_ROWS:
        raise ValueError(f"{form.text}: leaf {first} is not the {CORE_ROWS}-row leaf")
    return first


def group(enc: Encoder, bit_address: z3.BitVecRef) -> z3.BitVecRef:
    """The 16-byte bank group of a bit address."""
    line_groups = BANKS * BANK_BYTES // ACCESS_BYTES
    return z3.LShR(bit_address, (ACCESS_BYTES * BITS_PER_BYTE).bit_length() - 1) & (
        line_groups - 1)


def repeats_k(prover: Prover, op: Operand) -> int:
    """The k the claim uses: K_REPEATS_MAX, or the largest k whose core is injective if less."""
    found = core_bound(prover, op)
    return K_REPEATS_MAX if found is None else max(1, found[0] - 1)


def _conflict(prover: Prover, op: Operand, form: BitForm,
              k: int) -> tuple[z3.ModelRef | None, Any]:
    """Search two rows of one column in the same bank group."""
    enc = prover.encoder()
    off = symbolic_offsets(op.spec, enc)
    env = {"m": M_REPEATS, "k": k, **off.env(op.bits)}
    start = enc.var("start")
    align = offset_domain(op.spec, "start_address").granule_bytes
    cs, dom = enc.coords(form, "c", env, env)
    r = row_leaf(form, op.row.major)
    r2 = enc.var("r2", cs[r].size())
    cs2 = [r2 if i == r else c for i, c in enumerate(cs)]
    bits_start = start * BITS_PER_BYTE
    a1, a2 = enc.address(form, cs, env, bits_start), enc.address(form, cs2, env, bits_start)
    given = [*off.domain, *dom, z3.ULT(enc.lift(r2), CORE_ROWS), r2 != cs[r],
             z3.ULE(start, offset_domain(op.spec, "start_address").max_bytes),
             z3.URem(start, align) == 0]
    prover.satisfiable(f"{op.row.id}: two rows of a column", given)
    hit = prover.minimize([*given, group(enc, a1) == group(enc, a2)],
                          [start, off.sbo_bytes, off.lbo_bytes, cs[r], r2])
    return hit, (cs, cs2, a1, a2, off, start, k)


def _describe(op: Operand, form: BitForm, hit: z3.ModelRef, parts: Any) -> dict[str, Any]:
    cs, cs2, a1, a2, off, start, k = parts
    env = {"m": M_REPEATS, "k": k}
    pts = [render.point(form, tuple(value(hit, c) for c in v), env, op.row.major, value(hit, a))
           for v, a in ((cs, a1), (cs2, a2))]
    line_groups = BANKS * BANK_BYTES // ACCESS_BYTES
    groups = [(p.bit_address // BITS_PER_BYTE // ACCESS_BYTES) % line_groups for p in pts]
    text = (f"{pts[0].text()} at {render.hex_address(pts[0].bit_address, op.bits)} and "
            f"{pts[1].text()} at {render.hex_address(pts[1].bit_address, op.bits)}, both in "
            f"bank group {groups[0]} (start {value(hit, start):#x}, LBO "
            f"{value(hit, off.lbo_bytes):#x}, SBO {value(hit, off.sbo_bytes):#x})")
    line = _reproduce(op, form, [p.mode_coords for p in pts], value(hit, start),
                      value(hit, off.lbo_bytes), value(hit, off.sbo_bytes), k)
    return {"summary": text, "dtype": op.dtype, "points": [p.as_dict() for p in pts],
            "bank_group": groups[0], "reproduce_python": line}


def _reproduce(op: Operand, form: BitForm, coords: list[tuple[int, ...]], start: int,
               lbo_bytes: int, sbo_bytes: int, k: int) -> str:
    """A line printing the bank group of each coordinate (the layout's swizzle, or none)."""
    imp, expr = render.spec_call(op.spec)
    lbo, sbo = (v * BITS_PER_BYTE // op.bits for v in (lbo_bytes, sbo_bytes))
    if form.swizzle is None:
        addr = f"{start} + L(c) * {op.bits} // 8"
    else:
        addr = f"{start} + swizzled_offset(L(c), {op.bits}, row_swizzle(r), 'bytes', {start})"
    return (f'python -c "{imp}; from ptxconf.oracle.canonical import canonical_row, instantiate, '
            f"row_swizzle, swizzled_offset; r = canonical_row({expr}, {op.row.major!r}, "
            f"{op.row.swizzle!r}); L = instantiate(r, {op.t}, {M_REPEATS}, {k}, {lbo}, "
            f"{sbo}); print([(({addr}) >> {ACCESS_BYTES.bit_length() - 1}) % "
            f'{BANKS * BANK_BYTES // ACCESS_BYTES} for c in {coords!r}])"')


def _ks(ks: dict[str, int]) -> str:
    values = set(ks.values())
    return str(values.pop()) if len(values) == 1 else str(ks)


def conflict_free(spec: Spec, row: CanonicalLayout) -> Claim:
    """The claim for one canonical row."""

    def body(prover: Prover) -> Proved:
        baseline: dict[str, Any] | None = None
        ks = {}
        for dtype in wgmma_dtypes(spec):
            op = Operand.of(spec, row, dtype)
            ks[dtype] = k = repeats_k(prover, op)
            hit, parts = _conflict(prover, op, op.form, k)
            if hit is not None:
                cex = _describe(op, op.form, hit, parts)
                raise Refuted(f"{row.id} {dtype}: {cex['summary']}", cex, cex.pop("reproduce_python"))
            if baseline is None and op.form.swizzle is not None:
                plain = op.form.unswizzled()
                hit, parts = _conflict(prover, op, plain, k)
                if hit is not None:
                    baseline = _describe(op, plain, hit, parts)
        if row.swizzle_bits == 0:
            tail = "no swizzle needed: a core matrix's 8 rows are 16 B apart"
        elif baseline is None:
            tail = "the same layout without its swizzle is conflict-free as well"
        else:
            tail = f"without its swizzle the same layout conflicts: {baseline['summary']}"
        return Proved(f"{row.id}: for {', '.join(wgmma_dtypes(spec))}, every chunk and element, "
                      f"m={M_REPEATS}, k={_ks(ks)}, all LBO/SBO and "
                      f"{offset_domain(spec, 'start_address').granule_bytes}-B-aligned starts "
                      f"({READING} reading), rows 0..7 of a core-matrix column fall in 8 distinct "
                      f"16-byte bank groups; {tail}", {"unswizzled_conflict": baseline, "k": ks})

    return Claim("bank_conflict_free", row.key,
                 f"{row.id}: the 8 rows of a core-matrix column hit 8 distinct bank groups", body,
                 documented=False)


def claims(spec: Spec) -> Iterator[Claim]:
    """One bank claim per canonical-layout row."""
    for row in spec.of(CanonicalLayout):
        yield conflict_free(spec, row)
