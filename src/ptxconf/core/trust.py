"""What ptxconf's caches share: where they live (`cache_root`), how a key covers source code
(`tree_sha256`), and how an entry other jobs can write is read (CI systems share cache folders
between branches and pull requests): regular files of bounded size only, and a digest binding
an entry's content to its key (an HMAC under $PTXCONF_CACHE_KEY where that secret is set).

    data = read_regular(path, limit_bytes)    # ValueError: a symlink, FIFO, device, too large
    sign(key, data) == stored digest          # content and key as written, or not
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Callable
from pathlib import Path

#: A secret that signs cache entries (HMAC-SHA256) where it is set: a CI secret that jobs from
#: forks do not see makes an entry written without it (a planted one) fail its digest.
KEY_ENV = "PTXCONF_CACHE_KEY"


def cache_root() -> Path:
    """The folder the proof and result caches live under: $PTXCONF_CACHE_DIR, else
    ~/.cache/ptxconf."""
    return Path(os.environ.get("PTXCONF_CACHE_DIR") or Path.home() / ".cache" / "ptxconf")


def transcripts_folder() -> Path:
    """Where the GPU jobs' transcripts and the kept runs' records are
    (`ptxconf.gpu.transcript`): cache_root()/transcripts."""
    return cache_root() / "transcripts"


#: A kept run's record beside the transcripts: its plan (`Transcripts.keep_run`), or that a run
#: of part of the cases kept transcripts (`Transcripts.mark_kept`).
RUN_SUFFIX, KEPT_SUFFIX = ".run", ".kept"


def any_kept_run() -> bool:
    """Whether any run (of any code or spec) kept its GPU jobs' transcripts here; where none
    did, no run can replay. Reads the folder's names, not its files."""
    try:
        with os.scandir(transcripts_folder()) as names:
            return any(e.name.endswith((RUN_SUFFIX, KEPT_SUFFIX)) for e in names)
    except OSError:
        return False


def tree_sha256(root: Path, keep: Callable[[Path], bool]) -> str:
    """sha256 of the files under ``root`` that ``keep`` takes (given each path relative to
    root), each as its relative path and bytes, in path order: a cache key part that changes
    with any of them."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and keep(rel):
            h.update(rel.as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def sign(key: str, payload: bytes) -> str:
    """The digest of ``payload`` under ``key``: HMAC-SHA256 with $PTXCONF_CACHE_KEY where it
    is set, else sha256 (integrity against edits and copies, not against forgery)."""
    message = key.encode() + b"\0" + payload
    secret = os.environ.get(KEY_ENV)
    if secret:
        return "hmac:" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return hashlib.sha256(message).hexdigest()


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, opened without following a
    symlink or blocking on a FIFO; ValueError naming what else it is."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if path.is_symlink():
            raise ValueError("a symlink, not a regular file") from exc
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        raise ValueError("not a regular file" if not stat.S_ISREG(info.st_mode)
                         else f"{info.st_size} bytes, more than {limit}")
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"more than {limit} bytes")
    return data


__all__ = ["KEPT_SUFFIX", "KEY_ENV", "RUN_SUFFIX", "any_kept_run", "cache_root", "read_regular",
           "sign", "transcripts_folder", "tree_sha256"]
