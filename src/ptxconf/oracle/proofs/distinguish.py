"""Distinguishing inputs: the smallest probe on which two readings of a rule disagree.

For each hypothesis of ptxconf.oracle.hypotheses and each canonical layout it concerns, Z3
searches the operand (m, k), LBO/SBO, start address and coordinate on which the two readings
put an element at different addresses, smallest first: (m, k) in the order of GRID_ORDER, then
lexicographically LBO, SBO, start, (mn, k). Where no probe exists, that is proved instead (the
readings coincide for every input) and said so. A probe is a frozen record a GPU probe can run:
program the descriptor with its values, read the coordinate, and see which address it hit.

Readings compared:
- swizzle_unit: "bytes" (the swizzle XORs byte-address bits) vs "elements" (it XORs bits of the
  element offset). They coincide for 8-bit elements and for the unswizzled layouts.
- mn_lbo_sbo_roles (MN-major swizzled layouts only): LBO steps MN as documented vs swapped.
  Both readings must give an injective layout on the probe (the exact LBO/SBO condition).
- base_offset: swizzle(start + offset) ("absolute") vs start + swizzle(offset) ("relative"),
  for a start that obeys the 16-byte alignment rule. They coincide without a swizzle.
Addresses are offsets from the operand start, in bytes (bits for sub-byte elements), as
`ptxconf oracle smem-offsets` reports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import z3

from ptxconf.oracle import hypotheses
from ptxconf.oracle.canonical import BITS_PER_BYTE, row_swizzle
from ptxconf.oracle.proofs import render
from ptxconf.oracle.proofs.cache import ProofCache
from ptxconf.oracle.proofs.encode import BitForm, Encoder, IntEncoder, bit_form
from ptxconf.oracle.proofs.layouts import Operand, condition
from ptxconf.oracle.proofs.params import int_offsets, offset_domain, symbolic_offsets, wgmma_dtypes
from ptxconf.oracle.proofs.runner import Claim, ProofResult, Proved, Prover, prove, value
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec

#: (m, k) tried in this order; the first that separates the readings is used.
GRID_ORDER = ((1, 1), (2, 1), (1, 2), (2, 2))
#: m and k range over [1, SYMBOLIC_MAX] when the readings are proved to coincide.
SYMBOLIC_MAX = 8


@dataclass(frozen=True)
class DistinguishingProbe:
    """An input on which two readings differ, or the proof that none exists."""

    hypothesis: str
    readings: tuple[str, str]
    row: str
    major: str
    swizzle: str
    dtype: str
    distinguishable: bool
    reason: str
    m: int | None = None
    k: int | None = None
    mn_elems: int | None = None
    k_elems: int | None = None
    lbo_bytes: int | None = None
    sbo_bytes: int | None = None
    start_bytes: int | None = None
    coord: tuple[int, int] | None = None
    addresses: tuple[int, int] | None = None
    units: str = "bytes"

    def as_dict(self) -> dict[str, Any]:
        """JSON view."""
        return asdict(self)


def _extent(form: BitForm, m: int, k: int) -> tuple[int, int]:
    """(MN, K) extent in elements of the operand at (m, k)."""
    out = [1, 1]
    for lf in form.leaves:
        out[lf.mode] *= lf.shape.at({"m": m, "k": k})
    return out[0], out[1]


def _probe(op: Operand, hyp: hypotheses.Hypothesis, readings: tuple[str, str], reason: str,
           **found: Any) -> DistinguishingProbe:
    """A probe record for one operand; ``found`` holds the distinguishing values, if any."""
    base: dict[str, Any] = {"hypothesis": hyp.name, "readings": readings, "row": op.row.key,
                            "major": op.row.major, "swizzle": op.row.swizzle, "dtype": op.dtype,
                            "units": render.address_units_name(op.bits)}
    if found:
        mn, kk = _extent(op.form, found["m"], found["k"])
        return DistinguishingProbe(**base, distinguishable=True, reason=reason, mn_elems=mn,
                                   k_elems=kk, **found)
    return DistinguishingProbe(**base, distinguishable=False, reason=reason)


def _units(op: Operand, bit_offset: int) -> int:
    return render.oracle_units(bit_offset, op.bits)


def swizzle_unit(prover: Prover, op: Operand) -> DistinguishingProbe:
    """bytes vs elements: the swizzle of one form moved to two different units."""
    hyp = hypotheses.SWIZZLE_UNIT
    names = ("bytes", "elements")
    forms = [bit_form(op.row.layout, op.bits, t=op.t, swizzle=row_swizzle(op.row), reading=r)
             for r in names]
    enc = prover.encoder()
    for m, k in GRID_ORDER:
        off = symbolic_offsets(op.spec, enc)
        env = {"m": m, "k": k, **off.env(op.bits)}
        cs, dom = enc.coords(forms[0], "c", env, env)
        a0, a1 = (enc.address(f, cs, env) for f in forms)
        mode = _mode_exprs(enc, forms[0], cs, m, k)
        hit = prover.minimize([*off.domain, *dom, a0 != a1],
                              [off.lbo_bytes, off.sbo_bytes, *mode])
        if hit is not None:
            coord = tuple(value(hit, e) for e in mode)
            lbo, sbo = value(hit, off.lbo_bytes), value(hit, off.sbo_bytes)
            addrs = _check(op, m, k, lbo, sbo, coord, names, (value(hit, a0), value(hit, a1)))
            return _probe(op, hyp, names, _text(op, names, m, k, lbo, sbo, None, coord, addrs),
                          m=m, k=k, lbo_bytes=lbo, sbo_bytes=sbo, start_bytes=0,
                          coord=coord, addresses=addrs)
    return _coincide(prover, op, hyp, names, forms, relative=False)


def _mode_exprs(enc: Encoder, form: BitForm, cs: list[z3.BitVecRef], m: int,
                k: int) -> list[z3.BitVecRef]:
    """(mn, k) coordinate expressions from the leaf coordinates at concrete shapes."""
    out = [enc.val(0), enc.val(0)]
    scale = [1, 1]
    for c, lf in zip(cs, form.leaves, strict=True):
        out[lf.mode] = out[lf.mode] + enc.lift(c) * scale[lf.mode]
        scale[lf.mode] *= lf.shape.at({"m": m, "k": k})
    return out


def _coincide(prover: Prover, op: Operand, hyp: hypotheses.Hypothesis, names: tuple[str, str],
              forms: list[BitForm], *, relative: bool) -> DistinguishingProbe:
    """Prove the readings agree for every m, k <= SYMBOLIC_MAX, LBO, SBO, start, coordinate."""
    enc = prover.encoder()
    off = symbolic_offsets(op.spec, enc)
    m, k = enc.var("m", 4), enc.var("k", 4)
    env = {"m": m, "k": k, **off.env(op.bits)}
    bounds = {"m": SYMBOLIC_MAX, "k": SYMBOLIC_MAX}
    cs, dom = enc.coords(forms[0], "c", env, bounds)
    start = enc.var("start")
    ranges = [z3.UGE(m, 1), z3.ULE(m, SYMBOLIC_MAX), z3.UGE(k, 1), z3.ULE(k, SYMBOLIC_MAX),
              *_start_domain(op.spec, start)]
    if relative:
        a0 = enc.address(forms[0], cs, env, start * BITS_PER_BYTE)
        a1 = enc.address(forms[0], cs, env, start * BITS_PER_BYTE, relative=True)
    else:
        a0, a1 = (enc.address(f, cs, env) for f in forms)
    prover.satisfiable(f"{op.row.id} {op.dtype}: operands", ranges, off.domain, dom)
    hit = prover.find(ranges, off.domain, dom, a0 != a1)
    if hit is not None:
        raise AssertionError(f"{op.row.id} {op.dtype}: {hyp.name} readings differ only past "
                             f"{GRID_ORDER[-1]}: m={value(hit, m)}, k={value(hit, k)}")
    return _probe(op, hyp, names,
                  f"{op.row.id} {op.dtype}: {names[0]} and {names[1]} give the same address "
                  f"for every m, k <= {SYMBOLIC_MAX}, LBO, SBO, start and coordinate (proved)")


def _start_domain(spec: Spec, start: z3.BitVecRef) -> list[z3.BoolRef]:
    """Starts the descriptor can hold (the 16-byte alignment rule)."""
    d = offset_domain(spec, "start_address")
    return [z3.ULE(start, d.max_bytes), z3.URem(start, d.granule_bytes) == 0]


def base_offset(prover: Prover, op: Operand) -> DistinguishingProbe:
    """absolute vs relative: swizzle(start + offset) against start + swizzle(offset)."""
    hyp = hypotheses.BASE_OFFSET
    names = ("absolute", "relative")
    enc = prover.encoder()
    for m, k in GRID_ORDER:
        off = symbolic_offsets(op.spec, enc)
        env = {"m": m, "k": k, **off.env(op.bits)}
        cs, dom = enc.coords(op.form, "c", env, env)
        start = enc.var("start")
        sbits = start * BITS_PER_BYTE
        a0 = enc.address(op.form, cs, env, sbits) - sbits
        a1 = enc.address(op.form, cs, env, sbits, relative=True) - sbits
        mode = _mode_exprs(enc, op.form, cs, m, k)
        hit = prover.minimize([*off.domain, *dom, *_start_domain(op.spec, start), a0 != a1],
                              [off.lbo_bytes, off.sbo_bytes, start, *mode])
        if hit is not None:
            coord = tuple(value(hit, e) for e in mode)
            lbo, sbo, st = (value(hit, v) for v in (off.lbo_bytes, off.sbo_bytes, start))
            addrs = _check(op, m, k, lbo, sbo, coord, names, (value(hit, a0), value(hit, a1)),
                           start=st)
            return _probe(op, hyp, names, _text(op, names, m, k, lbo, sbo, st, coord, addrs),
                          m=m, k=k, lbo_bytes=lbo, sbo_bytes=sbo, start_bytes=st,
                          coord=coord, addresses=addrs)
    return _coincide(prover, op, hyp, names, [op.form, op.form], relative=True)


def lbo_sbo_roles(prover: Prover, op: Operand) -> DistinguishingProbe:
    """as_documented vs swapped, both readings injective (linear integer arithmetic)."""
    hyp = hypotheses.MN_LBO_SBO_ROLES
    names = ("as_documented", "swapped")
    ienc = IntEncoder(prover.ctx)
    for m, k in GRID_ORDER:
        off = int_offsets(op.spec, prover.ctx, op.bits)
        ok = [condition(prover, op, m, k, off, swap=s).clause for s in (False, True)]
        shapes = op.form.shapes_at({"m": m, "k": k})
        cs, dom = ienc.coords(op.form, "c", shapes)
        swapped = {"LBO": off.elems["SBO"], "SBO": off.elems["LBO"]}
        o0 = ienc.offset(op.form, cs, shapes, off.elems)
        o1 = ienc.offset(op.form, cs, shapes, swapped)
        mode = [ienc.val(0), ienc.val(0)]
        scale = [1, 1]
        for c, lf, s in zip(cs, op.form.leaves, shapes, strict=True):
            mode[lf.mode] = mode[lf.mode] + c * scale[lf.mode]
            scale[lf.mode] *= s
        hit = prover.minimize([*off.domain, *ok, *dom, o0 != o1],
                              [off.lbo_bytes, off.sbo_bytes, *mode])
        if hit is not None:
            coord = tuple(value(hit, e) for e in mode)
            lbo, sbo = value(hit, off.lbo_bytes), value(hit, off.sbo_bytes)
            enc = prover.encoder()
            leaves = op.form.leaf_coords(coord, {"m": m, "k": k})
            env = {"m": m, "k": k}
            mine = tuple(enc.address_at(op.form, leaves, {**env, **_elems(op, a, b)})
                         for a, b in ((lbo, sbo), (sbo, lbo)))
            addrs = _check(op, m, k, lbo, sbo, coord, names, mine)
            return _probe(op, hyp, names, _text(op, names, m, k, lbo, sbo, None, coord, addrs),
                          m=m, k=k, lbo_bytes=lbo, sbo_bytes=sbo, start_bytes=0,
                          coord=coord, addresses=addrs)
    raise AssertionError(f"{op.row.id}: LBO and SBO roles never differ up to {GRID_ORDER[-1]}")


def _elems(op: Operand, lbo_bytes: int, sbo_bytes: int) -> dict[str, int]:
    return {"LBO": lbo_bytes * BITS_PER_BYTE // op.bits,
            "SBO": sbo_bytes * BITS_PER_BYTE // op.bits}


def _check(op: Operand, m: int, k: int, lbo: int, sbo: int, coord: tuple[int, ...],
           names: tuple[str, str], mine: tuple[int, ...], start: int = 0) -> tuple[int, int]:
    """Recompute both readings' addresses with the oracle; return them in oracle units."""
    got = []
    for name in names:
        reading = {"elements": "elements"}.get(name, "bytes")
        roles = name == "swapped"
        lb, sb = (sbo, lbo) if roles else (lbo, sbo)
        rel = name == "relative"
        _, addr = render.canonical_reproduce(
            op.spec, op.row, t=op.t, m=m, k=k, lbo_elems=lb * BITS_PER_BYTE // op.bits,
            sbo_elems=sb * BITS_PER_BYTE // op.bits, elem_bits=op.bits, coords=[coord],
            reading=reading, base_offset_bytes=0 if rel else start)
        got.append(addr[0])
    want = tuple(_units(op, b) for b in mine)
    if tuple(got) != want:
        raise AssertionError(f"{op.row.key} {op.dtype} {names}: encoding {want}, oracle "
                             f"{tuple(got)}")
    return want  # type: ignore[return-value]  # two names, two addresses


