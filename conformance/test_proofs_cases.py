"""The proofs as cases (oracle/proofs/cases.py): the provider hands the claims the run wants to one
proof pool and its close to the run; a claim whose worker was lost is UNKNOWN, never a pass.

No process is started: a stand-in takes ProofPool's place (cases.py's docstring: proved -> PASS
"ok"; refuted -> DISCREPANCY "refuted"; a body that raises -> FAIL "raised"; a claim whose
worker was lost -> UNKNOWN "proof_lost"; with workers > 0, the wanted claims (by id, in
`all_claims` order) go to `ProofPool.start(spec, ids, timeout_s, min(workers, len(ids)))` when
there are two or more, and the pool's `close` goes on the caller's ``closers``)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from case_outcomes import expect_fields

from ptxconf.core.cases import execute
from ptxconf.core.context import RunContext
from ptxconf.core.results import Status
from ptxconf.oracle.proofs import cases as proof_cases_mod
from ptxconf.oracle.proofs import wmma_rules
from ptxconf.oracle.proofs.cases import claim_case
from ptxconf.oracle.proofs.claims import all_claims
from ptxconf.oracle.proofs.pool import ProofLost, ProofPool
from ptxconf.oracle.spec import Spec, default_spec

pytest.importorskip("z3")

TIMEOUT_S = 30.0
ROWS = "wmma/default_strides"
M16 = "proof.wmma_default_stride[wmma/default_strides:m16n16k16"


@pytest.fixture(scope="module")
def spec() -> Spec:
    return default_spec()


class _FakePool:
    """Stands in for ProofPool in cases.py: records how it was started; starts nothing."""

    started: list[_FakePool] = []

    def __init__(self, spec: Spec, ids: Sequence[str], timeout_s: float, workers: int) -> None:
        self.args = (spec, list(ids), timeout_s, workers)
        self.closed = 0

    @classmethod
    def start(cls, spec: Spec, ids: Sequence[str], timeout_s: float, workers: int) -> _FakePool:
        pool = cls(spec, ids, timeout_s, workers)
        cls.started.append(pool)
        return pool

    def has(self, claim_id: str) -> bool:
        return claim_id in self.args[1]

    def close(self) -> None:
        self.closed += 1


def test_provider_hands_its_pool_close_to_the_run(spec: Spec,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """provider_cases, one worker, two wanted claims: one pool of both, its close on closers."""
    from ptxconf.oracle.proofs import pool as pool_mod

    monkeypatch.setattr(pool_mod, "ProofPool", _FakePool)
    monkeypatch.setattr(_FakePool, "started", [])
    # all_claims yields each wmma row's claims matrix a then b, layout row then col
    wanted = [f"{M16}.a.row]", f"{M16}.a.col]"]
    ctx = RunContext(proof_timeout_s=TIMEOUT_S, proof_cache=False, proof_workers=1,
                     wanted=set(wanted).__contains__)
    got = proof_cases_mod.provider_cases(spec, ctx)
    assert len(_FakePool.started) == 1, "one pool for the two wanted claims"
    pool = _FakePool.started[0]
    # one worker: min(workers 1, 2 claims); the ids in the order the claims are built
    assert pool.args == (spec, wanted, TIMEOUT_S, 1)
    assert ctx.closers == [pool.close]
    assert pool.closed == 0, "closing is the run's, when it ends"
    assert [c.id for c in got] == [c.id for c in all_claims(spec)]


class _LostPool(ProofPool):
    """A pool that was handed every claim and lost each one (as when its worker died)."""

    def __init__(self) -> None:  # no workers: nothing to start
        pass

    def has(self, claim_id: str) -> bool:
        return True

    def result(self, claim_id: str) -> object:
        raise ProofLost("the proof worker (pid 1) died while proving this claim")


def test_a_lost_claim_is_unknown_with_its_statement(spec: Spec) -> None:
    """A claim its worker lost: UNKNOWN proof_lost, proof_status "unknown", no counterexample."""
    key = f"{ROWS}:m16n16k16.a.row"
    claim = next(c for c in wmma_rules.claims(spec) if c.id == f"{M16}.a.row]")
    got = execute(claim_case(claim, TIMEOUT_S, pool=_LostPool()))
    expect_fields(got, Status.UNKNOWN, "proof_lost", proof_status="unknown",
                  statement=f"{key}: the default stride is the leading dimension",
                  counterexample=None, reproduce_python=None)
    assert "the proof worker (pid 1) died" in got.message, got.message
