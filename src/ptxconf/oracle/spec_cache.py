"""Spec files that passed every lint rule, kept between runs as the data their records are built
from, so that a command's warm load neither parses nor lints a file it loaded before.

An entry is one file's parsed value (its top-level mapping: kind, source, rows) and each row's
line, under a key of the file's path in the tree, the sha256 of its bytes and the sha256 of
ptxconf's code (the rules and the schema; ptxconf.core.outcome_cache.code_sha256): a file
edited by a byte, or a rule changed, is parsed and linted again. Only files that passed are
kept; a file with a problem is linted every time, so its `path:line: RULE - message` lines are
the same. The cross-file and derived rules run on every load (they read every file's rows).
Values JSON cannot hold as they are (a YAML timestamp, a set, bytes) keep their file out.

An entry is input from outside (a shared cache folder), read as every cache entry is
(ptxconf.core.trust): a regular file within `MAX_ENTRY_BYTES`, JSON of this version's shape
naming the file it answers, its digest binding the content to its key (an HMAC under
$PTXCONF_CACHE_KEY where set). Its rows are then built into records by the same schema code a
fresh load uses (a value of the wrong type fails there, and the file is linted instead).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ptxconf.core.atomic import write_atomic
from ptxconf.core.trust import cache_root, read_regular, sign

VERSION = 1
#: The largest entry read (a spec file is at most 1 MiB: ptxconf.oracle.lint.base).
MAX_ENTRY_BYTES = 4 << 20


def cache_dir() -> Path:
    """Where linted spec files are kept."""
    return cache_root() / "spec"


def _key(rel: str, digest: bytes) -> str:
    from ptxconf.core.outcome_cache import code_sha256

    return hashlib.sha256(f"{VERSION}\0{code_sha256()}\0{rel}\0{digest.hex()}".encode()).hexdigest()


def _body_bytes(body: dict[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":"), allow_nan=False).encode()


def get(rel: str, digest: bytes) -> tuple[dict[str, Any], list[int]] | None:
    """(the file's parsed value, each row's line) kept for this file's path and bytes, or None:
    none kept, or one that fails a check."""
    key = _key(rel, digest)
    path = cache_dir() / f"{key}.json"
    if not os.path.lexists(path):
        return None
    try:
        entry = json.loads(read_regular(path, MAX_ENTRY_BYTES).decode("utf-8"))
        if not isinstance(entry, dict) or entry.get("version") != VERSION:
            return None
        body = entry.get("body")
        if not isinstance(body, dict) or body.get("rel") != rel:
            return None
        data, lines = body.get("data"), body.get("lines")
        if (not isinstance(data, dict) or not isinstance(data.get("rows"), list)
                or not isinstance(lines, list) or len(lines) != len(data["rows"])
                or not all(type(n) is int and n > 0 for n in lines)
                or not all(isinstance(r, dict) for r in data["rows"])):
            return None
        if entry.get("digest") != sign(key, _body_bytes(body)):
            return None
    except (OSError, ValueError):
        return None
    return data, lines


def put(rel: str, digest: bytes, data: dict[str, Any], lines: list[int]) -> None:
    """Keep a file that passed every rule (written whole or not at all; a read-only cache, or a
    value JSON cannot hold as it is, only makes the next load lint it again)."""
    body = {"rel": rel, "data": data, "lines": lines}
    try:
        raw = _body_bytes(body)
    except (TypeError, ValueError):
        return
    if json.loads(raw) != body:  # held as it is, or not kept
        return
    key = _key(rel, digest)
    with contextlib.suppress(OSError):
        write_atomic(cache_dir() / f"{key}.json", b'{"version":%d,"body":%s,"digest":"%s"}' % (
            VERSION, raw, sign(key, raw).encode()))


__all__ = ["MAX_ENTRY_BYTES", "VERSION", "cache_dir", "get", "put"]
