"""Checks of oracle/checks/ (element_witness, completeness, wmma_checks, fragments_checks,
smem_layouts, register_types, descriptor_checks, lint_cases) that mutation testing found missing
(reports/mutation/README.md, the seed-2 sample of checks/).

The other tests build every case at collection time, which mutmut does in its parent process
with the original code; these build the cases inside the test (the module's own `cases(spec)`,
or `lint_cases(spec)`), pick one by id, execute it and compare the whole outcome a report shows:
status, code, message and fields (`source`, `witness`, the values on both sides).

Expected values are worked by hand:

* from the bundled spec's rows (quoted at each test) and the documents' definitions: PTX names
  its float types f16, bf16, tf32, e4m3, e5m2, f32, f64 (wgmma/element_types.yaml; an 8-bit
  type has 2^8 = 256 patterns); a register holds 32 bits, an .f16x2 register two 16-bit lanes, a
  scalar .f32 register one element (PTX ISA 9.7.15.5.1.1); wmma's default stride is the leading
  dimension (wmma/default_strides.yaml); CUTLASS's GmmaDescriptor puts base_offset at bits
  [49,52) (cute/gmma_descriptor.yaml); the canonical templates (wgmma/canonical_layouts.yaml)
  instantiated at T = 128 / element width; swizzle-byte-size / 16 rows for LBO.MN.swizzled;
* from `ptxconf.core.cases.expect_equal`'s documented message, "<what>: <source> says <documented!r>,
  <witness> gives <derived!r>", and its fields documented / derived / source / witness;
* a failing check is reached by copying the bundled spec to tmp_path, editing one row's text and
  loading the copy (conformance/scratch_spec.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_outcome as _expect
from case_outcomes import run_module_case as _run
from scratch_spec import edited_spec, replaced_row

from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    completeness,
    descriptor_checks,
    element_witness,
    fragments_checks,
    register_types,
    wmma_checks,
)
from ptxconf.oracle.checks import smem_layouts as smem
from ptxconf.oracle.checks.lint_cases import lint_cases
from ptxconf.oracle.spec import SpecErrors, default_spec

# --- element_witness, lint_cases: the cases the bundled spec gives ------------------------------

def test_float_witness_cases_are_the_float_types() -> None:
    """One element_type.float_witness case per float row of wgmma/element_types.yaml, in order."""
    ids = [c.id for c in element_witness.cases(default_spec()) if c.check != "element_type.name"]
    assert ids == [f"element_type.float_witness[wgmma/element_types:{t}]"
                   for t in ("f16", "bf16", "tf32", "e4m3", "e5m2", "f32", "f64")]


def test_e4m3_witness_decodes_every_pattern() -> None:
    """e4m3 is 8 bits wide: all 2^8 = 256 patterns decode as OCP OFP8's table does."""
    got = _run(element_witness, default_spec(), "element_type.float_witness[wgmma/element_types:e4m3]")
    _expect(got, Status.PASS, "ok", "e4m3: 256 patterns decode as the witness decodes them")


def test_lint_case_of_the_instruction_operands_file() -> None:
    """wgmma/instruction_operands.yaml: "kind: instruction_operand", four rows (imm-trans-a/b,
    imm-scale-a/b)."""
    found = [c for c in lint_cases(default_spec()) if c.id == "spec.lint[wgmma/instruction_operands]"]
    assert len(found) == 1
    got = execute(found[0])
    _expect(got, Status.PASS, "ok", "wgmma/instruction_operands.yaml: 4 rows, every lint rule passes",
            rows=4, kinds={"instruction_operand": 4})
    assert got.provider == "spec-lint"


# --- wmma_checks -------------------------------------------------------------------------------

def test_default_strides_of_m16n16k16() -> None:
    """m16n16k16: every one of the six strides is 16, the leading dimension of a 16x16 tile."""
    got = _run(wmma_checks, default_spec(), "wmma.default_stride[wmma/default_strides:m16n16k16]")
    _expect(got, Status.PASS, "ok", "6 default strides equal the leading dimension")


