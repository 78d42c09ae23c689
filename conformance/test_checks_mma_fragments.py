"""mma.sync fragment checks (oracle/checks/mma_fragments.py): the PTX ISA's formulas
(spec/warp/mma_fragments.yaml) and CuTe's SM80/SM89 atoms (spec/cute/mma_traits_sm*.yaml,
mma_layouts_sm*.yaml), each outcome by status, code and fields (wording:
messages_checks_mma_fragments.py).

Worked by hand: the tf32 BLayout ((4,8),2):((8,1),32) with its thread strides exchanged,
((4,8),2):((1,8),32), puts (T t0 + 4 t1, V v) at n + 8 k = t0 + 8 t1 + 32 v; the ISA's b_v of
lane t (groupID t1, threadID_in_group t0) is (k t0 + 4 v, n t1), index t1 + 8 t0 + 32 v. They
agree where t0 = t1 (threads 0, 5, 10, 15, both values): 56 of 64 differ, the first at (T1,
V0): CuTe's index 1 (n 1, k 0), the ISA's 8 (n 0, k 1).
"""

from __future__ import annotations

import pytest
from case_outcomes import expect_fields, run_module_case
from scratch_spec import default_row_replaced

from ptxconf.core.results import Status
from ptxconf.oracle.checks import mma_fragments
from ptxconf.oracle.records import CuteMmaTraits, MmaFragment
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
FRAG = "warp/mma_fragments"
SM80 = "cute/mma_traits_sm80"
TF32 = "SM80_16x8x8_F32TF32TF32F32_TN"
IDS = [c.id for c in mma_fragments.cases(SPEC)]


def test_the_bundled_spec_s_two_statements_agree_for_an_fp8_pair() -> None:
    """(Every case of the bundled spec passes: conformance/test_cases.py runs them all.)"""
    res = run_module_case(mma_fragments, SPEC, f"cute.mma_vs_ptx[cute/mma_traits_sm89:"
                          f"SM89_16x8x32_F32E4M3E5M2F32_TN~{FRAG}:m16n8k32.B.s8]")
    assert (res.status, res.code) == (Status.PASS, "ok"), res.message


def test_one_case_per_fragment_row_per_traits_row_and_per_operand_of_each() -> None:
    frags, traits = len(SPEC.of(MmaFragment)), len(SPEC.of(CuteMmaTraits))
    bases = len({t.layouts_of for t in SPEC.of(CuteMmaTraits)})
    assert len(IDS) == frags + traits + bases + 3 * traits
    assert "cute.mma_layouts_read[cute/mma_layouts_sm89:SM89_16x8x32.E4M3.ThrID]" in IDS
    assert f"cute.mma_vs_ptx[{SM80}:{TF32}~{FRAG}:m16n8k8.B.tf32]" in IDS
    assert (f"cute.mma_vs_ptx[cute/mma_traits_sm89:SM89_16x8x32_F32E5M2E4M3F32_TN"
            f"~{FRAG}:m16n8k32.A.s8]") in IDS


def test_a_cute_layout_other_than_the_isas_is_a_discrepancy_at_its_first_point() -> None:
    spec = default_row_replaced("CuteLayout", "SM80_16x8x8.TF32.BLayout",
                                layout="((4,8),2):((1,8),32)")
    res = run_module_case(mma_fragments, spec, f"cute.mma_vs_ptx[{SM80}:{TF32}~{FRAG}:m16n8k8.B.tf32]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", point=[1, 0], cute=[1, 0],
                  ptx=[0, 1], differ=56, layout="((4,8),2):((1,8),32)",
                  fragment=f"{FRAG}:m16n8k8.B.tf32")


def test_a_name_that_disagrees_with_its_value_types_fails() -> None:
    spec = default_row_replaced("CuteMmaTraits", TF32, val_type_c="f16")
    res = run_module_case(mma_fragments, spec, f"cute.mma_traits[{SM80}:{TF32}]")
    expect_fields(res, Status.FAIL, "mismatch", documented=("f32", "tf32", "tf32", "f16"),
                  derived=("f32", "tf32", "tf32", "f32"), source=f"{SM80}:{TF32}",
                  witness=f"the name {TF32}")


