"""The proofs in worker processes (`ptxconf.oracle.proofs.pool`): the same outcomes as in the
run's own process, only the claims the run will execute, and a lost worker or a closed pool
gives UNKNOWN (never a pass, never a hang)."""

from __future__ import annotations

import os
import signal
import time

import pytest

from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.oracle.proofs import pool as P
from ptxconf.oracle.proofs.cases import proof_cases
from ptxconf.oracle.proofs.claims import all_claims
from ptxconf.oracle.spec import default_spec

pytest.importorskip("z3")

SPEC = default_spec()
#: A few claims of several kinds, among them refuted ones (documented discrepancies): every
#: claim of each kind but the 42 wmma default strides, of which the first few (one shape's).
SAMPLE = ("swizzle_bijective", "descriptor_roundtrip", "wmma_default_stride", "base_alignment")
FEW_OF = {"wmma_default_stride": 6}
_IDS = [c.id for c in all_claims(SPEC)]
_FIRST = {name: set([i for i in _IDS if i.startswith(f"proof.{name}[")][:n])
          for name, n in FEW_OF.items()}


def _wanted(case_id: str) -> bool:
    return any(f"proof.{name}[" in case_id and (name not in _FIRST or case_id in _FIRST[name])
               for name in SAMPLE)


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


def _slow(case_id: str) -> bool:  # claims of a few tenths of a second each
    return case_id.startswith("proof.layout_injective[")


def _slow_cases(closers: list, timeout_s: float = 5) -> list:
    cases = [c for c in proof_cases(SPEC, timeout_s=timeout_s, workers=1, wanted=_slow,
                                    closers=closers) if _slow(c.id)]
    assert len(cases) >= 4
    return cases


def test_a_closed_pool_ends_every_wait() -> None:
    closers: list = []
    cases = _slow_cases(closers)
    pool = closers[0].__self__
    pool.close()
    start = time.monotonic()
    results = [execute(c) for c in cases]
    assert time.monotonic() - start < 5
    assert {r.code for r in results} <= {"proof_lost", "ok", "refuted"}
    assert all(r.status is Status.UNKNOWN for r in results if r.code == "proof_lost")
    assert any(r.code == "proof_lost" for r in results)
    pids = pool.worker_pids()
    assert pids, "the closed pool's workers are gone"
    assert not any(_alive(pid) for pid in pids), "the closed pool's workers are gone"


def test_a_proof_that_raises_in_a_worker_raises_its_own_error_here() -> None:
    pool = P.ProofPool.start(SPEC, ["proof.no_such_claim[x]"], timeout_s=5, workers=1)
    with pytest.raises(KeyError, match="no_such_claim"):
        pool.result("proof.no_such_claim[x]")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is not alive
        return stat.read().split(") ")[1][0] != "Z"


#: Each claim's budget in the lost-worker tests: ample on a loaded machine (Z3's timeout is wall
#: time, and a claim that runs out of it is UNKNOWN, which those tests count as lost).
LOADED_BUDGET_S = 20.0


def _one_answer_then(sig: int, monkeypatch, extra_s: float) -> tuple[list, float]:
    """Prove the slow claims with one worker; once the first answer is in (the worker is
    busy with the next), send it `sig`; the results, and how long the rest took."""
    monkeypatch.setattr(P, "LOST_AFTER_EXTRA_S", extra_s)
    closers: list = []
    cases = _slow_cases(closers, timeout_s=LOADED_BUDGET_S)
    pool = closers[0].__self__
    try:
        results = [execute(cases[0])]
        victims = pool.worker_pids()
        assert len(victims) == 1
        os.kill(victims[0], sig)
        start = time.monotonic()
        results += [execute(c) for c in cases[1:]]
        took = time.monotonic() - start
    finally:
        closers[0]()
    assert not _alive(victims[0]), "the lost worker was not left behind"
    return results, took


def _lost_one_only(results: list) -> None:
    lost = [r for r in results if r.code == "proof_lost"]
    assert len(lost) == 1, [(r.id, r.code) for r in results]
    assert lost[0].status is Status.UNKNOWN
    assert all(r.status in (Status.PASS, Status.DISCREPANCY) for r in results if r not in lost)


@pytest.mark.slow(reason="proves the slow claims with one worker (seconds): a lost worker's "
                          "claim is covered by default by test_a_closed_pool_ends_every_wait "
                          "(proof_lost, UNKNOWN) and the dispatcher's unit tests "
                          "(test_oracle_mutants_proofs_pool.py)")
def test_a_worker_killed_mid_claim_loses_that_claim_only(monkeypatch) -> None:
    """SIGKILL the one worker while it proves: the claim it held comes back UNKNOWN
    (`proof_lost`) at once, and every other claim is still proved by the worker put in its
    place. (A `multiprocessing.Pool` worker killed so could leave its queue's lock held and
    the whole run waiting forever.)"""
    results, _ = _one_answer_then(signal.SIGKILL, monkeypatch, extra_s=600.0)
    _lost_one_only(results)


@pytest.mark.slow(reason="waits out a 20 s budget: covered by default by "
                          "test_a_closed_pool_ends_every_wait and the dispatcher's unit tests")
def test_a_worker_that_stops_answering_is_killed_and_loses_its_claim_only(monkeypatch) -> None:
    """SIGSTOP the one worker: past its claim's budget (LOADED_BUDGET_S) and the extra (1 s) it
    is killed, the claim is UNKNOWN, and a new worker proves the rest."""
    results, took = _one_answer_then(signal.SIGSTOP, monkeypatch, extra_s=1.0)
    _lost_one_only(results)
    assert took > LOADED_BUDGET_S, "the stopped worker was given its budget"
    lost = next(r for r in results if r.code == "proof_lost")
    assert "gave no answer" in lost.message
