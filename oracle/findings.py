"""Known findings (oracle/findings.yaml) and the judgement of a discrepancy against them.

A finding is keyed by case id and by the structured fields of the case's outcome, never by its
message text: `judge` turns a DISCREPANCY into a known one (it passes unless --strict), a new one
(`finding_new`, FAIL), a changed one (`finding_changed`, FAIL), and a listed case that passes into
`finding_stale` (FAIL).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

import yaml

from ptxconf.results import Result, Status

FINDINGS_FILE = "oracle/findings.yaml"


@dataclass(frozen=True)
class Finding:
    """Why the documents disagree, and the fields of the outcome that show it."""

    name: str
    cases: tuple[str, ...]
    fields: Mapping[str, Any]
    explanation: str
    seen_on: tuple[str, ...] = ()


@functools.cache
def known_findings() -> dict[str, Finding]:
    """Case id -> its finding, from the packaged findings file."""
    text = resources.files("ptxconf.oracle").joinpath("findings.yaml").read_text(encoding="utf-8")
    by_case: dict[str, Finding] = {}
    names: set[str] = set()
    for raw in yaml.safe_load(text)["findings"]:
        f = Finding(raw["name"], tuple(raw["cases"]), raw["fields"], " ".join(raw["explanation"].split()),
                    tuple(raw.get("seen_on", ())))
        if f.name in names:
            raise ValueError(f"{FINDINGS_FILE}: finding {f.name!r} is listed twice")
        names.add(f.name)
        for cid in f.cases:
            if cid in by_case:
                raise ValueError(f"{FINDINGS_FILE}: case {cid} has two findings")
            by_case[cid] = f
    return by_case


def explain(case_id: str) -> Finding | None:
    """The known finding of a case id, or None."""
    return known_findings().get(case_id)


def _plain(value: Any) -> Any:
    """A JSON-shaped copy (tuples as lists) so YAML and outcome fields compare."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


_MISSING = object()


def _lookup(fields: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = fields
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return _MISSING
        cur = cur[part]
    return cur


def field_differences(finding: Finding, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The recorded fields whose value the outcome no longer has: {key: {recorded, now}}."""
    out = {}
    for key, want in finding.fields.items():
        got = _lookup(fields, key)
        if got is _MISSING or _plain(got) != _plain(want):
            out[key] = {"recorded": want, "now": None if got is _MISSING else _plain(got)}
    return out


def judge(result: Result) -> Result:
    """A result against the known findings: known, new, changed or stale."""
    known = explain(result.id)
    if result.status is Status.DISCREPANCY:
        if known is None:
            return replace(result, status=Status.FAIL, code="finding_new",
                           message=f"new spec discrepancy (not in {FINDINGS_FILE}): {result.message}",
                           fields={**result.fields, "discrepancy_code": result.code})
        diff = field_differences(known, result.fields)
        if diff:
            return replace(result, status=Status.FAIL, code="finding_changed",
                           message=f"known finding {known.name} changed: "
                                   + "; ".join(f"{k}: recorded {v['recorded']!r}, now {v['now']!r}"
                                               for k, v in diff.items()),
                           fields={**result.fields, "finding_changed": diff})
        return replace(result, code="finding_known",
                       fields={**result.fields, "finding": known.name,
                               "explanation": known.explanation, "discrepancy_code": result.code})
    if known is not None and result.status is Status.PASS:
        return replace(result, status=Status.FAIL, code="finding_stale",
                       message=f"known finding {known.name} no longer happens (the case passes: "
                               f"{result.message}); remove it from {FINDINGS_FILE}",
                       fields={**result.fields, "finding": known.name})
    return result


__all__ = ["FINDINGS_FILE", "Finding", "explain", "field_differences", "judge", "known_findings"]
