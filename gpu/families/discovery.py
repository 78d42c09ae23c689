"""Discovery: the hardware's shared-memory address maps, each compared with the oracle's.

* `gpu.smem_map[<instr>:<A|B>:<layout>]`: one operand's region index-coded, the other
  one-hot: D reveals the address each (mn, k) was read from.

Every variant's accumulator map and register-A map are discovered by its `gpu.variant` case
(`ptxconf.gpu.families.sweep`).

A mismatch is a diff table in the layout's coordinates (`ptxconf.oracle.verdicts.compared`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptxconf.cases import Outcome
from ptxconf.oracle import interpret as I
from ptxconf.oracle import verdicts

from .. import plan as P
from ..probes import REGION_ALIGN_BYTES
from ..session import (
    GUARD_BYTES,
    GpuBody,
    Session,
    acc_values,
    check_starts,
    d_matrix,
    desc,
    image,
    launch,
    lay_details,
    layouts,
    planned_family,
    round_up,
)

PROVIDER = "gpu-discovery"


def _failed_raw(sess: Session, outcome: Outcome, **arrays: np.ndarray) -> Outcome:
    """A failing outcome with the raw dumps attached (while the run's budget lasts)."""
    if outcome.status.failing:
        return Outcome(outcome.status, outcome.code, outcome.message,
                       {**outcome.fields, "raw": sess.raw(**arrays)})
    return outcome


def _smem_map(key: str, p: P.Probe, operand: str, swizzle: str) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = layouts(spec, v, p.major, swizzle)
        coded = a_lay if operand == "A" else b_lay
        dtype = coded.dtype
        bits = I.element_bits(spec, dtype)
        offs = I.offsets(spec, coded)
        region = round_up(I.footprint_bytes(offs, bits), REGION_ALIGN_BYTES) + GUARD_BYTES
        count = region * I.BITS_PER_BYTE // bits
        plan_ = I.digit_plan(spec, dtype, count, v.dtype)
        step = v.n if operand == "A" else v.m  # k values one launch reveals
        shifts = -(-v.k // step)
        launches = []
        for s in range(shifts):
            if operand == "A":
                partner = image(spec, I.one_hot(v.n, v.k, s * step), b_lay)
            else:
                partner = image(spec, I.one_hot(v.m, v.k, s * step), a_lay)
            for j in range(plan_.digits):
                img = I.index_image(spec, dtype, region, plan_, j).tobytes()
                a_img, b_img = (img, partner) if operand == "A" else (partner, img)
                launches.append(launch(spec, v, a_img, b_img, desc(spec, a_lay), desc(spec, b_lay)))
        dumps = sess.run_wgmma(v, launches)
        check_starts(dumps[0], 0)
        slots = np.full((coded.mn, v.k), -1, dtype=np.int64)
        for s in range(shifts):
            digits = [acc_values(spec, v, d_matrix(spec, v, d.regs))
                      for d in dumps[s * plan_.digits:(s + 1) * plan_.digits]]
            code = plan_.combine(digits)  # [M, N]
            ks = np.arange(step) + s * step
            ok = ks < v.k
            if operand == "A":
                slots[:, ks[ok]] = code[:, : step][:, ok]
            else:
                slots[:, ks[ok]] = code[: step, :].T[:, ok]
        found = I.slot_to_offset(slots, bits)
        units = I.address_units(spec, dtype)
        diff = I.diff_grid(f"{operand} {coded.atom} {dtype} address map ({units} from the "
                           "operand start)", offs, found,
                           axes=("m" if operand == "A" else "n", "k"), fmt=I.hex_fmt,
                           extra={"oracle": coded.reproduce()})
        out = verdicts.compared(
            diff, f"{operand} {coded.atom} {dtype}: all {diff.total} (mn, k) read from the "
                  f"oracle's address ({len(launches)} launches)",
            kernel=v.kernel_name, operand=lay_details(coded), launches=len(launches),
            digits=f"{plan_.digits} x base {plan_.base}", silicon_map=I.fingerprint(found))
        return _failed_raw(sess, out, discovered=found)

    return body


_BODIES: dict[str, Callable[..., GpuBody]] = {P.CHECK_SMEM_MAP: _smem_map}


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, P.discovery_plan, lambda p: _BODIES[p.check](p.key, *p.args))
