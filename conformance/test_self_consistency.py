"""The seeds checked against themselves: one test per self-consistency case, ids from spec rows.

A case that finds a *known* spec discrepancy (oracle/findings.py) is an expected failure with
its explanation; an unknown one fails; a known one that no longer occurs fails as stale.
"""

from __future__ import annotations

import pytest
from ptxconf.oracle.checks import all_cases
from ptxconf.oracle.findings import KNOWN_DISCREPANCIES, explain
from ptxconf.oracle.spec import default_spec

from ptxconf.results import Status
from ptxconf.run import RunOptions, providers, triage

CASES = list(all_cases(default_spec()))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case) -> None:
    result = triage(case.run())
    known = explain(case.id)
    if known is not None:
        assert result.status is Status.DISCREPANCY, \
            f"stale or changed finding, now {result.status}: {result.message}"
        pytest.xfail(f"known spec discrepancy: {result.message}")
    assert result.status is Status.PASS, result.message


def test_every_known_finding_names_a_case(spec) -> None:
    opts = RunOptions(gpu="off")
    ids = {c.id for p in providers(opts) if p.available()[0] for c in p.cases(spec)}
    from ptxconf.gpu.cases import gpu_cases  # enumerating starts nothing on a GPU

    ids |= {c.id for c in gpu_cases(spec)}
    missing = sorted(set(KNOWN_DISCREPANCIES) - ids)
    assert not missing, f"findings without a case: {missing}"


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_new_discrepancy_fails_the_run() -> None:
    from ptxconf.results import Result

    r = triage(Result("x.y[spec:z]", "x.y", Status.DISCREPANCY, "A says 1, B says 2"))
    assert r.status is Status.FAIL and "new spec discrepancy" in r.message
