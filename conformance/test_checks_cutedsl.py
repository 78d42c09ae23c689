"""The CuTeDSL-blog checks (oracle/checks/cutedsl.py): the swizzle example, the select, bits and
period examples, tile_to_shape and the atom it builds, the selection rows and their precondition.

Expected values are worked by hand from CuTe's Swizzle<B,M,S> (bits [M, M+B) flip with bits
[M+S, M+S+B), the pattern repeats every 2^(B+M+S) offsets), a layout's offset (the inner product of
the coordinate with the strides, its cosize the last offset + 1) and the blog's selection rule
(spec/cutedsl/atom_selection.yaml: SW128 Swizzle<3,4,3>, SW64 <2,4,3>, SW32 <1,4,3>, INTER
<0,4,3>; an atom is (8, contiguous bits / width) K-major, (n, 8):(1, n) MN-major); notation's error
form `<message> at column <N>` (1-based).

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_fields, expect_mismatch_fields, expect_named
from case_outcomes import run_case as _run
from case_outcomes import run_module_case as _run_module
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    cutedsl,
)
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
EX = "cutedsl/worked_examples"
EX_FILE = "cutedsl/worked_examples.yaml"
S143 = "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, period_units: 256"
S143_KEY = "cutedsl/worked_examples:period.S143"


# --- the swizzle example (Swizzle<2,4,3> at (7, 25) of (8,32):(32,1)) -----------------------------


SWZ = f"cutedsl.swizzle[{EX}:swizzle.S243.7_25]"


def test_the_swizzle_example_maps_249_to_233() -> None:
    """7*32 + 25 = 249 = 0b11111001; bit 7 is 1, bit 8 0, so bit 4 flips: 249 - 16 = 233."""
    res = _run(cutedsl.cases(SPEC), SWZ)
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "249", "233")


def test_a_layout_that_is_not_compact_fails_by_its_text(tmp_path: Path) -> None:
    """(8,32):(64,1) reaches 7*64 + 31 = 479, cosize 480, over 256 cells: not compact."""
    spec = edited_spec(tmp_path, EX_FILE, 'layout: "(8,32):(32,1)"', 'layout: "(8,32):(64,1)"')
    res = _run(cutedsl.cases(spec), SWZ)
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, f"{EX}:swizzle.S243.7_25", "(8,32):(64,1)")


def test_a_wrong_swizzled_offset_names_the_swizzle_and_the_plain_offset(tmp_path: Path) -> None:
    """swizzled_offset_elems edited to 234; Swizzle<2,4,3>(249) is 233."""
    spec = edited_spec(tmp_path, EX_FILE, "swizzled_offset_elems: 233", "swizzled_offset_elems: 234")
    res = _run(cutedsl.cases(spec), SWZ)
    expect_mismatch_fields(res, f"{EX}:swizzle.S243.7_25", 234, "Swizzle<2,4,3>(249)", 233)


def test_a_wrong_plain_binary_names_the_plain_offset(tmp_path: Path) -> None:
    """plain_offset_binary edited to 0b...11111000 = 248; the plain offset is 249."""
    spec = edited_spec(tmp_path, EX_FILE, 'plain_offset_binary: "0b0000000011111001"',
                       'plain_offset_binary: "0b0000000011111000"')
    res = _run(cutedsl.cases(spec), SWZ)
    expect_mismatch_fields(res, f"{EX}:swizzle.S243.7_25", 248, "plain offset 249", 249)


# --- the select, bits and period examples ---------------------------------------------------------


def test_a_bf16_of_8_bits_disagrees_with_the_element_table(tmp_path: Path) -> None:
    """select.bf16.K.8x32's element_width_bits edited to 8; element_types' bf16 is 16 bits."""
    spec = edited_spec(tmp_path, EX_FILE, "element_width_bits: 16", "element_width_bits: 8")
    res = _run(cutedsl.cases(spec), f"cutedsl.select[{EX}:select.bf16.K.8x32]")
    expect_mismatch_fields(res, f"{EX}:select.bf16.K.8x32", 8, "wgmma/element_types", 16,
                           status=Status.DISCREPANCY)
    expect_named(res, "bits of one bf16 element")


def test_mn_major_selection_builds_an_mn_atom(tmp_path: Path) -> None:
    """An MN-major (32,8):(1,32) bf16 tile: 32 x 16 = 512 bits -> SW64, atom (32,8):(1,32) covers it."""
    old = ('major: K, layout: "(8, 32):(32, 1)", major_mode_size_elems: 32, '
           'major_mode_size_bits: 512, chosen: K_SW64')
    new = ('major: MN, layout: "(32, 8):(1, 32)", major_mode_size_elems: 32, '
           'major_mode_size_bits: 512, chosen: MN_SW64')
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", old, new)
    got = _run_module(cutedsl, spec, "cutedsl.select[cutedsl/worked_examples:select.bf16.K.8x32]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "32 x bf16 = 512 bits", "MN_SW64")


def test_a_tile_shorter_than_the_chosen_atom_fails_naming_the_atom(tmp_path: Path) -> None:
    """select.bf16.K.8x32's layout edited to (4, 32):(32, 1): still 32 x 16 = 512 bits along the
    stride-1 mode, so K_SW64 (512 bits: n = 512 / 16 = 32, 8 lines, (8,32):(32,1) K-major), and
    compact (cosize 3*32 + 31 + 1 = 128 = size); but 4 rows are not a whole number of its 8."""
    spec = edited_spec(tmp_path, EX_FILE, 'layout: "(8, 32):(32, 1)"', 'layout: "(4, 32):(32, 1)"')
    res = _run(cutedsl.cases(spec), f"cutedsl.select[{EX}:select.bf16.K.8x32]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, f"{EX}:select.bf16.K.8x32", "4x32", "K_SW64", "(8,32):(32,1)")


def test_a_period_binary_other_than_the_period_fails(tmp_path: Path) -> None:
    """period.S143's period_binary edited to 0b1000000000 = 512; its period_units is 256."""
    spec = edited_spec(tmp_path, EX_FILE, 'period_binary: "0b0000000100000000"',
                       'period_binary: "0b0000001000000000"')
    res = _run(cutedsl.cases(spec), f"cutedsl.bits[{EX}:period.S143]")
    expect_mismatch_fields(res, f"{EX}:period.S143", 512, "period_units", 256)


