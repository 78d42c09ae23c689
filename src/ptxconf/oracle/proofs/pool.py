"""Claims proved in worker processes, so that the proofs neither wait on one core nor share
this interpreter's lock with the rest of a run.

`ProofPool.start(spec, ids, timeout_s, workers)` starts `workers` processes; each loads the
spec from its folder once, says it is ready, then proves claims by id, one at a time, in a
fresh Z3 context, exactly as `runner.prove` does in this process. A dispatcher thread here
hands each ready worker the next claim and collects the answers; `result(id)` waits for one.

Every worker talks over its own pipe: no lock is shared between processes, so a worker that
dies (SIGKILL, the OOM killer, a crash in Z3's native code) cannot wedge the others or this
process, as a `multiprocessing.Pool` worker killed while holding its queue's lock does. A
worker that dies takes only the claim it held: that claim comes back `ProofLost` (UNKNOWN,
never a pass) and a new worker takes its place. A worker that holds one claim past its budget
and `LOST_AFTER_EXTRA_S` more (stopped, wedged) is killed the same way. A signal
(`ptxconf.core.interrupts`) or `close()` ends every wait. Workers ignore SIGINT (the run that owns
them stops them) and end by themselves when their pipe to it closes.
"""

from __future__ import annotations

import collections
import pickle
import signal
import threading
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from ptxconf.core import interrupts
from ptxconf.oracle.proofs.runner import ProofResult, prove
from ptxconf.oracle.spec import Spec

#: How long past a claim's budget one worker may hold it before it is killed and the claim
#: given up as lost.
LOST_AFTER_EXTRA_S = 30.0
#: How often a waiting case, and the dispatcher, look for a signal, a closed pool or a
#: worker over its budget.
POLL_S = 0.2
#: How long a worker may take to start and load the spec before it is given up.
START_S = 120.0

_READY = "ready"


class ProofLost(Exception):
    """A claim's worker went away (or the pool was closed) before it answered."""


class WorkerError(RuntimeError):
    """A worker could not prove a claim for a reason its own exception cannot carry here."""


