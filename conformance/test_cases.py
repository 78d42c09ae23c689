"""Every CPU case of every provider, one test per case id, judged as `ptxconf check` judges it.

The verdict is the run's: PASS passes; a DISCREPANCY that spec/findings.yaml lists (same case,
same fields) passes with the finding recorded as a property; a new, changed or stale finding,
FAIL and UNKNOWN fail; a provider whose dependency is missing skips with its reason. The GPU
cases run the same way in conformance/test_gpu_cases.py (marker `gpu`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import Case, execute
from ptxconf.core.context import RunContext
from ptxconf.core.results import Status
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
            out += [pytest.param(c, id=c.id, marks=marks) for c in prov.load(SPEC, CTX)]
            continue
        # the dependency is missing: each case skips by id (nothing that could run is built)
        marks.append(pytest.mark.skip(reason=why))
        ids = prov.case_ids(SPEC) or [f"{prov.name}[*]"]
        out += [pytest.param(None, id=i, marks=marks) for i in ids]
    return out


@pytest.mark.parametrize("case", _params())
def test_case(case: Case, record_property: Callable[[str, object], None]) -> None:
    result = SPEC.findings.judge(execute(case))
    record_property("code", result.code)
    if result.status is Status.SKIP:
        pytest.skip(result.message)
    if result.status is Status.DISCREPANCY:
        record_property("finding", result.fields["finding"])
        return
    assert result.status is Status.PASS, f"[{result.code}] {result.message}"
