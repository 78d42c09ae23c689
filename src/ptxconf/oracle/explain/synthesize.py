"""A CuTe shared-memory layout -> the wgmma descriptor that reads it, or why none can.

The layout is what CUTLASS / CuTe DSL print for a shared-memory tile: (mn, k) -> element
offset, optionally `Swizzle<B,M,S> o offset o outer`. CuTe applies a shared-memory layout's
swizzle to the byte address (its smem pointer swizzle; `--swizzle-unit elements` reads it on
the element offsets as written instead), and silicon swizzles byte addresses too
(gpu.hypothesis[swizzle_unit]). With the tile at `start`, element (i, j) is at

    start + swizzle(offset + outer(i, j))        (bytes; the pattern anchored at start)

The tile may hold several operands (a 64 x 64 tile, k16 instructions: four k-blocks). Each
block's descriptor starts at start + offset + outer(block origin), as CUTLASS advances
descriptors. For every major-ness and swizzle mode LBO and SBO are *solved* from the layout
(the canonical template's unswizzled offset is base + steps(LBO) * LBO + steps(SBO) * SBO:
one element where only LBO steps gives LBO), and the candidate is kept only when the oracle's
read map of its descriptor equals the layout's addresses on every element of every block.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ptxconf.oracle import canonical, facts, interpret
from ptxconf.oracle.algebra.notation import parse_printed
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
from ptxconf.oracle.descriptor import DescriptorError, descriptor_format
from ptxconf.oracle.domain import DomainError, check_major, descriptor_swizzles
from ptxconf.oracle.records import SwizzleAtom, atom_name
from ptxconf.oracle.spec import Spec

from .operand import ExplainError, Operand
from .printed import UserLayout, parse_layout
from .readmap import Context, Descriptor, analyse, base_rule, linear, read_map, rule_field

ROW_BYTES = 128


@dataclass(frozen=True)
class Block:
    """One operand of the tile: its origin (mn, k) and the descriptor that reads it."""

    origin: tuple[int, int]
    desc: Descriptor

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"origin": list(self.origin), **self.desc.as_dict()}


@dataclass(frozen=True)
class Synthesis:
    """A descriptor per block, checked element by element against the layout."""

    layout: UserLayout
    operand: Operand
    start: int
    blocks: tuple[Block, ...]
    checked: int
    others: tuple[tuple[str, str], ...] = ()

    @property
    def desc(self) -> Descriptor:
        """The first block's descriptor."""
        return self.blocks[0].desc

    def block_steps(self) -> dict[str, int | None]:
        """How far the start moves per k-block and per MN block (None: one block)."""
        by = {b.origin: b.desc.start_address for b in self.blocks}
        k_step = by.get((0, self.operand.k))
        mn_step = by.get((self.operand.mn, 0))
        base = self.desc.start_address
        return {"k_block": None if k_step is None else k_step - base,
                "mn_block": None if mn_step is None else mn_step - base}

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        d = self.desc
        return {"ok": True, "layout": self.layout.text, "dtype": self.layout.dtype,
                "swizzle_unit": self.layout.swizzle_unit,
                "swizzle_on_bytes": self.layout.swizzle_text(),
                "tile": [self.layout.mn, self.layout.k], "operand": self.operand.as_dict(),
                "major": self.operand.major, "imm_trans": self.operand.imm_trans,
                "swizzle": d.swizzle, "lbo": d.lbo, "sbo": d.sbo, "base_offset": d.base_offset,
                "start_address": self.start, "descriptor": f"{d.value:#018x}",
                "blocks": [b.as_dict() for b in self.blocks], "steps": self.block_steps(),
                "checked_elements": self.checked,
                "also_reads": [{"major": m, "swizzle": s} for m, s in self.others],
                "proof": f"proof.synthesis_equivalent[wgmma/canonical_layouts:"
                         f"{atom_name(self.operand.major, d.swizzle)}]"}