def _serve(conn: Connection, spec_root: str, timeout_s: float) -> None:
    """A worker: load the spec's claims once, say ready, then answer `(id, result, exception)`
    for each claim id received until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    claims: dict[str, Any] = {}
    broken = ""
    try:
        from ptxconf.oracle.proofs.claims import all_claims
        from ptxconf.oracle.spec import load_spec

        claims = {c.id: c for c in all_claims(load_spec(spec_root))}
    except Exception as exc:  # noqa: BLE001 - told with every claim (a worker that died here
        broken = f"{type(exc).__name__}: {exc}"  # would be started again, forever)
    try:
        conn.send(_READY)
        while True:
            claim_id = conn.recv()
            answer: tuple[str, ProofResult | None, Exception | None]
            if broken:
                answer = (claim_id, None,
                          WorkerError(f"the proof worker could not load the spec: {broken}"))
            else:
                try:
                    answer = (claim_id, prove(claims[claim_id], timeout_s=timeout_s), None)
                except Exception as exc:  # noqa: BLE001 - the case reports it as raised
                    answer = (claim_id, None, exc)
            try:
                conn.send(answer)
            except (TypeError, AttributeError, pickle.PicklingError):  # an unpicklable error
                conn.send((claim_id, None, WorkerError(f"{type(answer[2]).__name__}: "
                                                       f"{answer[2]}")))
    except (EOFError, OSError):  # the owner closed the pipe or is gone
        return


#: What the fork server imports before it forks a worker (`context`): the claims, the prover
#: and Z3 (about 0.6 s a worker otherwise, paid again by each worker of each pool).
PROOF_PRELOAD = ["ptxconf.oracle.proofs.claims", "ptxconf.oracle.proofs.runner"]


def context() -> Any:
    """How workers start: from the fork server where there is one (a run's GPU lanes may have
    started it already), else a spawned interpreter; never a fork of this threaded process.
    The fork server imports PROOF_PRELOAD once where it is started here. Its children ignore
    SIGINT from their first instruction and end quietly where this process hangs up while
    starting one (`interrupts.fork_context`)."""
    return interrupts.fork_context(PROOF_PRELOAD)


class _Worker:
    """One process, the parent's end of its pipe, and the claim it holds (if any)."""

    def __init__(self, spec_root: str, timeout_s: float) -> None:
        self.conn, child = context().Pipe()
        self.proc = context().Process(target=_serve, args=(child, spec_root, timeout_s),
                                      daemon=True, name="ptxconf-proof")
        self.proc.start()
        child.close()
        self.ready = False
        self.claim: str | None = None
        self.since = time.monotonic()

    def hand(self, claim_id: str) -> None:
        self.claim, self.since = claim_id, time.monotonic()
        self.conn.send(claim_id)

    def stop(self) -> None:
        """Kill the process (never waits on it to agree) and close the pipe."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


class ProofPool:
    """Worker processes proving a fixed set of claims, handed out one at a time as they free."""

    def __init__(self, spec: Spec, ids: Sequence[str], timeout_s: float, workers: int) -> None:
        """Use `start`."""
        self._root = str(Path(spec.root))
        self._timeout_s = timeout_s
        self._queue = collections.deque(ids)
        self._wanted = set(ids)
        self._answers: dict[str, ProofResult | Exception] = {}
        self._cond = threading.Condition()
        self._closed = False
        self._workers = [_Worker(self._root, timeout_s) for _ in range(workers)]
        self._thread = threading.Thread(target=self._dispatch, daemon=True,
                                        name="ptxconf-proof-dispatch")

    @classmethod
    def start(cls, spec: Spec, ids: Sequence[str], timeout_s: float, workers: int) -> ProofPool:
        """Start `workers` processes that will prove every claim of `ids`, in that order."""
        self = cls(spec, ids, timeout_s, max(1, workers))
        self._thread.start()
        return self

    def worker_pids(self) -> list[int]:
        """The pids of the workers now running (for a person, or a test, to watch or kill)."""
        with self._cond:
            return [w.proc.pid for w in self._workers if w.proc.pid is not None]

    def has(self, claim_id: str) -> bool:
        """Whether this pool was handed the claim (and its answer not yet taken)."""
        with self._cond:
            return claim_id in self._wanted

    def result(self, claim_id: str) -> ProofResult:
        """The claim's result, waited for; raises ProofLost when the pool was closed or the
        claim's worker was lost, WorkerError when the proof raised there, and `Interrupted`
        when the run got a signal."""
        with self._cond:
            self._wanted.discard(claim_id)
            last = not self._wanted
        try:
            with self._cond:
                while claim_id not in self._answers:
                    if self._closed:
                        raise ProofLost("the proof pool was closed before this claim was proved")
                    self._cond.wait(POLL_S)
                    interrupts.check()
                answer = self._answers.pop(claim_id)
        except BaseException:
            self.close()  # a signal ends the run: its workers go now
            raise
        finally:
            if last:
                self.close()
        if isinstance(answer, Exception):
            raise answer
        return answer

    def close(self) -> None:
        """Stop every worker now (claims not yet proved are lost; their waits end; answers
        already in are still given). Closing twice is harmless."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()
        else:
            self._stop_all()

    # the dispatcher thread --------------------------------------------------------------

    def _dispatch(self) -> None:
        try:
            while not self._closed and (self._queue or any(w.claim for w in self._workers)):
                self._feed()
                by_conn = {w.conn: w for w in self._workers}
                by_sentinel = {w.proc.sentinel: w for w in self._workers}
                for ready in wait([*by_conn, *by_sentinel], timeout=POLL_S):
                    worker = by_conn.get(ready) or by_sentinel[ready]
                    if worker in self._workers:
                        self._hear(worker)
                self._watch()
        finally:
            self._stop_all()

    def _feed(self) -> None:
        for worker in self._workers:
            if worker.ready and worker.claim is None and self._queue:
                claim_id = self._queue.popleft()
                try:
                    worker.hand(claim_id)
                except OSError:  # it died between answers (the sentinel tells): not this claim
                    worker.claim = None
                    self._queue.appendleft(claim_id)

    def _hear(self, worker: _Worker) -> None:
        """Take what the worker sent, or, when it is gone, lose its claim and replace it. The
        next claim goes out before the answers are told, so a waiter woken by an answer finds
        the worker already busy with the next one."""
        answers: list[tuple[str, ProofResult | Exception]] = []
        try:
            while worker.conn.poll():
                message = worker.conn.recv()
                if message == _READY:
                    worker.ready = True
                    continue
                claim_id, proved, error = message
                worker.claim = None
                answers.append((claim_id, proved if error is None else error))
            alive = worker.proc.is_alive()
            if alive:
                self._feed()
        except (EOFError, OSError):
            alive = False
        for claim_id, answer in answers:
            self._answer(claim_id, answer)
        if not alive:
            self._lose(worker, "died")

    def _watch(self) -> None:
        """Kill a worker that held one claim (or took to start) for too long."""
        now = time.monotonic()
        for worker in list(self._workers):
            budget = self._timeout_s + LOST_AFTER_EXTRA_S if worker.ready else START_S
            if (worker.claim or not worker.ready) and now - worker.since > budget:
                self._lose(worker, f"gave no answer in {now - worker.since:.0f} s and was killed")

    def _lose(self, worker: _Worker, what: str) -> None:
        """Stop a worker that `what` happened to ("died", ...): its claim is lost; a started
        worker is replaced while claims are left, one that never started is not."""
        worker.stop()
        self._workers.remove(worker)
        who = f"the proof worker (pid {worker.proc.pid}) {what}"
        if worker.claim is not None:
            self._answer(worker.claim, ProofLost(f"{who} while proving this claim"))
        if worker.ready:
            if self._queue:
                self._workers.append(_Worker(self._root, self._timeout_s))
        elif not self._workers:  # none ever started: a new one would fail the same way
            for claim_id in self._queue:
                self._answer(claim_id, ProofLost(f"{who} before it could start"))
            self._queue.clear()

    def _answer(self, claim_id: str, answer: ProofResult | Exception) -> None:
        with self._cond:
            self._answers[claim_id] = answer
            self._cond.notify_all()

    def _stop_all(self) -> None:
        for worker in self._workers:
            worker.stop()
        with self._cond:
            for worker in self._workers:
                if worker.claim is not None:
                    self._answers.setdefault(worker.claim, ProofLost(
                        "the proof pool was closed before this claim was proved"))
            self._closed = True
            self._cond.notify_all()


__all__ = ["ProofLost", "ProofPool", "WorkerError", "context"]
