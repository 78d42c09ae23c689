"""Shared by the tests that pin a case's whole outcome (conformance/test_oracle_mutants_*):
build the cases in the test, run one by id, and compare status, code, message and fields."""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from ptxconf.core.cases import Case, execute
from ptxconf.core.results import Result, Status
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


def expect_mismatch(res: Result, what: str, source: str, documented: object, witness: str,
                    derived: object, status: Status = Status.FAIL) -> None:
    """An expect_equal verdict: its message and its four fields."""
    code = "mismatch" if status is Status.FAIL else "documents_disagree"
    expect_outcome(res, status, code, f"{what}: {source} says {documented!r}, {witness} gives {derived!r}",
                   documented=documented, derived=derived, source=source, witness=witness)


def prove_module_claim(module: ModuleType, spec: Spec, claim_id: str, timeout_s: float = 60.0) -> Result:
    """Build the module's claims of `spec` here, and prove the one with this id."""
    from ptxconf.oracle.proofs.cases import run_claim

    found = [c for c in module.claims(spec) if c.id == claim_id]
    assert len(found) == 1, f"{claim_id}: {len(found)} claims"
    return run_claim(found[0], timeout_s)
