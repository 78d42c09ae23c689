"""The GPU providers' part of a run (`ptxconf.app.run.run_all` runs it in a thread of its own):
one case after another in this process where no lanes are asked for or CuPy is missing; else a
warm run's transcripts replayed first (`ptxconf.app.replay_run`) and the jobs left over lanes
(`ptxconf.app.lanes`), which in a cold run take every job while the kernels build."""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ptxconf.app.providers import Provider
from ptxconf.app.run_options import RunOptions
from ptxconf.app.run_options import selected_id as _selected_id
from ptxconf.core import interrupts
from ptxconf.core.context import RunContext
from ptxconf.core.results import Result
from ptxconf.oracle.spec import Spec


def _gpus_asked(opts: RunOptions) -> int:
    """How many GPUs the run spreads over: one by default; for --gpus N or all, as many of
    those the driver counts (asked directly, no context made; a lane's probe worker is pinned
    to its GPU and sees only that one)."""
    if opts.gpus == "1" or opts.gpu == "off":
        return 1
    from ptxconf.gpu.session import gpu_count

    count = max(1, gpu_count())
    return count if opts.gpus == "all" else min(int(opts.gpus), count)


def _asked_later(opts: RunOptions) -> Callable[[], int] | None:
    """`_gpus_asked(opts)` asked on a thread of its own from now where it asks the driver
    (`--gpus N` or `all`, the GPU on: a few tenths of a second, measured on a node of two
    H100s, that need not hold up what comes before the answer is used); the callable waits for
    the answer (raising what the asking raised). None where nothing is asked."""
    if opts.gpus == "1" or opts.gpu == "off":
        return None
    got: list[int] = []
    failed: list[BaseException] = []

    def ask() -> None:
        try:
            got.append(_gpus_asked(opts))
        except BaseException as exc:  # noqa: BLE001 - raised again by the caller's wait
            failed.append(exc)

    thread = threading.Thread(target=ask, daemon=True, name="ptxconf-gpu-count")
    thread.start()

    def answer() -> int:
        while thread.is_alive():
            thread.join(0.2)
            interrupts.check()
        if failed:
            raise failed[0]
        return got[0]

    return answer


def _lanes_asked(opts: RunOptions, gpus: int) -> int:
    """How many lanes the options ask for: --workers-per-gpu (default: every core but a few,
    shared over the GPUs) times the GPUs."""
    from ptxconf.app.lanes import auto_workers

    return gpus * (opts.workers_per_gpu or auto_workers(gpus))


