"""What a lane process does (`ptxconf.app.lanes` runs the pool): it enters the run (its spec,
its PTXCONF_*/CUDA_* variables: `LaneSetup`), opens its GPU session on the GPU's shared probe
servers (`ptxconf.gpu.probe_server`; a private probe worker kept for the cases that may fault),
and runs jobs: each answered by its kept transcript where the GPU gives every recorded answer
again (`ptxconf.gpu.transcript`), else run and recorded. `run_timed_job` says when a job ran
and where its time went; `warm_up` opens the session at the pool's start; `close_lane` ends it.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ptxconf.app.providers import provider
from ptxconf.core.cases import execute
from ptxconf.core.context import RunContext
from ptxconf.core.results import Result
from ptxconf.oracle.spec import Spec, load_spec

#: How many probe processes a GPU's lanes share (`ptxconf.gpu.probe_server`), instead of a
#: probe worker each. Measured on an H100, warm, 12 lanes replaying their transcripts: 12
#: private workers 6.8 s (18 s of probe time: a dozen contexts take turns on the GPU), one
#: server 8.2-8.4 s (4 s of probe time, but the lanes queue on it), two 6.8-7.0 s (5.3 s).
SERVERS_PER_GPU = 2


@dataclass(frozen=True)
class Job:
    """Some case ids of one provider, to run on one GPU."""

    provider: str
    ids: tuple[str, ...]
    device: int


def _may_fault(spec: Spec, case_id: str) -> bool:
    """A case whose probe may fault on purpose, as the plan marks it (a fault costs a worker
    restart)."""
    from ptxconf.gpu.plan import may_fault_ids

    return case_id in may_fault_ids(spec)


_LANE: dict[int, tuple[Spec, RunContext]] = {}
#: Each provider's cases by id, listed once per lane and device (listing builds every case).
_CASES: dict[tuple[int, str], dict[str, Any]] = {}


#: Environment variables a lane takes from the run, not from the fork server it came from
#: (which started with the environment of the first run in this process).
ENV_PREFIXES = ("PTXCONF_", "CUDA_")


@dataclass(frozen=True)
class LaneSetup:
    """What every lane call carries from the run: its PTXCONF_* and CUDA_* variables (with
    the kernel folder the lanes load from) and whether the proof cache may be read."""

    env: tuple[tuple[str, str], ...]
    proof_cache: bool = True
    #: The folder of the run's probe-server sockets (`ptxconf.gpu.probe_server`: one probe
    #: process per GPU, shared by its lanes); "" gives each lane a probe worker of its own.
    server_dir: str = ""


def lane_setup(kernel_folder: str, proof_cache: bool = True, server_dir: str = "") -> LaneSetup:
    """The run's LaneSetup."""
    from ptxconf.gpu.kcache import CACHE_ENV

    env = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)}
    return LaneSetup(tuple(sorted({**env, CACHE_ENV: kernel_folder}.items())), proof_cache,
                     server_dir)


def _enter(spec_root: str, setup: LaneSetup, device: int) -> tuple[Spec, RunContext]:
    """This lane's spec and run context for a GPU, with the run's variables taken; its probe
    workers start by fork (a lane has one thread and never touches CUDA itself)."""
    from ptxconf.gpu.runner import fork_workers

    if sys.platform.startswith("linux"):
        fork_workers()
    env = dict(setup.env)
    for k in [k for k in os.environ if k.startswith(ENV_PREFIXES) and k not in env]:
        del os.environ[k]
    os.environ.update(env)
    if device not in _LANE:
        _LANE[device] = (load_spec(Path(spec_root)),
                         RunContext(gpu="on", device=device, proof_cache=setup.proof_cache))
    return _LANE[device]


def run_job(spec_root: str, job: Job, setup: LaneSetup,
            built: dict[str, Any] | None = None) -> list[Result]:
    """Run one job's cases in this lane process (its session is kept for the next job); the
    results are not yet judged against the known findings (run_lanes does that).
    `setup`: the run's `lane_setup`; `built`: the modules the main process built (`kcache.Built`
    by batch), so that the lane's session loads them without building anything itself."""
    from ptxconf.gpu.session import SESSION_RESOURCE

    spec, ctx = _enter(spec_root, setup, job.device)
    if built and SESSION_RESOURCE not in ctx.shared:
        _session(spec, ctx, setup, job.device)
    sess = ctx.shared.get(SESSION_RESOURCE)
    if built and sess is not None:  # the modules built so far (at least this job's)
        sess.built = {**(sess.built or {}), **built}
    private = _PRIVATE.get(job.device)
    if sess is not None and private is not None and any(_may_fault(spec, i) for i in job.ids):
        shared, sess.runner = sess.runner, private  # a probe that may fault: not the server
        sess._prepared.clear()
        try:
            return _run_job(spec, ctx, sess, job, setup)
        finally:
            sess.runner = shared
            sess._prepared.clear()
    return _run_job(spec, ctx, sess, job, setup)


def _run_job(spec: Spec, ctx: RunContext, sess: Any, job: Job, setup: LaneSetup
             ) -> list[Result]:
    """The job's results, from its transcript where the run keeps them (`_REPLAY` says how
    it went), else its cases run."""
    from ptxconf.gpu.transcript import for_spec

    def run() -> list[Result]:
        listed = (job.device, job.provider)
        if listed not in _CASES:
            _CASES[listed] = {c.id: c for c in provider(job.provider).load(spec, ctx)}
        cases = _CASES[listed]
        return [execute(cases[i]) for i in job.ids]  # judged in the main process (its findings)

    kept = for_spec(spec) if setup.proof_cache and sess is not None else None
    _REPLAY.clear()
    if kept is None:
        return run()
    before = dict(kept.seconds)
    results = kept.answer(sess, job.provider, job.ids, run)
    _REPLAY.update(replayed=not kept.miss, miss=kept.miss,
                   **{f"replay_{k}_s": round(v - before[k], 4) for k, v in kept.seconds.items()})
    return results


