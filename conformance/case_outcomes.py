"""Shared by the tests that check a case's outcome: build the cases in the test, run one by id, and
compare status, code and fields (a message's wording is pinned once, by a message example:
conformance/golden_messages.py); and `raises_naming`, for a refusal whose message must name
some values."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType

import pytest

from ptxconf.core.cases import Case, execute
from ptxconf.core.results import Result, Status
from ptxconf.oracle.lint import SpecError
from ptxconf.oracle.spec import Spec


def run_case(cases: Iterable[Case], case_id: str) -> Result:
    """Execute the case of that id among `cases` (it must be there)."""
    by_id = {c.id: c for c in cases}
    assert case_id in by_id, f"{case_id} not among {len(by_id)} cases"
    return execute(by_id[case_id])


def run_module_case(module: ModuleType, spec: Spec, case_id: str) -> Result:
    """Build the module's cases of `spec` here, and execute the one with this id."""
    found = [c for c in module.cases(spec) if c.id == case_id]
    assert len(found) == 1, f"{case_id}: {len(found)} cases"
    return execute(found[0])


def expect_outcome(res: Result, status: Status, code: str, message: str, **fields: object) -> None:
    """The result is exactly this: status, code, message and every field."""
    assert (res.status, res.code, res.message) == (status, code, message)
    assert res.fields == fields


def expect_fields(res: Result, status: Status, code: str, **fields: object) -> None:
    """The result has this status, code and exactly these fields (its wording is a message
    example's)."""
    assert (res.status, res.code) == (status, code)
    assert res.fields == fields


@contextmanager
def raises_naming(exc: type[BaseException], *values: str) -> Iterator[pytest.ExceptionInfo]:
    """The block raises `exc`, whose message holds each of `values` (the coordinates and values it
    names; its whole wording is a message example's, conformance/messages_<area>.py)."""
    with pytest.raises(exc) as info:
        yield info
    text = str(info.value)
    missing = [v for v in values if v not in text]
    assert not missing, f"{text!r} does not name {missing}"


def names(text: str, *values: str) -> bool:
    """`text` (a message) names each of `values`; True, for `assert names(...)`."""
    missing = [v for v in values if v not in text]
    assert not missing, f"{text!r} does not name {missing}"
    return True


def expect_spec_errors(errors: Sequence[SpecError],
                       *expected: tuple[object, int, str, tuple[str, ...]]) -> None:
    """`errors` are exactly `expected`, in order: each (path, line, rule, the values its message
    names); the messages' wording is a message example's."""
    assert [(e.path, e.line, e.rule) for e in errors] == [(str(p), n, r) for p, n, r, _ in expected]
    for error, (_, _, _, values) in zip(errors, expected, strict=True):
        names(error.message, *values)


def expect_mismatch(res: Result, what: str, source: str, documented: object, witness: str,
                    derived: object, status: Status = Status.FAIL) -> None:
    """An expect_equal verdict: its message and its four fields."""
    code = "mismatch" if status is Status.FAIL else "documents_disagree"
    expect_outcome(res, status, code, f"{what}: {source} says {documented!r}, {witness} gives {derived!r}",
                   documented=documented, derived=derived, source=source, witness=witness)


def expect_mismatch_fields(res: Result, source: str, documented: object, witness: str,
                           derived: object, status: Status = Status.FAIL) -> None:
    """An expect_equal verdict: its status, code and four fields (its wording is the message
    example expect_equal.mismatch's, conformance/messages_core.py)."""
    code = "mismatch" if status is Status.FAIL else "documents_disagree"
    expect_fields(res, status, code, documented=documented, derived=derived, source=source,
                  witness=witness)


def prove_module_claim(module: ModuleType, spec: Spec, claim_id: str, timeout_s: float = 60.0) -> Result:
    """Build the module's claims of `spec` here, and prove the one with this id."""
    from ptxconf.oracle.proofs.cases import run_claim

    found = [c for c in module.claims(spec) if c.id == claim_id]
    assert len(found) == 1, f"{claim_id}: {len(found)} claims"
    return run_claim(found[0], timeout_s)


def proof_facts(res: Result) -> dict[str, object]:
    """A proof outcome's facts without Z3's query count (where that count depends on a model Z3
    chose)."""
    return {k: v for k, v in res.fields["facts"].items() if k != "queries"}


def expect_named(res: Result, *values: str) -> None:
    """The result's message names each of these values (coordinates, counts, names that no field
    holds; its whole wording is a message example's, conformance/messages_<area>.py)."""
    missing = [v for v in values if v not in res.message]
    assert not missing, f"{res.message!r} does not name {missing}"
