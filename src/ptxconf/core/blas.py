"""NumPy's BLAS runs one thread in each process of a run.

A check is many processes at once (the GPU lanes, the proof workers, the compile workers), and
each NumPy that loads OpenBLAS starts one BLAS thread per core, which spin while they wait for
work. The host's matrices are small (a wgmma tile, `ptxconf.oracle.interpret.matmul`), so the
threads buy nothing and, with every core busy, burn CPU the compiles need: on an H200 node
(16 cores) a cold `check --gpu on` used 211 and 213 CPU-seconds with them and 194 and 183
without, 16.2 and 15.8 s against 15.3 and 14.1 s of wall time.

`one_thread()` sets the variables the BLAS libraries read at load time (OpenBLAS, and MKL or
OpenMP where NumPy was built with them) before NumPy is imported, where the caller has not set
them; every process the run starts inherits them.
"""

from __future__ import annotations

import os

#: The variables that set how many threads NumPy's BLAS starts.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def one_thread() -> None:
    """One BLAS thread in this process and those it starts, unless the caller chose a number."""
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


__all__ = ["BLAS_THREADS", "one_thread"]