@dataclass(frozen=True)
class Refusal:
    """Why no descriptor reads the layout, the closest try, and nearby layouts that work."""

    layout: UserLayout
    reasons: tuple[str, ...]
    closest: dict[str, Any] | None = None
    suggestions: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    #: The domain rule the layout breaks (DOMAIN-MAJOR), None where it breaks none.
    rule: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"ok": False, "layout": self.layout.text, "dtype": self.layout.dtype,
                "swizzle_unit": self.layout.swizzle_unit,
                "swizzle_on_bytes": self.layout.swizzle_text(),
                "tile": [self.layout.mn, self.layout.k], "reasons": list(self.reasons),
                "rule": self.rule, "closest": self.closest,
                "suggestions": list(self.suggestions)}


# --- solving -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Try:
    major: str
    swizzle: str
    desc: Descriptor | None
    why: str | None
    mismatches: int = 0
    first: tuple[tuple[int, int], int, int] | None = None


def _solve(steps: np.ndarray, other: np.ndarray, p: np.ndarray, base: np.ndarray) -> int | None:
    """The stride at the first element that takes exactly one step of it and none of the other."""
    hit = np.argwhere((steps == 1) & (other == 0))
    if not len(hit):
        return None
    i, j = (int(x) for x in hit[0])
    return int(p[i, j] - base[i, j])


def _try(spec: Spec, ul: UserLayout, op: Operand, sw: str, start: int,
         blocks: list[tuple[int, int]]) -> _Try:
    """Solve LBO/SBO for one major-ness and swizzle; check every block against the oracle."""
    lin = linear(spec, op, sw)
    granule = interpret.stride_granule_bytes(spec)
    raw = ul.unswizzled()
    user = ul.addresses(start)
    rule = base_rule(spec, sw)
    if rule is not None and start % ROW_BYTES:
        return _Try(op.major, sw, None, f"the start {start:#x} is inside a 128-byte row: no "
                    "base-offset field anchors a swizzle pattern there")
    field_value = rule_field(spec, sw, start)
    descs: list[Descriptor] = []
    total, first = 0, None
    for i0, j0 in blocks:
        p = raw[i0:i0 + op.mn, j0:j0 + op.k] - raw[i0, j0]
        lbo = _solve(lin.lbo_steps, lin.sbo_steps, p, lin.base)
        sbo = _solve(lin.sbo_steps, lin.lbo_steps, p, lin.base)
        lbo = granule if lbo is None else lbo
        sbo = granule if sbo is None else sbo
        try:
            d = Descriptor.of(spec, start_address=start + int(raw[i0, j0]), lbo=lbo, sbo=sbo,
                              swizzle=sw, base_offset=field_value)
        except DescriptorError as exc:
            return _Try(op.major, sw, None, f"block ({i0}, {j0}): {exc}")
        got = lin.addresses(spec, d)
        want = user[i0:i0 + op.mn, j0:j0 + op.k]
        bad = got != want
        if bad.any():
            total += int(bad.sum())
            if first is None:
                i, j = (int(x) for x in np.argwhere(bad)[0])
                first = ((i0 + i, j0 + j), int(want[i, j]), int(got[i, j]))
        descs.append(d)
        if total:
            break
    if total:
        return _Try(op.major, sw, descs[0], "differs", total, first)
    return _Try(op.major, sw, descs[0], None)


def _blocks(ul: UserLayout, op: Operand) -> list[tuple[int, int]]:
    if ul.mn < op.mn or ul.k < op.k or ul.mn % op.mn or ul.k % op.k:
        raise ExplainError("EXPLAIN-LAYOUT-SHAPE", (
            f"the layout covers {ul.mn}x{ul.k} (mn x k), the operand is {op.mn}x{op.k}: the tile "
            "must be a whole number of operands"))
    return [(i, j) for i in range(0, ul.mn, op.mn) for j in range(0, ul.k, op.k)]


