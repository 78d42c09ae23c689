"""The proof cache: a warm rerun reuses decided outcomes, and any change to what an outcome
depends on (the claim's text, the spec, the solver, the oracle's code) asks Z3 again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("z3", reason="the proofs need z3-solver")

from ptxconf.core.cases import execute
from ptxconf.oracle.proofs.cache import ProofCache
from ptxconf.oracle.proofs.cases import claim_case, proof_cases
from ptxconf.oracle.proofs.claims import all_claims
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Unknown
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def _claim(statement: str, body: Callable[[Prover], Proved]) -> Claim:
    return Claim("cache_probe", "test:row", statement, body)


def test_a_decided_outcome_is_reused_and_says_so(tmp_path: Path) -> None:
    cache = ProofCache(SPEC, tmp_path)
    calls: list[int] = []

    def body(prover: Prover) -> Proved:
        calls.append(1)
        return Proved("holds", {"n": 3})

    first = execute(claim_case(_claim("x holds", body), 5.0, cache))
    second = execute(claim_case(_claim("x holds", body), 5.0, cache))
    assert calls == [1], "the second run asked the solver again"
    assert (first.status, first.code, first.message) == (second.status, second.code, second.message)
    assert "cached" not in first.fields
    assert second.fields["cached"] is True
    assert second.fields["facts"] == first.fields["facts"]


def test_another_statement_or_spec_is_another_key(tmp_path: Path) -> None:
    cache = ProofCache(SPEC, tmp_path)
    calls: list[str] = []

    def body(prover: Prover) -> Proved:
        calls.append("x")
        return Proved("holds")

    execute(claim_case(_claim("x holds", body), 5.0, cache))
    execute(claim_case(_claim("x holds for every k", body), 5.0, cache))
    other = ProofCache(SPEC, tmp_path)
    other.base += "\0another spec"
    execute(claim_case(_claim("x holds", body), 5.0, other))
    assert len(calls) == 3


def test_unknown_is_never_kept(tmp_path: Path) -> None:
    cache = ProofCache(SPEC, tmp_path)
    calls: list[int] = []

    def body(prover: Prover) -> Proved:
        calls.append(1)
        raise Unknown("timeout")

    for _ in range(2):
        r = execute(claim_case(_claim("undecided", body), 5.0, cache))
        assert r.code == "proof_unknown"
    assert calls == [1, 1]


def test_a_real_claim_round_trips(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    claim = next(c for c in all_claims(SPEC) if c.name == "swizzle_bijective")
    cold = [execute(c) for c in proof_cases(SPEC, timeout_s=20, cache=True) if c.id == claim.id]
    warm = [execute(c) for c in proof_cases(SPEC, timeout_s=20, cache=True) if c.id == claim.id]
    assert len(cold) == len(warm) == 1
    assert warm[0].fields.get("cached")
    assert not cold[0].fields.get("cached")
    assert (cold[0].status, cold[0].message) == (warm[0].status, warm[0].message)


def test_the_gpu_lanes_take_distinguishing_probes_from_the_proofs_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the proofs provider cached, distinguishing_probes reads back instead of asking Z3
    again (a GPU lane in a warm run); the probes are the same as proved afresh."""
    from ptxconf.oracle.proofs import distinguish

    fresh = distinguish.distinguishing_probes(SPEC)
    cache = ProofCache(SPEC, tmp_path)
    stored = [execute(claim_case(c, 20.0, cache)) for c in distinguish.claims(SPEC)]
    assert all(r.status.value == "pass" for r in stored)

    def no_solver(*_: object, **__: object) -> None:
        raise AssertionError("asked Z3 although the outcome was cached")

    monkeypatch.setattr(distinguish, "prove", no_solver)
    assert distinguish.distinguishing_probes(SPEC, cache=cache) == fresh
    other = ProofCache(SPEC, tmp_path / "empty")
    with pytest.raises(AssertionError, match="asked Z3"):
        distinguish.distinguishing_probes(SPEC, cache=other)
