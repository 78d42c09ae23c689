"""Checks of oracle/checks/ (smem_layouts, cutedsl, cutedsl_ties, figure_ties, mode_sizes,
completeness) that mutation testing found missing (reports/mutation/README.md).

The other tests build every case at collection time, which mutmut does in its parent process
with the original code; these build the cases inside the test (the module's own `cases(spec)`),
pick one by id, execute it and compare the whole outcome a report shows: status, code, message
and fields (`source`, `witness`, the values on both sides).

Expected values are worked by hand:

* from the bundled spec's rows (quoted at each test) and the documents' definitions: T = 128 /
  element width (wgmma/normalization.yaml); a canonical template is instantiated at T, m, k,
  LBO, SBO (wgmma/canonical_layouts.yaml); Swizzle<B,M,S> flips bit M+i with bit M+S+i, i < B,
  and repeats after 2^(B+M+S) (the CuTeDSL blog); CuTeDSL's atom is (n, 8):(1, n) MN-major,
  (8, n):(n, 1) K-major, n = contiguous bits / width (cutedsl/atom_selection.yaml);
* from `ptxconf.core.cases.expect_equal`'s documented message, "<what>: <source> says <documented!r>,
  <witness> gives <derived!r>", and its fields documented / derived / source / witness;
* a failing check is reached by copying the bundled spec to tmp_path, editing one row's text and
  loading the copy (as conformance/test_spec_scratch.py does).
"""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_outcome as _expect
from case_outcomes import run_module_case as _run
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.checks import completeness, cutedsl, cutedsl_ties, figure_ties, mode_sizes
from ptxconf.oracle.checks import smem_layouts as smem
from ptxconf.oracle.spec import default_spec

# --- smem_layouts: cases built here pass on the bundled spec ----------------------------------

def test_lbo_template_case_of_the_mn_swizzled_row() -> None:
    """LBO.MN.swizzled: "steps_along: MN" for swizzles [32B, 64B, 128B], used."""
    got = _run(smem, default_spec(), "offset_definition.template[wgmma/leading_byte_offset:LBO.MN.swizzled]")
    _expect(got, Status.PASS, "ok", "LBO steps along MN for MN-major ['32B', '64B', '128B']")


def test_figure_168_t_is_128_over_bf16() -> None:
    """fig168.MN.none.bf16: "t_elems: 8" = 128 / 16."""
    got = _run(smem, default_spec(), "worked_example.t[wgmma/worked_examples:fig168.MN.none.bf16]")
    _expect(got, Status.PASS, "ok", "T=8")


def test_figure_168_formula_is_the_template() -> None:
    """fig168: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) at T=8, m=k=2, LBO=128, SBO=64."""
    got = _run(smem, default_spec(), "worked_example.formula[wgmma/worked_examples:fig168.MN.none.bf16]")
    _expect(got, Status.PASS, "ok", "Swizzle<0,4,3> o ((8,1,2),(8,2)):((1,8,64),(8,128)) == template")


def test_figure_168_exact_layout_is_injective() -> None:
    """fig168's exact layout has 8*1*2 x 8*2 = 256 elements, none sharing an offset."""
    got = _run(smem, default_spec(), "worked_example.injective[wgmma/worked_examples:fig168.MN.none.bf16]")
    _expect(got, Status.PASS, "ok", "injective over 256 elements")


def test_injective_counts_its_instantiations() -> None:
    """Instruction atypes f16, bf16, tf32, e4m3, e5m2, s8, u8, b1: widths 1, 8, 16, 32; an
    MN-major row tries m in 1..2 and k in 1..2 for each: 4 x 4 = 16 instantiations."""
    got = _run(smem, default_spec(), "canonical.injective[wgmma/canonical_layouts:MN_SW128]")
    _expect(got, Status.PASS, "ok", "injective in 16 instantiations (k within one 128B atom)")


# --- smem_layouts: one row edited, the failure as the report shows it --------------------------

