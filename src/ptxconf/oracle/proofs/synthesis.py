"""The descriptor `ptxconf explain layout` synthesises reads CuTe's tile, for every start.

One claim per canonical-layout row: CuTe DSL's shared-memory tile for that row
(cutedsl/atom_selection: the atom (8, c):(c, 1) K-major or (c, 8):(1, c) MN-major, c = the
atom's contiguous bits / element width, composed with its Swizzle<B,4,3>; tile_to_shape to the
A operand of the type's instruction, K widened to whole atoms) is handed to
`ptxconf.oracle.explain.synthesize`, and Z3 proves, for every element width the row serves
(f16, tf32, e4m3; MN-major: the imm-trans types), for every k-block descriptor of the tile:

    for every start S aligned to the swizzle repeat (S + the tile below 2^18) and every
    element (i, j) of the block:  swz_hw(S + d + template(i, j)) == swz_cute(S + tile(i, j))

where d is the block's descriptor start, template the row's canonical layout with the
synthesised LBO/SBO, swz_hw the row's swizzle on byte addresses and swz_cute the tile's
(CuTe applies it to the byte address). Both sides are bit-vector encodings derived from the
CuTe texts by the algebra (`encode.bit_form`), with (i, j) symbolic; the hardware side is
checked against the oracle's read map at a corner first. Sub-byte types (b1) are outside
explain's byte-addressed synthesis and are not claimed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import z3

from ptxconf.oracle import canonical, facts
from ptxconf.oracle.algebra.layout import Layout, tile_to_shape
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.readmap import base_rule, read_map
from ptxconf.oracle.explain.synthesize import Synthesis, synthesize
from ptxconf.oracle.proofs.encode import BitForm, Encoder, bit_form
from ptxconf.oracle.proofs.params import wgmma_dtypes
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.records import AtomSelection, CanonicalLayout, InstructionType
from ptxconf.oracle.spec import Spec

#: The descriptor's start field addresses 18 bits of shared memory.
START_BITS = 18
COORD_BITS = 16


def cute_tile(spec: Spec, row: CanonicalLayout, dtype: str) -> tuple[str, Operand]:
    """CuTe DSL's tile for a canonical row and type (text, in elements) and the A operand."""
    atom = next(a for a in spec.of(AtomSelection) if a.swizzle == row.swizzle)
    bits = spec.element_bits(dtype)
    c = atom.contiguous_bits // bits
    if atom.strided_elems is None:
        raise ValueError(f"{atom.key}: no strided_elems to build the atom from")
    s = atom.strided_elems
    outer = Layout((s, c), (c, 1)) if row.major == "K" else Layout((c, s), (1, c))
    instr = next(r for r in spec.of(InstructionType) if r.atype == dtype)
    mn = facts.wgmma_m(spec)
    if row.major == "K":
        shape, order = (math.lcm(mn, s), math.lcm(instr.k_elems, c)), (0, 1)
    else:
        shape, order = (math.lcm(mn, c), math.lcm(instr.k_elems, s)), (1, 0)
    tiled = tile_to_shape(outer, shape, order)
    swz = Swizzle(atom.swizzle_bits, atom.swizzle_base, atom.swizzle_shift)
    text = f"{swz} o 0 o {tiled}" if atom.swizzle_bits else str(tiled)
    op = Operand(dtype, row.major, mn, instr.k_elems, bits, "A", None)
    return text, op


def _split(enc: Encoder, form: BitForm, mode: int, x: z3.BitVecRef,
           env: dict[str, int]) -> list[tuple[int, z3.BitVecRef]]:
    """Leaf coordinates (leaf index, value) of a mode coordinate: colexicographic div/mod."""
    out = []
    rest = x
    for i, lf in enumerate(form.leaves):
        if lf.mode != mode:
            continue
        n = lf.shape.at(env)
        out.append((i, z3.URem(rest, enc.val(n, COORD_BITS))))
        rest = z3.UDiv(rest, enc.val(n, COORD_BITS))
    return out


def _address(enc: Encoder, form: BitForm, env: dict[str, int], i: z3.BitVecRef,
             j: z3.BitVecRef, start_bits: z3.BitVecRef) -> z3.BitVecRef:
    """swizzle(start + form(i, j)) in bits, (i, j) symbolic mode coordinates."""
    coords: list[z3.BitVecRef | None] = [None] * len(form.leaves)
    for mode, x in ((0, i), (1, j)):
        for leaf, c in _split(enc, form, mode, x, env):
            coords[leaf] = c
    full = [c if c is not None else enc.val(0, COORD_BITS) for c in coords]
    return enc.address(form, full, env, start_bits)


