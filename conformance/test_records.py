"""The spec's row records (oracle/records.py): register-count expressions, register fragments and
their valid N.

Expected values come from the PTX ISA's wgmma register-fragment section (9.7.15.5.1.1, as
spec/wgmma/register_fragments.yaml cites it): the accumulator D of m64nNk16 .f32 is "N/2 number of
.f32 registers; d0, d1, ..., dW where W = N/2 - 1; N = 8*i where i = {1, 2, ... , 32}"; the .s32
accumulator of m64nNk32 has "N = 8*i where i = {1, 2, 3, 4} = 16*i where i = {3, 4, ..., 16}".
Counts such as "8", "N", "N/2" are the tables' own spellings (`count_expr`'s documented contract:
an integer, N, or N over a positive integer, whole or refused), worked by hand.
"""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming

from ptxconf.oracle import records
from ptxconf.oracle.records import RegisterFragment, ValidN, count_expr
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


# --- count_expr: the tables' counts ------------------------------------------------------------


@pytest.mark.parametrize(("expr", "n", "want"), [
    ("8", 64, 8), (" 8 ", 64, 8),
    ("N", 24, 24), (" N ", 24, 24),
    ("N/2", 256, 128), ("N / 2", 256, 128), ("N/4", 24, 6),
    ("N/1", 24, 24),            # dividing by one is N itself
])
def test_count_expr_evaluates_the_tables_spellings(expr: str, n: int, want: int) -> None:
    assert count_expr(expr, n) == want


def test_count_expr_refuses_a_quotient_that_is_not_whole() -> None:
    # N/4 registers of an f16 accumulator need N a multiple of 4: 6 / 4 is not whole
    with raises_naming(ValueError, "N/4", "N=6"):
        count_expr("N/4", 6)
    with raises_naming(ValueError, "N / 4", "N=6"):
        count_expr("N / 4", 6)   # the message quotes the table's text as written


@pytest.mark.parametrize("expr", [
    "M/2",      # another variable: not N
    "N/x",      # N over something that is not an integer
    "N/0",      # N over zero: not a positive integer
    "n",        # the variable is upper-case N
    "N*2",
    "",
    "\u00b2",      # superscript two: a digit to str.isdigit, not a count the tables write
    "N/\u00b2",
    "\u0663",      # Arabic-Indic three: a decimal digit to int(), not in the tables' spelling
])
def test_count_expr_refuses_what_is_not_an_integer_n_or_n_over_an_integer(expr: str) -> None:
    with raises_naming(ValueError, f"count {expr!r}:"):
        count_expr(expr, 16)


# --- RegisterFragment ---------------------------------------------------------------------------


def test_the_f32_accumulator_holds_n_over_2_elements_per_thread() -> None:
    """m64nNk16 .f32 D: d0 .. dW, W = N/2 - 1, so N/2 elements (and N/2 .f32 registers)."""
    frag = SPEC.get(RegisterFragment, "k16.D.f32")
    assert frag.elements == "N/2"
    assert [frag.elements_for(n) for n in (8, 64, 256)] == [4, 32, 128]
    assert [frag.registers_for(n) for n in (8, 64, 256)] == [4, 32, 128]
    f16 = SPEC.get(RegisterFragment, "k16.D.f16")   # N/4 .f16x2 registers of two elements each
    assert (f16.elements_for(64), f16.registers_for(64)) == (32, 16)


def test_expected_id_of_a_fragment_row() -> None:
    row = RegisterFragment(id="x", k_elems=32, operand="A", types=("s8", "u8"))
    assert row.expected_id() == "k32.A.s8"
    # a row that names no type yet: the id's type part is empty (the linter then reports it)
    assert RegisterFragment(id="x", k_elems=16, operand="D").expected_id() == "k16.D."


# --- ValidN -------------------------------------------------------------------------------------


def test_valid_n_lists_step_times_i_for_i_from_min_to_max_inclusive() -> None:
    assert ValidN(step_elems=8, i_min=1, i_max=4).values() == (8, 16, 24, 32)
    every = ValidN(step_elems=8, i_min=1, i_max=32).values()
    assert (len(every), every[0], every[-1]) == (32, 8, 256)


def test_the_s32_accumulator_valid_n_is_the_union_of_its_two_ranges() -> None:
    """N = 8*i, i in {1..4}, and N = 16*i, i in {3..16}: 8, 16, 24, 32, 48, 64, ..., 256."""
    frag = SPEC.get(RegisterFragment, "k32.D.s32")
    want = (8, 16, 24, 32) + tuple(range(48, 257, 16))
    assert frag.valid_n_values() == want
    assert 40 not in frag.valid_n_values()
    assert records.ValidN(step_elems=16, i_min=3, i_max=16).values()[-1] == 256
