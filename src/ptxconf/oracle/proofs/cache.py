"""A disk cache of proof outcomes, so a warm rerun proves nothing it proved before.

The key is everything an outcome depends on: the claim's id and full statement, the solver's
version, the spec's content and the oracle's own code (every .py file of the `ptxconf.oracle`
package). Only decided outcomes (proved, refuted) are kept; unknown is always asked again.
The folder is $PTXCONF_CACHE_DIR or ~/.cache/ptxconf; `--no-cache` bypasses it.

A cache is input from outside: CI systems share cache folders between branches and pull
requests. Every entry is checked before it is used, and one that fails a check is not used
(the claim is proved again, and the run says which entries it rejected and why): it must be a
regular file (not a FIFO, a device or a symlink) of at most `MAX_ENTRY_BYTES`, JSON of this
version's shape, name the claim and statement it answers, hold a decided proof status, and
carry the digest of its content under its own key (an entry copied to another key, truncated
or edited by hand is rejected). An entry stores the proof's status, never the case's verdict:
the verdict is derived again from the claim (proved passes; refuted is a discrepancy or a
failure as the claim says), so an entry cannot turn a refutation into a skip or a pass it
does not state. A plain digest cannot stop a forged entry written by someone who knows this
format; with $PTXCONF_CACHE_KEY set (a CI secret) the digest is an HMAC, and an entry written
without the secret fails it. With or without a key, a claim with a known finding takes only a
cached refutation (what its finding records; a cached proof of it is proved again), so a cache
never turns a finding into a pass; `--no-cache` proves everything.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ptxconf.core import tool_stamp
from ptxconf.core.atomic import write_atomic
from ptxconf.core.trust import KEY_ENV, cache_root, read_regular, sign
from ptxconf.oracle.spec import Spec, spec_sha256

CACHE_VERSION = 2
#: The largest entry read (the largest real entries are a few KiB).
MAX_ENTRY_BYTES = 1 << 20
#: The proof statuses an entry may hold: decided ones.
DECIDED = ("proved", "refuted")


def cache_dir() -> Path:
    """Where proof outcomes are kept."""
    return cache_root() / "proofs"


def _code_hash() -> str:
    """sha256 of ptxconf's source (ptxconf.core.outcome_cache.code_sha256, hashed once a process
    for both caches): any change to it invalidates the cache."""
    from ptxconf.core.outcome_cache import code_sha256

    return code_sha256()


def _z3_query() -> dict[str, Any]:
    try:
        import z3
    except Exception as exc:  # noqa: BLE001 - any import failure is the reason to skip
        return {"problem": f"z3 is not importable ({type(exc).__name__}: {exc}); "
                           "pip install z3-solver", "version": None}
    return {"problem": None, "version": str(z3.get_version_string())}


def _z3_valid(answer: Any) -> bool:
    if not isinstance(answer, dict) or set(answer) != {"problem", "version"}:
        return False
    problem, version = answer["problem"], answer["version"]
    return (isinstance(version, str) and problem is None) or (
        isinstance(problem, str) and version is None)


def solver_facts() -> tuple[str | None, str | None]:
    """(why Z3 cannot be imported, or None; its version, or None), kept by
    ptxconf.core.tool_stamp: Z3 is imported only where the files it was read from, or what
    decides which files those are, changed (a warm run whose proofs all come from the cache
    imports no Z3)."""
    answer = tool_stamp.kept("z3", _z3_query, packages=("z3",), libraries=("libz3",),
                             modules=("z3", "z3.z3core"), valid=_z3_valid)
    return answer["problem"], answer["version"]


def z3_problem() -> str | None:
    """Why Z3 cannot be used here (None when it can): the proofs provider's requirement."""
    return solver_facts()[0]


def _solver() -> str:
    problem, version = solver_facts()
    if version is None:
        raise RuntimeError(problem)
    return version


def _digest(key: str, body: dict[str, Any]) -> str:
    """The digest of an entry's content under its key (ptxconf.core.trust.sign)."""
    return sign(key, json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode())


