"""A disk cache of proof outcomes, so a warm rerun proves nothing it proved before.

The key is everything an outcome depends on: the claim's id and full statement, the solver's
version, the spec's content and the oracle's own code (every .py file of the `ptxconf.oracle`
package). Only decided outcomes (proved, refuted) are kept; unknown is always asked again.
The folder is $PTXCONF_CACHE_DIR or ~/.cache/ptxconf; `--no-cache` bypasses it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ptxconf.oracle.spec import Spec, spec_sha256

CACHE_VERSION = 1


def cache_dir() -> Path:
    """Where proof outcomes are kept."""
    root = os.environ.get("PTXCONF_CACHE_DIR") or Path.home() / ".cache" / "ptxconf"
    return Path(root) / "proofs"


@functools.cache
def _code_hash() -> str:
    """sha256 of the oracle package's Python source (any change to it invalidates the cache)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


@functools.cache
def _solver() -> str:
    import z3

    return str(z3.get_version_string())


class ProofCache:
    """Outcomes by key, in one small JSON file a claim."""

    def __init__(self, spec: Spec, root: Path | None = None) -> None:
        self.root = root or cache_dir()
        self.base = f"{CACHE_VERSION}\0{_solver()}\0{_code_hash()}\0{spec_sha256(spec)}"
        self.hits = 0

    def _path(self, claim_id: str, statement: str, timeout_s: float) -> Path:
        key = hashlib.sha256(f"{self.base}\0{claim_id}\0{statement}\0{timeout_s}".encode())
        return self.root / f"{key.hexdigest()}.json"

    def get(self, claim_id: str, statement: str, timeout_s: float) -> dict[str, Any] | None:
        """A stored outcome, or None."""
        try:
            data = json.loads(self._path(claim_id, statement, timeout_s).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("id") != claim_id:
            return None
        self.hits += 1
        return data

    def put(self, claim_id: str, statement: str, timeout_s: float, outcome: dict[str, Any]) -> None:
        """Keep a decided outcome (written whole or not at all; a read-only cache is skipped)."""
        path = self._path(claim_id, statement, timeout_s)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"id": claim_id, **outcome}, fh, default=str)
            os.replace(tmp, path)
        except OSError:
            return


__all__ = ["ProofCache", "cache_dir"]
