"""The GPU's own busy time, measured where the probes run: a CUDA event recorded on the stream
before a synchronised group of launches and one after it, the elapsed time between them added
to this process's total. Only the kernels are timed (the copies around them are not): the
figure is the device floor a run's wall is compared with, not the run's GPU phase.

`ptxconf.gpu.runner.answer` sends each call's share (`gpu_s`) with its answer; the lanes and
the replay record it per job, and `ptxconf bench` sums it per family and per run.

    with kernels_timed():
        kernel(grid, block, args, shared_mem=smem_bytes)   # returns once the kernels ended
    busy_s()                                               # seconds, this process so far
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

_TOTAL_S = [0.0]


def busy_s() -> float:
    """Seconds the GPU spent in this process's timed launches so far."""
    return _TOTAL_S[0]


@contextlib.contextmanager
def kernels_timed() -> Iterator[None]:
    """Time the launches made in the block on the current stream, and wait for them to end
    (a fault raises here, as the stream's synchronisation would: a CUDA runtime error)."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record(stream)
    yield
    end.record(stream)
    end.synchronize()
    _TOTAL_S[0] += cupy.cuda.get_elapsed_time(start, end) / 1000.0


__all__ = ["busy_s", "kernels_timed"]
