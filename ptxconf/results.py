"""The one result model: every check, proof and probe reports a Result; every report reads them."""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

#: Version of the JSON written to results.json; bump it when a key changes meaning.
#: 2: `details` became `fields`; every result has a stable `code` and its `provider`.
SCHEMA_VERSION = 2


class Status(enum.StrEnum):
    """What a check found. UNKNOWN never passes."""

    PASS = "pass"
    FAIL = "fail"
    DISCREPANCY = "discrepancy"
    UNKNOWN = "unknown"
    SKIP = "skip"

    @property
    def failing(self) -> bool:
        """Whether this status makes a run fail (DISCREPANCY only under --strict)."""
        return self in (Status.FAIL, Status.UNKNOWN)


@dataclass(frozen=True)
class Result:
    """A case's outcome in a run, keyed by a test id that comes from spec rows.

    Built only by `ptxconf.cases.execute` / `skipped` and by the runner for a provider that
    cannot run; `code` is one of `ptxconf.cases.CODES`.
    """

    id: str
    check: str
    status: Status
    message: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    device: str | None = None
    code: str = "ok"
    provider: str = ""

    def to_json(self) -> dict[str, Any]:
        """A plain-JSON view of this result."""
        d = asdict(self)
        d["status"] = self.status.value
        return d


def summarize(results: Iterable[Result]) -> dict[str, int]:
    """Counts per status, every status present."""
    counts = {s.value: 0 for s in Status}
    for r in results:
        counts[r.status.value] += 1
    return counts


def dumps(results: list[Result], meta: dict[str, Any]) -> str:
    """results.json: schema version, run metadata, counts, and every result."""
    return json.dumps({
        "schema_version": SCHEMA_VERSION,
        "meta": meta,
        "summary": summarize(results),
        "results": [r.to_json() for r in results],
    }, indent=2, sort_keys=False, default=str)
