"""The shared-memory layout checks (oracle/checks/smem_layouts.py): the LBO/SBO definitions against
the canonical templates, the swizzle atoms, the worked figures (T, template, exact layout,
injectivity, encoding) and the major-ness conventions against the cuBLAS table.

Expected values are worked by hand from the bundled spec's rows (quoted at each test): T = 128 /
element width (wgmma/normalization.yaml); a canonical template is instantiated at T, m, k, LBO,
SBO (wgmma/canonical_layouts.yaml); swizzle-byte-size / 16 rows for LBO.MN.swizzled.

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_fields, expect_named
from case_outcomes import run_module_case as _run_module
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.checks import smem_layouts as smem
from ptxconf.oracle.spec import default_spec

# --- cases built here pass on the bundled spec ----------------------------------------------------


def test_lbo_template_case_of_the_mn_swizzled_row() -> None:
    """LBO.MN.swizzled: "steps_along: MN" for swizzles [32B, 64B, 128B], used."""
    got = _run_module(smem, default_spec(),
                      "offset_definition.template[wgmma/leading_byte_offset:LBO.MN.swizzled]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "MN-major", "['32B', '64B', '128B']")


def test_unused_lbo_definition_says_unused() -> None:
    """LBO.K.swizzled is "used: false" for [32B, 64B, 128B]; no K-major swizzled template has LBO."""
    got = _run_module(smem, default_spec(),
                      "offset_definition.template[wgmma/leading_byte_offset:LBO.K.swizzled]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "K-major", "['32B', '64B', '128B']")


def test_figure_168_t_is_128_over_bf16() -> None:
    """fig168.MN.none.bf16: "t_elems: 8" = 128 / 16."""
    got = _run_module(smem, default_spec(), "worked_example.t[wgmma/worked_examples:fig168.MN.none.bf16]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "T=8")


def test_figure_168_formula_is_the_template() -> None:
    """fig168: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) at T=8, m=k=2, LBO=128, SBO=64."""
    got = _run_module(smem, default_spec(), "worked_example.formula[wgmma/worked_examples:fig168.MN.none.bf16]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "Swizzle<0,4,3> o ((8,1,2),(8,2)):((1,8,64),(8,128))")


def test_figure_168_exact_layout_is_injective() -> None:
    """fig168's exact layout has 8*1*2 x 8*2 = 256 elements, none sharing an offset."""
    got = _run_module(smem, default_spec(),
                      "worked_example.injective[wgmma/worked_examples:fig168.MN.none.bf16]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "256 elements")


def test_injective_counts_its_instantiations() -> None:
    """Instruction atypes f16, bf16, tf32, e4m3, e5m2, s8, u8, b1: widths 1, 8, 16, 32; an
    MN-major row tries m in 1..2 and k in 1..2 for each: 4 x 4 = 16 instantiations."""
    got = _run_module(smem, default_spec(), "canonical.injective[wgmma/canonical_layouts:MN_SW128]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "16 instantiations", "128B")


# --- the offset definitions against the canonical templates ---------------------------------------


def test_lbo_extent_counts_eight_columns(tmp_path: Path) -> None:
    """LBO.MN.none "after: 8" read as 4: MN_INTER ((T,1,m),(8,k)) steps by LBO after 8 columns."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", 'after: "8", unit: columns',
                       'after: "4", unit: columns')
    key, layout = "wgmma/leading_byte_offset:LBO.MN.none", "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))"
    got = _run_module(smem, spec, f"offset_definition.extent[{key}]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", stated=4, template=8, swizzle="none",
                  template_layout=layout)
    expect_named(got, key, "after 4 columns", layout, "after 8")


def test_definition_direction_against_the_template(tmp_path: Path) -> None:
    """LBO.K.none read as stepping along MN: K_INTER's (1,LBO) is on its K mode."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", 'steps_along: K, after: "1"',
                       'steps_along: MN, after: "1"')
    got = _run_module(smem, spec, "offset_definition.template[wgmma/leading_byte_offset:LBO.K.none]")
    layout = "((8,m),(T,2k)):((1T,SBO),(1,LBO))"
    text = ("the offset from the first column to the second columns of the 8x2 tile in the 128-bit "
            "element type normalized matrix")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", template=layout, table=text)
    expect_named(got, "K_INTER", "along MN", layout, "on K")


def test_extent_count_divided_by_the_text(tmp_path: Path) -> None:
    """LBO.MN.swizzled's "swizzle-byte-size/16" as /32: 32 / 32 = 1 row for 32B, but MN_SW32
    ((T,2,m),...) at T=1 steps by LBO after 1 x 2 = 2 rows."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", 'after: "swizzle-byte-size/16"',
                       'after: "swizzle-byte-size/32"')
    key, layout = "wgmma/leading_byte_offset:LBO.MN.swizzled", "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))"
    got = _run_module(smem, spec, f"offset_definition.extent[{key}]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", stated=1, template=2, swizzle="32B",
                  template_layout=layout)
    expect_named(got, key, "(= 1 for 32B)", layout, "after 2")


def test_injective_names_the_colliding_coordinates(tmp_path: Path) -> None:
    """MN_INTER with (1,LBO) for (1T,LBO): b1 first (T=128), m=k=1; its tight LBO = 256 (cosize
    128 + 7 = 135 rounded up to T), SBO = 256 x 2 x 3 = 1536; column 0 fills offsets 0..127, so
    (0,1) at offset 1 meets (1,0)."""
    spec = edited_spec(tmp_path, "wgmma/canonical_layouts.yaml", "((1,T,SBO),(1T,LBO))", "((1,T,SBO),(1,LBO))")
    got = _run_module(smem, spec, "canonical.injective[wgmma/canonical_layouts:MN_INTER]")
    expect_fields(got, Status.FAIL, "mismatch")
    expect_named(got, "MN_INTER (T=128, m=1, k=1, LBO=256, SBO=1536 elems)", "(1, 0) and (0, 1)", "offset 1")


# --- the swizzle atoms ----------------------------------------------------------------------------


def test_atom_width_against_the_line_stride(tmp_path: Path) -> None:
    """MN_SW128's template with (4T,SBO) for (8T,SBO): lines 4 u128 apart at T=1, Table 38 says 8."""
    spec = edited_spec(tmp_path, "wgmma/canonical_layouts.yaml", "(8,k)):((1,T,LBO),(8T,SBO))",
                       "(8,k)):((1,T,LBO),(4T,SBO))")
    got = _run_module(smem, spec, "atom.canonical[wgmma/swizzle_atoms:MN_SW128]")
    witness = "stride between lines of canonical MN_SW128 at T=1"
    expect_fields(got, Status.FAIL, "mismatch", documented=8, derived=4, source="Table 38 MN_SW128",
                  witness=witness)
    expect_named(got, "u128")


def test_tf32_atom_leading_extent(tmp_path: Path) -> None:
    """"(8*(128/32))x8 = 32x8 for tf32": a row saying 16 is 8 u128 x T=4 = 32 short."""
    spec = edited_spec(tmp_path, "wgmma/swizzle_atom_examples.yaml", "leading_elems: 32", "leading_elems: 16")
    key = "wgmma/swizzle_atom_examples:MN_SW128.tf32"
    got = _run_module(smem, spec, f"atom.elements[{key}]")
    expect_fields(got, Status.FAIL, "mismatch", documented=16, derived=32, source=key,
                  witness="Table 38 MN_SW128 x T=4")


def test_atom_lines_against_the_template(tmp_path: Path) -> None:
    """Table 38 MN_SW128 edited to 4 lines; canonical MN_SW128's strided mode (8,k) has 8."""
    spec = edited_spec(tmp_path, "wgmma/swizzle_atoms.yaml",
                       "major: MN, printed_shape: 8x8, leading_u128: 8, strided_elems: 8}",
                       "major: MN, printed_shape: 8x8, leading_u128: 8, strided_elems: 4}")
    got = _run_module(smem, spec, "atom.canonical[wgmma/swizzle_atoms:MN_SW128]")
    expect_fields(got, Status.FAIL, "mismatch", documented=4, derived=8, source="Table 38 MN_SW128",
                  witness="canonical MN_SW128")


# --- the worked figures ---------------------------------------------------------------------------


FIG168 = "Swizzle<0,4,3> o ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))"


def test_figure_template_differs_from_the_table(tmp_path: Path) -> None:
    """Figure 168's template with (8T,LBO): the canonical table's MN_INTER has (1T,LBO)."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", FIG168, FIG168.replace("(1T,LBO)", "(8T,LBO)"))
    got = _run_module(smem, spec, "worked_example.template[wgmma/worked_examples:fig168.MN.none.bf16]")
    said, table = "((T,1,m),(8,k)):((1,T,SBO),(8T,LBO))", "((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))"
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented=said, derived=table,
                  source="Figure 168", witness="canonical table MN_INTER")


def test_figure_template_swizzle_differs_from_the_table(tmp_path: Path) -> None:
    """Figure 168's template under Swizzle<1,4,3>: MN_INTER's swizzle is Swizzle<0, 4, 3>."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", FIG168, FIG168.replace("<0,4,3>", "<1,4,3>"))
    got = _run_module(smem, spec, "worked_example.template[wgmma/worked_examples:fig168.MN.none.bf16]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented="Swizzle<1,4,3>",
                  derived="Swizzle<0,4,3>", source="Figure 168", witness="canonical table MN_INTER")