def test_printed_shape_against_the_extents(tmp_path: Path) -> None:
    """m16n16k16 printed as 16x16x8: its m, n, k elems spell 16x16x16."""
    spec = edited_spec(tmp_path, "wmma/default_strides.yaml", "printed_shape: 16x16x16",
                       "printed_shape: 16x16x8")
    key = "wmma/default_strides:m16n16k16"
    got = _run(wmma_checks, spec, f"wmma.default_stride[{key}]")
    witness = "m_elems, n_elems, k_elems"
    _expect(got, Status.FAIL, "mismatch",
            f"printed shape (MxNxK): {key} says '16x16x8', {witness} gives '16x16x16'",
            documented="16x16x8", derived="16x16x16", source=key, witness=witness)


# --- descriptor_checks, completeness ------------------------------------------------------------

def test_base_offset_witness_agrees() -> None:
    """CUTLASS's base_offset_ : 3 at bit [49,52), stored as is: the PTX ISA's bits 51-49."""
    got = _run(descriptor_checks, default_spec(), "descriptor.witness[cute/gmma_descriptor:base_offset]")
    _expect(got, Status.PASS, "ok", "bits [49,52) >> 0 agree")


def test_base_offset_witness_one_bit_low(tmp_path: Path) -> None:
    """CUTLASS's base_offset read at bit 48: the PTX ISA puts it at bit 49."""
    spec = edited_spec(tmp_path, "cute/gmma_descriptor.yaml", "lsb_bits: 49", "lsb_bits: 48")
    got = _run(descriptor_checks, spec, "descriptor.witness[cute/gmma_descriptor:base_offset]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            "base_offset.lsb_bits: PTX ISA says 49, CUTLASS GmmaDescriptor gives 48",
            documented=49, derived=48, source="PTX ISA", witness="CUTLASS GmmaDescriptor")


def test_witness_complete_names_the_missing_field(tmp_path: Path) -> None:
    """The CUTLASS row of base_offset renamed: no witness of the PTX field base_offset is left."""
    spec = edited_spec(tmp_path, "cute/gmma_descriptor.yaml", "{id: base_offset,", "{id: base_offset_x,")
    got = _run(completeness, spec, "descriptor.witness_complete[cute/gmma_descriptor:*]")
    _expect(got, Status.FAIL, "mismatch",
            "cute/gmma_descriptor.yaml witnesses no field ['base_offset'] of wgmma/matrix_descriptor.yaml",
            missing=["base_offset"])


# --- fragments_checks, register_types -----------------------------------------------------------

#: k16.A.f16: "four .f16x2 registers, with each register containing two .f16/ .bf16 elements".
K16_A = 'register_type: f16x2, elems_per_register: 2, last_index: "7"'
K16_A_KEY = "wgmma/register_fragments:k16.A.f16"


def test_register_type_lanes_per_register(tmp_path: Path) -> None:
    """k16.A.f16 saying 4 elements per .f16x2 register: the type has 2 lanes (the loader refuses
    the edit first, SPEC-FACT: 64-bit registers; the check, on the row changed in memory)."""
    with pytest.raises(SpecErrors, match="register_fragments.yaml:[0-9]+: SPEC-FACT - row 'k16.A.f16'"):
        edited_spec(tmp_path, "wgmma/register_fragments.yaml", K16_A,
                    K16_A.replace("elems_per_register: 2", "elems_per_register: 4"))
    spec = replaced_row(default_spec(), K16_A_KEY, elems_per_register=4)
    got = _run(register_types, spec, f"fragment.register_type[{K16_A_KEY}]")
    _expect(got, Status.FAIL, "mismatch",
            f".f16x2: elements per register: {K16_A_KEY} says 4, its 2 lanes gives 2",
            documented=4, derived=2, source=K16_A_KEY, witness="its 2 lanes")


def test_register_type_scalar_holds_one(tmp_path: Path) -> None:
    """k16.D.f32 ("N/2 number of .f32 registers") saying 2 per register: a scalar .f32 holds 1."""
    row = 'register_type: f32, elems_per_register: 1, last_index: "N/2 - 1", elements: "N/2", figure: 149'
    with pytest.raises(SpecErrors, match="SPEC-FACT - row 'k16.D.f32'"):
        edited_spec(tmp_path, "wgmma/register_fragments.yaml", row,
                    row.replace("elems_per_register: 1", "elems_per_register: 2"))
    key = "wgmma/register_fragments:k16.D.f32"
    spec = replaced_row(default_spec(), key, elems_per_register=2)
    got = _run(register_types, spec, f"fragment.register_type[{key}]")
    witness = "a scalar register type"
    _expect(got, Status.FAIL, "mismatch", f".f32: elements per register: {key} says 2, {witness} gives 1",
            documented=2, derived=1, source=key, witness=witness)


