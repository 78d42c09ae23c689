"""Imported only by the multiprocessing fork server, as its first preload
(`ptxconf.core.interrupts.fork_context`), never by a run itself: it makes the fork server and
every process it forks (proof workers, GPU lanes) quiet about the run that owns them ending.

* SIGINT is ignored. The fork server ignores it in its own loop, but its children would get
  Python's KeyboardInterrupt handler back; a Ctrl-C at a terminal reaches the whole process
  group, and only the run handles it (it stops its children itself). SIGTERM keeps its default
  action: a child sent it ends at once, silently.
* A child whose owner hung up while handing it its work (the run interrupted or killed while a
  worker was starting) reads EOF before it runs anything: it ends with exit status 1, not a
  traceback on the run's stderr. Any other error is still told as before.
"""

from __future__ import annotations

import signal
import sys
from types import TracebackType

#: What a child reads or writes when its owner went away mid-handshake.
HUNG_UP = (EOFError, BrokenPipeError, ConnectionResetError)

_previous = sys.excepthook


def quiet_hook(kind: type[BaseException], value: BaseException,
               tb: TracebackType | None) -> None:
    """sys.excepthook: nothing for an owner that hung up, the previous hook otherwise."""
    if issubclass(kind, HUNG_UP):
        return
    _previous(kind, value, tb)


signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.excepthook = quiet_hook
