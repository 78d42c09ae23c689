"""Message examples of the CuTe checks (src/ptxconf/oracle/checks/cute_atoms.py, cute_statements.py,
cute_points.py, mode_sizes.py: the cases `cute.*`): one per message shape that is not
expect_equal's (messages_core.py pins that one), each for the input its test in
conformance/test_checks_cute_*.py, test_checks_mode_sizes.py or test_cute_atoms.py uses (see
golden_messages.py); the other checks' are messages_checks.py's."""

from __future__ import annotations

from case_outcomes import run_case as _run
from case_outcomes import run_module_case as _run_module
from golden_messages import example
from scratch_spec import edited_scratch_spec

from ptxconf.core.cases import Case
from ptxconf.oracle.checks import (
    cute_atoms,
    cute_points,
    cute_statements,
    mode_sizes,
)
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
ATOMS = "cute/mma_atoms"
GROUPS = "cute/thread_groups"


ATOMS_FILE = "cute/mma_atoms.yaml"
REGS = "cute/operation_registers"
def _statements(spec: Spec) -> list[Case]:
    """cute_statements' cases over the spec's cute_layout rows (as cute_atoms.cases calls it)."""
    return list(cute_statements.cases(spec, spec.of(CuteLayout)))


@example("cute.alias.the_quadpair_alias_names_the_8_thread_group")
def _the_quadpair_alias_names_the_8_thread_group() -> str:
    res = _run(cute_atoms.cases(SPEC), f"cute.alias[{ATOMS}:SM70_8x8x4.ThrID]")
    return res.message


@example("cute.alias.the_32b_alias_names_an_8x8_c_of_f32_values")
def _the_32b_alias_names_an_8x8_c_of_f32_values() -> str:
    res = _run(cute_atoms.cases(SPEC), f"cute.alias[{ATOMS}:SM70_8x8x4.CLayout.f32]")
    return res.message


@example("cute.variants_n.the_variants_n_are_repeats_of_8_and_valid_n_at_k16")
def _the_variants_n_are_repeats_of_8_and_valid_n_at_k16() -> str:
    res = _run(cute_atoms.cases(SPEC), f"cute.variants_n[{ATOMS}:SM90_64x8.CLayout]")
    return res.message


@example("cute.variants_n.a_variant_n_past_256_disagrees_with_the_fragment_table")
def _a_variant_n_past_256_disagrees_with_the_fragment_table() -> str:
    spec = edited_scratch_spec("cute/mma_atoms.yaml", "variants_n_elems: [16, 32, 64, 128, 256]",
                               "variants_n_elems: [16, 32, 64, 128, 256, 264]")
    res = _run(cute_atoms.cases(spec), f"cute.variants_n[{ATOMS}:SM90_64x8.CLayout]")
    return res.message


@example("cute.thread_group.the_quadpair_is_the_thrid_its_alias_names_whatever_the_row_order")
def _the_quadpair_is_the_thrid_its_alias_names_whatever_the_row_order() -> str:
    rows = tuple(reversed(SPEC.of(CuteLayout)))
    thr = [r.id for r in rows if r.role == "ThrID"]
    assert thr.index("SM90_64x8.ThrID") < thr.index("SM70_8x8x4.ThrID") == len(thr) - 1
    res = _run(cute_statements.cases(SPEC, rows), f"cute.thread_group[{GROUPS}:quadpair]")
    return res.message


@example("cute.clayout_vs_fragment.the_64x8_clayout_holds_the_k16_accumulators_4_values")
def _the_64x8_clayout_holds_the_k16_accumulators_4_values() -> str:
    res = _run(cute_atoms.cases(SPEC),
                   f"cute.clayout_vs_fragment[{ATOMS}:SM90_64x8.CLayout~wgmma/register_fragments:k16.D.f16]")
    return res.message


@example("cute.layout_major.a_value_stride_of_neither_mode_fails")
def _a_value_stride_of_neither_mode_fails() -> str:
    spec = edited_scratch_spec("cute/mma_atoms.yaml", 'role: BLayout\n    layout: "(8,4):(1,8)"',
                               'role: BLayout\n    layout: "(8,4):(1,2)"')
    key = f"{ATOMS}:SM70_8x8x4.BLayout.TN"
    return _run(cute_atoms.cases(spec), f"cute.layout_major[{key}]").message


