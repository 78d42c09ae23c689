"""The TMA write side: every box a mode allows is written one-to-one, and which wgmma reads of a
TMA-written tile are the identity.

* tma_box_bijective, one a swizzling mode and element size: for every box the documents allow
  (rows 1..boxDim's limit, an inner dimension of whole 16-byte granules up to the mode's span,
  any destination on the bounding box's alignment), no two elements share an address and each
  stays in the swizzle block of its linear address, so a footprint of whole repeats at a
  repeat-aligned base is written onto itself.
* tma_pairing, one a (write mode W, wgmma K-major canonical layout R) pair whose tile TMA can
  write as one box (its inner width is R's row, at most W's span), and a class of destination
  (line-aligned bases): aligned to every repeat; off R's repeat with the descriptor's
  base-offset field per the PTX ISA's rule ((start >> 7) & 7); off R's repeat with the field 0.
  The claim: the composition read o write^-1 is the identity exactly when W and R swizzle alike
  and the read's phase is the write's (the field moves it by field x 128 B: the H100's reading,
  ptxconf.oracle.explain.readmap). For the others a base of the class where no element moves
  is ruled out (a quantified query) and the permutation is stated for one base.

Addresses are 32-bit byte addresses; both maps are checked against the oracle
(ptxconf.oracle.tma.write_addresses, the wgmma read map) at a concrete base first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import z3

from ptxconf.oracle import tma
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.canonical import row_swizzle
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.readmap import Descriptor, base_rule, read_map
from ptxconf.oracle.facts import element_types, wgmma_m
from ptxconf.oracle.proofs.encode import Encoder
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.records import DescriptorField, TmaSwizzleMode
from ptxconf.oracle.spec import Spec
from ptxconf.oracle.tma import Cell, cells

ALIGNED, OFF_RULE, OFF_ZERO = tma.ALIGNED, tma.OFF_RULE, tma.OFF_ZERO


def _address_bits(spec: Spec) -> int:
    """The shared-memory addresses a descriptor's start field reaches (its address_bits)."""
    row = next(r for r in spec.of(DescriptorField) if r.id == "start_address"
               and r.address_bits is not None)
    assert row.address_bits is not None
    return row.address_bits


def _apply(enc: Encoder, x: z3.BitVecRef, s: Swizzle) -> z3.BitVecRef:
    return x if s.bits == 0 else enc.swizzle(x, s.bits, s.base, s.shift)


# --- every box is written one-to-one --------------------------------------------------------------


