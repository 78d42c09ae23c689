"""A warm GPU run without lanes: every job's kept transcript (`ptxconf.gpu.transcript`) replayed
from this process, before any lane starts.

Where a run of the same code and spec kept its jobs' transcripts (`Transcripts.run_kept`), the
GPU jobs are first sent, whole, to a few probe workers a GPU (`ptxconf.gpu.replay`): each
worker reads a job's recorded calls from its kept entry, runs them and digests the answers
itself, so only the entry's name goes in and a verdict comes back. Jobs that share a module go
to one worker (`ptxconf.app.replay_routing`). A job whose every answer is the recorded one
takes its kept results; the others (`misses`) run in lanes as in a cold run. Jobs whose cases
may fault on purpose replay one call at a time on workers of their own (a fault ends the
worker and the next starts afresh), so a fault never stalls the bulk replay.

Measured on an H100 (the bundled spec, 2,303 recorded calls): the probe calls alone take about
2.1 s in one warmed-up process; through twelve lanes and two shared probe servers the same
calls kept the servers busy 7.8 s, most of it moving the dumps (hundreds of MB) back to the
lanes. Every CUDA context on the GPU slows the others (they take turns), so the workers are
few: 3 bulk workers took 2.7 s for the bulk jobs alone, 4 took 2.3 s, 1 took 4.5 s.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ptxconf.app import replay_prefork
from ptxconf.app.lane import Job, _may_fault
from ptxconf.app.replay_routing import Routed
from ptxconf.core import interrupts
from ptxconf.core.results import Result
from ptxconf.oracle.spec import Spec

#: Bulk-replay workers a GPU (each one CUDA context); $PTXCONF_REPLAY_WORKERS overrides.
#: Measured on an H100 node (warm check, 4 runs each, interleaved): 4 workers 4.30 s mean,
#: 3 workers 4.47 s, 2 workers 4.64 s. The replay is host work per call (building each call's
#: blocks, digesting its dumps), so more workers help, less than linearly: their contexts take
#: turns on the GPU. (Hashing the dumps on a thread beside the calls changed nothing: 4.47 s
#: against 4.46 s.)
REPLAY_WORKERS_PER_GPU = 4
#: Workers a GPU for the jobs that may fault (each fault restarts one: a new process and CUDA
#: context, a few tenths of a second), so that the restarts overlap; $PTXCONF_FAULT_WORKERS
#: overrides. Each CUDA context on the GPU slows the others: measured on an H100 (the bundled
#: spec, 3 bulk workers), a warm check took 4.27 s with 2 and 4.6-5.0 s with 4.
FAULT_WORKERS_PER_GPU = 2


#: The GPUs a warm run's replay uses, whatever `--gpus` asks (the jobs it leaves go to lanes on
#: every GPU asked for). Measured on a node of two H100s (reports/bench/h100x2-replay.log):
#: the replay split over both took 6.19 s against 6.14 s on one (0.99x); each replay worker's
#: own start and module loads bound it, not the GPU. `REPLAY_ON_ONE_GPU` is what a run says.
REPLAY_GPUS = 1
REPLAY_ON_ONE_GPU = ("the warm replay ran on one GPU: split over two H100s it took 6.19 s "
                     "against 6.14 s on one (reports/bench/h100x2-replay.log)")


def replay_workers() -> tuple[int, int]:
    """(bulk-replay workers, workers for the jobs that may fault) a GPU:
    $PTXCONF_REPLAY_WORKERS and $PTXCONF_FAULT_WORKERS, else REPLAY_WORKERS_PER_GPU and
    FAULT_WORKERS_PER_GPU."""
    def env(name: str, default: int) -> int:
        raw = os.environ.get(name, "")
        return max(1, int(raw)) if raw.isdigit() else default

    return (env("PTXCONF_REPLAY_WORKERS", REPLAY_WORKERS_PER_GPU),
            env("PTXCONF_FAULT_WORKERS", FAULT_WORKERS_PER_GPU))


@dataclass
class Replayed:
    """What the replay did: each replayed job's judged results (by job index), why each other
    job was not replayed, and when each job ran (seconds from the start, lanes' timeline form)."""

    done: dict[int, list[Result]] = field(default_factory=dict)
    misses: dict[int, str] = field(default_factory=dict)
    timeline: list[dict[str, Any]] = field(default_factory=list)
    workers: int = 0


class ReplayPool:
    """The replay's probe workers, started at once while the caller plans: per GPU,
    `replay_workers()` for the bulk replay and for the jobs that may fault. Those the run forked
    as it began (`ptxconf.app.replay_prefork`) are taken; else they are forked from the lanes'
    fork server, which has imported ptxconf and CuPy (each starts CUDA as it comes up)."""

    def __init__(self, spec: Spec, gpus: int = 1) -> None:
        from ptxconf.app.lanes import lane_context
        from ptxconf.gpu.runner import ProbeRunner
        from ptxconf.gpu.session import PROBE_TIMEOUT_S, START_TIMEOUT_S

        self.spec = spec
        self.gpus = max(1, gpus)
        ctx = lane_context()
        n_bulk, n_faulting = replay_workers()
        forked = replay_prefork.take() if self.gpus == 1 else None
        self._forked = forked is not None
        if forked is not None:  # forked as the run began (replay_prefork); restarts as below
            for r in (r for group in forked.values() for r in group):
                r.restart_as(ctx, "device.warm")
                # the session's limits, which prefork leaves out: gpu.session imports NumPy
                r.timeout_s, r.start_timeout_s = PROBE_TIMEOUT_S, START_TIMEOUT_S
            self.runners = {(0, kind): group for kind, group in forked.items()}
        else:
            self.runners = {
                (g, kind): [ProbeRunner(timeout_s=PROBE_TIMEOUT_S,
                                        start_timeout_s=START_TIMEOUT_S, device=g,
                                        warm_call="device.warm", context=ctx)
                            for _ in range(count)]
                for g in range(self.gpus) for kind, count in (("bulk", n_bulk),
                                                               ("faulting", n_faulting))}
        self._starting = threading.Thread(target=self._start, daemon=True,
                                          name="ptxconf-replay-start")
        self._starting.start()

    def _start(self) -> None:
        for group in self.runners.values():
            for r in group:
                # a failure to start is met again, and reported, by the first call
                if self._forked:
                    r.await_ready()
                else:
                    r.start()

    def run(self, jobs: Sequence[Job], built: dict[str, Any],
            emit: Callable[[Result], None]) -> Replayed:
        """Replay every job that has a kept transcript (see the module's docstring); each
        replayed result is judged and emitted as its job lands."""
        return _replay(self, jobs, built, emit)

    def wait_started(self) -> None:
        """Wait until every worker has said it is up (or failed to)."""
        while self._starting.is_alive():
            self._starting.join(0.2)
            interrupts.check()

    def close(self, *, wait: bool = True) -> None:
        """End every worker (waiting for them to go, unless not `wait`)."""
        from ptxconf.gpu.runner import close_all

        self._starting.join()
        close_all((r for group in self.runners.values() for r in group), wait=wait)


def _counters(runner: Any) -> tuple[int, float, float]:
    """(calls answered, the worker's seconds in them, the GPU's own seconds in their kernels)
    of a runner so far (0 where it does not count them)."""
    calls = getattr(runner, "calls", 0)
    return (calls if isinstance(calls, int) else 0, getattr(runner, "worker_s", 0.0),
            getattr(runner, "gpu_s", 0.0))


def _pid(runner: Any) -> int | None:
    """The process id of a runner's worker now (None where it has none)."""
    return getattr(getattr(runner, "_proc", None), "pid", None)


def _replay(pool: ReplayPool, jobs: Sequence[Job], built: dict[str, Any],
            emit: Callable[[Result], None]) -> Replayed:
    from ptxconf.gpu.plan import plan
    from ptxconf.gpu.replay import Module, ReplayWorker
    from ptxconf.gpu.session import Session
    from ptxconf.gpu.transcript import Transcripts

    spec = pool.spec
    the_plan = plan(spec)
    out = Replayed()
    lock = threading.Lock()
    t0 = time.time()
    stop = threading.Event()
    stopped: list[str] = []  # why a worker's thread stopped

    def module(key: str) -> Module | None:
        b = built.get(key)
        return ("", the_plan.batch(key), b.path) if b is not None and b.ok else None

    def land(n: int, results: list[Result] | None, why: str, start: float, pid: Any,
             calls: int, worker_s: float, gpu_s: float) -> None:
        job = jobs[n]
        with lock:
            if results is not None:
                out.done[n] = [spec.findings.judge(r) for r in results]
            else:
                out.misses[n] = why
            out.timeline.append({"provider": job.provider, "cases": len(job.ids), "pid": pid,
                                 "start": round(start - t0, 2), "end": round(time.time() - t0, 2),
                                 "calls": calls, "probe_s": round(worker_s, 4),
                                 "gpu_s": round(gpu_s, 6),
                                 "wait_s": round(time.time() - start, 4),
                                 "replayed": results is not None, "miss": why,
                                 "worker": threading.current_thread().name})
        for r in out.done.get(n, ()):
            emit(r)

    def bulk(runner: Any, take: Callable[[], int | None]) -> None:
        kept, worker = Transcripts(spec), ReplayWorker(runner, module)
        while not stop.is_set() and (n := take()) is not None:
            start, before, gpu_before = time.time(), worker.worker_s, worker.gpu_s
            entry, why = kept.entry(jobs[n].provider, jobs[n].ids, calls=False)
            got = None
            if entry is not None and not (why := worker.replay(entry)):
                got = kept.taken(entry)
            land(n, got, why, start, _pid(runner), 1, worker.worker_s - before,
                 worker.gpu_s - gpu_before)

    def faulting(runner: Any, take: Callable[[], int | None]) -> None:
        kept, sess = Transcripts(spec), Session(spec, runner, host_compile=True)
        sess.built = built
        while not stop.is_set() and (n := take()) is not None:
            start, before = time.time(), _counters(runner)
            got = kept.replay(sess, jobs[n].provider, jobs[n].ids)
            calls, secs, gpu = (now - then for now, then in zip(_counters(runner), before,
                                                                strict=True))
            land(n, got, kept.miss, start, _pid(runner), int(calls), secs, gpu)

    def guarded(fn: Callable[[Any, Callable[[], int | None]], None], runner: Any,
                take: Callable[[], int | None]) -> None:
        try:
            fn(runner, take)
        except Exception as exc:  # noqa: BLE001 - the jobs it did not replay run in lanes
            stopped.append(f"{type(exc).__name__}: {exc}")
            stop.set()

    threads: list[threading.Thread] = []
    for g in range(pool.gpus):
        mine = [n for n, j in enumerate(jobs) if j.device % pool.gpus == g]
        faults = {n for n in mine if any(_may_fault(spec, i) for i in jobs[n].ids)}
        for kind, work, fn in (("bulk", [n for n in mine if n not in faults], bulk),
                               ("faulting", sorted(faults), faulting)):
            runners = pool.runners[(g, kind)][:len(work)]
            routed = _routed(spec, jobs, work, len(runners), by_module=kind == "bulk")
            for k, runner in enumerate(runners):
                threads.append(threading.Thread(
                    target=guarded, args=(fn, runner, functools.partial(routed.take, k)),
                    daemon=True, name=f"gpu{g}-{kind}{k}"))
    out.workers = len(threads)
    pool.wait_started()  # the jobs were dealt while the workers came up
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.2)
                interrupts.check()
    finally:
        stop.set()
    for n in range(len(jobs)):
        if n not in out.done and n not in out.misses:  # a thread that stopped: run it in a lane
            out.misses[n] = ("not replayed: a replay worker stopped"
                             + (f" ({stopped[0]})" if stopped else ""))
    return out


