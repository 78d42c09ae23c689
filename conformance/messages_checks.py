"""Message examples of the spec's checks (src/ptxconf/oracle/checks): one per message shape that is
not expect_equal's (messages_core.py pins that one), each for the input its test in
conformance/test_checks_<module>.py uses (see golden_messages.py); the CuTe checks' (`cute.*`)
are messages_checks_cute.py's."""

from __future__ import annotations

from case_outcomes import run_case as _run
from case_outcomes import run_module_case as _run_module
from golden_messages import example
from scratch_spec import descriptor_field_replaced, edited_scratch_spec

from ptxconf.core.cases import execute
from ptxconf.core.results import Result
from ptxconf.oracle.checks import (
    completeness,
    cutedsl,
    cutedsl_ties,
    descriptor_checks,
    element_witness,
    fragments_checks,
    register_types,
    wmma_checks,
)
from ptxconf.oracle.checks import smem_layouts as smem
from ptxconf.oracle.lint.cases import lint_cases
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
EXAMPLE = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"
def _example(spec: Spec) -> Result:
    return _run(wmma_checks.cases(spec), f"wmma.alignment_example[{EXAMPLE}]")


EX = "cutedsl/worked_examples"
EX_FILE = "cutedsl/worked_examples.yaml"


SWZ = f"cutedsl.swizzle[{EX}:swizzle.S243.7_25]"
S143 = "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, period_units: 256"
S143_KEY = "cutedsl/worked_examples:period.S143"
K16_A_KEY = "wgmma/register_fragments:k16.A.f16"
IMM_A1 = 'transposed: true, major: MN, spelled: "imm-trans-a is 1"'
WMMA_EXAMPLE = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"


@example("wmma.alignment_example.the_alignment_example_adds_up")
def _the_alignment_example_adds_up() -> str:
    return _example(SPEC).message


@example("instruction.immediate.imm_trans_a_lists_the_types_imm_trans_b_lists")
def _imm_trans_a_lists_the_types_imm_trans_b_lists() -> str:
    res = _run(fragments_checks.cases(SPEC), "instruction.immediate[wgmma/instruction_operands:imm-trans-a]")
    return res.message


@example("operand.storage.b_lives_in_shared_memory_only")
def _b_lives_in_shared_memory_only() -> str:
    res = _run(fragments_checks.cases(SPEC), "operand.storage[wgmma/operand_storage:B]")
    return res.message


@example("base_offset.field_width.the_base_offset_mask_fills_the_3_bit_field")
def _the_base_offset_mask_fills_the_3_bit_field() -> str:
    res = _run(descriptor_checks.cases(SPEC), "base_offset.field_width[wgmma/base_offset:base_offset.128B]")
    return res.message


@example("cutedsl.swizzle.the_swizzle_example_maps_249_to_233")
def _the_swizzle_example_maps_249_to_233() -> str:
    return _run(cutedsl.cases(SPEC), SWZ).message


@example("cutedsl.swizzle.a_layout_that_is_not_compact_fails_by_its_text")
def _a_layout_that_is_not_compact_fails_by_its_text() -> str:
    spec = edited_scratch_spec(EX_FILE, 'layout: "(8,32):(32,1)"', 'layout: "(8,32):(64,1)"')
    return _run(cutedsl.cases(spec), SWZ).message


@example("cutedsl.period.an_identity_swizzle_with_shift_0_has_period_2_to_the_m")
def _an_identity_swizzle_with_shift_0_has_period_2_to_the_m() -> str:
    spec = edited_scratch_spec(EX_FILE,
                               "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, period_units: 256, "
                               "stated_period_bytes: 32",
                               "swizzle_bits: 0, swizzle_base: 4, swizzle_shift: 0, period_units: 16, "
                               "stated_period_bytes: 16")
    res = _run(cutedsl.cases(spec), f"cutedsl.period[{EX}:period.S143]")
    return res.message


@example("cutedsl.tile_to_shape.a_result_that_does_not_parse_is_a_discrepancy_naming_the_column")
def _a_result_that_does_not_parse_is_a_discrepancy_naming_the_column() -> str:
    spec = edited_scratch_spec(EX_FILE, 'result: "Swizzle<1,4,3> o 0 o', 'result: "Swizzle<1,4,3> ∘ 0 ∘')
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW32.32x32.by_hand]")
    return res.message


