"""Outcomes of the CuTeDSL-blog and CuTe MMA-atom checks (oracle/checks/cutedsl.py, cute_atoms.py,
cute_statements.py, cute_points.py) that mutation testing found unasserted (a fresh sample, seed 2;
reports/mutation/README.md).

The cases are built inside each test from the module's `cases(spec)` (they are built at collection
time elsewhere, where a mutant of their construction never runs) and executed with
`ptxconf.core.cases.execute`; the whole outcome is asserted: status, code, message and the fields the
report shows. A failing outcome comes from a scratch copy of the bundled spec with one row's text
edited (conformance/scratch_spec.py).

Expected values are worked by hand from:

* the spec rows quoted at each test (spec/cutedsl/*.yaml, spec/cute/*.yaml); a row's key is
  `<file stem>:<id>`, a case's id `<check>[<key>]`;
* `ptxconf.core.cases.expect_equal`'s message, `<what>: <source> says <documented>, <witness> gives
  <derived>`, with fields documented, derived, source and witness (FAIL is `mismatch`,
  DISCREPANCY `documents_disagree`);
* CuTe's Swizzle<B,M,S> (printed `Swizzle<B,M,S>`): bits [M, M+B) flip with bits [M+S, M+S+B),
  its pattern repeats every 2^(B+M+S) offsets; a layout's offset is the inner product of the
  (colexicographic) coordinate with the strides, its cosize the last offset + 1; a layout prints
  as `shape:stride` with no spaces;
* the blog's selection rule (spec/cutedsl/atom_selection.yaml: SW128 Swizzle<3,4,3>, SW64
  <2,4,3>, SW32 <1,4,3>, INTER <0,4,3>; an atom is (8, contiguous bits / width) K-major);
* notation's error form `<message> at column <N>` (1-based) for a character it does not read;
* the PTX ISA and CuTe's document: bf16 and f16 are 16 bits, f32 32; a warp is 32 threads,
  a warpgroup 128 (the SM90 CLayout's thread mode (4,8,4)); CUTLASS's letters: A 'N' is
  M-major, B 'T' N-major, so B 'N' is K-major.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_mismatch as _mismatch
from case_outcomes import expect_outcome as _is
from case_outcomes import run_case as _run
from scratch_spec import edited_spec

from ptxconf.core.cases import Case
from ptxconf.core.results import Status
from ptxconf.oracle.checks import cute_atoms, cute_points, cute_statements, cutedsl
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()

EX = "cutedsl/worked_examples"
EX_FILE = "cutedsl/worked_examples.yaml"
ATOMS = "cute/mma_atoms"
ATOMS_FILE = "cute/mma_atoms.yaml"
GROUPS = "cute/thread_groups"
REGS = "cute/operation_registers"
# the full CLayout of SM90_64x128x16_F16F16F16F16_TN, as mma_atoms.yaml spells it
C128 = "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"


def _statements(spec: Spec) -> list[Case]:
    """cute_statements' cases over the spec's cute_layout rows (as cute_atoms.cases calls it)."""
    return list(cute_statements.cases(spec, spec.of(CuteLayout)))


# --- cutedsl: the swizzle example (Swizzle<2,4,3> at (7, 25) of (8,32):(32,1)) -------------------

SWZ = f"cutedsl.swizzle[{EX}:swizzle.S243.7_25]"


def test_the_swizzle_example_maps_249_to_233() -> None:
    """7*32 + 25 = 249 = 0b11111001; bit 7 is 1, bit 8 0, so bit 4 flips: 249 - 16 = 233."""
    _is(_run(cutedsl.cases(SPEC), SWZ), Status.PASS, "ok", "249 -> 233")


def test_a_layout_that_is_not_compact_fails_by_its_text(tmp_path: Path) -> None:
    """(8,32):(64,1) reaches 7*64 + 31 = 479, cosize 480, over 256 cells: not compact."""
    spec = edited_spec(tmp_path, EX_FILE, 'layout: "(8,32):(32,1)"', 'layout: "(8,32):(64,1)"')
    _is(_run(cutedsl.cases(spec), SWZ), Status.FAIL, "mismatch",
        f"{EX}:swizzle.S243.7_25: (8,32):(64,1) is not a compact layout")


def test_a_wrong_swizzled_offset_names_the_swizzle_and_the_plain_offset(tmp_path: Path) -> None:
    """swizzled_offset_elems edited to 234; Swizzle<2,4,3>(249) is 233."""
    spec = edited_spec(tmp_path, EX_FILE, "swizzled_offset_elems: 233", "swizzled_offset_elems: 234")
    _mismatch(_run(cutedsl.cases(spec), SWZ), "swizzled offset", f"{EX}:swizzle.S243.7_25", 234,
              "Swizzle<2,4,3>(249)", 233)


def test_a_wrong_plain_binary_names_the_plain_offset(tmp_path: Path) -> None:
    """plain_offset_binary edited to 0b...11111000 = 248; the plain offset is 249."""
    spec = edited_spec(tmp_path, EX_FILE, 'plain_offset_binary: "0b0000000011111001"',
                       'plain_offset_binary: "0b0000000011111000"')
    _mismatch(_run(cutedsl.cases(spec), SWZ), "plain offset in binary", f"{EX}:swizzle.S243.7_25",
              248, "plain offset 249", 249)


# --- cutedsl: the select, bits and period examples ------------------------------------------------

def test_a_bf16_of_8_bits_disagrees_with_the_element_table(tmp_path: Path) -> None:
    """select.bf16.K.8x32's element_width_bits edited to 8; element_types' bf16 is 16 bits."""
    spec = edited_spec(tmp_path, EX_FILE, "element_width_bits: 16", "element_width_bits: 8")
    res = _run(cutedsl.cases(spec), f"cutedsl.select[{EX}:select.bf16.K.8x32]")
    _mismatch(res, "bits of one bf16 element", f"{EX}:select.bf16.K.8x32", 8, "wgmma/element_types",
              16, status=Status.DISCREPANCY)


def test_a_period_binary_other_than_the_period_fails(tmp_path: Path) -> None:
    """period.S143's period_binary edited to 0b1000000000 = 512; its period_units is 256."""
    spec = edited_spec(tmp_path, EX_FILE, 'period_binary: "0b0000000100000000"',
                       'period_binary: "0b0000001000000000"')
    res = _run(cutedsl.cases(spec), f"cutedsl.bits[{EX}:period.S143]")
    _mismatch(res, "period in binary", f"{EX}:period.S143", 512, "period_units", 256)