def test_wmma_register_type_must_read_as_a_type(tmp_path: Path) -> None:
    """The alignment example's ".f16x2" cut to "f16x": no lane count after the x."""
    spec = edited_spec(tmp_path, "wmma/alignment_examples.yaml", "register_type: f16x2", "register_type: f16x")
    key = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"
    got = _run(register_types, spec, f"wmma.register_type[{key}]")
    _expect(got, Status.FAIL, "mismatch",
            f"{key}: register type 'f16x' does not read as .<type><bits>[x<lanes>]")


def test_imm_scale_spells_every_float_operand_type(tmp_path: Path) -> None:
    """imm-scale-a/b without tf32: the instruction rows' float atypes are bf16, e4m3, e5m2, f16,
    tf32 (k8.f32.tf32.tf32 reads tf32)."""
    types = "types: [f16, bf16, tf32, e4m3, e5m2]"
    spec = edited_spec(tmp_path, "wgmma/instruction_operands.yaml", f"operand: A, {types}",
                       f"operand: A, {types.replace('tf32, ', '')}",
                       also=[(f"operand: B, {types}", f"operand: B, {types.replace('tf32, ', '')}")])
    key = "wgmma/instruction_operands:imm-scale-a"
    got = _run(fragments_checks, spec, f"instruction.immediate[{key}]")
    said, floats = ["bf16", "e4m3", "e5m2", "f16"], ["bf16", "e4m3", "e5m2", "f16", "tf32"]
    witness = "the float operand types of wgmma/instruction_types"
    _expect(got, Status.FAIL, "mismatch", f"types spelling imm-scale: {key} says {said!r}, {witness} gives "
            f"{floats!r}", documented=said, derived=floats, source=key, witness=witness)


# --- smem_layouts --------------------------------------------------------------------------------

IMM_A1 = 'transposed: true, major: MN, spelled: "imm-trans-a is 1"'


def test_convention_major_against_the_cublas_table(tmp_path: Path) -> None:
    """imm-trans.A.1 read as K-major: the cuBLAS table's transposed A is M-major."""
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml", IMM_A1, IMM_A1.replace("MN", "K"))
    key, other = "wgmma/major_conventions:imm-trans.A.1", "wgmma/major_conventions:blas.A.transposed"
    got = _run(smem, spec, f"major.convention[{key}]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"{key}: A 'imm-trans-a is 1' (imm-trans) is K-major; {other} (blas, 'Transposed') says MN-major",
            operand="A", transposed=True, major="K", other=other, other_major="MN")


def test_unused_lbo_definition_says_unused() -> None:
    """LBO.K.swizzled is "used: false" for [32B, 64B, 128B]; no K-major swizzled template has LBO."""
    got = _run(smem, default_spec(), "offset_definition.template[wgmma/leading_byte_offset:LBO.K.swizzled]")
    _expect(got, Status.PASS, "ok", "LBO unused for K-major ['32B', '64B', '128B']")


def test_definition_direction_against_the_template(tmp_path: Path) -> None:
    """LBO.K.none read as stepping along MN: K_INTER's (1,LBO) is on its K mode."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", 'steps_along: K, after: "1"',
                       'steps_along: MN, after: "1"')
    got = _run(smem, spec, "offset_definition.template[wgmma/leading_byte_offset:LBO.K.none]")
    layout = "((8,m),(T,2k)):((1T,SBO),(1,LBO))"
    text = ("the offset from the first column to the second columns of the 8x2 tile in the 128-bit "
            "element type normalized matrix")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"LBO for K_INTER: the LBO table says it steps along MN, canonical {layout} puts it on K",
            template=layout, table=text)


def test_extent_count_divided_by_the_text(tmp_path: Path) -> None:
    """LBO.MN.swizzled's "swizzle-byte-size/16" as /32: 32 / 32 = 1 row for 32B, but MN_SW32
    ((T,2,m),...) at T=1 steps by LBO after 1 x 2 = 2 rows."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", 'after: "swizzle-byte-size/16"',
                       'after: "swizzle-byte-size/32"')
    key, layout = "wgmma/leading_byte_offset:LBO.MN.swizzled", "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))"
    got = _run(smem, spec, f"offset_definition.extent[{key}]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"{key}: the LBO text steps after swizzle-byte-size/32 rows (= 1 for 32B); canonical MN_SW32 "
            f"{layout} steps by LBO after 2", stated=1, template=2, swizzle="32B", template_layout=layout)