def test_figure_exact_layout_swizzle_differs_from_the_table(tmp_path: Path) -> None:
    """Figure 168's exact layout under Swizzle<1,4,3>: its layout part is still the template's."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", '"Swizzle<0,4,3> o ((8,1,2)',
                       '"Swizzle<1,4,3> o ((8,1,2)')
    got = _run_module(smem, spec, "worked_example.formula[wgmma/worked_examples:fig168.MN.none.bf16]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented="Swizzle<1,4,3>",
                  derived="Swizzle<0,4,3>", source="Figure 168", witness="MN_INTER")


def test_sbo_encoding_checked_after_an_assumed_lbo(tmp_path: Path) -> None:
    """Figure 167 (LBO "NA"): SBO 64 x 4 bytes >> 4 = 16, a row saying 17 is caught."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", "sbo_u128: 16", "sbo_u128: 17")
    got = _run_module(smem, spec, "worked_example.encoding[wgmma/worked_examples:fig167.K.32B.tf32]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented=17, derived=16,
                  source="Figure 167", witness="64 x sizeof(tf32) >> 4")


def test_figure_encoding_needs_its_shift(tmp_path: Path) -> None:
    """Figure 166 with no encode_shift_bits: the figure writes "(LBO) >> 4"."""
    old = "lbo_assumed: false\n    encode_shift_bits: 4\n    cite: {anchor: \"Figure 166"
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", old, old.replace("bits: 4", "bits: null"))
    got = _run_module(smem, spec, "worked_example.encoding[wgmma/worked_examples:fig166.K.none.tf32]")
    expect_fields(got, Status.FAIL, "mismatch")
    expect_named(got, "Figure 166", "encode_shift_bits")


