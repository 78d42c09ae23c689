"""The ldmatrix / stmatrix maps (oracle/ldmatrix.py): which lane supplies which row address and
which lane holds which element, for every form the rows of spec/warp/*.yaml give.

Expected values are worked by hand from the PTX ISA's words (9.7.14.5.15 ldmatrix, 9.7.14.5.16
stmatrix), not from the oracle:

* the .num table: "Threads 0–7 | addr0–addr7" for .x1, addr8–addr15 from threads 8–15 for .x2,
  up to addr24–addr31 from threads 24–31 for .x4; "Addresses addr0–addr7 correspond to the rows
  of the first matrix, addresses addr8–addr15 ... of the second": lane l supplies row l % 8 of
  matrix l // 8, and lanes past 8 x matrices supply none;
* Figure 104 and "thread 0 receiving the first fragment in its register r, and so on. A group of
  four threads loads an entire row": lane 0 holds row 0's elements 0 and 1, lane 1 elements 2, 3,
  lane 4 row 1's 0 and 1, lane 31 row 7's 6 and 7; the same picture as the mma fragments'
  formula of 9.7.14.5.7 (groupID = laneid >> 2, col = threadID_in_group * 2 + (i & 0x1)), an
  independent statement checked on every lane;
* "the elements of the second matrix are loaded in the next destination register": register i
  holds matrix i;
* ".trans indicates that the matrix is loaded in column-major format": the stored row k is the
  registers' column k, so lane 5, which holds the registers' row 1, columns 2 and 3, holds stored
  rows 2 and 3 of column 1.
"""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming
from scratch_spec import default_row_replaced

from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def _held(name: str) -> dict[tuple[int, int, int], tuple[int, int, int]]:
    """(lane, register, element) -> (matrix, row, col) of a form."""
    return {(h.lane, h.register, h.element): (h.matrix, h.row, h.col)
            for h in lm.fragment(lm.form(SPEC, name))}


def test_the_sm90_forms_are_every_num_and_trans_of_m8n8_for_both_instructions() -> None:
    names = [f.name for f in lm.forms(SPEC)]
    want = [f"{i}.m8n8.{n}{t}.b16" for i in ("ldmatrix", "stmatrix") for n in ("x1", "x2", "x4")
            for t in ("", ".trans")]
    assert names == want


def test_later_target_shapes_are_forms_the_oracle_does_not_derive() -> None:
    """.m16n16 takes only .x1/.x2 and .trans is mandatory; .m8n16 spells no .trans; .m16n8 (stmatrix)
    .trans mandatory: rows marked sm_100a, with no fragment row."""
    later = [f for f in lm.forms(SPEC, derivable=False) if f.fragment is None]
    assert {f.shape.target for f in later} == {"sm_100a"}
    m16n16 = {(f.addresses.num, f.trans) for f in later if f.shape.shape == "m16n16"}
    assert m16n16 == {("x1", True), ("x2", True)}
    assert {f.trans for f in later if f.shape.shape == "m8n16"} == {False}
    assert {f.trans for f in later if f.shape.shape == "m16n8"} == {True}
    with raises_naming(ValueError, "ldmatrix.m16n16", "no fragment row", "sm_100a"):
        lm.fragment(later[0])


