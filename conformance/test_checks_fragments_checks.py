"""The fragment and instruction checks (oracle/checks/fragments_checks.py): a fragment's counts
(registers x elements per register, its last index, the 64 x N tile over 128 threads, the
section's M against the CLayout, consecutive A and D figures), the instruction's operands and
immediates (imm-trans-a/b list f16, bf16; imm-scale every float operand type), where an operand
lives, an element type's format and an instruction's K against its type's width.

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_fields, expect_mismatch_fields, expect_named
from case_outcomes import run_case as _run
from case_outcomes import run_module_case as _run_module
from scratch_spec import edited_spec, replaced_row

from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    fragments_checks,
)
from ptxconf.oracle.spec import SpecErrors, default_spec

SPEC = default_spec()
K16_A = 'register_type: f16x2, elems_per_register: 2, last_index: "7"'
K16_A_KEY = "wgmma/register_fragments:k16.A.f16"


# --- a fragment's counts --------------------------------------------------------------------------


def test_a_fragment_of_more_elements_than_its_tile_share_fails(tmp_path: Path) -> None:
    """k16.A.f16 edited to 8 registers, a0..a15, 16 elements; 64 x 16 over 128 threads is 8."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml",
                    'registers: "4", register_type: f16x2, elems_per_register: 2, last_index: "7", '
                    'elements: "8"',
                    'registers: "8", register_type: f16x2, elems_per_register: 2, last_index: "15", '
                    'elements: "16"')
    res = _run(fragments_checks.cases(spec), "fragment.counts[wgmma/register_fragments:k16.A.f16]")
    expect_mismatch_fields(res, "wgmma/register_fragments:k16.A.f16", 16, "64x16 tile over 128 threads", 8)
    expect_named(res, "elements per thread (N=8)")


def test_fragment_section_m_against_the_clayout(tmp_path: Path) -> None:
    """k16.A.f16 edited to shape m32nNk16; SM90_64x8.CLayout's codomain has 64 rows."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", "shape: m64nNk16, k_elems: 16, operand: A",
                       "shape: m32nNk16, k_elems: 16, operand: A")
    got = _run_module(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    witness = "rows of SM90_64x8.CLayout (seed 004)"
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented=32, derived=64, source=K16_A_KEY,
                  witness=witness)


def test_fragment_registers_times_elements(tmp_path: Path) -> None:
    """k16.A.f16 edited to 5 registers of 2 elements = 10, the row lists 8; the first N tried is
    8, the smallest valid N of any row (step 8 from i = 1)."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", f'registers: "4", {K16_A}',
                       f'registers: "5", {K16_A}')
    got = _run_module(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    witness = "registers x elements per register"
    expect_fields(got, Status.FAIL, "mismatch", documented=8, derived=10, source=K16_A_KEY, witness=witness)
    expect_named(got, "N=8")


def test_fragment_last_index_against_the_elements(tmp_path: Path) -> None:
    """k16.A.f16 edited to list a0 .. a8: 9 elements, the row's 8."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", K16_A, K16_A.replace('"7"', '"8"'))
    got = _run_module(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    witness = "a0 .. a8 / d0 .. d(8)"
    expect_fields(got, Status.FAIL, "mismatch", documented=9, derived=8, source=K16_A_KEY, witness=witness)
    expect_named(got, "N=8")


def test_fragment_a_and_d_figures_consecutive(tmp_path: Path) -> None:
    """k16.A.f16 edited to Figure 147; the k16 D rows are Figure 149, not 148."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml", 'elements: "8", figure: 148',
                       'elements: "8", figure: 147')
    got = _run_module(fragments_checks, spec, f"fragment.counts[{K16_A_KEY}]")
    expect_fields(got, Status.FAIL, "mismatch")
    expect_named(got, K16_A_KEY, "Figure 147", "Figure 149")


# --- an instruction's operands, immediates and fragments ------------------------------------------