def test_figure_encoding_needs_its_shift(tmp_path: Path) -> None:
    """Figure 166 with no encode_shift_bits: the figure writes "(LBO) >> 4"."""
    old = "lbo_assumed: false\n    encode_shift_bits: 4\n    cite: {anchor: \"Figure 166"
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", old, old.replace("bits: 4", "bits: null"))
    got = _run(smem, spec, "worked_example.encoding[wgmma/worked_examples:fig166.K.none.tf32]")
    _expect(got, Status.FAIL, "mismatch",
            'Figure 166: no encode_shift_bits (the figure writes "(LBO) >> <shift>")')


def test_injective_names_the_colliding_coordinates(tmp_path: Path) -> None:
    """MN_INTER with (1,LBO) for (1T,LBO): b1 first (T=128), m=k=1; its tight LBO = 256 (cosize
    128 + 7 = 135 rounded up to T), SBO = 256 x 2 x 3 = 1536; column 0 fills offsets 0..127, so
    (0,1) at offset 1 meets (1,0)."""
    spec = edited_spec(tmp_path, "wgmma/canonical_layouts.yaml", "((1,T,SBO),(1T,LBO))", "((1,T,SBO),(1,LBO))")
    got = _run(smem, spec, "canonical.injective[wgmma/canonical_layouts:MN_INTER]")
    _expect(got, Status.FAIL, "mismatch",
            "MN_INTER (T=128, m=1, k=1, LBO=256, SBO=1536 elems): coordinates (1, 0) and (0, 1) share offset 1")


# --- seed-3 sample survivors ---------------------------------------------------------------------

WMMA_EXAMPLE = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"


def test_alignment_rule_aligned_to_something_else(tmp_path: Path) -> None:
    """leading_dimension_alignment edited to "aligned_to: element_bytes": no rule ties the
    multiples to the fragment bytes."""
    spec = edited_spec(tmp_path, "wmma/storage_rules.yaml", "aligned_to: fragment_bytes}",
                       "aligned_to: element_bytes}")
    got = _run(wmma_checks, spec, f"wmma.alignment_example[{WMMA_EXAMPLE}]")
    _expect(got, Status.FAIL, "mismatch", "no leading_dimension_alignment rule aligned to fragment_bytes")


def test_alignment_example_type_of_its_shape(tmp_path: Path) -> None:
    """m16n16k16 edited to "types: [bf16]": the f16 example's shape is there, its type is not."""
    spec = edited_spec(tmp_path, "wmma/default_strides.yaml", "types: [f16], printed_shape: 16x16x16",
                       "types: [bf16], printed_shape: 16x16x16")
    got = _run(wmma_checks, spec, f"wmma.alignment_example[{WMMA_EXAMPLE}]")
    _expect(got, Status.FAIL, "mismatch", "m16n16k16.f16 is not a shape/type of the default-stride table")


def test_wmma_scalar_register_of_another_type(tmp_path: Path) -> None:
    """The alignment example's registers edited to ".f32": a scalar register holds its own type,
    f32, the example's elements are f16."""
    spec = edited_spec(tmp_path, "wmma/alignment_examples.yaml", "register_type: f16x2", "register_type: f32")
    got = _run(register_types, spec, f"wmma.register_type[{WMMA_EXAMPLE}]")
    witness = "a scalar register holds its own type"
    _expect(got, Status.FAIL, "mismatch",
            f".f32: the element type: {WMMA_EXAMPLE} says 'f32', {witness} gives 'f16'",
            documented="f32", derived="f16", source=WMMA_EXAMPLE, witness=witness)


