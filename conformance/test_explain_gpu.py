"""The explain gallery on a GPU (`gpu.mistake[...]`, ptxconf.gpu.families.mistakes), run here
against the probes' software model (conformance/emulator.py's `Emulator`).

Explain reads descriptors as the H100 did, so the gallery runs against the model of that
device (the base-offset field moves the swizzle phase: finding base-offset-field-moves-phase):
every case passes, the mistaken descriptor giving a wrong product (or, for an ignored field, the
same right one) and the corrected one D bit-exact. Against the documented model (the field only
informative) the misaligned-start cases fail: the case tells a device that ignores the field.
"""

from __future__ import annotations

import json

import pytest
from emulator import Emulator, run_emulated

from ptxconf.app.providers import gpu_case_ids
from ptxconf.core.results import Result, Status
from ptxconf.gpu.families import mistakes
from ptxconf.oracle.explain import catalog
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
#: every GPU case id the registry lists (no CuPy, no device needed)
GPU_IDS = gpu_case_ids(SPEC)

IDS = [i for i in GPU_IDS if i.startswith(f"{mistakes.CHECK}[")]
START = [i for i in IDS if "start_misaligned" in i]


@pytest.fixture(scope="module")
def on_h100_model() -> dict[str, Result]:
    return {r.id: r for r in run_emulated(Emulator(SPEC, field_moves_phase=True),
                                          only=f"{mistakes.CHECK}[")}


def test_the_gallery_covers_every_mistake_kind_explain_cites() -> None:
    """Each gallery case explain cites as evidence exists, and names the code it is cited for."""
    assert len(IDS) == len(mistakes.GALLERY)
    assert len(START) == 3
    by_name = {m.name: m.code for m in mistakes.GALLERY}
    for code, name in catalog.GALLERY.items():
        for sw in ("32B", "64B", "128B") if "{swizzle}" in name else ("",):
            assert by_name[name.format(swizzle=sw)] == code
    assert by_name["ignored_lbo"] == by_name["ignored_base_offset"] == "EXPLAIN-IGNORED-FIELD"


@pytest.mark.parametrize("case_id", IDS)
def test_gallery_case_passes_against_the_h100_model(on_h100_model: dict[str, Result],
                                                   case_id: str) -> None:
    r = on_h100_model[case_id]
    assert r.status is Status.PASS, f"{r.status.value} [{r.code}]: {r.message}"
    f = r.fields
    assert r.provider == mistakes.PROVIDER
    assert f["corrected"]["mismatches"] == 0
    ignored = "ignored" in case_id
    assert (f["mistaken"]["mismatches"] == 0) == ignored, f
    assert f["explain"].startswith("ptxconf explain descriptor 0x")
    assert len(json.dumps(f, default=str)) < 40_000


def test_start_cases_tell_a_device_that_ignores_the_base_offset_field() -> None:
    results = {r.id: r for r in run_emulated(Emulator(SPEC), only="gpu.mistake[start_")}
    assert set(results) == set(START)
    for r in results.values():
        assert (r.status, r.code) == (Status.FAIL, "silicon_disagrees"), r.message
        assert "the corrected descriptor" in r.message
        assert r.fields["mistaken"]["mismatches"] > 0
        assert r.fields["corrected"]["mismatches"] > 0
