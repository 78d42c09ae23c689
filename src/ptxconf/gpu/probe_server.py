"""One probe process per GPU, shared by every lane of a run: one CUDA context per GPU.

A lane (`ptxconf.app.lanes`) does its jobs' host work and sends their probe calls here, through
a `SharedRunner` (the `ProbeRunner` interface). The server answers calls one at a time, from
whichever lanes have one waiting, in its one context: the GPU no longer switches between a
dozen contexts, and each module is loaded once. Calls that may fault on purpose do not come
here (the lanes keep a private `ProbeRunner` for them).

The server of GPU d listens on `{folder}/gpu{d}.{generation}`. A lane that finds none
listening starts the next generation itself: binding the socket is the lock, so the loser of a
race connects to the winner's. A call that loses the CUDA context is answered (its caller gets
the CUDA error, as from a private worker) and the server ends; a call another lane was waiting
on was never started, so that lane sends it again to the next generation: a fault fails only
its own case. A call that outlives its limit: its caller kills the server, and says so.

    runner = SharedRunner(folder, device=0, timeout_s=120)
    res = runner.call("run_wgmma_batch", v, launches)   # a ProbeResult, as ProbeRunner's
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import time
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from .runner import ProbeResult, answer, map_calls, pin_device

#: How long a server with no lane connected waits for one before it ends (seconds; the
#: default of `SharedRunner`'s `idle_s`, which a lane passes to the server it starts).
IDLE_S = 1.0
#: How many times a call is sent again after the server ended while it waited.
RESENDS = 3


def _path(folder: str, name: str, generation: int) -> str:
    return os.path.join(folder, f"{name}.{generation}")


def _latest(folder: str, name: str) -> int:
    """The newest generation with a socket in the folder (-1: none yet)."""
    gens = [int(p.suffix[1:]) for p in Path(folder).glob(f"{name}.*")
            if p.suffix[1:].isdigit()]
    return max(gens, default=-1)


def _serve(sock: socket.socket, path: str, device: int, warm_call: str | None,
           idle_s: float = IDLE_S) -> None:
    """The server loop (in its own process): accept lanes, answer their calls in turn; end
    after a call that lost the context, or when no lane has been connected for `idle_s`."""
    pin_device(device)
    if warm_call is not None:
        with contextlib.suppress(Exception):
            answer(_Null(), (warm_call, (), {}))
    conns: list[Connection] = []
    idle_since = time.monotonic()
    try:
        while True:
            # idle: wake when the idle time is up, not at the next half second
            left = 0.5 if conns else max(0.0, idle_s - (time.monotonic() - idle_since))
            ready = wait([sock, *conns], timeout=min(0.5, left))
            if not conns and not ready and time.monotonic() - idle_since >= idle_s:
                return
            for r in ready:
                if r is sock:
                    with contextlib.suppress(OSError):
                        client, _ = sock.accept()
                        conn = Connection(client.detach())
                        conn.send(("ready", os.getpid(), None, 0.0, 0.0))
                        conns.append(conn)
                    continue
                assert isinstance(r, Connection)
                try:
                    msg = r.recv()
                except (EOFError, OSError):
                    msg = None
                if msg is None:
                    conns.remove(r)
                    r.close()
                    if not conns:
                        idle_since = time.monotonic()
                    continue
                if answer(r, msg):
                    return
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os._exit(0)


class _Null:
    """A connection that drops what is sent (the warm-up call's answer)."""

    def send(self, _: Any) -> None:
        pass


class SharedRunner:
    """A lane's end of its GPU's probe server (`ProbeRunner`'s interface and counters)."""

    def __init__(self, folder: str, *, device: int | None = None, timeout_s: float = 60.0,
                 start_timeout_s: float = 120.0, warm_call: str | None = None,
                 slot: int = 0, idle_s: float = IDLE_S) -> None:
        """`idle_s`: how long a server this lane starts waits with no lane connected before
        it ends (IDLE_S; a test's lanes pass less)."""
        self.folder = folder
        self.device = device
        #: Which of the GPU's servers (a GPU may have a few, each its own context).
        self.name = f"gpu{device or 0}s{slot}"
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self.warm_call = warm_call
        self.idle_s = idle_s
        self.restarts = 0
        self.calls = 0
        self.worker_s = 0.0
        self.round_trip_s = 0.0
        self.gpu_s = 0.0
        self._conn: Connection | None = None
        self._pid: int | None = None
        self._generation = -1

    # -- connecting --

    def _gpu(self) -> int:
        return self.device or 0

    def start(self) -> str | None:
        """Connect to the GPU's server, starting one where none listens; None when connected,
        else why not."""
        if self._conn is not None:
            return None
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            gen = max(_latest(self.folder, self.name), self._generation)
            path = _path(self.folder, self.name, gen)
            if gen >= 0 and self._connect(path):
                self._generation = gen
                return None
            problem = self._launch(_path(self.folder, self.name, gen + 1))
            if problem is not None:
                return problem
            # ours is listening now, or another lane's won the bind: connect to it
        return f"no probe server for GPU {self._gpu()} answered within {self.start_timeout_s} s"

    def _connect(self, path: str) -> bool:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError:
            sock.close()
            return False
        conn = Connection(sock.detach())
        if not conn.poll(self.start_timeout_s):
            conn.close()
            return False
        try:
            status, pid, *_ = conn.recv()
        except (EOFError, OSError):
            conn.close()
            return False
        self._conn, self._pid = conn, pid if status == "ready" else None
        return bool(status == "ready")

    def _launch(self, path: str) -> str | None:
        """Start a server listening at `path` (forked from this process, which has not
        started CUDA); the caller then connects, to another lane's server where that lane
        bound the path first. Why no server can listen there, or None."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(path)
        except OSError as exc:
            sock.close()
            if exc.errno == errno.EADDRINUSE:
                return None  # another lane's server: connect to it
            return f"no probe server can listen at {path}: {exc}"
        sock.listen(64)
        child = os.fork()
        if child == 0:  # a child that forks the server and ends: the server is no lane's child,
            try:        # so it outlives the lane that started it, and ends when idle
                if os.fork() == 0:
                    _serve(sock, path, self._gpu(), self.warm_call, self.idle_s)
            finally:
                os._exit(0)
        os.waitpid(child, 0)
        sock.close()
        return None

    def _drop(self, *, kill: bool = False) -> None:
        conn, pid = self._conn, self._pid
        self._conn = self._pid = None
        if kill and pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if conn is not None:
            conn.close()
        self.restarts += 1

    def close(self) -> None:
        """Leave the server (it ends once no lane is connected)."""
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.send(None)
            self._conn.close()
            self._conn = None

    def __enter__(self) -> SharedRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls --

    def call(self, name: str, /, *args: Any, timeout_s: float | None = None,
             **kwargs: Any) -> ProbeResult:
        """Run probes.<name>(*args, **kwargs) in the GPU's server."""
        limit = self.timeout_s if timeout_s is None else timeout_s
        for _ in range(RESENDS + 1):
            problem = self.start()
            if problem:
                return ProbeResult(False, error=problem, error_kind="crash")
            conn, pid = self._conn, self._pid
            assert conn is not None
            start = time.perf_counter()
            try:
                conn.send((name, args, kwargs))
            except OSError:  # the server ended before this call: send it to the next one
                self._drop()
                continue
            if not conn.poll(limit):
                self._drop(kill=True)
                return ProbeResult(False, error=f"{name}: no answer within {limit} s; the "
                                   "GPU's probe server killed", error_kind="timeout",
                                   seconds=time.perf_counter() - start, worker_pid=pid)
            try:
                status, payload, kind, seconds, gpu_s = conn.recv()
            except (EOFError, OSError):  # it ended on another lane's call: never ran this one
                self._drop()
                continue
            self.calls += 1
            self.worker_s += seconds
            self.gpu_s += gpu_s
            self.round_trip_s += time.perf_counter() - start
            if status == "ok":
                return ProbeResult(True, value=payload, seconds=seconds, worker_pid=pid,
                                   gpu_s=gpu_s)
            if kind == "cuda":  # the server ends after answering it
                self._drop()
            return ProbeResult(False, error=payload, error_kind=kind, seconds=seconds,
                               worker_pid=pid, gpu_s=gpu_s)
        return ProbeResult(False, error=f"{name}: the GPU's probe server ended {RESENDS + 1} "
                           "times while this call waited", error_kind="crash")

    def map(self, calls: Any, *, timeout_s: float | None = None) -> list[ProbeResult]:
        """Run each (name, args, kwargs) in order; a failure never stops the rest."""
        return map_calls(self, calls, timeout_s)


__all__ = ["IDLE_S", "SharedRunner"]
