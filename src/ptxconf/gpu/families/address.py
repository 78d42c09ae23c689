"""gpu.address.*: what the hardware does with operand starts and fields the documents leave open.

* `gpu.address.start[<instr>:<layout>:+<offset>:base_offset=<field>]`: A, then B, starts
  `offset` bytes past a swizzle repeat, with the descriptor's base-offset field 0 or set per
  the rule; each reading of the base-offset rule places the operand its way, and which of
  them silicon's D agrees with is recorded (an observation).
* `gpu.address.unused_lbo[<instr>:<K layout>]`: the LBO the PTX ISA calls "not used" for
  K-major swizzled layouts, varied.
* `gpu.address.unused_base_offset[<instr>:<layout>]`: the base-offset field of unswizzled
  layouts (defined only for swizzled ones), varied.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ptxconf.core.cases import Outcome
from ptxconf.oracle import interpret as I
from ptxconf.oracle import verdicts
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.records import BaseOffsetRule

from .. import plan as P
from ..operands import d_matrix, lay_details, layouts, product, run_product
from ..session import GpuBody, Session, planned_family
from ..variants import WgmmaVariant

PROVIDER = "gpu-address"

#: A change of operand-layout fields (dataclasses.replace keywords) a reading places by.
Change = dict[str, Any]


def try_readings(sess: Session, v: WgmmaVariant, key: str, a_lay: I.OperandLayout,
                 b_lay: I.OperandLayout, readings: dict[str, tuple[Change, Change]],
                 **kw: Any) -> dict[str, str]:
    """Run one product per reading (A and B placed as that reading says, with the same
    descriptors); what silicon did with each ('agrees', 'disagrees (...)', 'not placeable')."""
    spec = sess.spec
    a, b, want = product(spec, v, key)
    out: dict[str, str] = {}
    seen: dict[tuple[Any, ...], str] = {}

    def reach(*lays: I.OperandLayout) -> int:
        return max(I.footprint_bytes(I.offsets(spec, x), I.element_bits(spec, x.dtype))
                   for x in lays)

    for name, (a_change, b_change) in readings.items():
        a_place = replace(a_lay, **a_change)
        b_place = replace(b_lay, **b_change)
        placed = tuple(I.offsets(spec, x).tobytes() for x in (a_place, b_place))
        if placed in seen:  # the same placement as an earlier reading: the same answer
            out[name] = seen[placed]
            continue
        for lay in (a_place, b_place):
            if not I.offsets_injective(I.offsets(spec, lay)):
                out[name] = f"not placeable: {lay.atom} puts two elements at one address"
                break
        else:
            dump = run_product(sess, v, a, b, a_lay, b_lay, a_place=a_place, b_place=b_place,
                               a_size=reach(a_lay, a_place), b_size=reach(b_lay, b_place), **kw)
            out[name] = verdicts.agreement(want, d_matrix(spec, v, dump.regs))
        seen[placed] = out[name]
    return out


def start_sweep(sess: Session, v: WgmmaVariant, key: str, a_lay: I.OperandLayout,
                b_lay: I.OperandLayout, rule: BaseOffsetRule, offset: int,
                with_field: bool) -> tuple[dict[str, str], int]:
    """A displaced (B aligned), then B displaced (A aligned): moving both alike can leave D
    unchanged (the same K permutation of A's and B's rows), so each moves alone. The readings
    of the base-offset rule, merged over both, and the field value used."""
    field_value = P.base_offset_field(rule, offset) if with_field else 0
    phase = offset % rule.repeat_bytes
    shifted = (offset - (field_value << rule.address_shift_bits)) % rule.repeat_bytes
    merged: dict[str, str] = {}
    for which in ("A", "B"):
        still = {"base_offset_bytes": 0}

        def moved(bytes_: int, which: str = which, still: Change = still
                  ) -> tuple[Change, Change]:
            m = {"base_offset_bytes": bytes_}
            return (m, still) if which == "A" else (still, m)

        readings = {"absolute": moved(phase), "relative": (still, still),
                    verdicts.FIELD_MODEL: moved(shifted)}
        kw = ({"a_offset": offset, "a_base_offset": field_value} if which == "A"
              else {"b_offset": offset, "b_base_offset": field_value})
        verdicts.merge(merged, try_readings(sess, v, f"{key}.{which}", a_lay, b_lay, readings,
                                            **kw))
    return merged, field_value


def _start(key: str, p: P.Probe, swizzle: str, offset: int, with_field: bool) -> GpuBody:
    """An observation: which readings of the base-offset rule silicon's D agrees with."""

    def body(sess: Session) -> Outcome:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = layouts(spec, v, p.major, swizzle)
        rule = P.base_offset_rule(spec, swizzle)
        readings, field_value = start_sweep(sess, v, key, a_lay, b_lay, rule, offset, with_field)
        what = (f"A, then B, start {offset} B past a {rule.repeat_bytes}-B repeat, base-offset "
                f"field {field_value}")
        return verdicts.observation(
            what, readings, kernel=v.kernel_name, start_offset_bytes=offset,
            swizzle_repeat_bytes=rule.repeat_bytes, base_offset_field=field_value,
            model=f"{verdicts.FIELD_MODEL}: {verdicts.FIELD_MODEL_TEXT}",
            A=lay_details(a_lay), B=lay_details(b_lay))

    return body


