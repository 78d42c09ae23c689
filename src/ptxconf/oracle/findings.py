"""Known findings (a spec tree's `findings.yaml`) and the judgement of a discrepancy against them.

A finding is keyed by case id and by the structured fields of the case's outcome, never by its
message text: `Findings.judge` turns a DISCREPANCY into a known one (it passes unless --strict),
a new one (`finding_new`, FAIL), a changed one (`finding_changed`, FAIL), and a listed case that
passes into `finding_stale` (FAIL). Findings travel with their spec: the file sits at the root of
the spec tree (`FINDINGS_NAME`), or `--findings FILE` names another.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ptxconf.core.results import Result, Status
from ptxconf.oracle.lint.base import MAX_FILE_BYTES, SpecError, compose_file
from ptxconf.oracle.locate import BUNDLED_SPEC_DIR

#: The findings file's name at the root of a spec tree (it holds no spec rows).
FINDINGS_NAME = "findings.yaml"


@dataclass(frozen=True)
class Finding:
    """Why the documents disagree, and the fields of the outcome that show it."""

    name: str
    cases: tuple[str, ...]
    fields: Mapping[str, Any]
    explanation: str
    seen_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class Findings:
    """The known findings of one spec: case id -> finding, and the file they came from."""

    path: str = "(no findings file)"
    by_case: Mapping[str, Finding] = field(default_factory=dict)

    def explain(self, case_id: str) -> Finding | None:
        """The known finding of a case id, or None."""
        return self.by_case.get(case_id)

    def judge(self, result: Result) -> Result:
        """A result against these findings: known, new, changed or stale."""
        known = self.explain(result.id)
        if result.status is Status.DISCREPANCY:
            if known is None:
                return replace(result, status=Status.FAIL, code="finding_new",
                               message=f"new spec discrepancy (not in {self.path}): {result.message}",
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
                                   f"{result.message}); remove it from {self.path}",
                           fields={**result.fields, "finding": known.name})
        return result


_KEYS = {"name": str, "cases": list, "fields": dict, "explanation": str}


#: The findings of each findings file that loaded, by the sha256 of its bytes (what it holds
#: does not depend on where it lies: the spec copies the tests edit carry the bundled file), so
#: a process that loads one tree many times (in-process commands, the tests) parses it once.
#: At most LOADED_FINDINGS entries, least recently used dropped first.
_LOADED: OrderedDict[bytes, Mapping[str, Finding]] = OrderedDict()
LOADED_FINDINGS = 64
_LOADED_LOCK = threading.Lock()


def forget_findings() -> None:
    """Empty the memory of loaded findings files (a cold load parses them again)."""
    with _LOADED_LOCK:
        _LOADED.clear()


def _content_key(path: Path) -> bytes | None:
    """The sha256 of a regular file's bytes within the size limit; None for anything else
    (loaded, and refused, as it always is)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
            return None
        raw = Path(path).read_bytes()
    except OSError:
        return None
    return hashlib.sha256(raw).digest() if len(raw) <= MAX_FILE_BYTES else None


def load_findings(path: Path) -> Findings:
    """A findings file, checked: each problem a SpecError (`path:line: SPEC-FINDINGS - ...`).
    A file whose very bytes loaded before is not parsed again."""
    key = _content_key(path)
    if key is not None:
        with _LOADED_LOCK:
            known = _LOADED.get(key)
            if known is not None:
                _LOADED.move_to_end(key)
                return Findings(str(path), known)
    loaded = _load_findings(path)
    if key is not None:
        with _LOADED_LOCK:
            _LOADED[key] = loaded.by_case
            while len(_LOADED) > LOADED_FINDINGS:
                _LOADED.popitem(last=False)
    return loaded


def _load_findings(path: Path) -> Findings:
    """`load_findings`' parse and checks."""
    shown = str(path)

    def error(line: int, message: str) -> SpecError:
        return SpecError(shown, line, "SPEC-FINDINGS", message)

    node, data = compose_file(path, shown, limit_bytes=MAX_FILE_BYTES)
    entries = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not isinstance(node, yaml.MappingNode):
        raise error(1, "a findings file is a mapping with one key, findings: a list of entries")
    seq = next(v for k, v in node.value if k.value == "findings")
    by_case: dict[str, Finding] = {}
    names: set[str] = set()
    for item_node, raw in zip(seq.value, entries, strict=True):
        line = item_node.start_mark.line + 1
        if not isinstance(raw, dict):
            raise error(line, "expected a finding (name, cases, fields, explanation)")
        for key, kind in _KEYS.items():
            if not isinstance(raw.get(key), kind):
                raise error(line, f"finding {raw.get('name')!r}: expected {key} as a "
                                  f"{kind.__name__}, got {type(raw.get(key)).__name__}")
        for key in ("cases", "seen_on"):  # lists of text (seen_on may be left out)
            items = raw.get(key, [])
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise error(line, f"finding {raw['name']!r}: expected {key} as a list of strings, "
                                  f"got {items!r}")
        if not raw["cases"]:
            raise error(line, f"finding {raw['name']!r}: expected at least one case id in cases")
        f = Finding(raw["name"], tuple(raw["cases"]), raw["fields"],
                    " ".join(raw["explanation"].split()), tuple(raw.get("seen_on", ())))
        if f.name in names:
            raise error(line, f"finding {f.name!r} is listed twice")
        names.add(f.name)
        for cid in f.cases:
            if cid in by_case:
                raise error(line, f"case {cid} has two findings ({by_case[cid].name}, {f.name})")
            by_case[cid] = f
    return Findings(shown, by_case)


def spec_findings(root: Path) -> Findings:
    """The findings a spec tree carries (none where it has no findings file)."""
    path = Path(root) / FINDINGS_NAME
    return load_findings(path) if path.is_file() else Findings(f"{path} (absent)")


@functools.cache
def bundled_findings() -> Findings:
    """The findings of the bundled spec."""
    return spec_findings(BUNDLED_SPEC_DIR)


def known_findings() -> Mapping[str, Finding]:
    """Case id -> its finding, for the bundled spec."""
    return bundled_findings().by_case


def explain(case_id: str) -> Finding | None:
    """The bundled spec's known finding of a case id, or None."""
    return bundled_findings().explain(case_id)


def judge(result: Result, findings: Findings | None = None) -> Result:
    """A result against `findings` (default: the bundled spec's)."""
    return (findings or bundled_findings()).judge(result)


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


__all__ = ["FINDINGS_NAME", "Finding", "Findings", "bundled_findings", "explain", "field_differences",
           "judge", "known_findings", "load_findings", "spec_findings"]
