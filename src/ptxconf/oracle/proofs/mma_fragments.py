"""mma.sync fragments: the PTX ISA's formulas (spec/warp/mma_fragments.yaml) proved for every
(lane, element), and CuTe's SM80/SM89 atom layouts proved equal to them.

The formulas are evaluated by the oracle's own evaluator (`ptxconf.oracle.mma_fragments`) over
Z3 bit-vectors (`BitVecOps`), so the map proved is the map the checks and the probes read.

* `mma_fragment_bijective`: (lane, element) -> (row, col) maps the warp's lanes x a0..aX into
  the operand's matrix, injectively, and the two sets have one size: a bijection;
* `mma_fragment_is_cute`: CuTe's layout at (thread, value) is the column-major index (CuTe's
  orientation: B as N x K) of the ISA's element a_value of lane ThrID(thread), for every
  thread and value: the two documents state one map.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import z3

from ptxconf.oracle import facts
from ptxconf.oracle import mma_fragments as F
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.checks.mma_fragments import OPERANDS, fragment_of, traits_layouts
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.records import CuteLayout, CuteMmaTraits, MmaFragment
from ptxconf.oracle.spec import Spec

#: Bit-vector width: lanes, elements, rows, cols and indices are far below 2^16.
WIDTH = 16


class BitVecOps:
    """`ptxconf.oracle.mma_fragments.Ops` over unsigned Z3 bit-vectors of one context."""

    def __init__(self, prover: Prover) -> None:
        self.enc = prover.encoder(WIDTH)

    def const(self, v: int) -> z3.BitVecRef:
        return self.enc.val(v)

    def binop(self, op: str, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        if op == ">>":
            return z3.LShR(a, b)
        if op == "%":
            return z3.URem(a, b)
        if op == "/":
            return z3.UDiv(a, b)
        out: z3.BitVecRef = {"+": a + b, "-": a - b, "*": a * b, "&": a & b}[op]
        return out

    def compare(self, op: str, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
        fns = {"<": z3.ULT, "<=": z3.ULE, ">": z3.UGT, ">=": z3.UGE}
        if op in fns:
            out: z3.BoolRef = fns[op](a, b)
            return out
        return a == b if op == "==" else a != b

    def both(self, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
        return z3.And(a, b)

    def either(self, a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
        return z3.Or(a, b)

    def negate(self, a: z3.BoolRef) -> z3.BoolRef:
        return z3.Not(a)

    def select(self, cond: z3.BoolRef, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
        out: z3.BitVecRef = z3.If(cond, a, b)
        return out

    def true(self) -> z3.BoolRef:
        return self.enc.true()


def _repro(frag: MmaFragment) -> str:
    return ('python -c "from ptxconf.oracle.mma_fragments import cells; from ptxconf.oracle.'
            "spec import default_spec; from ptxconf.oracle.records import MmaFragment; s = "
            f"default_spec(); c = cells(s, s.get(MmaFragment, '{frag.id}')); "
            'print(c.rows, c.cols)"')


class _Point:
    """A symbolic (lane, element) of a fragment, its domain and its (row, col)."""

    def __init__(self, ops: BitVecOps, frag: MmaFragment, lanes: int, name: str) -> None:
        self.lane, self.e = ops.enc.var(f"{name}_lane"), ops.enc.var(f"{name}_e")
        self.domain = [z3.ULT(self.lane, lanes), z3.ULT(self.e, F.elements(frag))]
        self.image = F.formula(frag, self.lane, self.e, ops)

    def at(self, model: z3.ModelRef) -> dict[str, int]:
        return {"lane": value(model, self.lane), "element": value(model, self.e)}

    def where(self, model: z3.ModelRef) -> dict[str, int]:
        return {"row": value(model, self.image[0]), "col": value(model, self.image[1])}


def _say(coords: dict[str, Any]) -> str:
    return "(" + ", ".join(f"{k} {v}" for k, v in coords.items()) + ")"


def bijective(spec: Spec, frag: MmaFragment) -> Claim:
    """A fragment's formulas are a bijection onto the operand's matrix."""

    def body(prover: Prover) -> Proved:
        rows, cols = F.isa_dims(frag)
        lanes, n = facts.warp_threads(spec), F.elements(frag)
        ops = BitVecOps(prover)
        x, y = _Point(ops, frag, lanes, "x"), _Point(ops, frag, lanes, "y")
        prover.satisfiable(frag.key, x.domain)
        r, c = x.image
        hit = prover.minimize([*x.domain, z3.Or(z3.UGE(r, rows), z3.UGE(c, cols))],
                              [x.lane, x.e])
        if hit is not None:
            raise Refuted(f"{frag.key}: {_say(x.at(hit))} holds {_say(x.where(hit))}, outside "
                          f"the {rows}x{cols} {frag.operand}",
                          {"point": x.at(hit), "element": x.where(hit)}, _repro(frag))
        hit = prover.minimize([*x.domain, *y.domain, z3.Or(x.lane != y.lane, x.e != y.e),
                               x.image[0] == y.image[0], x.image[1] == y.image[1]],
                              [x.lane, x.e, y.lane, y.e])
        if hit is not None:
            a, b = x.at(hit), y.at(hit)
            raise Refuted(f"{frag.key}: {_say(a)} and {_say(b)} both hold {_say(x.where(hit))}",
                          {"points": [a, b], "element": x.where(hit)}, _repro(frag))
        if lanes * n != rows * cols:
            raise Refuted(f"{frag.key}: {lanes} lanes x {n} elements for the {rows * cols} "
                          f"elements of {rows}x{cols}: not onto",
                          {"domain": lanes * n, "elements": rows * cols})
        return Proved(f"{frag.key}: (lane, element) -> (row, col) is a bijection from {lanes} "
                      f"lanes x {n} elements onto the {rows}x{cols} {frag.operand}",
                      {"points": lanes * n})

    return Claim("mma_fragment_bijective", frag.key,
                 f"{frag.key}: every (lane, element) of the warp holds one element of the "
                 f"{frag.shape} {frag.operand} and every element is held once", body)


def _plain(text: str) -> Layout:
    lay = parse(text)
    if not isinstance(lay, Layout):
        raise ValueError(f"{text!r} is not a plain layout")
    return lay


def is_cute(thr_row: CuteLayout, row: CuteLayout, frag: MmaFragment) -> Claim:
    """CuTe's layout of an operand is the ISA's formula, at every (thread, value)."""

    def body(prover: Prover) -> Proved:
        layout, thr = _plain(row.layout), _plain(thr_row.layout)
        threads, values = layout[0].size(), layout[1].size()
        n = F.elements(frag)
        if values != n:
            raise Refuted(f"{row.key}: {values} values a thread, {frag.key} lists {n} elements",
                          {"values": values, "elements": n})
        ops = BitVecOps(prover)
        t, v = ops.enc.var("t"), ops.enc.var("v")
        domain = [z3.ULT(t, threads), z3.ULT(v, values)]
        prover.satisfiable(row.key, domain)
        lane = F.layout_index(thr, (t,), ops)
        r, c = F.formula(frag, lane, v, ops)
        ptx = F.cute_index(frag, F.Cells(r, c), ops)
        cute = F.layout_index(layout, (t, v), ops)
        hit = prover.minimize([*domain, cute != ptx], [t, v])
        if hit is not None:
            at = {"thread": value(hit, t), "value": value(hit, v)}
            raise Refuted(f"{row.key} {row.layout}: (T{at['thread']}, V{at['value']}) is index "
                          f"{value(hit, cute)}; {frag.key} puts lane {value(hit, lane)}'s element "
                          f"{at['value']} at index {value(hit, ptx)}",
                          {"point": at, "cute": value(hit, cute), "ptx": value(hit, ptx)},
                          _repro(frag))
        return Proved(f"{row.key} {row.layout} equals {frag.key} (lane = {thr_row.layout}(t)) at "
                      f"all {threads} x {values} (thread, value)", {})

    return Claim("mma_fragment_is_cute", f"{row.key}~{frag.key}",
                 f"CuTe's {row.role} of {row.atom} is the PTX ISA's {frag.key}: the same element "
                 "at every (thread, value)", body)


def claims(spec: Spec) -> Iterator[Claim]:
    """Every fragment row's bijection; every CuTe layout against each ISA row an atom of its
    traits reads it with (once per pair)."""
    for frag in spec.of(MmaFragment):
        yield bijective(spec, frag)
    seen: set[str] = set()
    for traits in spec.of(CuteMmaTraits):
        have = traits_layouts(spec, traits)
        for operand in OPERANDS:
            found, _ = fragment_of(spec, traits, operand)
            row = have.get(F.ROLE[operand])
            if found is None or row is None or "ThrID" not in have:
                continue  # cute.mma_vs_ptx and cute.mma_traits fail for it
            claim = is_cute(have["ThrID"], row, found)
            if claim.key not in seen:
                seen.add(claim.key)
                yield claim
