"""One probe server a GPU, shared by a run's lanes: one CUDA context on the GPU, not one a lane.

Why: processes that each hold a CUDA context on one GPU take turns on it. Measured on an H100:
a tiny kernel and its synchronisation take 13 us alone and 1.6 ms each while 12 processes do
the same (0.55 ms with 4); creating 12 contexts at once takes 2 s, 24 take 4.7 s (the driver
creates them one at a time). With a worker a lane, a warm check spent a third of its lanes'
time waiting for answers. The server starts CUDA once and serves every lane of its GPU: one
thread a lane, each on its own non-blocking stream, running probes by name exactly as a
`ProbeRunner` worker does (`runner.run_probe`).

A fault cannot be pinned on a call in a shared context: a kernel that faults poisons every
stream of the context, and the error may surface in another lane's synchronisation. So a
context-fatal error ends the server at once, answering nothing; every call then in flight
(the faulting one among them) goes unanswered, and its lane runs it again in a private worker
of its own (`SharedRunner`; a `ProbeRunner`, as without a server), where a probe that faults,
faults alone and is reported as itself. A call that outlives its time limit kills the server
and runs again privately the same way. Once its server is gone, a lane uses its private worker
for the rest of the run. Calls the plan marks as possibly faulting (alignment probes) go to
the private worker from the start (`SharedRunner.private_only`).

The probes only ever write the buffers they are given; in one context, a probe that wrote a
wrong but valid device address could reach another lane's buffer, which its check would then
report as a failure (never as a pass: the expected values come from the oracle).
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterable
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

from .runner import ProbeResult, ProbeRunner, pin_device, run_probe

#: Calls that load kernels into a worker: a lane's private worker gets them again before its
#: first call (the server had them).
LOAD_CALLS = frozenset({"load_module", "prepare_wgmma", "prepare_wmma"})
#: How many lanes may wait to connect at once.
BACKLOG = 256


# --- the server process --------------------------------------------------------------------


def serve(address: str, authkey: bytes, device: int | None, parent: Connection) -> None:
    """The server: listen at `address`, say ("ready", pid) or ("error", why) to `parent`,
    start CUDA, then serve each lane that connects in a thread of its own. Ends when `parent`
    closes (the run is over) or at the first context-fatal error."""
    pin_device(device)
    try:
        listener = Listener(address, family="AF_UNIX", backlog=BACKLOG, authkey=authkey)
    except OSError as exc:
        parent.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    parent.send(("ready", os.getpid()))
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()
    from .device import warm

    warm()
    while True:
        try:
            conn = listener.accept()
        except Exception:  # noqa: BLE001, S112 - a client that failed the handshake: next one
            continue
        threading.Thread(target=_serve_lane, args=(conn,), daemon=True).start()


def _end_with(parent: Connection) -> None:
    """Exit when the run that started this server ends (its end of the pipe closes)."""
    try:
        parent.recv()
    except (EOFError, OSError):
        pass
    os._exit(0)


def _lane_stream() -> Any:
    """A non-blocking CUDA stream for one lane's thread (made current with `with`); where CUDA
    is not usable, a stand-in (the probes then fail as they would in a worker)."""
    try:
        import cupy

        return cupy.cuda.Stream(non_blocking=True)
    except Exception:  # noqa: BLE001 - no CuPy or no device: the calls say so themselves
        return contextlib.nullcontext()


def _serve_lane(conn: Connection) -> None:
    """One lane's calls, in order, on a stream of this thread's own."""
    conn.send(("ready", os.getpid(), None, 0.0))
    with _lane_stream():
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                return
            if msg is None:
                return
            status, value, kind, seconds, fatal = run_probe(*msg)
            if fatal:  # the whole context may be gone: every call in flight runs again alone
                os._exit(3)
            try:
                conn.send((status, value, kind, seconds))
            except (OSError, ValueError):
                return


# --- in the main process -------------------------------------------------------------------


class Server:
    """A started server: its address, key and process; `close()` ends it."""

    def __init__(self, device: int, context: Any, start_timeout_s: float = 60.0,
                 folder: str | None = None) -> None:
        self.folder = tempfile.mkdtemp(prefix="ptxconf-gpu-", dir=folder)
        self.address = str(Path(self.folder) / f"gpu{device}.sock")
        self.authkey = os.urandom(16)
        self.problem: str | None = None
        ours, theirs = context.Pipe()
        self._parent = ours
        self.process = context.Process(target=serve, name=f"ptxconf-probe-server-{device}",
                                       args=(self.address, self.authkey, device, theirs),
                                       daemon=True)
        self.process.start()
        theirs.close()
        self._start_timeout_s = start_timeout_s

    def ready(self) -> str | None:
        """None once the server listens, else why it does not (then no lane uses it)."""
        if self.problem is None and self._parent.poll(self._start_timeout_s):
            try:
                said, what = self._parent.recv()
            except (EOFError, OSError):
                said, what = "error", f"it died (exit code {self.process.exitcode})"
            if said != "ready":
                self.problem = str(what)
        elif self.problem is None:
            self.problem = f"it did not start within {self._start_timeout_s} s"
        return self.problem

    def close(self) -> None:
        """End the server and remove its socket."""
        self._parent.close()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        for p in Path(self.folder).glob("*"):
            p.unlink(missing_ok=True)
        Path(self.folder).rmdir()


# --- in a lane -----------------------------------------------------------------------------


class SharedRunner:
    """A lane's runner: calls go to its GPU's server, and run again in the lane's own
    `private` worker when the server cannot answer them (see the module docstring); the same
    calls and answers as a ProbeRunner. `address` None: private worker only."""

    def __init__(self, address: str | None, authkey: bytes, private: ProbeRunner) -> None:
        self.address = address
        self.authkey = authkey
        self.private = private
        self.device = private.device
        self.timeout_s = private.timeout_s
        #: Set per job: its calls go to the private worker (a case the plan says may fault).
        self.private_only = False
        self.calls = 0
        self.worker_s = 0.0
        self.round_trip_s = 0.0
        #: Calls the server lost (it ended or was killed) and the private worker ran again.
        self.reruns = 0
        self._conn: Connection | None = None
        self._server_pid: int | None = None
        self._gone = address is None
        self._loads: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self._loaded_in: tuple[int, int] | None = None  # (private restarts, pid) with the loads

    @property
    def restarts(self) -> int:
        """The private worker's restarts (a session loads its kernels again after one)."""
        return self.private.restarts

    @property
    def shared(self) -> bool:
        """Whether calls go to the server now."""
        return not (self._gone or self.private_only)

    def start(self) -> str | None:
        """Connect to the server (or start the private worker, without one); None when up."""
        if self.shared and self._connect():
            return None
        return self.private.start()

    def _connect(self) -> bool:
        if self._conn is not None:
            return True
        try:
            assert self.address is not None
            conn = Client(self.address, family="AF_UNIX", authkey=self.authkey)
            if not conn.poll(self.private.start_timeout_s):
                raise OSError("the server did not answer")
            self._server_pid = conn.recv()[1]
        except Exception:  # noqa: BLE001 - no server to be had: the private worker answers
            self._lose()
            return False
        self._conn = conn
        return True

    def _lose(self, kill: bool = False) -> None:
        """Stop using the server (and kill it first, for a call that outlived its limit)."""
        if kill and self._server_pid is not None:
            try:
                os.kill(self._server_pid, signal.SIGKILL)
            except OSError:
                pass
        if self._conn is not None:
            self._conn.close()
        self._conn, self._gone = None, True

    def close(self) -> None:
        """Leave the server; end the private worker."""
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._conn.close()
            self._conn = None
        self.private.close()

    def call(self, name: str, /, *args: Any, timeout_s: float | None = None,
             **kwargs: Any) -> ProbeResult:
        """Run probes.<name>(*args, **kwargs) in the server, or again privately (see above)."""
        limit = self.timeout_s if timeout_s is None else timeout_s
        start = time.perf_counter()
        res = self._on_server(name, args, kwargs, limit) if self.shared else None
        if res is None:
            self.reruns += not self.private_only and self.address is not None
            self._load_private()
            res = self.private.call(name, *args, timeout_s=limit, **kwargs)
        if res.error_kind not in ("timeout", "crash"):
            self.calls += 1
            self.worker_s += res.seconds
            self.round_trip_s += time.perf_counter() - start
        if res.ok and name in LOAD_CALLS:
            self._loads.append((name, args, kwargs))
        return res

    def _on_server(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                   limit: float) -> ProbeResult | None:
        """The server's answer, or None where it gave none (it is then not asked again)."""
        if not self._connect():
            return None
        assert self._conn is not None
        try:
            self._conn.send((name, args, kwargs))
            if not self._conn.poll(limit):
                self._lose(kill=True)
                return None
            status, payload, kind, seconds = self._conn.recv()
        except (EOFError, OSError):
            self._lose()
            return None
        return ProbeResult(status == "ok", payload if status == "ok" else None,
                           None if status == "ok" else payload, kind, seconds,
                           self._server_pid)

    def _load_private(self) -> None:
        """Give the private worker the kernels the server had, once per worker it starts."""
        if not self._loads or self.private.start() is not None:
            return
        now = (self.private.restarts, self.private.pid or 0)
        if self._loaded_in == now:
            return
        for name, args, kwargs in self._loads:
            self.private.call(name, *args, **kwargs)
        self._loaded_in = (self.private.restarts, self.private.pid or 0)

    def map(self, calls: Iterable[tuple[str, tuple[Any, ...], dict[str, Any]]], *,
            timeout_s: float | None = None) -> list[ProbeResult]:
        """Each (name, args, kwargs) in order, as ProbeRunner.map."""
        out = []
        for name, args, kwargs in calls:
            kw = dict(kwargs)
            limit = kw.pop("timeout_s", timeout_s)
            out.append(self.call(name, *args, timeout_s=limit, **kw))
        return out


__all__ = ["LOAD_CALLS", "Server", "SharedRunner", "serve"]
