"""The TMA write probes' plan and prediction (gpu/tma.py), without a GPU: every copy is a box the
documents allow, the plan covers every mode and element size, and the predicted window is the
oracle's write map with the fill byte everywhere else; against the software model of the probes
(conformance/emulator.py), the family fails against a TMA that restarts the swizzle at the
destination. It passes against the documented model in test_gpu_cases.py, and runs on a GPU
under the `gpu` marker there.
"""

from __future__ import annotations

import numpy as np
import pytest
from emulator import WRONG_MODELS, wrong_model_verdict  # conformance/emulator.py

from ptxconf.core.results import Status
from ptxconf.gpu import build
from ptxconf.gpu import tma as T
from ptxconf.gpu.families import tma as F
from ptxconf.oracle import tma
from ptxconf.oracle.records import TmaSwizzleMode
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def test_the_plan_is_a_case_a_mode_and_element_size() -> None:
    keys = [k for _, k in F.case_keys(SPEC)]
    assert keys == [f"{r.key}.{e}B" for r in SPEC.of(TmaSwizzleMode) for e in (1, 2, 4, 8)]
    assert [e for e, _ in T.sizes(SPEC)] == [1, 2, 4, 8]


@pytest.mark.parametrize("mode", ["none", "32B", "64B", "128B"])
def test_every_allowed_inner_width_is_written_on_and_off_the_repeat(mode: str) -> None:
    row = SPEC.get(TmaSwizzleMode, mode)
    copies = T.writes(SPEC, row, 2, "bf16")
    limit = tma.enum_row(SPEC, mode).max_inner_box_bytes
    widths = sorted({c.inner_bytes for c in copies})
    assert widths == (list(range(16, limit + 1, 16)) if limit else list(T.UNSWIZZLED_WIDTHS_BYTES))
    assert {c.dst_offset for c in copies} == {0, 128}
    for c in copies:  # each a box the documents allow, covering the largest repeat twice
        assert tma.box(SPEC, c.swizzle, c.dtype, c.rows, c.cols, c.dst_offset).size_bytes \
            >= min(2 * T.largest_repeat(SPEC), c.rows * c.inner_bytes)
    assert all(c.enumerator == tma.enum_row(SPEC, mode).id for c in copies)


def test_the_predicted_window_is_the_oracle_s_write_map() -> None:
    w = T.writes(SPEC, SPEC.get(TmaSwizzleMode, "128B"), 4, "f32")[-1]
    data = T.tensor_bytes(w)
    size = w.window_bytes(T.largest_repeat(SPEC))
    got = T.predicted_window(SPEC, w, 0x400, data, size)
    at = tma.write_addresses(SPEC, tma.box(SPEC, "128B", "f32", w.rows, w.cols,
                                           0x400 + w.dst_offset)) - 0x400
    elems = data.reshape(w.rows, w.cols, 4)
    assert [int(x) for x in got[at[3, 5]:at[3, 5] + 4]] == [int(x) for x in elems[3, 5]]
    untouched = np.ones(size, dtype=bool)
    for byte in range(4):
        untouched[(at + byte).ravel()] = False
    assert (got[untouched] == T.FILL_BYTE).all()
    assert int(untouched.sum()) == size - w.box_bytes


def test_a_window_too_small_for_the_write_is_refused() -> None:
    w = T.writes(SPEC, SPEC.get(TmaSwizzleMode, "64B"), 1, "u8")[0]
    with pytest.raises(ValueError, match="window"):
        T.predicted_window(SPEC, w, 0x400, T.tensor_bytes(w), 64)


def test_the_tensor_is_seeded_by_the_copy() -> None:
    a, b = T.writes(SPEC, SPEC.get(TmaSwizzleMode, "32B"), 1, "u8")[:2]
    assert (T.tensor_bytes(a) == T.tensor_bytes(a)).all()
    assert a.label != b.label
    assert T.tensor_bytes(a).shape == (a.rows, a.inner_bytes)


@pytest.mark.skipif(build.nvrtc_problem() is not None, reason=str(build.nvrtc_problem()))
def test_the_probe_kernel_compiles_for_sm_90a() -> None:
    got = build.nvrtc_compile(T.source(), build.arch_options(), name="tma_probe.cu")
    assert got.ok, got.log


def test_the_tensor_map_is_encoded_with_the_driver_s_own_int_types(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """cuTensorMapEncodeTiled takes its dims and strides as cuuint64_t and its box and element
    strides as cuuint32_t (plain ints fail in the bindings: seen on the H100); the 128 bytes
    come back with the bindings' name of the swizzle."""
    driver = pytest.importorskip("cuda.bindings.driver",
                                 reason="cuda-bindings is not installed (pip install '.[compile]')")
    from ptxconf.gpu import tma_launch

    seen: dict[str, object] = {}

    class Map:
        opaque = list(range(16))

    def encode(*args: object) -> tuple[object, Map]:
        seen["args"] = args
        return driver.CUresult.CUDA_SUCCESS, Map()

    monkeypatch.setattr(driver, "cuTensorMapEncodeTiled", encode)
    w = T.writes(SPEC, SPEC.get(TmaSwizzleMode, "64B"), 2, "bf16")[0]
    raw, name = tma_launch.tensor_map(w, 0x1000)
    assert len(raw) == 128
    assert name == "CU_TENSOR_MAP_SWIZZLE_64B"
    args = seen["args"]
    assert isinstance(args, tuple)
    dims, strides, box, steps = args[3:7]
    assert [type(d).__name__ for d in (*dims, *strides)] == ["cuuint64_t"] * 3
    assert [type(d).__name__ for d in (*box, *steps)] == ["cuuint32_t"] * 4
    assert [int(d) for d in dims] == [w.cols, w.rows]
    assert [int(d) for d in box] == [w.cols, w.rows]
    assert [int(s) for s in strides] == [w.inner_bytes]


#: This family's entries of emulator.WRONG_MODELS (the others: test_gpu_cases.py and the other
#: data-path files).
WRONG_FAMILIES = [f for f in WRONG_MODELS if f.startswith('gpu.tma_write')]


@pytest.mark.parametrize("family", WRONG_FAMILIES)
def test_a_wrong_model_fails_the_family(family: str) -> None:
    """A TMA that restarts the swizzle pattern at the destination: the case passes against the
    documented model (test_gpu_cases.py) and fails against this one, so the judgement reads the
    device's answer."""
    r, said = wrong_model_verdict(family)
    assert r.status in (Status.FAIL, Status.DISCREPANCY), said
    assert r.code == WRONG_MODELS[family][2], said
