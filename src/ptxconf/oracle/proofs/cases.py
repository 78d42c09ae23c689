"""Claims as check-runner cases: one Case per claim per spec row, id ``proof.<claim>[<row key>]``.

Status mapping: proved -> PASS; refuted -> DISCREPANCY when the claim is about a documented
fact (a table, a figure, a formula), FAIL when it is about the oracle itself; unknown -> UNKNOWN
(never passes). A body that raises (the encoding disagreeing with the oracle, a malformed row)
is FAIL with proof_status "error". Fields carry proof_status, counterexample, reproduce_python
(a one-line Python call printing the counterexample's addresses; `reproduce` where the line is a
`ptxconf` command; a report adds the `ptxconf` commands, ptxconf.app.reproduce), the statement
proved, the facts found, and for an expected
refutation its explanation (finding).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ptxconf.core.cases import Case, Outcome, case, execute
from ptxconf.core.results import Result, Status
from ptxconf.oracle.proofs import listing
from ptxconf.oracle.proofs.cache import ProofCache
from ptxconf.oracle.spec import Spec

if TYPE_CHECKING:  # the solver's modules (Z3): imported where a claim is proved or pooled
    from ptxconf.oracle.proofs.pool import ProofPool
    from ptxconf.oracle.proofs.runner import Claim, ProofResult

PROVIDER = "proofs"


def outcome_of(claim: Claim, pr: ProofResult) -> Outcome:
    """A proof's result as an outcome: proved -> PASS; refuted -> DISCREPANCY (a documented
    claim) or FAIL (a claim about the oracle); unknown -> UNKNOWN."""
    return _verdict(claim, pr.status, pr.reason, pr.fields())


def _verdict(claim: Claim, proof_status: str, message: str, fields: dict[str, Any]) -> Outcome:
    """The case's verdict from a proof status and the claim alone (a cached outcome's too)."""
    if proof_status == "proved":
        return Outcome(Status.PASS, "ok", message, fields)
    if proof_status == "unknown":
        return Outcome(Status.UNKNOWN, "proof_unknown", message, fields)
    if claim.documented:
        return Outcome(Status.DISCREPANCY, "refuted", message, fields)
    return Outcome(Status.FAIL, "refuted_oracle", message, fields)


#: Why a cached outcome of a claim with a known finding is not used: the finding records a
#: refutation, so a cached proof can only be a forged or stale entry.
KNOWN_REFUTED = "a proof of a claim whose known finding is a refutation"
#: Why a cached refutation of a claim that cannot re-check its counterexample is not used.
NO_RECHECK = "a refutation the claim cannot re-check concretely"


def usable(cache: ProofCache, claim: Claim, timeout_s: float, known_refuted: bool,
           count: bool = True) -> tuple[dict[str, Any] | None, str | None]:
    """(a cached outcome the run may use, or None; why a stored one is not used, or None).

    Past the entry's own checks (ProofCache): a cached refutation is used only when the
    claim re-checks its counterexample concretely and it holds (so an entry cannot make a
    proved claim a discrepancy), and a claim with a known finding takes only a refutation
    (so an entry cannot turn a finding into a pass). ``count``: the case itself asks (a
    rejection goes on the cache's `rejected`); a planner peeks."""
    hit, why = cache.peek(claim.id, claim.statement, timeout_s)
    if hit is not None:
        why = _unusable(claim, hit, known_refuted)
    if count and why is not None:
        cache.rejected.append((claim.id, why))
    return (hit, None) if why is None else (None, why)


def _unusable(claim: Claim, hit: dict[str, Any], known_refuted: bool) -> str | None:
    """Why a well-formed cached outcome may not be used for this claim, or None."""
    if known_refuted and hit["proof_status"] != "refuted":
        return KNOWN_REFUTED
    if hit["proof_status"] != "refuted":
        return None
    cex = hit["fields"].get("counterexample")
    if claim.recheck is None:
        return NO_RECHECK
    if not isinstance(cex, dict):
        return "a refutation with no counterexample"
    bad = claim.recheck(cex)
    return None if bad is None else f"a refutation whose counterexample does not hold: {bad}"


def _storable(claim: Claim, proof_status: str) -> bool:
    """Whether a run keeps this outcome: a proof, or a refutation the claim can re-check (one
    it cannot would be rejected by every later run)."""
    return proof_status == "proved" or (proof_status == "refuted" and claim.recheck is not None)


def claim_case(claim: Claim, timeout_s: float, cache: ProofCache | None = None,
               pool: ProofPool | None = None, known_refuted: bool = False,
               verify: bool = False) -> Case:
    """The case of one claim; a body that raises is FAIL (`raised`) with proof_status error.
    With a cache, a decided outcome proved before under the same key is reused (fields say so;
    `usable` says when); with ``verify`` the claim is proved again and a cached outcome that
    disagrees is reported as rejected; with a pool that was handed the claim, its worker's
    answer is waited for (a lost worker is UNKNOWN `proof_lost`), else the claim is proved
    here."""

    def body() -> Outcome:
        start = time.perf_counter()
        rejected = len(cache.rejected) if cache is not None else 0
        hit = None
        if cache is not None:
            hit = usable(cache, claim, timeout_s, known_refuted)[0]
            if hit is not None and not verify:
                return _verdict(claim, hit["proof_status"], hit["message"],
                                {**hit["fields"], "cached": True})
        try:
            if pool is not None and pool.has(claim.id):
                from ptxconf.oracle.proofs.pool import ProofLost

                try:
                    proved = pool.result(claim.id)
                except ProofLost as lost:
                    return Outcome(Status.UNKNOWN, "proof_lost", f"unknown: {lost}",
                                   {"proof_status": "unknown", "statement": claim.statement,
                                    "counterexample": None, "reproduce_python": None})
            else:
                from ptxconf.oracle.proofs import runner

                proved = runner.prove(claim, timeout_s=timeout_s)
            out = outcome_of(claim, proved)
            if cache is not None and _storable(claim, proved.status):
                cache.put(claim.id, claim.statement, timeout_s, proved.status, out.message,
                          dict(out.fields))
            if cache is not None and hit is not None:  # verified: the fresh proof stands
                agrees = hit["proof_status"] == proved.status or proved.status == "unknown"
                out = Outcome(out.status, out.code, out.message,
                              {**out.fields, "cache_verified": "agrees" if agrees else "disagrees"})
                if not agrees:
                    cache.rejected.append((claim.id, f"a fresh proof says {proved.status}, the "
                                                     f"entry {hit['proof_status']}"))
            if cache is not None and len(cache.rejected) > rejected:  # why the entry went unused
                out = Outcome(out.status, out.code, out.message,
                              {**out.fields, "cache_rejected": cache.rejected[-1][1]})
            return out
        except Exception as exc:  # noqa: BLE001 - one broken claim must not stop the others
            return Outcome(Status.FAIL, "raised", f"proof raised {type(exc).__name__}: {exc}",
                           {"proof_status": "error", "statement": claim.statement,
                            "counterexample": None, "reproduce_python": None,
                            "seconds": time.perf_counter() - start})

    return case(f"proof.{claim.name}", claim.key, body, PROVIDER)


def run_claim(claim: Claim, timeout_s: float) -> Result:
    """Prove one claim into the one result model."""
    return execute(claim_case(claim, timeout_s))


def proof_cases(spec: Spec, *, timeout_s: float, cache: bool = False, workers: int = 0,
                wanted: Callable[[str], bool] | None = None,
                closers: list[Callable[[], None]] | None = None,
                verify_fraction: float = 0.0, verify_seed: int = 0) -> list[Case]:
    """One case per claim; each runs in a fresh z3.Context under ``timeout_s`` (or comes from
    the proof cache, with ``cache``: `usable` says when). ``verify_fraction`` of the claims
    (drawn by ``verify_seed``; 1.0: all) are proved again even where cached, and a cached
    outcome that disagrees is reported. With ``workers`` > 0, the claims that will be run
    (``wanted``: by id; default all) and are not in the cache are proved in that many worker
    processes (`ptxconf.oracle.proofs.pool`), all handed out now; the pool's `close` goes on
    ``closers`` (the caller closes it when the run ends or is interrupted)."""
    store = ProofCache(spec) if cache else None
    if store is not None and verify_fraction <= 0:
        warm = _listed_cases(spec, store, timeout_s, wanted)
        if warm is not None:
            return warm
    from ptxconf.oracle.proofs.claims import indexed_claims

    indexed = list(indexed_claims(spec))
    claims = [c for _, c in indexed]
    if store is not None:
        listing.put(store, timeout_s, indexed)
    # a claim with a known finding takes only a cached refutation (what the finding records):
    # a cached proof of it is proved again, so a cache never turns a finding into a pass
    known = {c.id for c in claims if c.id in spec.findings.by_case}
    runs = [c for c in claims if wanted is None or wanted(c.id)]
    check = verify_sample([c.id for c in runs], verify_fraction, verify_seed) if store else set()
    todo = [c.id for c in runs
            if c.id in check or store is None
            or usable(store, c, timeout_s, c.id in known, count=False)[0] is None
            ] if workers > 0 else []
    pool = None
    if len(todo) > 1:
        from ptxconf.oracle.proofs import pool as pools

        pool = pools.ProofPool.start(spec, todo, timeout_s, min(workers, len(todo)))
        if closers is not None:
            closers.append(pool.close)
    return [claim_case(claim, timeout_s, store, pool, claim.id in known, claim.id in check)
            for claim in claims]


def _listed_cases(spec: Spec, store: ProofCache, timeout_s: float,
                  wanted: Callable[[str], bool] | None) -> list[Case] | None:
    """The cases `proof_cases` makes, from the claims' listing (ptxconf.oracle.proofs.listing)
    where every wanted claim has a cached outcome the run may use; else None. A plain cached
    proof is the case's verdict as `claim_case` gives it; any other claim (a refutation, which
    re-checks its counterexample; a claim with a known finding) is generated by its own
    module, when its case runs, and judged by `claim_case`."""
    entries = listing.get(store, timeout_s)
    if entries is None:
        return None
    known = spec.findings.by_case
    made: dict[int, dict[str, Claim]] = {}

    def claim_of(entry: listing.Listed) -> Claim | None:
        if entry.module not in made:
            made[entry.module] = listing.generated(spec, entry.module)
        return made[entry.module].get(entry.id)

    hits: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if wanted is not None and not wanted(entry.id):
            continue
        hit, _ = store.peek(entry.id, entry.statement, timeout_s)
        if hit is not None and (hit["proof_status"] != "proved" or entry.id in known):
            claim = claim_of(entry)
            if claim is None or usable(store, claim, timeout_s, entry.id in known, count=False)[0] is None:
                hit = None
        if hit is None:
            return None  # to be proved: every claim generated, the missing ones in the pool
        hits[entry.id] = hit

    def body_of(entry: listing.Listed) -> Callable[[], Outcome]:
        def body() -> Outcome:
            hit = hits.get(entry.id) or store.peek(entry.id, entry.statement, timeout_s)[0]
            if hit is not None and hit["proof_status"] == "proved" and entry.id not in known:
                return Outcome(Status.PASS, "ok", hit["message"], {**hit["fields"], "cached": True})
            claim = claim_of(entry)
            if claim is None:
                raise LookupError(f"{entry.id}: the listing names a claim this spec does not make")
            got = claim_case(claim, timeout_s, store, None, entry.id in known).body()
            assert isinstance(got, Outcome)  # claim_case's body always returns one
            return got

        return body

    return [case(f"proof.{e.name}", e.key, body_of(e), PROVIDER) for e in entries]


def verify_sample(ids: list[str], fraction: float, seed: int) -> set[str]:
    """The ids a `--verify-cache FRACTION` run proves again: round(fraction * len) of them
    (at least one where fraction > 0), drawn by ``seed``."""
    if fraction <= 0 or not ids:
        return set()
    n = min(len(ids), max(1, round(fraction * len(ids))))
    return set(random.Random(seed).sample(sorted(ids), n))


def provider_cases(spec: Spec, ctx: Any) -> list[Case]:
    """The registry's entry point (ptxconf.app.providers)."""
    return proof_cases(spec, timeout_s=ctx.proof_timeout_s, cache=ctx.proof_cache,
                       workers=ctx.proof_workers, wanted=ctx.wanted, closers=ctx.closers,
                       verify_fraction=ctx.verify_cache, verify_seed=ctx.verify_seed)