def _routed(spec: Spec, jobs: Sequence[Job], work: Sequence[int], workers: int, *,
            by_module: bool) -> Routed:
    """`work` (job indices) dealt to `workers` (`ptxconf.app.replay_routing`), each job
    weighed by its kept transcript's size (the providers' own weights plan cases: measured
    2.1 s on an H100 node, against milliseconds for the sizes): by the modules each job needs
    where `by_module` (the bulk replay), else by weight alone (the jobs that may fault: each
    restarts its worker, so no module stays loaded)."""
    from ptxconf.app.lanes import job_needs
    from ptxconf.gpu.transcript import for_spec

    kept = for_spec(spec)
    chosen = [jobs[n] for n in work]
    weights = [float(kept.size(j.provider, j.ids)) for j in chosen]
    needs = [n or frozenset() for n in job_needs(spec, chosen)] if by_module else \
        [frozenset()] * len(chosen)
    return Routed(list(work), weights, needs, workers)


def run_kept(spec: Spec) -> bool:
    """Whether a run of this code and spec kept its GPU jobs' transcripts: then a run replays
    first (`replay_first`)."""
    from ptxconf.gpu.transcript import for_spec

    return bool(for_spec(spec).run_kept())


def keep_run(spec: Spec, groups: Sequence[tuple[str, tuple[str, ...]]],
             built: dict[str, Any], full: bool = True) -> None:
    """Keep what a `full` run planned (its jobs, and each module's cubin in the kernel cache)
    beside its transcripts, so that the next warm run plans nothing (`Transcripts.keep_run`);
    of a run of part of the cases, only that it kept transcripts (`Transcripts.mark_kept`)."""
    from ptxconf.gpu.kcache import tool_versions
    from ptxconf.gpu.transcript import for_spec

    if not full:
        for_spec(spec).mark_kept()
    elif built and all(b.ok and b.path for b in built.values()):
        for_spec(spec).keep_run(groups, {k: Path(b.path).name for k, b in built.items()},
                                tool_versions())


