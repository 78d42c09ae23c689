"""Claims proved in worker processes, so that the proofs neither wait on one core nor share
this interpreter's lock with the rest of a run.

`ProofPool.start(spec, ids, timeout_s, workers)` hands every named claim to a pool of worker
processes at once; each worker loads the spec from its folder once and proves claims by id in
a fresh Z3 context, exactly as `runner.prove` does in this process. `result(id)` waits for one
claim's answer. A signal (`ptxconf.interrupts`) or `close()` ends the wait; a worker lost to a
crash is noticed when no answer has come for a claim's whole budget and more, and its claims
come back `unknown` (never passing). The workers ignore SIGINT: the run that owns them stops
them (`close()` terminates the pool).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Sequence
from multiprocessing.pool import AsyncResult, Pool
from pathlib import Path
from typing import Any

from ptxconf.oracle.proofs.runner import Claim, ProofResult, prove
from ptxconf.oracle.spec import Spec

#: How long past a claim's budget the pool may go without any answer before its
#: unanswered claims are given up as lost (a worker that crashed takes its claim with it).
LOST_AFTER_EXTRA_S = 30.0
#: How often a waiting case looks for a signal or a closed pool.
POLL_S = 0.2
#: How often a worker looks whether the process that started it is still there.
OWNER_POLL_S = 1.0

_claims: dict[str, Claim] = {}
_broken: list[str] = []
_timeout_s = 0.0


def _init(spec_root: str, timeout_s: float, owner_pid: int) -> None:
    """A worker: the spec's claims by id, loaded once; Ctrl-C is its owner's to handle, and it
    ends by itself when its owner is gone (killed with SIGKILL, say: nobody terminates it)."""
    global _timeout_s
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_owner, args=(owner_pid,), daemon=True).start()
    _timeout_s = timeout_s
    try:
        from ptxconf.oracle.proofs.claims import all_claims
        from ptxconf.oracle.spec import load_spec

        _claims.update((c.id, c) for c in all_claims(load_spec(spec_root)))
    except Exception as exc:  # noqa: BLE001 - told with every claim (a worker that died here
        _broken.append(f"{type(exc).__name__}: {exc}")  # would be started again, forever)


def _watch_owner(owner_pid: int) -> None:
    while True:
        time.sleep(OWNER_POLL_S)
        try:
            os.kill(owner_pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:  # a pid reused by another user's process: the owner is gone
            os._exit(1)


def _prove(claim_id: str) -> ProofResult:
    if _broken:
        raise RuntimeError(f"the proof worker could not load the spec: {_broken[0]}")
    return prove(_claims[claim_id], timeout_s=_timeout_s)


def context() -> Any:
    """How workers start: from the fork server where there is one (a run's GPU lanes may have
    started it already), else a spawned interpreter; never a fork of this threaded process."""
    if "forkserver" in mp.get_all_start_methods():
        return mp.get_context("forkserver")
    return mp.get_context("spawn")


class ProofLost(Exception):
    """A claim's worker went away (or the pool was closed) before it answered."""


class ProofPool:
    """Worker processes proving a fixed set of claims, every one handed out at the start."""

    def __init__(self, pool: Pool, pending: dict[str, AsyncResult[ProofResult]],
                 timeout_s: float) -> None:
        """Use `start`."""
        self._pool = pool
        self._pending = pending
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._closed = False
        self.last_answer = time.monotonic()

    @classmethod
    def start(cls, spec: Spec, ids: Sequence[str], timeout_s: float, workers: int) -> ProofPool:
        """Start `workers` processes and hand them every claim of `ids`, in that order (the
        claims are many and small, so the pool balances itself)."""
        pool = context().Pool(workers, initializer=_init,
                              initargs=(str(Path(spec.root)), timeout_s, os.getpid()))
        self = cls(pool, {}, timeout_s)
        for claim_id in ids:
            self._pending[claim_id] = pool.apply_async(_prove, (claim_id,),
                                                       callback=self._answered,
                                                       error_callback=self._answered)
        pool.close()  # no more work: the workers end once the last claim is proved
        return self

    def _answered(self, _: object) -> None:
        self.last_answer = time.monotonic()

    def has(self, claim_id: str) -> bool:
        """Whether this pool was handed the claim (and its answer not yet taken)."""
        with self._lock:
            return claim_id in self._pending

    def result(self, claim_id: str) -> ProofResult:
        """The claim's result, waited for; raises ProofLost when the pool was closed or no
        answer came for too long, and `Interrupted` when the run got a signal."""
        from ptxconf import interrupts

        with self._lock:
            pending = self._pending.pop(claim_id)
            last = not self._pending
        try:
            while True:
                try:
                    return pending.get(POLL_S)
                except mp.TimeoutError:
                    pass
                interrupts.check()
                if self._closed:
                    raise ProofLost("the proof pool was closed before this claim was proved")
                quiet_s = time.monotonic() - self.last_answer
                if quiet_s > self._timeout_s + LOST_AFTER_EXTRA_S:
                    raise ProofLost(f"no proof worker answered for {quiet_s:.0f} s (a worker "
                                    "was lost)")
        except BaseException:
            # a lost worker leaves a task the pool would wait for at exit; a signal ends the run
            self.close()
            raise
        finally:
            if last:
                self.close()

    def close(self) -> None:
        """Stop every worker now (claims not yet proved are lost; their waits end; answers
        already in are still given). Closing twice is harmless."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._pool.terminate()


__all__ = ["ProofLost", "ProofPool", "context"]
