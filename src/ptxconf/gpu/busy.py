"""The GPU's own busy time, measured where the probes run: a CUDA event recorded on the stream
just before each launch and one just after it, the elapsed times summed into this process's
total once the group's last kernel has ended. Only kernels are timed, one by one (the copies
and the host's work between launches are not): the figure is the device floor a run's wall is
compared with.

A bound from above where processes share a GPU: each probe worker has its own CUDA context,
the GPU takes turns between contexts, and a kernel's interval can then hold another
context's turn.

`ptxconf.gpu.runner.answer` sends each call's share (`gpu_s`) with its answer; the lanes and
the replay record it per job, and `ptxconf bench` sums it per family and per run.

    with kernels_timed() as timed:
        timed(lambda: kernel(grid, block, args, shared_mem=smem_bytes))   # one launch each
    # here every kernel launched in the block has ended (a fault raised, as a
    # synchronisation would)
    busy_s()                                                             # seconds, so far
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

_TOTAL_S = [0.0]
#: Events of groups that raised, never freed (see `kernels_timed`).
_KEPT: list[tuple[Any, Any]] = []

#: What `kernels_timed` yields: call it with a function that makes one launch.
Timed = Callable[[Callable[[], object]], None]


def busy_s() -> float:
    """Seconds the GPU spent in this process's timed kernels so far."""
    return _TOTAL_S[0]


@contextlib.contextmanager
def kernels_timed() -> Iterator[Timed]:
    """Time each launch made through the yielded function on the current stream; at the end of
    the block wait for the kernels (a fault raises here, as the stream's synchronisation
    would: a CUDA runtime error) and add their seconds. The kernels must be loaded before
    (a compile inside a timed launch would count)."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    pairs: list[tuple[Any, Any]] = []

    def timed(launch: Callable[[], object]) -> None:
        pairs.append((cupy.cuda.Event(), cupy.cuda.Event()))
        pairs[-1][0].record(stream)
        launch()
        pairs[-1][1].record(stream)

    try:
        yield timed
        if not pairs:
            stream.synchronize()
            return
        pairs[-1][1].synchronize()
        _TOTAL_S[0] += sum(cupy.cuda.get_elapsed_time(s, e) for s, e in pairs) / 1000.0
    except BaseException:
        # after a fault the context is gone: an event freed now fails to be destroyed, and
        # CuPy prints that failure's traceback on stderr ("Exception ignored in ...
        # Event.__del__"). Kept instead; the worker ends after a fault that lost the context.
        _KEPT.extend(pairs)
        raise


__all__ = ["Timed", "busy_s", "kernels_timed"]
