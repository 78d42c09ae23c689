"""Message examples of the ldmatrix / stmatrix family: the oracle's refusals (oracle/ldmatrix.py,
ldmatrix_smem.py), the checks (oracle/checks/warp_matrix.py, cute_copy.py: the cases `warp.*`,
`cute.copy_*`) and the proofs (oracle/proofs/warp_matrix.py), one per message shape that is not
expect_equal's (messages_core.py pins that one), each for the input its test in
conformance/test_ldmatrix*.py, test_checks_warp_matrix.py, test_checks_cute_copy.py or
test_proofs_warp_matrix.py uses (see golden_messages.py)."""

from __future__ import annotations

from case_outcomes import run_module_case as _run
from golden_messages import example, raised
from scratch_spec import default_row_replaced, edited_scratch_spec

from ptxconf.core.cases import execute
from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle import ldmatrix_smem as sm
from ptxconf.oracle.checks import cute_copy, warp_examples, warp_matrix
from ptxconf.oracle.proofs import warp_matrix as proofs
from ptxconf.oracle.proofs.cases import claim_case
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
LD = "warp/ldmatrix_shapes:ldmatrix.m8n8"
ST = "warp/stmatrix_shapes:stmatrix.m8n8"


def _prove(spec: Spec, claim_id: str) -> str:
    claim = next(c for c in proofs.claims(spec) if c.id == claim_id)
    return execute(claim_case(claim, 30.0)).message


# --- oracle/ldmatrix.py, ldmatrix_smem.py ----------------------------------------------------


@example("form.unknown")
def _form_unknown() -> str:
    return raised(lambda: lm.form(SPEC, "ldmatrix.m8n8.x8.b16"))


@example("fragment.no_fragment_row")
def _no_fragment_row() -> str:
    later = next(f for f in lm.forms(SPEC, derivable=False) if f.fragment is None)
    return raised(lambda: lm.fragment(later))


@example("fragment.threads_do_not_make_a_row")
def _threads_do_not_make_a_row() -> str:
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", threads_per_row=2)
    return raised(lambda: lm.fragment(lm.form(spec, "ldmatrix.m8n8.x1.b16")))


@example("smem.problems_of_a_swizzle_on_8_byte_units")
def _smem_problems() -> str:
    t = sm.tile(SPEC, "Swizzle<3,3,3> o 0 o (16,32):(32,1)", "f16")
    return "\n".join(sm.access(SPEC, lm.form(SPEC, "ldmatrix.m8n8.x2.b16"), t).problems())


@example("smem.problems_of_a_row_major_16_column_tile")
def _smem_banks() -> str:
    t = sm.tile(SPEC, "(16,16):(16,1)", "f16")
    return "\n".join(sm.access(SPEC, lm.form(SPEC, "ldmatrix.m8n8.x4.b16"), t).problems())


@example("smem.tile_too_small")
def _smem_too_small() -> str:
    t = sm.tile(SPEC, "(8,8):(8,1)", "f16")
    return raised(lambda: sm.access(SPEC, lm.form(SPEC, "ldmatrix.m8n8.x4.b16"), t))


# --- oracle/checks/warp_matrix.py ---------------------------------------------------------------


@example("warp.shape.passes")
def _shape_passes() -> str:
    return _run(warp_matrix, SPEC, f"warp.shape[{LD}]").message


@example("warp.shape.a_later_target")
def _shape_later() -> str:
    return _run(warp_matrix, SPEC, "warp.shape[warp/ldmatrix_shapes:ldmatrix.m16n16]").message


@example("warp.shape.sm90_without_a_fragment_row")
def _shape_no_fragment() -> str:
    spec = edited_scratch_spec("warp/ldmatrix_shapes.yaml", "registers_per_matrix: 2\n    "
                               "target: sm_100a", "registers_per_matrix: 2\n    target: sm_90")
    return _run(warp_matrix, spec, "warp.shape[warp/ldmatrix_shapes:ldmatrix.m16n16]").message


@example("warp.addresses.passes")
def _addresses_passes() -> str:
    return _run(warp_matrix, SPEC, "warp.addresses[warp/ldmatrix_addresses:ldmatrix.x4]").message


@example("warp.addresses.out_of_order")
def _addresses_out_of_order() -> str:
    spec = edited_scratch_spec("warp/ldmatrix_addresses.yaml",
                               'addresses: ["addr0–addr7", "addr8–addr15", "–", "–"]',
                               'addresses: ["addr0–addr7", "–", "addr8–addr15", "–"]')
    return _run(warp_matrix, spec, "warp.addresses[warp/ldmatrix_addresses:ldmatrix.x2]").message


@example("warp.addresses_agree.passes")
def _agree_passes() -> str:
    return _run(warp_matrix, SPEC, "warp.addresses_agree[warp/stmatrix_addresses:stmatrix.x2~"
                                   "warp/ldmatrix_addresses:ldmatrix.x2]").message


@example("warp.addresses_agree.the_tables_differ")
def _agree_differ() -> str:
    spec = default_row_replaced("WarpMatrixAddresses", "stmatrix.x2",
                                addresses=("addr8–addr15", "addr0–addr7", "–", "–"))
    return _run(warp_matrix, spec, "warp.addresses_agree[warp/stmatrix_addresses:stmatrix.x2~"
                                   "warp/ldmatrix_addresses:ldmatrix.x2]").message


@example("warp.fragment.passes")
def _fragment_passes() -> str:
    return _run(warp_matrix, SPEC, "warp.fragment[warp/matrix_fragments:ldmatrix.m8n8]").message


