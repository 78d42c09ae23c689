"""gpu.variant[<instr>:<SS|RS>[:t<trans-a><trans-b>]]: every instruction variant of the space.

Each variant of `ptxconf.gpu.space` gets, in ONE launch (a block per probe):

* the end-to-end product D = A·Bᵀ, bit for bit, with both operands in every swizzle mode, in
  the major-ness its transpose immediates give (A from registers by the oracle's A map for RS);
* its accumulator map, digit-coded (A[m, 0] = digit of m, B[n, 0] = 1, then the other way);
* for RS, its register-A map, index-coded (which thread, register and subelement each A[m, k]
  is taken from).

The variants of one compiled module run together: one worker call, one launch per variant and
one synchronisation for them all; the outcomes are computed when the module's first case runs
and kept in the session (`Session.memo`). If that shared call faults, each variant runs alone,
so that the fault lands on the variant that caused it.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from ptxconf.core.cases import Outcome, fail, passed
from ptxconf.oracle import facts
from ptxconf.oracle import interpret as I
from ptxconf.oracle.spec import Spec

from .. import build, space
from .. import plan as P
from ..operands import a_regs, acc_values, d_matrix, desc, image, launch, layout
from ..session import Session, planned_family
from ..variants import WgmmaVariant

PROVIDER = "gpu-sweep"
T = TypeVar("T")
#: What one probe set hands back: its launches, and how to read their dumps into
#: (what was compared, the diff).
Decode = Callable[[list[Any]], list[tuple[str, I.Diff]]]


def variant_key(v: WgmmaVariant) -> str:
    """<instr>:<SS|RS>, with :t<trans-a><trans-b> where the type spells imm-trans."""
    key = f"{v.ptx_name}:{v.form.upper()}"
    return key + (f":t{v.trans_a}{v.trans_b}" if v.takes_trans else "")


def _memo(sess: Session, key: tuple[Any, ...], make: Callable[[], T]) -> T:
    if key not in sess.memo:
        sess.memo[key] = make()
    value: T = sess.memo[key]
    return value


def _operand(sess: Session, dtype: str, rows: int, v: WgmmaVariant, what: str) -> np.ndarray:
    """Random exact operand values, shared by every variant with the same type, shape and
    value range (so their placed images are built once)."""
    rng_key = ("operand", what, dtype, rows, v.k, I.operand_range(sess.spec, dtype, v.dtype, v.k))

    def make() -> np.ndarray:
        rng = np.random.default_rng(zlib.crc32(repr(rng_key).encode()))
        return I.random_operand(sess.spec, dtype, (rows, v.k), rng, acc_dtype=v.dtype, k=v.k)

    return _memo(sess, rng_key, make)


def _image(sess: Session, vals_key: tuple[Any, ...], vals: np.ndarray,
           lay: I.OperandLayout) -> bytes:
    """image() of operand values, built once per (values, layout)."""
    return _memo(sess, ("image", vals_key, lay), lambda: image(sess.spec, vals, lay))


def _layouts(sess: Session, v: WgmmaVariant, swizzle: str
             ) -> tuple[I.OperandLayout | None, I.OperandLayout]:
    a_major, b_major = space.operand_majors(v)
    a_lay = None if a_major is None else layout(sess.spec, v.atype, a_major, swizzle, v.m, v.k)
    return a_lay, layout(sess.spec, v.btype, b_major, swizzle, v.n, v.k)


def _launch(sess: Session, v: WgmmaVariant, a_key: tuple[Any, ...], a: np.ndarray,
            b_key: tuple[Any, ...], b: np.ndarray, swizzle: str) -> dict[str, Any]:
    """One block: A and B placed in one swizzle mode (A in registers for RS)."""
    spec = sess.spec
    a_lay, b_lay = _layouts(sess, v, swizzle)
    b_img = _image(sess, b_key, b, b_lay)
    if a_lay is None:
        regs = _memo(sess, ("regs", a_key, v.ptx_name),
                     lambda: a_regs(spec, v, I.encode(spec, v.atype, a)))
        return launch(spec, v, regs, b_img, None, desc(spec, b_lay))
    return launch(spec, v, _image(sess, a_key, a, a_lay), b_img, desc(spec, a_lay),
                  desc(spec, b_lay))


def e2e_probes(sess: Session, v: WgmmaVariant) -> tuple[list[dict[str, Any]], Decode]:
    """D = A·Bᵀ in every swizzle mode."""
    spec = sess.spec
    a = _operand(sess, v.atype, v.m, v, "A")
    b = _operand(sess, v.btype, v.n, v, "B")
    a_key = ("A", v.atype, v.m, v.k, v.dtype)
    b_key = ("B", v.btype, v.n, v.k, v.dtype)
    want = _memo(sess, ("want", a_key, b_key), lambda: I.encode(spec, v.dtype, I.matmul(a, b)))
    swizzles = facts.swizzle_modes(spec)
    launches = [_launch(sess, v, a_key, a, b_key, b, sw) for sw in swizzles]

    want_regs = _memo(sess, ("want_regs", a_key, b_key, v.ptx_name), lambda: I.regs_from_matrix(
        want, I.fragment_table(spec, v.ptx_name, "D"), v.facts.warpgroup_threads, v.nreg_d,
        I.element_bits(spec, v.dtype)))

    def decode(dumps: list[Any]) -> list[tuple[str, I.Diff]]:
        out = []
        for sw, dump in zip(swizzles, dumps, strict=True):
            a_lay, b_lay = _layouts(sess, v, sw)
            what = (f"D = A·Bᵀ, A {'registers' if a_lay is None else a_lay.atom}, B {b_lay.atom}")
            if np.array_equal(dump.regs, want_regs):  # every register word as the D map says
                out.append((f"product {sw}", I.Diff(what, ("m", "n"), int(want.size), 0, None,
                                                    None)))
                continue
            got = d_matrix(spec, v, dump.regs)
            out.append((f"product {sw}", I.diff_grid(what, want, got, axes=("m", "n"))))
        return out

    return launches, decode


def d_map_probes(sess: Session, v: WgmmaVariant) -> tuple[list[dict[str, Any]], Decode]:
    """The accumulator map, digit-coded: which (m, n) each accumulator slot holds."""
    spec = sess.spec
    plan_m = I.digit_plan(spec, v.atype, v.m, v.dtype)
    plan_n = I.digit_plan(spec, v.btype, v.n, v.dtype)
    launches = []
    for which, plan_, count in (("m", plan_m, v.m), ("n", plan_n, v.n)):
        for j in range(plan_.digits):
            a = np.zeros((v.m, v.k), dtype=np.int64)
            b = np.zeros((v.n, v.k), dtype=np.int64)
            digit = plan_.digit(np.arange(count), j)
            a[:, 0], b[:, 0] = (digit, 1) if which == "m" else (1, digit)
            launches.append(_launch(sess, v, ("dA", which, j, v.atype, v.m, v.k), a,
                                    ("dB", which, j, v.btype, v.n, v.k), b, "none"))

    def decode(dumps: list[Any]) -> list[tuple[str, I.Diff]]:
        bits = I.element_bits(spec, v.dtype)
        vals = [acc_values(spec, v, I.register_slots(d.regs, bits)) for d in dumps]
        got = plan_m.combine(vals[:plan_m.digits]) * v.n + plan_n.combine(vals[plan_m.digits:])
        table = I.fragment_table(spec, v.ptx_name, "D")
        exp = np.full(got.shape, -1, dtype=np.int64)
        exp[table[:, 0], table[:, 1], table[:, 2]] = table[:, 3] * v.n + table[:, 4]
        shape2 = (got.shape[0], got.shape[1] * got.shape[2])

        def fmt(c: Any) -> str:
            return "none" if int(c) < 0 else f"D({int(c) // v.n},{int(c) % v.n})"

        return [("accumulator map", I.diff_grid(
            f"accumulator map of {v.ptx_name}", exp.reshape(shape2), got.reshape(shape2),
            axes=("thread", "slot"), fmt=fmt))]

    return launches, decode


def a_regs_probes(sess: Session, v: WgmmaVariant) -> tuple[list[dict[str, Any]], Decode]:
    """Register A index-coded: which thread.register.subelement holds each A[m, k]."""
    spec = sess.spec
    threads = v.facts.warpgroup_threads
    bits = I.element_bits(spec, v.atype)
    per = sess.register_bits // bits
    count = threads * v.nreg_a * per
    plan_ = I.digit_plan(spec, v.atype, count, v.dtype)
    codes = np.arange(count, dtype=np.int64).reshape(threads, v.nreg_a, per)
    _, b_major = space.operand_majors(v)
    b_lay = layout(spec, v.btype, b_major, "none", v.n, v.k)
    shifts = -(-v.k // v.n)
    launches = []
    for s in range(shifts):
        partner = _image(sess, ("one_hot", v.n, v.k, s * v.n, v.btype),
                         I.one_hot(v.n, v.k, s * v.n), b_lay)
        for j in range(plan_.digits):
            raw = I.encode(spec, v.atype, plan_.digit(codes, j))
            words = np.zeros((threads, v.nreg_a), dtype=np.uint64)
            for sub in range(per):
                words |= raw[:, :, sub] << np.uint64(sub * bits)
            launches.append(launch(spec, v, words.astype(np.uint32), partner, None,
                                   desc(spec, b_lay)))

    def decode(dumps: list[Any]) -> list[tuple[str, I.Diff]]:
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
        expected[table[:, 3], table[:, 4]] = ((table[:, 0] * v.nreg_a + table[:, 1]) * per
                                              + table[:, 2])
        return [("register A map", I.diff_grid(
            f"register A map of {v.ptx_name} (thread.register.subelement code)", expected,
            found, axes=("m", "k")))]

    return launches, decode


def probe_sets(sess: Session, v: WgmmaVariant) -> list[tuple[list[dict[str, Any]], Decode]]:
    """Every probe set of a variant."""
    sets = [e2e_probes(sess, v), d_map_probes(sess, v)]
    if v.a_from_regs:
        sets.append(a_regs_probes(sess, v))
    return sets


def judge_variant(v: WgmmaVariant, parts: list[tuple[str, I.Diff]], blocks: int) -> Outcome:
    """PASS when every product and map agrees with the oracle; else FAIL with the first
    disagreeing diff and the names of all that disagree."""
    a_major, b_major = space.operand_majors(v)
    fields: dict[str, Any] = {
        "kernel": v.kernel_name, "blocks": blocks,
        "majors": {"A": a_major or "registers", "B": b_major},
        "checked": {name: diff.total for name, diff in parts},
        "oracle": f"ptxconf oracle fragment --instr {v.ptx_name} --operand D --json"}
    bad = [(name, diff) for name, diff in parts if not diff.ok]
    if not bad:
        return passed(f"{len(parts)} checks bit-exact in one launch of {blocks} blocks: "
                      + ", ".join(name for name, _ in parts), **fields)
    name, diff = bad[0]
    fields["diff"] = diff.details()
    fields["disagree"] = [n for n, _ in bad]
    raise fail(f"{variant_key(v)}: {len(bad)} of {len(parts)} checks disagree; first: "
               f"{diff.message()}", code="silicon_disagrees", **fields)


def _run(sess: Session, jobs: list[tuple[WgmmaVariant, list[Any]]]) -> Any:
    return sess.call("run_wgmma_sweep", [(v, [kw for ls, _ in sets for kw in ls])
                                         for v, sets in jobs],
                     variants=[v for v, _ in jobs])


def _outcome(v: WgmmaVariant, sets: list[Any], dumps: list[Any]) -> Outcome | BaseException:
    """The variant's outcome, or the exception (a Verdict) its case body raises."""
    try:
        parts: list[tuple[str, I.Diff]] = []
        i = 0
        for launches, decode in sets:
            parts += decode(dumps[i:i + len(launches)])
            i += len(launches)
        return judge_variant(v, parts, len(dumps))
    except Exception as exc:  # noqa: BLE001 - raised again by the variant's own case
        return exc