@example("cute.clayout_repeat.an_sm90_clayout_at_a_k_of_no_accumulator_fails")
def _an_sm90_clayout_at_a_k_of_no_accumulator_fails() -> str:
    spec = edited_scratch_spec("cute/mma_atoms.yaml", "atom: SM90_64x128x16_F16F16F16F16_TN",
                               "atom: SM90_64x128x24_F16F16F16F16_TN")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    return _run(cute_atoms.cases(spec), f"cute.clayout_repeat[{key}]").message


@example("cute.thread_count.a_thrid_of_an_architecture_with_no_layouts_fails")
def _a_thrid_of_an_architecture_with_no_layouts_fails() -> str:
    spec = edited_scratch_spec("cute/mma_atoms.yaml", "id: SM90_64x8.ThrID\n    atom: SM90_64x8x16",
                               "id: SM90_64x8.ThrID\n    atom: SM75_64x8x16")
    key = f"{ATOMS}:SM90_64x8.ThrID"
    return _run(cute_atoms.cases(spec), f"cute.thread_count[{key}]").message


@example("cute.mode_statement.a_mode_statement_of_neither_size_nor_stride_fails")
def _a_mode_statement_of_neither_size_nor_stride_fails() -> str:
    spec = edited_scratch_spec("cute/mode_statements.yaml", "mode: [0, 2], mode_size: 4, mode_stride: 32}",
                               "mode: [0, 2]}")
    key = "cute/mode_statements:SM90.C.warps"
    return _run(_statements(spec), f"cute.mode_statement[{key}]").message


@example("cute.layout.an_id_that_names_no_atom_fails")
def _an_id_that_names_no_atom_fails() -> str:
    spec = edited_scratch_spec(ATOMS_FILE, "id: SM70_8x8x4.CLayout.f16", "id: Volta.CLayout.f16")
    key = f"{ATOMS}:Volta.CLayout.f16"
    return _run(cute_atoms.cases(spec), f"cute.layout[{key}]").message


@example("cute.points_in_domain.a_point_on_the_row_past_the_last_lies_outside")
def _a_point_on_the_row_past_the_last_lies_outside() -> str:
    spec = edited_scratch_spec(ATOMS_FILE, "points: [[0, 4, 0, 8, 512]]", "points: [[0, 4, 64, 8, 512]]")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    return _run(cute_points.cases(spec), f"cute.points_in_domain[{key}]").message


@example("cute.points_in_domain.a_point_inside_the_codomain_passes")
def _a_point_inside_the_codomain_passes() -> str:
    res = _run(cute_points.cases(SPEC), f"cute.points_in_domain[{ATOMS}:SM90_64x128.CLayout]")
    return res.message


@example("cute.mode_size.sm90_c_rows_mode_size")
def _sm90_c_rows_mode_size() -> str:
    got = _run_module(mode_sizes, default_spec(), "cute.mode_size[cute/mode_statements:SM90.C.rows]")
    return got.message


# --- the parametrized tests' messages (one of each shape) ------------------------------------------

@example("cute.thread_group.warp_of_quadpairs")
def _thread_group_of_parts() -> str:
    return _run(cute_atoms.cases(SPEC), f"cute.thread_group[{GROUPS}:warp]").message


@example("cute.atom_name.spelled_by_the_document")
def _atom_name_spelled() -> str:
    return _run(_statements(SPEC), f"cute.atom_name[{ATOMS}:SM90_64x128.CLayout]").message


@example("cute.atom_name.the_projects_name")
def _atom_name_projects() -> str:
    return _run(_statements(SPEC), f"cute.atom_name[{ATOMS}:SM90_64x8.CLayout]").message


@example("cute.layout_major.the_letter_of_the_operand")
def _layout_major() -> str:
    return _run(_statements(SPEC), f"cute.layout_major[{ATOMS}:SM70_8x8x4.BLayout.TN]").message


@example("cute.operation_registers.add_up")
def _operation_registers() -> str:
    key = f"{REGS}:SM70_8x8x4_F32F16F16F32_NT.ARegisters"
    return _run(_statements(SPEC), f"cute.operation_registers[{key}]").message