def test_atom_width_against_the_line_stride(tmp_path: Path) -> None:
    """MN_SW128's template with (4T,SBO) for (8T,SBO): lines 4 u128 apart at T=1, Table 38 says 8."""
    spec = edited_spec(tmp_path, "wgmma/canonical_layouts.yaml", "(8,k)):((1,T,LBO),(8T,SBO))",
                       "(8,k)):((1,T,LBO),(4T,SBO))")
    got = _run(smem, spec, "atom.canonical[wgmma/swizzle_atoms:MN_SW128]")
    witness = "stride between lines of canonical MN_SW128 at T=1"
    _expect(got, Status.FAIL, "mismatch", f"atom width (u128): Table 38 MN_SW128 says 8, {witness} gives 4",
            documented=8, derived=4, source="Table 38 MN_SW128", witness=witness)


def test_tf32_atom_leading_extent(tmp_path: Path) -> None:
    """"(8*(128/32))x8 = 32x8 for tf32": a row saying 16 is 8 u128 x T=4 = 32 short."""
    spec = edited_spec(tmp_path, "wgmma/swizzle_atom_examples.yaml", "leading_elems: 32", "leading_elems: 16")
    key = "wgmma/swizzle_atom_examples:MN_SW128.tf32"
    got = _run(smem, spec, f"atom.elements[{key}]")
    _expect(got, Status.FAIL, "mismatch",
            f"atom leading extent (elements): {key} says 16, Table 38 MN_SW128 x T=4 gives 32",
            documented=16, derived=32, source=key, witness="Table 38 MN_SW128 x T=4")


def test_lbo_extent_counts_eight_columns(tmp_path: Path) -> None:
    """LBO.MN.none "after: 8" read as 4: MN_INTER ((T,1,m),(8,k)) steps by LBO after 8 columns."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", 'after: "8", unit: columns',
                       'after: "4", unit: columns')
    key, layout = "wgmma/leading_byte_offset:LBO.MN.none", "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))"
    got = _run(smem, spec, f"offset_definition.extent[{key}]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"{key}: the LBO text steps after 4 columns (= 4 for none); canonical MN_INTER {layout} "
            "steps by LBO after 8", stated=4, template=8, swizzle="none", template_layout=layout)


FIG168 = "Swizzle<0,4,3> o ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))"


def test_figure_template_differs_from_the_table(tmp_path: Path) -> None:
    """Figure 168's template with (8T,LBO): the canonical table's MN_INTER has (1T,LBO)."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", FIG168, FIG168.replace("(1T,LBO)", "(8T,LBO)"))
    got = _run(smem, spec, "worked_example.template[wgmma/worked_examples:fig168.MN.none.bf16]")
    said, table = "((T,1,m),(8,k)):((1,T,SBO),(8T,LBO))", "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))"
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"canonical template: Figure 168 says {said!r}, canonical table MN_INTER gives {table!r}",
            documented=said, derived=table, source="Figure 168", witness="canonical table MN_INTER")


def test_figure_template_swizzle_differs_from_the_table(tmp_path: Path) -> None:
    """Figure 168's template under Swizzle<1,4,3>: MN_INTER's swizzle is Swizzle<0, 4, 3>."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", FIG168, FIG168.replace("<0,4,3>", "<1,4,3>"))
    got = _run(smem, spec, "worked_example.template[wgmma/worked_examples:fig168.MN.none.bf16]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            "swizzle: Figure 168 says 'Swizzle<1,4,3>', canonical table MN_INTER gives 'Swizzle<0,4,3>'",
            documented="Swizzle<1,4,3>", derived="Swizzle<0,4,3>", source="Figure 168",
            witness="canonical table MN_INTER")


def test_figure_exact_layout_swizzle_differs_from_the_table(tmp_path: Path) -> None:
    """Figure 168's exact layout under Swizzle<1,4,3>: its layout part is still the template's."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", '"Swizzle<0,4,3> o ((8,1,2)',
                       '"Swizzle<1,4,3> o ((8,1,2)')
    got = _run(smem, spec, "worked_example.formula[wgmma/worked_examples:fig168.MN.none.bf16]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            "swizzle: Figure 168 says 'Swizzle<1,4,3>', MN_INTER gives 'Swizzle<0,4,3>'",
            documented="Swizzle<1,4,3>", derived="Swizzle<0,4,3>", source="Figure 168", witness="MN_INTER")


