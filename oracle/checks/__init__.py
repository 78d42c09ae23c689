"""Self-consistency checks of the spec: each a Case with a test id drawn from spec rows.

A check compares a document's number with what another table, the CuTe atoms, or the layout
algebra implies. It returns PASS, FAIL (the oracle or the spec file is broken) or DISCREPANCY
(two published sources disagree; both sides are in the message and details).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ptxconf.oracle.spec import Spec

from ptxconf.results import Result, Status


@dataclass(frozen=True)
class Case:
    """One check of one spec row (or a few rows): `id` is the test id pytest and reports use."""

    id: str
    check: str
    run: Callable[[], Result]


class Outcome(Exception):
    """Raised inside a check body to end it with a status other than PASS."""

    def __init__(self, status: Status, message: str, **details: object) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.details = details


def fail(message: str, **details: object) -> Outcome:
    """A FAIL outcome: the spec file or the oracle is wrong."""
    return Outcome(Status.FAIL, message, **details)


def discrepancy(message: str, **details: object) -> Outcome:
    """A DISCREPANCY outcome: the documents disagree with each other or themselves."""
    return Outcome(Status.DISCREPANCY, message, **details)


def expect_equal(what: str, documented: object, derived: object, *, source: str,
                 witness: str, status: Status = Status.FAIL) -> None:
    """Raise an Outcome naming both sides when a documented value differs from a derived one."""
    if documented != derived:
        raise Outcome(status, f"{what}: {source} says {documented!r}, {witness} gives {derived!r}",
                      documented=documented, derived=derived, source=source, witness=witness)


def make_case(check: str, key: str, body: Callable[[], str | None]) -> Case:
    """Wrap a check body (returns a PASS message or raises Outcome) into a Case."""
    case_id = f"{check}[{key}]"

    def run() -> Result:
        start = time.perf_counter()
        try:
            message = body() or "ok"
            status, details = Status.PASS, {}
        except Outcome as out:
            status, message, details = out.status, out.message, dict(out.details)
        return Result(case_id, check, status, message, details, time.perf_counter() - start)

    return Case(case_id, check, run)


def all_cases(spec: Spec) -> Iterator[Case]:
    """Every self-consistency case of a spec, module by module."""
    from ptxconf.oracle.checks import (
        cute_atoms,
        cutedsl,
        descriptor_checks,
        fragments_checks,
        smem_layouts,
        wmma_checks,
    )

    modules: Iterable = (descriptor_checks, smem_layouts, fragments_checks, wmma_checks,
                         cute_atoms, cutedsl)
    for module in modules:
        yield from module.cases(spec)