#: Whether the lane's last job was answered by its transcript, and if not why (`run_timed_job`).
_REPLAY: dict[str, Any] = {}


#: Each GPU's private probe worker in this lane, kept for the cases that may fault where the
#: lanes share a probe server (`_session`).
_PRIVATE: dict[int, Any] = {}


#: This lane's number among its GPU's lanes (`_lane_init`): which of the GPU's probe servers
#: it uses.
_LANE_NUMBER = 0


def _lane_init(lock: Any, counter: Any) -> None:
    """A lane's first act (its pool's initializer): take the pool's CUDA start lock
    (`runner.take_turns`) and the next lane number."""
    from ptxconf.gpu.runner import take_turns

    global _LANE_NUMBER
    take_turns(lock)
    with counter.get_lock():
        _LANE_NUMBER = counter.value
        counter.value += 1


def servers_per_gpu() -> int:
    """How many probe servers each GPU's lanes share: $PTXCONF_PROBE_SERVERS, else
    SERVERS_PER_GPU; 0 gives each lane a probe worker of its own."""
    raw = os.environ.get("PTXCONF_PROBE_SERVERS", "")
    return int(raw) if raw.isdigit() else SERVERS_PER_GPU


def _session(spec: Spec, ctx: RunContext, setup: LaneSetup, device: int) -> Any:
    """The lane's GPU session; where the run has a probe server, its runner is the server's
    (`SharedRunner`) and the worker it came with is kept for the cases that may fault."""
    from ptxconf.gpu.probe_server import SharedRunner
    from ptxconf.gpu.session import open_session

    sess = open_session(spec, ctx)
    if setup.server_dir and not isinstance(sess.runner, SharedRunner):
        own = sess.runner
        _PRIVATE[device] = own
        sess.runner = SharedRunner(setup.server_dir, device=device, timeout_s=own.timeout_s,
                                   start_timeout_s=own.start_timeout_s, warm_call=own.warm_call,
                                   slot=_LANE_NUMBER % max(1, servers_per_gpu()))
    return sess


def run_timed_job(spec_root: str, job: Job, setup: LaneSetup,
                  built: dict[str, Any] | None = None) -> tuple[list[Result], dict[str, Any]]:
    """run_job, with when it ran (wall-clock seconds since the epoch), in which process, and
    what of it its probe worker answered: calls, the worker's seconds in them (`probe_s`), the
    seconds from sending each call to its answer (`wait_s`: the worker's seconds, the pipe,
    and any wait for the GPU) and the GPU's own seconds in the calls' kernels (`gpu_s`); the
    rest of the job is host work in the lane."""
    before = _probe_counters(job.device)
    start = time.time()
    results = run_job(spec_root, job, setup, built)
    end = time.time()
    after = _probe_counters(job.device)
    return results, {"provider": job.provider, "cases": len(job.ids), "pid": os.getpid(),
                     "start": start, "end": end, "calls": after[0] - before[0],
                     "probe_s": round(after[1] - before[1], 4),
                     "wait_s": round(after[2] - before[2], 4),
                     "gpu_s": round(after[3] - before[3], 6), **_REPLAY}


def _probe_counters(device: int) -> tuple[int, float, float, float]:
    """(calls, worker seconds, round-trip seconds, the GPU's seconds in kernels) of this lane's
    probe workers so far: its session's (a probe server's, where the lanes share them) and its
    private one's (the cases that may fault run there, `run_job`)."""
    from ptxconf.gpu.session import SESSION_RESOURCE

    lane = _LANE.get(device)
    sess = lane[1].shared.get(SESSION_RESOURCE) if lane else None
    runners = {id(r): r for r in (getattr(sess, "runner", None), _PRIVATE.get(device))
               if r is not None}
    return (sum(getattr(r, "calls", 0) for r in runners.values()),
            sum(getattr(r, "worker_s", 0.0) for r in runners.values()),
            sum(getattr(r, "round_trip_s", 0.0) for r in runners.values()),
            sum(getattr(r, "gpu_s", 0.0) for r in runners.values()))


def close_lane() -> None:
    """End this lane's sessions (their probe workers exit now, not at interpreter exit)."""
    _CASES.clear()
    while _PRIVATE:
        _PRIVATE.popitem()[1].close()
    while _LANE:
        _, (_, ctx) = _LANE.popitem()
        ctx.close()


def warm_up(spec_root: str, setup: LaneSetup, device: int = 0
            ) -> tuple[str | None, int, dict[str, Any]]:
    """Open this lane's session on GPU 0 (its probe worker starts and initialises CUDA); say
    whether the device runs sm_90a probes, how many GPUs there are, and when (seconds since
    the epoch) each step of the warm-up ended: the lane process up, the spec loaded, the probe
    worker ready, the device answered."""
    from ptxconf.gpu.session import device_answer

    when = {"pid": os.getpid(), "lane_up": time.time()}
    spec, ctx = _enter(spec_root, setup, device)
    when["spec_loaded"] = time.time()
    sess = _session(spec, ctx, setup, device)
    sess.runner.start()  # the worker says it is ready, then starts CUDA (`device.warm`)
    when["worker_ready"] = time.time()
    problem, count = device_answer(sess.runner)
    sess.describe()
    when["device_answered"] = time.time()
    return problem, count, when


__all__ = ["ENV_PREFIXES", "SERVERS_PER_GPU", "Job", "LaneSetup", "close_lane", "lane_setup",
           "run_job", "run_timed_job", "servers_per_gpu", "warm_up"]
