"""What is wrong with a descriptor, and the descriptor meant: a small search, then names.

The search keeps the start and tries every swizzle mode, LBO and SBO among the user's own two
values and the packed values of the mode (`interpret.compact_strides`), the base-offset field
as given and as the rule gives it for the tile base. Each candidate's read map is analysed
(`readmap.analyse`); candidates rank by (`Candidate.rank`): valid first, then fewest fields the
hardware ignores set, a new swizzle mode only with strides packed for it, fewest fields changed
(a swap counts one), fewest stride values the user did not type, the user's mode, the smallest
span. A mistake is
named when the user's descriptor is invalid (or suspect) and a nearby valid one exists: the
fields that change say which mistake it was (`catalog`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ptxconf.oracle import interpret
from ptxconf.oracle.descriptor import DescriptorError
from ptxconf.oracle.domain import descriptor_swizzles
from ptxconf.oracle.spec import Spec

from .names import Candidate, Diagnosis, Namer, no_fix, problems
from .operand import Operand
from .readmap import (
    Analysis,
    Context,
    Descriptor,
    ReadMap,
    analyse,
    bank_report,
    default_tile_base,
    linear,
    read_map,
    rule_field,
)


@dataclass(frozen=True)
class Explanation:
    """Everything `ptxconf explain descriptor` says about one descriptor."""

    operand: Operand
    desc: Descriptor
    context: Context
    readmap: ReadMap
    analysis: Analysis
    banks: dict[str, Any]
    diagnoses: tuple[Diagnosis, ...]
    corrected: Candidate | None
    alternatives: tuple[Candidate, ...] = ()
    searched: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def verdict(self) -> str:
        """'valid', 'suspect' (valid, but a mistake is named) or 'invalid'."""
        if not self.analysis.valid:
            return "invalid"
        return "suspect" if self.diagnoses else "valid"

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of the mistakes named."""
        return tuple(d.code for d in self.diagnoses)

    def as_dict(self, spec: Spec) -> dict[str, Any]:
        """JSON-ready: the one object `--json` prints."""
        a = self.analysis
        out: dict[str, Any] = {
            "descriptor": {**self.desc.as_dict(), "fields": self.desc.bit_fields(spec)},
            "operand": self.operand.as_dict(),
            "tile_base": self.context.tile_base, "smem_bytes": self.context.smem_bytes,
            "reads": {"units": "bytes", "layout_elems": self.readmap.layout,
                      "reading": "H100: swizzle on byte addresses; start + offset - "
                                 "(base_offset << 7) swizzled; MN-major LBO along MN; "
                                 "K-major swizzled LBO ignored",
                      "offsets": self.readmap.offsets()},
            "checks": check_dict(spec, self),
            "banks": self.banks, "verdict": self.verdict,
            "mistakes": [d.as_dict() for d in self.diagnoses],
            "corrected": None if self.corrected is None else {
                **self.corrected.desc.as_dict(), "changed": list(self.corrected.changed)},
            "alternatives": [{**c.desc.as_dict(), "changed": list(c.changed)}
                             for c in self.alternatives],
            "searched": self.searched, "notes": list(self.notes),
            "problems": problems(spec, self.operand, self.desc, a, self.context)}
        return out


# --- the search --------------------------------------------------------------------------------


def _unpacked(spec: Spec, op: Operand, d: Descriptor) -> int:
    """How many stepped strides differ from the mode's packed values."""
    lin = linear(spec, op, d.swizzle)
    lc, sc = interpret.compact_strides(spec, op.dtype, op.major, d.swizzle, op.mn, op.k)
    return int(lin.uses("lbo") and d.lbo != lc) + int(lin.uses("sbo") and d.sbo != sc)


def candidates(spec: Spec, op: Operand, user: Descriptor, ctx: Context) -> list[Candidate]:
    """Every descriptor of the search space, analysed: swizzle mode by swizzle mode in the spec's
    order, each with every LBO and SBO among the user's, the compact ones and the granule, and
    the user's and the rule's base-offset field (the user's own descriptor is among them)."""
    granule = interpret.stride_granule_bytes(spec)
    out: dict[int, Candidate] = {}
    for sw in descriptor_swizzles(spec):
        lin = linear(spec, op, sw)
        lc, sc = interpret.compact_strides(spec, op.dtype, op.major, sw, op.mn, op.k)
        values = sorted({user.lbo, user.sbo, lc, sc, granule})
        fields = sorted({user.base_offset, rule_field(spec, sw, ctx.tile_base)})
        for lbo in values:
            for sbo in values:
                for fv in fields:
                    try:
                        d = Descriptor.of(spec, start_address=user.start_address, lbo=lbo, sbo=sbo,
                                          swizzle=sw, base_offset=fv)
                    except DescriptorError:
                        continue
                    if d.value in out:
                        continue
                    a = analyse(spec, op, d, lin.addresses(spec, d), ctx)
                    changed = user.changed(d)
                    swapped = ("lbo" in changed and "sbo" in changed
                               and (d.lbo, d.sbo) == (user.sbo, user.lbo))
                    new = sum(1 for n in ("lbo", "sbo") if lin.uses(n)
                              and getattr(d, n) not in (user.lbo, user.sbo))
                    out[d.value] = Candidate(d, changed, a, _unpacked(spec, op, d), swapped, new)
    return list(out.values())


