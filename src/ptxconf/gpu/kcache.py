"""Compiled modules on disk: NVRTC in parallel worker processes, each cubin kept under a key of
its source, options, compiler and driver, so that a warm rerun compiles nothing.

    built = build_all([Module("wgmma:00", source, options), ...], jobs=16)
    built["wgmma:00"].path      # the cubin, loaded by the probe worker (CuPy RawModule(path=))
    built["wgmma:00"].cached    # True: taken from the cache, nothing compiled

`Builder` is the same, module by module as each lands (a run starts each module's cases as
soon as it is built, while the others compile).

The folder is `$PTXCONF_KERNEL_CACHE`, else `~/.cache/ptxconf/kernels`; `--no-cache` (a fresh
folder per run) compiles everything. A cached cubin is input from outside (a shared CI cache):
it is used only when it is a regular file of at most `MAX_CUBIN_BYTES` whose digest file beside
it binds its bytes to its key (ptxconf.core.trust: an HMAC under $PTXCONF_CACHE_KEY where that
is set); anything else is compiled again and the module says why (`Built.rejected`). Needs
cuda-bindings and NVRTC (pip install 'ptxconf[compile]'); no GPU.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ptxconf.core.atomic import write_atomic
from ptxconf.core.trust import read_regular, sign

from .build import nvrtc_compile, nvrtc_version
from .toolchain import driver_version

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
    #: Why the cached cubin at its key was not used ("" where none was there or it was used).
    rejected: str = ""


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
def module_key(m: Module) -> str:
    """The cache key: source, options, NVRTC version and driver version."""

    text = "\0".join([m.source, *m.options, repr(nvrtc_version()), driver_version()])
    return hashlib.sha256(text.encode()).hexdigest()


def tool_versions() -> tuple[str, str]:
    """The tool versions every cache key covers (`module_key`): NVRTC's and the driver's."""
    return repr(nvrtc_version()), driver_version()


def kept_tool_versions() -> tuple[str, str] | None:
    """`tool_versions()` from their stamps where those are current (`ptxconf.gpu.toolchain`:
    asked again where the libraries changed), without loading NVRTC or the driver (a quarter
    of a second before a warm replay could start); None where there is no usable NVRTC."""
    from .toolchain import kept_driver_version, kept_nvrtc_version

    try:
        return repr(kept_nvrtc_version()), kept_driver_version()
    except RuntimeError:
        return None


def reuse(folder: Path, files: dict[str, str]) -> dict[str, Built] | None:
    """Modules by name from cubin files a run named (`Transcripts.keep_run`), each read as a
    cached one is (`cached_why_not`); None where any is missing or not usable."""
    out = {}
    for name, file in files.items():
        path = folder / file
        if cached_why_not(path) is not None:
            return None
        out[name] = Built(name, True, str(path), True, 0.0)
    return out


#: The largest cubin read from the cache (the probe modules are well under 1 MiB).
MAX_CUBIN_BYTES = 64 << 20


def _digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".digest")


def cached_why_not(path: Path) -> str | None:
    """None when the cubin at ``path`` may be used (a regular file, within the size cap, its
    digest file matching its bytes and key); else why not ("" where there is none)."""
    if not os.path.lexists(path):
        return ""
    try:
        data = read_regular(path, MAX_CUBIN_BYTES)
        said = read_regular(_digest_path(path), 256).decode("ascii", "replace")
    except FileNotFoundError:
        return "no digest beside it"
    except (OSError, ValueError) as exc:
        return str(exc) or type(exc).__name__
    if said != sign(path.stem, data):
        return "its digest does not match its content and key"
    return None


def _compile(source: str, options: tuple[str, ...], name: str, path: str) -> tuple[bool, float, str]:
    """Compile one module (in a pool worker) and write its cubin, then its digest, atomically."""

    res = nvrtc_compile(source, options, name=f"{name.replace(':', '_')}.cu")
    if res.ok and res.cubin is not None:
        where = Path(path)
        if where.is_dir() and not where.is_symlink():
            where.rmdir()
        write_atomic(where, res.cubin)
        write_atomic(_digest_path(where), sign(where.stem, res.cubin))
    return res.ok, res.seconds, res.log


class Builder:
    """Modules being built: those in the cache at once, the rest compiled in parallel worker
    processes in the order given, so that the caller can use each module as it lands
    (`collect`) or wait for them all (`result`).

        b = Builder(mods, folder=folder)
        while b.pending:
            done, _ = wait(b.pending, return_when=FIRST_COMPLETED)
            for built in b.collect(done): ...
    """

    def __init__(self, mods: Sequence[Module], *, jobs: int | None = None,
                 folder: Path | None = None,
                 on_compile: Callable[[int], None] | None = None,
                 workers: ProcessPoolExecutor | None = None) -> None:
        """`workers`: compile processes already started (`start_workers`), used (and ended)
        in place of a pool of `jobs` of its own."""
        self._start = time.perf_counter()
        #: Wall-clock seconds from the start to the last module recorded.
        self.seconds = 0.0
        self.names = [m.name for m in mods]
        self.built: dict[str, Built] = {}
        self.compiled_now = 0
        self._futures: dict[Future[tuple[bool, float, str]], tuple[Module, Path]] = {}
        self._pool: ProcessPoolExecutor | None = None
        folder = folder or cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        todo: list[tuple[Module, Path]] = []
        #: module name -> why its cached cubin was not used (it is compiled again).
        self.rejected: dict[str, str] = {}
        for m in mods:
            path = folder / f"{module_key(m)}.cubin"
            why = cached_why_not(path)
            if why is None:
                self.built[m.name] = Built(m.name, True, str(path), True, 0.0)
                continue
            if why:
                self.rejected[m.name] = why
            todo.append((m, path))
        if todo and on_compile is not None:
            on_compile(len(todo))
        count = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
        if workers is not None and not todo:
            workers.shutdown(wait=False, cancel_futures=True)
        elif workers is None and todo and count == 1:
            for m, path in todo:
                self._record(m, path, _compile(m.source, m.options, m.name, str(path)))
        elif todo:
            self._pool = workers or ProcessPoolExecutor(count, mp_context=mp.get_context("spawn"))
            self._futures = {self._pool.submit(_compile, m.source, m.options, m.name, str(p)): (m, p)
                             for m, p in todo}
        self.seconds = time.perf_counter() - self._start

    def _record(self, m: Module, path: Path, res: tuple[bool, float, str]) -> Built:
        ok, seconds, log = res
        self.built[m.name] = Built(m.name, ok, str(path) if ok else None, False, seconds, log,
                                   self.rejected.get(m.name, ""))
        self.compiled_now += 1
        self.seconds = time.perf_counter() - self._start
        return self.built[m.name]

    @property
    def pending(self) -> set[Future[tuple[bool, float, str]]]:
        """The compiles not yet collected."""
        return set(self._futures)

    def collect(self, finished: Iterable[Future[tuple[bool, float, str]]]) -> list[Built]:
        """These finished compiles, recorded (a compile that raised raises here)."""
        out = []
        for fut in finished:
            m, path = self._futures.pop(fut)
            out.append(self._record(m, path, fut.result()))
        if not self._futures:
            self.close()
        return out

    def result(self) -> dict[str, Built]:
        """Every module, in the order given, once all are built."""
        if self._futures:
            self.collect(list(self._futures))
        return {n: self.built[n] for n in self.names}

    def close(self) -> None:
        """End the compile workers (what was not compiled yet is dropped). With every compile
        collected the workers are idle, and are waited for, so that none outlives the build."""
        if self._pool is not None:
            self._pool.shutdown(wait=not self._futures, cancel_futures=True)
            self._pool = None


def _ready() -> None:
    """A compile process's first task: load NVRTC's binding (its compiles then start at once)."""
    from cuda.bindings import nvrtc  # noqa: F401


def start_workers(count: int) -> ProcessPoolExecutor:
    """`count` compile processes for a `Builder`, starting now: a fresh interpreter each, which
    then loads this module and NVRTC's binding (0.4-0.5 s on a busy node), while the caller
    plans what to build."""
    pool = ProcessPoolExecutor(count, mp_context=mp.get_context("spawn"))
    for _ in range(count):  # one each: a task that finds no idle process starts one
        pool.submit(_ready)
    return pool


def build_all(mods: Sequence[Module], *, jobs: int | None = None,
              folder: Path | None = None,
              on_compile: Callable[[int], None] | None = None) -> dict[str, Built]:
    """Every module's cubin: from the cache, or compiled (in parallel, largest first);
    `on_compile(count)` just before compiling the modules the cache lacks."""
    order = sorted(mods, key=lambda m: -len(m.source))
    built = Builder(order, jobs=jobs, folder=folder, on_compile=on_compile).result()
    return {m.name: built[m.name] for m in mods}


def timed_build_all(mods: Sequence[Module], *, jobs: int | None = None,
                    folder: Path | None = None,
                    on_compile: Callable[[int], None] | None = None
                    ) -> tuple[dict[str, Built], float]:
    """build_all and its wall-clock seconds."""
    start = time.perf_counter()
    built = build_all(mods, jobs=jobs, folder=folder, on_compile=on_compile)
    return built, time.perf_counter() - start


__all__ = ["CACHE_ENV", "Built", "Builder", "Module", "build_all", "cache_dir", "driver_version",
           "folder_for", "kept_tool_versions", "module_key", "reuse", "start_workers",
           "timed_build_all", "tool_versions"]
