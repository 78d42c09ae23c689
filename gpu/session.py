"""How the GPU cases run: one probe-worker session per run, and the launch plumbing they share.

`Session` holds ONE `ProbeRunner` worker for the whole run (a fault is that case's FAIL with
the CUDA error text; the worker is restarted and the run goes on), the compile batches that
worker has loaded, the device description and the run's raw-dump budget. It is a run resource:
`open_session(spec, ctx)` makes it on the first case that needs it
(`ctx.resource("gpu.session", ...)`) and the run closes it at its end. `gpu_problem()` says why
no usable sm_90a device is here (None when there is one), for the providers' GPU requirement.

The helpers below place operands by the oracle's layouts (`ptxconf.oracle.interpret`), build
descriptors and launch keyword arguments, and read the dumps back; what a dump means is judged
by `ptxconf.oracle.verdicts`.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ptxconf.cases import Case, Outcome, case, fail
from ptxconf.oracle import facts
from ptxconf.oracle import interpret as I
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.spec import Spec
from ptxconf.providers import RunContext

from .plan import WMMA_BATCH, Plan, batch_index, modules_of, plan
from .probes import REGION_ALIGN_BYTES
from .variants import WgmmaVariant

#: The run resource's name (`RunContext.resource`).
SESSION_RESOURCE = "gpu.session"
#: Zero bytes appended after every operand image: a read just past the layout's last byte
#: lands in memory the probe owns.
GUARD_BYTES = 1024
#: Failing cases that get their raw dump attached (base64 of zlib), per run.
RAW_DUMP_BUDGET = 12
#: Worker time limits (seconds): starting it, asking the device, compiling a module, one
#: batch of launches.
START_TIMEOUT_S = 180
DEVICE_TIMEOUT_S = 180
COMPILE_TIMEOUT_S = 600
PROBE_TIMEOUT_S = 120


def device_line(info: dict[str, Any]) -> str:
    """One line naming the device and its software stack (or why it is unusable)."""
    if "error" in info:
        return f"unusable: {info['error']}"
    return (f"{info.get('name')} (cc {info.get('compute_capability')}; driver "
            f"{info.get('cuda_driver_version')}; CUDA runtime {info.get('cuda_runtime_version')}"
            f"; CuPy {info.get('cupy_version')})")


class Session:
    """One ProbeRunner worker for the whole run, the compile batches it has loaded, and what
    every case shares (device line, raw-dump budget, the proofs' distinguishing inputs)."""

    def __init__(self, spec: Spec, runner: Any, *, host_compile: bool = False) -> None:
        self.spec = spec
        self.host_compile = host_compile
        self.runner = runner
        self.plan: Plan = plan(spec)
        self.batch_of = batch_index(spec)
        self.device: str | None = None
        self.device_info: dict[str, Any] = {}
        self.compile_errors: dict[str, str] = {}
        self.compile_seconds: dict[str, float] = {}
        self.raw_budget = RAW_DUMP_BUDGET
        self.register_bits = facts.register_bits(spec)
        self._prepared: set[str] = set()
        self._generation = getattr(runner, "restarts", 0)
        self._proof_probes: tuple[list[Any], str | None] | None = None
        self.built: dict[str, Any] | None = None
        self.build_seconds = 0.0
        self.kernel_cache: Any = None  # a folder; None: kcache.cache_dir()
        #: Whether proof_probes may take the distinguishing searches from the proof cache.
        self.proof_cache = False
        self.memo: dict[Any, Any] = {}  # outcomes computed ahead for cases run in batches

    def describe(self) -> None:
        """Ask the worker what the device is."""
        info = self.runner.call("device.describe", timeout_s=DEVICE_TIMEOUT_S)
        self.device_info = info.value if info.ok else {"error": info.error}
        self.device = device_line(self.device_info)

    def close(self) -> None:
        """End the worker."""
        self.runner.close()

    def _sync(self) -> None:
        restarts = getattr(self.runner, "restarts", 0)
        if restarts != self._generation:
            self._generation = restarts
            self._prepared.clear()

    def batch(self, key: str) -> tuple[str, Sequence[Any]]:
        """(probe function, variants) of a compile batch."""
        fn = "prepare_wmma" if key == WMMA_BATCH else "prepare_wgmma"
        return fn, self.plan.batch(key)

    def modules(self) -> list[Any]:
        """Every compile batch as a module to build (`ptxconf.gpu.kcache`)."""
        from . import build, kcache

        out = []
        for key in self.plan.keys:
            _, vs = self.batch(key)
            if key == WMMA_BATCH:
                out.append(kcache.Module(key, build.wmma_source(vs), build.wmma_options()))
            else:
                out.append(kcache.Module(key, build.wgmma_source(vs), build.arch_options()))
        return out

    def build(self) -> dict[str, Any]:
        """Every module of the plan on disk, built at the first need: from the kernel cache,
        or compiled by NVRTC in parallel host processes. Empty where NVRTC is missing here
        (the worker then compiles through CuPy)."""
        if self.built is None:
            from . import build, kcache

            self.built = {}
            if self.host_compile and build.nvrtc_problem() is None:
                self.built, self.build_seconds = kcache.timed_build_all(
                    self.modules(), folder=self.kernel_cache)
        return self.built

    def prepare(self, key: str) -> Any:
        """Load one batch into the current worker: the module built on the host (`build`), or
        compiled in the worker by CuPy where the host has no NVRTC."""
        from .runner import ProbeResult

        self._sync()
        fn, vs = self.batch(key)
        built = self.build().get(key)
        if built is not None and not built.ok:
            res = ProbeResult(False, error=built.log, error_kind="compile", seconds=built.seconds)
        elif built is not None:
            res = self.runner.call("load_module", list(vs), built.path, timeout_s=COMPILE_TIMEOUT_S)
            res = ProbeResult(res.ok, res.value, res.error, res.error_kind, built.seconds,
                              res.worker_pid)
        else:
            res = self.runner.call(fn, list(vs), timeout_s=COMPILE_TIMEOUT_S)
        self._sync()
        if res.ok:
            self._prepared.add(key)
            self.compile_errors.pop(key, None)
        else:
            self.compile_errors[key] = str(res.error)
        self.compile_seconds.setdefault(key, res.seconds)
        return res

    def cached(self, key: str) -> bool | None:
        """Whether a batch came from the kernel cache (None: not built on the host)."""
        built = (self.built or {}).get(key)
        return None if built is None else built.cached

    def ensure(self, variants: Sequence[Any]) -> None:
        """Load the batches these variants live in, if this worker has not yet."""
        self._sync()
        for key in dict.fromkeys(self.batch_of.get(v, "") for v in variants):
            if key and key not in self._prepared and key not in self.compile_errors:
                self.prepare(key)

    def call(self, name: str, *args: Any, variants: Sequence[Any] = (),
             timeout_s: float = PROBE_TIMEOUT_S, **kwargs: Any) -> Any:
        """runner.call with the variants' batches loaded first."""
        self.ensure(variants)
        return self.runner.call(name, *args, timeout_s=timeout_s, **kwargs)

    def run_wgmma(self, v: WgmmaVariant, launches: list[dict[str, Any]]) -> list[Any]:
        """Run launches of one variant; a fault raises a FAIL verdict with the CUDA error."""
        res = self.call("run_wgmma_batch", v, launches, variants=[v])
        if not res.ok:
            raise fail(f"{v.ptx_name} ({v.form.upper()}, trans {v.trans_a}{v.trans_b}): the probe "
                       f"failed ({res.error_kind}): {res.error}", code="gpu_fault",
                       error_kind=res.error_kind, error=res.error, kernel=v.kernel_name)
        return list(res.value)

    def raw(self, **arrays: np.ndarray) -> dict[str, Any] | str:
        """Raw dumps (base64 of zlib) for a failing case's fields, while the budget lasts."""
        if self.raw_budget <= 0:
            return "not attached (raw-dump budget of the run spent)"
        self.raw_budget -= 1
        out = {}
        for name, arr in arrays.items():
            a = np.ascontiguousarray(arr)
            out[name] = {"dtype": str(a.dtype), "shape": list(a.shape),
                         "zlib_b64": base64.b64encode(zlib.compress(a.tobytes(), 9)).decode()}
        return out

    def proof_probes(self) -> tuple[list[Any], str | None]:
        """The proofs' distinguishing inputs (ptxconf.oracle.proofs.distinguish), computed once
        per session; with why they are missing, if they are."""
        if self._proof_probes is None:
            try:
                from ptxconf.oracle.proofs.distinguish import distinguishing_probes
            except ImportError as exc:
                self._proof_probes = ([], f"not available here ({exc})")
            else:
                from ptxconf.oracle.proofs.cache import ProofCache

                cache = ProofCache(self.spec) if self.proof_cache else None
                try:
                    self._proof_probes = (list(distinguishing_probes(self.spec, cache=cache)),
                                          None)
                except Exception as exc:  # noqa: BLE001 - recorded; the built-in probes still run
                    self._proof_probes = ([], f"distinguishing_probes raised "
                                              f"{type(exc).__name__}: {exc}")
        return self._proof_probes


def new_runner(device: int | None = None) -> Any:
    """A probe worker with the session's time limits, on the device-th visible GPU."""
    from .runner import ProbeRunner

    return ProbeRunner(timeout_s=PROBE_TIMEOUT_S, start_timeout_s=START_TIMEOUT_S, device=device,
                       warm_call="device.warm")


def open_session(spec: Spec, ctx: RunContext) -> Session:
    """The run's session (made on first use, closed with the run), on the context's GPU."""
    def make() -> Session:
        from .kcache import folder_for

        sess = Session(spec, new_runner(ctx.device), host_compile=True)
        sess.kernel_cache = folder_for(ctx.kernel_cache)
        sess.proof_cache = ctx.proof_cache
        return sess

    sess: Session = ctx.resource(SESSION_RESOURCE, make, Session.close)
    if sess.spec is not spec:
        raise RuntimeError("the run's GPU session was opened for another spec")
    return sess


@functools.cache
def _gpu_probe() -> tuple[str | None, int]:
    """(why no usable sm_90a device is here or None, how many GPUs are visible), asked in one
    probe worker once per process: the answer is the machine's."""
    if importlib.util.find_spec("cupy") is None:
        return ("CuPy not importable: No module named 'cupy' (pip install cupy-cuda13x on a GPU "
                "node)", 0)
    from .device import driver_check

    quick = driver_check()  # the driver, asked directly: no worker to start
    if quick is not None:
        return quick
    runner = new_runner()
    try:
        return device_answer(runner)
    finally:
        runner.close()


def device_answer(runner: Any) -> tuple[str | None, int]:
    """(why its GPU cannot run sm_90a probes or None, how many GPUs it sees), asked of a probe
    worker (the run's device check, and each lane's as it warms up)."""
    res = runner.call("device.usable_sm90a", timeout_s=DEVICE_TIMEOUT_S)
    if not res.ok:
        return f"device check failed in the probe worker: {res.error}", 0
    ok, why = res.value
    count = runner.call("device.count", timeout_s=DEVICE_TIMEOUT_S)
    return (None if ok else str(why)), int(count.value) if count.ok else 0


def gpu_problem() -> str | None:
    """None when a usable sm_90a device is found (asked in a probe worker); else why not."""
    return _gpu_probe()[0]


def gpu_count() -> int:
    """How many GPUs the probe worker sees (0 without CUDA)."""
    return _gpu_probe()[1]


#: A GPU case body: gets the run's session; returns an outcome (or a pass message), or
#: raises a Verdict.
GpuBody = Callable[[Session], "Outcome | str"]


def gpu_case(spec: Spec, ctx: RunContext, provider: str, check: str, key: str,
             body: GpuBody) -> Case:
    """A GPU case: its body runs with the run's session; the case carries the device line."""

    def run() -> Outcome | str:
        sess = open_session(spec, ctx)
        if not sess.device_info:
            sess.describe()
        return body(sess)

    def device() -> str | None:
        sess = ctx.shared.get(SESSION_RESOURCE)
        return sess.device if sess is not None else None

    return case(check, key, run, provider, device)


#: A family's kernels run beyond its cases' args: case key -> variants.
RunsAlso = Callable[[Spec], dict[str, list[Any]]]
#: Each planned family's plan and the kernels its bodies run beyond their args, by provider
#: name (filled as the family modules are imported).
PLANS: dict[str, tuple[Callable[[Spec], Sequence[Any]], RunsAlso | None]] = {}


def case_modules(spec: Spec, provider: str) -> dict[str, frozenset[str] | None]:
    """Case id -> the compile batches its kernels live in (`plan.modules_of`, with the batches
    of the variants its family runs beyond its cases' args), for a planned family; empty for a
    family with no plan here (its cases may need any batch)."""
    if provider not in PLANS:
        return {}
    plan_of, also = PLANS[provider]

    def make() -> dict[str, frozenset[str] | None]:
        extra = also(spec) if also is not None else {}
        batch_of = batch_index(spec)
        out = {}
        for p in plan_of(spec):
            found = modules_of(spec, p)
            more = [batch_of.get(v) for v in extra.get(p.key, ())]
            out[p.id] = (None if found is None or None in more
                         else found | {b for b in more if b is not None})
        return out

    return spec.memo(("session.case_modules", provider), make)


def planned_family(provider: str, plan_of: Callable[[Spec], Sequence[Any]],
                   body_of: Callable[[Any], GpuBody],
                   runs_also: RunsAlso | None = None) -> tuple[
                       Callable[[Spec], Iterator[tuple[str, str]]],
                       Callable[[Spec, RunContext], Iterator[Case]]]:
    """A family's `case_keys(spec)` and `cases(spec, ctx)` from its plan (`Planned` items, from
    the spec alone) and the body each planned case runs: the pair every family module
    exposes to the provider registry. `runs_also(spec)`: case key -> the variants its body may
    run that its args do not name (so that `case_modules` knows which kernels a case needs)."""
    PLANS[provider] = (plan_of, runs_also)

    def case_keys(spec: Spec) -> Iterator[tuple[str, str]]:
        for p in plan_of(spec):
            yield p.check, p.key

    def cases(spec: Spec, ctx: RunContext) -> Iterator[Case]:
        for p in plan_of(spec):
            yield gpu_case(spec, ctx, provider, p.check, p.key, body_of(p))

    return case_keys, cases


# --- placement and launch ----------------------------------------------------------------------


def desc_args(spec: Spec) -> dict[str, int]:
    """desc_start_shift / desc_start_lsb: how the kernel folds the shared-memory address in."""
    f = descriptor_format(spec).field("start_address")
    return {"desc_start_shift": f.encode_shift_bits, "desc_start_lsb": f.lsb_bits}


def desc(spec: Spec, lay: I.OperandLayout, base_offset: int = 0, lbo: int | None = None,
         start: int = 0) -> int:
    """The descriptor relative to the bytes handed to the probe (start: the operand's offset
    into them); the kernel adds their shared-memory address."""
    return descriptor_format(spec).encode(
        start_address_bytes=start, lbo_bytes=lay.lbo_bytes if lbo is None else lbo,
        sbo_bytes=lay.sbo_bytes, swizzle=lay.swizzle, base_offset=base_offset)


def layout(spec: Spec, dtype: str, major: str, swizzle: str, mn: int, k: int) -> I.OperandLayout:
    """An operand layout with the compact LBO/SBO of its shape."""
    lbo, sbo = I.compact_strides(spec, dtype, major, swizzle, mn, k)
    return I.OperandLayout(dtype, major, swizzle, mn, k, lbo, sbo)


def layouts(spec: Spec, v: WgmmaVariant, major: str, swizzle: str
            ) -> tuple[I.OperandLayout, I.OperandLayout]:
    """(A, B) operand layouts of a variant in one major-ness and swizzle, compact strides."""
    return (layout(spec, v.atype, major, swizzle, v.m, v.k),
            layout(spec, v.btype, major, swizzle, v.n, v.k))


def round_up(x: int, to: int) -> int:
    """x rounded up to a multiple of `to`."""
    return -(-x // to) * to


def placed(spec: Spec, vals: np.ndarray, lay: I.OperandLayout, size: int = 0,
           raw: bool = False) -> tuple[bytes, int]:
    """Operand bytes with the values placed by the layout's offsets, then GUARD_BYTES of zeros,
    and the lead: how many bytes before the operand start the bytes begin (a swizzle acting on
    an unaligned start's absolute address can put an element before the start)."""
    bits = I.element_bits(spec, lay.dtype)
    offs = I.offsets(spec, lay)
    if not spec.memo(("injective", lay), lambda: I.offsets_injective(offs)):
        raise ValueError(f"{lay.atom} {lay.dtype} LBO={lay.lbo_bytes} SBO={lay.sbo_bytes}: two "
                         "elements share an address")
    unit = I.BITS_PER_BYTE if bits < I.BITS_PER_BYTE else 1
    lead = round_up(max(0, -int(offs.min()) // unit), 16) if offs.size else 0
    offs = offs + lead * unit
    raw_bits = vals if raw else I.encode(spec, lay.dtype, vals)
    need = I.footprint_bytes(offs, bits)
    total = round_up(max(need, size + lead), 16) + GUARD_BYTES
    return I.place(raw_bits, offs, bits, total).tobytes(), lead


def image(spec: Spec, vals: np.ndarray, lay: I.OperandLayout, size: int = 0,
          raw: bool = False) -> bytes:
    """Operand bytes from the operand start (ValueError if an element sits before it)."""
    img, lead = placed(spec, vals, lay, size, raw)
    if lead:
        raise ValueError(f"{lay.atom}: elements {lead} B before the operand start")
    return img


def a_regs(spec: Spec, v: WgmmaVariant, raw: np.ndarray) -> np.ndarray:
    """Register-A words of a matrix of raw element bits, by the oracle's A fragment map."""
    table = I.fragment_table(spec, v.ptx_name, "A")
    return I.regs_from_matrix(raw, table, v.facts.warpgroup_threads, v.nreg_a,
                              I.element_bits(spec, v.atype))


def launch(spec: Spec, v: WgmmaVariant, a: bytes | np.ndarray, b: bytes, a_desc: int | None,
           b_desc: int, **kw: Any) -> dict[str, Any]:
    """Keyword arguments of one run_wgmma_dump: A as bytes (SS) or register words (RS)."""
    if v.a_from_regs:
        return {"a_smem": None, "b_smem": b, "a_desc_rel": None, "b_desc_rel": b_desc,
                "a_regs": a, **desc_args(spec), **kw}
    return {"a_smem": a, "b_smem": b, "a_desc_rel": a_desc, "b_desc_rel": b_desc,
            **desc_args(spec), **kw}


def d_matrix(spec: Spec, v: WgmmaVariant, regs: np.ndarray) -> np.ndarray:
    """The raw accumulator matrix [M, N] of a dump's registers, by the oracle's D map."""
    table = I.fragment_table(spec, v.ptx_name, "D")
    return I.matrix_from_regs(regs, table, (v.m, v.n), I.element_bits(spec, v.dtype))


def acc_values(spec: Spec, v: WgmmaVariant, raw: np.ndarray) -> np.ndarray:
    """Accumulator values of raw accumulator bits."""
    return I.accumulator_values(spec, v.dtype, raw)


def acc_fmt(spec: Spec, dtype: str) -> Callable[[Any], str]:
    """A diff-table cell of raw accumulator bits: value (bits)."""
    def fmt(raw: Any) -> str:
        val = I.decode(spec, dtype, np.asarray([int(raw)], dtype=np.uint64))[0]
        return f"{I.int_fmt(val)} ({int(raw):#x})"

    return fmt


def lay_details(lay: I.OperandLayout) -> dict[str, Any]:
    """An operand layout as outcome fields, with the command that reproduces its offsets."""
    return {"layout": lay.atom, "dtype": lay.dtype, "mn": lay.mn, "k": lay.k,
            "lbo_bytes": lay.lbo_bytes, "sbo_bytes": lay.sbo_bytes, "oracle": lay.reproduce()}


def product(spec: Spec, v: WgmmaVariant, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random exact operands A (M x K), B (N x K) and the raw bits of D = A @ B^T (seeded by
    the key)."""
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    a = I.random_operand(spec, v.atype, (v.m, v.k), rng, acc_dtype=v.dtype, k=v.k)
    b = I.random_operand(spec, v.btype, (v.n, v.k), rng, acc_dtype=v.dtype, k=v.k)
    return a, b, I.encode(spec, v.dtype, I.matmul(a, b))


def run_product(sess: Session, v: WgmmaVariant, a: np.ndarray, b: np.ndarray,
                a_lay: I.OperandLayout, b_lay: I.OperandLayout, *,
                a_place: I.OperandLayout | None = None, b_place: I.OperandLayout | None = None,
                a_base_offset: int = 0, b_base_offset: int = 0, a_offset: int = 0,
                b_offset: int = 0, lbo: int | None = None, a_size: int = 0,
                b_size: int = 0) -> Any:
    """One launch, its dump: A and B placed by a_place/b_place (default: the descriptors'
    layouts), each starting a_offset/b_offset bytes into its region, with the base-offset
    fields given."""
    spec = sess.spec
    a_lead = 0
    if v.a_from_regs:
        a_in: bytes | np.ndarray = a_regs(spec, v, I.encode(spec, v.atype, a))
        a_desc = None
    else:
        a_in, a_lead = placed(spec, a, a_place or a_lay, a_size)
        a_desc = desc(spec, a_lay, a_base_offset, lbo, start=a_lead)
    b_img, b_lead = placed(spec, b, b_place or b_lay, b_size)
    if a_lead > a_offset or b_lead > b_offset:
        raise ValueError(f"elements before the region start (A {a_lead} B before +{a_offset}, "
                         f"B {b_lead} B before +{b_offset})")
    kw = launch(spec, v, a_in, b_img, a_desc, desc(spec, b_lay, b_base_offset, lbo, start=b_lead),
                smem_a_offset_bytes=a_offset - a_lead, smem_b_offset_bytes=b_offset - b_lead)
    dump = sess.run_wgmma(v, [kw])[0]
    check_starts(dump, a_offset - a_lead, b_offset - b_lead)
    return dump


def check_starts(dump: Any, a_offset: int, b_offset: int | None = None) -> None:
    """Each operand's region starts on REGION_ALIGN_BYTES, as the layouts' phase assumes."""
    b_offset = a_offset if b_offset is None else b_offset
    for what, addr, off in (("A", dump.a_start_address, a_offset),
                            ("B", dump.b_start_address, b_offset)):
        if addr is not None and (addr - off) % REGION_ALIGN_BYTES:
            raise fail(f"{what} starts at {addr:#x}: its region is not {REGION_ALIGN_BYTES}-byte "
                       "aligned, so the layouts' swizzle phase is not what the host assumed",
                       code="gpu_fault", smem_base_address=hex(dump.smem_base_address))


__all__ = ["GUARD_BYTES", "SESSION_RESOURCE", "GpuBody", "Session", "a_regs", "acc_fmt",
           "acc_values", "check_starts", "d_matrix", "desc", "desc_args", "device_answer",
           "device_line",
           "gpu_case", "gpu_count", "gpu_problem", "image", "launch", "lay_details", "layout",
           "layouts", "new_runner", "open_session", "placed", "planned_family", "product",
           "round_up", "run_product"]
