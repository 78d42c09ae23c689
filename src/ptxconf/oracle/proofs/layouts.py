"""Canonical layouts are injective, and exactly when: the k bound and the LBO/SBO condition.

A canonical layout splits into its *core* (leaves with constant strides: one repeat of the
pattern) and its *repeats* (leaves stepped by LBO or SBO). Its swizzled form
swizzle(outer(c)) is injective iff the outer layout is (the swizzle is a bijection of the
address space: `swizzle_lemma`, in bit-vectors), and the outer layout is injective iff

1. the core is: proved for every m, k >= 1 at once; where the core grows with k (the K-major
   swizzled layouts) Z3 finds the least k with a collision instead;
2. every non-zero repeat step sum(delta_i * stride_i), |delta_i| < the leaf's extent, avoids the
   core's difference set D = {a - b : a, b in the core's image}. D is enumerated from the core
   the algebra gives. For each (m, k) of GRID and each element width Z3 proves that this
   condition implies injectivity for symbolic LBO/SBO over the descriptor's whole range, and
   that some LBO/SBO meet it. Outside it a collision exists by construction (every point of D
   is a difference of two core offsets); the one with the smallest SBO, LBO is shown.

These queries are in linear integer arithmetic over the same leaves: bit-blasted products of
symbolic LBO/SBO with coordinates took minutes (K_INTER, m = k = 3) where integers take
milliseconds; `no_wrap` keeps every offset below 2^32, so the bit-vector layout has exactly
the same collisions. Every counterexample is re-evaluated with the bit-vector encoding and with
the oracle. Claims are made under the swizzle-unit reading "bytes" (ptxconf.oracle.hypotheses);
injectivity is the same under "elements", the swizzle being a bijection either way.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ptxconf.oracle.canonical import BITS_PER_BYTE, row_swizzle, t_elems
from ptxconf.oracle.proofs import intervals, render
from ptxconf.oracle.proofs.encode import (
    ADDRESS_BITS,
    Affine,
    BitForm,
    Encoder,
    IntEncoder,
    bit_form,
)
from ptxconf.oracle.proofs.params import (
    IntOffsets,
    int_offsets,
    offset_domain,
    wgmma_dtypes,
)
from ptxconf.oracle.proofs.render import CHUNK_BYTES
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.proofs.solver import z3
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec

#: The reading of the swizzle unit these claims are made under.
READING = "bytes"
#: m and k are enumerated over GRID for the exact LBO/SBO condition.
GRID = (1, 2, 3)


@dataclass(frozen=True)
class Operand:
    """A canonical row instantiated for one element type."""

    spec: Spec
    row: CanonicalLayout
    dtype: str
    bits: int
    t: int
    form: BitForm

    @classmethod
    def of(cls, spec: Spec, row: CanonicalLayout, dtype: str) -> Operand:
        """Derive the bit form of the row's template for ``dtype``."""
        bits, t = spec.element_bits(dtype), t_elems(spec, dtype)
        form = bit_form(row.layout, bits, t=t, swizzle=row_swizzle(row), reading=READING)
        return cls(spec, row, dtype, bits, t, form)

    def report(self, enc: Encoder, v1: tuple[int, ...], v2: tuple[int, ...], m: int, k: int,
               lbo_bytes: int, sbo_bytes: int) -> tuple[dict[str, Any], str]:
        """Two coordinates as a counterexample dict and a reproduce line; the addresses come
        from the bit-vector encoding and are checked against the oracle."""
        elems = {"LBO": lbo_bytes * BITS_PER_BYTE // self.bits,
                 "SBO": sbo_bytes * BITS_PER_BYTE // self.bits}
        env = {"m": m, "k": k, **elems}
        p1, p2 = render.named_in_order(*(render.point(self.form, v, env, self.row.major,
                                                      enc.address_at(self.form, v, env))
                                         for v in (v1, v2)))
        line, got = render.canonical_reproduce(
            self.spec, self.row, t=self.t, m=m, k=k, lbo_elems=elems["LBO"],
            sbo_elems=elems["SBO"], elem_bits=self.bits, coords=[p1.mode_coords, p2.mode_coords])
        render.check_against_oracle(self.row.key, [p1, p2], got)
        same = "both at" if p1.bit_address == p2.bit_address else "at"
        where = (render.hex_address(p1.bit_address, self.bits) if same == "both at" else
                 f"{render.hex_address(p1.bit_address, self.bits)} and "
                 f"{render.hex_address(p2.bit_address, self.bits)}")
        text = (f"{self.row.id} {self.dtype} m={m} k={k} LBO={lbo_bytes:#x} SBO={sbo_bytes:#x}: "
                f"{p1.text()} and {p2.text()} {same} {where}")
        cex = {"summary": text, "dtype": self.dtype, "m": m, "k": k, "lbo_bytes": lbo_bytes,
               "sbo_bytes": sbo_bytes, "points": [p1.as_dict(), p2.as_dict()]}
        return cex, line


def swizzle_lemma(prover: Prover, form: BitForm) -> None:
    """The form's swizzle (on bit addresses) is injective on the whole address space."""
    if form.swizzle is None:
        return
    enc = prover.encoder()
    x, y = enc.var("x"), enc.var("y")
    hit = prover.find(x != y, enc.swz(x, form.swizzle) == enc.swz(y, form.swizzle))
    if hit is not None:
        raise Refuted(f"{form.swizzle} on bit addresses is not injective: {value(hit, x):#x} and "
                      f"{value(hit, y):#x}", {"x": value(hit, x), "y": value(hit, y)})


def no_wrap(spec: Spec, form: BitForm, m: int, k: int) -> int:
    """The largest bit offset of the outer layout over the LBO/SBO domain; below 2^32."""
    top = {n: offset_domain(spec, n).max_bytes * BITS_PER_BYTE // form.elem_bits
           for n in ("LBO", "SBO")}
    env = {"m": m, "k": k, **top}
    reach = sum((lf.shape.at(env) - 1) * lf.stride.at(env) for lf in form.leaves)
    if reach >= 1 << ADDRESS_BITS:
        raise ValueError(f"{form.text}: offsets reach {reach:#x}, past the bit-vector width")
    return reach


def core_bound(prover: Prover, op: Operand) -> tuple[int, dict[str, Any], str] | None:
    """None when the core is injective for every m, k >= 1; else the smallest k with two core
    coordinates at one offset, that collision (swizzled addresses), and its reproduce line.

    The repeat leaves add the same offset to both coordinates, so they cancel; m and k are
    unbounded integers (the core's shapes are linear in them).
    """
    ienc = IntEncoder(prover.ctx)
    m, k = ienc.var("m"), ienc.var("k")
    env = {"m": m, "k": k}
    core = op.form.core()
    cs1 = [ienc.var(f"a{i}") for i in core]
    cs2 = [ienc.var(f"b{i}") for i in core]
    dom = [m >= 1, k >= 1]
    total1, total2 = ienc.val(0), ienc.val(0)
    for i, c1, c2 in zip(core, cs1, cs2, strict=True):
        lf = op.form.leaves[i]
        shape = ienc.affine(lf.shape, env)
        dom += [c1 >= 0, c1 < shape, c2 >= 0, c2 < shape]
        total1, total2 = total1 + c1 * lf.stride.const, total2 + c2 * lf.stride.const
    differ = z3.Or([x != y for x, y in zip(cs1, cs2, strict=True)])
    model = prover.minimize([*dom, differ, total1 == total2], [k, m, total1])
    if model is None:
        return None
    kmin, mmin = value(model, k), value(model, m)
    v1, v2 = [0] * len(op.form.leaves), [0] * len(op.form.leaves)
    for i, c1, c2 in zip(core, cs1, cs2, strict=True):
        v1[i], v2[i] = value(model, c1), value(model, c2)
    cex, line = op.report(prover.encoder(), tuple(v1), tuple(v2), mmin, kmin, 0, 0)
    return kmin, cex, line


@dataclass(frozen=True)
class Condition:
    """The exact LBO/SBO condition for one (m, k): each step term avoids the difference set."""

    terms: tuple[str, ...]
    forbidden: str
    clause: z3.BoolRef
    off: IntOffsets
    pair: tuple[list[z3.ArithRef], list[z3.ArithRef], list[z3.BoolRef]]
    collide: list[z3.BoolRef]

    def text(self) -> str:
        """E.g. ``SBO, LBO, SBO-LBO, SBO+LBO not in (-128, 128) B``."""
        if not self.terms:
            return "always (no repeat step)"
        return f"{', '.join(self.terms)} not in {self.forbidden} B"


def _stride_text(a: Affine, bits: int) -> str:
    """A repeat stride in template names: ``SBO``, ``2LBO``."""
    parts = [f"{'' if c == bits else _frac(c, bits)}{s}" for s, c in a.coefs]
    if a.const:
        parts.append(f"{a.const // BITS_PER_BYTE}")
    return "+".join(parts)


def _frac(c: int, bits: int) -> str:
    return str(c // bits) if c % bits == 0 else f"{c}/{bits}"


def _step_text(delta: tuple[int, ...], names: list[str]) -> str:
    text = ""
    for d, name in zip(delta, names, strict=True):
        if d == 0:
            continue
        mag = "" if abs(d) == 1 else str(abs(d))
        text += ("-" if d < 0 else ("+" if text else "")) + mag + name
    return text


def condition(prover: Prover, op: Operand, m: int, k: int, off: IntOffsets | None = None,
              swap: bool = False) -> Condition:
    """The exact LBO/SBO condition at (m, k), in linear integer arithmetic; ``swap`` binds the
    template's LBO to the SBO value and vice versa (the mn_lbo_sbo_roles hypothesis)."""
    form = op.form
    shapes = form.shapes_at({"m": m, "k": k, "LBO": 0, "SBO": 0})
    core = form.core()
    image = [sum(c * form.leaves[i].stride.const for c, i in zip(cs, core, strict=True))
             for cs in itertools.product(*(range(shapes[i]) for i in core))]
    diff = intervals.differences(intervals.runs(image, op.bits), op.bits)
    ienc = IntEncoder(prover.ctx)
    off = off or int_offsets(op.spec, prover.ctx, op.bits)
    env = {"LBO": off.elems["SBO"], "SBO": off.elems["LBO"]} if swap else off.elems
    reps = [i for i in form.repeats() if shapes[i] > 1]
    names = [_stride_text(form.leaves[i].stride, op.bits) for i in reps]
    clauses, terms = [], []
    for delta in itertools.product(*(range(1 - shapes[i], shapes[i]) for i in reps)):
        nonzero = [d for d in delta if d]
        if not nonzero or nonzero[0] < 0:
            continue
        step = ienc.val(0)
        for d, i in zip(delta, reps, strict=True):
            step = step + ienc.affine(form.leaves[i].stride, env) * d
        clauses.append(z3.Not(z3.Or([z3.And(lo <= step, step <= hi) for lo, hi in diff])))
        terms.append(_step_text(delta, names))
    c1, d1 = ienc.coords(form, "a", shapes)
    c2, d2 = ienc.coords(form, "b", shapes)
    differ = z3.Or([x != y for x, y in zip(c1, c2, strict=True)])
    same = ienc.offset(form, c1, shapes, env) == ienc.offset(form, c2, shapes, env)
    clause = z3.And(clauses) if clauses else z3.BoolVal(True, prover.ctx)
    return Condition(tuple(terms), intervals.describe(diff, op.bits), clause, off,
                     (c1, c2, d1 + d2), [*d1, *d2, differ, same])


def repeat_condition(prover: Prover, op: Operand, m: int, k: int) -> Condition:
    """Prove: condition on LBO/SBO => the swizzled layout is injective, for this m and k.

    Z3 shows the outer layout injective under the condition (integers, so no wrap-around);
    the swizzle is injective on the address space (`swizzle_lemma`) and the outer offsets stay
    below 2^32 (`no_wrap`), so the swizzled bit-vector layout is injective too.
    """
    cond = condition(prover, op, m, k)
    no_wrap(op.spec, op.form, m, k)
    hit = prover.find(cond.off.domain, cond.clause, cond.collide)
    if hit is not None:
        v1, v2 = (tuple(value(hit, c) for c in cs) for cs in cond.pair[:2])
        cex, line = op.report(prover.encoder(), v1, v2, m, k, value(hit, cond.off.lbo_bytes),
                              value(hit, cond.off.sbo_bytes))
        raise Refuted(f"{op.row.id}: the non-overlap condition does not imply injectivity: "
                      f"{cex['summary']}", cex, line)
    if prover.find(cond.off.domain, cond.clause) is None:
        raise Refuted(f"{op.row.id} m={m} k={k}: no LBO/SBO in the descriptor's range makes "
                      f"it injective", {"m": m, "k": k})
    return cond


def outside_example(prover: Prover, op: Operand, m: int, k: int) -> dict[str, Any] | None:
    """A collision with the smallest non-zero LBO/SBO (where the condition fails)."""
    cond = condition(prover, op, m, k)
    if not cond.terms:
        return None
    nonzero = [cond.off.lbo_bytes >= 1, cond.off.sbo_bytes >= 1]
    model = prover.minimize([*cond.off.domain, *nonzero, *cond.collide],
                            [cond.off.sbo_bytes, cond.off.lbo_bytes])
    if model is None:
        return None
    v1, v2 = (tuple(value(model, c) for c in cs) for cs in cond.pair[:2])
    cex, line = op.report(prover.encoder(), v1, v2, m, k, value(model, cond.off.lbo_bytes),
                          value(model, cond.off.sbo_bytes))
    return {**cex, "reproduce_python": line}


def _showcase(op: Operand, kmax: int) -> tuple[int, int]:
    """The smallest (m, k) of the grid at which every repeat leaf takes two or more values."""
    for m, k in sorted(itertools.product(GRID, GRID), key=lambda p: (p[0] + p[1], p)):
        if k > kmax:
            continue
        shapes = op.form.shapes_at({"m": m, "k": k, "LBO": 0, "SBO": 0})
        if all(shapes[i] > 1 for i in op.form.repeats()):
            return m, k
    return 1, 1


def _core_text(row: CanonicalLayout, k_ok: int) -> str:
    """The k bound in words, tied to the swizzle row width where it is that bound."""
    if k_ok < 1:
        return "its core (one repeat) is never injective"
    width = 1 << (row.swizzle_bits + row.swizzle_base)
    chunk = 2 * CHUNK_BYTES
    why = (f" (2k*{CHUNK_BYTES} B <= {width} B, the swizzle row width)"
           if row.swizzle_bits and k_ok * chunk <= width < (k_ok + 1) * chunk else "")
    return f"its core is injective iff k <= {k_ok}{why}"


def canonical_injective(spec: Spec, row: CanonicalLayout) -> Claim:
    """The claim for one canonical-layout row."""

    def body(prover: Prover) -> Proved:
        bounds: dict[str, tuple[int, dict[str, Any], str]] = {}
        conditions: dict[str, dict[str, str]] = {}
        showcase: dict[str, Any] = {}
        for dtype in wgmma_dtypes(spec):
            op = Operand.of(spec, row, dtype)
            found = core_bound(prover, op)
            kmax = GRID[-1]
            if found is not None:
                bounds[dtype] = found
                kmax = min(kmax, found[0] - 1)
            swizzle_lemma(prover, op.form)
            proved = {(m, k): repeat_condition(prover, op, m, k)
                      for m in GRID for k in range(1, kmax + 1)}
            conditions[dtype] = {f"m={m},k={k}": c.text() for (m, k), c in proved.items()}
            if not showcase and kmax >= 1:
                m, k = _showcase(op, kmax)
                showcase = {"m": m, "k": k, "condition": proved[m, k].text(),
                            "outside": outside_example(prover, op, m, k)}
        texts = {tuple(sorted(c.items())) for c in conditions.values() if c}
        same = "the same in bytes for " if len(texts) == 1 else "per type for "
        cond_line = ""
        if showcase:
            cond_line = (f"; for m, k <= {GRID[-1]} (k within the bound), injective iff every "
                         f"repeat step avoids the core's difference set ({same}"
                         f"{', '.join(d for d, c in conditions.items() if c)}); at "
                         f"m={showcase['m']}, k={showcase['k']}: {showcase['condition']}")
        facts = {"reading": READING, "conditions": conditions, "showcase": showcase}
        if bounds:
            _, (kmin, cex, line) = next(iter(bounds.items()))
            k_ok = min(b[0] for b in bounds.values()) - 1
            raise Refuted(f"{row.id} is not injective for every k: {_core_text(row, k_ok)} "
                          f"({', '.join(bounds)}); at k={kmin}: {cex['summary']}{cond_line}",
                          cex, line, k_bound=k_ok, **facts)
        msg = f"{row.id}: core injective for every m, k >= 1 ({', '.join(conditions)}){cond_line}"
        outside = showcase.get("outside")
        if outside:
            msg += f"; outside it, e.g. {outside['summary']}"
        return Proved(msg, facts)

    return Claim("layout_injective", row.key,
                 f"{row.id} = Swizzle<{row.swizzle_bits},{row.swizzle_base},{row.swizzle_shift}> o "
                 f"{row.layout} is injective (bytes reading) "
                 f"for every m, k, under an exact, satisfiable condition on LBO/SBO", body,
                 recheck=lambda cex: core_collision_recheck(spec, row, cex))


#: The largest m or k a cached counterexample may name (the real ones are below 10).
MAX_RECHECK_REPEATS = 1 << 16


def core_collision_recheck(spec: Spec, row: CanonicalLayout, cex: dict[str, Any]) -> str | None:
    """None when a cached refutation's counterexample is a collision in the row's core: two
    coordinates of one type's layout at (m, k) that share every repeat coordinate and one
    address, so they collide for every LBO/SBO (what `core_bound` reports); else why not."""
    try:
        dtype, m, k = str(cex["dtype"]), render.as_count(cex["m"]), render.as_count(cex["k"])
    except (TypeError, KeyError, ValueError):
        return "its counterexample names no type, m and k"
    if dtype not in wgmma_dtypes(spec) or not (1 <= m <= MAX_RECHECK_REPEATS
                                               and 1 <= k <= MAX_RECHECK_REPEATS):
        return "its counterexample lies outside the claim (type, m or k)"
    op = Operand.of(spec, row, dtype)
    env = {"m": m, "k": k, "LBO": 0, "SBO": 0}

    def oracle(coords: list[tuple[int, ...]]) -> list[int]:
        return render.canonical_reproduce(spec, row, t=op.t, m=m, k=k, lbo_elems=0, sbo_elems=0,
                                          elem_bits=op.bits, coords=coords)[1]

    return render.recheck_collision(op.form, env, cex.get("points"), oracle, op.form.repeats())


def claims(spec: Spec) -> Iterator[Claim]:
    """One injectivity claim per canonical-layout row."""
    for row in spec.of(CanonicalLayout):
        yield canonical_injective(spec, row)
