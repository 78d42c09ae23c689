"""The TMA checks (oracle/checks/tma_checks.py): each PTX ISA swizzling mode against its printed
table, its repeat and base-offset formula, wgmma's canonical swizzles and base-offset table, the
driver's CUtensorMapSwizzle enumerators and CuTe's get_tma_swizzle_bits; the box requirements
against each other and the swizzle cell.

Every case passes on the bundled spec; each failure comes from a spec with one row changed in
memory (scratch_spec.replaced_row), asserted by status, code and fields (the wording is pinned by
messages_tma.py).
"""

from __future__ import annotations

import pytest
from case_outcomes import expect_fields, expect_mismatch_fields, run_module_case
from scratch_spec import replaced_row

from ptxconf.core.results import Result, Status
from ptxconf.oracle.checks import tma_checks
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()


def _run(spec: Spec, case_id: str) -> Result:
    return run_module_case(tma_checks, spec, case_id)


def test_every_case_passes_on_the_bundled_spec() -> None:
    from ptxconf.core.cases import execute

    results = [execute(c) for c in tma_checks.cases(SPEC)]
    assert len(results) == 4 * 3 + 4 + 4 + 6
    assert [r.id for r in results if r.status is not Status.PASS] == []


def test_a_printed_cell_off_the_swizzle_fails_naming_its_line() -> None:
    key = "tma/swizzling_modes:64B"
    spec = replaced_row(SPEC, key, pattern=("0 1 2 3 4 5 6 7", "1 0 3 2 5 4 7 6",
                                            "2 3 0 1 6 7 4 5", "3 2 1 0 7 6 4 5"))
    res = _run(spec, f"tma.pattern[{key}]")
    expect_fields(res, Status.FAIL, "mismatch", line=3, printed=[3, 2, 1, 0, 7, 6, 4, 5],
                  derived=[3, 2, 1, 0, 7, 6, 5, 4], swizzle="Swizzle<2,4,3>")


def test_a_line_that_is_not_whole_cells_fails() -> None:
    key = "tma/swizzling_modes:128B"
    res = _run(replaced_row(SPEC, key, line_bytes=256, repeat_bytes=2048), f"tma.pattern[{key}]")
    expect_mismatch_fields(res, f"{key} line_bytes", 256, "the printed line's cells", 128)


def test_a_repeat_off_the_swizzle_s_period_fails() -> None:
    key = "tma/swizzling_modes:32B"
    res = _run(replaced_row(SPEC, key, repeat_bytes=512), f"tma.repeat[{key}]")
    expect_mismatch_fields(res, key, 512, "the period of Swizzle<1,4,3>", 256)


def test_a_wrong_base_offset_modulus_fails() -> None:
    key = "tma/swizzling_modes:64B"
    res = _run(replaced_row(SPEC, key, base_offset_modulus=8), f"tma.repeat[{key}]")
    expect_mismatch_fields(res, key, 8, "repeat_bytes / line_bytes", 4)


def test_wgmma_s_base_offset_table_disagreeing_is_a_discrepancy() -> None:
    spec = replaced_row(SPEC, "wgmma/base_offset:base_offset.64B", repeat_bytes=1024)
    res = _run(spec, "tma.repeat[tma/swizzling_modes:64B]")
    expect_mismatch_fields(res, "wgmma/base_offset:base_offset.64B", 1024,
                           "tma/swizzling_modes:64B", 512, Status.DISCREPANCY)


def test_a_mode_without_a_swizzle_states_no_repeat() -> None:
    key = "tma/swizzling_modes:none"
    res = _run(replaced_row(SPEC, key, repeat_bytes=128), f"tma.repeat[{key}]")
    expect_fields(res, Status.FAIL, "mismatch", repeat_bytes=128)


def test_wgmma_reading_another_swizzle_is_a_discrepancy() -> None:
    spec = replaced_row(SPEC, "wgmma/canonical_layouts:MN_SW64", swizzle_shift=4)
    res = _run(spec, "tma.wgmma_swizzle[tma/swizzling_modes:64B]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", tma="Swizzle<2,4,3>",
                  wgmma="Swizzle<2,4,4>", canonical="wgmma/canonical_layouts:MN_SW64")


@pytest.mark.parametrize(("changes", "documented", "derived", "source", "witness"), [
    ({"span_bytes": 64, "max_inner_box_bytes": 64}, 64, 32, "{key}",
     "tma/swizzling_modes:32B: 2**B cells of Swizzle<1,4,3>"),
    ({"max_inner_box_bytes": 16}, 16, 32, "{key} max_inner_box_bytes",
     "{key} span_bytes (\"<= the swizzle size\")"),
    ({"chunk_bytes": 32}, 16, 32, "tma/swizzling_modes:32B", "{key}"),
], ids=["span", "inner-limit", "chunk"])
def test_a_driver_enumerator_off_the_ptx_mode_is_a_discrepancy(
        changes: dict[str, int], documented: int, derived: int, source: str,
        witness: str) -> None:
    key = "tma/tensor_map_swizzle:CU_TENSOR_MAP_SWIZZLE_32B"
    res = _run(replaced_row(SPEC, key, **changes), f"tma.tensor_map[{key}]")
    expect_mismatch_fields(res, source.format(key=key), documented, witness.format(key=key),
                           derived, Status.DISCREPANCY)


def test_the_none_enumerator_states_no_span() -> None:
    key = "tma/tensor_map_swizzle:CU_TENSOR_MAP_SWIZZLE_NONE"
    res = _run(replaced_row(SPEC, key, span_bytes=16), f"tma.tensor_map[{key}]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")


def test_cute_taking_another_swizzle_to_an_enumerator_is_a_discrepancy() -> None:
    key = "cute/tma_swizzle:B64"
    res = _run(replaced_row(SPEC, key, swizzle_shift=2), f"tma.cute[{key}]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", cute="Swizzle<2,4,2>",
                  ptx="Swizzle<2,4,3>", enumerator="CU_TENSOR_MAP_SWIZZLE_64B")
    res = _run(replaced_row(SPEC, key, value=3), f"tma.cute[{key}]")
    expect_mismatch_fields(res, key, 3, "the B of its Swizzle<B,M,S>", 2, Status.DISCREPANCY)
    res = _run(replaced_row(SPEC, key, tensor_map_swizzle="CU_TENSOR_MAP_SWIZZLE_96B"),
               f"tma.cute[{key}]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")


@pytest.mark.parametrize(("key", "changes", "status"), [
    ("tma/bounding_box:box_size", {"multiple_bytes": 32}, Status.DISCREPANCY),
    ("tma/tensor_map_limits:boxDim0_bytes", {"multiple_bytes": 24}, Status.FAIL),
    ("tma/bounding_box:box_address", {"alignment_bytes": 8}, Status.FAIL),
    ("tma/tensor_map_limits:globalAddress", {"alignment_bytes": 32}, Status.DISCREPANCY),
    ("tma/tensor_map_limits:globalStrides", {"multiple_bytes": 8}, Status.FAIL),
    ("tma/tensor_map_limits:boxDim", {"max_elems": 32}, Status.FAIL),
], ids=["box-size", "inner-granule", "box-address", "global-address", "strides", "box-dim"])
def test_a_requirement_off_its_tie_fails(key: str, changes: dict[str, int], status: Status) -> None:
    res = _run(replaced_row(SPEC, key, **changes), f"tma.requirement[{key}]")
    assert res.status is status, res.message
