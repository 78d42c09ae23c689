"""The one result model: every check, proof and probe reports a Result; every report reads them."""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, is_dataclass
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

    def fails_run(self, strict: bool) -> bool:
        """Whether this status fails a run: `failing`, and DISCREPANCY too under --strict."""
        return self.failing or (strict and self is Status.DISCREPANCY)


@dataclass(frozen=True)
class Result:
    """A case's outcome in a run, keyed by a test id that comes from spec rows.

    Built only by `ptxconf.core.cases.execute` / `skipped` and by the runner for a provider that
    cannot run; `code` is one of `ptxconf.core.cases.CODES`.
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
        """A plain-JSON view of this result (`fields` as they are: `dumps` writes what JSON
        cannot hold as text)."""
        return {"id": self.id, "check": self.check, "status": self.status.value,
                "message": self.message, "fields": self.fields, "seconds": self.seconds,
                "device": self.device, "code": self.code, "provider": self.provider}


def plain_result(result: Result) -> dict[str, Any]:
    """A result as results.json holds it (plain JSON: tuples as lists, dataclasses as dicts)."""
    plain: dict[str, Any] = json.loads(json.dumps(result.to_json(), default=_plain))
    return plain


def result_digest(result: Result) -> str:
    """sha256 of a result as results.json holds it (the same before writing and after reading
    back): what an interrupted run records, so that `--resume` keeps only what it wrote."""
    return hashlib.sha256(json.dumps(plain_result(result), sort_keys=True).encode()).hexdigest()


def summarize(results: Iterable[Result]) -> dict[str, int]:
    """Counts per status, every status present."""
    counts = {s.value: 0 for s in Status}
    for r in results:
        counts[r.status.value] += 1
    return counts


def _plain(value: Any) -> Any:
    """What JSON cannot hold, as JSON can: a dataclass as its fields, anything else as text."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return str(value)


_LINE = json.JSONEncoder(default=_plain, separators=(", ", ": "))


def result_line(result: Result) -> str:
    """A result as one line of results.json (compact JSON, `_plain` for what JSON cannot hold)."""
    return _LINE.encode(result.to_json())


def dumps(results: list[Result], meta: dict[str, Any],
          line: Callable[[Result], str] = result_line) -> str:
    """results.json: schema version, run metadata, counts, and every result, one result a line
    (compact, so that a line is a result for grep and diff, and fast to write); `line`: a
    result's line (`result_line`, or one worked out ahead: `ptxconf.app.report_ahead`)."""
    head = json.dumps({"schema_version": SCHEMA_VERSION, "meta": meta,
                       "summary": summarize(results)}, indent=2, default=_plain)
    lines = ",\n".join("    " + line(r) for r in results)
    body = f'"results": [\n{lines}\n  ]' if results else '"results": []'
    return head[:-2] + ",\n  " + body + "\n}"
