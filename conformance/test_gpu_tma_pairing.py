"""ptxconf.gpu.families.tma_pairing: the plan is the proofs' cells, and what D must be (an
identity cell: the plain product; another: the product of the permutation the oracle states).
Against the software model (conformance/emulator.py): the cells' off-rule class needs the
H100's reading of the base-offset field; a TMA that packed a swizzled box's rows is caught."""

from __future__ import annotations

import numpy as np
import pytest
from emulator import (  # conformance/emulator.py
    WRONG_MODELS,
    Emulator,
    run_case,
    wrong_model_verdict,
)

from ptxconf.core.results import Status
from ptxconf.gpu.families import tma_pairing as TP
from ptxconf.gpu.tma import largest_repeat
from ptxconf.oracle.findings import judge
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
CELLS = {c.key: c for c in TP.cells(SPEC)}
W128_R128 = "tma/swizzling_modes:128B~wgmma/canonical_layouts:K_SW128"
W128_R32 = "tma/swizzling_modes:128B~wgmma/canonical_layouts:K_SW32"
#: A window address on the largest repeat, as the probes' windows are.
WINDOW = 0x400


def test_the_plan_is_the_pairing_proofs_cells() -> None:
    z3_cells = pytest.importorskip("ptxconf.oracle.proofs.tma_writes").cells
    assert [p.key for p in TP.pairing_plan(SPEC)] == [c.key for c in z3_cells(SPEC)]
    assert {p.check for p in TP.pairing_plan(SPEC)} == {TP.CHECK}


@pytest.mark.parametrize(("cls", "offset", "field"), [
    ("aligned", 1024, 0), ("off_zero", 1152, 0), ("off_rule", 1152, 1)])
def test_a_cells_box_sits_at_its_class_with_its_field(cls: str, offset: int, field: int) -> None:
    cell = CELLS[f"{W128_R128}.{cls}"]
    w = TP.the_write(SPEC, cell)
    assert (w.rows, w.cols, w.dst_offset, w.pitch_bytes) == (64, 64, offset, 128)
    assert TP.descriptor(SPEC, cell, w, offset, 1).base_offset == field
    assert TP.descriptor(SPEC, cell, w, offset, 1).start_address == offset + 32


def _predictions(key: str) -> tuple[TP.TmaWrite, np.ndarray, list[tuple[np.ndarray, dict]]]:
    cell = CELLS[key]
    w = TP.the_write(SPEC, cell)
    box, _ = TP.operands(SPEC, cell, w)
    window = TP.oracle_window(SPEC, w, TP.tensor(SPEC, box, w), w.window_bytes(
        largest_repeat(SPEC)), WINDOW)
    out = []
    for j in range(TP.steps(SPEC, w)):
        a, _, pairing = TP.predict(SPEC, cell, w, window, WINDOW, WINDOW, j)
        out.append((a, TP.summary(pairing, w.cols, j)))
    return w, box, out


def test_an_identity_cell_predicts_the_plain_product_of_the_box() -> None:
    w, box, steps = _predictions(f"{W128_R128}.aligned")
    assert len(steps) == 4
    for j, (a, s) in enumerate(steps):
        assert s["identity"], s
        np.testing.assert_array_equal(a, box[:, 16 * j:16 * (j + 1)])


def test_a_non_identity_cell_predicts_the_permutation_the_oracle_states() -> None:
    w, box, steps = _predictions(f"{W128_R32}.aligned")
    (a, s), = steps
    assert not s["identity"]
    assert s["moved_count"] > 0
    assert not np.array_equal(a, box[:, :16])
    for m in s["moved"]:  # each moved element holds the box element the composition names
        holds = m["holds"]
        want = 0 if holds is None else box[holds["mn"], holds["k"]]
        assert a[m["mn"], m["k"]] == want


@pytest.mark.parametrize("key", [f"{W128_R128}.off_rule", f"{W128_R32}.off_zero"])
def test_a_cell_passes_against_the_h100_model(key: str) -> None:
    r = judge(run_case(Emulator(SPEC, field_moves_phase=True), f"{TP.CHECK}[{key}]"))
    assert r.status is Status.PASS, r.message
    assert r.fields["window_bytes_wrong"] == 0
    assert r.fields["identity"] is False
    assert r.fields["chain"] == "two launches, via global memory"


def test_a_tma_that_packs_swizzled_rows_is_caught_with_a_diff() -> None:
    r = judge(run_case(Emulator(SPEC, wrong="tma_rows_packed"), f"{TP.CHECK}[{W128_R32}.aligned]"))
    assert (r.status, r.code) == (Status.FAIL, "silicon_disagrees")
    assert r.fields["window_bytes_wrong"] > 0
    assert {"step", "m", "n", "expected", "got"} <= set(r.fields["wrong"][0])


#: This family's entries of emulator.WRONG_MODELS (the others: test_gpu_cases.py and the other
#: data-path files).
WRONG_FAMILIES = [f for f in WRONG_MODELS if f.startswith('gpu.tma_pairing')]


@pytest.mark.parametrize("family", WRONG_FAMILIES)
def test_a_wrong_model_fails_the_family(family: str) -> None:
    """A TMA that packs a swizzled box's rows: the case passes against the documented model
    (test_gpu_cases.py) and fails against this one, so the judgement reads the device's answer."""
    r, said = wrong_model_verdict(family)
    assert r.status in (Status.FAIL, Status.DISCREPANCY), said
    assert r.code == WRONG_MODELS[family][2], said