def run_module(sess: Session, variants: tuple[WgmmaVariant, ...]) -> None:
    """Every variant of one module in one worker call; outcomes into `sess.memo`. A fault
    reruns the variants one by one so that it lands on its own variant."""
    jobs = [(v, probe_sets(sess, v)) for v in variants]
    res = _run(sess, jobs)
    if res.ok:
        for (v, sets), dumps in zip(jobs, res.value, strict=True):
            sess.memo[("outcome", v)] = _outcome(v, sets, dumps)
        return
    for v, sets in jobs:
        one = _run(sess, [(v, sets)])
        if one.ok:
            sess.memo[("outcome", v)] = _outcome(v, sets, one.value[0])
        else:
            sess.memo[("outcome", v)] = fail(
                f"{variant_key(v)}: the probe failed ({one.error_kind}): {one.error}",
                code="gpu_fault", kernel=v.kernel_name, error_kind=one.error_kind,
                error=one.error)


def _variant_body(v: WgmmaVariant) -> Callable[[Session], Outcome]:
    def body(sess: Session) -> Outcome:
        key = ("outcome", v)
        if key not in sess.memo:
            batch = sess.batch_of.get(v)
            members = sess.plan.batch(batch) if batch else (v,)
            run_module(sess, tuple(m for m in members if isinstance(m, WgmmaVariant)
                                   and ("outcome", m) not in sess.memo))
        out: Outcome | BaseException = sess.memo.pop(key)
        if isinstance(out, BaseException):
            raise out
        return out

    return body