def test_an_identity_swizzle_with_shift_0_has_period_2_to_the_m(tmp_path: Path) -> None:
    """period.S143 edited to Swizzle<0,4,0>: 2^(0+4+0) = 16 offsets; row width 2^0 x 2^4 = 16 B."""
    spec = edited_spec(tmp_path, EX_FILE,
                       "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, period_units: 256, "
                       "stated_period_bytes: 32",
                       "swizzle_bits: 0, swizzle_base: 4, swizzle_shift: 0, period_units: 16, "
                       "stated_period_bytes: 16")
    res = _run(cutedsl.cases(spec), f"cutedsl.period[{EX}:period.S143]")
    _is(res, Status.PASS, "ok", "period 16")


# --- cutedsl: tile_to_shape examples and the atom they build --------------------------------------

def test_a_period_of_128_disagrees_with_swizzle_1_4_3(tmp_path: Path) -> None:
    """tile.K_SW32.32x32's period_units edited to 128; Swizzle<1,4,3> repeats after 2^8 = 256."""
    spec = edited_spec(tmp_path, EX_FILE, "period_units: 256, pattern_repeat_atoms: 2",
                       "period_units: 128, pattern_repeat_atoms: 2")
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW32.32x32]")
    _mismatch(res, "index the pattern repeats after", f"{EX}:tile.K_SW32.32x32", 128,
              "Swizzle<1,4,3>: 2^(B+M+S)", 256, status=Status.DISCREPANCY)


