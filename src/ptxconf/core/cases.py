"""The one case model: every check, proof, witness and probe is a `Case` that ends in an `Outcome`.

A *case* is one checkable claim with a stable id, ``<check>[<spec row key>]``. Its body returns
a pass message (or an `Outcome`) or raises `Verdict` to end with another status. Every outcome
carries a status, a stable *code* for the kind of result (the catalog `CODES`), a one-line
message and structured *fields* (the maps, the diff, the evidence) that reports and known
findings read. `execute` turns a case into the one `Result`; nothing else builds results.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ptxconf.core.results import Result, Status

#: Every code an outcome may carry, with what it means. Codes are stable: reports, JUnit and
#: known findings match on them; a new kind of result gets a new code here.
CODES: dict[str, str] = {
    "ok": "the claim holds",
    "mismatch": "a documented value differs from what the oracle derives (the spec or the oracle is wrong)",
    "raised": "the check itself raised an exception",
    "malformed": "a spec row cannot be read the way its check needs",
    "documents_disagree": "two published sources (or one with itself) disagree",
    "assembler_disagrees": "the assembler accepts or rejects what a document lists otherwise",
    "silicon_disagrees": "the hardware reads differently from the documented reading",
    "refuted": "a proof refutes a documented claim (a counterexample is in the fields)",
    "refuted_oracle": "a proof refutes a claim about the oracle itself",
    "proof_unknown": "the solver could not decide the claim in time (never passes)",
    "proof_lost": "the worker process proving the claim was lost before it answered (never passes)",
    "dependency_missing": "the provider's dependency is missing here; the case did not run",
    "gpu_unusable": "no usable GPU although the run asked for one",
    "gpu_fault": "a probe kernel faulted or did not compile",
    "compile_failed": "kernels did not compile",
    "observed": "a device-tagged observation of an unspecified behaviour, recorded",
    "undecided": "no reading fits every probe (never passes)",
    "not_runnable": "the probe cannot run for this form; why is in the message",
    "finding_known": "a known spec discrepancy, as recorded in oracle/findings.yaml",
    "finding_new": "a spec discrepancy that oracle/findings.yaml does not list",
    "finding_changed": "a known finding whose recorded fields no longer match what the case shows",
    "finding_stale": "a known finding that no longer happens: the case now passes",
    "expected_difference": "a device's known difference, accepted by its expectation file",
}


@dataclass(frozen=True)
class Outcome:
    """What running a case found: status, stable code, one line, structured fields."""

    status: Status
    code: str
    message: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"outcome code {self.code!r} is not in ptxconf.core.cases.CODES")


class Verdict(Exception):
    """Raised inside a case body to end it with the outcome it carries."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def passed(message: str, code: str = "ok", **fields: Any) -> Outcome:
    """A PASS outcome with fields (a body may also just return its message)."""
    return Outcome(Status.PASS, code, message, fields)


def fail(message: str, code: str = "mismatch", **fields: Any) -> Verdict:
    """A FAIL verdict: the spec file, the oracle or the hardware's reading is wrong."""
    return Verdict(Outcome(Status.FAIL, code, message, fields))


def discrepancy(message: str, code: str = "documents_disagree", **fields: Any) -> Verdict:
    """A DISCREPANCY verdict: the sources disagree; both sides belong in the fields."""
    return Verdict(Outcome(Status.DISCREPANCY, code, message, fields))


def outcome(status: Status, code: str, message: str, **fields: Any) -> Verdict:
    """A verdict of any status (UNKNOWN, SKIP) with its code."""
    return Verdict(Outcome(status, code, message, fields))


def expect_equal(what: str, documented: object, derived: object, *, source: str, witness: str,
                 status: Status = Status.FAIL) -> None:
    """Raise a verdict naming both sides when a documented value differs from a derived one."""
    if documented != derived:
        code = "mismatch" if status is Status.FAIL else "documents_disagree"
        raise Verdict(Outcome(status, code, f"{what}: {source} says {documented!r}, {witness} "
                              f"gives {derived!r}", {"documented": documented, "derived": derived,
                                                     "source": source, "witness": witness}))


#: A case body: returns a pass message (None: "ok") or an Outcome, or raises Verdict.
Body = Callable[[], "str | Outcome | None"]


@dataclass(frozen=True)
class Case:
    """One checkable claim: ``id`` is ``<check>[<key>]``, the test id pytest and reports use."""

    check: str
    key: str
    body: Body = field(compare=False, repr=False)
    provider: str = ""
    #: The device the case ran on, asked after it ran (GPU cases).
    device: Callable[[], str | None] | None = field(default=None, compare=False, repr=False)

    @property
    def id(self) -> str:
        """The stable test id."""
        return case_id(self.check, self.key)

    def run(self) -> Result:
        """Run this case (`execute`)."""
        return execute(self)


def case_id(check: str, key: str) -> str:
    """The stable id of a case: ``<check>[<key>]``."""
    return f"{check}[{key}]"


def case(check: str, key: str, body: Body, provider: str = "",
         device: Callable[[], str | None] | None = None) -> Case:
    """The one way to build a case."""
    return Case(check, key, body, provider, device)


def run_body(body: Body) -> Outcome:
    """Run a body: its outcome, a Verdict's, or FAIL/raised with the traceback's tail."""
    try:
        got = body()
    except Verdict as v:
        return v.outcome
    except Exception as exc:  # noqa: BLE001 - a broken check must not stop the others
        return Outcome(Status.FAIL, "raised", f"check raised {type(exc).__name__}: {exc}",
                       {"traceback": traceback.format_exc(limit=6)})
    if isinstance(got, Outcome):
        return got
    return Outcome(Status.PASS, "ok", got or "ok")


def execute(c: Case) -> Result:
    """Run one case into the one result model (timed; an exception is that case's FAIL)."""
    start = time.perf_counter()
    out = run_body(c.body)
    device = c.device() if c.device is not None else None
    return Result(c.id, c.check, out.status, out.message, dict(out.fields),
                  time.perf_counter() - start, device, code=out.code, provider=c.provider)


def skipped(check: str, key: str, provider: str, why: str) -> Result:
    """The result of a case whose provider cannot run here (listed by id, never built)."""
    return Result(case_id(check, key), check, Status.SKIP, why, {}, 0.0, None,
                  code="dependency_missing", provider=provider)


__all__ = ["CODES", "Body", "Case", "Outcome", "Verdict", "case", "case_id", "discrepancy", "execute",
           "expect_equal", "fail", "outcome", "passed", "run_body", "skipped"]
