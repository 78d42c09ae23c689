"""Results of deterministic cases kept on disk, so that a warm run computes them again only
where what they depend on changed.

A provider whose cases depend only on the spec, ptxconf's own code and (where it says so) the
tools it runs (the self-consistency checks; the assembler witness, with NVRTC's and the
driver's versions) keeps each decided result here under a key of all of those: the spec's
sha256, the sha256 of every source file of the ptxconf package (`code_sha256`) and the
provider's own part. The folder is $PTXCONF_CACHE_DIR/outcomes (or ~/.cache/ptxconf/outcomes);
`--no-cache` bypasses it.

A cache is input from outside (CI systems share cache folders), so an entry is read as the
proof cache reads one (ptxconf.core.trust): a regular file within `MAX_ENTRY_BYTES`, JSON of
this version naming the case it answers, a status and code that may be kept, and the digest
of its content under its key (an HMAC under $PTXCONF_CACHE_KEY where that is set). An entry
that fails a check is not used: the case runs, and its result says why (`cache_rejected`).
Only pass, fail and discrepancy are kept (never a skip, an unknown, or a body that raised);
the caller (ptxconf.app.run) takes for a case with a known finding only a kept discrepancy,
which the finding judges as it judges a fresh one, so a cache cannot turn a finding into a
pass.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ptxconf.core.atomic import write_atomic
from ptxconf.core.cases import CODES
from ptxconf.core.results import Result, Status, plain_result
from ptxconf.core.trust import cache_root, read_regular, sign, tree_sha256

VERSION = 1
#: The largest entry read (real ones are a few KiB; a map-bearing result some tens).
MAX_ENTRY_BYTES = 1 << 20
#: The statuses a kept result may have: decided ones.
KEPT = (Status.PASS, Status.FAIL, Status.DISCREPANCY)
#: The name a provider's listing of its case ids is kept under (no case id has a NUL).
LISTING = "\0listing"
#: The package whose source every key covers.
PACKAGE = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    """Where case results are kept."""
    return cache_root() / "outcomes"


@functools.cache
def code_sha256() -> str:
    """sha256 of every source file of the ptxconf package (Python, kernels, templates; the
    bundled spec is keyed separately, by the spec a run uses)."""
    return tree_sha256(PACKAGE, lambda rel: rel.parts[0] != "spec" and "__pycache__" not in rel.parts)


def _canonical(result: dict[str, Any]) -> bytes:
    return json.dumps(result, sort_keys=True, separators=(",", ":")).encode()


class OutcomeCache:
    """Kept results of one provider's cases, under one base key (spec, code, provider)."""

    def __init__(self, base: str, root: Path | None = None) -> None:
        self.root = root or cache_dir()
        self.base = f"{VERSION}\0{code_sha256()}\0{base}"

    def _key(self, case_id: str) -> str:
        return hashlib.sha256(f"{self.base}\0{case_id}".encode()).hexdigest()

    def get(self, case_id: str) -> tuple[Result | None, str | None]:
        """(the kept result, marked `cached`, or None; why a kept one was not used, or None)."""
        key = self._key(case_id)
        path = self.root / f"{key}.json"
        if not os.path.lexists(path):
            return None, None
        try:
            result = self._checked(path, key, case_id)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            return None, str(exc) or type(exc).__name__
        return result, None

    @staticmethod
    def _checked(path: Path, key: str, case_id: str) -> Result:
        data = json.loads(read_regular(path, MAX_ENTRY_BYTES).decode("utf-8"))
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise ValueError(f"not a version-{VERSION} entry")
        kept = data.get("result")
        if not isinstance(kept, dict) or kept.get("id") != case_id:
            raise ValueError("it answers another case")
        status = Status(kept["status"])
        if status not in KEPT or kept.get("code") not in CODES or kept["code"] == "raised":
            raise ValueError(f"a {status.value} ({kept.get('code')}) result is never kept")
        if data.get("digest") != sign(key, _canonical(kept)):
            raise ValueError("its digest does not match its content and key")
        fields = kept["fields"]
        if not isinstance(fields, dict) or not isinstance(kept["message"], str):
            raise ValueError("message or fields of the wrong type")
        return Result(case_id, str(kept["check"]), status, kept["message"],
                      {**fields, "cached": True}, 0.0, kept.get("device"), kept["code"],
                      str(kept["provider"]))

    def listing(self) -> tuple[list[str] | None, str | None]:
        """(the case ids of the provider's last complete run, in order, or None; why a kept
        listing was not used, or None). With it, a warm run reads every kept result without
        importing the provider to list its cases again."""
        key = self._key(LISTING)
        path = self.root / f"{key}.json"
        if not os.path.lexists(path):
            return None, None
        try:
            data = json.loads(read_regular(path, MAX_ENTRY_BYTES).decode("utf-8"))
            if not isinstance(data, dict) or data.get("version") != VERSION:
                raise ValueError(f"not a version-{VERSION} listing")
            ids = data.get("listing")
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise ValueError("its listing is not a list of case ids")
            if len(set(ids)) != len(ids) or data.get("digest") != sign(key, _canonical({"ids": ids})):
                raise ValueError("its digest does not match its content and key")
        except (OSError, ValueError, TypeError, KeyError) as exc:
            return None, str(exc) or type(exc).__name__
        return ids, None

    def put_listing(self, ids: list[str]) -> None:
        """Keep the case ids of a complete run of the provider (see `listing`)."""
        key = self._key(LISTING)
        with contextlib.suppress(OSError):
            write_atomic(self.root / f"{key}.json", json.dumps(
                {"version": VERSION, "listing": ids, "digest": sign(key, _canonical({"ids": ids}))}))

    def put(self, result: Result) -> None:
        """Keep a decided result (written whole or not at all; a read-only or full cache only
        makes the next run slower)."""
        if result.status not in KEPT or result.code == "raised":
            return
        plain = {**plain_result(result), "seconds": 0.0}
        key = self._key(result.id)
        with contextlib.suppress(OSError):
            write_atomic(self.root / f"{key}.json", json.dumps(
                {"version": VERSION, "result": plain, "digest": sign(key, _canonical(plain))}))


__all__ = ["KEPT", "LISTING", "MAX_ENTRY_BYTES", "OutcomeCache", "cache_dir", "code_sha256"]
