"""gpu.hypothesis[<name>]: each competing reading of the oracle (ptxconf.oracle.hypotheses)
settled by probes; the reading silicon followed is in the outcome's fields.

Each probe places one input as every reading says (the same descriptors) and records which
readings silicon's D agrees with; the proofs' distinguishing inputs
(ptxconf.oracle.proofs.distinguish) are run too where they exist. The verdict is
`ptxconf.oracle.verdicts`'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome
from ptxconf.oracle import hypotheses, verdicts
from ptxconf.oracle import interpret as I
from ptxconf.oracle.records import InstructionType
from ptxconf.oracle.spec import Spec

from .. import plan as P
from ..operands import GUARD_BYTES, acc_values, d_matrix, desc, image, launch, layout, layouts, round_up
from ..session import GpuBody, Session, planned_family
from ..variants import WgmmaVariant, isa_facts
from .address import start_sweep, try_readings, vary
from .sweep import a_regs_probes

PROVIDER = "gpu-hypotheses"


# --- the proofs' distinguishing inputs -----------------------------------------------------------


def _proof_row(spec: Spec, dtype: str, major: str) -> InstructionType | None:
    """The instruction type row a proof's probe runs on: the first that reads `dtype` operands
    in `major` (None: no instruction does)."""
    rows = [r for r in spec.of(InstructionType) if r.atype == dtype or r.btype == dtype]
    return next((r for r in rows if major in P.majors(spec, r)), None)


def _proof_instruction(spec: Spec, pr: Any) -> tuple[P.Probe, str] | str:
    """The SS probe that reads the proof's coordinate in its operand, or why none can."""
    mn0, k0 = pr.coord
    row = _proof_row(spec, pr.dtype, pr.major)
    if row is None:
        return f".{pr.dtype} operands cannot be {pr.major}-major in wgmma"
    if k0 >= row.k_elems:
        return f"k={k0} is past the instruction's K={row.k_elems}"
    isa = isa_facts(spec)
    if mn0 < isa.wgmma_m and row.atype == pr.dtype:
        return P.make_probe(isa, row, P.n_values(spec, row)[0], major=pr.major), "A"
    wide = [n for n in P.n_values(spec, row) if n > mn0]
    if not wide or row.btype != pr.dtype:
        return f"mn={mn0} is past every N probed for {row.id}"
    return P.make_probe(isa, row, wide[0], major=pr.major), "B"


def proof_variants(spec: Spec) -> dict[str, list[WgmmaVariant]]:
    """Hypothesis -> every kernel `_proof_instruction` may pick for its proofs' probes (the
    probe's coordinate is known only once proved, so each probed N of the row it runs on)."""
    try:
        from ptxconf.oracle.proofs.distinguish import searches
    except ImportError:  # no solver here: the proofs' probes do not run
        return {}
    isa = isa_facts(spec)
    out: dict[str, list[WgmmaVariant]] = {}
    for hyp, canonical, dtype, _ in searches(spec):
        row = _proof_row(spec, dtype, canonical.major)
        if row is not None:
            out.setdefault(hyp.name, []).extend(
                P.make_probe(isa, row, n, major=canonical.major).variant
                for n in P.n_values(spec, row))
    return out