@example("warp.form.passes")
def _form_passes() -> str:
    return _run(warp_matrix, SPEC, f"warp.form[{LD}.x4.trans.b16]").message


@example("warp.form.no_bijection")
def _form_no_bijection() -> str:
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", threads_per_row=2)
    return _run(warp_matrix, spec, f"warp.form[{LD}.x1.b16]").message


# --- oracle/checks/cute_copy.py ---------------------------------------------------------------


@example("cute.copy_op.passes")
def _op_passes() -> str:
    return _run(cute_copy, SPEC, "cute.copy_op[cute/copy_ops_sm75:SM75_U16x8_LDSM_T]").message


@example("cute.copy_layouts.passes")
def _layouts_passes() -> str:
    return _run(cute_copy, SPEC, "cute.copy_layouts[cute/copy_traits_sm90:SM90_U16x8_STSM_T]").message


@example("cute.copy_layouts.a_point_differs")
def _layouts_differ() -> str:
    spec = edited_scratch_spec("cute/copy_traits_sm75.yaml",
                               'dst_layout: "Layout<Shape <Shape <  _4, _8>,Shape <_16,  _2>>, '
                               'Stride<Stride<_256,_16>,Stride< _1,_128>>>"',
                               'dst_layout: "Layout<Shape <Shape <  _4, _8>,Shape <_16,  _2>>, '
                               'Stride<Stride<_16,_256>,Stride< _1,_128>>>"')
    return _run(cute_copy, spec, "cute.copy_layouts[cute/copy_traits_sm75:SM75_U16x2_LDSM_T]").message


@example("cute.copy_layouts.another_domain")
def _layouts_domain() -> str:
    spec = edited_scratch_spec("cute/copy_traits_sm90.yaml",
                               'src_layout: "typename Copy_Traits<SM75_U32x1_LDSM_N>::DstLayout"',
                               'src_layout: "typename Copy_Traits<SM75_U32x1_LDSM_N>::SrcLayout"')
    return _run(cute_copy, spec, "cute.copy_layouts[cute/copy_traits_sm90:SM90_U32x1_STSM_N]").message


# --- oracle/proofs/warp_matrix.py --------------------------------------------------------------


@example("proof.warp_fragment_bijective.proved")
def _bijective_proved() -> str:
    return _prove(SPEC, f"proof.warp_fragment_bijective[{LD}.x4.b16]")


@example("proof.warp_fragment_bijective.outside")
def _bijective_outside() -> str:
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", threads_per_row=2)
    return _prove(spec, f"proof.warp_fragment_bijective[{LD}.x2.b16]")


@example("proof.warp_trans_transpose.proved")
def _transpose_proved() -> str:
    return _prove(SPEC, f"proof.warp_trans_transpose[{LD}.x2.trans.b16]")


@example("proof.warp_store_inverts_load.proved")
def _inverse_proved() -> str:
    return _prove(SPEC, f"proof.warp_store_inverts_load[{ST}.x4.trans.b16~{LD}.x4.trans.b16]")


@example("proof.warp_store_inverts_load.stored_elsewhere")
def _inverse_elsewhere() -> str:
    spec = default_row_replaced("WarpMatrixFragment", "stmatrix.m8n8", threads_per_row=2)
    return _prove(spec, f"proof.warp_store_inverts_load[{ST}.x1.b16~{LD}.x1.b16]")


@example("proof.warp_store_inverts_load.other_rows")
def _inverse_rows() -> str:
    spec = default_row_replaced("WarpMatrixAddresses", "stmatrix.x2",
                                addresses=("addr8–addr15", "addr0–addr7", "–", "–"))
    return _prove(spec, f"proof.warp_store_inverts_load[{ST}.x2.b16~{LD}.x2.b16]")


# --- oracle/checks/warp_examples.py -------------------------------------------------------------


@example("warp.example.passes")
def _example_passes() -> str:
    return _run(warp_examples, SPEC, "warp.example[warp/ldmatrix_examples:ldmatrix.m8n8.x2.trans.b16]").message


@example("warp.example.element_bits")
def _example_bits() -> str:
    return _run(warp_examples, SPEC, "warp.example[warp/ldmatrix_examples:ldmatrix.m16n16.x1.trans.b8]").message


@example("warp.example.generic_addressing")
def _example_generic() -> str:
    return _run(warp_examples, SPEC, "warp.example[warp/stmatrix_examples:stmatrix.m16n8.x1.trans.b8]").message


@example("warp.example.no_form_of_the_section")
def _example_no_form() -> str:
    return _run(warp_examples, SPEC, "warp.example[warp/stmatrix_examples:stmatrix.m16n8.x4.b8]").message


# --- gpu/families/ldmatrix.py (against the software model of the probes, conformance/emulator.py) --


@example("gpu.ldmatrix.passes")
def _gpu_passes() -> str:
    from emulator import Emulator, run_case

    return run_case(Emulator(SPEC), "gpu.ldmatrix[m8n8.x4.trans.b16:MN_SW128]").message


@example("gpu.ldmatrix.registers_differ")
def _gpu_registers_differ() -> str:
    from emulator import Emulator, run_case

    model = Emulator(SPEC, wrong="warp_matrix_lane_off_by_one")
    return run_case(model, "gpu.ldmatrix[m8n8.x1.b16]").message


@example("gpu.stmatrix.image_differs")
def _gpu_image_differs() -> str:
    from emulator import Emulator, run_case

    model = Emulator(SPEC, wrong="warp_matrix_trans_ignored")
    return run_case(model, "gpu.stmatrix[m8n8.x2.trans.b16]").message
