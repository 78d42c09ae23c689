"""Claims as check-runner cases: one Case per claim per spec row, id ``proof.<claim>[<row key>]``.

Status mapping: proved -> PASS; refuted -> DISCREPANCY when the claim is about a documented
fact (a table, a figure, a formula), FAIL when it is about the oracle itself; unknown -> UNKNOWN
(never passes). A body that raises (the encoding disagreeing with the oracle, a malformed row)
is FAIL with proof_status "error". Fields carry proof_status, counterexample, reproduce, the
statement proved, the facts found, and for an expected refutation its explanation (finding).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from ptxconf.cases import Case, Outcome, case, execute
from ptxconf.oracle.proofs.cache import ProofCache
from ptxconf.oracle.proofs.claims import all_claims
from ptxconf.oracle.proofs.runner import Claim, ProofResult, prove
from ptxconf.oracle.spec import Spec
from ptxconf.results import Result, Status

PROVIDER = "proofs"


def outcome_of(claim: Claim, pr: ProofResult) -> Outcome:
    """A proof's result as an outcome: proved -> PASS; refuted -> DISCREPANCY (a documented
    claim) or FAIL (a claim about the oracle); unknown -> UNKNOWN."""
    fields = {"proof_status": pr.status, "statement": pr.statement,
              "counterexample": pr.counterexample, "reproduce": pr.reproduce or None,
              "facts": pr.details}
    if pr.status == "proved":
        return Outcome(Status.PASS, "ok", pr.reason, fields)
    if pr.status == "unknown":
        return Outcome(Status.UNKNOWN, "proof_unknown", pr.reason, fields)
    if claim.documented:
        return Outcome(Status.DISCREPANCY, "refuted", pr.reason, fields)
    return Outcome(Status.FAIL, "refuted_oracle", pr.reason, fields)


def claim_case(claim: Claim, timeout_s: float, cache: ProofCache | None = None) -> Case:
    """The case of one claim; a body that raises is FAIL (`raised`) with proof_status error.
    With a cache, a decided outcome proved before under the same key is reused (fields say so)."""

    def body() -> Outcome:
        start = time.perf_counter()
        if cache is not None:
            hit = cache.get(claim.id, claim.statement, timeout_s)
            if hit is not None:
                return Outcome(Status(hit["status"]), hit["code"], hit["message"],
                               {**hit["fields"], "cached": True})
        try:
            out = outcome_of(claim, prove(claim, timeout_s=timeout_s))
            if cache is not None and out.status is not Status.UNKNOWN:
                cache.put(claim.id, claim.statement, timeout_s,
                          {"status": out.status.value, "code": out.code, "message": out.message,
                           "fields": dict(out.fields)})
            return out
        except Exception as exc:  # noqa: BLE001 - one broken claim must not stop the others
            return Outcome(Status.FAIL, "raised", f"proof raised {type(exc).__name__}: {exc}",
                           {"proof_status": "error", "statement": claim.statement,
                            "counterexample": None, "reproduce": None,
                            "seconds": time.perf_counter() - start})

    return case(f"proof.{claim.name}", claim.key, body, PROVIDER)


def run_claim(claim: Claim, timeout_s: float) -> Result:
    """Prove one claim into the one result model."""
    return execute(claim_case(claim, timeout_s))


def proof_cases(spec: Spec, *, timeout_s: float, cache: bool = False) -> Iterator[Case]:
    """One case per claim; each runs in a fresh z3.Context under ``timeout_s`` (or comes from
    the proof cache, with ``cache``)."""
    store = ProofCache(spec) if cache else None
    for claim in all_claims(spec):
        yield claim_case(claim, timeout_s, store)


def provider_cases(spec: Spec, ctx: Any) -> Iterator[Case]:
    """The registry's entry point (ptxconf.providers)."""
    return proof_cases(spec, timeout_s=ctx.proof_timeout_s, cache=ctx.proof_cache)