class _Started:
    """A LanePool being made in a thread of its own (`get` waits for it; `close` ends it
    without waiting, whenever it is made)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._made: list[Any] = []
        self._err: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, args=(make,), daemon=True,
                                        name="ptxconf-lanes-start")
        self._thread.start()

    def _run(self, make: Callable[[], Any]) -> None:
        try:
            self._made.append(make())
        except BaseException as exc:  # noqa: BLE001 - raised again by get()
            self._err.append(exc)

    def get(self) -> Any:
        while self._thread.is_alive():
            self._thread.join(0.2)
            interrupts.check()
        if self._err:
            raise self._err[0]
        return self._made[0]

    def close(self, block: bool = False) -> None:
        self._thread.join()
        if self._made:
            self._made[0].close(block=block)


def gpu_results(provs: tuple[Provider, ...], spec: Spec, opts: RunOptions, ctx: RunContext,
                emit: Callable[[Result], None], dispatched: threading.Event,
                sequential: Callable[[], list[Result]]) -> list[Result]:
    """The GPU providers' results: over lanes (ptxconf.app.lanes) where CuPy is here and more than
    one lane is asked for, else one after another in this process. Where a run of this code
    and spec kept its jobs' transcripts, they are replayed first, from this process, and only
    the jobs that miss go to lanes (`ptxconf.app.replay_run`). Where the device is not usable,
    the providers say why, as in the one-after-another run. `dispatched` is set once the lanes
    have every job (at once where no lanes run, and as soon as kernels must be compiled): the
    CPU providers wait for it, so that until then this thread and the pool's own thread have
    the interpreter to themselves. `sequential()`: the providers' results one case after
    another in this process (`ptxconf.app.run`)."""
    has_cupy = importlib.util.find_spec("cupy") is not None
    warm = False
    if opts.gpu != "off" and provs and has_cupy and opts.proof_cache:
        from ptxconf.app.replay_run import run_kept

        warm = run_kept(spec)
    # --gpus N/all: a run that will replay asks the driver for no count (the replay runs on
    # REPLAY_GPUS; a count is asked only for jobs it leaves to lanes), so that it does just
    # what a run of one GPU does; any other asks on a thread of its own from now
    count = None if warm else _asked_later(opts)
    gpus: Callable[[], int] = count if count is not None else (lambda: _gpus_asked(opts))
    # --gpu off asks nothing of the lanes (whose module imports multiprocessing's machinery)
    if opts.gpu == "off" or not provs or not has_cupy or not _has_lanes(opts, gpus):
        dispatched.set()  # no lanes: the CPU providers run beside this thread from the start
        if (early := sys.modules.get("ptxconf.app.replay_prefork")) is not None:
            early.release()  # no replay in this process: the workers forked for it go
        if (lanes_module := sys.modules.get("ptxconf.app.lanes")) is not None:
            lanes_module.release_compile()  # nor lanes: the session compiles on its own
        out = sequential()
        sess = ctx.shared.get("gpu.session")
        if sess is not None and sess.built:
            opts.extra["kernels"] = kernel_note(sess.built, sess.build_seconds)
        return out
    from ptxconf.app import replay_prefork
    from ptxconf.app.replay_run import keep_run

    replay_prefork.decide(warm)  # the replay workers forked as the run began make contexts now
    if warm:  # the replay runs on REPLAY_GPUS: it need not wait for the driver's count
        replayed = _replay_first(provs, spec, opts, sequential, emit, dispatched, gpus)
        if replayed is not None:
            return replayed
    planned: dict[str, Any] = {}
    n = gpus()
    out = _in_lanes(provs, spec, opts, sequential, emit, dispatched, n, _lanes_asked(opts, n),
                    planned=planned)
    if opts.proof_cache:
        keep_run(spec, planned.get("groups", []), planned.get("built", {}),
                 full=not opts.only and not opts.done)
    return out


def _ordered(provs: tuple[Provider, ...], results: list[Result]) -> list[Result]:
    """Results in provider order (stable: each provider's in the order given)."""
    order = {p.name: i for i, p in enumerate(provs)}
    return sorted(results, key=lambda r: order.get(r.provider, len(order)))


def _has_lanes(opts: RunOptions, gpus: Callable[[], int]) -> bool:
    """Whether the GPU jobs go to lanes (two or more): where one GPU's would be two or more,
    without waiting for the driver's count of GPUs."""
    return _lanes_asked(opts, 1) > 1 or _lanes_asked(opts, gpus()) > 1


def _replay_first(provs: tuple[Provider, ...], spec: Spec, opts: RunOptions,
                  sequential: Callable[[], list[Result]],
                  emit: Callable[[Result], None], dispatched: threading.Event,
                  gpus_asked: Callable[[], int]) -> list[Result] | None:
    """The GPU results of a warm run: every job with a kept transcript replayed from this
    process (`ptxconf.app.replay_run.replay_first`, on REPLAY_GPUS), the rest in lanes over
    every GPU asked for (`gpus_asked()`, the driver's count, asked only then: its run record
    says what --gpus asked); None where the replay cannot start (the lanes then run every job,
    as in a cold run)."""
    from ptxconf.app import lanes as L
    from ptxconf.app.replay_run import REPLAY_GPUS, replay_first

    kept = _resumed(provs, opts)

    def started() -> None:  # the CPU providers' kept results are read beside the replay
        for r in kept:
            emit(r)
        dispatched.set()

    got = replay_first(spec, provs, lambda i: i not in opts.done and _selected_id(i, opts.only),
                       full=not opts.only and not opts.done, kernel_cache=opts.kernel_cache,
                       gpus=REPLAY_GPUS, emit=emit, started=started)
    if got is None:
        return None
    got.info["gpus_asked"] = int(opts.gpus) if opts.gpus.isdigit() else opts.gpus
    if got.rest and not got.results:  # nothing replayed (another device, say): a cold run's
        # lanes, whose device check reports an unusable GPU case by case
        gpus = gpus_asked()
        return kept + _in_lanes(provs, spec, opts, sequential, emit, dispatched, gpus,
                                _lanes_asked(opts, gpus), emit_kept=False)
    opts.extra["kernels"] = kernel_note(got.built, 0.0)
    in_lanes: list[Result] = []
    if got.rest:  # over every GPU asked for (the replay itself ran on REPLAY_GPUS)
        gpus = gpus_asked()
        rest = L.place([(j.provider, j.ids) for j in got.rest], gpus)
        in_lanes = _in_lanes(provs, spec, opts, sequential, emit, dispatched, gpus,
                             min(_lanes_asked(opts, gpus), len(rest)), rest, emit_kept=False)
    opts.extra["lanes"] = ({**opts.extra.get("lanes", {}), "replay": got.info} if got.rest
                           else got.info)
    return kept + _ordered(provs, got.results + in_lanes)


def _in_lanes(provs: tuple[Provider, ...], spec: Spec, opts: RunOptions,
              sequential: Callable[[], list[Result]],
              emit: Callable[[Result], None], dispatched: threading.Event, gpus: int,
              lanes: int, jobs: list[Any] | None = None, *, emit_kept: bool = True,
              planned: dict[str, Any] | None = None) -> list[Result]:
    """The GPU jobs over lanes: the pool's processes start (each warming up a probe worker and
    CUDA) while this thread plans the jobs (where `jobs` is None: every selected case) and
    starts the kernel build (in a run of every case, the compile processes start before it
    plans: `lanes.prepare_build`); each job goes to the lanes as soon as its kernels are built
    (`ptxconf.app.lanes.run_lanes`). Where the device is not usable, a run of every job goes
    one case after another in this process (whose cases say why); given jobs (those a replay
    left) fail, saying why. `emit_kept=False`: the --resume results are the caller's."""
    from ptxconf.app import lanes as L
    from ptxconf.gpu.kcache import folder_for

    entered = time.perf_counter()
    given = jobs is not None
    folder = folder_for(opts.kernel_cache)
    pool = _Started(lambda: L.LanePool(spec, lanes, str(folder), opts.proof_cache, gpus))
    builder: Any = None
    prepared: tuple[list[Any], Any] | None = None
    try:
        if jobs is None and not opts.only and not opts.done:  # a run of every case
            prepared = L.prepare_build(spec, folder)  # compile processes start while it plans
        if jobs is None:
            groups = L.job_groups(spec, provs,
                                  lambda i: i not in opts.done and _selected_id(i, opts.only))
            jobs = L.place(groups, gpus)
            if planned is not None:
                planned["groups"] = groups
        needs = L.job_needs(spec, jobs)
        # compiling leaves this interpreter free: the CPU providers need not wait
        builder = L.start_build(spec, folder, needs, lambda _: dispatched.set(), prepared)
        problem, _ = pool.get().device()
        if problem is not None:
            if builder is not None:
                builder.close()
            pool.close(block=True)
            dispatched.set()
            if given:  # after a replay: the GPU went away mid-run
                return [r for job in jobs for r in L.lost(job, problem)]
            out = sequential()  # every case says why
            return out if emit_kept else [r for r in out if r.id not in opts.done]
        checked_s = round(time.perf_counter() - entered, 2)
        kept = _resumed(provs, opts)
        for r in kept if emit_kept else ():
            emit(r)
        timeline: list[dict[str, Any]] = []
        opts.extra["lanes"] = {"gpus": gpus, "lanes": lanes, "jobs": len(jobs),
                               "device_s": checked_s, "timeline": timeline}
        results = L.run_lanes(spec, jobs, pool.get(), str(folder), emit, timeline, builder,
                              dispatched.set, needs)
        if builder is not None:
            opts.extra["kernels"] = kernel_note(builder.result(), builder.seconds)
            if planned is not None:
                planned["built"] = builder.result()
        opts.extra["lanes"]["warm_up"] = pool.get().warm_up_times()
    finally:
        if builder is not None:
            builder.close()
        elif prepared is not None and prepared[1] is not None:  # planning raised
            prepared[1].shutdown(wait=False, cancel_futures=True)
        pool.close()  # the lanes end while the report is written
    return (kept if emit_kept else []) + _ordered(provs, results)


def _resumed(provs: tuple[Provider, ...], opts: RunOptions) -> list[Result]:
    """The GPU providers' results an interrupted run kept (`--resume`)."""
    names = {p.name for p in provs}
    return [r for r in opts.done.values() if r.provider in names]


def kernel_note(built: dict[str, Any], seconds: float) -> dict[str, Any]:
    """What the kernel build did: modules, how many came from the cache, compile seconds."""
    cached = sum(1 for b in built.values() if b.cached)
    return {"modules": len(built), "from_cache": cached, "compiled": len(built) - cached,
            "failed": sum(1 for b in built.values() if not b.ok), "seconds": round(seconds, 3),
            "rejected": {b.name: b.rejected for b in built.values() if b.rejected}}


__all__ = ["gpu_results", "kernel_note"]