def _text(op: Operand, names: tuple[str, str], m: int, k: int, lbo: int, sbo: int,
          start: int | None, coord: tuple[int, ...], addrs: tuple[int, int]) -> str:
    where = render.Point(coord, op.row.major, op.bits, 0).text()
    unit = render.address_units_name(op.bits)
    start_text = f", start {start:#x}" if start is not None else ""
    return (f"{op.row.id} {op.dtype} m={m} k={k} LBO={lbo:#x} SBO={sbo:#x}{start_text}: "
            f"{where} is at {addrs[0]:#x} ({names[0]}) vs {addrs[1]:#x} ({names[1]}) {unit} "
            f"from the start")


#: A search for one hypothesis on one operand.
Search = Callable[[Prover, Operand], DistinguishingProbe]


def _claim(spec: Spec, row: CanonicalLayout, dtype: str, hyp: hypotheses.Hypothesis,
           search: Search) -> Claim:
    key = f"{row.key}.{dtype}"

    def body(prover: Prover) -> Proved:
        probe = search(prover, Operand.of(spec, row, dtype))
        return Proved(probe.reason, {"probe": probe.as_dict()})

    return Claim(f"distinguish_{hyp.name}", key,
                 f"{row.id} {dtype}: find the smallest input that separates the "
                 f"{hyp.name} readings, or prove there is none", body, documented=False)


