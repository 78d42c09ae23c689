"""Files written whole or not at all."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, content: str | bytes) -> None:
    """Write a file (text as UTF-8, or bytes) whole or not at all, so an interrupted run never
    leaves half a report or a half cache entry, and no temporary file where the write fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.chmod(tmp, _readable_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@functools.cache
def _readable_mode() -> int:
    """0o666 less the process umask (mkstemp's 0600 would hide reports from the group); read
    once, since reading the umask sets it for a moment and caches are written from threads."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


__all__ = ["write_atomic"]
