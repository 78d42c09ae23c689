"""The proof cache: a warm rerun reuses decided outcomes, and any change to what an outcome
depends on (the claim's text, the spec, the solver, the oracle's code) asks Z3 again. A cache
is input from outside (CI systems share them): a tampered, forged, undecided, oversized or
non-regular entry is rejected, the claim proved again and the rejection named; a claim with a
known finding is always proved."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("z3", reason="the proofs need z3-solver")

from ptxconf.core.cases import execute
from ptxconf.oracle.proofs.cache import MAX_ENTRY_BYTES, ProofCache
from ptxconf.oracle.proofs.cases import KNOWN_REFUTED, claim_case, proof_cases
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


# --- a cache is input from outside: every entry is checked before it is used ----------------


def _refuted(prover: Prover) -> Proved:
    from ptxconf.oracle.proofs.runner import Refuted

    raise Refuted("x fails at 3", {"x": 3})


def _entry(cache: ProofCache, claim: Claim, timeout_s: float = 5.0) -> Path:
    return cache._path(claim.id, claim.statement, timeout_s)


def _run_twice(tmp_path: Path, tamper: Callable[[Path, Claim, ProofCache], None]
               ) -> tuple[object, object, list[int]]:
    """A refuted claim proved into a fresh cache, its entry tampered with, then run again:
    (fresh result, rerun result, solver calls)."""
    cache = ProofCache(SPEC, tmp_path)
    calls: list[int] = []

    def body(prover: Prover) -> Proved:
        calls.append(1)
        return _refuted(prover)

    claim = _claim("x holds for every x", body)
    fresh = execute(claim_case(claim, 5.0, cache))
    tamper(_entry(cache, claim), claim, cache)
    again = execute(claim_case(claim, 5.0, ProofCache(SPEC, tmp_path)))
    return fresh, again, calls


def _rewrite(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(("name", "tamper", "why"), [
    ("relabelled as proved", lambda p, c, s: _rewrite(p, proof_status="proved",
                                                     fields={"proof_status": "proved"}),
     "digest does not match"),
    ("status alone relabelled", lambda p, c, s: _rewrite(p, proof_status="proved"),
     "its fields state another proof status"),
    ("message edited", lambda p, c, s: _rewrite(p, message="x holds"), "digest does not match"),
    ("an undecided status, digest recomputed", lambda p, c, s: _forge(p, c, s, "unknown"),
     "is not one of ['proved', 'refuted']"),
    ("a skip, digest recomputed", lambda p, c, s: _forge(p, c, s, "skip"), "is not one of"),
    ("the earlier version's shape", lambda p, c, s: p.write_text(json.dumps(
        {"id": c.id, "status": "skip", "code": "x", "message": "m", "fields": {}})),
     "not a version-2 entry"),
    ("not JSON", lambda p, c, s: p.write_text("{"), "Expecting"),
    ("too large", lambda p, c, s: p.write_bytes(b" " * (MAX_ENTRY_BYTES + 1)), "more than"),
    ("a FIFO", lambda p, c, s: (p.unlink(), os.mkfifo(p)), "not a regular file"),
    ("a symlink to /dev/zero", lambda p, c, s: (p.unlink(), p.symlink_to("/dev/zero")),
     "a symlink"),
    ("a directory", lambda p, c, s: (p.unlink(), p.mkdir()), "not a regular file"),
])
def test_a_tampered_entry_is_rejected_and_the_claim_proved_again(
        tmp_path: Path, name: str, tamper: Callable[[Path, Claim, ProofCache], None],
        why: str) -> None:
    fresh, again, calls = _run_twice(tmp_path, tamper)
    assert calls == [1, 1], f"{name}: the entry was used"
    assert (again.status, again.code, again.message) == (fresh.status, fresh.code, fresh.message)
    assert "cached" not in again.fields
    assert why in again.fields["cache_rejected"], again.fields["cache_rejected"]


def _forge(path: Path, claim: Claim, cache: ProofCache, status: str) -> None:
    """An entry written as the cache writes one (a valid digest), with another status."""
    from ptxconf.oracle.proofs import cache as C

    key = path.stem
    body = {"id": claim.id, "statement": claim.statement, "proof_status": status,
            "message": "forged", "fields": {"proof_status": status}}
    path.write_text(json.dumps({"version": C.CACHE_VERSION, **body, "digest": C._digest(key, body)}))


def test_an_entry_copied_to_another_claims_key_is_rejected(tmp_path: Path) -> None:
    cache = ProofCache(SPEC, tmp_path)
    proved = _claim("y holds", lambda prover: Proved("holds"))
    refuted = _claim("y fails somewhere", _refuted)
    execute(claim_case(proved, 5.0, cache))
    execute(claim_case(refuted, 5.0, cache))
    _entry(cache, refuted).write_bytes(_entry(cache, proved).read_bytes())
    r = execute(claim_case(refuted, 5.0, ProofCache(SPEC, tmp_path)))
    assert r.fields["proof_status"] == "refuted"
    assert r.fields["cache_rejected"] == "it answers another claim"


def test_an_entry_states_a_proof_status_and_the_claim_gives_the_verdict(tmp_path: Path) -> None:
    """A refutation kept for a claim about a document is a discrepancy, for a claim about the
    oracle a failure: what the entry holds is the proof's status, not the verdict."""
    cache = ProofCache(SPEC, tmp_path)
    documented = _claim("z holds", _refuted)
    execute(claim_case(documented, 5.0, cache))
    about_oracle = Claim("cache_probe", "test:row", "z holds", _refuted, documented=False)
    r = execute(claim_case(about_oracle, 5.0, cache))
    assert r.fields["cached"] is True
    assert (r.status.value, r.code) == ("fail", "refuted_oracle")