def test_a_result_that_does_not_parse_is_a_discrepancy_naming_the_column(tmp_path: Path) -> None:
    """The by-hand result written with the blog's '∘': the 16th character, after Swizzle<1,4,3> ."""
    spec = edited_spec(tmp_path, EX_FILE, 'result: "Swizzle<1,4,3> o 0 o', 'result: "Swizzle<1,4,3> ∘ 0 ∘')
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW32.32x32.by_hand]")
    text = "Swizzle<1,4,3> ∘ 0 ∘ ((8,16),(16,2)):((16,128),(1,512))"
    _is(res, Status.DISCREPANCY, "documents_disagree",
        f"the blog's result {text!r} does not parse: unexpected character '∘' at column 16")


def test_an_atom_whose_swizzle_no_selection_row_builds_fails(tmp_path: Path) -> None:
    """tile.K_SW128.64x64's atom edited to Swizzle<3,4,4>: the rows build <3,4,3>, <2,4,3>, ..."""
    spec = edited_spec(tmp_path, EX_FILE, 'atom: "Swizzle<3,4,3>', 'atom: "Swizzle<3,4,4>')
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW128.64x64]")
    _is(res, Status.FAIL, "mismatch",
        f"{EX}:tile.K_SW128.64x64: Swizzle<3,4,4> is the swizzle of no selection row")


# --- cute_statements: the cases each row gets, and what they say ----------------------------------

@pytest.mark.parametrize(("row", "message"), [
    ("SM90_64x128.CLayout", "SM90_64x128x16_F16F16F16F16_TN: spelled by the document"),
    ("SM90_64x8.CLayout",
     "SM90_64x8x16_F16F16F16F16_TN: the project's name for what the section describes"),
])
def test_atom_name_says_whether_the_document_spells_the_name(row: str, message: str) -> None:
    """64x128's quote names SM90_64x128x16_F16F16F16F16_TN; 64x8's (atom_named false) names none."""
    _is(_run(_statements(SPEC), f"cute.atom_name[{ATOMS}:{row}]"), Status.PASS, "ok", message)


@pytest.mark.parametrize(("row", "message"), [
    ("SM70_8x8x4.BLayout.TN", "B 'N': values run along K (4:8)"),
    ("SM70_8x8x4.BLayout.NT", "B 'T': values run along MN (4:1)"),
    ("SM70_8x8x4.ALayout.NT", "A 'N': values run along MN (4:1)"),
])
def test_layout_major_reads_the_letter_of_the_operand(row: str, message: str) -> None:
    """(8,4):(1,8): value stride 8 = the 8 rows, K; ((4,2),4):((8,4),1): value stride 1, MN."""
    _is(_run(_statements(SPEC), f"cute.layout_major[{ATOMS}:{row}]"), Status.PASS, "ok", message)


@pytest.mark.parametrize(("operand", "message"), [
    ("D", "float[8]: 8 x 32-bit values in 8 x 32-bit registers"),
    ("A", "uint32_t[2]: 4 x 16-bit values in 2 x 32-bit registers"),
])
def test_operation_registers_add_up(operand: str, message: str) -> None:
    """DRegisters float[8]: 8 F32 values; ARegisters uint32_t[2]: 4 F16 values (ALayout.NT's V4)."""
    key = f"{REGS}:SM70_8x8x4_F32F16F16F32_NT.{operand}Registers"
    res = _run(_statements(SPEC), f"cute.operation_registers[{key}]")
    _is(res, Status.PASS, "ok", message)


def test_a_uint16_register_fails_against_register_bits(tmp_path: Path) -> None:
    """ARegisters edited to uint16_t[2]: a uint16_t is 16 bits, the row's register_bits 32."""
    spec = edited_spec(tmp_path, "cute/operation_registers.yaml", 'operand: A, cpp_type: "uint32_t[2]"',
                       'operand: A, cpp_type: "uint16_t[2]"')
    key = f"{REGS}:SM70_8x8x4_F32F16F16F32_NT.ARegisters"
    _mismatch(_run(_statements(spec), f"cute.operation_registers[{key}]"), "bits of a uint16_t", key,
              16, "register_bits", 32)