def test_traits_of_another_shape_fail() -> None:
    spec = default_row_replaced("CuteMmaTraits", TF32, layouts_of="SM80_16x8x16_F16F16F16F16_TN")
    res = run_module_case(mma_fragments, spec, f"cute.mma_traits[{SM80}:{TF32}]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")
    assert (res.fields["documented"], res.fields["derived"]) == ("8", "16")


def test_an_operand_type_the_isa_rows_do_not_state_fails_naming_the_row_it_wanted() -> None:
    spec = default_row_replaced("CuteMmaTraits", TF32, val_type_a="s8", val_type_b="s8")
    case_id = f"cute.mma_vs_ptx[{SM80}:{TF32}~m16n8k8.A.s8]"
    res = run_module_case(mma_fragments, spec, case_id)
    expect_fields(res, Status.FAIL, "mismatch", wanted="m16n8k8.A.s8")


def test_a_register_type_wider_than_a_register_fails() -> None:
    spec = default_row_replaced("MmaFragment", "m16n8k8.A.f16", register_type="f16x4")
    res = run_module_case(mma_fragments, spec, f"mma.fragment[{FRAG}:m16n8k8.A.f16]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")
    assert (res.fields["documented"], res.fields["derived"]) == (64, 32)


def test_registers_that_do_not_hold_the_listed_elements_fail() -> None:
    spec = default_row_replaced("MmaFragment", "m16n8k32.A.s8", registers=3)
    res = run_module_case(mma_fragments, spec, f"mma.fragment[{FRAG}:m16n8k32.A.s8]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")
    assert (res.fields["documented"], res.fields["derived"]) == (12, 16)


def test_a_formula_that_maps_two_elements_to_one_fails_naming_both() -> None:
    """k32's A with its +16 dropped from the i >= 8 line: lane 0's a8 is its a0's (row 0, col 0)."""
    row = SPEC.get(MmaFragment, "m16n8k32.A.s8")
    col = (row.col[0], type(row.col[1])(value="(threadID_in_group * 4) + (i & 0x3)",
                                          where="i >= 8"))
    spec = default_row_replaced("MmaFragment", row.id, col=col)
    res = run_module_case(mma_fragments, spec, f"mma.fragment[{FRAG}:m16n8k32.A.s8]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")
    assert "lane 0 element 0 and lane 0 element 8 both hold (row 0, col 0)" in res.message


@pytest.mark.parametrize(("row_id", "register_type", "documented", "derived"), [
    ("m16n8k8.A.f16", "f32", 2, 1),      # an f32 register holds one element, the row two
    ("m16n8k8.C.f32", "f16x2", 1, 2),    # f16x2 packs two, the row lists one a register
    ("m16n8k32.A.s8", "f16x2", 4, 2),
])
def test_a_register_type_that_holds_other_than_the_rows_elements_fails(
        row_id: str, register_type: str, documented: int, derived: int) -> None:
    spec = default_row_replaced("MmaFragment", row_id, register_type=register_type)
    res = run_module_case(mma_fragments, spec, f"mma.fragment[{FRAG}:{row_id}]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")
    assert (res.fields["documented"], res.fields["derived"]) == (documented, derived)


def test_an_element_typed_register_holds_that_type() -> None:
    """s32 registers for the f32 accumulator: one 32-bit element each, but not an f32."""
    spec = default_row_replaced("MmaFragment", "m16n8k8.C.f32", register_type="s32")
    res = run_module_case(mma_fragments, spec, f"mma.fragment[{FRAG}:m16n8k8.C.f32]")
    expect_fields(res, Status.FAIL, "mismatch", register_type="s32", types=["f32"])


def test_layouts_no_traits_row_reads_fail() -> None:
    """The SM89 traits rows gone (their file deleted, say): the SM89 layouts are read by none."""
    spec = Spec(SPEC.root, tuple(r for r in SPEC.rows if not r.file.startswith("cute/mma_traits_sm89")))
    res = run_module_case(mma_fragments, spec,
                          "cute.mma_layouts_read[cute/mma_layouts_sm89:SM89_16x8x32.E4M3.ThrID]")
    expect_fields(res, Status.FAIL, "mismatch", atom="SM89_16x8x32_F32E4M3E4M3F32_TN")
