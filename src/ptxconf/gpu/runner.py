"""Run probes in a worker process, so that one that faults or hangs cannot end the run.

A probe that hits an illegal instruction or a misaligned address leaves the CUDA context
unusable, and one that hangs never returns. So probes run in a spawned worker: the worker is
reused until a call faults (it then exits) or outlives its timeout (it is killed); the next
call starts a fresh one. Every call returns a `ProbeResult`; results gathered before a fault
are kept, and the run goes on.

    with ProbeRunner(timeout_s=30) as runner:
        runner.call("prepare_wgmma", variants, timeout_s=600)
        results = runner.map(("run_wgmma", (v, None, b, None, desc), {...}) for v in ...)
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .busy import busy_s, kernels_timed

#: Exception type names that mean the CUDA context may be gone: the worker exits after them.
_CONTEXT_FATAL = frozenset({"CUDARuntimeError", "CUDADriverError"})
_COMPILE_ERRORS = frozenset({"CompileException", "NVRTCError"})


@dataclass(frozen=True)
class ProbeResult:
    """What one call in the worker gave: a value, or the error text and its kind.

    error_kind: 'cuda' (a CUDA error; the worker was restarted), 'compile', 'exception'
    (any other error raised by the probe), 'timeout' (killed after timeout_s), 'crash' (the
    worker died without an answer).
    """

    ok: bool
    value: Any = None
    error: str | None = None
    error_kind: str | None = None
    seconds: float = 0.0
    worker_pid: int | None = None
    #: The GPU's own seconds in the call's kernels (`ptxconf.gpu.busy`; 0 where it sent none).
    gpu_s: float = 0.0


#: How probe workers start: a fresh interpreter ("spawn"), safe in any process. A GPU lane
#: (single-threaded, and never touching CUDA itself) calls `fork_workers`: its workers are
#: then forks of it, with ptxconf and CuPy already imported, so that a worker (and each
#: restart after a fault) starts in a fraction of the time.
_START_METHOD = "spawn"


#: A lock the workers of a GPU's lanes share (set by `ptxconf.app.lanes`, inherited by each forked
#: worker): they start CUDA one at a time. The driver creates contexts one at a time anyway
#: (measured on an H100: 12 at once took 2.0 s, all ready together at the end); taking turns,
#: the first lanes start working after a fraction of that. Held at most START_LOCK_WAIT_S by
#: the others' wait (a worker killed while holding it cannot stall the rest).
START_LOCK: Any = None
START_LOCK_WAIT_S = 5.0


def take_turns(lock: Any) -> None:
    """Make `lock` this process's START_LOCK (a lane's first act: its pool's initializer), so
    that the probe workers it forks start CUDA holding it."""
    global START_LOCK
    START_LOCK = lock


def fork_workers() -> None:
    """Start this process's probe workers by fork from now on (see `_START_METHOD`). Only for
    a process with one thread that has not initialised CUDA; ignored where fork is missing."""
    global _START_METHOD
    if "fork" in mp.get_all_start_methods():
        _START_METHOD = "fork"


def _resolve(name: str) -> Any:
    """A probe function by name: 'run_wgmma' (probes) or 'device.describe'."""
    import importlib

    module_name, _, fn = name.rpartition(".")
    module = importlib.import_module(f"ptxconf.gpu.{module_name or 'probes'}")
    exported = getattr(module, "__all__", None)
    if exported is not None and fn not in exported:
        raise AttributeError(f"{name}: not exported by {module.__name__}")
    return getattr(module, fn)


def _classify(exc: BaseException) -> tuple[str, bool]:
    """(error kind, whether the CUDA context may be lost)."""
    names = {c.__name__ for c in type(exc).__mro__}
    if names & _CONTEXT_FATAL:
        return "cuda", True
    if names & _COMPILE_ERRORS:
        return "compile", False
    return "exception", False


def pin_device(index: int | None) -> None:
    """Make the index-th visible GPU the only one this process sees (before CUDA starts)."""
    if index is None:
        return
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = visible.split(",") if visible else [str(i) for i in range(index + 1)]
    os.environ["CUDA_VISIBLE_DEVICES"] = ids[index % len(ids)]


def _worker_main(conn: Any, device: int | None = None, warm_call: str | None = None,
                 warm_args: tuple[Any, ...] = ()) -> None:
    """The worker loop: (name, args, kwargs) in, (status, value, kind, seconds, gpu_s) out. `device`:
    which visible GPU the worker uses (None: CUDA's default); `warm_call`: a probe run once
    right after saying ready (starting CUDA while the caller does other work), with
    `warm_args`, its answer and any failure dropped (the caller's first real call meets the
    same failure)."""
    pin_device(device)
    conn.send(("ready", os.getpid(), None, 0.0, 0.0))
    if warm_call is not None:
        taken = START_LOCK is not None and START_LOCK.acquire(timeout=START_LOCK_WAIT_S)
        try:
            _resolve(warm_call)(*warm_args)
        except Exception:  # noqa: BLE001 - the first real call reports it
            pass
        finally:
            if taken:
                START_LOCK.release()
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        if answer(conn, msg):
            conn.close()
            os._exit(3)


def answer(conn: Any, msg: tuple[str, tuple[Any, ...], dict[str, Any]]) -> bool:
    """Run one (name, args, kwargs) and send (status, value or error, kind, seconds, gpu_s:
    the GPU's own seconds in its kernels) on `conn`; True where the failure may have lost the
    CUDA context (the process must end)."""
    name, args, kwargs = msg
    start, gpu_before = time.perf_counter(), busy_s()
    try:
        value = _resolve(name)(*args, **kwargs)
    except BaseException as exc:  # noqa: BLE001 - every failure is reported, not raised
        kind, fatal = _classify(exc)
        with contextlib.suppress(OSError):
            conn.send(("error", f"{type(exc).__name__}: {exc}", kind, time.perf_counter() - start,
                       busy_s() - gpu_before))
        return fatal
    with contextlib.suppress(OSError):
        conn.send(("ok", value, None, time.perf_counter() - start, busy_s() - gpu_before))
    return False


def _reap(proc: Any, *, kill: bool = False) -> None:
    """Wait for a worker process told to end (killed where `kill`, or where it will not)."""
    if proc is None:
        return
    if kill:
        proc.kill()
    proc.join(timeout=10)
    if proc.is_alive():
        proc.kill()
        proc.join(timeout=10)


def close_all(runners: Iterable[ProbeRunner], *, wait: bool = True, kill: bool = False) -> None:
    """End many runners' workers together: each is told to end (killed where `kill`: workers
    with nothing of theirs to lose), then each is waited for (a CUDA context takes a tenth of a
    second or more to go), on a thread of its own where not `wait` (the caller goes on;
    multiprocessing ends any left at exit)."""
    procs = [r._detach(kill=kill) for r in runners]
    if wait:
        for proc in procs:
            _reap(proc, kill=kill)
    else:
        for proc in procs:
            threading.Thread(target=_reap, args=(proc,), kwargs={"kill": kill}, daemon=True,
                             name="ptxconf-reap").start()


class ProbeRunner:
    """One worker process at a time, restarted after a fault or a timeout."""

    def __init__(self, *, timeout_s: float = 60.0, start_timeout_s: float = 120.0,
                 device: int | None = None, warm_call: str | None = None,
                 context: Any = None, warm_args: tuple[Any, ...] = ()) -> None:
        """`context`: how its workers start (a multiprocessing context; default per
        `_START_METHOD`), e.g. forked from a fork server that has imported CuPy."""
        self.device = device
        self.warm_call = warm_call
        self.warm_args = warm_args
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self.restarts = 0
        #: Calls answered, the seconds the worker spent in them (its own clock) and the
        #: seconds from send to answer in this process (with the pipe and the pickling; a call
        #: the worker timed out on or died in counts until then, a fault's recovery included):
        #: where a busy lane's time goes (`ptxconf.app.lanes.run_timed_job`); and the GPU's
        #: own seconds in the calls' kernels (`gpu_s`).
        self.calls = 0
        self.worker_s = 0.0
        self.round_trip_s = 0.0
        self.gpu_s = 0.0
        self._ctx: Any = context or mp.get_context(_START_METHOD)
        self._proc: Any = None
        self._conn: Any = None

    # -- worker lifecycle --

    def _spawn(self) -> tuple[Any, Any]:
        """A new worker process, not waited for; (process, its pipe)."""
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main,
                                 args=(child, self.device, self.warm_call, self.warm_args),
                                 daemon=True, name="ptxconf-probe-worker")
        proc.start()
        child.close()
        return proc, parent

    def launch(self) -> None:
        """Start a worker now without waiting for it (`await_ready` reads its first word):
        for workers started before anything else of a run (`ptxconf.app.replay_prefork`)."""
        self._proc, self._conn = self._spawn()

    def restart_as(self, context: Any, warm_call: str | None) -> None:
        """How the workers after this one start (after a fault, say)."""
        self._ctx, self.warm_call, self.warm_args = context, warm_call, ()

    def _start(self) -> str | None:
        """Start a worker; None when it said it is ready, else why not."""
        self.launch()
        return self.await_ready()

    def await_ready(self) -> str | None:
        """Wait for a launched worker to say it is ready: None when it did, else why not (the
        worker is then stopped)."""
        proc, parent = self._proc, self._conn
        if parent.poll(self.start_timeout_s):
            try:
                if parent.recv()[0] == "ready":
                    return None
            except EOFError:
                proc.join(timeout=10)
                self._stop(kill=True)
                return (f"the worker died while starting (exit code {proc.exitcode}); a "
                        "script that uses ProbeRunner needs `if __name__ == '__main__':`")
        self._stop(kill=True)
        return f"the worker did not start within {self.start_timeout_s} s"

    def _stop(self, *, kill: bool = False) -> None:
        _reap(self._detach(kill=kill), kill=kill)

    def _detach(self, *, kill: bool = False) -> Any:
        """Tell the worker to end (politely, unless `kill`) and let go of it; its process."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            try:
                if not kill:
                    conn.send(None)
            except (OSError, ValueError):
                pass
            conn.close()
        return proc

    def _retire(self) -> None:
        """Let go of a worker that lost its CUDA context (it answered, and exits by itself):
        killed and reaped on a thread of its own, so that the next worker starts at once (a
        faulted context can take most of a second to go)."""
        proc = self._detach(kill=True)
        if proc is not None:
            proc.kill()
            threading.Thread(target=_reap, args=(proc,), daemon=True,
                             name="ptxconf-reap").start()

    def start(self) -> str | None:
        """Start the worker now if none is running (its `warm_call` then runs while the caller
        goes on); None when it is up, else why not."""
        if self._proc is not None and self._proc.is_alive():
            return None
        if self._proc is not None:
            self.restarts += 1
            self._stop(kill=True)
        return self._start()

    def close(self) -> None:
        """End the worker (politely)."""
        self._stop()

    def __enter__(self) -> ProbeRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls --

    def call(self, name: str, /, *args: Any, timeout_s: float | None = None,
             **kwargs: Any) -> ProbeResult:
        """Run probes.<name>(*args, **kwargs) (or 'device.describe') in the worker."""
        problem = self.start()
        if problem:
            return ProbeResult(False, error=problem, error_kind="crash")
        proc, conn = self._proc, self._conn
        limit = self.timeout_s if timeout_s is None else timeout_s
        start = time.perf_counter()
        conn.send((name, args, kwargs))
        if not conn.poll(limit):
            self._stop(kill=True)
            self.restarts += 1
            self.round_trip_s += time.perf_counter() - start
            return ProbeResult(False, error=f"{name}: no answer within {limit} s; worker killed",
                               error_kind="timeout", seconds=time.perf_counter() - start,
                               worker_pid=proc.pid)
        try:
            status, payload, kind, seconds, gpu_s = conn.recv()
            self.calls += 1
            self.worker_s += seconds
            self.gpu_s += gpu_s
            self.round_trip_s += time.perf_counter() - start
        except (EOFError, OSError):
            proc.join(timeout=10)
            self._stop(kill=True)
            self.restarts += 1
            self.round_trip_s += time.perf_counter() - start
            return ProbeResult(False, error=f"{name}: the worker died (exit code "
                               f"{proc.exitcode}) without an answer", error_kind="crash",
                               seconds=time.perf_counter() - start, worker_pid=proc.pid)
        if status == "ok":
            return ProbeResult(True, value=payload, seconds=seconds, worker_pid=proc.pid,
                               gpu_s=gpu_s)
        if kind == "cuda":  # the worker exits by itself
            self._retire()
            self.restarts += 1
        return ProbeResult(False, error=payload, error_kind=kind, seconds=seconds,
                           worker_pid=proc.pid, gpu_s=gpu_s)

    def map(self, calls: Iterable[tuple[str, tuple[Any, ...], dict[str, Any]]], *,
            timeout_s: float | None = None) -> list[ProbeResult]:
        """Run each (name, args, kwargs) in order; a failure never stops the rest.

        A call's own `timeout_s` in its kwargs overrides the one given here.
        """
        return map_calls(self, calls, timeout_s)


def map_calls(runner: Any, calls: Iterable[tuple[str, tuple[Any, ...], dict[str, Any]]],
              timeout_s: float | None) -> list[ProbeResult]:
    """`runner.call` for each (name, args, kwargs) in order (a call's own `timeout_s` in its
    kwargs overriding the one given): every runner's `map`."""
    out = []
    for name, args, kwargs in calls:
        kw = dict(kwargs)
        limit = kw.pop("timeout_s", timeout_s)
        out.append(runner.call(name, *args, timeout_s=limit, **kw))
    return out


# --- self-test probes: the isolation machinery, checkable on a machine with no GPU ----------
#
# Test-only stand-ins for what a real probe does when it goes wrong, called by name like any
# probe ('runner.selftest_sleep'): the worker resolves names only under ptxconf.gpu and only
# what a module exports, so no code from outside the package ever runs in it.

__all__ = ["ProbeResult", "ProbeRunner", "fork_workers", "selftest_cuda_fault", "selftest_exit",
           "selftest_raise", "selftest_sleep", "selftest_spin", "selftest_trap"]


def selftest_sleep(seconds: float) -> float:
    """Sleep in the worker (a stand-in for a hanging kernel)."""
    time.sleep(seconds)
    return seconds


def selftest_exit(code: int) -> None:
    """End the worker abruptly (a stand-in for a process that dies mid-probe)."""
    os._exit(code)


def selftest_raise(message: str) -> None:
    """Raise in the worker (a stand-in for a probe that fails cleanly)."""
    raise RuntimeError(message)


def selftest_cuda_fault(message: str) -> None:
    """Raise what CuPy raises after a kernel traps (a stand-in for an illegal instruction on a
    machine with no GPU): an exception of a type named CUDARuntimeError, which the worker
    treats as context-fatal (it answers, then exits)."""
    stand_in = type("CUDARuntimeError", (RuntimeError,), {"__module__": __name__})
    raise stand_in(message)


#: The PTX `trap;` instruction in a one-thread kernel: the launch aborts with an illegal
#: instruction and leaves the CUDA context unusable.
TRAP_KERNEL = 'extern "C" __global__ void ptxconf_selftest_trap() { asm volatile("trap;"); }'


def selftest_trap() -> None:
    """Launch a kernel that executes `trap;`, timed as the probes' kernels are, and wait for it
    (needs CuPy and a GPU): the wait raises CuPy's CUDA error, and the worker exits after
    answering."""
    import cupy

    kernel = cupy.RawKernel(TRAP_KERNEL, "ptxconf_selftest_trap")
    kernel.compile()
    with kernels_timed() as timed:
        timed(lambda: kernel((1,), (1,), ()))


#: A one-thread kernel that spins on the GPU's nanosecond timer for `ns`: a kernel whose
#: duration is known, to check the busy time the worker reports (`ptxconf.gpu.busy`).
SPIN_KERNEL = r"""extern "C" __global__ void ptxconf_selftest_spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}"""


def selftest_spin(ms: float) -> None:
    """Run a kernel that spins for `ms` milliseconds, timed as the probes' kernels are
    (needs CuPy and a GPU)."""
    import cupy

    kernel = cupy.RawKernel(SPIN_KERNEL, "ptxconf_selftest_spin")
    kernel.compile()  # compiled and loaded before the timed launch
    with kernels_timed() as timed:
        timed(lambda: kernel((1,), (1,), (cupy.uint64(int(ms * 1e6)),)))