def test_a_mode_statement_of_neither_size_nor_stride_fails(tmp_path: Path) -> None:
    """SM90.C.warps edited to state only its mode [0, 2]."""
    spec = edited_spec(tmp_path, "cute/mode_statements.yaml", "mode: [0, 2], mode_size: 4, mode_stride: 32}",
                       "mode: [0, 2]}")
    key = "cute/mode_statements:SM90.C.warps"
    _is(_run(_statements(spec), f"cute.mode_statement[{key}]"), Status.FAIL, "mismatch",
        f"{key}: states neither a size nor a stride")


def test_a_warpgroup_of_8_warps_fails_against_the_sm90_thread_mode(tmp_path: Path) -> None:
    """warpgroup edited to 256 threads = 8 x warp; the SM90 CLayout's thread mode is 4*8*4 = 128."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 128, part: warp, parts: 4",
                       "threads: 256, part: warp, parts: 8")
    _mismatch(_run(_statements(spec), f"cute.thread_group[{GROUPS}:warpgroup]"),
              "threads of a warpgroup", f"{GROUPS}:warpgroup", 256,
              "the thread mode of SM90_64x8.CLayout", 128)


def test_a_warp_of_64_threads_fails_against_the_warpgroup(tmp_path: Path) -> None:
    """warp.indexed edited to 64 threads; a warpgroup's 128 threads over its 4 warps is 32."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 32}", "threads: 64}")
    _mismatch(_run(_statements(spec), f"cute.thread_group[{GROUPS}:warp.indexed]"),
              "threads of a warp", f"{GROUPS}:warp.indexed", 64,
              "facts.warp_threads (warpgroup threads / its warps)", 32)


def test_a_quadpair_tile_other_than_its_atoms_fails(tmp_path: Path) -> None:
    """quadpair's tile edited to 8x8x8; its ThrID's atom SM70_8x8x4_F32F16F16F32_NT is 8x8x4."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 8, tile: 8x8x4",
                       "threads: 8, tile: 8x8x8")
    _mismatch(_run(_statements(spec), f"cute.thread_group[{GROUPS}:quadpair]"), "tile of a quadpair",
              f"{GROUPS}:quadpair", "8x8x8", "the atom SM70_8x8x4_F32F16F16F32_NT", "8x8x4")


# --- cute_atoms: one row's layout, its ThrID and the SS ALayout -----------------------------------

def test_an_id_that_names_no_atom_fails(tmp_path: Path) -> None:
    """SM70_8x8x4.CLayout.f16's id edited to Volta.CLayout.f16: no SM<arch>_<M>x<N> prefix."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "id: SM70_8x8x4.CLayout.f16", "id: Volta.CLayout.f16")
    key = f"{ATOMS}:Volta.CLayout.f16"
    _is(_run(cute_atoms.cases(spec), f"cute.layout[{key}]"), Status.FAIL, "mismatch",
        f"{key}: atom 'SM70_8x8x4_F16F16F16F16_NT' / id 'Volta.CLayout.f16' do not read as "
        "SM<arch>_<M>x<N>...")


def test_a_point_whose_index_the_layout_does_not_give_fails(tmp_path: Path) -> None:
    """64x128's point (T0, V4) edited to index 513; V4 is (0,0,1) in (2,2,16), offset 512."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "points: [[0, 4, 0, 8, 512]]", "points: [[0, 4, 0, 8, 513]]")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    _mismatch(_run(cute_atoms.cases(spec), f"cute.layout[{key}]"), "layout(0, 4)", f"{key} points",
              513, C128, 512)


def test_a_domain_other_than_the_shape_fails(tmp_path: Path) -> None:
    """64x128's domain edited to [128, 32]; its shape is 4*8*4 = 128 threads x 2*2*16 = 64 values."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "domain: [128, 64]", "domain: [128, 32]")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    _mismatch(_run(cute_atoms.cases(spec), f"cute.layout[{key}]"), "domain (threads, values)", key,
              (128, 32), f"the shape of {C128}", (128, 64))


