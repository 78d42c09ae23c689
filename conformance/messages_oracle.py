"""Message examples of the oracle (src/ptxconf/oracle): its refusals, verdicts and findings, one
per message shape, each for the input its tests use (see golden_messages.py)."""

from __future__ import annotations

from collections.abc import Callable

from golden_messages import example


def _raised(fn: Callable[[], object], exc: type[BaseException] = ValueError) -> str:
    """The message of the `exc` that `fn()` raises."""
    try:
        fn()
    except exc as e:
        return str(e)
    raise AssertionError(f"{fn} raised no {exc.__name__}")


# --- oracle/wmma.py --------------------------------------------------------------------------------


@example("wmma.layout_neither_row_nor_col")
def _wmma_layout() -> str:
    from ptxconf.oracle import wmma

    return _raised(lambda: wmma.default_stride_elems(16, 16, 16, "a", "ROW"))


@example("wmma.start_not_aligned")
def _wmma_alignment() -> str:
    from ptxconf.oracle import wmma

    return wmma.check_alignment(0x20, 8, 16, 32, 16).message


# --- oracle/records.py -----------------------------------------------------------------------------


@example("records.count_not_whole")
def _count_not_whole() -> str:
    from ptxconf.oracle.records import count_expr

    return _raised(lambda: count_expr("N / 4", 6))


@example("records.count_not_a_count")
def _count_not_a_count() -> str:
    from ptxconf.oracle.records import count_expr

    return _raised(lambda: count_expr("M/2", 16))


# --- oracle/algebra/notation.py: NotationError, with its column where it has one -----------------


def _notation(text: str, bindings: dict[str, object] | None = None) -> str:
    from ptxconf.oracle.algebra.notation import NotationError, parse

    return _raised(lambda: parse(text, bindings), NotationError)  # type: ignore[arg-type]


@example("notation.not_text")
def _notation_not_text() -> str:
    return _notation(5)  # type: ignore[arg-type]


@example("notation.bad_binding")
def _notation_bad_binding() -> str:
    return _notation("8:1", {"k": "2"})


@example("notation.not_congruent")
def _notation_not_congruent() -> str:
    return _notation("Swizzle<1,4,3> o (8,8):(1,8,2)")


@example("notation.offset_not_an_integer")
def _notation_offset() -> str:
    return _notation("Swizzle<1,4,3> o (8,2) o (8,8):(1,8)")


@example("notation.invalid_swizzle")
def _notation_swizzle() -> str:
    return _notation("  Swizzle<3,4,2>")


@example("notation.expected_closing")
def _notation_closing() -> str:
    return _notation("Swizzle<3,4,3)")


@example("notation.expected_a_value")
def _notation_value() -> str:
    return _notation("(8,8):")
