"""Layout notation (oracle/algebra/notation.py): what `parse` refuses and at which column, bindings,
and composed layouts with and without a written offset (round trips are in test_algebra.py).

Expected values come from CuTe's printed forms (``Swizzle<B,M,S>``, ``(shape):(stride)``,
``inner o offset o outer``; pycute prints the same layouts as ``(8, 64):(64, 1)``), from the
C++ types CuTe writes the same layouts as (``Layout<Shape<_8,_64>,Stride<_64,_1>>``), from the
module's documented grammar and error contract (every error a ``NotationError`` with a one-line
message and the 1-based column of what it is about; a bad shape/stride pair or a bad swizzle is
reported at its start) and from columns counted by hand in the texts below, never from the code
under test."""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming

from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import NotationError, parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle

pycute = pytest.importorskip("pycute", reason="pycute ships in the nvidia-cutlass wheel")


# ----------------------------------------------------------------------------- errors with no column


def test_text_that_is_not_a_string_is_refused_with_no_column() -> None:
    with pytest.raises(NotationError) as info:
        parse(5)  # type: ignore[arg-type]
    # No position to point at: the string form is the bare message, not "... at column None".
    assert str(info.value) == info.value.message
    assert "int" in info.value.message
    assert info.value.column is None


@pytest.mark.parametrize(("bindings", "named"), [
    # 'o' is the composition operator, so it cannot be bound even to an int.
    ({"o": 1}, "'o'=1"),
    # An ordinary name bound to something other than an int.
    ({"k": "2"}, "'k'='2'"),
], ids=["o", "non-int"])
def test_bindings_bind_ints_to_names_other_than_o(bindings: dict[str, object], named: str) -> None:
    with raises_naming(NotationError, named):
        parse("8:1", bindings)


def test_a_text_with_no_names_bound_is_parsed_once() -> None:
    """What parse makes is immutable, so a text that binds no names is parsed once a process
    (the checks parse each row's layout many times); a text with bindings is parsed each time,
    and a refused text is refused each time."""
    assert parse("(8,64):(64,1)") is parse("(8,64):(64,1)")
    assert parse("(8,64):(64,1)") is parse("(8,64):(64,1)", {})
    assert parse("(8,k):(k,1)", {"k": 64}) == parse("(8,64):(64,1)")
    assert parse("(8,k):(k,1)", {"k": 64}) is not parse("(8,k):(k,1)", {"k": 64})
    for _ in range(2):
        with raises_naming(NotationError, "'k'"):
            parse("(8,k):(k,1)")


def test_an_uppercase_o_is_an_ordinary_name() -> None:
    # Only the lowercase 'o' is the operator: 'O' is an ordinary name, alone or as the name
    # of "2O" (2 times O, as "2k" is 2 times k).
    assert parse("(O,2):(1,O)", {"O": 4}) == Layout((4, 2), (1, 4))
    assert parse("(8,2O):(1,8)", {"O": 2}) == Layout((8, 4), (1, 8))


# ------------------------------------------------------------------ messages and 1-based columns

#          1111111111222222222
# 1234567890123456789012345678
# Swizzle<1,4,3> o (8,2) o ...     the outer layout's '(' is column 18


@pytest.mark.parametrize(("text", "named", "column"), [
    # A bad shape/stride pair is reported where its layout starts (after two spaces: column 3),
    # not where the parser stood when it found out (the end of the text).
    ("  (8,8):(1,8,2)", ("(8, 8)", "(1, 8, 2)"), 3),
    ("Layout<Shape<_4,_2>,Stride<_1,_16,_2>>", ("(4, 2)", "(1, 16, 2)"), 1),
    # ... also as the outer layout of a composition, in either spelling: column 18.
    ("Swizzle<1,4,3> o (8,8):(1,8,2)", ("(8, 8)", "(1, 8, 2)"), 18),
    ("Swizzle<1,4,3> o Layout<Shape<_8,_8>,Stride<_1,_8,_2>>",
     ("(8, 8)", "(1, 8, 2)"), 18),
    # A tuple where the offset goes: reported at the tuple (column 18), not at the second 'o' (24).
    ("Swizzle<1,4,3> o (8,2) o (8,8):(1,8)", ("offset",), 18),
    # A bad swizzle (S < B) is reported where it starts (column 3), not after its '>'.
    ("  Swizzle<3,4,2>", ("Swizzle<3,4,2>",), 3),
    # A wrong closing token is named, at its own column (14).
    ("Swizzle<3,4,3)", ("'>'", "found ')'"), 14),
    # A missing stride: nothing after ':' (the end of the text is column 7).
    ("(8,8):", ("found end of text",), 7),
    # An empty tuple element: the ')' at column 4 is named as found.
    ("(8,):(1,8)", ("found ')'",), 4),
    # 'o' is the operator, never a name: two in a row name the second one (column 18).
    ("Swizzle<1,4,3> o o (8,8):(1,8)", ("found 'o'",), 18),
], ids=["pair", "cpp-pair", "outer-pair", "outer-cpp-pair", "offset-tuple", "swizzle", "closing",
        "end", "empty-element", "o-twice"])
def test_errors_name_what_was_found_at_its_column(text: str, named: tuple[str, ...], column: int) -> None:
    """`named`: the values the message names (its whole wording: messages_oracle.py's notation.*)."""
    with raises_naming(NotationError, *named) as info:
        parse(text)
    assert all(v in info.value.message for v in named)
    assert str(info.value) == f"{info.value.message} at column {column}"
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
