"""The `ptxconf` command's first code: from here on Ctrl-C and SIGTERM end it with one line.

The console script and `python -m ptxconf` call `main` before anything heavy is imported: a
signal that arrives while the command's modules load (a third of a second on a loaded
machine) is recorded, and the command ends with `ptxconf: interrupted (SIGINT)` and the
shell's status (130, or 143 for SIGTERM) instead of Python's KeyboardInterrupt traceback. From
the moment the command runs, `ptxconf.core.interrupts.watching` handles signals. NumPy's BLAS
is held to one thread a process before NumPy loads (`ptxconf.core.blas`).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from types import FrameType

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    """Record signals while the command loads, then run it (`ptxconf.app.cli.main`)."""
    early: list[int] = []

    def record(signum: int, frame: FrameType | None) -> None:
        early.append(signum)

    for s in _SIGNALS:
        signal.signal(s, record)
    from ptxconf.core.blas import one_thread

    one_thread()  # before NumPy is imported, here or in any process the command starts
    from ptxconf.app.cli import main as run_command

    if early:
        name = signal.Signals(early[0]).name
        print(f"ptxconf: interrupted ({name})", file=sys.stderr)
        return 128 + early[0]
    return run_command(argv)


__all__ = ["main"]
