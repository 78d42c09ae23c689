"""The proof pool's wiring (oracle/proofs/pool.py) with stand-ins for the workers, the
multiprocessing context and the pipes: a worker's process and pipe, handing out claims, hearing
answers. No process is started, so these run under mutmut's forked children; the pool's real
workers are test_proof_pool.py's (which cannot: reports/mutation/run_mutmut.py's NOT_IN_A_FORK).

Expected values come from pool.py's docstring: each worker loads the spec from its folder and
proves claims under the run's budget; `context()` says how it starts (a daemon process, the
pipe's child end handed to `_serve` with the spec's folder and the budget); the dispatcher "hands
each ready worker the next claim" (`ProofPool.start`: "in that order"), one claim per worker at a
time; a worker that died between answers (`hand` raising OSError) does not take the claim: it
goes back to the front of the queue; a worker proves "claims by id", so `hand` sends the id;
`_hear` takes "ready" and `(id, result, exception)` answers, and "the next claim goes out before
the answers are told"; each of a pool's workers is started with the run's budget.
"""

from __future__ import annotations

import collections
import threading
from types import SimpleNamespace

import pytest

from ptxconf.oracle.proofs import pool as pool_mod
from ptxconf.oracle.proofs.pool import ProofPool, _Worker

pytest.importorskip("z3")


class _FakeProcess:
    def __init__(self, **kwargs: object) -> None:
        self.kwargs = kwargs
        self.started = False

    def start(self) -> None:
        self.started = True


class _FakeEnd:
    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False
        self.sent: list[object] = []

    def close(self) -> None:
        self.closed = True

    def send(self, message: object) -> None:
        self.sent.append(message)


class _FakeContext:
    """A multiprocessing context that records the Pipe and Process a worker asks for."""

    def __init__(self) -> None:
        self.pipes: list[tuple[_FakeEnd, _FakeEnd]] = []
        self.processes: list[_FakeProcess] = []

    def Pipe(self) -> tuple[_FakeEnd, _FakeEnd]:
        self.pipes.append((_FakeEnd("parent"), _FakeEnd("child")))
        return self.pipes[-1]

    def Process(self, **kwargs: object) -> _FakeProcess:
        self.processes.append(_FakeProcess(**kwargs))
        return self.processes[-1]


def test_a_worker_serves_its_pipe_end_with_the_spec_folder_and_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """_Worker: a daemon "ptxconf-proof" process runs _serve(child end, spec folder, budget)."""
    ctx = _FakeContext()
    monkeypatch.setattr(pool_mod, "context", lambda: ctx)
    worker = _Worker("/some/spec", 12.5)
    assert len(ctx.pipes) == 1
    assert len(ctx.processes) == 1
    parent, child = ctx.pipes[0]
    proc = ctx.processes[0]
    assert proc.kwargs == {"target": pool_mod._serve, "args": (child, "/some/spec", 12.5),
                           "daemon": True, "name": "ptxconf-proof"}
    assert proc.started
    assert child.closed
    assert not parent.closed
    assert worker.conn is parent
    assert worker.proc is proc
    assert (worker.ready, worker.claim) == (False, None)


