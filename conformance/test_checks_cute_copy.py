"""CuTe's ldmatrix / stmatrix copy atoms against the PTX ISA's rows (oracle/checks/cute_copy.py):
the Operation structs (spec/cute/copy_ops_sm75.yaml, _sm90.yaml) issue forms of the PTX rows with
their registers, and the Copy_Traits layouts (spec/cute/copy_traits_*.yaml) map every (thread,
value) to the bit the PTX ISA's maps put there; a difference is a spec discrepancy.

Expected values are worked by hand from CUTLASS's headers and the PTX ISA's words:

* SM75_U16x2_LDSM_T's DstLayout ((4,8),(16,2)):((256,16),(1,128)) puts bit b of element h of lane
  t at 256 (t % 4) + 16 (t / 4) + 128 h + b: stored row 2 (t % 4) + h (128 bits a row), column
  t / 4 (16 bits an element), the PTX's column-major .trans; with its two thread strides
  exchanged, ((4,8),(16,2)):((16,256),(1,128)), lane 1's element 0 lands at bit 16, where the
  PTX puts lane 4's (lane 0 is at bit 0 either way): lane 1 is the first to differ;
* SM75_U32x1_LDSM_N's SrcLayout ((8,4),128):((128,0),1): threads 8-31 repeat the rows of threads
  0-7 ("addresses contained in lower threads can be copied to higher threads"); a thread stride
  of 1 for the repeat, (128,1), puts thread 8's row at bit 1, inside row 0: no row start;
* SM90_U32x1_STSM_N's SrcLayout is LDSM's DstLayout by name; naming its SrcLayout instead gives a
  (32, 128) layout where the registers are (32, 32).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_fields, expect_mismatch_fields
from case_outcomes import run_module_case as _run
from scratch_spec import edited_spec

from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.oracle.checks import cute_copy
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
OPS75 = "cute/copy_ops_sm75"
TR75 = "cute/copy_traits_sm75"
TR90 = "cute/copy_traits_sm90"


@pytest.mark.parametrize("case", list(cute_copy.cases(SPEC)), ids=lambda c: c.id)
def test_every_atom_agrees_with_the_ptx_rows(case: object) -> None:
    res = execute(case)  # type: ignore[arg-type]
    assert (res.status, res.code) == (Status.PASS, "ok"), res.message


def test_an_op_and_a_traits_case_for_each_of_the_twelve_atoms() -> None:
    ids = [c.id for c in cute_copy.cases(SPEC)]
    assert len(ids) == 24
    assert "cute.copy_layouts[cute/copy_traits_sm90:SM90_U16x8_STSM_T]" in ids


def test_a_transpose_with_its_thread_strides_exchanged_is_a_discrepancy(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "cute/copy_traits_sm75.yaml",
                       'dst_layout: "Layout<Shape <Shape <  _4, _8>,Shape <_16,  _2>>, '
                       'Stride<Stride<_256,_16>,Stride< _1,_128>>>"',
                       'dst_layout: "Layout<Shape <Shape <  _4, _8>,Shape <_16,  _2>>, '
                       'Stride<Stride<_16,_256>,Stride< _1,_128>>>"')
    res = _run(cute_copy, spec, f"cute.copy_layouts[{TR75}:SM75_U16x2_LDSM_T]")
    assert (res.status, res.code) == (Status.DISCREPANCY, "documents_disagree")
    assert res.fields["layout"] == "((4,8),(16,2)):((16,256),(1,128))"
    assert res.fields["points"][0][:2] == [1, 0]
    assert res.fields["differing"] > 0


def test_a_repeated_address_that_is_no_row_start_is_a_discrepancy(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "cute/copy_traits_sm75.yaml",
                       'src_layout: "Layout<Shape <Shape <  _8,_4>,_128>, Stride<Stride<_128,_0>,'
                       '  _1>>"\n    dst_layout: "Layout<Shape <_32,_32>',
                       'src_layout: "Layout<Shape <Shape <  _8,_4>,_128>, Stride<Stride<_128,_1>,'
                       '  _1>>"\n    dst_layout: "Layout<Shape <_32,_32>')
    res = _run(cute_copy, spec, f"cute.copy_layouts[{TR75}:SM75_U32x1_LDSM_N]")
    assert (res.status, res.code) == (Status.DISCREPANCY, "documents_disagree")
    assert res.fields["points"][0][:2] == [8, 0]


def test_stsm_naming_the_wrong_ldsm_layout_is_a_discrepancy(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "cute/copy_traits_sm90.yaml",
                       'src_layout: "typename Copy_Traits<SM75_U32x1_LDSM_N>::DstLayout"',
                       'src_layout: "typename Copy_Traits<SM75_U32x1_LDSM_N>::SrcLayout"')
    res = _run(cute_copy, spec, f"cute.copy_layouts[{TR90}:SM90_U32x1_STSM_N]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree",
                  layout="((8,4),128):((128,0),1)", derived=[32, 32])


def test_a_layout_named_from_an_atom_the_spec_lacks_fails(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "cute/copy_traits_sm90.yaml",
                       'src_layout: "typename Copy_Traits<SM75_U32x1_LDSM_N>::DstLayout"',
                       'src_layout: "typename Copy_Traits<SM75_U32x1_LDSM_X>::DstLayout"')
    res = _run(cute_copy, spec, f"cute.copy_layouts[{TR90}:SM90_U32x1_STSM_N]")
    expect_fields(res, Status.FAIL, "mismatch")


def test_a_ref_layout_of_the_shared_memory_side_fails(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "cute/copy_traits_sm75.yaml",
                       "ref_layout: DstLayout\n    cite: {anchor: \"Copy_Traits<SM75_U32x1_LDSM_N>",
                       "ref_layout: SrcLayout\n    cite: {anchor: \"Copy_Traits<SM75_U32x1_LDSM_N>")
    res = _run(cute_copy, spec, f"cute.copy_layouts[{TR75}:SM75_U32x1_LDSM_N]")
    expect_mismatch_fields(res, f"{TR75}:SM75_U32x1_LDSM_N", "SrcLayout",
                           "the register side of LDSM", "DstLayout")


def test_an_ldsm_atom_of_another_architecture_is_a_discrepancy(tmp_path: Path) -> None:
    """ldmatrix's shape row moved to sm_80: CuTe's SM75 names another target."""
    spec = edited_spec(tmp_path, "warp/ldmatrix_shapes.yaml", "target: sm_75", "target: sm_80")
    res = _run(cute_copy, spec, f"cute.copy_op[{OPS75}:SM75_U32x1_LDSM_N]")
    expect_mismatch_fields(res, f"{OPS75}:SM75_U32x1_LDSM_N", 75,
                           "warp/ldmatrix_shapes:ldmatrix.m8n8's target sm_80", 80,
                           Status.DISCREPANCY)


def test_an_asm_string_of_another_num_is_a_discrepancy(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "cute/copy_ops_sm75.yaml",
                       'ptx: "ldmatrix.sync.aligned.x1.m8n8.shared.b16"',
                       'ptx: "ldmatrix.sync.aligned.x2.m8n8.shared.b16"')
    res = _run(cute_copy, spec, f"cute.copy_op[{OPS75}:SM75_U32x1_LDSM_N]")
    expect_mismatch_fields(res, f"{OPS75}:SM75_U32x1_LDSM_N", 32,
                           "2 32-bit registers of ldmatrix.m8n8.x2.b16", 64, Status.DISCREPANCY)


def test_a_shared_memory_array_of_two_rows_is_a_discrepancy(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "cute/copy_ops_sm75.yaml",
                       'x4.m8n8.shared.b16"\n    s_registers: "uint128_t[1]"',
                       'x4.m8n8.shared.b16"\n    s_registers: "uint128_t[2]"')
    res = _run(cute_copy, spec, f"cute.copy_op[{OPS75}:SM75_U32x4_LDSM_N]")
    expect_mismatch_fields(res, f"{OPS75}:SM75_U32x4_LDSM_N", (128, 2),
                           "one 16-byte row a thread (warp/ldmatrix_shapes:ldmatrix.m8n8)",
                           (128, 1), Status.DISCREPANCY)
