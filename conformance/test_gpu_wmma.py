"""The wmma GPU cases (ptxconf.gpu.families.wmma) without a GPU: each family (load, store,
align) fails against a wrong model, a faulting case is that case's failure and the run goes on,
and the fragment maps (unspecified by the PTX ISA) of the devices' committed evidence agree.
(Every case passes against the documented model in test_gpu_cases.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulator import (  # conformance/emulator.py
    MISALIGNED,
    WRONG_MODELS,
    Emulator,
    run_emulated,
    wrong_model_verdict,
)

from ptxconf.core.results import Status
from ptxconf.gpu import plan
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
EVIDENCE = Path(__file__).resolve().parent.parent / "reports" / "evidence"


#: This family's entries of emulator.WRONG_MODELS (the others: test_gpu_cases.py and the other
#: data-path files).
WRONG_FAMILIES = [f for f in WRONG_MODELS if f.startswith('gpu.wmma.')]


@pytest.mark.parametrize("family", WRONG_FAMILIES)
def test_a_wrong_model_fails_the_family(family: str) -> None:
    """A device that ignores ldm, writes thread t's fragment where t-1's goes, or faults on
    aligned inputs: the case passes against the documented model (test_gpu_cases.py) and fails
    against this one, so the judgement reads the device's answer."""
    r, said = wrong_model_verdict(family)
    assert r.status in (Status.FAIL, Status.DISCREPANCY), said
    assert r.code == WRONG_MODELS[family][2], said


def test_a_fault_is_that_cases_failure_and_the_run_goes_on() -> None:
    emu = Emulator(SPEC)
    results = run_emulated(emu, only="gpu.wmma.align")
    assert results
    assert emu.restarts > 0
    faulted = [r for r in results if f"silicon: {MISALIGNED}" in r.message]
    not_passed = [(r.id, r.message) for r in results if r.status is not Status.PASS]
    assert faulted, not_passed
    assert all(r.status in (Status.PASS, Status.SKIP) for r in results), not_passed
    assert all("the rule rejects it (start of leading-dimension instance" in r.message
               and r.code == "observed" for r in faulted)


def test_wmma_maps_agree_across_devices() -> None:
    """The wmma fragment map is unspecified: flag it when two devices' evidence differ."""
    runs = sorted(EVIDENCE.glob("*/results.json"))
    if len(runs) < 2:
        pytest.skip(f"evidence from {len(runs)} device(s) under {EVIDENCE}: nothing to compare")
    seen: dict[str, dict[str, str]] = {}
    for path in runs:
        data = json.loads(path.read_text(encoding="utf-8"))
        for r in data["results"]:
            fp = (r.get("fields") or r.get("details") or {}).get("map_fingerprint")
            if r["check"] == plan.CHECK_WMMA_LOAD and fp:
                seen.setdefault(r["id"], {})[f"{path.parent.name} ({r.get('device')})"] = fp
    differ = {k: v for k, v in seen.items() if len(set(v.values())) > 1}
    assert not differ, f"wmma fragment maps differ across devices: {differ}"
