"""Claims as check-runner cases: one Case per claim per spec row, id ``proof.<claim>[<row key>]``.

Status mapping: proved -> PASS; refuted -> DISCREPANCY when the claim is about a documented
fact (a table, a figure, a formula), FAIL when it is about the oracle itself; unknown -> UNKNOWN
(never passes). A body that raises (the encoding disagreeing with the oracle, a malformed row)
is FAIL with proof_status "error". details carry proof_status, counterexample, reproduce, the
statement proved, the facts found, and for an expected refutation its explanation (finding).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from ptxconf.oracle import findings
from ptxconf.oracle.checks import Case
from ptxconf.oracle.proofs.claims import all_claims
from ptxconf.oracle.proofs.runner import Claim, ProofResult, prove
from ptxconf.oracle.spec import Spec

from ptxconf.results import Result, Status


def status_of(claim: Claim, result: ProofResult) -> Status:
    """The result model's status for a proof outcome."""
    if result.status == "proved":
        return Status.PASS
    if result.status == "unknown":
        return Status.UNKNOWN
    return Status.DISCREPANCY if claim.documented else Status.FAIL


def to_result(claim: Claim, pr: ProofResult) -> Result:
    """A ProofResult in the one result model."""
    details = {"proof_status": pr.status, "statement": pr.statement,
               "counterexample": pr.counterexample, "reproduce": pr.reproduce or None,
               "facts": pr.details}
    known = findings.explain(claim.id)
    if known is not None and pr.status == "refuted":
        details["finding"] = known.explanation
    return Result(claim.id, f"proof.{claim.name}", status_of(claim, pr), pr.reason, details,
                  pr.seconds)


def run_claim(claim: Claim, timeout_s: float) -> Result:
    """Prove one claim; an exception inside it is an error (FAIL), never a crash."""
    start = time.perf_counter()
    try:
        return to_result(claim, prove(claim, timeout_s=timeout_s))
    except Exception as exc:  # noqa: BLE001 - one broken claim must not stop the others
        return Result(claim.id, f"proof.{claim.name}", Status.FAIL,
                      f"proof raised {type(exc).__name__}: {exc}",
                      {"proof_status": "error", "statement": claim.statement,
                       "counterexample": None, "reproduce": None},
                      time.perf_counter() - start)


def proof_cases(spec: Spec, *, timeout_s: float) -> Iterator[Case]:
    """One case per claim; each runs in a fresh z3.Context under ``timeout_s``."""
    for claim in all_claims(spec):
        yield Case(claim.id, f"proof.{claim.name}",
                   lambda c=claim: run_claim(c, timeout_s))  # type: ignore[misc]