def test_sbo_encoding_checked_after_an_assumed_lbo(tmp_path: Path) -> None:
    """Figure 167 (LBO "NA"): SBO 64 x 4 bytes >> 4 = 16, a row saying 17 is caught."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", "sbo_u128: 16", "sbo_u128: 17")
    got = _run(smem, spec, "worked_example.encoding[wgmma/worked_examples:fig167.K.32B.tf32]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            "SBO encoding: Figure 167 says 17, 64 x sizeof(tf32) >> 4 gives 16", documented=17,
            derived=16, source="Figure 167", witness="64 x sizeof(tf32) >> 4")


IMM_A0 = 'id: imm-trans.A.0, convention: imm-trans, operand: A, transposed: false'


def test_convention_reading_against_its_spelling(tmp_path: Path) -> None:
    """imm-trans.A.0 read as transposed: its spelling "imm-trans-a is 0" says not."""
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml", IMM_A0, IMM_A0.replace("false", "true"))
    key = "wgmma/major_conventions:imm-trans.A.0"
    got = _run(smem, spec, f"major.convention[{key}]")
    witness = "the spelling 'imm-trans-a is 0'"
    _expect(got, Status.FAIL, "mismatch", f"transposed: {key} says True, {witness} gives False",
            documented=True, derived=False, source=key, witness=witness)


def test_convention_names_every_row_it_agrees_with(tmp_path: Path) -> None:
    """blas.B.transposed moved to operand A: imm-trans.A.1 agrees with two cuBLAS rows."""
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml",
                       "convention: blas, operand: B, transposed: true",
                       "convention: blas, operand: A, transposed: true")
    got = _run(smem, spec, "major.convention[wgmma/major_conventions:imm-trans.A.1]")
    _expect(got, Status.PASS, "ok", "A 'imm-trans-a is 1' -> MN-major, as wgmma/major_conventions:"
            "blas.A.transposed, wgmma/major_conventions:blas.B.transposed")


def test_blas_spelling_must_be_a_table_column(tmp_path: Path) -> None:
    """blas.A.transposed spelled "Trans": the cuBLAS table's columns are (Non-)Transposed."""
    row = "operand: A, transposed: true, major: MN, spelled: Transposed"
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml", row, row.replace("Transposed", "Trans"))
    key = "wgmma/major_conventions:blas.A.transposed"
    got = _run(smem, spec, f"major.convention[{key}]")
    _expect(got, Status.FAIL, "mismatch", f"{key}: 'Trans' is not a column of the cuBLAS table")


# --- cutedsl -------------------------------------------------------------------------------------

def test_selection_case_of_sw64() -> None:
    """SW64: "contiguous_bits: 512", make_swizzle(2, 4, 3), strided_elems 8."""
    got = _run(cutedsl, default_spec(), "cutedsl.selection[cutedsl/atom_selection:SW64]")
    _expect(got, Status.PASS, "ok", "512 bits, Swizzle<2,4,3>, 8 lines")


def test_selection_constant_differs_from_the_atom(tmp_path: Path) -> None:
    """SW128's select constant as 2048: make_smem_layout_atom's branch has 1024 bits."""
    spec = edited_spec(tmp_path, "cutedsl/atom_selection.yaml", "select_contiguous_bits: 1024",
                       "select_contiguous_bits: 2048")
    key = "cutedsl/atom_selection:SW128"
    got = _run(cutedsl, spec, f"cutedsl.selection[{key}]")
    source = f"{key} (get_smem_layout_atom)"
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"contiguous bits: {source} says 2048, make_smem_layout_atom gives 1024",
            documented=2048, derived=1024, source=source, witness="make_smem_layout_atom")


def test_mn_major_selection_builds_an_mn_atom(tmp_path: Path) -> None:
    """An MN-major (32,8):(1,32) bf16 tile: 32 x 16 = 512 bits -> SW64, atom (32,8):(1,32) covers it."""
    old = ('major: K, layout: "(8, 32):(32, 1)", major_mode_size_elems: 32, '
           'major_mode_size_bits: 512, chosen: K_SW64')
    new = ('major: MN, layout: "(32, 8):(1, 32)", major_mode_size_elems: 32, '
           'major_mode_size_bits: 512, chosen: MN_SW64')
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", old, new)
    got = _run(cutedsl, spec, "cutedsl.select[cutedsl/worked_examples:select.bf16.K.8x32]")
    _expect(got, Status.PASS, "ok", "32 x bf16 = 512 bits -> MN_SW64")


