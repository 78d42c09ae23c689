"""A warm run's replay workers, forked before anything else of `ptxconf check --gpu on`.

A warm run's replay (`ptxconf.app.replay_run`) waited for its workers: forked from the lanes'
fork server once that had imported ptxconf and CuPy (about 0.8 s into the run), each then made
its CUDA context, and the driver makes them one at a time (0.6-0.9 s for six). So `prefork`
forks them from the run itself as its first act, while it is one thread: each imports CuPy at
once and waits at a gate (`ptxconf.gpu.context_gate`) that `decide` opens once the spec is loaded
and the run knows it will replay; the bulk workers' contexts are made first. A run that will
not replay lets them go (`decide(False)`, or `release` on any way out). A worker that faults is
restarted from the fork server as before (`ReplayPool`).

Measured on an H200 node (warm check of the bundled spec, five interleaved pairs): 4.13 s mean
(4.06-4.27) against 4.33 s (4.25-4.38) with the workers forked from the fork server
(PTXCONF_REPLAY_PREFORK=0), every pair faster; the bulk workers' first job waited 0.12-0.31 s
against 0.73-1.01 s. A fifth bulk worker gained nothing (3.74-3.98 s against 3.65-3.81 s), a
sixth lost 0.5 s.
"""

from __future__ import annotations

import contextlib
import importlib.util
import multiprocessing as mp
import os
import signal
import threading
from typing import Any

#: The workers forked by `prefork` and not yet taken (`take`) or let go (`release`), and the
#: gate they wait at.
_early: dict[str, Any] = {}


def prefork(bulk: int, faulting: int) -> bool:
    """Fork `bulk` + `faulting` replay workers for GPU 0 now, each waiting at one gate (the
    faulting ones make their contexts after the bulk ones); whether it did. Nothing where this
    process already runs a second thread (a fork could copy a lock another thread holds), fork
    is not there, or CuPy is not installed."""
    if (_early or threading.active_count() > 1 or "fork" not in mp.get_all_start_methods()
            or importlib.util.find_spec("cupy") is None):
        return False
    from ptxconf.gpu.context_gate import OWNER_SIGNALS, ContextGate
    from ptxconf.gpu.runner import ProbeRunner

    ctx = mp.get_context("fork")
    opened, wanted, made = ctx.Event(), ctx.Value("i", 0), ctx.Value("i", 0)
    runners: dict[str, list[Any]] = {}
    # a signal between a fork and the worker's first act would meet this process's handlers
    # there (a traceback): the workers start with them blocked, set their own, then unblock
    # them (context_gate.warm_when)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, OWNER_SIGNALS)
    try:
        for kind, count, after in (("bulk", bulk, 0), ("faulting", faulting, bulk)):
            gate = ContextGate(opened, wanted, made, owner=os.getpid(), after=after)
            runners[kind] = [ProbeRunner(device=0, warm_call="context_gate.warm_when",
                                         warm_args=(gate,), context=ctx)
                             for _ in range(count)]
            for r in runners[kind]:
                r.launch()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    _early.update(runners=runners, opened=opened, wanted=wanted)
    return True


def decide(replay: bool) -> None:
    """Open the gate: the forked workers make their contexts where the run will `replay`, else
    they are let go."""
    if not _early:
        return
    if replay:
        _early["wanted"].value = 1
        _early["opened"].set()
    else:
        release()


def take() -> dict[str, list[Any]] | None:
    """The forked workers by kind ("bulk", "faulting"), for the replay's pool (the gate is
    opened); None where none were forked or they were let go."""
    if not _early:
        return None
    decide(True)
    runners: dict[str, list[Any]] = _early["runners"]
    _early.clear()
    return runners


def release() -> None:
    """Let the forked workers go: killed (they hold no CUDA context yet, and their imports
    would only take the CPU from the run); nothing where none are waiting."""
    if not _early:
        return
    from ptxconf.gpu.runner import close_all

    runners = _early["runners"]
    _early.clear()
    with contextlib.suppress(Exception):
        close_all((r for group in runners.values() for r in group), wait=False, kill=True)


__all__ = ["decide", "prefork", "release", "take"]
