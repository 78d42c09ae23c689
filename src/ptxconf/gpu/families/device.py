"""gpu.device[sm_90a] and gpu.compile[<batch>]: what the device is; every kernel of the run,
compiled up front in modules (in parallel on the host, or taken from the kernel cache), each
run once on all-ones operands.

The all-ones self test needs no oracle: every element of A and B is 1 and the operand regions
hold ones beyond anything a descriptor reaches, so D = K in every accumulator element whatever
the layout. It shows that each kernel runs, its operand list is right and every accumulator
register comes back; the compile batches hold every variant of the space, so every kernel is
run.
"""

from __future__ import annotations

from ptxconf.core.cases import Outcome, fail, passed

from .. import plan as P
from .. import selftest
from ..session import GpuBody, Session, planned_family
from ..variants import WgmmaVariant

PROVIDER = "gpu-device"


def _device(sess: Session) -> Outcome:
    if "error" in sess.device_info:
        raise fail(f"the device is not usable: {sess.device_info['error']}", code="gpu_unusable",
                   **sess.device_info)
    return passed(sess.device or "", **sess.device_info)


def _all_ones(sess: Session, variants: tuple[WgmmaVariant, ...]) -> dict[str, str]:
    """kernel -> what was wrong, for every variant whose all-ones run does not give D = K.
    One worker call: a launch per variant, one synchronisation; after a fault, one by one."""
    jobs = [(v, [selftest.all_ones_launch(sess.spec, v)]) for v in variants]
    res = sess.call("run_wgmma_sweep", jobs, variants=list(variants))
    bad: dict[str, str] = {}
    for i, (v, launches) in enumerate(jobs):
        if res.ok:
            dumps = res.value[i]
        else:
            one = sess.call("run_wgmma_sweep", [(v, launches)], variants=[v])
            if not one.ok:
                bad[v.kernel_name] = f"the probe failed ({one.error_kind}): {one.error}"
                continue
            dumps = one.value[0]
        problem = selftest.check_all_ones(sess.spec, v, dumps[0].regs)
        if problem:
            bad[v.kernel_name] = problem
    return bad


def _compile(key: str) -> GpuBody:
    def body(sess: Session) -> Outcome:
        fn, vs = sess.batch(key)
        res = sess.prepare(key)
        cached = sess.cached(key)
        fields = {"kernels": len(vs), "compile_seconds": round(res.seconds, 3), "function": fn,
                  "from_cache": cached}
        how = ("from the kernel cache, nothing compiled" if cached
               else f"compiled in {res.seconds:.1f} s")
        if not res.ok:
            raise fail(f"{key}: {len(vs)} kernels did not compile as one module "
                       f"({res.error_kind}): {res.error}", code="compile_failed", **fields)
        if key == P.WMMA_BATCH:
            return passed(f"{len(vs)} kernels in one module, {how}", **fields)
        wgmma = tuple(v for v in vs if isinstance(v, WgmmaVariant))
        bad = _all_ones(sess, wgmma)
        fields["all_ones"] = {"kernels": len(wgmma), "wrong": dict(list(bad.items())[:8]),
                              "wrong_count": len(bad)}
        if bad:
            faulted = any(b.startswith("the probe failed") for b in bad.values())
            raise fail(f"{key}: {len(bad)} of {len(wgmma)} kernels fail the all-ones self test "
                       f"(D = K expected); first: {next(iter(bad.values()))}",
                       code="gpu_fault" if faulted else "silicon_disagrees", **fields)
        return passed(f"{len(vs)} kernels in one module, {how}; each gives D = K on all-ones "
                      "operands", **fields)

    return body


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(
    PROVIDER, P.device_plan, lambda p: _device if p.check == P.CHECK_DEVICE else _compile(*p.args))