def module_of(spec: Spec, case_id: str) -> str:
    """The compile module a gpu.variant case's kernel lives in (its cases run together)."""
    def make() -> dict[str, str]:
        return {P.Planned(P.CHECK_VARIANT, variant_key(v)).id: key
                for key, mod in P.plan(spec).wgmma_batches.items() for v in mod}

    return spec.memo(("sweep.module_of",), make).get(case_id, "")


def module_weight(spec: Spec, case_ids: tuple[str, ...]) -> float:
    """How much host work a set of variant cases is, relative (their accumulator elements:
    N x the RS form's extra register-A map), for ordering jobs longest first."""
    def make() -> dict[str, float]:
        return {P.Planned(P.CHECK_VARIANT, variant_key(v)).id: v.n * (2.0 if v.a_from_regs else 1.0)
                for v in space.wgmma_variants(spec)}

    weights = spec.memo(("sweep.weights",), make)
    return 1000.0 + sum(weights.get(i, 0.0) for i in case_ids)


def jobs(spec: Spec, ids: Sequence[str], chunk: int) -> list[tuple[str, ...]]:
    """Lane jobs: the cases of one compiled module together (a module's kernels load once per
    lane); `chunk` does not apply."""
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(module_of(spec, i), []).append(i)
    return [tuple(g) for g in groups.values()]