def test_figure_t_against_the_type(tmp_path: Path) -> None:
    """fig168.MN.none.bf16 edited to "t_elems: 4"; T = 128 / 16 bits of bf16 = 8."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", '(1T,LBO))"\n    t_elems: 8',
                       '(1T,LBO))"\n    t_elems: 4')
    got = _run_module(smem, spec, "worked_example.t[wgmma/worked_examples:fig168.MN.none.bf16]")
    expect_fields(got, Status.FAIL, "mismatch", documented=4, derived=8, source="Figure 168",
                  witness="128 / width(bf16)")


def test_figure_collision_past_the_columns(tmp_path: Path) -> None:
    """fig168's exact layout edited to ((8,1,2),(8,1)):((1,8,4),(8,128)): 16 rows, 8 columns; row
    8 is (0,0,1), offset 4, the offset of row 4: found scanning column 0 down all 16 rows."""
    exact = "((8,1,2),(8,1)):((1,8,4),(8,128))"
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", "o ((8,1,2),(8,2)):((1,8,64),(8,128))",
                       f"o {exact}")
    got = _run_module(smem, spec, "worked_example.injective[wgmma/worked_examples:fig168.MN.none.bf16]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", first=[4, 0], second=[8, 0], offset=4,
                  explain=f"ptxconf explain layout '{exact}' --dtype bf16")
    expect_named(got, exact, "(4, 0) and (8, 0)", "offset 4", "k=2", "4 16-byte chunks", "none atom")


# --- the major-ness conventions -------------------------------------------------------------------


IMM_A0 = 'id: imm-trans.A.0, convention: imm-trans, operand: A, transposed: false'
IMM_A1 = 'transposed: true, major: MN, spelled: "imm-trans-a is 1"'


def test_convention_reading_against_its_spelling(tmp_path: Path) -> None:
    """imm-trans.A.0 read as transposed: its spelling "imm-trans-a is 0" says not."""
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml", IMM_A0, IMM_A0.replace("false", "true"))
    key = "wgmma/major_conventions:imm-trans.A.0"
    got = _run_module(smem, spec, f"major.convention[{key}]")
    witness = "the spelling 'imm-trans-a is 0'"
    expect_fields(got, Status.FAIL, "mismatch", documented=True, derived=False, source=key, witness=witness)


def test_convention_names_every_row_it_agrees_with(tmp_path: Path) -> None:
    """blas.B.transposed moved to operand A: imm-trans.A.1 agrees with two cuBLAS rows."""
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml",
                       "convention: blas, operand: B, transposed: true",
                       "convention: blas, operand: A, transposed: true")
    got = _run_module(smem, spec, "major.convention[wgmma/major_conventions:imm-trans.A.1]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "MN-major",
                 "wgmma/major_conventions:blas.A.transposed, wgmma/major_conventions:blas.B.transposed")


def test_blas_spelling_must_be_a_table_column(tmp_path: Path) -> None:
    """blas.A.transposed spelled "Trans": the cuBLAS table's columns are (Non-)Transposed."""
    row = "operand: A, transposed: true, major: MN, spelled: Transposed"
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml", row, row.replace("Transposed", "Trans"))
    key = "wgmma/major_conventions:blas.A.transposed"
    got = _run_module(smem, spec, f"major.convention[{key}]")
    expect_fields(got, Status.FAIL, "mismatch")
    expect_named(got, key, "'Trans'")