def test_descriptor_field_past_bit_63(tmp_path: Path) -> None:
    """layout_type (bits 63-62) edited to 3 bits wide: bits 62..64, past bit 63."""
    spec = edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml", "lsb_bits: 62, width_bits: 2",
                       "lsb_bits: 62, width_bits: 3")
    got = _run(descriptor_checks, spec, "descriptor.fields_disjoint[wgmma/matrix_descriptor:*]")
    _expect(got, Status.FAIL, "mismatch", "field layout_type runs past bit 63", lsb=62, width=3)


def test_fragment_section_m_against_the_clayout(tmp_path: Path) -> None:
    """k16.A.f16 edited to shape m32nNk16; SM90_64x8.CLayout's codomain has 64 rows."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", "shape: m64nNk16, k_elems: 16, operand: A",
                       "shape: m32nNk16, k_elems: 16, operand: A")
    got = _run(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    witness = "rows of SM90_64x8.CLayout (seed 004)"
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"M of the section's shape: {K16_A_KEY} says 32, {witness} gives 64",
            documented=32, derived=64, source=K16_A_KEY, witness=witness)


def test_fragment_registers_times_elements(tmp_path: Path) -> None:
    """k16.A.f16 edited to 5 registers of 2 elements = 10, the row lists 8; the first N tried is
    8, the smallest valid N of any row (step 8 from i = 1)."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", f'registers: "4", {K16_A}',
                       f'registers: "5", {K16_A}')
    got = _run(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    witness = "registers x elements per register"
    _expect(got, Status.FAIL, "mismatch", f"elements (N=8): {K16_A_KEY} says 8, {witness} gives 10",
            documented=8, derived=10, source=K16_A_KEY, witness=witness)


def test_fragment_last_index_against_the_elements(tmp_path: Path) -> None:
    """k16.A.f16 edited to list a0 .. a8: 9 elements, the row's 8."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", K16_A, K16_A.replace('"7"', '"8"'))
    got = _run(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    witness = "a0 .. a8 / d0 .. d(8)"
    _expect(got, Status.FAIL, "mismatch", f"elements listed (N=8): {K16_A_KEY} says 9, {witness} gives 8",
            documented=9, derived=8, source=K16_A_KEY, witness=witness)


def test_fragment_a_and_d_figures_consecutive(tmp_path: Path) -> None:
    """k16.A.f16 edited to Figure 147; the k16 D rows are Figure 149, not 148."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", 'elements: "8", figure: 148',
                       'elements: "8", figure: 147')
    got = _run(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    _expect(got, Status.FAIL, "mismatch", f"{K16_A_KEY}: k16 A is Figure 147, D Figure 149: not consecutive")


def test_element_format_of_f16() -> None:
    """f16: 1 sign + 5 exponent + 10 mantissa bits = 16, no padding, not finite only."""
    got = _run(fragments_checks, default_spec(), "element_type.format[wgmma/element_types:f16]")
    _expect(got, Status.PASS, "ok", "f16: 1 + 5 + 10 = 16 bits")


def test_instruction_k_against_a_wider_f16(tmp_path: Path) -> None:
    """f16 edited to 32 bits: T = 128 / 32 = 4, so one K-major instruction spans 2T = 8, not 16."""
    with pytest.raises(SpecErrors, match="SPEC-FACT"):
        edited_spec(tmp_path, "wgmma/element_types.yaml", "id: f16\n    width_bits: 16",
                    "id: f16\n    width_bits: 32")
    spec = replaced_row(default_spec(), "wgmma/element_types:f16", width_bits=32)
    key = "wgmma/instruction_types:k16.f16.f16.f16"
    got = _run(fragments_checks, spec, f"instruction.fragments[{key}]")
    witness = "the canonical K-major layout's (T,2k) with k=1, T = 128/width(atype)"
    _expect(got, Status.FAIL, "mismatch", f"K of one instruction: {key} says 16, {witness} gives 8",
            documented=16, derived=8, source=key, witness=witness)


def test_tf32_operands_spell_imm_scale_only() -> None:
    """k8.f32.tf32.tf32: imm-trans-a/b list [f16, bf16], not tf32 (k_major_only: true);
    imm-scale-a lists tf32."""
    key = "wgmma/instruction_types:k8.f32.tf32.tf32"
    got = _run(fragments_checks, default_spec(), f"instruction.operands[{key}]")
    _expect(got, Status.PASS, "ok", ".tf32: imm-trans not spelled (K-major only: True), imm-scale spelled")