@pytest.mark.parametrize(("num", "lanes"), [("x1", 8), ("x2", 16), ("x4", 32)])
def test_lane_l_supplies_row_l_mod_8_of_matrix_l_div_8(num: str, lanes: int) -> None:
    got = lm.row_suppliers(lm.form(SPEC, f"ldmatrix.m8n8.{num}.b16"))
    assert got == {lane: (lane // 8, lane % 8) for lane in range(lanes)}


def test_figure_104_points() -> None:
    """T0 a0 a1: row 0 cols 0, 1; T1: cols 2, 3; T3: cols 6, 7; T4: row 1; T31: row 7 cols 6, 7."""
    held = _held("ldmatrix.m8n8.x1.b16")
    assert [held[(t, 0, e)] for t, e in [(0, 0), (0, 1), (1, 0), (3, 1), (4, 0), (31, 1)]] == [
        (0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 7), (0, 1, 0), (0, 7, 7)]


def test_every_lane_matches_the_mma_fragment_formula() -> None:
    held = _held("ldmatrix.m8n8.x1.b16")
    assert held == {(lane, 0, i): (0, lane >> 2, (lane % 4) * 2 + (i & 1))
                    for lane in range(32) for i in range(2)}


def test_register_i_holds_matrix_i_at_the_same_place() -> None:
    held = _held("ldmatrix.m8n8.x4.b16")
    assert all(held[(lane, reg, e)] == (reg, *held[(lane, 0, e)][1:])
               for lane in range(32) for reg in range(4) for e in range(2))


def test_trans_puts_lane_5_in_column_1() -> None:
    held = _held("ldmatrix.m8n8.x1.trans.b16")
    assert (held[(5, 0, 0)], held[(5, 0, 1)]) == ((0, 2, 1), (0, 3, 1))


def test_stmatrix_holds_what_ldmatrix_holds() -> None:
    """Figure 107 is Figure 104 with "stores" for "loads"."""
    for num in ("x1", "x2", "x4"):
        for t in ("", ".trans"):
            assert _held(f"stmatrix.m8n8.{num}{t}.b16") == _held(f"ldmatrix.m8n8.{num}{t}.b16")


@pytest.mark.parametrize("text", ["ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16",
                                  "ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16",
                                  "ldmatrix.m8n8.x4.trans.b16"])
def test_a_form_is_named_by_either_qualifier_order(text: str) -> None:
    f = lm.form(SPEC, text)
    assert (f.name, f.ptx, f.key) == ("ldmatrix.m8n8.x4.trans.b16",
                                      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                                      "warp/ldmatrix_shapes:ldmatrix.m8n8.x4.trans.b16")
    assert (f.matrices, f.registers, f.elems_per_register, f.stored_dims) == (4, 4, 2, (8, 8))


@pytest.mark.parametrize("text", ["ldmatrix.m8n8.x8.b16", "ldmatrix.m8n16.x1.trans.b8x16.b6x16_p32",
                                  "stmatrix.m8n8.x1.b8"])
def test_a_form_the_rows_do_not_give_is_refused_naming_the_forms_there_are(text: str) -> None:
    with raises_naming(ValueError, repr(text), "ldmatrix.m8n8.x1.b16"):
        lm.form(SPEC, text)


def test_cells_read_as_ranges() -> None:
    assert [lm.cell_range(c) for c in ("0–7", "24-31", "addr8–addr15", "–")] == [
        (0, 7), (24, 31), (8, 15), None]
    with raises_naming(ValueError, "'addr8–thr15'"):
        lm.cell_range("addr8–thr15")


def test_targets_order_by_their_number() -> None:
    assert [lm.target_number(t) for t in ("sm_75", "sm_90", "sm_100a")] == [75, 90, 100]
    with raises_naming(ValueError, "'sm90'"):
        lm.target_number("sm90")


def test_a_fragment_row_whose_threads_do_not_make_a_row_is_refused() -> None:
    """Two threads a row: 2 x 2 elements are not the 8 columns of m8n8."""
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", threads_per_row=2)
    with raises_naming(ValueError, "warp/matrix_fragments:ldmatrix.m8n8", "2 threads a row",
                       "8 columns"):
        lm.fragment(lm.form(spec, "ldmatrix.m8n8.x1.b16"))


def test_an_address_row_with_a_cell_short_of_its_thread_groups_is_refused() -> None:
    """The .num table has a cell under each of its four thread-group columns."""
    spec = default_row_replaced("WarpMatrixAddresses", "ldmatrix.x1",
                                addresses=["addr0–addr7", "–", "–"])
    row = spec.get(lm.WarpMatrixAddresses, "ldmatrix.x1")
    with raises_naming(ValueError, "warp/ldmatrix_addresses:ldmatrix.x1", "4 thread groups",
                       "3 cells"):
        lm.lane_addresses(row)