def test_bits_of_a_swizzle_with_base_zero(tmp_path: Path) -> None:
    """Swizzle<1,0,3> flips bit 0 with bit 3: "0bxxxxxxxxxxxxXxxZ", Z<-X, B+M+S = 4."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", S143, S143.replace("base: 4", "base: 0"),
                       also=[('pattern_bits: 8, bit_pattern: "0bxxxxxxxxXxxZxxxx"',
                              'pattern_bits: 4, bit_pattern: "0bxxxxxxxxxxxxXxxZ"')])
    got = _run_module(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "Swizzle<1,0,3>", "bit 0 with bit 3", "16-bit")


def test_bits_with_a_reversed_flip(tmp_path: Path) -> None:
    """period.S143's "Z<-X" as "X<-Z": X is bit 7, Z bit 4; Swizzle<1,4,3> flips 4 with 7."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", 'flips: ["Z<-X"]', 'flips: ["X<-Z"]')
    got = _run_module(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", stated=[(7, 4)], swizzle=[(4, 7)])
    expect_named(got, S143_KEY, "0bxxxxxxxxXxxZxxxx", "['X<-Z']", "[(7, 4)]", "[(4, 7)]")


def test_bits_that_determine_the_pattern(tmp_path: Path) -> None:
    """"only the 8 rightmost bits": B+M+S = 1+4+3 = 8, a row saying 7 is caught."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", "pattern_bits: 8", "pattern_bits: 7")
    got = _run_module(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    witness = "Swizzle<1,4,3>: B+M+S"
    expect_fields(got, Status.FAIL, "mismatch", documented=7, derived=8, source=S143_KEY, witness=witness)


def test_an_identity_swizzle_with_shift_0_has_period_2_to_the_m(tmp_path: Path) -> None:
    """period.S143 edited to Swizzle<0,4,0>: 2^(0+4+0) = 16 offsets; row width 2^0 x 2^4 = 16 B."""
    spec = edited_spec(tmp_path, EX_FILE,
                       "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, period_units: 256, "
                       "stated_period_bytes: 32",
                       "swizzle_bits: 0, swizzle_base: 4, swizzle_shift: 0, period_units: 16, "
                       "stated_period_bytes: 16")
    res = _run(cutedsl.cases(spec), f"cutedsl.period[{EX}:period.S143]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "16")


# --- tile_to_shape examples and the atom they build -----------------------------------------------


def test_a_period_of_128_disagrees_with_swizzle_1_4_3(tmp_path: Path) -> None:
    """tile.K_SW32.32x32's period_units edited to 128; Swizzle<1,4,3> repeats after 2^8 = 256."""
    spec = edited_spec(tmp_path, EX_FILE, "period_units: 256, pattern_repeat_atoms: 2",
                       "period_units: 128, pattern_repeat_atoms: 2")
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW32.32x32]")
    expect_mismatch_fields(res, f"{EX}:tile.K_SW32.32x32", 128, "Swizzle<1,4,3>: 2^(B+M+S)", 256,
                           status=Status.DISCREPANCY)


