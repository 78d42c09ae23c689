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


#: Providers whose every case is a Z3 proof or an NVRTC compile (seconds, not milliseconds): by
#: default one case of each claim family (the id before "[") runs; the rest are marked slow.
SWEPT = {"proofs", "assembler-witness"}
#: The xdist group of the tests that ask the assembler witness's sweep of the bundled spec
#: (seconds; made once a process): under `--dist loadgroup` one worker makes it.
WITNESS_GROUP = "assembler-witness"
#: Why a swept case is slow, and which fast test covers its behaviour by default.
SWEEP_REASON = ("a full proof or compile sweep (tox -e slow): by default the first case of its "
                "family runs here, and `check` runs its family in test_interrupts and "
                "test_install_parity")


def _sweep_marks(prov_name: str, case_id: str, seen: set[str]) -> list[pytest.MarkDecorator]:
    """The slow mark for every case of a swept provider but the first of its family."""
    family = case_id.split("[", 1)[0]
    if prov_name not in SWEPT or family not in seen:
        seen.add(family)
        return []
    return [pytest.mark.slow(reason=SWEEP_REASON)]


def _params() -> list[object]:
    out: list[object] = []
    seen: set[str] = set()
    for prov in REGISTRY:
        if prov.gpu:
            continue
        marks = [pytest.mark.z3] if prov.name == "proofs" else []
        if prov.name == "assembler-witness":  # one worker makes the run's one sweep
            marks.append(pytest.mark.xdist_group(WITNESS_GROUP))
        why = prov.problem()
        if why is None:
            out += [pytest.param(c, id=c.id, marks=[*marks, *_sweep_marks(prov.name, c.id, seen)])
                    for c in prov.load(SPEC, CTX)]
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
