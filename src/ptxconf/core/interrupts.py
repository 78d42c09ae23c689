"""Ctrl-C and SIGTERM end a run promptly and say so, even where a native library swallows the
KeyboardInterrupt (a signal that lands inside Z3 or NVRTC can be reported as "Exception ignored"
and lost).

`watching()` installs handlers that record the signal and raise `Interrupted` (the first one
only: a second or third signal while the run publishes what completed is recorded, never
raised, so it cannot leave the report folder empty); the check runner also asks `check()`
between cases, so a swallowed one still stops the run at the next case.
`blocked()` holds signals back while a set of report files is moved into place.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []
#: The first signal of the command under way, kept after `watching()` ends (`native_call`).
_stopped: list[int] = []
#: Calls into native code under way, in any thread (`native_call`, `settle`).
_native = threading.Condition()
_native_calls = [0]
#: The longest an interrupted command waits for a native call under way before it exits
#: (`settle`): a witness kernel's NVRTC compile takes about a second, several under load.
SETTLE_S = 30.0


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal; `signum` says which (exit status 128 + signum)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """The shell's convention: 128 + the signal number."""
        return 128 + self.signum


def _handler(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if not _stopped:
        _stopped.append(signum)
    if len(_received) > 1:  # the run is already ending: nothing interrupts its publishing
        return
    # The run is ending: objects a native library left half-built when the signal landed (Z3's
    # contexts) fail in their finalizers while the stack unwinds; that noise is not the story.
    sys.unraisablehook = lambda _unraisable: None
    raise Interrupted(signum)


def check() -> None:
    """Raise Interrupted if a signal arrived (and was perhaps swallowed) since `watching()`."""
    if _received:
        raise Interrupted(_received[0])


@contextmanager
def watching() -> Iterator[None]:
    """Record SIGINT/SIGTERM for the duration (main thread only; elsewhere a no-op); where one
    arrived, both are ignored afterwards (the process is ending), else the handlers before are
    put back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    _stopped.clear()
    old = {s: signal.signal(s, _handler) for s in SIGNALS}
    try:
        yield
    finally:
        # after a signal the process is ending: further ones are ignored, so that its exit
        # status stays the first signal's (a default handler would kill it mid-exit)
        for s, h in old.items():
            signal.signal(s, signal.SIG_IGN if _received else h)
        _received.clear()


@contextmanager
def native_call() -> Iterator[None]:
    """Mark a call into native code that the interpreter's shutdown must not run beside (an
    NVRTC compile in a provider's thread: Python freeing what it still uses ends the process
    with `free(): invalid pointer`, exit -6, as seen under a CPU hog). Once a signal has
    arrived none starts (Interrupted); an interrupted command `settle`s before it exits."""
    with _native:
        if _stopped:
            raise Interrupted(_stopped[0])
        _native_calls[0] += 1
    try:
        yield
    finally:
        with _native:
            _native_calls[0] -= 1
            _native.notify_all()


def settle(timeout_s: float = SETTLE_S) -> bool:
    """Wait until no `native_call` is under way in any thread (at most `timeout_s`): an
    interrupted command's last act before it exits. Whether none is."""
    with _native:
        return _native.wait_for(lambda: _native_calls[0] == 0, timeout_s)


@contextmanager
def blocked() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back for the duration; they are delivered when it ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


#: What the fork server imports first (`fork_context`): it and its children ignore SIGINT and
#: end quietly when the run that owns them hangs up mid-start (ptxconf.core.forkserver_child).
CHILD_PRELOAD = "ptxconf.core.forkserver_child"
_preload: list[str] = [CHILD_PRELOAD]


def fork_context(preload: Sequence[str] = ()) -> Any:
    """How ptxconf's worker processes start (proof workers, GPU lanes): forked from the fork
    server, which imports CHILD_PRELOAD and then every module any caller asked it to preload
    (the union: a later caller never drops an earlier one's), once; a spawned interpreter
    where there is no fork server. Never a plain fork of a threaded process."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    _preload.extend(m for m in preload if m not in _preload)
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(list(_preload))
    return ctx


__all__ = ["CHILD_PRELOAD", "SETTLE_S", "Interrupted", "blocked", "check", "fork_context", "native_call",
           "settle", "watching"]