def test_a_thrid_codomain_past_its_warp_fails(tmp_path: Path) -> None:
    """SM70 ThrID codomain edited to [64, 1]; (4,2):(1,16) reaches 3 + 16 = 19, one 32-thread warp."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "codomain_mn: [32, 1]", "codomain_mn: [64, 1]")
    key = f"{ATOMS}:SM70_8x8x4.ThrID"
    _mismatch(_run(cute_atoms.cases(spec), f"cute.layout[{key}]"), "ThrID codomain (threads, 1)", key,
              (64, 1), "the whole warps that (4,2):(1,16) reaches", (32, 1))


def test_ss_alayout_values_must_be_column_major(tmp_path: Path) -> None:
    """SS ALayout edited to (128,(64,16)):(0,(16,1)); column-major m + k * 64 is strides (1, 64)."""
    spec = edited_spec(tmp_path, ATOMS_FILE, 'layout: "(128,(64,16)):(0,(1,64))"',
                       'layout: "(128,(64,16)):(0,(16,1))"')
    key = f"{ATOMS}:SM90_64xNx16.ALayout.SS"
    _mismatch(_run(cute_atoms.cases(spec), f"cute.ss_alayout[{key}]"), "value strides", key, (16, 1),
              "the column-major index m + k * M", (1, 64))


# --- cute_points ---------------------------------------------------------------------------------

def test_a_point_on_the_row_past_the_last_lies_outside(tmp_path: Path) -> None:
    """64x128's point edited to row 64: rows run 0..63 of the 64x128 codomain."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "points: [[0, 4, 0, 8, 512]]", "points: [[0, 4, 64, 8, 512]]")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    _is(_run(cute_points.cases(spec), f"cute.points_in_domain[{key}]"), Status.FAIL, "mismatch",
        f"{key}: point (T0, V4) -> (64, 8) lies outside (T128, V64) -> (64, 128)", point=[0, 4, 64, 8])


def test_a_point_inside_the_codomain_passes() -> None:
    """64x128's point (T0, V4) -> (0, 8) is inside (T128, V64) -> (64, 128)."""
    res = _run(cute_points.cases(SPEC), f"cute.points_in_domain[{ATOMS}:SM90_64x128.CLayout]")
    _is(res, Status.PASS, "ok", "1 points inside (T128, V64) -> (64, 128)")


# --- seed-3 sample survivors ---------------------------------------------------------------------

def test_a_selection_example_off_the_multiple_of_8_breaks_the_precondition(tmp_path: Path) -> None:
    """select.bf16.K.8x32's major_mode_size_elems edited to 36: 36 % 8 = 4, so the blog's
    get_smem_layout_atom assert (precondition.major_mode_multiple, 8) fails on it."""
    spec = edited_spec(tmp_path, EX_FILE, "major_mode_size_elems: 32", "major_mode_size_elems: 36")
    res = _run(cutedsl.cases(spec), f"cutedsl.precondition[{EX}:precondition.major_mode_multiple]")
    _is(res, Status.FAIL, "mismatch",
        f"{EX}:precondition.major_mode_multiple: selection examples break 'assert major_mode_size % 8 "
        f"== 0': ['{EX}:select.bf16.K.8x32']")


def test_a_tile_shorter_than_the_chosen_atom_fails_naming_the_atom(tmp_path: Path) -> None:
    """select.bf16.K.8x32's layout edited to (4, 32):(32, 1): still 32 x 16 = 512 bits along the
    stride-1 mode, so K_SW64 (512 bits: n = 512 / 16 = 32, 8 lines, (8,32):(32,1) K-major), and
    compact (cosize 3*32 + 31 + 1 = 128 = size); but 4 rows are not a whole number of its 8."""
    spec = edited_spec(tmp_path, EX_FILE, 'layout: "(8, 32):(32, 1)"', 'layout: "(4, 32):(32, 1)"')
    res = _run(cutedsl.cases(spec), f"cutedsl.select[{EX}:select.bf16.K.8x32]")
    _is(res, Status.FAIL, "mismatch",
        f"{EX}:select.bf16.K.8x32: the 4x32 tile is not a whole number of the chosen K_SW64 atom "
        "(8,32):(32,1) (tile_to_shape needs one)")
