"""The CuTe statement checks (oracle/checks/cute_statements.py): an alias names a layout of the
right size and value bits, the variants' N against the fragment table, the thread groups add up
(quadpair 8, warp 4 x quadpair, warpgroup 4 x warp = 128, the SM90 CLayout's thread mode (4,8,4)),
an atom name spelled by the document or not, the operand letter against the value stride (CUTLASS:
A 'N' is M-major, B 'T' N-major, so B 'N' is K-major), the operation registers and the mode
statements.

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
from scratch_spec import default_row_replaced, edited_spec

from ptxconf.core.cases import Case
from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    cute_atoms,
    cute_statements,
)
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
ATOMS = "cute/mma_atoms"
GROUPS = "cute/thread_groups"
REGS = "cute/operation_registers"


def _statements(spec: Spec) -> list[Case]:
    """cute_statements' cases over the spec's cute_layout rows (as cute_atoms.cases calls it)."""
    return list(cute_statements.cases(spec, spec.of(CuteLayout)))


# --- aliases and the variants' N ------------------------------------------------------------------


def test_the_quadpair_alias_names_the_8_thread_group() -> None:
    """ThrID (4,2):(1,16) is 8 threads; SM70_QuadPair names thread_groups' quadpair, 8 threads."""
    res = _run(cute_atoms.cases(SPEC), f"cute.alias[{ATOMS}:SM70_8x8x4.ThrID]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "SM70_QuadPair", "(4,2):(1,16)")


def test_the_32b_alias_names_an_8x8_c_of_f32_values() -> None:
    """SM70_8x8_32b: codomain [8, 8]; the D type of F32F16F16F32 is F32, 32 bits."""
    res = _run(cute_atoms.cases(SPEC), f"cute.alias[{ATOMS}:SM70_8x8x4.CLayout.f32]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "SM70_8x8_32b", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))")


def test_an_a_layout_alias_reads_its_bits_from_the_a_type(tmp_path: Path) -> None:
    """The NT ALayout's alias edited to SM70_8x4_32b: A of F32F16F16F32 is F16, 16 bits."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "alias: SM70_8x4_Col\n    role: ALayout",
                    "alias: SM70_8x4_32b\n    role: ALayout")
    res = _run(cute_atoms.cases(spec), f"cute.alias[{ATOMS}:SM70_8x8x4.ALayout.NT]")
    expect_mismatch_fields(res, f"{ATOMS}:SM70_8x8x4.ALayout.NT", 32,
                           "the types of SM70_8x8x4_F32F16F16F32_NT", 16)
    expect_named(res, "value bits of SM70_8x4_32b")


def test_the_variants_n_are_repeats_of_8_and_valid_n_at_k16() -> None:
    """SM90_64x8.CLayout: N = [16, 32, 64, 128, 256], codomain N 8; k16 D rows take N 8..256."""
    res = _run(cute_atoms.cases(SPEC), f"cute.variants_n[{ATOMS}:SM90_64x8.CLayout]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "[16, 32, 64, 128, 256]", "repeats of 8", "k16.D.f16, k16.D.f32")


def test_a_variant_n_past_256_disagrees_with_the_fragment_table(tmp_path: Path) -> None:
    """N = 264 added: a repeat of 8, but k16.D.f16's valid N end at 8 * 32 = 256."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "variants_n_elems: [16, 32, 64, 128, 256]",
                    "variants_n_elems: [16, 32, 64, 128, 256, 264]")
    res = _run(cute_atoms.cases(spec), f"cute.variants_n[{ATOMS}:SM90_64x8.CLayout]")
    frag = "wgmma/register_fragments:k16.D.f16"
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", n=264, fragment=frag)
    expect_named(res, f"{ATOMS}:SM90_64x8.CLayout")


# --- thread groups --------------------------------------------------------------------------------


