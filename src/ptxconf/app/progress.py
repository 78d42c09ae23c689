"""A progress line for `ptxconf check` on a terminal (rich, on stderr); nothing in CI or a pipe."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ptxconf.core.results import Result


@contextmanager
def progress(enabled: bool | None = None) -> Iterator[Callable[[Result], None]]:
    """Yield the run's on_result callback: it advances a live line where stderr is a terminal
    (or `enabled` says so), and does nothing otherwise."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield lambda _r: None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    counts: Counter[str] = Counter()
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    task: Any = bar.add_task("starting", total=None)

    def on_result(r: Result) -> None:
        counts[r.status.value] += 1
        shown = ", ".join(f"{n} {s}" for s, n in counts.most_common())
        bar.update(task, description=f"{r.provider or r.check}: {sum(counts.values())} cases ({shown})")

    with bar:
        yield on_result


__all__ = ["progress"]
