"""The proof cache: a warm rerun reuses decided outcomes, and any change to what an outcome
depends on (the claim's text, the spec, the solver, the oracle's code) asks Z3 again. A cache
is input from outside (CI systems share them): a tampered, forged, undecided, oversized or
non-regular entry is rejected, the claim proved again and the rejection named; a claim with a
known finding is always proved."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("z3", reason="the proofs need z3-solver")

from ptxconf.core.cases import execute
from ptxconf.oracle.proofs.cache import MAX_ENTRY_BYTES, ProofCache
from ptxconf.oracle.proofs.cases import (
    KNOWN_REFUTED,
    NO_RECHECK,
    claim_case,
    proof_cases,
    verify_sample,
)
from ptxconf.oracle.proofs.claims import all_claims
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Unknown
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def _x_is_3(cex: dict[str, object]) -> str | None:
    """The probe claims' concrete re-check: their counterexample is x = 3."""
    return None if cex.get("x") == 3 else f"x = {cex.get('x')!r} satisfies the claim"


def _claim(statement: str, body: Callable[[Prover], Proved]) -> Claim:
    return Claim("cache_probe", "test:row", statement, body, recheck=_x_is_3)


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


@pytest.mark.parametrize("searches", [
    pytest.param("one of each", id="one-of-each"),
    pytest.param("every", id="every", marks=pytest.mark.slow(
        reason="all 43 searches proved (seconds); [one-of-each] reads back a search of each "
               "hypothesis by default"))])
def test_the_gpu_lanes_take_distinguishing_probes_from_the_proofs_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, searches: str) -> None:
    """What the proofs provider cached, distinguishing_probes reads back instead of asking Z3
    again (a GPU lane in a warm run); the probes are the same as proved afresh (the provider's
    own proofs, which distinguishing_probes turns into probes as it turns its own). By default
    the first search of each hypothesis (swizzle unit, base offset, LBO/SBO roles)."""
    from ptxconf.oracle.proofs import distinguish
    from ptxconf.oracle.proofs import runner as proof_runner

    if searches == "one of each":
        first = list({c.id.split("[")[0]: c for c in reversed(list(distinguish.claims(SPEC)))}.values())
        assert len(first) == 3, [c.id for c in first]
        monkeypatch.setattr(distinguish, "claims", lambda spec: iter(first))
    proved: dict[str, object] = {}
    solve = proof_runner.prove
    monkeypatch.setattr(proof_runner, "prove",
                        lambda claim, **kw: proved.setdefault(claim.id, solve(claim, **kw)))
    cache = ProofCache(SPEC, tmp_path)
    stored = [execute(claim_case(c, 20.0, cache)) for c in distinguish.claims(SPEC)]
    assert all(r.status.value == "pass" for r in stored)
    assert len(proved) == len(stored)
    monkeypatch.setattr(distinguish, "prove", lambda claim, **kw: proved[claim.id])
    fresh = distinguish.distinguishing_probes(SPEC)

    def no_solver(*_: object, **__: object) -> None:
        raise AssertionError("asked Z3 although the outcome was cached")

    monkeypatch.setattr(distinguish, "prove", no_solver)
    assert distinguish.distinguishing_probes(SPEC, cache=cache) == fresh
    other = ProofCache(SPEC, tmp_path / "empty")
    with pytest.raises(AssertionError, match="asked Z3"):
        distinguish.distinguishing_probes(SPEC, cache=other)


def test_a_search_a_gpu_lane_proves_is_kept_as_the_provider_keeps_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """distinguishing_probes keeps what it proves: the proofs provider's cases then take those
    searches from the cache, with the verdicts a run without cache gives (two searches)."""
    import itertools

    from ptxconf.oracle.proofs import distinguish

    first = list(itertools.islice(distinguish.claims(SPEC), 2))
    monkeypatch.setattr(distinguish, "claims", lambda spec: iter(first))
    cache = ProofCache(SPEC, tmp_path)
    assert len(distinguish.distinguishing_probes(SPEC, cache=cache)) == 2
    kept = [execute(claim_case(c, 20.0, cache)) for c in first]
    assert [r.fields.get("cached") for r in kept] == [True, True]
    fresh = [execute(claim_case(c, 20.0)) for c in first]
    assert [(r.status, r.code, r.message) for r in kept] == [(r.status, r.code, r.message) for r in fresh]


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


def _forge(path: Path, claim: Claim, cache: ProofCache, status: str,
           fields: dict[str, object] | None = None) -> None:
    """An entry written as the cache writes one (a valid digest), with another status (and
    ``fields``: what the forger puts there)."""
    from ptxconf.oracle.proofs import cache as C

    key = path.stem
    body = {"id": claim.id, "statement": claim.statement, "proof_status": status,
            "message": "forged", "fields": {**(fields or {}), "proof_status": status}}
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
    about_oracle = Claim("cache_probe", "test:row", "z holds", _refuted, documented=False,
                         recheck=_x_is_3)
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
    fresh, again, calls = _run_twice(tmp_path / "plain", lambda p, c, s: _forge(
        p, c, s, "refuted", {"counterexample": {"x": 3}}))
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