def test_atoms_the_pattern_repeats_after(tmp_path: Path) -> None:
    """tile.K_SW32.32x32: period 2^(1+4+3) = 256 over an (8,16) atom of 128: 2 atoms, not 4."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", "pattern_repeat_atoms: 2",
                       "pattern_repeat_atoms: 4")
    key = "cutedsl/worked_examples:tile.K_SW32.32x32"
    got = _run_module(cutedsl, spec, f"cutedsl.tile_to_shape[{key}]")
    witness = "256 / 128 elements per atom"
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented=4, derived=2, source=key,
                  witness=witness)


def test_a_result_that_does_not_parse_is_a_discrepancy_naming_the_column(tmp_path: Path) -> None:
    """The by-hand result written with the blog's '∘': the 16th character, after Swizzle<1,4,3> ."""
    spec = edited_spec(tmp_path, EX_FILE, 'result: "Swizzle<1,4,3> o 0 o', 'result: "Swizzle<1,4,3> ∘ 0 ∘')
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW32.32x32.by_hand]")
    text = "Swizzle<1,4,3> ∘ 0 ∘ ((8,16),(16,2)):((16,128),(1,512))"
    expect_fields(res, Status.DISCREPANCY, "documents_disagree")
    expect_named(res, repr(text), "'∘'", "column 16")


def test_an_atom_whose_swizzle_no_selection_row_builds_fails(tmp_path: Path) -> None:
    """tile.K_SW128.64x64's atom edited to Swizzle<3,4,4>: the rows build <3,4,3>, <2,4,3>, ..."""
    spec = edited_spec(tmp_path, EX_FILE, 'atom: "Swizzle<3,4,3>', 'atom: "Swizzle<3,4,4>')
    res = _run(cutedsl.cases(spec), f"cutedsl.tile_to_shape[{EX}:tile.K_SW128.64x64]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, f"{EX}:tile.K_SW128.64x64", "Swizzle<3,4,4>")


# --- the selection rows and their precondition ----------------------------------------------------


def test_selection_case_of_sw64() -> None:
    """SW64: "contiguous_bits: 512", make_swizzle(2, 4, 3), strided_elems 8."""
    got = _run_module(cutedsl, default_spec(), "cutedsl.selection[cutedsl/atom_selection:SW64]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "512 bits", "Swizzle<2,4,3>", "8 lines")


def test_selection_constant_differs_from_the_atom(tmp_path: Path) -> None:
    """SW128's select constant as 2048: make_smem_layout_atom's branch has 1024 bits."""
    spec = edited_spec(tmp_path, "cutedsl/atom_selection.yaml", "select_contiguous_bits: 1024",
                       "select_contiguous_bits: 2048")
    key = "cutedsl/atom_selection:SW128"
    got = _run_module(cutedsl, spec, f"cutedsl.selection[{key}]")
    source = f"{key} (get_smem_layout_atom)"
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented=2048, derived=1024, source=source,
                  witness="make_smem_layout_atom")


def test_a_selection_example_off_the_multiple_of_8_breaks_the_precondition(tmp_path: Path) -> None:
    """select.bf16.K.8x32's major_mode_size_elems edited to 36: 36 % 8 = 4, so the blog's
    get_smem_layout_atom assert (precondition.major_mode_multiple, 8) fails on it."""
    spec = edited_spec(tmp_path, EX_FILE, "major_mode_size_elems: 32", "major_mode_size_elems: 36")
    res = _run(cutedsl.cases(spec), f"cutedsl.precondition[{EX}:precondition.major_mode_multiple]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, f"{EX}:precondition.major_mode_multiple", "% 8", f"['{EX}:select.bf16.K.8x32']")
