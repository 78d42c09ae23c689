"""The proofs in worker processes (`ptxconf.oracle.proofs.pool`): the same outcomes as in the
run's own process, only the claims the run will execute, and a lost worker or a closed pool
gives UNKNOWN (never a pass, never a hang)."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time

import pytest

from ptxconf.cases import execute
from ptxconf.oracle.proofs import pool as P
from ptxconf.oracle.proofs.cases import proof_cases
from ptxconf.oracle.spec import default_spec
from ptxconf.results import Status

pytest.importorskip("z3")

SPEC = default_spec()
#: A few claims of several kinds, among them refuted ones (documented discrepancies).
SAMPLE = ("swizzle_bijective", "descriptor_roundtrip", "wmma_default_stride", "base_alignment")


def _wanted(case_id: str) -> bool:
    return any(f"proof.{name}[" in case_id for name in SAMPLE)


def _outcomes(workers: int) -> dict[str, tuple[str, str, str]]:
    closers: list = []
    cases = proof_cases(SPEC, timeout_s=20, workers=workers, wanted=_wanted, closers=closers)
    try:
        done = [execute(c) for c in cases if _wanted(c.id)]
    finally:
        for close in closers:
            close()
    return {r.id: (r.status.value, r.code, r.message) for r in done}


def test_workers_prove_what_the_run_itself_proves() -> None:
    here, there = _outcomes(0), _outcomes(2)
    assert len(here) >= 20, "the sample must hold claims of every kind named"
    assert {k.split("[")[0] for k in here} == {f"proof.{n}" for n in SAMPLE}
    assert there == here


def test_the_pool_is_handed_only_the_claims_the_run_wants() -> None:
    closers: list = []
    cases = proof_cases(SPEC, timeout_s=20, workers=2, wanted=_wanted, closers=closers)
    try:
        assert len(closers) == 1, "a pool was started and its close handed to the caller"
        pool = closers[0].__self__
        handed = {c.id for c in cases if pool.has(c.id)}
        assert handed == {c.id for c in cases if _wanted(c.id)}
        assert 0 < len(handed) < len(cases)
    finally:
        closers[0]()


def test_no_pool_for_no_workers_or_one_claim() -> None:
    closers: list = []
    proof_cases(SPEC, timeout_s=20, workers=0, closers=closers)
    one = next(c.id for c in proof_cases(SPEC, timeout_s=20))
    proof_cases(SPEC, timeout_s=20, workers=4, wanted=lambda i: i == one, closers=closers)
    assert closers == []


class _Silent:
    """An answer that never comes (its worker was lost)."""

    def get(self, timeout: float) -> object:
        time.sleep(timeout)
        raise mp.TimeoutError


class _Idle:
    def terminate(self) -> None:
        pass


def test_a_claim_whose_worker_is_lost_is_unknown_not_a_hang(monkeypatch) -> None:
    monkeypatch.setattr(P, "LOST_AFTER_EXTRA_S", 0.3)
    pool = P.ProofPool(_Idle(), {"proof.x[y]": _Silent()}, timeout_s=0.2)  # type: ignore[arg-type]
    start = time.monotonic()
    with pytest.raises(P.ProofLost, match="no proof worker answered"):
        pool.result("proof.x[y]")
    assert time.monotonic() - start < 5


def test_a_closed_pool_ends_every_wait() -> None:
    pool = P.ProofPool(_Idle(), {"proof.x[y]": _Silent()}, timeout_s=60)  # type: ignore[arg-type]
    pool.close()
    with pytest.raises(P.ProofLost, match="closed"):
        pool.result("proof.x[y]")


@pytest.mark.slow
def test_a_worker_killed_mid_claim_loses_that_claim_only(monkeypatch) -> None:
    """SIGKILL the one worker while it proves: the claim it held comes back UNKNOWN
    (`proof_lost`), and every other claim is still proved by the worker put in its place."""
    monkeypatch.setattr(P, "LOST_AFTER_EXTRA_S", 1.0)

    def slow(case_id: str) -> bool:  # claims of a few tenths of a second each
        return case_id.startswith("proof.layout_injective[")

    closers: list = []
    cases = [c for c in proof_cases(SPEC, timeout_s=5, workers=1, wanted=slow, closers=closers)
             if slow(c.id)]
    assert len(cases) >= 4
    pool = closers[0].__self__
    try:
        results = [execute(cases[0])]  # one answer in: the worker is up and busy with the next
        victims = [p.pid for p in pool._pool._pool]  # noqa: SLF001 - the test reaches in to kill
        assert len(victims) == 1
        os.kill(victims[0], signal.SIGKILL)
        results += [execute(c) for c in cases[1:]]
    finally:
        closers[0]()
    lost = [r for r in results if r.code == "proof_lost"]
    assert len(lost) == 1, [(r.id, r.code) for r in results]
    assert lost[0].status is Status.UNKNOWN
    assert all(r.status in (Status.PASS, Status.DISCREPANCY) for r in results if r not in lost)
