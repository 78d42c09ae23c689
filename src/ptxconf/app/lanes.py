"""GPU cases over many probe workers at once: `--gpus N|all` x `--workers-per-gpu K` lanes.

A lane is a process of a `concurrent.futures.ProcessPoolExecutor` with its own GPU session,
on its GPU's probe servers (`SERVERS_PER_GPU` processes, each one CUDA context, shared by the
GPU's lanes); what a lane does is `ptxconf.app.lane`. The GPU cases are cut into jobs that keep
what shares work together: the device provider's cases (the device and every module's
all-ones test) are one job; each compiled module's variant cases are one job (one worker call
runs the module); the other families go in chunks of `CHUNK` cases. Job i runs on GPU
i mod N. The main process builds every kernel module into the kernel cache (`ptxconf.gpu.kcache`,
all cores) while the lanes run: a job is handed out as soon as the modules its cases need
(`job_needs`) are built, and the modules compile in the order the jobs need them
(`build_order`), so that no lane compiles and the lanes do not wait for the whole build.

Lanes are forked from a fork server that has imported ptxconf (`lane_context`), and take the
run's PTXCONF_* and CUDA_* variables with every call (`lane_setup`). Until every job is handed
to the pool, the main process does nothing else (the CPU providers wait for it: see
`ptxconf.app.run`), so that its pool thread is never kept waiting for the interpreter.

Results stream back as jobs finish and are put back in case order; a job whose lane died
gives each of its cases a failing result that says so (nothing is lost silently).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from ptxconf.app.lane import (
    SERVERS_PER_GPU,
    Job,
    _lane_init,
    _may_fault,
    close_lane,
    lane_setup,
    run_job,
    run_timed_job,
    servers_per_gpu,
    warm_up,
)
from ptxconf.app.providers import Provider
from ptxconf.core.results import Result, Status
from ptxconf.oracle.spec import Spec

#: Cases per job of the families that are not cut by module: small, so that a slow stretch
#: (alignment probes that fault, each restarting a worker) spreads over the lanes.
CHUNK = 4
#: Lanes per GPU when not asked: the host work of the checks keeps a GPU waiting, so every core
#: but a few (left to the CPU providers) gets a lane, up to this many per GPU.
MAX_AUTO_WORKERS_PER_GPU = 16
CORES_FOR_CPU_PROVIDERS = 4


def auto_workers(gpus: int) -> int:
    """Lanes per GPU when not asked: one GPU's lanes (the cores but CORES_FOR_CPU_PROVIDERS, at
    most MAX_AUTO_WORKERS_PER_GPU) split over the GPUs. The host work of the probes, not the
    GPU, bounds a run: on a node of two H100s and 32 cores, 14 lanes on one GPU took 8.55 s
    warm, the same 14 split over two 7.27 s (1.18x), and 14 on each 9.48 s (0.90x: slower;
    reports/bench/h100x2.json), so more GPUs share the lanes instead of adding their own."""
    one = max(1, min(MAX_AUTO_WORKERS_PER_GPU, (os.cpu_count() or 2) - CORES_FOR_CPU_PROVIDERS))
    return max(1, -(-one // max(gpus, 1)))



def group_ids(spec: Spec, prov: Provider, ids: Sequence[str]) -> list[tuple[str, ...]]:
    """A provider's case ids cut into jobs: a case that may fault is a job of its own (so that
    its worker restarts spread over the lanes); the rest as the provider plans them
    (`Provider.plan_jobs`), else in runs of CHUNK."""
    alone = [(i,) for i in ids if _may_fault(spec, i)]
    rest = [i for i in ids if not _may_fault(spec, i)]
    planned = prov.plan_jobs(spec, rest, CHUNK)
    if planned is None:
        planned = [tuple(rest[i:i + CHUNK]) for i in range(0, len(rest), CHUNK)]
    return alone + planned


def job_groups(spec: Spec, provs: Sequence[Provider], selected: Callable[[str], bool]
               ) -> list[tuple[str, tuple[str, ...]]]:
    """Every job's (provider, case ids), in run order; known before any GPU is asked."""
    groups: list[tuple[str, tuple[str, ...]]] = []
    for prov in provs:
        ids = [i for i in prov.case_ids(spec) or [] if selected(i)]
        groups += [(prov.name, g) for g in group_ids(spec, prov, ids)]
    # Longest first, so that the lanes end together: the single heavy cases (a hypothesis runs
    # many probes), the cases that may fault (each restarts a worker), then the variant
    # modules by their accumulator size, then the small jobs.
    by_name = {p.name: p for p in provs}
    groups.sort(key=lambda g: -_weight(spec, by_name[g[0]], g[1]))
    return groups


