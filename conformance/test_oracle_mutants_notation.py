"""Checks of oracle/algebra/notation.py that mutation testing found missing (reports/mutation/README.md).

Expected values come from CuTe's printed forms (``Swizzle<B,M,S>``, ``(shape):(stride)``,
``inner o offset o outer``; pycute prints the same layouts as ``(8, 64):(64, 1)``), from the
C++ types CuTe writes the same layouts as (``Layout<Shape<_8,_64>,Stride<_64,_1>>``), from the
module's documented grammar and error contract (every error a ``NotationError`` with a one-line
message and the 1-based column of what it is about; a bad shape/stride pair or a bad swizzle is
reported at its start) and from columns counted by hand in the texts below, never from the code
under test."""

from __future__ import annotations

import re

import pytest

from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import NotationError, parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle

pycute = pytest.importorskip("pycute", reason="pycute ships in the nvidia-cutlass wheel")


# ----------------------------------------------------------------------------- errors with no column


def test_text_that_is_not_a_string_is_refused_with_no_column() -> None:
    with pytest.raises(NotationError) as info:
        parse(5)  # type: ignore[arg-type]
    # No position to point at: the string form is the bare message, not "... at column None".
    assert str(info.value) == "expected text, got int"
    assert info.value.message == "expected text, got int"
    assert info.value.column is None


@pytest.mark.parametrize("bindings, message", [
    # 'o' is the composition operator, so it cannot be bound even to an int.
    ({"o": 1}, "bad binding 'o'=1: names bind ints, not 'o'"),
    # An ordinary name bound to something other than an int.
    ({"k": "2"}, "bad binding 'k'='2': names bind ints, not 'o'"),
], ids=["o", "non-int"])
def test_bindings_bind_ints_to_names_other_than_o(bindings: dict[str, object], message: str) -> None:
    with pytest.raises(NotationError, match=f"^{re.escape(message)}$"):
        parse("8:1", bindings)


def test_an_uppercase_o_is_an_ordinary_name() -> None:
    # Only the lowercase 'o' is the operator: 'O' is an ordinary name.
    assert parse("(O,2):(1,O)", {"O": 4}) == Layout((4, 2), (1, 4))


# ------------------------------------------------------------------ messages and 1-based columns

#          1111111111222222222
# 1234567890123456789012345678
# Swizzle<1,4,3> o (8,2) o ...     the outer layout's '(' is column 18


@pytest.mark.parametrize("text, message, column", [
    # A bad shape/stride pair is reported where its layout starts (after two spaces: column 3),
    # not where the parser stood when it found out (the end of the text).
    ("  (8,8):(1,8,2)", "shape (8, 8) and stride (1, 8, 2) are not congruent", 3),
    ("Layout<Shape<_4,_2>,Stride<_1,_16,_2>>", "shape (4, 2) and stride (1, 16, 2) are not congruent", 1),
    # ... also as the outer layout of a composition, in either spelling: column 18.
    ("Swizzle<1,4,3> o (8,8):(1,8,2)", "shape (8, 8) and stride (1, 8, 2) are not congruent", 18),
    ("Swizzle<1,4,3> o Layout<Shape<_8,_8>,Stride<_1,_8,_2>>",
     "shape (8, 8) and stride (1, 8, 2) are not congruent", 18),
    # A tuple where the offset goes: reported at the tuple (column 18), not at the second 'o' (24).
    ("Swizzle<1,4,3> o (8,2) o (8,8):(1,8)", "a composed layout's offset must be an integer", 18),
    # A bad swizzle (S < B) is reported where it starts (column 3), not after its '>'.
    ("  Swizzle<3,4,2>", "invalid Swizzle<3,4,2>: need S >= B >= 0, M >= 0", 3),
    # A wrong closing token is named, at its own column (14).
    ("Swizzle<3,4,3)", "expected '>', found ')'", 14),
    # A missing stride: nothing after ':' (the end of the text is column 7).
    ("(8,8):", "expected an integer or a name, found end of text", 7),
    # An empty tuple element: the ')' at column 4 is named as found.
    ("(8,):(1,8)", "expected an integer or a name, found ')'", 4),
    # 'o' is the operator, never a name: two in a row name the second one (column 18).
    ("Swizzle<1,4,3> o o (8,8):(1,8)", "expected an integer or a name, found 'o'", 18),
], ids=["pair", "cpp-pair", "outer-pair", "outer-cpp-pair", "offset-tuple", "swizzle", "closing",
        "end", "empty-element", "o-twice"])
def test_errors_name_what_was_found_at_its_column(text: str, message: str, column: int) -> None:
    with pytest.raises(NotationError, match=f"^{re.escape(message)} at column {column}$") as info:
        parse(text)
    assert info.value.message == message
    assert info.value.column == column


# ------------------------------------------------------------------------------ composed layouts


def test_a_swizzle_composed_with_a_cpp_layout_type() -> None:
    # CuTe's 128B swizzle atom of 16-bit elements, its outer layout written as the C++ type:
    # 8 rows of 64 elements, row-major; no offset written, so none is printed.
    parsed = parse("Swizzle<3,4,3> o Layout<Shape<_8,_64>,Stride<_64,_1>>")
    assert isinstance(parsed, ComposedLayout)
    assert parsed == ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    assert parsed.offset == 0
    assert parsed.show_offset is False
    assert str(parsed) == "Swizzle<3,4,3> o (8,64):(64,1)"
    # The outer layout prints as pycute prints the same layout (less its spaces).
    assert str(parsed.outer) == str(pycute.Layout((8, 64), (64, 1))).replace(" ", "")
    # Row 2, element 0: offset 128; bits [7,10) = 1 select bit 4: 128 ^ 16 = 144 (by hand).
    assert parsed(2, 0) == 144


def test_a_composition_without_an_offset_remembers_it_was_not_written() -> None:
    parsed = parse("Swizzle<1,4,3> o (8,16):(16,1)")
    assert parsed == ComposedLayout(Swizzle(1, 4, 3), 0, Layout((8, 16), (16, 1)))
    assert parsed.show_offset is False
    assert str(parsed) == "Swizzle<1,4,3> o (8,16):(16,1)"


def test_an_offset_written_against_the_operator_is_still_an_offset() -> None:
    # "2k" is 2*k, but 'o' cannot be a name: "0o" is the offset 0 and the operator, as written
    # with spaces in CuTe's "Swizzle<1,4,3> o 0 o (8,16):(16,1)".
    parsed = parse("S<1,4,3> o 0o (8,16):(16,1)")
    assert parsed == ComposedLayout(Swizzle(1, 4, 3), 0, Layout((8, 16), (16, 1)))
    assert parsed.show_offset is True
    assert str(parsed) == "Swizzle<1,4,3> o 0 o (8,16):(16,1)"