def vary(sess: Session, v: WgmmaVariant, key: str, a_lay: I.OperandLayout,
         b_lay: I.OperandLayout, values: dict[str, Change]) -> dict[str, str]:
    """The same product run once per launch setting (run_product keywords): agreement each."""
    a, b, want = product(sess.spec, v, key)
    return {name: verdicts.agreement(want, d_matrix(sess.spec, v, run_product(
        sess, v, a, b, a_lay, b_lay, **kw).regs)) for name, kw in values.items()}


def _unused_lbo(key: str, p: P.Probe, swizzle: str) -> GpuBody:
    def body(sess: Session) -> Outcome:
        v = p.variant
        a_lay, b_lay = layouts(sess.spec, v, "K", swizzle)
        seen = vary(sess, v, key, a_lay, b_lay, {str(lbo): {"lbo": lbo} for lbo in P.UNUSED_LBO_BYTES})
        return verdicts.unused_field_verdict(
            seen, f"K-major {swizzle} {v.atype}: D identical for LBO = {', '.join(seen)} bytes: "
                  "the field is ignored",
            f"K-major {swizzle}: the LBO the PTX ISA calls 'not used' changes D",
            kernel=v.kernel_name, lbo_bytes_tried=seen, sbo_bytes=b_lay.sbo_bytes,
            A=lay_details(a_lay), B=lay_details(b_lay))

    return body


def _unused_base(key: str, p: P.Probe) -> GpuBody:
    def body(sess: Session) -> Outcome:
        v = p.variant
        a_lay, b_lay = layouts(sess.spec, v, p.major, "none")
        width = descriptor_format(sess.spec).field("base_offset").width_bits
        seen = vary(sess, v, key, a_lay, b_lay,
                    {str(x): {"a_base_offset": x, "b_base_offset": x} for x in range(1 << width)})
        return verdicts.unused_field_verdict(
            seen, f"{p.major}-major, no swizzle: D identical for base-offset field "
                  f"0..{(1 << width) - 1}: ignored",
            f"{p.major}-major, no swizzle: the base-offset field (defined only for swizzled "
            "layouts) changes D",
            kernel=v.kernel_name, base_offset_field=seen, A=lay_details(a_lay),
            B=lay_details(b_lay))

    return body


_BODIES: dict[str, Callable[..., GpuBody]] = {
    P.CHECK_START: _start, P.CHECK_UNUSED_LBO: _unused_lbo, P.CHECK_UNUSED_BASE: _unused_base}


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, P.address_plan, lambda p: _BODIES[p.check](p.key, *p.args))
