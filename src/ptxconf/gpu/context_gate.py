"""A probe worker that makes its CUDA context early, behind a gate its owner opens.

A warm run's replay workers (`ptxconf.app.replay_prefork`) are forked before the run has loaded
its spec, so before it knows whether it will replay at all. Each imports CuPy and the replay's
modules at once and waits, on a thread of its own, for the gate: opened with `wanted` set (a
warm run), the thread makes the device's primary context through the driver (the context CuPy
then uses) while the imports go on; opened without it, nothing is made. A run that will not
replay kills its workers instead (`replay_prefork.release`); a worker whose owner is gone stops
waiting. The driver makes contexts one at a time, so a worker with `after` > 0 waits until that
many workers behind the same gate have made theirs (the bulk replay's workers before the
others'), at most AFTER_WAIT_S.

    gate = ContextGate(ctx.Event(), ctx.Value("i", 0), ctx.Value("i", 0), owner=os.getpid())
    runner = ProbeRunner(device=0, warm_call="context_gate.warm_when", warm_args=(gate,), ...)
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any

#: The longest a worker with `after` > 0 waits for the others' contexts (seconds).
AFTER_WAIT_S = 3.0
#: The signals an owner blocks while it forks workers that run `warm_when` first.
OWNER_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
#: How often a worker waiting at the closed gate checks that its owner is still there.
OWNER_POLL_S = 0.1


@dataclass(frozen=True)
class ContextGate:
    """What workers forked together share (multiprocessing primitives of a fork context):
    `opened` (an Event) once the owner knows whether contexts are wanted, `wanted` (a shared
    int, 1: make them), `made` (a shared int: how many contexts behind this gate are made), and
    `after`: how many must be made before this worker makes its own. `owner`: the process that
    opens the gate (a worker whose owner is gone stops waiting)."""

    opened: Any
    wanted: Any
    made: Any
    owner: int
    after: int = 0


def _primary_context() -> None:
    """Make device 0's primary context (the one the CUDA runtime, and so CuPy, uses) through
    the driver library; nothing where there is no driver (the first probe says so)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        if cuda.cuInit(0) != 0:
            return
        device, context = ctypes.c_int(), ctypes.c_void_p()
        if cuda.cuDeviceGet(ctypes.byref(device), 0) == 0:
            cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    except (OSError, AttributeError):
        pass


def _when_opened(gate: ContextGate) -> None:
    """Wait for the gate (or the owner's end); where contexts are wanted, make this one after
    `gate.after` others, and count it."""
    while not gate.opened.wait(OWNER_POLL_S):
        if os.getppid() != gate.owner:
            return
    if not gate.wanted.value:
        return
    deadline = time.monotonic() + AFTER_WAIT_S
    while gate.made.value < gate.after and time.monotonic() < deadline:
        time.sleep(0.002)
    try:
        _primary_context()
    finally:
        with gate.made.get_lock():
            gate.made.value += 1


def warm_when(gate: ContextGate) -> int:
    """A pre-started worker's warm call: its imports now, its context once the gate opens with
    contexts wanted (on a thread, beside the imports); how many devices CuPy then sees (0 where
    none was wanted, or CUDA is not usable). Signals are the owner's to handle, as for a fork
    server's children (`ptxconf.core.forkserver_child`): the worker ignores Ctrl-C, and SIGTERM
    ends it at once, silently (not the owner's handler it was forked with, which would raise
    in it); the owner blocked both around the fork (`OWNER_SIGNALS`), so none lands before."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, OWNER_SIGNALS)
    waiter = threading.Thread(target=_when_opened, args=(gate,), daemon=True,
                              name="ptxconf-context-gate")
    waiter.start()
    try:
        import cupy  # noqa: F401

        from . import probes, replay, transcript  # noqa: F401
    except Exception:  # noqa: BLE001 - no CuPy: the first probe reports it
        pass
    waiter.join()
    if not gate.wanted.value:
        return 0
    from .device import warm

    return warm()


__all__ = ["AFTER_WAIT_S", "OWNER_SIGNALS", "ContextGate", "warm_when"]