def test_a_claim_with_a_known_finding_is_proved_whatever_the_cache_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A forged "proved" entry with a valid digest (written by someone who knows the format)
    for the K_SW32 injectivity finding: the claim is proved again and the finding stands; the
    refutation then kept is what a warm rerun uses (nothing proved again)."""
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    finding_ids = set(SPEC.findings.by_case)
    claim = next(c for c in all_claims(SPEC)
                 if c.id in finding_ids and c.id.startswith("proof.layout_injective["))
    store = ProofCache(SPEC)
    path = store._path(claim.id, claim.statement, 20)
    path.parent.mkdir(parents=True, exist_ok=True)
    _forge(path, claim, store, "proved")
    (case,) = [c for c in proof_cases(SPEC, timeout_s=20, cache=True) if c.id == claim.id]
    r = SPEC.findings.judge(execute(case))
    assert r.fields["proof_status"] == "refuted"
    assert "cached" not in r.fields
    assert r.fields["cache_rejected"] == KNOWN_REFUTED
    assert r.code == "finding_known", (r.code, r.message)
    (case,) = [c for c in proof_cases(SPEC, timeout_s=20, cache=True) if c.id == claim.id]
    warm = SPEC.findings.judge(execute(case))
    assert (warm.fields.get("cached"), warm.code) == (True, "finding_known")


def test_prove_names_the_entries_it_did_not_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                cli: Callable[..., tuple[int, str, str]]) -> None:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    only = "proof.swizzle_bijective[wgmma/canonical_layouts:K_SW128]"
    code, _, _ = cli("prove", "--only", only, "--proof-workers", "0")
    assert code == 0
    (entry,) = (tmp_path / "proofs").glob("*.json")
    entry.unlink()
    os.mkfifo(entry)
    code, out, err = cli("prove", "--only", only, "--proof-workers", "0")
    assert code == 0, err
    assert out.splitlines()[-1] == (f"proof cache: 1 entry rejected and proved again: {only} "
                                    "(not a regular file)"), out


def test_with_a_cache_key_an_entry_written_without_it_is_rejected(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$PTXCONF_CACHE_KEY signs the entries: one forged with a plain digest (all a planter
    without the secret can compute) is rejected; one written under the key is used."""
    from ptxconf.oracle.proofs.cache import KEY_ENV

    monkeypatch.delenv(KEY_ENV, raising=False)
    fresh, again, calls = _run_twice(tmp_path / "plain", lambda p, c, s: _forge(p, c, s, "refuted"))
    assert calls == [1], "without a key, a well-formed entry is used"
    monkeypatch.setenv(KEY_ENV, "a CI secret")
    fresh, again, calls = _run_twice(tmp_path / "keyed", lambda p, c, s: _forge_unkeyed(p, c, s))
    assert calls == [1, 1]
    assert "digest does not match" in again.fields["cache_rejected"]
    _, _, calls = _run_twice(tmp_path / "signed", lambda p, c, s: None)
    assert calls == [1], "an entry written under the key is used"


def _forge_unkeyed(path: Path, claim: Claim, cache: ProofCache) -> None:
    """`_forge` as one who lacks the key writes it: with no $PTXCONF_CACHE_KEY in sight."""
    from ptxconf.oracle.proofs.cache import KEY_ENV

    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(KEY_ENV, raising=False)
        _forge(path, claim, cache, "proved")