def box_bijective(spec: Spec, row: TmaSwizzleMode, elem_bytes: int) -> Claim:
    """Distinct elements of any allowed box land at distinct addresses, in their own blocks."""
    dim = tma.requirement(spec, tma.BOX_DIM).max_elems or 0
    granule = tma.requirement(spec, tma.BOX_INNER).multiple_bytes or 1
    align = tma.requirement(spec, tma.BOX_ADDRESS).alignment_bytes or 1
    limit = tma.enum_row(spec, row.swizzle).max_inner_box_bytes or dim * elem_bytes
    widest = min(limit, dim * elem_bytes) // granule

    def body(prover: Prover) -> Proved:
        swz = tma.derived_swizzle(row)  # a row that derives none fails the claim (raised)
        block = swz.period() if swz.bits else 1
        _oracle_agrees(spec, row.swizzle, elem_bytes)
        enc = prover.encoder()
        x, y = enc.var("x"), enc.var("y")
        # the swizzle: one-to-one on every address, and inside the block of its argument
        hit = prover.find(x != y, _apply(enc, x, swz) == _apply(enc, y, swz))
        if hit is not None:
            raise Refuted(f"{row.swizzle}: {swz} maps {value(hit, x):#x} and {value(hit, y):#x} "
                          "to one address", {"x": hex(value(hit, x)), "y": hex(value(hit, y))})
        lb = block.bit_length() - 1
        hit = prover.find(z3.LShR(_apply(enc, x, swz), lb) != z3.LShR(x, lb))
        if hit is not None:
            raise Refuted(f"{row.swizzle}: {swz} moves {value(hit, x):#x} out of its {block}-B "
                          "block", {"x": hex(value(hit, x))})
        # the linear offset row * pitch + col * e: one-to-one on the box (integers, a query an
        # inner width), so base + offset is too
        rows, r1, c1, r2, c2 = z3.Ints("rows r1 c1 r2 c2", prover.ctx)
        for units in range(1, widest + 1):
            inner = units * granule
            pitch = tma.row_pitch_bytes(spec, row.swizzle, inner)
            dom = [rows >= 1, rows <= dim]
            for r, c in ((r1, c1), (r2, c2)):
                dom += [r >= 0, r < rows, c >= 0, c < inner // elem_bytes]
            hit = prover.find(dom, z3.Or(r1 != r2, c1 != c2),
                              r1 * pitch + c1 * elem_bytes == r2 * pitch + c2 * elem_bytes)
            if hit is not None:
                v = {n: hit.eval(t).as_long() for n, t in (("r1", r1), ("c1", c1), ("r2", r2),
                                                            ("c2", c2))}
                raise Refuted(f"{row.swizzle}: (row {v['r1']}, col {v['c1']}) and (row {v['r2']}, "
                              f"col {v['c2']}) of a {inner}-B wide box share an offset",
                              {**v, "inner_bytes": inner})
        where = f", each in its {block}-B block" if swz.bits else ""
        return Proved(f"TMA {row.swizzle}, {elem_bytes}-B elements: every box (1..{dim} rows, "
                      f"inner 1..{widest} x {granule} B, any {align}-B aligned base) is written to "
                      f"distinct addresses{where} ({swz} is one-to-one on every address, the "
                      "linear offset on every box)",
                      {"rows_max": dim, "inner_bytes_max": widest * granule, "block": block})

    return Claim("tma_box_bijective", f"{row.key}.{elem_bytes}B",
                 f"TMA {row.swizzle} writes every allowed box of {elem_bytes}-B elements "
                 "one-to-one, each element in its swizzle block", body)


def _oracle_agrees(spec: Spec, swizzle: str, elem_bytes: int) -> None:
    """The encoding's formula is the oracle's write map on a box at an off-repeat base."""
    dtype = next(t for t in element_types(spec) if spec.element_bits(t) == 8 * elem_bytes)
    limit = tma.enum_row(spec, swizzle).max_inner_box_bytes or 128
    b = tma.box(spec, swizzle, dtype, 16, limit // elem_bytes, 0x480)
    got = tma.write_addresses(spec, b)
    swz = tma.swizzle_of(spec, swizzle)
    for (r, c), a in np.ndenumerate(got):
        if int(a) != swz(b.base + r * b.pitch_bytes + c * elem_bytes):
            raise AssertionError(f"the encoding disagrees with tma.write_addresses at ({r}, {c})")


# --- which reads pair with which writes ---------------------------------------------------------




@dataclass(frozen=True)
class _Setup:
    """A cell's constants: swizzles, pitches (the read's; the write's, whose rows take the TMA
    mode's span: ptxconf.oracle.tma.row_pitch_bytes), rows, repeats, the base-offset rule."""

    w: Swizzle
    r: Swizzle
    pitch: int
    w_pitch: int
    rows: int
    repeat: int
    all_repeat: int
    line: int
    shift: int
    mask: int

    def expected(self, cls: str) -> bool:
        """Identity: the same swizzle and a read phase equal to the write's (field x line = 0
        modulo the repeat: the rule's field for a line-aligned base off the repeat is not)."""
        return tma.same_function(self.w, self.r) and (self.r.bits == 0 or cls != OFF_RULE)


def _setup(spec: Spec, cell: Cell) -> _Setup:
    rule = base_rule(spec, cell.read.swizzle)
    repeats = [m.repeat_bytes for m in spec.of(TmaSwizzleMode) if m.repeat_bytes]
    lines = {m.line_bytes for m in spec.of(TmaSwizzleMode) if m.line_bytes}
    if len(lines) != 1:
        raise ValueError(f"the swizzling modes' base-offset lines differ: {sorted(lines)}")
    pitch = tma.read_pitch(spec, "K", cell.read.swizzle)
    return _Setup(tma.derived_swizzle(cell.write), row_swizzle(cell.read), pitch,
                  tma.row_pitch_bytes(spec, cell.write.swizzle, pitch), wgmma_m(spec),
                  rule.repeat_bytes if rule else max(repeats), max(repeats), lines.pop(),
                  rule.address_shift_bits if rule else 0, rule.mask if rule else 0)


def _field(s: _Setup, cls: str, base: int) -> int:
    return (base >> s.shift) & s.mask if cls == OFF_RULE else 0


def _concrete_base(s: _Setup, cls: str) -> int:
    """A representative base of the class: the largest repeat, else one line further."""
    return s.all_repeat if cls == ALIGNED else s.all_repeat + s.line


def _maps(spec: Spec, cell: Cell, s: _Setup, base: int) -> tuple[np.ndarray, np.ndarray]:
    """(write, read) absolute addresses [rows, pitch // 2] of a bf16-sized tile from the oracle:
    TMA's write map and wgmma's read map (the reader's first 16-B column where it reads two)."""
    dtype = next(t for t in element_types(spec) if spec.element_bits(t) == 16)
    cols = s.pitch // 2
    b = tma.box(spec, cell.write.swizzle, dtype, s.rows, cols, base)
    k = max(cols, 16)
    lbo, sbo = tma.packed_offsets(spec, b, "K", cell.read.swizzle)
    desc = Descriptor.of(spec, start_address=base, lbo=lbo, sbo=sbo, swizzle=cell.read.swizzle,
                         base_offset=_field(s, cell.base_class, base))
    op = Operand(dtype, "K", s.rows, k, 16)
    return tma.write_addresses(spec, b), read_map(spec, op, desc).addresses[:, :cols]


def pairing(spec: Spec, cell: Cell) -> Claim:
    """read o write^-1 is the identity exactly when the cell's rule says so."""
    try:
        s = _setup(spec, cell)
    except ValueError as exc:  # a row no swizzle derives from: the claim fails naming it
        error = exc

        def broken(prover: Prover) -> Proved:
            raise error

        return Claim("tma_pairing", cell.key, f"{_name(cell)} ({_class_text(cell.base_class)})",
                     broken)
    want = s.expected(cell.base_class)

    def body(prover: Prover) -> Proved:
        enc = prover.encoder()
        base, row, byte = enc.var("base"), enc.var("row"), enc.var("byte")
        field = (z3.LShR(base, s.shift) & s.mask) if cell.base_class == OFF_RULE else enc.val(0)
        klass = (enc.is_pow2_multiple(base, s.all_repeat.bit_length() - 1)
                 if cell.base_class == ALIGNED
                 else z3.Not(enc.is_pow2_multiple(base, s.repeat.bit_length() - 1)))
        dom = [enc.is_pow2_multiple(base, s.line.bit_length() - 1), klass,
               z3.ULT(base, (1 << _address_bits(spec)) - s.rows * max(s.pitch, s.w_pitch))]
        tile = [z3.ULT(row, s.rows), z3.ULT(byte, s.pitch)]
        x = row * s.pitch + byte
        write = _apply(enc, base + row * s.w_pitch + byte, s.w)
        line = field << s.shift
        read = _apply(enc, base - line + x, s.r) + line
        prover.satisfiable(f"a {cell.base_class} base", dom)
        concrete = _concrete_base(s, cell.base_class)
        w_map, r_map = _maps(spec, cell, s, concrete)
        _closed_forms_agree(s, cell.base_class, concrete, w_map, r_map)
        moved = prover.find(dom, tile, write != read)
        if want:
            if moved is not None:
                v = {n: value(moved, t) for n, t in (("base", base), ("row", row), ("byte", byte))}
                raise Refuted(f"{_name(cell)}: at base {v['base']:#x}, byte {v['byte']} of row "
                              f"{v['row']} is read from another place than TMA wrote it",
                              {k: hex(x) for k, x in v.items()})
            return Proved(f"{_name(cell)}: identity: wgmma reads every element where TMA put it "
                          f"({_class_text(cell.base_class)})", {"identity": True})
        still = prover.find(dom, z3.ForAll([row, byte], z3.Implies(z3.And(*tile),
                                                                    write == read)))
        if still is not None:
            b = value(still, base)
            raise Refuted(f"{_name(cell)}: at base {b:#x} every element is read where TMA put it",
                          {"base": hex(b)})
        perm = permutation(w_map, r_map)
        return Proved(f"{_name(cell)}: not the identity for any base of the class "
                      f"({_class_text(cell.base_class)}); at {concrete:#x}: {perm['text']}",
                      {"identity": False, "base": hex(concrete), **perm})

    name = "identity" if want else "not the identity"
    return Claim("tma_pairing", cell.key,
                 f"{_name(cell)} ({_class_text(cell.base_class)}): read o write^-1 is {name}",
                 body)


def _closed_forms_agree(s: _Setup, cls: str, base: int, w_map: np.ndarray,
                        r_map: np.ndarray) -> None:
    """The encoding's two formulas are the oracle's maps at a concrete base."""
    line = _field(s, cls, base) << s.shift
    for (r, c), a in np.ndenumerate(w_map):
        x = r * s.pitch + 2 * c
        if int(a) != s.w(base + r * s.w_pitch + 2 * c):
            raise AssertionError(f"the write encoding disagrees with the oracle at ({r}, {c})")
        if int(r_map[r, c]) != s.r(base - line + x) + line:
            raise AssertionError(f"the read encoding disagrees with the oracle at ({r}, {c})")


def permutation(w_map: np.ndarray, r_map: np.ndarray, elem_bytes: int = 2, cell_bytes: int = 16,
                shown: int = 4) -> dict[str, object]:
    """What the read finds, by 16-byte chunk: (row, chunk) -> the (row, chunk) TMA put there."""
    per = cell_bytes // elem_bytes
    where = {int(a) // cell_bytes: (r, c // per) for (r, c), a in np.ndenumerate(w_map)
             if c % per == 0}
    moves: list[tuple[int, int, tuple[int, int] | None]] = []
    for (r, c), a in np.ndenumerate(r_map):
        hit = where.get(int(a) // cell_bytes)
        if c % per == 0 and hit != (r, c // per):
            moves.append((r, c // per, hit))
    total = r_map.size // per
    text = ", ".join(f"(row {r}, chunk {q}) holds "
                     + ("nothing TMA wrote" if h is None else f"(row {h[0]}, chunk {h[1]})")
                     for r, q, h in moves[:shown])
    return {"moved_chunks": len(moves), "chunks": total,
            "first_moves": [[r, q, None if h is None else list(h)] for r, q, h in moves[:shown]],
            "text": f"{len(moves)} of {total} 16-B chunks moved: {text}"}


def _name(cell: Cell) -> str:
    return f"TMA {cell.write.swizzle} write, wgmma {cell.read.id} read"


def _class_text(cls: str) -> str:
    return {ALIGNED: "bases on every repeat, field 0",
            OFF_RULE: "line-aligned bases off the reader's repeat, field (start >> 7) & 7",
            OFF_ZERO: "line-aligned bases off the reader's repeat, field 0"}[cls]


def claims(spec: Spec) -> Iterator[Claim]:
    """One box claim a mode and element size; one pairing claim a cell."""
    sizes = sorted({spec.element_bits(t) // 8 for t in element_types(spec)
                    if spec.element_bits(t) % 8 == 0})
    for row in spec.of(TmaSwizzleMode):
        for e in sizes:
            yield box_bijective(spec, row, e)
    for cell in cells(spec):
        yield pairing(spec, cell)