# --- a cached refutation is re-checked concretely; a sample of cached outcomes proved again -


def test_a_refutation_whose_counterexample_does_not_hold_is_proved_again(tmp_path: Path) -> None:
    """A forged refutation with a valid digest: the claim evaluates its counterexample, finds
    it is none, and proves the claim (which holds) again."""
    cache = ProofCache(SPEC, tmp_path)
    calls: list[int] = []

    def holds(prover: Prover) -> Proved:
        calls.append(1)
        return Proved("x holds")

    claim = _claim("x holds for every x", holds)
    _entry(cache, claim).parent.mkdir(parents=True, exist_ok=True)
    _forge(_entry(cache, claim), claim, cache, "refuted", {"counterexample": {"x": 4}})
    r = execute(claim_case(claim, 5.0, ProofCache(SPEC, tmp_path)))
    assert (r.status.value, r.fields["proof_status"], calls) == ("pass", "proved", [1])
    assert r.fields["cache_rejected"] == ("a refutation whose counterexample does not hold: "
                                          "x = 4 satisfies the claim")


def test_a_refutation_is_kept_only_where_the_claim_can_re_check_it(tmp_path: Path) -> None:
    """A claim with no concrete re-check: its refutation is not kept, and a forged one is not
    used."""
    cache = ProofCache(SPEC, tmp_path)
    claim = Claim("cache_probe", "test:row", "w holds", _refuted)
    execute(claim_case(claim, 5.0, cache))
    assert not _entry(cache, claim).exists()
    _forge(_entry(cache, claim), claim, cache, "refuted", {"counterexample": {"x": 3}})
    r = execute(claim_case(claim, 5.0, ProofCache(SPEC, tmp_path)))
    assert r.fields["cache_rejected"] == NO_RECHECK
    assert "cached" not in r.fields


KnownCollision = Callable[[str], tuple[Claim, dict[str, object]]]


@pytest.fixture(scope="module")
def known_collision() -> KnownCollision:
    """A real claim whose known finding is a collision, and its fresh counterexample (each
    proved once a module; a copy each call)."""
    proved: dict[str, tuple[Claim, dict[str, object]]] = {}

    def get(name: str) -> tuple[Claim, dict[str, object]]:
        if name not in proved:
            claim = next(c for c in all_claims(SPEC) if c.id.startswith(f"proof.{name}[")
                         and c.id in SPEC.findings.by_case)
            fresh = execute(claim_case(claim, 20.0))
            assert fresh.fields["proof_status"] == "refuted"
            proved[name] = claim, dict(fresh.fields)
        return proved[name][0], copy.deepcopy(proved[name][1])

    return get


def _moved(points: list[dict[str, object]], key: str, by: int) -> list[dict[str, object]]:
    return [{**points[0], key: int(points[0][key]) + by}, points[1]]  # type: ignore[call-overload]


@pytest.mark.parametrize("name", ["layout_injective", "example_injective"])
def test_a_known_collision_is_used_only_where_its_two_points_collide(
        tmp_path: Path, name: str, known_collision: KnownCollision) -> None:
    """The real collisions of the K-major findings: the kept entry passes its re-check and is
    used; moved points, one point twice, a point past the layout or addresses that are not the
    oracle's each fail it, and an entry holding them (digest valid: a forger who knows the
    format) is not used: the claim is proved again to the same counterexample."""
    claim, fields = known_collision(name)
    cex = fields["counterexample"]
    assert isinstance(cex, dict)
    points = cex["points"]
    assert claim.recheck is not None
    assert claim.recheck(cex) is None
    bad = {
        "moved": _moved(points, "k", 1),
        "the same point twice": [points[0], points[0]],
        "past the layout": _moved(points, "mn", 10**6),
        "another address": [{**p, "address": "0x000"} for p in points],
        "not points": "0x20",
    }
    says = {"moved": "different addresses", "the same point twice": "two different points",
            "past the layout": "outside the layout", "another address": "not the ones the oracle",
            "not points": "does not name two points"}
    for what, pts in bad.items():
        why = claim.recheck({**cex, "points": pts})
        assert why is not None, what
        assert says[what] in why, (what, why)
    # the run itself: a forged entry with moved points is not used, the claim is proved again
    store = ProofCache(SPEC, tmp_path)
    path = _entry(store, claim, 20.0)
    _forge(path, claim, store, "refuted", {**fields, "counterexample": {**cex, "points": bad["moved"]}})
    r = execute(claim_case(claim, 20.0, ProofCache(SPEC, tmp_path), known_refuted=True))
    assert "cached" not in r.fields
    assert r.fields["cache_rejected"].startswith("a refutation whose counterexample does not hold")
    assert r.fields["counterexample"] == cex
    kept = execute(claim_case(claim, 20.0, ProofCache(SPEC, tmp_path), known_refuted=True))
    assert (kept.fields.get("cached"), kept.fields["counterexample"]) == (True, cex)


