"""The PTX ISA's mma.sync fragment formulas evaluated (oracle/mma_fragments.py).

Expected values are worked by hand from the ISA's words (9.7.14.5.8, m16n8k16 A .f16): lane 5
is groupID 5 >> 2 = 1, threadID_in_group 5 % 4 = 1; a0, a1 are (1, 2), (1, 3); a2, a3 the
same columns 8 rows down; a4..a7 the same rows 8 columns right. B (9.7.14.5.8, b_i) is drawn
K x N: lane 5's b2 is (row 1 * 2 + 0 + 8 = 10, col 1), which CuTe's (n, k) -> n + k * 8 indexes
as 1 + 10 * 8 = 81.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from case_outcomes import raises_naming
from scratch_spec import default_row_replaced

from ptxconf.oracle import mma_fragments as F
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.records import FragmentPiece, MmaFragment
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def _row(row_id: str) -> MmaFragment:
    return SPEC.get(MmaFragment, row_id)


def test_lane_5_of_the_m16n8k16_a_fragment_as_the_isa_computes_it() -> None:
    cells = F.cells(SPEC, _row("m16n8k16.A.f16"))
    assert cells.rows[5].tolist() == [1, 1, 9, 9, 1, 1, 9, 9]
    assert cells.cols[5].tolist() == [2, 3, 2, 3, 10, 11, 10, 11]


def test_b_is_k_by_n_in_the_isa_and_n_by_k_in_cutes_index() -> None:
    row = _row("m16n8k16.B.f16")
    cells = F.cells(SPEC, row)
    assert (int(cells.rows[5, 2]), int(cells.cols[5, 2])) == (10, 1)
    assert (F.isa_dims(row), F.cute_dims(row)) == ((16, 8), (8, 16))
    assert int(F.cute_index(row, cells)[5, 2]) == 81


@pytest.mark.parametrize("row_id", [r.id for r in SPEC.of(MmaFragment)])
def test_every_fragment_row_of_the_bundled_spec_is_a_bijection(row_id: str) -> None:
    row = _row(row_id)
    cells = F.cells(SPEC, row)
    assert cells.rows.shape == (32, row.last_index + 1)
    assert F.bijection_problem(row, cells) is None


def test_otherwise_takes_the_elements_no_earlier_line_takes() -> None:
    pieces = (FragmentPiece("1", "i < 2"), FragmentPiece("2", "i == 3"),
              FragmentPiece("3", "otherwise"))
    i = np.arange(5)
    conds = F.conditions(pieces, {"i": i}, F.NUMPY)
    assert [np.asarray(c).tolist() for c in conds] == [
        [True, True, False, False, False], [False, False, False, True, False],
        [False, False, True, False, True]]


def test_a_line_with_no_where_holds_everywhere_and_chained_comparisons_read_as_c() -> None:
    i = np.arange(8)
    got = F.evaluate("0 <= i < 2 || 4 <= i < 6", {"i": i}, F.NUMPY)
    assert np.asarray(got).tolist() == [True, True, False, False, True, True, False, False]
    assert int(F.evaluate("%laneid >> 2", {"laneid": np.int64(29)}, F.NUMPY)) == 7
    assert int(F.evaluate("(3 * 4) + (13 & 0x3) % 4", {}, F.NUMPY)) == 13


@pytest.mark.parametrize("text", ["abs(i)", "i.real", "i if i else 1", "-i", "i / 2", "1.5"])
def test_what_the_sections_do_not_write_is_refused(text: str) -> None:
    with raises_naming(F.FormulaError, text):
        F.parse_formula(text)


def test_an_undefined_name_is_named() -> None:
    with raises_naming(F.FormulaError, "groupId", "known"):
        F.evaluate("groupId + 8", {"i": 0, "groupID": 1}, F.NUMPY)


def test_two_lines_holding_on_one_element_are_refused() -> None:
    """m16n8k8's C row with its second line's where widened to i >= 1: element 1 is taken twice."""
    row = _row("m16n8k8.C.f32")
    wide = (row.row[0], dataclasses.replace(row.row[1], where="i >= 1"))
    spec = default_row_replaced("MmaFragment", row.id, row=wide)
    with raises_naming(F.FormulaError, "row of lane 0 element 1", "2 lines"):
        F.cells(spec, spec.get(MmaFragment, row.id))


def test_a_collision_is_named_in_the_maps_own_coordinates() -> None:
    """The +8 of c2, c3 dropped: lane 0's c2 lands where its c0 is, (row 0, col 0)."""
    row = _row("m16n8k8.C.f32")
    flat = (row.row[0], dataclasses.replace(row.row[1], value="groupID"))
    spec = default_row_replaced("MmaFragment", row.id, row=flat)
    edited = spec.get(MmaFragment, row.id)
    assert F.bijection_problem(edited, F.cells(spec, edited)) == (
        "lane 0 element 0 and lane 0 element 2 both hold (row 0, col 0)")


LAYOUTS = ["((4,8),(2,2,2)):((32,1),(16,8,128))", "((4,8),2):((8,1),32)",
           "((4,2),4):((8,4),1)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"]


@pytest.mark.parametrize("text", LAYOUTS)
def test_layout_index_is_the_layouts_own_value(text: str) -> None:
    """The unpacking the proofs and checks use, against the algebra's evaluation."""
    lay = parse(text)
    assert isinstance(lay, Layout)
    t = np.arange(lay[0].size())[:, None]
    v = np.arange(lay[1].size())[None, :]
    want = [[lay(a, b) for b in range(lay[1].size())] for a in range(lay[0].size())]
    assert F.layout_index(lay, (t, v), F.NUMPY).tolist() == want


def test_a_shape_is_read_as_ptx_spells_it() -> None:
    assert F.shape_mnk("m16n8k32") == (16, 8, 32)
    with raises_naming(ValueError, "m16n8"):
        F.shape_mnk("m16n8")
