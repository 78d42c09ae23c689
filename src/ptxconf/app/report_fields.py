"""What report.html shows of a result's fields in a collapsed row: the fields on one line where
they are small (`fields_view`), and the first `ptxconf oracle` line a passing case's family
draws its picture from (`first_oracle`). Worked out per result, so that a run can work them out
ahead (`ptxconf.app.report_ahead`, a `Worked`) while it waits on its GPU jobs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from ptxconf.app.report_pictures import oracle_commands
from ptxconf.core.results import Result, Status

#: A passing case's fields are inlined in report.html only below this many characters of JSON.
SMALL_FIELDS_CHARS = 300
#: Fields report.html shows elsewhere in a case's row (its reproduce lines), not among its fields.
_REPRODUCE_KEYS = ("reproduce", "reproduce_also")


def short_fields(fields: Mapping[str, Any]) -> str:
    """A small field mapping on one line: `key: value · key: value`."""
    parts = []
    for k, v in fields.items():
        if v is None:
            continue
        parts.append(f"{k}: {v if isinstance(v, str) else json.dumps(v, default=str)}")
    return " · ".join(parts)


def fields_view(result: Result) -> tuple[str | None, bool]:
    """What a collapsed row of report.html shows of a (reproduced) result's own fields: (the
    fields on one line where they are small, else None; whether they are too large to show)."""
    own = {k: x for k, x in result.fields.items() if k not in _REPRODUCE_KEYS}
    if not own:
        return None, False
    if len(json.dumps(own, default=str)) < SMALL_FIELDS_CHARS:
        return short_fields(own), False
    return None, True


def first_oracle(result: Result) -> str | None:
    """A passing result's first `ptxconf oracle` line (its family's picture is drawn from the
    first of these): None for any other status or where it has none."""
    if result.status is not Status.PASS:
        return None
    return next(oracle_commands(result.fields), None)


class Worked(Protocol):
    """Per-result answers worked out ahead (`ptxconf.app.report_ahead.Ahead`)."""

    def fields_view(self, result: Result) -> tuple[str | None, bool]: ...

    def first_oracle(self, result: Result) -> str | None: ...


__all__ = ["SMALL_FIELDS_CHARS", "Worked", "fields_view", "first_oracle", "short_fields"]
