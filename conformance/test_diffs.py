"""What a probe's reading got wrong, rendered (oracle/diffs.py): `diff_grid`'s counts, first and
last cells, samples and window, NaN cells, `Diff`'s message and details, cell formats and
fingerprints. The message's and the window heading's wording: messages_oracle_judging.py's diffs.*.

`diffs` renders what a probe's reading got wrong; its contract (the module and function
docstrings) is worked here by hand on small grids, and every expected value below is written
out from that contract, never taken from the code:

* `diff_grid` counts the differing cells (two NaNs agree wherever either grid is a float grid),
  names the first and last by coordinate (row-major order), keeps the first `max_samples` (8)
  as {"at", "expected", "actual"}, and for a 2-D grid draws a window of `window_rows` (4) x
  `window_cols` (8) cells: from the row above the first mismatch and two columns left of it,
  held inside the grid; a differing cell reads `expected/actual*`, an agreeing one its value;
* `Diff.message()` is one line: "<what>: <k> of <total> differ; first (<axis> <i>, ...):
  expected <e>, got <a>; last (...)", or "<what>: all <total> agree"; `details()` its JSON;
* `hex_fmt` / `int_fmt` format a cell; `fingerprint` is "sha256:" and the first 16 hex digits
  of the SHA-256 of the shape's repr and the cells as contiguous int64.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest
from case_outcomes import raises_naming

from ptxconf.oracle.diffs import Diff, diff_grid, fingerprint, hex_fmt, int_fmt

NAN = float("nan")


def _names(message: str, *values: str) -> bool:
    """The message names each of `values` (its wording: messages_oracle_judging.py's diffs.*)."""
    missing = [v for v in values if v not in message]
    assert not missing, f"{message!r} does not name {missing}"
    return True


def _window(d: Diff, down: str, across: str) -> str:
    """A diff's window below its heading, whose axes must be `down` and `across` in that order."""
    heading, _, cells = d.window.partition("\n")
    assert f"{down} down" in heading, heading
    assert f"{across} across" in heading, heading
    return cells


# --- a grid that agrees -----------------------------------------------------------------------


def test_grids_that_agree_give_an_empty_diff_with_the_extra_fields() -> None:
    a = np.arange(6).reshape(2, 3)
    d = diff_grid("map", a, a.copy(), axes=("m", "n"), extra={"atom": "K_SW128"})
    assert d == Diff("map", ("m", "n"), 6, 0, None, None, (), "", {"atom": "K_SW128"})
    assert d.ok
    assert _names(d.message(), "map:", "6")
    assert d.details() == {"what": "map", "axes": ["m", "n"], "total": 6, "mismatches": 0,
                           "atom": "K_SW128"}
    bare = diff_grid("map", a, a)
    assert bare == Diff("map", ("row", "col"), 6, 0, None, None)
    assert bare.details() == {"what": "map", "axes": ["row", "col"], "total": 6, "mismatches": 0}


def test_grids_of_different_shapes_are_refused() -> None:
    with raises_naming(ValueError, "map:", "(2, 3)", "(3, 2)"):
        diff_grid("map", np.zeros((2, 3)), np.zeros((3, 2)))


# --- one mismatch, the window at the grid's top-left corner ------------------------------------


def test_one_mismatch_at_the_corner_of_a_small_grid() -> None:
    """3 x 4 grid, cell (0, 0) differs: the window starts at row 0 and column 0 (the row above
    and the two columns left do not exist) and holds the whole grid (3 rows < 4, 4 cols < 8)."""
    exp = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    act = exp.copy()
    act[0, 0] = 0
    d = diff_grid("D", exp, act)
    assert (d.total, d.mismatches, d.first, d.last) == (12, 1, (0, 0), (0, 0))
    assert d.samples == ({"at": {"row": 0, "col": 0}, "expected": "1", "actual": "0"},)
    assert _window(d, "row", "col") == (
                        "\tcol=0\tcol=1\tcol=2\tcol=3\n"
                        "row=0\t1/0*\t2\t3\t4\n"
                        "row=1\t5\t6\t7\t8\n"
                        "row=2\t9\t10\t11\t12")
    assert _names(d.message(), "D:", "1 of 12", "(row 0, col 0)", "1", "0")


# --- the window inside a larger grid -----------------------------------------------------------


def _grid_6x12() -> np.ndarray:
    return np.arange(6 * 12).reshape(6, 12)   # cell (r, c) holds 12 r + c


def test_the_window_starts_a_row_above_and_two_columns_left_of_the_first_mismatch() -> None:
    """6 x 12, mismatches at (2, 5) and (4, 10): rows 1..4, columns 3..10."""
    exp = _grid_6x12()
    act = exp.copy()
    act[2, 5], act[4, 10] = 99, 77
    d = diff_grid("D", exp, act, axes=("m", "n"))
    assert (d.mismatches, d.first, d.last) == (2, (2, 5), (4, 10))
    assert _window(d, "m", "n") == (
                        "\tn=3\tn=4\tn=5\tn=6\tn=7\tn=8\tn=9\tn=10\n"
                        "m=1\t15\t16\t17\t18\t19\t20\t21\t22\n"
                        "m=2\t27\t28\t29/99*\t30\t31\t32\t33\t34\n"
                        "m=3\t39\t40\t41\t42\t43\t44\t45\t46\n"
                        "m=4\t51\t52\t53\t54\t55\t56\t57\t58/77*")
    assert d.samples == ({"at": {"m": 2, "n": 5}, "expected": "29", "actual": "99"},
                         {"at": {"m": 4, "n": 10}, "expected": "58", "actual": "77"})


def test_the_window_is_held_inside_the_grids_right_edge() -> None:
    """6 x 12, first mismatch at (0, 11): two columns left would be 9, but 8 columns from 9 run
    past column 11, so the window is columns 4..11; rows 0..3."""
    exp = _grid_6x12()
    act = exp.copy()
    act[0, 11] = -1
    d = diff_grid("D", exp, act, fmt=hex_fmt)
    assert _window(d, "row", "col") == (
                        "\tcol=4\tcol=5\tcol=6\tcol=7\tcol=8\tcol=9\tcol=10\tcol=11\n"
                        "row=0\t0x4\t0x5\t0x6\t0x7\t0x8\t0x9\t0xa\t0xb/-0x1*\n"
                        "row=1\t0x10\t0x11\t0x12\t0x13\t0x14\t0x15\t0x16\t0x17\n"
                        "row=2\t0x1c\t0x1d\t0x1e\t0x1f\t0x20\t0x21\t0x22\t0x23\n"
                        "row=3\t0x28\t0x29\t0x2a\t0x2b\t0x2c\t0x2d\t0x2e\t0x2f")
    assert _names(d.message(), "D:", "1 of 72", "(row 0, col 11)", "0xb", "-0x1")


def test_the_window_size_follows_its_arguments() -> None:
    exp = _grid_6x12()
    act = exp.copy()
    act[3, 3] = 0
    d = diff_grid("D", exp, act, window_rows=2, window_cols=3)
    assert _window(d, "row", "col") == (
                        "\tcol=1\tcol=2\tcol=3\n"
                        "row=2\t25\t26\t27\n"
                        "row=3\t37\t38\t39/0*")


# --- many mismatches: first, last, samples -----------------------------------------------------


def test_many_mismatches_keep_eight_samples_and_the_last_in_row_major_order() -> None:
    exp = _grid_6x12()
    act = exp + 1                             # every cell differs
    d = diff_grid("D", exp, act)
    assert (d.total, d.mismatches, d.first, d.last) == (72, 72, (0, 0), (5, 11))
    assert len(d.samples) == 8
    assert [s["at"] for s in d.samples] == [{"row": 0, "col": c} for c in range(8)]
    assert d.samples[7] == {"at": {"row": 0, "col": 7}, "expected": "7", "actual": "8"}
    assert _names(d.message(), "D:", "72 of 72", "(row 0, col 0)", "(row 5, col 11)")
    assert len(diff_grid("D", exp, act, max_samples=3).samples) == 3


def test_three_mismatches_name_the_third_as_last() -> None:
    exp = np.zeros((2, 4), dtype=np.int64)
    act = exp.copy()
    act[0, 1], act[1, 0], act[1, 3] = 1, 2, 3
    d = diff_grid("D", exp, act)
    assert (d.mismatches, d.first, d.last) == (3, (0, 1), (1, 3))


def test_details_of_a_failing_diff() -> None:
    exp = np.array([[0, 1], [2, 3]])
    act = np.array([[0, 1], [5, 6]])
    d = diff_grid("A map", exp, act, axes=("thread", "reg"), extra={"n": 8})
    assert d == Diff("A map", ("thread", "reg"), 4, 2, (1, 0), (1, 1), (
        {"at": {"thread": 1, "reg": 0}, "expected": "2", "actual": "5"},
        {"at": {"thread": 1, "reg": 1}, "expected": "3", "actual": "6"}), d.window, {"n": 8})
    assert d.details() == {
        "what": "A map", "axes": ["thread", "reg"], "total": 4, "mismatches": 2,
        "first": [1, 0], "last": [1, 1],
        "samples": [{"at": {"thread": 1, "reg": 0}, "expected": "2", "actual": "5"},
                    {"at": {"thread": 1, "reg": 1}, "expected": "3", "actual": "6"}],
        "window": d.window,
        "n": 8}
    assert _window(d, "thread", "reg") == ("\treg=0\treg=1\n"
                                           "thread=0\t0\t1\n"
                                           "thread=1\t2/5*\t3/6*")


# --- grids that are not 2-D, and axes that do not match --------------------------------------


def test_a_three_axis_grid_has_samples_but_no_window() -> None:
    exp = np.zeros((2, 2, 2), dtype=np.int64)
    act = exp.copy()
    act[1, 0, 1] = 4
    d = diff_grid("D", exp, act, axes=("quadpair", "m", "n"))
    assert d.window == ""
    assert d.samples == ({"at": {"quadpair": 1, "m": 0, "n": 1}, "expected": "0", "actual": "4"},)
    assert d.details()["window"] == ""
    assert _names(d.message(), "D:", "1 of 8", "(quadpair 1, m 0, n 1)", "4")


def test_axes_that_do_not_name_every_dimension_are_refused() -> None:
    exp = np.zeros((2, 2, 2), dtype=np.int64)
    act = exp.copy()
    act[1, 1, 1] = 1
    with pytest.raises(ValueError, match=r"zip\(\) argument 2 is longer than argument 1"):
        diff_grid("D", exp, act)   # three dimensions, the two default axes
    bad = Diff("D", ("row", "col"), 8, 1, (1, 1, 1), (1, 1, 1))
    with pytest.raises(ValueError, match=r"zip\(\) argument 2 is longer than argument 1"):
        bad.message()


# --- NaN cells ---------------------------------------------------------------------------------


def test_nan_in_both_float_grids_agrees_and_nan_against_a_number_differs() -> None:
    exp = np.array([[NAN, 1.0, 2.0], [NAN, 4.0, 5.0]])
    act = np.array([[NAN, 1.0, 9.0], [3.0, 4.0, 5.0]])
    d = diff_grid("D", exp, act)
    assert (d.mismatches, d.first, d.last) == (2, (0, 2), (1, 0))
    assert d.samples == ({"at": {"row": 0, "col": 2}, "expected": "2.0", "actual": "9.0"},
                         {"at": {"row": 1, "col": 0}, "expected": "nan", "actual": "3.0"})


def test_nan_agrees_whichever_grid_is_the_float_one() -> None:
    """A grid of Python objects holding NaN against a float grid: the float grid makes NaN
    against NaN agree, whether it is the expected or the actual one."""
    objects = np.array([NAN, 1.0, 2.0], dtype=object)
    floats = np.array([NAN, 1.0, 7.0])
    for exp, act, got in ((objects, floats, "7.0"), (floats, objects, "2.0")):
        d = diff_grid("D", exp, act, axes=("i",))
        assert (d.mismatches, d.first, d.last) == (1, (2,), (2,))
        assert d.samples[0]["at"] == {"i": 2}
        assert d.samples[0]["actual"] == got
    # two integer grids: no NaN, plain comparison
    assert diff_grid("D", np.array([1, 2]), np.array([1, 3]), axes=("i",)).mismatches == 1


# --- Diff built by hand ------------------------------------------------------------------------


def test_a_diff_without_coordinates_or_samples_prints_dashes_and_none() -> None:
    d = Diff("D", ("row", "col"), 4, 1, None, None)
    assert not d.ok
    assert _names(d.message(), "D:", "1 of 4", "-", "None")
    assert "(" not in d.message()
    assert d.details() == {"what": "D", "axes": ["row", "col"], "total": 4, "mismatches": 1,
                           "first": [], "last": [], "samples": [], "window": ""}


# --- formats and fingerprints -----------------------------------------------------------------


def test_hex_fmt() -> None:
    assert hex_fmt(255) == "0xff"
    assert hex_fmt(np.int64(0x7E)) == "0x7e"
    assert hex_fmt(0) == "0x0"


def test_int_fmt() -> None:
    assert int_fmt(3.0) == "3"
    assert int_fmt(np.int64(7)) == "7"
    assert int_fmt(-2.0) == "-2"
    assert int_fmt(2.5) == "2.5"
    assert int_fmt(np.float32(0.25)) == "0.25"


def test_fingerprint_is_sha256_of_the_shape_and_the_int64_cells() -> None:
    cells = struct.pack("<6q", 0, 1, 2, 3, 4, 5)
    want = "sha256:" + hashlib.sha256(b"(2, 3)" + cells).hexdigest()[:16]
    assert fingerprint(np.arange(6, dtype=np.int64).reshape(2, 3)) == want
    # another integer width, a non-contiguous view, a nested list: the same int64 cells
    assert fingerprint(np.arange(6, dtype=np.int32).reshape(2, 3)) == want
    view = np.array([[0, 1, 2, 9], [3, 4, 5, 9]])[:, :3]
    assert not view.flags.c_contiguous
    assert fingerprint(view) == want
    assert fingerprint(np.arange(6).reshape(3, 2).T) != want      # other cells in that order
    assert fingerprint([[0, 1, 2], [3, 4, 5]]) == want
    # the shape is part of it: the same six cells as 3 x 2
    other = "sha256:" + hashlib.sha256(b"(3, 2)" + cells).hexdigest()[:16]
    assert fingerprint(np.arange(6).reshape(3, 2)) == other != want
    assert len(want) == len("sha256:") + 16