def explain_descriptor(spec: Spec, op: Operand, value: int, *, tile_base: int | None = None,
                       smem_bytes: int | None = None, evidence_ids: Collection[str] = ()) -> Explanation:
    """Decode, read, judge, search, name: the whole of `ptxconf explain descriptor`
    (`evidence_ids`: the GPU case ids a mistake may cite, catalog.evidence)."""
    user = Descriptor.decode(spec, value)
    ctx = Context(default_tile_base(user.start_address) if tile_base is None else tile_base,
                  smem_bytes)
    rm = read_map(spec, op, user)
    ua = analyse(spec, op, user, rm.addresses, ctx)
    notes = []
    if user.unused_bits:
        notes.append(f"bits {user.unused_bits:#018x} are set outside every field of the "
                     "wgmma descriptor (wgmma/matrix_descriptor.yaml): they are not read here")
    cands = candidates(spec, op, user, ctx)
    order = descriptor_swizzles(spec)
    ranked = sorted(cands, key=lambda c: c.rank(order))
    best = ranked[0] if ranked and ranked[0].analysis.valid else None
    diagnoses: list[Diagnosis] = []
    chosen: Candidate | None = None
    if best is None:
        diagnoses.append(no_fix(spec, op, user, ua, ctx, len(cands), evidence_ids))
    elif best.changed:
        chosen = best
        diagnoses = Namer(spec, op, user, ua, best, ctx, evidence_ids).all()
    else:
        swap = _gap_swap(spec, op, user, ua, cands)
        if swap is not None:
            chosen = swap
            diagnoses = [Namer(spec, op, user, ua, swap, ctx, evidence_ids).swapped()]
    if chosen is not None:
        final = read_map(spec, op, chosen.desc)
        check = analyse(spec, op, chosen.desc, final.addresses, ctx)
        if not np.array_equal(final.addresses, linear(spec, op, chosen.desc.swizzle)
                              .addresses(spec, chosen.desc)) or not check.valid:
            raise AssertionError(f"the search's map of {chosen.desc.text()} is not the oracle's")
    alternatives = tuple(c for c in ranked if chosen is not None and c.analysis.valid
                         and c.changed and c.desc.value != chosen.desc.value
                         and not c.analysis.suspects and not c.unpacked
                         and c.cost <= chosen.cost)[:3]
    return Explanation(op, user, ctx, rm, ua, bank_report(spec, op, rm.addresses),
                       tuple(diagnoses), chosen, alternatives, len(cands), tuple(notes))


def _gap_swap(spec: Spec, op: Operand, user: Descriptor, ua: Analysis,
              cands: list[Candidate]) -> Candidate | None:
    """A valid user map with gaps that LBO/SBO swapped would pack: a suspect swap."""
    if user.lbo == user.sbo:
        return None
    for c in cands:
        if (c.changed == ("lbo", "sbo") and c.swapped and c.analysis.valid
                and not c.analysis.suspects and c.unpacked == 0
                and c.analysis.span_bytes < ua.span_bytes):
            return c
    return None


def check_dict(spec: Spec, e: Explanation) -> dict[str, Any]:
    """The four checks of a map, JSON-ready."""
    a, ctx = e.analysis, e.context
    out: dict[str, Any] = {
        "injective": {"ok": a.injective,
                      "alias": None if a.alias is None else
                      {"first": list(a.alias[0]), "second": list(a.alias[1]),
                       "address": a.alias[2]}},
        "allocation": {"ok": not a.outside, "span": list(a.span), "span_bytes": a.span_bytes,
                       "outside": a.outside, "given": ctx.smem_bytes is not None},
        "phase": {"ok": a.phase_ok, "hardware": a.hw_phase, "tile": a.want_phase},
        "ignored_fields": [{"field": s.field, "value": s.value, "meant": s.meant, "why": s.why}
                           for s in a.suspects],
        "banks": {"ok": e.banks.get("worst_degree", 0) <= 1, **e.banks},
    }
    return out


__all__ = ["Candidate", "Diagnosis", "Explanation", "candidates", "check_dict",
           "explain_descriptor", "problems"]