def _run_proof_probe(sess: Session, pr: Any) -> tuple[str, dict[str, str] | str]:
    """Plant a 1 at the address each reading gives for the proof's coordinate (one launch per
    reading), make the partner one-hot at that k, and read the element back from D."""
    spec = sess.spec
    label = f"{pr.row.split(':')[-1]} {pr.dtype}"
    if not pr.distinguishable:
        return label, "the readings coincide (proved): nothing to probe"
    label += (f" LBO={pr.lbo_bytes} SBO={pr.sbo_bytes} start={pr.start_bytes} "
              f"coord={tuple(pr.coord)}")
    found = _proof_instruction(spec, pr)
    if isinstance(found, str):
        return label, f"not runnable: {found}"
    p, operand = found
    v = p.variant
    mn0, k0 = pr.coord
    mn = v.m if operand == "A" else v.n
    dtype = v.atype if operand == "A" else v.btype
    other = v.btype if operand == "A" else v.atype
    lay = I.OperandLayout(dtype, pr.major, pr.swizzle, mn, v.k, pr.lbo_bytes, pr.sbo_bytes)
    partner = layout(spec, other, pr.major, "none", v.n if operand == "A" else v.m, v.k)
    hot = np.zeros((partner.mn, v.k), dtype=np.int64)
    hot[:, k0] = 1
    bits = I.element_bits(spec, dtype)
    start = pr.start_bytes or 0
    reach = max(int(I.offsets(spec, lay).max()), *pr.addresses) + bits
    size = round_up(reach // (I.BITS_PER_BYTE if bits < I.BITS_PER_BYTE else 1) + 1, 16)
    size += GUARD_BYTES
    seen = {}
    for reading, addr in zip(pr.readings, pr.addresses, strict=True):
        img = I.place(I.encode(spec, dtype, [1]), np.asarray([addr]), bits, size).tobytes()
        other_img = image(spec, hot, partner)
        a_img, b_img = (img, other_img) if operand == "A" else (other_img, img)
        a_lay, b_lay = (lay, partner) if operand == "A" else (partner, lay)
        kw = launch(spec, v, a_img, b_img, desc(spec, a_lay), desc(spec, b_lay),
                    smem_a_offset_bytes=start if operand == "A" else 0,
                    smem_b_offset_bytes=start if operand == "B" else 0)
        dump = sess.run_wgmma(v, [kw])[0]
        d = acc_values(spec, v, d_matrix(spec, v, dump.regs))
        got = int(d[mn0, 0] if operand == "A" else d[0, mn0])
        seen[reading] = verdicts.AGREES if got == 1 else f"disagrees (read {got})"
    return f"{label} via {v.ptx_name} {operand}", seen


def _proof_runs(sess: Session, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """Every proof probe of one hypothesis, run: per-probe outcomes, and their merge."""
    probes_, why = sess.proof_probes()
    if why:
        return {"unavailable": why}, {}
    per: dict[str, Any] = {}
    merged: dict[str, str] = {}
    for pr in probes_:
        if pr.hypothesis != name:
            continue
        label, seen = _run_proof_probe(sess, pr)
        per[label] = seen
        if isinstance(seen, dict):
            verdicts.merge(merged, seen)
    return per, merged


# --- the hypotheses ----------------------------------------------------------------------------


def _one_swizzled(spec: Spec, v: WgmmaVariant, major: str, sw: str, *,
                  separated: bool = False) -> list[tuple[I.OperandLayout, I.OperandLayout]]:
    """(A, B) with one operand in `sw` and the other unswizzled, both ways round: the readings
    of a swizzled layout then differ in one operand only, so they cannot cancel out in D (as
    the same K permutation of both operands' rows would). `separated`: LBO/SBO far apart, so
    that either role reading places without overlap."""
    out = []
    for a_sw, b_sw in ((sw, "none"), ("none", sw)):
        pair = [layout(spec, v.atype, major, a_sw, v.m, v.k),
                layout(spec, v.btype, major, b_sw, v.n, v.k)]
        if separated:
            for i, lay in enumerate(pair):
                lbo, sbo = I.separated_strides(spec, lay.dtype, lay.major, lay.swizzle, lay.mn,
                                               lay.k)
                pair[i] = replace(lay, lbo_bytes=lbo, sbo_bytes=sbo)
        out.append((pair[0], pair[1]))
    return out


def _placement(h: hypotheses.Hypothesis, field_name: str, what: str,
               separated: bool = False) -> Callable[[list[tuple[P.Probe, str]]], GpuBody]:
    """Place both operands as each reading says (same descriptors); which reading gives D."""

    def make(probes: list[tuple[P.Probe, str]]) -> GpuBody:
        def body(sess: Session) -> Outcome:
            per_probe: dict[str, Any] = {}
            merged: dict[str, str] = {}
            for p, sw in probes:
                v = p.variant
                for a_lay, b_lay in _one_swizzled(sess.spec, v, p.major, sw, separated=separated):
                    readings = {r: ({field_name: r}, {field_name: r}) for r in h.readings}
                    seen = try_readings(sess, v, f"hyp.{h.name}.{v.kernel_name}.{a_lay.atom}."
                                        f"{b_lay.atom}", a_lay, b_lay, readings)
                    per_probe[f"{v.ptx_name}:{p.form}:A={a_lay.atom}(LBO={a_lay.lbo_bytes},SBO="
                              f"{a_lay.sbo_bytes}):B={b_lay.atom}(LBO={b_lay.lbo_bytes},SBO="
                              f"{b_lay.sbo_bytes})"] = seen
                    verdicts.merge(merged, seen)
            proof, proof_merged = _proof_runs(sess, h.name)
            verdicts.merge(merged, proof_merged)
            return verdicts.hypothesis_verdict(h.name, h.documented, merged, what,
                                               probes=per_probe, proof_probes=proof)

        return body

    return make


def _k_lbo(probes: list[tuple[P.Probe, str]]) -> GpuBody:
    def body(sess: Session) -> Outcome:
        h = hypotheses.K_SWIZZLED_LBO
        per_probe, changed = {}, {}
        for p, sw in probes:
            v = p.variant
            a_lay, b_lay = layouts(sess.spec, v, "K", sw)
            seen = vary(sess, v, f"hyp.klbo.{v.kernel_name}.{sw}", a_lay, b_lay,
                        {str(lbo): {"lbo": lbo} for lbo in P.UNUSED_LBO_BYTES})
            per_probe[f"{v.ptx_name}:{b_lay.atom}"] = seen
            changed.update({f"{v.kernel_name}:{sw}:lbo={k}": o for k, o in seen.items()
                            if o != verdicts.AGREES})
        return verdicts.hypothesis_verdict(h.name, h.documented,
                                           verdicts.field_use_readings(len(changed)),
                                           "K-major swizzled LBO", probes=per_probe)

    return body


def _base_offset(probes: list[tuple[P.Probe, str]]) -> GpuBody:
    """Unaligned starts with the base-offset field 0 and set per the rule, judged apart."""

    def body(sess: Session) -> Outcome:
        spec = sess.spec
        h = hypotheses.BASE_OFFSET
        per_probe: dict[str, Any] = {}
        groups: dict[str, dict[str, str]] = {
            g: {} for g in dict.fromkeys(verdicts.BASE_OFFSET_GROUPS.values())}
        for p, sw in probes:
            v = p.variant
            rule = P.base_offset_rule(spec, sw)
            a_lay, b_lay = layouts(spec, v, p.major, sw)
            for offset in (P.START_OFFSETS_BYTES[0], P.ROW_STEP_BYTES, P.MIXED_OFFSET_BYTES,
                           rule.repeat_bytes // 2):
                for with_field in (False, True):
                    field_value = P.base_offset_field(rule, offset) if with_field else 0
                    if with_field and not field_value:
                        continue
                    seen, _ = start_sweep(sess, v, f"hyp.base.{v.kernel_name}.{sw}.{offset}",
                                          a_lay, b_lay, rule, offset, with_field)
                    per_probe[f"{v.ptx_name}:{b_lay.atom}:+{offset}:field={field_value}"] = seen
                    group = verdicts.base_offset_group(bool(field_value),
                                                       offset % P.ROW_STEP_BYTES == 0)
                    verdicts.merge(groups[group], seen)
        proof, proof_merged = _proof_runs(sess, h.name)
        verdicts.merge(groups[verdicts.FIELD_ZERO], proof_merged)
        return verdicts.base_offset_verdict(h.name, h.documented, tuple(h.readings), groups,
                                            probes=per_probe, proof_probes=proof)

    return body


def _a_regs(probes: list[P.Probe]) -> GpuBody:
    def body(sess: Session) -> Outcome:
        per_probe = {}
        for p in probes:
            launches, decode = a_regs_probes(sess, p.variant)
            [(_, diff)] = decode(sess.run_wgmma(p.variant, launches))
            per_probe[p.variant.ptx_name] = (verdicts.AGREES if diff.ok
                                             else f"disagrees ({diff.mismatches}/{diff.total})")
        h = hypotheses.A_REGISTER_LAYOUT
        return verdicts.single_reading_verdict(h.name, h.documented, per_probe, "register A")

    return body


_BODIES: dict[str, Callable[[Any], GpuBody]] = {
    "swizzle_unit": _placement(hypotheses.SWIZZLE_UNIT, "swizzle_unit", "swizzle unit"),
    "mn_lbo_sbo_roles": _placement(hypotheses.MN_LBO_SBO_ROLES, "mn_lbo_sbo_roles",
                                   "MN-major LBO/SBO roles", separated=True),
    "k_swizzled_lbo": _k_lbo,
    "base_offset": _base_offset,
    "a_regs_like_d16": _a_regs,
}


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, P.hypothesis_plan, lambda p: _BODIES[p.key](*p.args),
                                  proof_variants)


#: A hypothesis case's relative cost: it runs many probes, so it goes first.
HYPOTHESIS_WEIGHT = 1e9


def jobs(spec: Spec, ids: Sequence[str], chunk: int) -> list[tuple[str, ...]]:
    """Lane jobs: each hypothesis alone (each runs many probes); `chunk` does not apply."""
    return [(i,) for i in ids]


def job_weight(spec: Spec, ids: tuple[str, ...]) -> float:
    """A job's relative cost: the hypotheses first."""
    return HYPOTHESIS_WEIGHT
