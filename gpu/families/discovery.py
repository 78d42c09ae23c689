"""Discovery: the hardware's own maps, each compared with the oracle's.

* `gpu.d_map[<instr>]`: D[m, n] digit-coded (A[m, 0] = digit of m, B[n, 0] = 1, then the
  other way round) reveals which (m, n) each accumulator slot holds.
* `gpu.smem_map[<instr>:<A|B>:<layout>]`: one operand's region index-coded, the other
  one-hot: D reveals the address each (mn, k) was read from.
* `gpu.a_regs[<instr>:RS]`: register A index-coded: D reveals which thread, register and
  subelement each A[m, k] was taken from.

A mismatch is a diff table in the layout's coordinates (`ptxconf.oracle.verdicts.compared`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ptxconf.cases import Case, Outcome
from ptxconf.oracle import interpret as I
from ptxconf.oracle import verdicts
from ptxconf.oracle.spec import Spec
from ptxconf.providers import RunContext

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
    gpu_case,
    image,
    launch,
    lay_details,
    layouts,
    round_up,
)
from ..variants import WgmmaVariant

PROVIDER = "gpu-discovery"


def _failed_raw(sess: Session, outcome: Outcome, **arrays: np.ndarray) -> Outcome:
    """A failing outcome with the raw dumps attached (while the run's budget lasts)."""
    if outcome.status.failing:
        return Outcome(outcome.status, outcome.code, outcome.message,
                       {**outcome.fields, "raw": sess.raw(**arrays)})
    return outcome


def _d_map(key: str, p: P.Probe) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = layouts(spec, v, "K", "none")
        plan_m = I.digit_plan(spec, v.atype, v.m, v.dtype)
        plan_n = I.digit_plan(spec, v.btype, v.n, v.dtype)
        launches = []
        rows, cols = np.arange(v.m), np.arange(v.n)
        for which, plan_, coded in (("m", plan_m, rows), ("n", plan_n, cols)):
            for j in range(plan_.digits):
                a = np.zeros((v.m, v.k), dtype=np.int64)
                b = np.zeros((v.n, v.k), dtype=np.int64)
                if which == "m":
                    a[:, 0], b[:, 0] = plan_.digit(coded, j), 1
                else:
                    a[:, 0], b[:, 0] = 1, plan_.digit(coded, j)
                launches.append(launch(spec, v, image(spec, a, a_lay), image(spec, b, b_lay),
                                       desc(spec, a_lay), desc(spec, b_lay)))
        dumps = sess.run_wgmma(v, launches)
        bits = I.element_bits(spec, v.dtype)
        vals = [acc_values(spec, v, I.register_slots(d.regs, bits)) for d in dumps]
        got_m = plan_m.combine(vals[: plan_m.digits])
        got_n = plan_n.combine(vals[plan_m.digits:])
        table = I.fragment_table(spec, v.ptx_name, "D")
        per = got_m.shape[2]
        exp = np.full(got_m.shape, -1, dtype=np.int64)
        exp[table[:, 0], table[:, 1], table[:, 2]] = table[:, 3] * v.n + table[:, 4]
        got = got_m * v.n + got_n
        shape2 = (got.shape[0], got.shape[1] * per)

        def fmt(c: Any) -> str:
            return "none" if int(c) < 0 else f"D({int(c) // v.n},{int(c) % v.n})"

        diff = I.diff_grid(f"accumulator map of {v.ptx_name}", exp.reshape(shape2),
                           got.reshape(shape2), axes=("thread", "slot"), fmt=fmt,
                           extra={"slot": f"register * {per} + subelement"})
        out = verdicts.compared(
            diff, f"all {diff.total} accumulator slots hold the (m, n) the oracle's D map says "
                  f"({len(launches)} launches)",
            kernel=v.kernel_name, launches=len(launches),
            oracle=f"ptxconf oracle fragment --instr {v.ptx_name} --operand D --json",
            silicon_map=I.fingerprint(got))
        return _failed_raw(sess, out, discovered=got)

    return body


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


def a_regs_discovery(sess: Session, v: WgmmaVariant) -> tuple[np.ndarray, np.ndarray, int]:
    """(expected, found) slot codes [M, K] of register A, and the launches it took."""
    spec = sess.spec
    threads = v.facts.warpgroup_threads
    bits = I.element_bits(spec, v.atype)
    per = sess.register_bits // bits
    count = threads * v.nreg_a * per
    plan_ = I.digit_plan(spec, v.atype, count, v.dtype)
    codes = np.arange(count, dtype=np.int64).reshape(threads, v.nreg_a, per)
    _, b_lay = layouts(spec, v, "MN" if v.trans_b else "K", "none")
    shifts = -(-v.k // v.n)
    launches = []
    for s in range(shifts):
        partner = image(spec, I.one_hot(v.n, v.k, s * v.n), b_lay)
        for j in range(plan_.digits):
            raw = I.encode(spec, v.atype, plan_.digit(codes, j))
            words = np.zeros((threads, v.nreg_a), dtype=np.uint64)
            for sub in range(per):
                words |= raw[:, :, sub] << np.uint64(sub * bits)
            launches.append(launch(spec, v, words.astype(np.uint32), partner, None,
                                   desc(spec, b_lay)))
    dumps = sess.run_wgmma(v, launches)
    found = np.full((v.m, v.k), -1, dtype=np.int64)
    for s in range(shifts):
        digits = [acc_values(spec, v, d_matrix(spec, v, d.regs))
                  for d in dumps[s * plan_.digits:(s + 1) * plan_.digits]]
        code = plan_.combine(digits)
        ks = np.arange(v.n) + s * v.n
        ok = ks < v.k
        found[:, ks[ok]] = code[:, ok]
    table = I.fragment_table(spec, v.ptx_name, "A")
    expected = np.full((v.m, v.k), -1, dtype=np.int64)
    expected[table[:, 3], table[:, 4]] = (table[:, 0] * v.nreg_a + table[:, 1]) * per + table[:, 2]
    return expected, found, len(launches)


def _slot_fmt(v: WgmmaVariant, per: int) -> Callable[[Any], str]:
    def fmt(c: Any) -> str:
        c = int(c)
        if c < 0:
            return "none"
        t, rest = divmod(c, v.nreg_a * per)
        r, s = divmod(rest, per)
        return f"t{t}.r{r}.s{s}"

    return fmt


def _a_regs(key: str, p: P.Probe) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec, v = sess.spec, p.variant
        expected, found, launches = a_regs_discovery(sess, v)
        per = sess.register_bits // I.element_bits(spec, v.atype)
        diff = I.diff_grid(f"register A map of {v.ptx_name} (thread.register.subelement "
                           "holding A[m, k])", expected, found, axes=("m", "k"),
                           fmt=_slot_fmt(v, per))
        out = verdicts.compared(
            diff, f"register A: all {diff.total} elements sit where a_regs_like_d16 says "
                  f"({launches} launches)",
            kernel=v.kernel_name, launches=launches, hypothesis="a_regs_like_d16",
            oracle=f"ptxconf oracle fragment --instr {v.ptx_name} --operand A --json",
            silicon_map=I.fingerprint(found),
            silicon_followed="a_regs_like_d16" if diff.ok else "another map")
        return _failed_raw(sess, out, discovered=found)

    return body


_BODIES: dict[str, Callable[..., GpuBody]] = {
    P.CHECK_D_MAP: _d_map, P.CHECK_SMEM_MAP: _smem_map, P.CHECK_A_REGS: _a_regs}


def case_keys(spec: Spec) -> Iterator[tuple[str, str]]:
    """(check, key) of every discovery case."""
    for p in P.discovery_plan(spec):
        yield p.check, p.key


def cases(spec: Spec, ctx: RunContext) -> Iterator[Case]:
    """The D maps, then the shared-memory maps, then the register-A maps."""
    for p in P.discovery_plan(spec):
        yield gpu_case(spec, ctx, PROVIDER, p.check, p.key, _BODIES[p.check](p.key, *p.args))