def test_a_collision_only_at_a_zero_repeat_step_is_not_a_core_collision(
        known_collision: KnownCollision) -> None:
    """K_SW32's finding is a collision inside one repeat of the core, so it holds for every
    LBO/SBO. Two points one MN repeat apart also share an address at LBO = SBO = 0 (the step is
    0), but not for other SBO: the re-check refuses them."""
    claim, fields = known_collision("layout_injective")
    cex = fields["counterexample"]
    assert isinstance(cex, dict)
    assert claim.recheck is not None
    start = {"mn": 0, "k": 0, "row": 0, "chunk": 0, "address": "0x000"}
    apart = {**start, "mn": 8, "row": 8}
    why = claim.recheck({**cex, "m": 2, "points": [start, apart]})
    assert why == "its two points differ in a repeat (LBO/SBO) coordinate", why


def test_verify_cache_proves_cached_outcomes_again_and_names_a_forged_one(tmp_path: Path) -> None:
    """A forged proof of a claim that fails (valid digest, a claim with no known finding): a
    plain warm run uses it; `verify_fraction` proves it again, the fresh refutation stands and
    the entry is named."""
    cache = ProofCache(SPEC, tmp_path)
    claim = _claim("v holds", _refuted)
    _entry(cache, claim).parent.mkdir(parents=True, exist_ok=True)
    _forge(_entry(cache, claim), claim, cache, "proved")
    used = execute(claim_case(claim, 5.0, ProofCache(SPEC, tmp_path)))
    assert (used.status.value, used.fields.get("cached")) == ("pass", True)
    checked = execute(claim_case(claim, 5.0, ProofCache(SPEC, tmp_path), verify=True))
    assert checked.fields["proof_status"] == "refuted"
    assert checked.fields["cache_verified"] == "disagrees"
    assert checked.fields["cache_rejected"] == "a fresh proof says refuted, the entry proved"
    again = execute(claim_case(claim, 5.0, ProofCache(SPEC, tmp_path), verify=True))
    assert again.fields["cache_verified"] == "agrees"
    assert "cache_rejected" not in again.fields


def test_the_verify_sample_is_drawn_by_its_seed() -> None:
    ids = [f"proof.c[{i}]" for i in range(40)]
    assert verify_sample(ids, 0.25, 7) == verify_sample(list(reversed(ids)), 0.25, 7)
    assert len(verify_sample(ids, 0.25, 7)) == 10
    assert verify_sample(ids, 0.25, 7) != verify_sample(ids, 0.25, 8)
    assert verify_sample(ids, 0.001, 1)
    assert verify_sample(ids, 1.0, 1) == set(ids)
    assert verify_sample(ids, 0.0, 1) == set()


@pytest.mark.parametrize("command", ["prove", "check"])
def test_verify_cache_says_how_many_it_proved_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str,
        cli: Callable[..., tuple[int, str, str]]) -> None:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    only = "proof.swizzle_bijective[wgmma/canonical_layouts:K_SW"
    argv = [command, "--only", only, "--proof-workers", "0",
            *(["--gpu", "off", "--report-dir", str(tmp_path / "run")] if command == "check" else [])]
    code, _, _ = cli(*argv)
    assert code == 0
    code, out, err = cli(*argv, "--verify-cache", "1", "--verify-seed", "5")
    assert code == 0, err
    assert ("proof cache: 3 cached outcomes proved again to verify them (--verify-seed 5): "
            "every fresh proof agrees") in out.splitlines(), out
    if command == "check":
        meta = json.loads((tmp_path / "run" / "results.json").read_text())["meta"]
        assert meta["verify_cache"] == {"fraction": 1.0, "seed": 5}


@pytest.mark.parametrize(("argv", "said"), [
    (["--verify-cache", "0"], "expected a fraction in (0, 1], got '0'"),
    (["--verify-cache", "1.5"], "expected a fraction in (0, 1], got '1.5'"),
    (["--verify-cache", "nan"], "expected a fraction in (0, 1], got 'nan'"),
    (["--verify-seed", "-1"], "expected a count (0 or more), got '-1'"),
    (["--verify-cache", "1", "--no-cache"], "--verify-cache checks the proof cache, which "
                                            "--no-cache leaves unused"),
])
@pytest.mark.parametrize("command", ["prove", "check"])
def test_a_verify_option_that_cannot_apply_is_refused_in_one_line(
        command: str, argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    from ptxconf.app.cli import main

    try:
        code = main([command, "--only", "no-such-case", *argv])
    except SystemExit as stop:  # argparse's refusal of an option's value
        code = int(stop.code or 0)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert said in err, err
    assert "Traceback" not in err
