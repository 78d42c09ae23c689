"""The command holds NumPy's BLAS to one thread a process (`ptxconf.core.blas`), before NumPy
loads, unless the caller chose a number."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ptxconf.core.blas import BLAS_THREADS, one_thread

#: Runs the command's first code, then says what NumPy's BLAS will read, and whether NumPy had
#: been imported before the variables were set.
_PROBE = """
import os, sys
from ptxconf.app import entry
import ptxconf.core.blas as blas
real = blas.one_thread
def spy():
    print("numpy before:", "numpy" in sys.modules)
    real()
blas.one_thread = spy
try:
    entry.main(["--version"])
except SystemExit:
    pass
print(" ".join(f"{n}={os.environ.get(n)}" for n in blas.BLAS_THREADS))
"""


def _command_env(**chosen: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    env.update(chosen)
    done = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout


def test_the_command_sets_one_blas_thread_before_numpy_loads() -> None:
    out = _command_env()
    assert "numpy before: False" in out
    assert "OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 OMP_NUM_THREADS=1" in out


def test_a_number_the_caller_chose_is_kept() -> None:
    out = _command_env(OPENBLAS_NUM_THREADS="4")
    assert "OPENBLAS_NUM_THREADS=4 MKL_NUM_THREADS=1 OMP_NUM_THREADS=1" in out


@pytest.mark.parametrize("name", BLAS_THREADS)
def test_one_thread_sets_each_variable_that_is_unset(monkeypatch: pytest.MonkeyPatch,
                                                      name: str) -> None:
    for n in BLAS_THREADS:
        monkeypatch.delenv(n, raising=False)
    monkeypatch.setenv(name, "3")
    one_thread()
    assert {n: os.environ[n] for n in BLAS_THREADS} == {
        n: "3" if n == name else "1" for n in BLAS_THREADS}