def test_handing_a_worker_a_claim_sends_its_id_down_the_pipe(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """_Worker.hand: the worker holds the claim, and its id goes to the process (_serve proves
    claims "by id")."""
    ctx = _FakeContext()
    monkeypatch.setattr(pool_mod, "context", lambda: ctx)
    worker = _Worker("/some/spec", 12.5)
    parent, child = ctx.pipes[0]
    worker.hand("c7")
    assert (parent.sent, child.sent) == (["c7"], [])
    assert worker.claim == "c7"


class _FakeThread:
    def __init__(self, **kwargs: object) -> None:
        self.kwargs = kwargs


def test_a_pool_starts_its_workers_with_the_budget_and_a_dispatcher(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """ProofPool(spec, ids, budget, 2): two workers, each serving the spec's folder under the
    budget; a daemon "ptxconf-proof-dispatch" thread that runs the pool's dispatcher (started
    by `start`, not here)."""
    ctx = _FakeContext()
    monkeypatch.setattr(pool_mod, "context", lambda: ctx)
    monkeypatch.setattr(pool_mod, "threading", SimpleNamespace(
        Thread=_FakeThread, Condition=threading.Condition, current_thread=threading.current_thread))
    pool = ProofPool(SimpleNamespace(root="/some/spec"), ["c1", "c2", "c3"],  # type: ignore[arg-type]
                     12.5, 2)
    assert [p.kwargs["args"] for p in ctx.processes] == [
        (ctx.pipes[0][1], "/some/spec", 12.5), (ctx.pipes[1][1], "/some/spec", 12.5)]
    assert [w.proc for w in pool._workers] == ctx.processes
    assert pool._thread.kwargs == {"target": pool._dispatch, "daemon": True,
                                   "name": "ptxconf-proof-dispatch"}
    assert list(pool._queue) == ["c1", "c2", "c3"]


class _Hand:
    """A worker as the dispatcher sees it: ready or not, the claim it holds, what it was sent."""

    def __init__(self, ready: bool, claim: str | None = None, dead: bool = False) -> None:
        self.ready, self.claim, self.dead = ready, claim, dead
        self.sent: list[str] = []

    def hand(self, claim_id: str) -> None:
        if self.dead:
            raise OSError("the pipe is closed")
        self.claim = claim_id
        self.sent.append(claim_id)


def _pool(queue: list[str], workers: list[_Hand]) -> ProofPool:
    """A ProofPool with these workers and queue, no process and no thread started."""
    pool = ProofPool.__new__(ProofPool)
    pool._queue = collections.deque(queue)
    pool._workers = workers  # type: ignore[assignment]
    return pool


def test_feed_hands_each_ready_idle_worker_the_next_claim_in_order() -> None:
    """_feed: ready and idle workers take c1, c2 in queue order; busy or starting ones none."""
    idle1, busy, starting, idle2 = _Hand(True), _Hand(True, "c0"), _Hand(False), _Hand(True)
    pool = _pool(["c1", "c2", "c3"], [idle1, busy, starting, idle2])
    pool._feed()
    assert (idle1.sent, busy.sent, starting.sent, idle2.sent) == (["c1"], [], [], ["c2"])
    assert (idle1.claim, busy.claim, idle2.claim) == ("c1", "c0", "c2")
    assert list(pool._queue) == ["c3"]


def test_feed_puts_back_the_claim_a_dead_worker_could_not_take() -> None:
    """_feed: hand raising OSError leaves the worker free and the claim first in the queue."""
    dead, alive = _Hand(True, dead=True), _Hand(True)
    pool = _pool(["c1", "c2"], [dead, alive])
    pool._feed()
    assert (dead.claim, dead.sent) == (None, [])
    # the dead worker's c1 went back to the front, so the next ready worker takes it
    assert (alive.claim, alive.sent) == ("c1", ["c1"])
    assert list(pool._queue) == ["c2"]


def test_feed_with_an_empty_queue_hands_nothing() -> None:
    """_feed with no claim left: no worker is sent anything."""
    idle = _Hand(True)
    pool = _pool([], [idle])
    pool._feed()
    assert (idle.sent, idle.claim, list(pool._queue)) == ([], None, [])


class _Pipe:
    """The parent's end of a worker's pipe, with these messages waiting in it."""

    def __init__(self, messages: list[object]) -> None:
        self.messages = collections.deque(messages)

    def poll(self) -> bool:
        return bool(self.messages)

    def recv(self) -> object:
        return self.messages.popleft()


class _Talker(_Hand):
    """A worker whose pipe holds messages and whose process is alive."""

    def __init__(self, messages: list[object], claim: str | None = None) -> None:
        super().__init__(False, claim)
        self.conn = _Pipe(messages)
        self.proc = SimpleNamespace(is_alive=lambda: True)


def test_hear_takes_ready_then_an_answer_and_feeds_the_worker_first() -> None:
    """_hear: "ready" marks the worker ready; an (id, result, error) answer frees it, the next
    claim goes out, then the answer is kept: the result, or the error where there is one."""
    proved, failed = object(), ValueError("no")
    worker = _Talker(["ready", ("c1", proved, None), ("c2", None, failed)], claim="c1")
    pool = _pool(["c3"], [worker])
    pool._cond = threading.Condition()
    pool._answers = {}
    pool._hear(worker)  # type: ignore[arg-type]
    assert (worker.ready, worker.claim, worker.sent) == (True, "c3", ["c3"])
    assert pool._answers == {"c1": proved, "c2": failed}
    assert list(pool._queue) == []
