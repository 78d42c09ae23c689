"""Swizzles and composed layouts (oracle/algebra/swizzle.py): periods, parameter checks, printing
and rescaling (the swizzle properties under the algebra are in test_algebra.py).

Expected values come from CuTe's definition of ``Swizzle<B,M,S>`` (``x ^ ((x >> S) & mask)``
with mask = B ones at bit M; a pattern that repeats every 2**(B+M+S)), from the PTX ISA's
swizzle modes (the 128B, 64B and 32B patterns repeat every 1024, 512 and 256 bytes) and from
hand evaluation of small cases, never from the code under test."""

from __future__ import annotations

from fractions import Fraction

import pytest

from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle

ROWS = Layout((8, 64), (64, 1))  # 8 rows of 64 two-byte elements: one 128B swizzle atom


@pytest.mark.parametrize(("swizzle", "repeat"), [
    (Swizzle(3, 4, 3), 1024),  # 128B: 8 rows of 128 bytes
    (Swizzle(2, 4, 3), 512),   # 64B
    (Swizzle(1, 4, 3), 256),   # 32B
    (Swizzle(0, 4, 3), 128),   # none (B = 0): the identity, still 2**(B+M+S)
])
def test_period_is_the_repeat_of_the_ptx_swizzle_modes(swizzle: Swizzle, repeat: int) -> None:
    assert swizzle.period() == repeat


@pytest.mark.parametrize(("bits", "base", "shift"), [(1, -1, 1), (-1, 0, 0), (0, -2, 3)])
def test_any_negative_parameter_is_refused(bits: int, base: int, shift: int) -> None:
    with pytest.raises(ValueError, match="need S >= B >= 0, M >= 0"):
        Swizzle(bits, base, shift)


def test_non_int_parameters_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="Swizzle parameters must be ints"):
        Swizzle(3, 4.0, 3)  # type: ignore[arg-type]


def test_rebased_too_coarse_names_the_factor() -> None:
    with pytest.raises(ValueError, match=r"Swizzle<3,4,3> cannot act on units 2\*\*5 times coarser"):
        Swizzle(3, 4, 3).rebased(-5)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"inner": "Swizzle<3,4,3>"}, "inner must be a Swizzle or a Layout"),
    ({"offset": 1.5}, "offset must be an int"),
    ({"outer": (8, 64)}, "outer must be a Layout"),
])
def test_composed_parts_are_checked_by_name(kwargs: dict, match: str) -> None:
    parts = {"inner": Swizzle(3, 4, 3), "offset": 0, "outer": ROWS, **kwargs}
    with pytest.raises(ValueError, match=match):
        ComposedLayout(**parts)


@pytest.mark.parametrize(("offset", "show", "text"), [
    (0, False, "Swizzle<3,4,3> o (8,64):(64,1)"),
    (0, True, "Swizzle<3,4,3> o 0 o (8,64):(64,1)"),
    (1, False, "Swizzle<3,4,3> o 1 o (8,64):(64,1)"),  # a non-zero offset is always printed
    (16, False, "Swizzle<3,4,3> o 16 o (8,64):(64,1)"),
])
def test_str_spells_the_offset_out_when_asked_or_non_zero(offset: int, show: bool, text: str) -> None:
    assert str(ComposedLayout(Swizzle(3, 4, 3), offset, ROWS, show_offset=show)) == text


def test_cosize_of_a_swizzled_atom() -> None:
    # Swizzle<3,4,3> permutes [0, 512): bits 4-6 are flipped by bits 7-9, and bit 9 is 0 below 512.
    assert ComposedLayout(Swizzle(3, 4, 3), 0, ROWS).cosize() == 512
    # Swizzle<1,0,2> o 4 o 4:1 reads 4..7 as 5, 4, 7, 6: one past the largest is 8.
    small = ComposedLayout(Swizzle(1, 0, 2), 4, Layout(4, 1))
    assert [small(i) for i in range(4)] == [5, 4, 7, 6]
    assert small.cosize() == 8


def test_rescaled_keeps_how_the_offset_was_printed() -> None:
    quiet = ComposedLayout(Swizzle(3, 4, 3), 0, ROWS, show_offset=False).rescaled(Fraction(2), 1)
    assert quiet.show_offset is False
    assert str(quiet) == "Swizzle<3,5,3> o (8,64):(128,2)"
    loud = ComposedLayout(Swizzle(3, 4, 3), 0, ROWS, show_offset=True).rescaled(Fraction(2), 1)
    assert str(loud) == "Swizzle<3,5,3> o 0 o (8,64):(128,2)"


def test_rescaled_refusals_are_named() -> None:
    with pytest.raises(ValueError, match="cannot change the unit of a layout-inner composition"):
        ComposedLayout(Layout(8, 1), 0, ROWS).rescaled(Fraction(2), 1)
    with pytest.raises(ValueError, match=r"offset 1 times 1/2 is not whole"):
        ComposedLayout(Swizzle(3, 4, 3), 1, ROWS).rescaled(Fraction(1, 2), -1)
