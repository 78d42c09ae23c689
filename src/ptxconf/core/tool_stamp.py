"""What a tool said about itself (is it here, its version), kept beside the caches and asked
again only where the files it was read from, or what decides which files those are, changed.

A warm run needs the versions of NVRTC, the CUDA driver and Z3 only as parts of cache keys,
and whether each is here at all; asking costs loading them (cuda-bindings and its library
finder: 0.1-0.2 s; Z3: 40-90 ms). A stamp keeps each answer with:

* its inputs: the interpreter, the folders the tool's packages are imported from (their
  location and identity), the environment variables that steer the library search
  (`SEARCH_ENV`), and the identity of the dynamic loader's cache and of each folder the
  environment adds to the search;
* its files: the identity (path, size, mtime, inode, device) of every library file the query
  had mapped whose name the caller names (libnvrtc, libcuda, libz3, ...; read from
  /proc/self/maps) and of the Python modules it names.

A stamp is used only where the inputs are the same (they are its key) and every recorded file
still has its identity: an upgraded wheel, a new driver, a toolkit put on LD_LIBRARY_PATH or
CUDA_HOME, a new package shadowing the old one, ldconfig run after an install: each asks the
tool again. Where the query's libraries cannot be seen (no /proc/self/maps), nothing is kept
and every run asks.

A stamp is input from outside (a shared cache folder), read as every cache entry is
(ptxconf.core.trust): a regular file within `MAX_STAMP_BYTES`, JSON of this version's shape,
its digest binding the content to its key (an HMAC under $PTXCONF_CACHE_KEY where set); the
caller type-checks the answer (`valid`). Anything else is asked again and written anew.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ptxconf.core.atomic import write_atomic
from ptxconf.core.trust import cache_root, read_regular, sign

VERSION = 1
#: The largest stamp read (real ones are well under 4 KiB).
MAX_STAMP_BYTES = 1 << 16
#: Environment variables that change which libraries a query loads (the dynamic loader's,
#: cuda-pathfinder's, Z3's own search).
SEARCH_ENV = ("LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX",
              "Z3_LIBRARY_PATH", "PATH", "PYTHONPATH", "CUDA_PATHFINDER_DISABLE")
#: The dynamic loader's cache (rewritten by ldconfig, which a driver or toolkit install runs).
LOADER_CACHE = "/etc/ld.so.cache"
MAPS = "/proc/self/maps"


def stamp_dir() -> Path:
    """Where the stamps are kept."""
    return cache_root() / "tools"


def identity(path: str) -> list[int] | None:
    """(size, mtime in ns, inode, device) of a path, or None where it is not there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


def _locations(package: str) -> list[str]:
    """The folders (or file) a top-level package would be imported from, in search order
    (several for a namespace package), without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations is not None:
        return [str(p) for p in spec.submodule_search_locations]
    return [spec.origin or ""]


def _search_dirs() -> list[str]:
    """Folders the environment adds to the library search (LD_LIBRARY_PATH, the toolkit's and
    conda's library folders): a library put there changes their identity."""
    out = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    for var in ("CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX"):
        root = os.environ.get(var)
        if root:
            out += [os.path.join(root, "lib64"), os.path.join(root, "lib")]
    return out


def inputs(packages: Iterable[str]) -> dict[str, Any]:
    """What decides which files a query reads: the interpreter, where each package is found
    (and that folder's identity), the search environment, the loader cache's identity."""
    found = {p: [[loc, identity(loc)] for loc in _locations(p)] for p in packages}
    return {"python": [os.path.realpath(sys.executable), sys.version, sys.prefix], "packages": found,
            "env": {v: os.environ.get(v) for v in SEARCH_ENV},
            "dirs": [[d, identity(d)] for d in _search_dirs()],
            "loader_cache": identity(LOADER_CACHE)}


def mapped(names: Iterable[str]) -> list[str] | None:
    """The library files this process has mapped whose file name holds one of `names`, or None
    where the mapped files cannot be read."""
    wanted = tuple(names)
    try:
        with open(MAPS, encoding="utf-8", errors="replace") as fh:
            rows = [line.split(None, 5) for line in fh]
    except OSError:
        return None
    paths = {row[5].strip() for row in rows if len(row) == 6}
    return sorted(p for p in paths
                  if p.startswith("/") and any(n in os.path.basename(p) for n in wanted))


def _files(libraries: Iterable[str], modules: Iterable[str]) -> dict[str, list[int] | None] | None:
    libs = mapped(libraries)
    if libs is None:
        return None
    paths = list(libs)
    for name in modules:
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            paths.append(str(file))
    return {p: identity(p) for p in paths}


def _key(name: str, ins: dict[str, Any]) -> str:
    return hashlib.sha256(f"{VERSION}\0{name}\0".encode()
                          + json.dumps(ins, sort_keys=True).encode()).hexdigest()


def _body(name: str, files: dict[str, Any], answer: Any) -> bytes:
    return json.dumps({"name": name, "files": files, "answer": answer}, sort_keys=True,
                      separators=(",", ":")).encode()


def read(name: str, ins: dict[str, Any], valid: Callable[[Any], bool]) -> tuple[bool, Any]:
    """(True, the kept answer) where a stamp under these inputs passes every check and its
    files are unchanged; else (False, None)."""
    key = _key(name, ins)
    path = stamp_dir() / f"{key}.json"
    if not os.path.lexists(path):
        return False, None
    try:
        data = json.loads(read_regular(path, MAX_STAMP_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return False, None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return False, None
    files, answer = data.get("files"), data.get("answer")
    if not isinstance(files, dict) or not valid(answer):
        return False, None
    if data.get("digest") != sign(key, _body(name, files, answer)):
        return False, None
    if any(identity(p) != ident for p, ident in files.items()):
        return False, None
    return True, answer


def write(name: str, ins: dict[str, Any], files: dict[str, Any], answer: Any) -> None:
    """Keep an answer (written whole or not at all; a read-only cache only makes the next run
    ask again)."""
    key = _key(name, ins)
    with contextlib.suppress(OSError):
        write_atomic(stamp_dir() / f"{key}.json", json.dumps(
            {"version": VERSION, "name": name, "files": files, "answer": answer,
             "digest": sign(key, _body(name, files, answer))}, sort_keys=True))


def kept(name: str, query: Callable[[], Any], *, packages: Iterable[str],
         libraries: Iterable[str], modules: Iterable[str] = (),
         valid: Callable[[Any], bool]) -> Any:
    """The answer of `query` (JSON data that `valid` accepts), from its stamp where that is
    current, else asked and kept: `packages` are the top-level packages it imports, `libraries`
    the names of the library files it loads, `modules` the Python modules whose files it reads.
    Where the libraries cannot be read back (no /proc), every call asks."""
    ins = inputs(packages)
    ok, answer = read(name, ins, valid)
    if ok:
        return answer
    answer = query()
    files = _files(libraries, modules)
    if files is not None and valid(answer):
        write(name, ins, files, answer)
    return answer


__all__ = ["LOADER_CACHE", "MAX_STAMP_BYTES", "SEARCH_ENV", "VERSION", "identity", "inputs",
           "kept", "mapped", "read", "stamp_dir", "write"]