S143 = "swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, period_units: 256"
S143_KEY = "cutedsl/worked_examples:period.S143"


def test_bits_of_a_swizzle_with_base_zero(tmp_path: Path) -> None:
    """Swizzle<1,0,3> flips bit 0 with bit 3: "0bxxxxxxxxxxxxXxxZ", Z<-X, B+M+S = 4."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", S143, S143.replace("base: 4", "base: 0"),
                       also=[('pattern_bits: 8, bit_pattern: "0bxxxxxxxxXxxZxxxx"',
                              'pattern_bits: 4, bit_pattern: "0bxxxxxxxxxxxxXxxZ"')])
    got = _run(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    _expect(got, Status.PASS, "ok", "Swizzle<1,0,3>: bit 0 with bit 3 (16-bit picture)")


def test_bits_with_a_reversed_flip(tmp_path: Path) -> None:
    """period.S143's "Z<-X" as "X<-Z": X is bit 7, Z bit 4; Swizzle<1,4,3> flips 4 with 7."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", 'flips: ["Z<-X"]', 'flips: ["X<-Z"]')
    got = _run(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"{S143_KEY}: the blog's 0bxxxxxxxxXxxZxxxx with ['X<-Z'] flips bits [(7, 4)] (target, "
            "source); Swizzle<1,4,3> flips [(4, 7)]", stated=[(7, 4)], swizzle=[(4, 7)])


def test_bits_that_determine_the_pattern(tmp_path: Path) -> None:
    """"only the 8 rightmost bits": B+M+S = 1+4+3 = 8, a row saying 7 is caught."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", "pattern_bits: 8", "pattern_bits: 7")
    got = _run(cutedsl, spec, f"cutedsl.bits[{S143_KEY}]")
    witness = "Swizzle<1,4,3>: B+M+S"
    _expect(got, Status.FAIL, "mismatch", f"bits that determine the pattern: {S143_KEY} says 7, "
            f"{witness} gives 8", documented=7, derived=8, source=S143_KEY, witness=witness)


def test_atoms_the_pattern_repeats_after(tmp_path: Path) -> None:
    """tile.K_SW32.32x32: period 2^(1+4+3) = 256 over an (8,16) atom of 128: 2 atoms, not 4."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml", "pattern_repeat_atoms: 2",
                       "pattern_repeat_atoms: 4")
    key = "cutedsl/worked_examples:tile.K_SW32.32x32"
    got = _run(cutedsl, spec, f"cutedsl.tile_to_shape[{key}]")
    witness = "256 / 128 elements per atom"
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"atoms the pattern repeats after: {key} says 4, {witness} gives 2",
            documented=4, derived=2, source=key, witness=witness)


def test_example_dtype_case_of_the_selection_example() -> None:
    """select.bf16.K.8x32 chooses K_SW64; atoms_bf16.yaml prints K_SW64.bf16."""
    got = _run(cutedsl_ties, default_spec(),
               "cutedsl.example_dtype[cutedsl/worked_examples:select.bf16.K.8x32]")
    _expect(got, Status.PASS, "ok", "bf16, as the printed atoms (K_SW64.bf16)")


# --- figure_ties, completeness, mode_sizes -------------------------------------------------------

def test_figure_assuming_a_used_lbo(tmp_path: Path) -> None:
    """Figure 166 marked lbo_assumed: LBO.K.none is "used: true"."""
    old = ("lbo_u128: 16\n    sbo_u128: 8\n    lbo_assumed: false\n    encode_shift_bits: 4\n"
           "    cite: {anchor: \"Figure 166")
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", old, old.replace("false", "true"))
    key = "wgmma/worked_examples:fig166.K.none.tf32"
    got = _run(figure_ties, spec, f"worked_example.lbo_assumed[{key}]")
    witness = "wgmma/leading_byte_offset:LBO.K.none (used: true)"
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"Figure 166: LBO assumed: {key} says True, {witness} gives False",
            documented=True, derived=False, source=key, witness=witness)


