"""Assertion rewriting done once a run, not once a worker (conftest.py's pytest_sessionstart).

pytest rewrites the asserts of every test module it imports and keeps the result as a pyc of its
own (`__pycache__/<name>.cpython-311-pytest-<version>.pyc`, keyed by the source's hash). On a
fresh checkout there is none, and each xdist worker, collecting the whole suite, rewrote all 160
modules itself: about 5 CPU seconds a worker on two cores, the same work done twice. Here the
controller, before it starts the workers, has a few processes rewrite them and write those pycs
(pytest's own functions, in pytest's own format), so that the workers read them as they would on
a second run. Where anything here fails, or pytest's internals differ, nothing is written and
each worker rewrites as before: this only saves time (test_prewarm.py checks that the pycs it
writes are the ones pytest reads). Imports nothing of ptxconf."""

from __future__ import annotations

import fnmatch
import subprocess
import sys
from pathlib import Path

import pytest

#: Run in each helper process, with its share of the modules as arguments: a module whose pyc
#: pytest would read is left alone, every other one rewritten and written as pytest writes it.
SCRIPT = """
import sys
from pathlib import Path
from _pytest.assertion import rewrite as rw

class Quiet:
    def trace(self, *message):
        pass

for name in sys.argv[1:]:
    fn = Path(name)
    pyc = rw.get_cache_dir(fn) / (fn.name[:-3] + rw.PYC_TAIL)
    if rw._read_pyc(fn, pyc) is not None or not rw.try_makedirs(pyc.parent):
        continue
    source_hash, co = rw._rewrite_test(fn, None)
    rw._write_pyc(Quiet(), co, source_hash, pyc)
"""

#: The most helper processes (each rewrites its share, the largest modules spread first).
MOST_PROCESSES = 4


def test_modules(config: pytest.Config) -> list[Path]:
    """The modules pytest will rewrite as test modules: those under the run's arguments (files or
    folders) whose names match `python_files`, largest first."""
    patterns = config.getini("python_files")
    found: set[Path] = set()
    for arg in config.args:
        path = (config.invocation_params.dir / arg.split("::", 1)[0]).resolve()
        candidates = path.rglob("*.py") if path.is_dir() else [path]
        found.update(p for p in candidates if p.suffix == ".py" and p.is_file()
                     and any(fnmatch.fnmatch(p.name, pat) for pat in patterns))
    return sorted(found, key=lambda p: (-p.stat().st_size, str(p)))


def wanted(config: pytest.Config) -> int:
    """How many helper processes to use: 0 where this is not an xdist controller about to start
    two or more workers, where pytest writes no pycs (PYTHONDONTWRITEBYTECODE) or rewrites no
    asserts, or where the assertion pass hook is on (its rewrite needs the config)."""
    # xdist's pytest_cmdline_main turned -n N (auto resolved) into N gateways: --tx popen
    workers = len(getattr(config.option, "tx", None) or ()) if config.pluginmanager.has_plugin("xdist") else 0
    if hasattr(config, "workerinput") or workers < 2 or sys.dont_write_bytecode:
        return 0
    if config.getoption("assertmode") != "rewrite" or config.getini("enable_assertion_pass_hook"):
        return 0
    return min(workers, MOST_PROCESSES)


def rewrite_ahead(paths: list[Path], processes: int, timeout_s: float = 120.0) -> bool:
    """Rewrite these modules in `processes` processes at once; True where every one finished
    well (a failure or a timeout leaves the rest to the workers)."""
    shares: list[list[str]] = [[] for _ in range(max(1, processes))]
    for i, path in enumerate(paths):
        shares[i % len(shares)].append(str(path))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, *share], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for share in shares if share]
    ok = True
    for proc in procs:
        try:
            ok = proc.wait(timeout=timeout_s) == 0 and ok
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            ok = False
    return ok
