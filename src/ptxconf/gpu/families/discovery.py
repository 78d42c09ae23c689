"""Discovery: the hardware's shared-memory address maps, each compared with the oracle's.

* `gpu.smem_map[<instr>:<A|B>:<layout>]`: one operand's region index-coded, the other
  one-hot: D reveals the address each (mn, k) was read from.

Every variant's accumulator map and register-A map are discovered by its `gpu.variant` case
(`ptxconf.gpu.families.sweep`).

A mismatch is a diff table in the layout's coordinates (`ptxconf.oracle.verdicts.compared`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ptxconf.core.cases import Outcome
from ptxconf.oracle import interpret as I
from ptxconf.oracle import verdicts
from ptxconf.oracle.spec import Spec

from .. import plan as P
from .. import space
from ..operands import (
    GUARD_BYTES,
    acc_values,
    check_starts,
    d_matrix,
    desc,
    image,
    launch,
    lay_details,
    layouts,
    round_up,
)
from ..probes import REGION_ALIGN_BYTES
from ..session import GpuBody, Session, planned_family

PROVIDER = "gpu-discovery"


def _failed_raw(sess: Session, outcome: Outcome, **arrays: np.ndarray) -> Outcome:
    """A failing outcome with the raw dumps attached (while the run's budget lasts)."""
    if outcome.status.failing:
        return Outcome(outcome.status, outcome.code, outcome.message,
                       {**outcome.fields, "raw": sess.raw(**arrays)})
    return outcome


@dataclass(frozen=True)
class Coding:
    """How a smem_map probe index-codes one operand: both operands' layouts and the one coded,
    the region coded (bytes), the digits of each slot index, and the k values one launch
    reveals (`step`, in `shifts` launches per digit)."""

    a_lay: I.OperandLayout
    b_lay: I.OperandLayout
    coded: I.OperandLayout
    bits: int
    offs: np.ndarray
    region: int
    plan: I.DigitPlan
    step: int
    shifts: int

    @property
    def launches(self) -> int:
        """Launches the probe makes."""
        return self.shifts * self.plan.digits


def coding(spec: Spec, p: P.Probe, operand: str, swizzle: str) -> Coding:
    """The coding of one smem_map probe (what its body launches, and what it costs)."""
    v = p.variant
    a_lay, b_lay = layouts(spec, v, p.major, swizzle)
    coded = a_lay if operand == "A" else b_lay
    bits = I.element_bits(spec, coded.dtype)
    offs = I.offsets(spec, coded)
    region = round_up(I.footprint_bytes(offs, bits), REGION_ALIGN_BYTES) + GUARD_BYTES
    count = region * I.BITS_PER_BYTE // bits
    step = v.n if operand == "A" else v.m  # k values one launch reveals
    return Coding(a_lay, b_lay, coded, bits, offs, region,
                  I.digit_plan(spec, coded.dtype, count, v.dtype), step, -(-v.k // step))


#: A smem_map case's host work in the units of `sweep.module_weight` (about 1e4 a second of
#: a lane's host work on an H100 node): its launches x the M x N accumulator each decodes,
#: over 4096, times this (the b1 m64n256k256 B maps, 68 launches, take about a second).
WEIGHT_PER_LAUNCH_TILE = 40.0


def case_weight(spec: Spec, case_id: str) -> float:
    """How much host work a gpu.smem_map case is, relative (for cutting and ordering jobs)."""
    def make() -> dict[str, float]:
        out = {}
        for planned in P.discovery_plan(spec):
            probe, operand, swizzle = planned.args
            v = probe.variant
            out[planned.id] = (coding(spec, probe, operand, swizzle).launches * v.m * v.n
                               / 4096 * WEIGHT_PER_LAUNCH_TILE)
        return out

    return float(spec.memo(("discovery.weights",), make).get(case_id, 1.0))


def jobs(spec: Spec, ids: Sequence[str], chunk: int) -> list[tuple[str, ...]]:
    """Lane jobs: runs of consecutive cases, each closed at `chunk` cases or before its weight
    passes `chunk` times the median case's (a few heavy maps, the 1-bit 256 x 256 tiles, are
    then jobs of their own instead of one long job that ends the run late)."""
    if not ids:
        return []
    costs = [case_weight(spec, i) for i in ids]
    return space.bounded_runs(ids, costs, chunk, chunk * sorted(costs)[len(costs) // 2])


def job_weight(spec: Spec, ids: tuple[str, ...]) -> float:
    """A job's host work, relative (for running the longest first)."""
    return sum(case_weight(spec, i) for i in ids)


def _smem_map(key: str, p: P.Probe, operand: str, swizzle: str) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec, v = sess.spec, p.variant
        c = coding(spec, p, operand, swizzle)
        a_lay, b_lay, coded, bits, offs = c.a_lay, c.b_lay, c.coded, c.bits, c.offs
        region, plan_, step, shifts = c.region, c.plan, c.step, c.shifts
        dtype = coded.dtype
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