@example("cutedsl.tile_to_shape.an_atom_whose_swizzle_no_selection_row_builds_fails")
def _an_atom_whose_swizzle_no_selection_row_builds_fails() -> str:
    spec = edited_scratch_spec(EX_FILE, 'atom: "Swizzle<3,4,3>', 'atom: "Swizzle<3,4,4>')
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW128.64x64]")
    return res.message


@example("cutedsl.precondition.a_selection_example_off_the_multiple_of_8_breaks_the_precondition")
def _a_selection_example_off_the_multiple_of_8_breaks_the_precondition() -> str:
    spec = edited_scratch_spec(EX_FILE, "major_mode_size_elems: 32", "major_mode_size_elems: 36")
    res = _run(cutedsl.cases(spec), f"cutedsl.precondition[{EX}:precondition.major_mode_multiple]")
    return res.message


@example("cutedsl.select.a_tile_shorter_than_the_chosen_atom_fails_naming_the_atom")
def _a_tile_shorter_than_the_chosen_atom_fails_naming_the_atom() -> str:
    spec = edited_scratch_spec(EX_FILE, 'layout: "(8, 32):(32, 1)"', 'layout: "(4, 32):(32, 1)"')
    res = _run(cutedsl.cases(spec), f"cutedsl.select[{EX}:select.bf16.K.8x32]")
    return res.message


@example("offset_definition.template.lbo_template_case_of_the_mn_swizzled_row")
def _lbo_template_case_of_the_mn_swizzled_row() -> str:
    got = _run_module(smem, default_spec(),
                      "offset_definition.template[wgmma/leading_byte_offset:LBO.MN.swizzled]")
    return got.message


@example("worked_example.t.figure_168_t_is_128_over_bf16")
def _figure_168_t_is_128_over_bf16() -> str:
    got = _run_module(smem, default_spec(), "worked_example.t[wgmma/worked_examples:fig168.MN.none.bf16]")
    return got.message


@example("worked_example.formula.figure_168_formula_is_the_template")
def _figure_168_formula_is_the_template() -> str:
    got = _run_module(smem, default_spec(), "worked_example.formula[wgmma/worked_examples:fig168.MN.none.bf16]")
    return got.message


@example("worked_example.injective.figure_168_exact_layout_is_injective")
def _figure_168_exact_layout_is_injective() -> str:
    got = _run_module(smem, default_spec(),
                      "worked_example.injective[wgmma/worked_examples:fig168.MN.none.bf16]")
    return got.message


@example("canonical.injective.injective_counts_its_instantiations")
def _injective_counts_its_instantiations() -> str:
    got = _run_module(smem, default_spec(), "canonical.injective[wgmma/canonical_layouts:MN_SW128]")
    return got.message


@example("offset_definition.extent.lbo_extent_counts_eight_columns")
def _lbo_extent_counts_eight_columns() -> str:
    spec = edited_scratch_spec("wgmma/leading_byte_offset.yaml", 'after: "8", unit: columns',
                               'after: "4", unit: columns')
    key, _layout = "wgmma/leading_byte_offset:LBO.MN.none", "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))"
    got = _run_module(smem, spec, f"offset_definition.extent[{key}]")
    return got.message


@example("major.convention.convention_names_every_row_it_agrees_with")
def _convention_names_every_row_it_agrees_with() -> str:
    spec = edited_scratch_spec("wgmma/major_conventions.yaml",
                               "convention: blas, operand: B, transposed: true",
                               "convention: blas, operand: A, transposed: true")
    got = _run_module(smem, spec, "major.convention[wgmma/major_conventions:imm-trans.A.1]")
    return got.message


@example("major.convention.blas_spelling_must_be_a_table_column")
def _blas_spelling_must_be_a_table_column() -> str:
    row = "operand: A, transposed: true, major: MN, spelled: Transposed"
    spec = edited_scratch_spec("wgmma/major_conventions.yaml", row, row.replace("Transposed", "Trans"))
    key = "wgmma/major_conventions:blas.A.transposed"
    got = _run_module(smem, spec, f"major.convention[{key}]")
    return got.message


@example("cutedsl.selection.selection_case_of_sw64")
def _selection_case_of_sw64() -> str:
    got = _run_module(cutedsl, default_spec(), "cutedsl.selection[cutedsl/atom_selection:SW64]")
    return got.message


@example("cutedsl.select.mn_major_selection_builds_an_mn_atom")
def _mn_major_selection_builds_an_mn_atom() -> str:
    old = ('major: K, layout: "(8, 32):(32, 1)", major_mode_size_elems: 32, '
               'major_mode_size_bits: 512, chosen: K_SW64')
    new = ('major: MN, layout: "(32, 8):(1, 32)", major_mode_size_elems: 32, '
               'major_mode_size_bits: 512, chosen: MN_SW64')
    spec = edited_scratch_spec("cutedsl/worked_examples.yaml", old, new)
    got = _run_module(cutedsl, spec, "cutedsl.select[cutedsl/worked_examples:select.bf16.K.8x32]")
    return got.message