def test_lbo_coverage_names_an_empty_cell(tmp_path: Path) -> None:
    """LBO.K.swizzled without 128B: K-major 128B has no LBO definition."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", "swizzles: [32B, 64B, 128B], used: false",
                       "swizzles: [32B, 64B], used: false")
    got = _run(completeness, spec, "offset_definition.coverage[byte_offset_definition:LBO]")
    _expect(got, Status.FAIL, "mismatch",
            "LBO: each major-ness and swizzle mode needs exactly one definition; K/128B: none",
            cells={"K/128B": []})


#: cute/mode_statements.yaml: the 16 rows but SM70.A.NT.T4 and SM90.SS.threads state a mode_size.
SIZED = ("SM70.ThrID.quad", "SM70.ThrID.pair", "SM70.A.TN.threads", "SM70.A.TN.values",
         "SM70.B.TN.threads", "SM70.B.TN.values", "SM70.A.NT.values", "SM70.A.NT.threads",
         "SM90.C.threads", "SM90.C.pairs", "SM90.C.core", "SM90.C.rows", "SM90.C.warps",
         "SM90.C128.copies")


def test_mode_size_cases_are_the_sized_statements() -> None:
    """One cute.mode_size case per statement with a mode_size, none for the others."""
    ids = [c.id for c in mode_sizes.cases(default_spec())]
    assert ids == [f"cute.mode_size[cute/mode_statements:{i}]" for i in SIZED]


def test_sm90_c_rows_mode_size() -> None:
    """SM90.C.rows: mode [0, 1] of ((4,8,4),(2,2)):((128,1,16),(64,8)) is the 8."""
    got = _run(mode_sizes, default_spec(), "cute.mode_size[cute/mode_statements:SM90.C.rows]")
    _expect(got, Status.PASS, "ok", "mode [0, 1] of SM90_64x8.CLayout has size 8")


# --- seed-3 sample survivors ---------------------------------------------------------------------

def test_atom_lines_against_the_template(tmp_path: Path) -> None:
    """Table 38 MN_SW128 edited to 4 lines; canonical MN_SW128's strided mode (8,k) has 8."""
    spec = edited_spec(tmp_path, "wgmma/swizzle_atoms.yaml",
                       "major: MN, printed_shape: 8x8, leading_u128: 8, strided_elems: 8}",
                       "major: MN, printed_shape: 8x8, leading_u128: 8, strided_elems: 4}")
    got = _run(smem, spec, "atom.canonical[wgmma/swizzle_atoms:MN_SW128]")
    _expect(got, Status.FAIL, "mismatch", "atom lines: Table 38 MN_SW128 says 4, canonical MN_SW128 gives 8",
            documented=4, derived=8, source="Table 38 MN_SW128", witness="canonical MN_SW128")


def test_figure_t_against_the_type(tmp_path: Path) -> None:
    """fig168.MN.none.bf16 edited to "t_elems: 4"; T = 128 / 16 bits of bf16 = 8."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", '(1T,LBO))"\n    t_elems: 8',
                       '(1T,LBO))"\n    t_elems: 4')
    got = _run(smem, spec, "worked_example.t[wgmma/worked_examples:fig168.MN.none.bf16]")
    _expect(got, Status.FAIL, "mismatch", "T: Figure 168 says 4, 128 / width(bf16) gives 8",
            documented=4, derived=8, source="Figure 168", witness="128 / width(bf16)")


def test_figure_collision_past_the_columns(tmp_path: Path) -> None:
    """fig168's exact layout edited to ((8,1,2),(8,1)):((1,8,4),(8,128)): 16 rows, 8 columns; row
    8 is (0,0,1), offset 4, the offset of row 4: found scanning column 0 down all 16 rows."""
    exact = "((8,1,2),(8,1)):((1,8,4),(8,128))"
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", "o ((8,1,2),(8,2)):((1,8,64),(8,128))",
                       f"o {exact}")
    got = _run(smem, spec, "worked_example.injective[wgmma/worked_examples:fig168.MN.none.bf16]")
    _expect(got, Status.DISCREPANCY, "documents_disagree",
            f"Figure 168's exact layout {exact} maps (mn,k)=(4, 0) and (8, 0) to element offset 4: not "
            "injective (its k=2 spans 4 16-byte chunks per row, wider than the none atom)",
            first=[4, 0], second=[8, 0], offset=4,
            reproduce=f"ptxconf.oracle.algebra.notation.parse('{exact}')((4, 0)) == ...((8, 0))")
