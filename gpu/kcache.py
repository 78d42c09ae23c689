"""Compiled modules on disk: NVRTC in parallel worker processes, each cubin kept under a key of
its source, options, compiler and driver, so that a warm rerun compiles nothing.

    built = build_all([Module("wgmma:00", source, options), ...], jobs=16)
    built["wgmma:00"].path      # the cubin, loaded by the probe worker (CuPy RawModule(path=))
    built["wgmma:00"].cached    # True: taken from the cache, nothing compiled

The folder is `$PTXCONF_KERNEL_CACHE`, else `~/.cache/ptxconf/kernels`; `--no-cache` (a fresh
folder per run) compiles everything. Needs cuda-bindings and NVRTC (pip install
'ptxconf[compile]'); no GPU.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing as mp
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "PTXCONF_KERNEL_CACHE"


@dataclass(frozen=True)
class Module:
    """One module to build: its name, CUDA source and NVRTC options."""

    name: str
    source: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Built:
    """A module's cubin on disk (or why there is none)."""

    name: str
    ok: bool
    path: str | None
    cached: bool
    seconds: float
    log: str = ""


def cache_dir() -> Path:
    """Where cubins are kept."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "ptxconf" / "kernels"


def folder_for(use_cache: bool) -> Path:
    """The kernel cache, or (`--no-cache`) a fresh empty folder, so that everything compiles."""
    if use_cache:
        return cache_dir()
    import tempfile

    return Path(tempfile.mkdtemp(prefix="ptxconf-kernels-"))


@functools.cache
def driver_version() -> str:
    """The CUDA driver's version, or 'none' where no driver is installed."""
    try:
        from cuda.bindings import driver

        err, version = driver.cuDriverGetVersion()
        return str(version) if int(err) == 0 else "none"
    except Exception:  # noqa: BLE001 - no driver library: a CPU machine
        return "none"


def module_key(m: Module) -> str:
    """The cache key: source, options, NVRTC version and driver version."""
    from .build import nvrtc_version

    text = "\0".join([m.source, *m.options, repr(nvrtc_version()), driver_version()])
    return hashlib.sha256(text.encode()).hexdigest()


def _compile(source: str, options: tuple[str, ...], name: str, path: str) -> tuple[bool, float, str]:
    """Compile one module (in a pool worker) and write its cubin atomically."""
    from .build import nvrtc_compile

    res = nvrtc_compile(source, options, name=f"{name.replace(':', '_')}.cu", cache=False)
    if res.ok and res.cubin is not None:
        tmp = Path(f"{path}.{os.getpid()}.tmp")
        tmp.write_bytes(res.cubin)
        tmp.replace(path)
    return res.ok, res.seconds, res.log


def build_all(mods: Sequence[Module], *, jobs: int | None = None,
              folder: Path | None = None,
              on_compile: Callable[[int], None] | None = None) -> dict[str, Built]:
    """Every module's cubin: from the cache, or compiled (in parallel, largest first);
    `on_compile(count)` just before compiling the modules the cache lacks."""
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Built] = {}
    todo: list[tuple[Module, Path]] = []
    for m in mods:
        path = folder / f"{module_key(m)}.cubin"
        if path.is_file():
            out[m.name] = Built(m.name, True, str(path), True, 0.0)
        else:
            todo.append((m, path))
    if not todo:
        return out
    if on_compile is not None:
        on_compile(len(todo))
    todo.sort(key=lambda mp_: -len(mp_[0].source))
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
    if workers == 1:
        results = [_compile(m.source, m.options, m.name, str(p)) for m, p in todo]
    else:
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
            futures = [pool.submit(_compile, m.source, m.options, m.name, str(p)) for m, p in todo]
            results = [f.result() for f in futures]
    for (m, path), (ok, seconds, log) in zip(todo, results, strict=True):
        out[m.name] = Built(m.name, ok, str(path) if ok else None, False, seconds, log)
    return {m.name: out[m.name] for m in mods}


def timed_build_all(mods: Sequence[Module], *, jobs: int | None = None,
                    folder: Path | None = None,
                    on_compile: Callable[[int], None] | None = None
                    ) -> tuple[dict[str, Built], float]:
    """build_all and its wall-clock seconds."""
    start = time.perf_counter()
    built = build_all(mods, jobs=jobs, folder=folder, on_compile=on_compile)
    return built, time.perf_counter() - start


__all__ = ["CACHE_ENV", "Built", "Module", "build_all", "cache_dir", "driver_version", "folder_for",
           "module_key", "timed_build_all"]