def _template(row: CanonicalLayout, syn: Synthesis, bits: int) -> tuple[BitForm, dict[str, int]]:
    t = canonical.NORMALIZED_BITS // bits
    m, k = canonical.covering_repeats(row, t, syn.operand.mn, syn.operand.k)
    d = syn.desc
    env = {"m": m, "k": k, "LBO": d.lbo * 8 // bits, "SBO": d.sbo * 8 // bits}
    form = bit_form(row.layout, bits, t=t, swizzle=canonical.row_swizzle(row), reading="bytes")
    return form, env


def _prove_one(prover: Prover, spec: Spec, row: CanonicalLayout, dtype: str) -> dict[str, Any]:
    text, op = cute_tile(spec, row, dtype)
    syn = synthesize(spec, text, op, majors=(row.major,), start=0, swizzle_unit="bytes")
    return prove_tile(prover, spec, row, text, op, syn)


def prove_tile(prover: Prover, spec: Spec, row: CanonicalLayout, text: str, op: Operand,
               syn: Synthesis | object) -> dict[str, Any]:
    """Z3: every block descriptor of `syn` reads the tile `text` for every aligned start
    (Refuted with the start and element otherwise)."""
    dtype = op.dtype
    if not isinstance(syn, Synthesis):
        raise Refuted(f"{row.id} {dtype}: explain finds no descriptor for CuTe's tile {text}: "
                      f"{'; '.join(getattr(syn, 'reasons', ()))}", {"layout": text, "dtype": dtype})
    if syn.desc.swizzle != row.swizzle:
        raise Refuted(f"{row.id} {dtype}: explain reads CuTe's tile {text} as "
                      f"{syn.operand.major}-major {syn.desc.swizzle}", {"layout": text})
    bits = op.bits
    enc = prover.encoder()
    hw, env = _template(row, syn, bits)
    user = bit_form(text, bits, reading="bytes")
    rule = base_rule(spec, row.swizzle)
    repeat = rule.repeat_bytes if rule is not None else 16
    span = int(read_map(spec, syn.operand, syn.blocks[-1].desc).addresses.max()) + 16
    s = enc.var("start_bytes")
    i, j = enc.var("i", COORD_BITS), enc.var("j", COORD_BITS)
    dom = [z3.URem(s, enc.val(repeat)) == 0, z3.ULT(s, enc.val((1 << START_BITS) - span)),
           z3.ULT(i, enc.val(op.mn, COORD_BITS)), z3.ULT(j, enc.val(op.k, COORD_BITS))]
    prover.satisfiable(f"a start aligned to {repeat} B below 2^{START_BITS} - {span}", dom)
    per_block = {}
    for b in syn.blocks:
        i0, j0 = b.origin
        d = b.desc
        if d.base_offset:
            raise Refuted(f"{row.id} {dtype}: block {b.origin} needs base-offset field "
                          f"{d.base_offset} at an aligned start", {"block": list(b.origin)})
        start_bits = (s + d.start_address) << 3
        hw_addr = _address(enc, hw, env, i, j, start_bits)
        user_addr = _address(enc, user, {}, i + i0, j + j0, s << 3)
        # the hardware side is the oracle's read map (checked at the block's last element)
        corner = read_map(spec, syn.operand, d).addresses[op.mn - 1, op.k - 1]
        at = z3.simplify(z3.substitute(hw_addr, (s, enc.val(0)), (i, enc.val(op.mn - 1, COORD_BITS)),
                                       (j, enc.val(op.k - 1, COORD_BITS)))).as_long()
        if at != corner * 8:
            raise AssertionError(f"{row.id} {dtype}: the encoding reads {at // 8:#x} where the "
                                 f"oracle reads {corner:#x}")
        hit = prover.find(dom, hw_addr != user_addr)
        if hit is not None:
            sv, iv, jv = value(hit, s), value(hit, i), value(hit, j)
            raise Refuted(f"{row.id} {dtype}: block {b.origin}, start {sv:#x}, element "
                          f"(mn {i0 + iv}, k {j0 + jv}): the tensor core reads "
                          f"{value(hit, hw_addr) // 8:#x}, CuTe's tile puts it at "
                          f"{value(hit, user_addr) // 8:#x}",
                          {"layout": text, "dtype": dtype, "start": sv, "mn": i0 + iv,
                           "k": j0 + jv, "descriptor": f"{d.value:#018x}"},
                          f"ptxconf explain layout \"{text}\" --dtype {dtype} --major {row.major}"
                          f" --mn {op.mn} --k {op.k} --start-address {sv:#x}")
        per_block[f"{i0},{j0}"] = f"{d.value:#018x}"
    return {"layout": text, "swizzle": syn.desc.swizzle, "lbo": syn.desc.lbo,
            "sbo": syn.desc.sbo, "k_block_step": syn.block_steps()["k_block"],
            "descriptors": per_block, "repeat_bytes": repeat}


def synthesis_equivalent(spec: Spec, row: CanonicalLayout) -> Claim:
    """The claim for one canonical-layout row."""

    def dtypes() -> list[str]:
        out = []
        for d in wgmma_dtypes(spec):
            if spec.element_bits(d) % 8:
                continue
            if row.major == "MN" and not facts.takes_imm_trans(spec, d):
                continue
            out.append(d)
        return out

    def body(prover: Prover) -> Proved:
        facts_ = {d: _prove_one(prover, spec, row, d) for d in dtypes()}
        blocks = sum(len(f["descriptors"]) for f in facts_.values())
        first = next(iter(facts_.values()))
        return Proved(f"{row.id}: for {', '.join(facts_)} the synthesised descriptor of every "
                      f"k-block ({blocks} in all) reads CuTe's tile exactly, for every start "
                      f"aligned to the {first['repeat_bytes']}-B repeat; e.g. {first['layout']} "
                      f"-> {row.swizzle}, LBO {first['lbo']} B, SBO {first['sbo']} B, start + "
                      f"{first['k_block_step'] or 0} B a k-block", {"types": facts_})

    return Claim("synthesis_equivalent", row.key,
                 f"the descriptor `ptxconf explain layout` synthesises for CuTe's {row.id} tile "
                 "reads every element where the tile puts it, for every start aligned to the "
                 "swizzle repeat", body, documented=False)


def claims(spec: Spec) -> Iterator[Claim]:
    """One synthesis claim per canonical-layout row."""
    for row in spec.of(CanonicalLayout):
        yield synthesis_equivalent(spec, row)