def place(groups: Sequence[tuple[str, tuple[str, ...]]], gpus: int) -> list[Job]:
    """Jobs of these groups, job i on GPU (i mod gpus)."""
    return [Job(name, ids, n % max(gpus, 1)) for n, (name, ids) in enumerate(groups)]


def _weight(spec: Spec, prov: Provider, ids: tuple[str, ...]) -> float:
    """A job's expected cost, relative (only its order matters): the cases that may fault
    early, else the provider's own measure (`Provider.weigh_job`), else by the N of each."""
    if any(_may_fault(spec, i) for i in ids):
        return 1e8
    own = prov.weigh_job(spec, ids)
    return own if own is not None else sum(1.0 + _n_of(i) / 64 for i in ids)


def _n_of(case_id: str) -> int:
    """The N of the instruction a case id names (m64n<N>k...), else 0: host work grows with it."""
    found = re.search(r"\.m\d+n(\d+)k", case_id)
    return int(found.group(1)) if found else 0


# --- in a lane process ---------------------------------------------------------------------



# --- in the main process -------------------------------------------------------------------


#: What a lane process imports before it is forked (`lane_context`): ptxconf, and CuPy
#: (imported, never initialised: the lanes fork their probe workers, which start CUDA).
LANE_PRELOAD = ["ptxconf.app.lanes", "ptxconf.app.lane", "ptxconf.app.providers",
                "ptxconf.gpu.session", "cupy"]


def lane_context() -> Any:
    """How lane processes start: forked from a fork server that has imported ptxconf once (a
    fresh interpreter per lane costs about a second of imports when a dozen start at once);
    a spawned interpreter where there is no fork server (not Linux/macOS). Never a plain fork
    of this process: its threads (the CPU providers, a progress bar) could hold locks."""
    from ptxconf.core.interrupts import fork_context

    return fork_context(LANE_PRELOAD)  # its children ignore SIGINT: this process handles it


#: Compile processes `prestart` started, for `prepare_build` to take (or `release_compile`).
_early_compile: list[Any] = []
#: At most this many started before the spec says how many modules there are (the bundled
#: spec's plan has 52): a many-core node does not start a hundred interpreters for them.
EARLY_COMPILE_MAX = 64


def prestart(kernel_cache: bool = True) -> None:
    """Start the lanes' fork server now, so that its imports (ptxconf and CuPy, about a second)
    run while the caller loads the spec and plans; the pool made later finds it ready. Where
    the kernel cache holds no cubin (a first run; `kernel_cache=False`: --no-cache), every
    module will compile: the compile processes start now too (`kcache.start_workers`, one a
    core, at most EARLY_COMPILE_MAX), and are ready when the build starts. Nothing where CuPy
    is missing or there is no fork server."""
    import importlib.util

    ctx = lane_context()
    if ctx.get_start_method() != "forkserver" or importlib.util.find_spec("cupy") is None:
        return
    from multiprocessing import forkserver

    forkserver.ensure_running()
    from ptxconf.gpu import kcache

    if _early_compile or (kernel_cache and _holds_cubins(kcache.cache_dir())):
        return
    # no processes to spare now: the build starts its own
    with contextlib.suppress(OSError, RuntimeError):
        _early_compile.append(kcache.start_workers(min(os.cpu_count() or 1, EARLY_COMPILE_MAX)))


def _holds_cubins(folder: Path) -> bool:
    """Whether the kernel cache holds any cubin (an unreadable one: taken as holding some)."""
    try:
        return any(folder.glob("*.cubin"))
    except OSError:
        return True


def release_compile() -> None:
    """End the compile processes `prestart` started that no build took."""
    while _early_compile:
        _early_compile.pop().shutdown(wait=False, cancel_futures=True)


