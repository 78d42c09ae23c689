"""The claims of a spec as a warm run reads them: kept beside the proof cache, so that a run
whose every claim is answered by the cache neither generates the claims nor imports the
modules that do (the encodings, the oracle they check against, NumPy).

The listing of a spec is each claim's name, key, statement and the generator that makes it
(`MODULES`, in `claims.GENERATORS` order), under a key of the proof cache's base (solver,
ptxconf's code, spec) and the timeout. It is input from outside, read as a cache entry is
(ptxconf.core.trust: a regular file within `MAX_LISTING_BYTES`, this version's shape, the
digest of its content under its key). It only says which entries to read: each entry is checked
as `ProofCache` checks it, and a claim whose cached outcome is not a plain proof (a
refutation, which must re-check its counterexample; a claim with a known finding) is generated
by its own module and judged as `cases.claim_case` judges it. Where any wanted claim has no
cached outcome, the caller generates every claim as before (and proves the missing ones in its
pool).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ptxconf.core.atomic import write_atomic
from ptxconf.core.trust import read_regular, sign

if TYPE_CHECKING:
    from ptxconf.oracle.proofs.cache import ProofCache
    from ptxconf.oracle.proofs.runner import Claim
    from ptxconf.oracle.spec import Spec

VERSION = 1
#: The largest listing read (the bundled spec's is about 100 KiB).
MAX_LISTING_BYTES = 16 << 20
#: The modules of `ptxconf.oracle.proofs` whose `claims(spec)` generate the claims, in
#: `claims.GENERATORS` order (conformance/test_proof_listing.py holds the two equal).
MODULES = ("swizzles", "layouts", "examples", "descriptors", "banks", "wmma_rules", "distinguish",
           "synthesis", "warp_matrix", "tma_writes", "mma_fragments")


@dataclass(frozen=True)
class Listed:
    """One claim as the listing holds it: enough to find its cache entry and its generator."""

    name: str
    key: str
    statement: str
    module: int

    @property
    def id(self) -> str:
        """The claim's (and its case's) id, as `Claim.id`."""
        return f"proof.{self.name}[{self.key}]"


def _key(store: ProofCache, timeout_s: float) -> str:
    return hashlib.sha256(f"{store.base}\0listing\0{timeout_s}".encode()).hexdigest()


def _body(entries: Iterable[Listed]) -> bytes:
    rows = [[e.name, e.key, e.statement, e.module] for e in entries]
    return json.dumps(rows, separators=(",", ":")).encode()


def put(store: ProofCache, timeout_s: float, claims: Iterable[tuple[int, Claim]]) -> None:
    """Keep the listing of a spec's claims (written whole or not at all; a read-only cache only
    makes the next run slower)."""
    entries = [Listed(c.name, c.key, c.statement, module) for module, c in claims]
    key = _key(store, timeout_s)
    body = _body(entries)
    with contextlib.suppress(OSError):
        write_atomic(store.root / "listings" / f"{key}.json", json.dumps(
            {"version": VERSION, "claims": json.loads(body), "digest": sign(key, body)}))


def get(store: ProofCache, timeout_s: float) -> list[Listed] | None:
    """The kept listing, or None: none kept, or one that fails a check."""
    key = _key(store, timeout_s)
    path = store.root / "listings" / f"{key}.json"
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(read_regular(path, MAX_LISTING_BYTES).decode("utf-8"))
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return None
        rows = data.get("claims")
        if not isinstance(rows, list):
            return None
        entries = [_entry(row) for row in rows]
    except (OSError, ValueError, TypeError):
        return None
    if data.get("digest") != sign(key, _body(entries)) or len({e.id for e in entries}) != len(entries):
        return None
    return entries


def _entry(row: Any) -> Listed:
    """A listing row; ValueError where it has another shape."""
    if (not isinstance(row, list) or len(row) != 4 or not all(isinstance(x, str) for x in row[:3])
            or type(row[3]) is not int or not 0 <= row[3] < len(MODULES)):
        raise ValueError("a listing row of another shape")
    return Listed(row[0], row[1], row[2], row[3])


def generated(spec: Spec, module: int) -> dict[str, Claim]:
    """The claims one generator module makes of the spec, by id."""
    gen: Callable[[Spec], Iterable[Claim]] = importlib.import_module(
        f"ptxconf.oracle.proofs.{MODULES[module]}").claims
    return {c.id: c for c in gen(spec)}


__all__ = ["MAX_LISTING_BYTES", "MODULES", "Listed", "generated", "get", "put"]