@example("cutedsl.bits.bits_of_a_swizzle_with_base_zero")
def _bits_of_a_swizzle_with_base_zero() -> str:
    spec = edited_scratch_spec("cutedsl/worked_examples.yaml", S143, S143.replace("base: 4", "base: 0"),
                               also=[('pattern_bits: 8, bit_pattern: "0bxxxxxxxxXxxZxxxx"',
                               'pattern_bits: 4, bit_pattern: "0bxxxxxxxxxxxxXxxZ"')])
    got = _run_module(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    return got.message


@example("cutedsl.bits.bits_with_a_reversed_flip")
def _bits_with_a_reversed_flip() -> str:
    spec = edited_scratch_spec("cutedsl/worked_examples.yaml", 'flips: ["Z<-X"]', 'flips: ["X<-Z"]')
    got = _run_module(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    return got.message


@example("cutedsl.example_dtype.example_dtype_case_of_the_selection_example")
def _example_dtype_case_of_the_selection_example() -> str:
    got = _run_module(cutedsl_ties, default_spec(),
                   "cutedsl.example_dtype[cutedsl/worked_examples:select.bf16.K.8x32]")
    return got.message


@example("offset_definition.coverage.lbo_coverage_names_an_empty_cell")
def _lbo_coverage_names_an_empty_cell() -> str:
    spec = edited_scratch_spec("wgmma/leading_byte_offset.yaml", "swizzles: [32B, 64B, 128B], used: false",
                               "swizzles: [32B, 64B], used: false")
    got = _run_module(completeness, spec, "offset_definition.coverage[byte_offset_definition:LBO]")
    return got.message


@example("worked_example.injective.figure_collision_past_the_columns")
def _figure_collision_past_the_columns() -> str:
    exact = "((8,1,2),(8,1)):((1,8,4),(8,128))"
    spec = edited_scratch_spec("wgmma/worked_examples.yaml", "o ((8,1,2),(8,2)):((1,8,64),(8,128))",
                               f"o {exact}")
    got = _run_module(smem, spec, "worked_example.injective[wgmma/worked_examples:fig168.MN.none.bf16]")
    return got.message


@example("element_type.float_witness.e4m3_witness_decodes_every_pattern")
def _e4m3_witness_decodes_every_pattern() -> str:
    got = _run_module(element_witness, default_spec(), "element_type.float_witness[wgmma/element_types:e4m3]")
    return got.message


@example("spec.lint.lint_case_of_the_instruction_operands_file")
def _lint_case_of_the_instruction_operands_file() -> str:
    found = [c for c in lint_cases(default_spec()) if c.id == "spec.lint[wgmma/instruction_operands]"]
    assert len(found) == 1
    got = execute(found[0])
    return got.message


@example("wmma.default_stride.default_strides_of_m16n16k16")
def _default_strides_of_m16n16k16() -> str:
    got = _run_module(wmma_checks, default_spec(), "wmma.default_stride[wmma/default_strides:m16n16k16]")
    return got.message


@example("descriptor.witness.base_offset_witness_agrees")
def _base_offset_witness_agrees() -> str:
    got = _run_module(descriptor_checks, default_spec(), "descriptor.witness[cute/gmma_descriptor:base_offset]")
    return got.message


@example("descriptor.witness_complete.witness_complete_names_the_missing_field")
def _witness_complete_names_the_missing_field() -> str:
    spec = edited_scratch_spec("cute/gmma_descriptor.yaml", "{id: base_offset,", "{id: base_offset_x,")
    got = _run_module(completeness, spec, "descriptor.witness_complete[cute/gmma_descriptor:*]")
    return got.message


@example("wmma.register_type.wmma_register_type_must_read_as_a_type")
def _wmma_register_type_must_read_as_a_type() -> str:
    spec = edited_scratch_spec("wmma/alignment_examples.yaml", "register_type: f16x2", "register_type: f16x")
    key = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"
    got = _run_module(register_types, spec, f"wmma.register_type[{key}]")
    return got.message


@example("major.convention.convention_major_against_the_cublas_table")
def _convention_major_against_the_cublas_table() -> str:
    spec = edited_scratch_spec("wgmma/major_conventions.yaml", IMM_A1, IMM_A1.replace("MN", "K"))
    key, _other = "wgmma/major_conventions:imm-trans.A.1", "wgmma/major_conventions:blas.A.transposed"
    got = _run_module(smem, spec, f"major.convention[{key}]")
    return got.message


@example("offset_definition.template.unused_lbo_definition_says_unused")
def _unused_lbo_definition_says_unused() -> str:
    got = _run_module(smem, default_spec(),
                      "offset_definition.template[wgmma/leading_byte_offset:LBO.K.swizzled]")
    return got.message


@example("offset_definition.template.definition_direction_against_the_template")
def _definition_direction_against_the_template() -> str:
    spec = edited_scratch_spec("wgmma/leading_byte_offset.yaml", 'steps_along: K, after: "1"',
                               'steps_along: MN, after: "1"')
    got = _run_module(smem, spec, "offset_definition.template[wgmma/leading_byte_offset:LBO.K.none]")
    return got.message


@example("offset_definition.extent.extent_count_divided_by_the_text")
def _extent_count_divided_by_the_text() -> str:
    spec = edited_scratch_spec("wgmma/leading_byte_offset.yaml", 'after: "swizzle-byte-size/16"',
                               'after: "swizzle-byte-size/32"')
    key, _layout = "wgmma/leading_byte_offset:LBO.MN.swizzled", "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))"
    got = _run_module(smem, spec, f"offset_definition.extent[{key}]")
    return got.message


@example("worked_example.encoding.figure_encoding_needs_its_shift")
def _figure_encoding_needs_its_shift() -> str:
    old = "lbo_assumed: false\n    encode_shift_bits: 4\n    cite: {anchor: \"Figure 166"
    spec = edited_scratch_spec("wgmma/worked_examples.yaml", old, old.replace("bits: 4", "bits: null"))
    got = _run_module(smem, spec, "worked_example.encoding[wgmma/worked_examples:fig166.K.none.tf32]")
    return got.message


@example("canonical.injective.injective_names_the_colliding_coordinates")
def _injective_names_the_colliding_coordinates() -> str:
    spec = edited_scratch_spec("wgmma/canonical_layouts.yaml", "((1,T,SBO),(1T,LBO))", "((1,T,SBO),(1,LBO))")
    got = _run_module(smem, spec, "canonical.injective[wgmma/canonical_layouts:MN_INTER]")
    return got.message


@example("wmma.alignment_example.alignment_rule_aligned_to_something_else")
def _alignment_rule_aligned_to_something_else() -> str:
    spec = edited_scratch_spec("wmma/storage_rules.yaml", "aligned_to: fragment_bytes}",
                               "aligned_to: element_bytes}")
    got = _run_module(wmma_checks, spec, f"wmma.alignment_example[{WMMA_EXAMPLE}]")
    return got.message


@example("wmma.alignment_example.alignment_example_type_of_its_shape")
def _alignment_example_type_of_its_shape() -> str:
    spec = edited_scratch_spec("wmma/default_strides.yaml", "types: [f16], printed_shape: 16x16x16",
                               "types: [bf16], printed_shape: 16x16x16")
    got = _run_module(wmma_checks, spec, f"wmma.alignment_example[{WMMA_EXAMPLE}]")
    return got.message


@example("descriptor.fields_disjoint.descriptor_field_past_bit_63")
def _descriptor_field_past_bit_63() -> str:
    spec = descriptor_field_replaced("layout_type", width_bits=3)
    got = _run_module(descriptor_checks, spec, "descriptor.fields_disjoint[wgmma/matrix_descriptor:*]")
    return got.message


@example("fragment.counts.fragment_a_and_d_figures_consecutive")
def _fragment_a_and_d_figures_consecutive() -> str:
    spec = edited_scratch_spec("wgmma/register_fragments.yaml", 'elements: "8", figure: 148',
                               'elements: "8", figure: 147')
    got = _run_module(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    return got.message


@example("element_type.format.element_format_of_f16")
def _element_format_of_f16() -> str:
    got = _run_module(fragments_checks, default_spec(), "element_type.format[wgmma/element_types:f16]")
    return got.message


@example("instruction.operands.tf32_operands_spell_imm_scale_only")
def _tf32_operands_spell_imm_scale_only() -> str:
    key = "wgmma/instruction_types:k8.f32.tf32.tf32"
    got = _run_module(fragments_checks, default_spec(), f"instruction.operands[{key}]")
    return got.message


# --- the parametrized tests' messages (one of each shape) ------------------------------------------