def test_k_major_only_with_imm_trans_spelled_fails(tmp_path: Path) -> None:
    """k16.f16.f16.f16 edited to k_major_only: true; imm-trans-a/b list f16, so it is not."""
    spec = edited_spec(tmp_path, "wgmma/instruction_types.yaml",
                    "dtype: f16, atype: f16, btype: f16, k_major_only: false",
                    "dtype: f16, atype: f16, btype: f16, k_major_only: true")
    res = _run(fragments_checks.cases(spec), "instruction.operands[wgmma/instruction_types:k16.f16.f16.f16]")
    expect_mismatch_fields(res, "wgmma/instruction_types:k16.f16.f16.f16", True,
                           "wgmma/instruction_operands imm-trans-a/b (no imm-trans: K-major only)", False)


def test_imm_trans_a_lists_the_types_imm_trans_b_lists() -> None:
    """instruction_operands.yaml: imm-trans-a and imm-trans-b both [f16, bf16]."""
    res = _run(fragments_checks.cases(SPEC), "instruction.immediate[wgmma/instruction_operands:imm-trans-a]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "f16, bf16")


def test_imm_scale_spells_every_float_operand_type(tmp_path: Path) -> None:
    """imm-scale-a/b without tf32: the instruction rows' float atypes are bf16, e4m3, e5m2, f16,
    tf32 (k8.f32.tf32.tf32 reads tf32)."""
    types = "types: [f16, bf16, tf32, e4m3, e5m2]"
    spec = edited_spec(tmp_path, "wgmma/instruction_operands.yaml", f"operand: A, {types}",
                       f"operand: A, {types.replace('tf32, ', '')}",
                       also=[(f"operand: B, {types}", f"operand: B, {types.replace('tf32, ', '')}")])
    key = "wgmma/instruction_operands:imm-scale-a"
    got = _run_module(fragments_checks, spec, f"instruction.immediate[{key}]")
    said, floats = ["bf16", "e4m3", "e5m2", "f16"], ["bf16", "e4m3", "e5m2", "f16", "tf32"]
    witness = "the float operand types of wgmma/instruction_types"
    expect_fields(got, Status.FAIL, "mismatch", documented=said, derived=floats, source=key, witness=witness)


def test_tf32_operands_spell_imm_scale_only() -> None:
    """k8.f32.tf32.tf32: imm-trans-a/b list [f16, bf16], not tf32 (k_major_only: true);
    imm-scale-a lists tf32."""
    key = "wgmma/instruction_types:k8.f32.tf32.tf32"
    got = _run_module(fragments_checks, default_spec(), f"instruction.operands[{key}]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, ".tf32", "K-major only: True")


def test_instruction_k_against_a_wider_f16(tmp_path: Path) -> None:
    """f16 edited to 32 bits: T = 128 / 32 = 4, so one K-major instruction spans 2T = 8, not 16."""
    with pytest.raises(SpecErrors, match="SPEC-FACT"):
        edited_spec(tmp_path, "wgmma/element_types.yaml", "id: f16\n    width_bits: 16",
                    "id: f16\n    width_bits: 32")
    spec = replaced_row(default_spec(), "wgmma/element_types:f16", width_bits=32)
    key = "wgmma/instruction_types:k16.f16.f16.f16"
    got = _run_module(fragments_checks, spec, f"instruction.fragments[{key}]")
    witness = "the canonical K-major layout's (T,2k) with k=1, T = 128/width(atype)"
    expect_fields(got, Status.FAIL, "mismatch", documented=16, derived=8, source=key, witness=witness)


# --- where an operand lives, an element type's format ---------------------------------------------


def test_b_lives_in_shared_memory_only() -> None:
    """operand_storage.yaml B: registers false, shared_memory true; no register-fragment row is B."""
    res = _run(fragments_checks.cases(SPEC), "operand.storage[wgmma/operand_storage:B]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "registers False", "0 fragment rows")


def test_element_format_of_f16() -> None:
    """f16: 1 sign + 5 exponent + 10 mantissa bits = 16, no padding, not finite only."""
    got = _run_module(fragments_checks, default_spec(), "element_type.format[wgmma/element_types:f16]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "f16", "1 + 5 + 10 = 16 bits")