class ProofCache:
    """Decided proof outcomes by key, in one small JSON file a claim, checked on every read."""

    def __init__(self, spec: Spec, root: Path | None = None) -> None:
        self.root = root or cache_dir()
        self.base = f"{CACHE_VERSION}\0{_solver()}\0{_code_hash()}\0{spec_sha256(spec)}"
        #: (claim id, why) of each entry found and not used.
        self.rejected: list[tuple[str, str]] = []

    def _key(self, claim_id: str, statement: str, timeout_s: float) -> str:
        return hashlib.sha256(f"{self.base}\0{claim_id}\0{statement}\0{timeout_s}".encode()).hexdigest()

    def _path(self, claim_id: str, statement: str, timeout_s: float) -> Path:
        return self.root / f"{self._key(claim_id, statement, timeout_s)}.json"

    def get(self, claim_id: str, statement: str, timeout_s: float) -> dict[str, Any] | None:
        """A stored outcome that passes every check ({"proof_status", "message", "fields"}),
        or None: none stored, or one rejected (`rejected` says why)."""
        entry, why = self.peek(claim_id, statement, timeout_s)
        if why is not None:
            self.rejected.append((claim_id, why))
        return entry

    def peek(self, claim_id: str, statement: str, timeout_s: float
             ) -> tuple[dict[str, Any] | None, str | None]:
        """(the stored outcome that passes every check, or None; why one stored was rejected,
        or None), counting nothing: what a planner asks before the case itself does."""
        key = self._key(claim_id, statement, timeout_s)
        path = self.root / f"{key}.json"
        if not os.path.lexists(path):
            return None, None
        try:
            return self._checked(path, key, claim_id, statement), None
        except (OSError, ValueError) as exc:
            return None, str(exc) or type(exc).__name__

    @staticmethod
    def _checked(path: Path, key: str, claim_id: str, statement: str) -> dict[str, Any]:
        """The entry at `path` if it answers this claim under this key; ValueError why not."""
        data = json.loads(read_regular(path, MAX_ENTRY_BYTES).decode("utf-8"))
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            raise ValueError(f"not a version-{CACHE_VERSION} entry")
        body = {k: data.get(k) for k in ("id", "statement", "proof_status", "message", "fields")}
        if body["id"] != claim_id or body["statement"] != statement:
            raise ValueError("it answers another claim")
        if body["proof_status"] not in DECIDED:
            raise ValueError(f"proof status {body['proof_status']!r} is not one of {list(DECIDED)}")
        fields = body["fields"]
        if not isinstance(body["message"], str) or not isinstance(fields, dict):
            raise ValueError("message or fields of the wrong type")
        if fields.get("proof_status") != body["proof_status"]:
            raise ValueError("its fields state another proof status")
        if data.get("digest") != _digest(key, body):
            raise ValueError("its digest does not match its content and key")
        return {"proof_status": body["proof_status"], "message": body["message"], "fields": fields}

    def put(self, claim_id: str, statement: str, timeout_s: float, proof_status: str,
            message: str, fields: dict[str, Any]) -> None:
        """Keep a decided outcome (written whole or not at all; a read-only cache is skipped;
        an undecided one is never kept)."""
        if proof_status not in DECIDED:
            return
        key = self._key(claim_id, statement, timeout_s)
        path = self.root / f"{key}.json"
        body = json.loads(json.dumps({"id": claim_id, "statement": statement,
                                      "proof_status": proof_status, "message": message,
                                      "fields": {**fields, "proof_status": proof_status}},
                                     default=str))
        with contextlib.suppress(OSError):
            write_atomic(path, json.dumps({"version": CACHE_VERSION, **body,
                                           "digest": _digest(key, body)}))


__all__ = ["DECIDED", "KEY_ENV", "MAX_ENTRY_BYTES", "ProofCache", "cache_dir", "solver_facts",
           "z3_problem"]
