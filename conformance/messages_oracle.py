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