@pytest.mark.parametrize(("group", "named"), [
    ("quadpair", ("8 threads",)),
    ("warp", ("32 threads", "4 x quadpair")),
    ("warpgroup", ("128 threads", "4 x warp")),
])
def test_thread_groups_add_up(group: str, named: tuple[str, ...]) -> None:
    """thread_groups.yaml: quadpair 8 (SM70 ThrID), warp 4 x quadpair = 32, warpgroup 4 x warp."""
    res = _run(cute_atoms.cases(SPEC), f"cute.thread_group[{GROUPS}:{group}]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, *named)


def test_the_quadpair_is_the_thrid_its_alias_names_whatever_the_row_order() -> None:
    """Rows reversed: the SM90 ThrID (128 threads) comes first, yet only SM70_QuadPair counts."""
    rows = tuple(reversed(SPEC.of(CuteLayout)))
    thr = [r.id for r in rows if r.role == "ThrID"]
    assert thr.index("SM90_64x8.ThrID") < thr.index("SM70_8x8x4.ThrID") == len(thr) - 1
    res = _run(cute_statements.cases(SPEC, rows), f"cute.thread_group[{GROUPS}:quadpair]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "8 threads")


def test_a_quadpair_of_16_threads_fails_against_its_thrid(tmp_path: Path) -> None:
    """quadpair edited to 16 threads; SM70_8x8x4.ThrID (4,2):(1,16) has 8."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 8, tile: 8x8x4",
                    "threads: 16, tile: 8x8x4")
    res = _run(cute_atoms.cases(spec), f"cute.thread_group[{GROUPS}:quadpair]")
    expect_mismatch_fields(res, f"{GROUPS}:quadpair", 16, f"{ATOMS}:SM70_8x8x4.ThrID", 8)


def test_a_group_of_0_parts_has_a_tile_of_0_rows(tmp_path: Path) -> None:
    """warp edited to 0 threads of 0 quadpairs: 0 x 8 = 0 threads agree; its 16x16x4 tile is
    (16 * 16, 4) = (256, 4), 0 quadpair tiles of 8x8x4 are (0 * 8 * 8, 4) = (0, 4)."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 32, part: quadpair, parts: 4",
                       "threads: 0, part: quadpair, parts: 0")
    res = _run(cute_atoms.cases(spec), f"cute.thread_group[{GROUPS}:warp]")
    expect_mismatch_fields(res, f"{GROUPS}:warp", (256, 4), "0 tiles of 8x8x4", (0, 4))


def test_a_warpgroup_of_8_warps_fails_against_the_sm90_thread_mode(tmp_path: Path) -> None:
    """warpgroup edited to 256 threads = 8 x warp; the SM90 CLayout's thread mode is 4*8*4 = 128."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 128, part: warp, parts: 4",
                       "threads: 256, part: warp, parts: 8")
    res = _run(_statements(spec), f"cute.thread_group[{GROUPS}:warpgroup]")
    expect_mismatch_fields(res, f"{GROUPS}:warpgroup", 256, "the thread mode of SM90_64x8.CLayout", 128)


def test_a_warp_of_64_threads_fails_against_the_warpgroup(tmp_path: Path) -> None:
    """warp.indexed edited to 64 threads; a warpgroup's 128 threads over its 4 warps is 32."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 32}", "threads: 64}")
    res = _run(_statements(spec), f"cute.thread_group[{GROUPS}:warp.indexed]")
    expect_mismatch_fields(res, f"{GROUPS}:warp.indexed", 64,
                           "facts.warp_threads (warpgroup threads / its warps)", 32)


def test_a_quadpair_tile_other_than_its_atoms_fails(tmp_path: Path) -> None:
    """quadpair's tile edited to 8x8x8; its ThrID's atom SM70_8x8x4_F32F16F16F32_NT is 8x8x4."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 8, tile: 8x8x4",
                       "threads: 8, tile: 8x8x8")
    res = _run(_statements(spec), f"cute.thread_group[{GROUPS}:quadpair]")
    expect_mismatch_fields(res, f"{GROUPS}:quadpair", "8x8x8", "the atom SM70_8x8x4_F32F16F16F32_NT", "8x8x4")


# --- atom names, operand letters, registers and mode statements -----------------------------------


@pytest.mark.parametrize(("row", "named"), [
    ("SM90_64x128.CLayout", ("SM90_64x128x16_F16F16F16F16_TN", "spelled by the document")),
    ("SM90_64x8.CLayout", ("SM90_64x8x16_F16F16F16F16_TN", "the project's name")),
])
def test_atom_name_says_whether_the_document_spells_the_name(row: str, named: tuple[str, ...]) -> None:
    """64x128's quote names SM90_64x128x16_F16F16F16F16_TN; 64x8's (atom_named false) names none."""
    res = _run(_statements(SPEC), f"cute.atom_name[{ATOMS}:{row}]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, *named)


@pytest.mark.parametrize(("row", "named"), [
    ("SM70_8x8x4.BLayout.TN", ("B 'N'", "along K", "(4:8)")),
    ("SM70_8x8x4.BLayout.NT", ("B 'T'", "along MN", "(4:1)")),
    ("SM70_8x8x4.ALayout.NT", ("A 'N'", "along MN", "(4:1)")),
])
def test_layout_major_reads_the_letter_of_the_operand(row: str, named: tuple[str, ...]) -> None:
    """(8,4):(1,8): value stride 8 = the 8 rows, K; ((4,2),4):((8,4),1): value stride 1, MN."""
    res = _run(_statements(SPEC), f"cute.layout_major[{ATOMS}:{row}]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, *named)


def test_a_value_stride_of_neither_mode_fails(tmp_path: Path) -> None:
    """SM70_8x8x4.BLayout.TN edited to (8,4):(1,2): value stride 2 is neither 1 (MN) nor the 8
    rows of its 8x4 codomain (K)."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", 'role: BLayout\n    layout: "(8,4):(1,8)"',
                       'role: BLayout\n    layout: "(8,4):(1,2)"')
    key = f"{ATOMS}:SM70_8x8x4.BLayout.TN"
    res = _run(cute_atoms.cases(spec), f"cute.layout_major[{key}]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, key, "value stride 2")


@pytest.mark.parametrize(("operand", "named"), [
    ("D", ("float[8]", "8 x 32-bit values", "8 x 32-bit registers")),
    ("A", ("uint32_t[2]", "4 x 16-bit values", "2 x 32-bit registers")),
])
def test_operation_registers_add_up(operand: str, named: tuple[str, ...]) -> None:
    """DRegisters float[8]: 8 F32 values; ARegisters uint32_t[2]: 4 F16 values (ALayout.NT's V4)."""
    key = f"{REGS}:SM70_8x8x4_F32F16F16F32_NT.{operand}Registers"
    res = _run(_statements(SPEC), f"cute.operation_registers[{key}]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, *named)


def test_a_uint16_register_fails_against_register_bits(tmp_path: Path) -> None:
    """ARegisters edited to uint16_t[2]: a uint16_t is 16 bits, the row's register_bits 32."""
    spec = edited_spec(tmp_path, "cute/operation_registers.yaml", 'operand: A, cpp_type: "uint32_t[2]"',
                       'operand: A, cpp_type: "uint16_t[2]"')
    key = f"{REGS}:SM70_8x8x4_F32F16F16F32_NT.ARegisters"
    res = _run(_statements(spec), f"cute.operation_registers[{key}]")
    expect_mismatch_fields(res, key, 16, "register_bits", 32)
    expect_named(res, "bits of a uint16_t")


def test_a_mode_statement_of_neither_size_nor_stride_fails(tmp_path: Path) -> None:
    """SM90.C.warps edited to state only its mode [0, 2]."""
    spec = edited_spec(tmp_path, "cute/mode_statements.yaml", "mode: [0, 2], mode_size: 4, mode_stride: 32}",
                       "mode: [0, 2]}")
    key = "cute/mode_statements:SM90.C.warps"
    res = _run(_statements(spec), f"cute.mode_statement[{key}]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, key)


# --- SM80 / SM89 rows ------------------------------------------------------------------------

SM80 = "cute/mma_layouts_sm80"
SM89 = "cute/mma_layouts_sm89"


def test_the_letter_is_checked_where_elements_pack_into_a_register() -> None:
    """16-bit and 8-bit A and B layouts run along K (TN: both K-major); a tf32 element fills its
    register, so its layout's values say nothing of the letter and no case is made."""
    ids = {c.id for c in _statements(SPEC) if c.id.startswith("cute.layout_major[")}
    assert f"cute.layout_major[{SM80}:SM80_16x8x16.F16.ALayout]" in ids
    assert f"cute.layout_major[{SM89}:SM89_16x8x32.E4M3.BLayout]" in ids
    assert not {f"cute.layout_major[{SM80}:SM80_16x8x8.TF32.{r}]" for r in ("ALayout", "BLayout")} & ids
    res = _run(_statements(SPEC), f"cute.layout_major[{SM80}:SM80_16x8x32.S8.ALayout]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "values run along K")


def test_a_later_architecture_may_reuse_an_earlier_ones_alias() -> None:
    """The SM89 traits' CLayout is SM80_16x8_Row: held to the SM80 rows of that name; an alias of
    a later architecture than the atom's fails, and so does an earlier one's that no row of that
    architecture has."""
    res = _run(_statements(SPEC), f"cute.alias[{SM89}:SM89_16x8x32.E4M3.CLayout]")
    expect_fields(res, Status.PASS, "ok")
    later = default_row_replaced("CuteLayout", "SM80_16x8x8.F16.CLayout", alias="SM90_16x8_Row")
    res = _run(_statements(later), f"cute.alias[{SM80}:SM80_16x8x8.F16.CLayout]")
    assert (res.status, res.code) == (Status.FAIL, "mismatch")
    expect_named(res, "SM90_16x8_Row", "SM80")
    unknown = default_row_replaced("CuteLayout", "SM89_16x8x32.E4M3.CLayout", alias="SM81_16x8_Row")
    res = _run(_statements(unknown), f"cute.alias[{SM89}:SM89_16x8x32.E4M3.CLayout]")
    expect_fields(res, Status.FAIL, "mismatch", alias="SM81_16x8_Row")