def test_convention_major_against_the_cublas_table(tmp_path: Path) -> None:
    """imm-trans.A.1 read as K-major: the cuBLAS table's transposed A is M-major."""
    spec = edited_spec(tmp_path, "wgmma/major_conventions.yaml", IMM_A1, IMM_A1.replace("MN", "K"))
    key, other = "wgmma/major_conventions:imm-trans.A.1", "wgmma/major_conventions:blas.A.transposed"
    got = _run_module(smem, spec, f"major.convention[{key}]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", operand="A", transposed=True, major="K",
                  other=other, other_major="MN")
    expect_named(got, key, "K-major", other, "MN-major")


def _walked(layout: object) -> tuple[tuple[int, int], tuple[int, int], int] | None:
    """The first collision found coordinate by coordinate, k outer, mn inner (the reference)."""
    outer = getattr(layout, "outer", layout)
    rows, cols = outer[0].size(), outer[1].size()
    seen: dict[int, tuple[int, int]] = {}
    for j in range(cols):
        for i in range(rows):
            off = layout((i, j))  # type: ignore[operator]
            if off in seen:
                return seen[off], (i, j), off
            seen[off] = (i, j)
    return None


def test_first_collision_names_the_first_repeated_offset_in_k_then_mn_order() -> None:
    """Over arrays, the same pair as walking every coordinate: on every canonical layout, at
    several widths, repeats and offsets, colliding or not (tight offsets collide nowhere; LBO 0
    or an SBO below the core collide)."""
    import itertools

    from ptxconf.oracle import canonical
    from ptxconf.oracle.algebra.notation import parse
    from ptxconf.oracle.checks.smem_layouts import first_collision
    from ptxconf.oracle.records import CanonicalLayout

    spec = default_spec()
    found = {True: 0, False: 0}
    for row in spec.of(CanonicalLayout):
        for t, (m, k), (lbo, sbo) in itertools.product((8, 1), ((1, 1), (2, 3)), ((0, 0), (64, 8), (16, 128))):
            layout = canonical.instantiate(row, t, m, k, lbo, sbo)
            got = first_collision(layout)
            assert got == _walked(layout), (row.id, t, m, k, lbo, sbo)
            found[got is not None] += 1
    assert found[True] > 0
    assert found[False] > 0
    plain = parse("((2,2),2):((1,4),2)")  # offsets 0 1 4 5 2 3 6 7: injective
    assert first_collision(plain) is None
    clash = parse("(2,(2,2)):(1,(2,2))")  # (0,(1,0)) and (0,(0,1)) both at 2
    assert first_collision(clash) == _walked(clash) == ((0, 1), (0, 2), 2)
