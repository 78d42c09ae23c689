"""Files written whole or not at all."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Write a file whole or not at all, so an interrupted run never leaves half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, _readable_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _readable_mode() -> int:
    """0o666 less the process umask (mkstemp's 0600 would hide reports from the group)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


__all__ = ["write_atomic"]