def _kept_plan(spec: Spec, folder: Path
               ) -> tuple[list[tuple[str, tuple[str, ...]]], dict[str, Any]] | None:
    """The jobs and modules of the last full run of this code and spec, where every module it
    named is still in the kernel cache as it was built; else None."""
    from ptxconf.gpu.kcache import kept_tool_versions, reuse
    from ptxconf.gpu.transcript import for_spec

    tools = kept_tool_versions()
    rec = None if tools is None else for_spec(spec).run_record(tools)
    built = None if rec is None else reuse(folder, rec["modules"])
    if rec is None or built is None:
        return None
    return [(p, tuple(ids)) for p, ids in rec["groups"]], built


@dataclass
class FirstReplay:
    """A warm run's replay: the replayed results (judged, in job order), the jobs left to
    the lanes, the modules, and what the run's meta keeps of it (`info`)."""

    results: list[Result]
    rest: list[Job]
    built: dict[str, Any]
    info: dict[str, Any]


def replay_first(spec: Spec, provs: Sequence[Any], selected: Callable[[str], bool], *,
                 full: bool, kernel_cache: bool, gpus: int, emit: Callable[[Result], None],
                 started: Callable[[], None]) -> FirstReplay | None:
    """Replay every selected GPU job that has a kept transcript, on at most REPLAY_GPUS of the
    `gpus` asked for: its workers start at once (`ReplayPool`) while the jobs are planned, or,
    for a `full` run, read from the last full run's record; `started()` once the replay
    begins. None where a module is not built on
    this host (the lanes then run every job, compiling as in a cold run)."""
    from ptxconf.app import lanes as L
    from ptxconf.gpu.kcache import folder_for

    entered = time.perf_counter()
    asked, gpus = gpus, min(gpus, REPLAY_GPUS)
    pool = ReplayPool(spec, gpus)
    try:
        folder = folder_for(kernel_cache)
        kept_plan = _kept_plan(spec, folder) if full else None
        groups, built = kept_plan or (L.job_groups(spec, provs, selected), None)
        jobs = L.place(groups, gpus)
        if built is None:
            builder = L.start_build(spec, folder, L.job_needs(spec, jobs))
            if builder is None:
                return None
            try:
                built = builder.result()
            finally:
                builder.close()
        if any(not b.ok for b in built.values()):
            return None
        started()
        planned_s = round(time.perf_counter() - entered, 2)
        rep = pool.run(jobs, built, emit)
    finally:
        pool.close(wait=False)  # the workers end while the run goes on
    info: dict[str, Any] = {
        "mode": "replay", "gpus": gpus, "gpus_asked": asked, "lanes": rep.workers,
        "jobs": len(jobs),
        "device_s": planned_s, "replayed_jobs": len(rep.done), "plan_kept": kept_plan is not None,
        "timeline": rep.timeline, "seconds": round(time.perf_counter() - entered, 2)}
    if rep.misses:
        info["misses"] = [{"provider": jobs[n].provider, "first_case": jobs[n].ids[0],
                           "why": why} for n, why in sorted(rep.misses.items())[:20]]
    return FirstReplay([r for n in range(len(jobs)) for r in rep.done.get(n, ())],
                       [jobs[n] for n in sorted(rep.misses)], built, info)


__all__ = ["FAULT_WORKERS_PER_GPU", "REPLAY_GPUS", "REPLAY_ON_ONE_GPU", "REPLAY_WORKERS_PER_GPU",
           "FirstReplay", "ReplayPool", "Replayed", "keep_run", "replay_first", "replay_workers",
           "run_kept"]