def _hardware_swizzles(spec: Spec) -> dict[str, Swizzle]:
    """Each swizzle mode's Swizzle<B,M,S> on byte addresses (the canonical rows', K-major)."""
    return {sw: canonical.row_swizzle(canonical.canonical_row(spec, "K", sw))
            for sw in descriptor_swizzles(spec)}


def in_unit(spec: Spec, swz: Swizzle, dtype: str, unit: str) -> Swizzle:
    """A byte-address swizzle written in a unit (elements: M moves down by log2 of the bytes
    an element takes)."""
    if unit == "bytes":
        return swz
    shift = (spec.element_bits(dtype) // canonical.BITS_PER_BYTE).bit_length() - 1
    return swz.rebased(-shift)


def synthesize(spec: Spec, text: str, op: Operand, *, majors: tuple[str, ...] | None = None,
               start: int = 0, swizzle_unit: str | None = None,
               suggest: bool = True) -> Synthesis | Refusal:
    """The descriptor(s) that read the layout, or why none can (ExplainError on bad input;
    `swizzle_unit` None: as the print says, else bytes)."""
    ul = parse_layout(spec, text, op.dtype, swizzle_unit)
    majors = majors or (op.major,)
    granule = 1 << descriptor_format(spec).field("start_address").encode_shift_bits
    if start < 0 or start % granule:
        raise ExplainError("EXPLAIN-LAYOUT", f"--start-address {start:#x}: expected a multiple "
                           f"of {granule} B (the start-address field stores it >> "
                           f"{granule.bit_length() - 1})")
    tries: list[_Try] = []
    blocks: list[tuple[int, int]] = []
    for major in majors:
        if major == "MN" and not facts.takes_imm_trans(spec, op.dtype):
            continue
        mop = replace(op, major=major)
        blocks = _blocks(ul, mop)
        for sw in descriptor_swizzles(spec):
            tries.append(_try(spec, ul, mop, sw, start, blocks))
    flat = ul.addresses(start).ravel()
    injective = len(np.unique(flat)) == flat.size
    found = [t for t in tries if t.why is None]
    if found and injective:
        best = next((t for t in found if _same_swizzle(spec, ul, t.swizzle)), found[0])
        mop = replace(op, major=best.major)
        descs = _all_blocks(spec, ul, mop, best.swizzle, start, blocks)
        ctx = Context(start)
        user = ul.addresses(start)
        for b in descs:
            got = read_map(spec, mop, b.desc).addresses  # the oracle itself, every element
            i0, j0 = b.origin
            a = analyse(spec, mop, b.desc, got, ctx)
            if not np.array_equal(got, user[i0:i0 + mop.mn, j0:j0 + mop.k]) or not a.valid:
                raise AssertionError(f"synthesised {b.desc.text()} does not read the layout "
                                     f"validly ({a.errors})")
        others = tuple((t.major, t.swizzle) for t in found if t is not best)
        return Synthesis(ul, mop, start, tuple(descs), mop.mn * mop.k * len(blocks), others)
    wrong_major = _untransposable(spec, ul, op, start)
    if wrong_major is not None:
        return Refusal(ul, (wrong_major,), rule="DOMAIN-MAJOR")
    return _refuse(spec, ul, op, majors, start, tries, suggest)


def _runs(spec: Spec, ul: UserLayout, op: Operand) -> dict[str, bool]:
    """Whether the layout's first T elements along k (K) and along mn (MN) are contiguous: the
    16-byte row of a core matrix of that major-ness."""
    raw = ul.unswizzled()
    t = canonical.t_elems(spec, op.dtype)
    eb = ul.bits // canonical.BITS_PER_BYTE
    return {"K": bool(np.all(raw[:, 1:t] - raw[:, : t - 1] == eb)) if ul.k >= t else False,
            "MN": bool(np.all(raw[1:t, :] - raw[: t - 1, :] == eb)) if ul.mn >= t else False}


def _untransposable(spec: Spec, ul: UserLayout, op: Operand, start: int) -> str | None:
    """For an element type wgmma reads K-major only: the DOMAIN-MAJOR refusal (the oracle's
    rule, domain.check_major) of a layout that is MN-major (its core-matrix rows run along mn,
    not k), naming the MN-major descriptor that would read it; None otherwise."""
    runs = _runs(spec, ul, op)
    if facts.takes_imm_trans(spec, op.dtype) or runs["K"] or not runs["MN"]:
        return None
    try:
        check_major(spec, op.dtype, "MN")
        return None  # the rule allows MN-major after all
    except DomainError as e:
        rule = str(e)
    mop = replace(op, major="MN")
    blocks = _blocks(ul, mop)
    read = next((sw for sw in descriptor_swizzles(spec)
                 if _try(spec, ul, mop, sw, start, blocks).why is None), None)
    how = (f"an MN-major {read} descriptor (imm-trans = 1) would read it" if read is not None
           else "no K-major descriptor reads it")
    return (f"{rule}: the layout is MN-major (its 16-byte core-matrix rows run along mn) and "
            f"{how}; store the tile K-major")


def _same_swizzle(spec: Spec, ul: UserLayout, sw: str) -> bool:
    hw = _hardware_swizzles(spec)[sw]
    return (ul.swizzle or Swizzle(0, hw.base, hw.shift)).bits == hw.bits and (
        ul.swizzle is None or ul.swizzle == hw)


def _all_blocks(spec: Spec, ul: UserLayout, op: Operand, sw: str, start: int,
                blocks: list[tuple[int, int]]) -> list[Block]:
    out = []
    for origin in blocks:
        t = _try(spec, ul, op, sw, start, [origin])
        assert t.desc is not None and t.why is None
        out.append(Block(origin, t.desc))
    return out


# --- refusing ----------------------------------------------------------------------------------


def _refuse(spec: Spec, ul: UserLayout, op: Operand, majors: tuple[str, ...], start: int,
            tries: list[_Try], suggest: bool) -> Refusal:
    reasons: list[str] = []
    addr = ul.addresses(start)
    flat = addr.ravel()
    if len(np.unique(flat)) != flat.size:
        order = np.argsort(flat, kind="stable")
        dup = np.nonzero(flat[order][1:] == flat[order][:-1])[0][0]
        a, b = sorted((int(order[dup]), int(order[dup + 1])))
        reasons.append(f"the layout is not injective: (mn {a // ul.k}, k {a % ul.k}) and "
                       f"(mn {b // ul.k}, k {b % ul.k}) are both at {int(flat[a]):#x}: no operand "
                       "puts two elements at one address")
    hw = _hardware_swizzles(spec)
    by_bytes = {str(s): sw for sw, s in hw.items() if s.bits}
    if ul.swizzle is not None and str(ul.swizzle) not in by_bytes:
        names = ", ".join(f"{s} ({sw})" for s, sw in by_bytes.items())
        reasons.append(f"its swizzle acts on byte addresses as {ul.swizzle} (read on "
                       f"{ul.swizzle_unit}); the tensor core's are {names}")
    raw = ul.unswizzled()
    t = canonical.t_elems(spec, op.dtype)
    eb = ul.bits // canonical.BITS_PER_BYTE
    runs = _runs(spec, ul, op)
    if not any(runs[m] for m in majors):
        reasons.append(f"no {'/'.join(majors)}-major core matrix: wgmma reads 8 rows of 16 "
                       f"contiguous bytes ({t} {op.dtype} elements) along "
                       f"{' or '.join('k' if m == 'K' else 'mn' for m in majors)}, and the "
                       "layout's first such run is not contiguous")
    if ul.swizzle is None and "K" in majors and runs["K"] and ul.mn > 1:
        row = int(raw[1, 0] - raw[0, 0])
        if row != t * eb:
            reasons.append(f"without a swizzle a K-major core matrix is 8 rows of 16 B, 16 B "
                           f"apart (one 128-B block, K_INTER); the layout's rows are {row} B "
                           "apart")
    if ul.swizzle is not None and str(ul.swizzle) in by_bytes and "K" in majors and runs["K"]:
        sw = by_bytes[str(ul.swizzle)]
        width = spec.get(SwizzleAtom, atom_name("K", sw)).leading_u128 * 16
        row = int(raw[1, 0] - raw[0, 0]) if ul.mn > 1 else width
        if row != width:
            reasons.append(f"a K-major {sw} swizzle reads rows {width} B apart (8 rows = "
                           f"{8 * width} B); the layout's rows are {row} B apart")
    scored = sorted((t_ for t_ in tries if t_.desc is not None and t_.first is not None),
                    key=lambda t_: t_.mismatches)
    closest = None
    if scored:
        c = scored[0]
        assert c.desc is not None and c.first is not None
        (i, j), want, got = c.first
        closest = {"major": c.major, "swizzle": c.swizzle, "descriptor": f"{c.desc.value:#018x}",
                   "lbo": c.desc.lbo, "sbo": c.desc.sbo, "mismatches": c.mismatches,
                   "first": {"mn": i, "k": j, "layout": want, "tensor_core": got}}
        reasons.append(f"closest: {c.major}-major {c.swizzle}, LBO {c.desc.lbo} B, SBO "
                       f"{c.desc.sbo} B: {c.mismatches} element(s) differ, the first (mn {i}, "
                       f"k {j}): the layout puts it at {want:#x}, the tensor core reads {got:#x}")
    for t_ in tries:
        if t_.desc is None and t_.why and t_.why not in reasons and "inside a 128-byte" in t_.why:
            reasons.append(t_.why)
    suggestions = _suggestions(spec, ul, op, majors, start) if suggest else ()
    if not reasons:
        reasons.append("no major-ness and swizzle mode reads it")
    return Refusal(ul, tuple(reasons), closest, suggestions)


def _with_swizzle(ul: UserLayout, swz: Swizzle | None) -> str:
    """The layout's text with its swizzle replaced (the outer layout written as given, without
    the pointers printed with it)."""
    parsed = parse_printed(ul.text).layout
    outer = parsed.outer if isinstance(parsed, ComposedLayout) else parsed
    offset = parsed.offset if isinstance(parsed, ComposedLayout) else 0
    if swz is None or not swz.bits:
        return str(outer) if not offset else f"Swizzle<0,4,3> o {offset} o {outer}"
    return f"{swz} o {offset} o {outer}"


def _suggestions(spec: Spec, ul: UserLayout, op: Operand, majors: tuple[str, ...],
                 start: int) -> tuple[dict[str, Any], ...]:
    """Nearby layouts that a descriptor reads: the same outer layout with each hardware swizzle
    (in the user's unit), and the same text read in the other unit; each one synthesised."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = {(ul.text, ul.swizzle_unit)}
    texts: list[tuple[str, str, str]] = []
    for sw, swz in _hardware_swizzles(spec).items():
        texts.append((_with_swizzle(ul, in_unit(spec, swz, ul.dtype, ul.swizzle_unit)
                                    if swz.bits else None), ul.swizzle_unit,
                      f"the same layout with the {sw} swizzle"))
    other = "elements" if ul.swizzle_unit == "bytes" else "bytes"
    texts.append((ul.text, other, f"the same text with its swizzle read on {other}"))
    for text, unit, why in texts:
        if (text, unit) in seen:
            continue
        seen.add((text, unit))
        try:
            got = synthesize(spec, text, op, majors=majors, start=start, swizzle_unit=unit,
                             suggest=False)
        except (ExplainError, ValueError):
            continue
        if isinstance(got, Synthesis):
            out.append({"layout": text, "swizzle_unit": unit, "why": why,
                        "descriptor": f"{got.desc.value:#018x}", "major": got.operand.major,
                        "swizzle": got.desc.swizzle, "lbo": got.desc.lbo, "sbo": got.desc.sbo})
    return tuple(out)


__all__ = ["Block", "Refusal", "Synthesis", "UserLayout", "in_unit", "parse_layout", "synthesize"]