def searches(spec: Spec) -> Iterator[tuple[hypotheses.Hypothesis, CanonicalLayout, str, Search]]:
    """(hypothesis, canonical row, element type, search): one per hypothesis and canonical row
    (and element width where the unit matters)."""
    dtypes = wgmma_dtypes(spec)
    for row in spec.of(CanonicalLayout):
        for dtype in dtypes:
            yield hypotheses.SWIZZLE_UNIT, row, dtype, swizzle_unit
        yield hypotheses.BASE_OFFSET, row, dtypes[0], base_offset
        if row.major == "MN" and row.swizzle != "none":
            yield hypotheses.MN_LBO_SBO_ROLES, row, dtypes[0], lbo_sbo_roles


def claims(spec: Spec) -> Iterator[Claim]:
    """The claim of each search (`searches`)."""
    for hyp, row, dtype, search in searches(spec):
        yield _claim(spec, row, dtype, hyp, search)


def distinguishing_probes(spec: Spec, *, timeout_s: float = 20.0,
                          cache: ProofCache | None = None) -> list[DistinguishingProbe]:
    """Every probe (or proof of indistinguishability); RuntimeError if a search ends unknown.
    With a proof cache, a search the proofs provider proved before under the same key (the
    claim's text, the time limit, the solver, the oracle's code and the spec) is not run
    again: its probe is in the cached outcome's facts; a search proved here is kept there as
    the provider keeps it (the next run, another lane and the provider's own case read it)."""
    out = []
    for claim in claims(spec):
        hit = cache.get(claim.id, claim.statement, timeout_s) if cache is not None else None
        facts = (hit or {}).get("fields", {}).get("facts") or {}
        if hit is not None and hit["proof_status"] == "proved" and "probe" in facts:
            d = facts["probe"]
        else:
            result = prove(claim, timeout_s=timeout_s)
            if result.status != "proved":
                raise RuntimeError(f"{result.id}: {result.status}: {result.reason}")
            if cache is not None:
                _keep(cache, claim, result, timeout_s)
            d = result.details["probe"]
        out.append(DistinguishingProbe(**{**d, "readings": tuple(d["readings"]),
                                          "coord": _tuple(d["coord"]),
                                          "addresses": _tuple(d["addresses"])}))
    return out


def _keep(cache: ProofCache, claim: Claim, result: ProofResult, timeout_s: float) -> None:
    """Keep a proved search in the proof cache: the entry the proofs provider's case writes
    (its message is the proof's reason, its fields the result's: cases.outcome_of)."""
    cache.put(claim.id, claim.statement, timeout_s, result.status, result.reason, result.fields())


def _tuple(x: Any) -> Any:
    return None if x is None else tuple(x)
