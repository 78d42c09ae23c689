"""Every CPU case of every provider, one test per case id, judged as `ptxconf check` judges it.

The verdict is the run's: PASS passes; a DISCREPANCY that oracle/findings.yaml lists (same case,
same fields) passes with the finding recorded as a property; a new, changed or stale finding,
FAIL and UNKNOWN fail; a provider whose dependency is missing skips with its reason. The GPU
cases run the same way in conformance/test_gpu_cases.py (marker `gpu`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ptxconf.app.providers import REGISTRY, RunContext
from ptxconf.core.cases import Case, execute
from ptxconf.core.results import Status
from ptxconf.oracle.findings import judge
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
CTX = RunContext(gpu="off", proof_timeout_s=30.0)


def _params() -> list[object]:
    out: list[object] = []
    for prov in REGISTRY:
        if prov.gpu:
            continue
        marks = [pytest.mark.z3] if prov.name == "proofs" else []
        why = prov.problem()
        if why is None:
            cases: list[Case] = list(prov.load(SPEC, CTX))
        else:
            cases = prov.case_ids(SPEC) or []
            marks.append(pytest.mark.skip(reason=why))
            if not cases:
                out.append(pytest.param(None, id=f"{prov.name}[*]", marks=marks))
        out += [pytest.param(c, id=c.id, marks=marks) for c in cases]
    return out


@pytest.mark.parametrize("case", _params())
def test_case(case: Case, record_property: Callable[[str, object], None]) -> None:
    result = judge(execute(case))
    record_property("code", result.code)
    if result.status is Status.SKIP:
        pytest.skip(result.message)
    if result.status is Status.DISCREPANCY:
        record_property("finding", result.fields["finding"])
        return
    assert result.status is Status.PASS, f"[{result.code}] {result.message}"
