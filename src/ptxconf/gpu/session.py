"""How the GPU cases run: one probe-worker session per run, and the launch plumbing they share.

`Session` holds ONE `ProbeRunner` worker for the whole run (a fault is that case's FAIL with
the CUDA error text; the worker is restarted and the run goes on), the compile batches that
worker has loaded, the device description and the run's raw-dump budget. It is a run resource:
`open_session(spec, ctx)` makes it on the first case that needs it
(`ctx.resource("gpu.session", ...)`) and the run closes it at its end. `gpu_problem()` says why
no usable sm_90a device is here (None when there is one), for the providers' GPU requirement.

`gpu_case` and `planned_family` make a family's cases from its plan and its bodies; operands,
descriptors and launch arguments are `ptxconf.gpu.operands`'.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ptxconf.core.cases import Case, Outcome, case, fail
from ptxconf.core.context import RunContext
from ptxconf.oracle import facts
from ptxconf.oracle.spec import Spec

from .plan import WMMA_BATCH, Plan, batch_index, modules_of, plan
from .variants import WgmmaVariant

#: The run resource's name (`RunContext.resource`).
SESSION_RESOURCE = "gpu.session"
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
        #: The batches the calls asked for while a job is recorded (`ptxconf.gpu.transcript`).
        self.touched: set[str] | None = None

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
            if key and self.touched is not None:
                self.touched.add(key)
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
        per spec (`Spec.memo`: the sessions a process opens on one spec, as the tests' do, share
        them); with why they are missing, if they are."""
        if self._proof_probes is None:
            try:
                from ptxconf.oracle.proofs.distinguish import distinguishing_probes
            except ImportError as exc:
                self._proof_probes = ([], f"not available here ({exc})")
            else:
                from ptxconf.oracle.proofs.cache import ProofCache

                cache = ProofCache(self.spec) if self.proof_cache else None
                try:
                    probes = self.spec.memo(("distinguishing_probes", self.proof_cache),
                                            lambda: tuple(distinguishing_probes(self.spec, cache=cache)))
                    self._proof_probes = (list(probes), None)
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


__all__ = ["SESSION_RESOURCE", "GpuBody", "Session", "case_modules", "device_answer",
           "device_line", "gpu_case", "gpu_count", "gpu_problem", "new_runner", "open_session",
           "planned_family"]