#: A job's relative cost (`Provider.weigh_job`): its module's host work.
job_weight = module_weight


def sweep_plan(spec: Spec) -> list[P.Planned]:
    """gpu.variant[...] for every variant of the space, module by module."""
    return [P.Planned(P.CHECK_VARIANT, variant_key(v), (v,))
            for mod in P.plan(spec).wgmma_batches.values() for v in mod]


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, sweep_plan, lambda p: _variant_body(*p.args))


def naive_variant(sess: Session, v: WgmmaVariant, folder: str) -> Outcome | BaseException:
    """The baseline `ptxconf bench` measures against: the same checks of one variant with its
    kernel alone in a module compiled with no cache, and every probe its own launch, its own
    synchronisation and its own worker round trip."""
    import os


    res = build.nvrtc_compile(build.wgmma_source([v]), build.arch_options())
    if not res.ok or res.cubin is None:
        return fail(f"{v.kernel_name}: did not compile: {res.log[:200]}", code="compile_failed")
    path = os.path.join(folder, f"naive_{v.kernel_name}.cubin")
    with open(path, "wb") as f:
        f.write(res.cubin)
    sess.runner.call("load_module", [v], path)
    sess.memo.clear()
    sets = probe_sets(sess, v)
    dumps = []
    for launches, _ in sets:
        for kw in launches:
            one = sess.runner.call("run_wgmma_dump", v, **kw)
            if not one.ok:
                return fail(f"{v.kernel_name}: {one.error}", code="gpu_fault")
            dumps.append(one.value)
    return _outcome(v, sets, dumps)