class LanePool:
    """The lanes' processes, started at once, each warming up (its probe worker and CUDA) while
    the caller builds kernels and plans jobs; `device()` is the first lane's answer. Over
    several GPUs the lanes are split into one pool a GPU, so that a lane only ever serves one
    GPU (one probe worker, one CUDA start) and a job goes to its GPU's pool (`for_job`)."""

    def __init__(self, spec: Spec, lanes: int, kernel_folder: str,
                 proof_cache: bool = True, gpus: int = 1) -> None:
        self.started = time.time()
        self.spec = spec
        #: The probe servers' sockets (one server a GPU, shared by its lanes), removed at close.
        self.server_dir = tempfile.mkdtemp(prefix="ptxconf-gpu-") if servers_per_gpu() else ""
        self.setup = lane_setup(kernel_folder, proof_cache, self.server_dir)
        gpus = max(1, gpus)
        per = [max(1, lanes // gpus + (g < lanes % gpus)) for g in range(gpus)]
        ctx = lane_context()  # each GPU's lanes start CUDA taking turns (runner.START_LOCK)
        self.pools = [ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_lane_init,
                                          initargs=(ctx.Lock(), ctx.Value("i", 0)))
                      for n in per]
        self.warm = [pool.submit(warm_up, str(spec.root), self.setup, g)
                     for g, (pool, n) in enumerate(zip(self.pools, per, strict=True))
                     for _ in range(n)]
        self.lanes_of = per

    def for_job(self, job: Job) -> ProcessPoolExecutor:
        """The pool of the job's GPU."""
        return self.pools[job.device % len(self.pools)]

    def device(self) -> tuple[str | None, int]:
        """(why the GPU cannot run the probes or None, visible GPUs), from the first lane up."""
        finished, _ = wait(self.warm, return_when=FIRST_COMPLETED)
        try:
            problem, count, _ = next(iter(finished)).result()
        except Exception as exc:  # noqa: BLE001 - a lane that cannot start: the GPU is not usable
            return f"a GPU lane could not start: {type(exc).__name__}: {exc}", 0
        return problem, count

    def warm_up_times(self) -> list[dict[str, Any]]:
        """Each warmed lane's steps, in seconds since the pool started (see `warm_up`)."""
        out = []
        for fut in self.warm:
            if fut.done() and fut.exception() is None:
                when = fut.result()[2]
                out.append({k: v if k == "pid" else round(v - self.started, 2)
                            for k, v in when.items()})
        return sorted(out, key=lambda w: w["device_answered"])

    def close(self, block: bool = True) -> None:
        """End the lanes: each first ends its probe workers politely, so that the lanes exit
        at once. block=False returns now and lets them end while the caller goes on (writing
        the report); the interpreter waits for them at exit."""
        try:
            ends = [pool.submit(close_lane) for pool, n in zip(self.pools, self.lanes_of,
                                                                strict=True) for _ in range(n)]
        except RuntimeError:  # already shut down (an interrupted run): nothing more to ask
            ends = []
        if block:
            wait(ends, timeout=30)
        for pool in self.pools:
            pool.shutdown(wait=block, cancel_futures=block)
        if self.server_dir:
            shutil.rmtree(self.server_dir, ignore_errors=True)
        if self.setup.proof_cache:
            from ptxconf.gpu.transcript import prune

            prune()



def lost(job: Job, why: str) -> list[Result]:
    """Failing results for a job whose lane gave no answer."""
    return [Result(i, i.split("[", 1)[0], Status.FAIL, f"its GPU lane gave no result: {why}",
                   code="gpu_fault", provider=job.provider) for i in job.ids]


def job_needs(spec: Spec, jobs: Sequence[Job]) -> list[frozenset[str] | None]:
    """The compile batches each job's cases need (`ptxconf.gpu.session.case_modules`); None
    where a case's needs are not known (the job then waits for every batch)."""
    from ptxconf.gpu.session import case_modules

    out: list[frozenset[str] | None] = []
    for job in jobs:
        known = case_modules(spec, job.provider)
        each = [known.get(i) for i in job.ids]
        out.append(None if any(n is None for n in each)
                   else frozenset().union(*(n for n in each if n is not None)))
    return out


def build_order(mods: Sequence[Any], needs: Sequence[frozenset[str] | None]) -> list[Any]:
    """The modules to build, in the order to compile them: those of the jobs in run order first
    (the longest jobs start as soon as their kernels are built), then the rest, largest first.
    Where every job's needs are known, only the modules some job needs (a run narrowed by
    --only or --resume compiles what it runs)."""
    if needs and all(n is not None for n in needs):
        wanted = frozenset().union(*(n for n in needs if n is not None))
        mods = [m for m in mods if m.name in wanted]
    rank: dict[str, int] = {}
    for need in needs:
        for name in sorted(need or ()):
            rank.setdefault(name, len(rank))
    return sorted(mods, key=lambda m: (rank.get(m.name, len(rank)), -len(m.source)))


def prepare_build(spec: Spec, folder: Path) -> tuple[list[Any], Any] | None:
    """Every kernel module of the plan, and where `folder` lacks the cubin of some, compile
    processes already starting (`kcache.start_workers`, one a core at most), for `start_build`:
    a run's jobs are planned while they start, so its first compile begins as soon as they are
    planned (on an H200 node the compile processes started at 1.05 s against 1.58 s). None
    where the host has no NVRTC."""
    from ptxconf.gpu import build, kcache
    from ptxconf.gpu.session import Session

    if build.nvrtc_problem() is not None:
        release_compile()
        return None
    mods = Session(spec, None).modules()
    # the cubins' presence only: `kcache.Builder` checks each (a bad one is compiled again)
    missing = sum(not (folder / f"{kcache.module_key(m)}.cubin").is_file() for m in mods)
    if not missing:
        release_compile()
        return mods, None
    workers = (_early_compile.pop() if _early_compile
               else kcache.start_workers(min(os.cpu_count() or 1, missing)))
    return mods, workers


def start_build(spec: Spec, folder: Path, needs: Sequence[frozenset[str] | None],
                on_compile: Callable[[int], None] | None = None,
                prepared: tuple[list[Any], Any] | None = None) -> Any:
    """Start building every kernel module of the plan into `folder` with every core, in
    `build_order`: a `kcache.Builder`, or None where the host has no NVRTC (the lanes'
    workers then compile through CuPy); `on_compile(count)` before compiling what the cache
    lacks. `prepared`: `prepare_build`'s modules and compile processes."""
    from ptxconf.gpu import build, kcache
    from ptxconf.gpu.session import Session

    if prepared is None and build.nvrtc_problem() is not None:
        return None
    mods, workers = prepared or (Session(spec, None).modules(), None)
    return kcache.Builder(build_order(mods, needs), folder=folder, on_compile=on_compile,
                          workers=workers)


def run_lanes(spec: Spec, jobs: Sequence[Job], lanes: int | LanePool, kernel_folder: str,
              on_result: Callable[[Result], None],
              timeline: list[dict[str, Any]] | None = None,
              built: Any = None,
              on_dispatched: Callable[[], None] | None = None,
              needs: Sequence[frozenset[str] | None] | None = None) -> list[Result]:
    """Every job over the lanes (a LanePool, or a count of fresh processes); results in job
    order, each reported as it lands; when each job ran (seconds from the pool's start) into
    `timeline`; `on_dispatched()` once every job is handed to the pool.

    `built`: the kernel modules, as a dict of `kcache.Built` (all built), a `kcache.Builder`
    still building (a job is handed out as soon as the modules it `needs` have landed, in job
    order, so the lanes run while the rest compile), or None (the lanes compile themselves)."""
    from ptxconf.gpu.kcache import Builder

    done: dict[int, list[Result]] = {}
    if isinstance(lanes, LanePool):
        lp, owned = lanes, False
    else:
        lp, owned = LanePool(spec, min(lanes, len(jobs) or 1), kernel_folder), True
    t0 = lp.started
    builder = built if isinstance(built, Builder) else None
    have: dict[str, Any] | None = dict(builder.built) if builder is not None else built
    needs = list(needs) if needs is not None else [None] * len(jobs)
    waiting = list(range(len(jobs)))
    futures: dict[Future[Any], int] = {}

    def ready(n: int) -> bool:
        if have is None or builder is None or not builder.pending:
            return True
        need = needs[n]
        return need is not None and need <= have.keys()

    def hand_out() -> None:
        for n in [n for n in waiting if ready(n)]:
            waiting.remove(n)
            job = jobs[n]
            # a copy: the pool pickles it later, in its own thread, while `have` grows
            futures[lp.for_job(job).submit(run_timed_job, str(spec.root), job, lp.setup,
                                           None if have is None else dict(have))] = n
        if not waiting and on_dispatched is not None:
            on_dispatched()

    try:
        hand_out()
        pending = set(futures)
        while pending or waiting:
            building = builder.pending if builder is not None else set()
            finished, _ = wait(pending | building, return_when=FIRST_COMPLETED)
            if builder is not None and finished & building:
                for b in builder.collect(finished & building):
                    assert have is not None
                    have[b.name] = b
                    if timeline is not None:
                        landed = round(time.time() - t0, 2)
                        timeline.append({"provider": "kernel-build", "module": b.name, "cases": 0,
                                         "pid": 0, "start": landed, "end": landed})
                if waiting:
                    hand_out()
            for fut in finished & pending:
                n = futures[fut]
                try:
                    ran, when = fut.result()
                    done[n] = [spec.findings.judge(r) for r in ran]
                    if timeline is not None:
                        timeline.append({**when, "start": round(when["start"] - t0, 2),
                                         "end": round(when["end"] - t0, 2)})
                except Exception as exc:  # noqa: BLE001 - a lane that died: its cases fail
                    done[n] = lost(jobs[n], f"{type(exc).__name__}: {exc}")
                for r in done[n]:
                    on_result(r)
            pending = {f for f in futures if futures[f] not in done}
    except BaseException:
        if builder is not None:
            builder.close()
        for pool in lp.pools:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    if owned:
        lp.close()
    return [r for n in range(len(jobs)) for r in done[n]]


__all__ = ["CHUNK", "SERVERS_PER_GPU", "Job", "LanePool", "auto_workers", "build_order", "group_ids",
           "job_groups", "job_needs", "prepare_build", "release_compile", "start_build",
           "lost", "place", "prestart",
           "run_job", "run_lanes", "run_timed_job", "warm_up", "close_lane"]
