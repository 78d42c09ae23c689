"""SPEC-SOURCE: every file names its kind and where its facts come from."""

from __future__ import annotations

import dataclasses

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument, SpecError

REQUIRED = ("document", "ptx_isa_version", "anchor", "section")
OPTIONAL = ("table", "columns", "row_count")  # row_count: SPEC-ROWS (rows.py)


class SourceRule:
    """The top level has kind, source (document, ptx_isa_version, anchor, section) and rows."""

    rule_id = "SPEC-SOURCE"

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Report a missing or malformed source block or top-level key."""
        errors: list[SpecError] = []
        for key in sorted(set(doc.data) - {"kind", "source", "rows"}):
            errors.append(self._err(doc, doc.top_lines.get(key, 1), f"unknown top-level key '{key}'"
                                    " (expected kind, source, rows)"))
        for key in ("kind", "source", "rows"):
            if key not in doc.data:
                errors.append(self._err(doc, 1, f"missing top-level key '{key}'"))
        if not isinstance(doc.data.get("rows", []), list) or not doc.data.get("rows"):
            errors.append(self._err(doc, doc.top_lines.get("rows", 1),
                                    "rows: expected a non-empty list of rows"))
        source = doc.data.get("source")
        line = doc.top_lines.get("source", 1)
        if "source" in doc.data and not isinstance(source, dict):
            errors.append(self._err(doc, line, "source: expected a mapping"))
        elif isinstance(source, dict):
            for key in REQUIRED:
                value = source.get(key)
                if not isinstance(value, str) or not value.strip():
                    errors.append(self._err(doc, line, f"source.{key}: expected a non-empty string,"
                                            f" got {value!r}"))
            for key in sorted(set(source) - set(REQUIRED) - set(OPTIONAL)):
                errors.append(self._err(doc, line, f"source: unknown key '{key}'"))
            errors.extend(self._columns(doc, source.get("columns"), line))
        return errors

    def _columns(self, doc: RawDocument, columns: object, line: int) -> list[SpecError]:
        """source.columns: {column of the kind: where its values come from (non-empty)}."""
        if columns is None:
            return []
        if not isinstance(columns, dict):
            return [self._err(doc, line, "source.columns: expected a mapping of column to "
                                         "where its values come from")]
        cls = records.RECORD_KINDS.get(str(doc.data.get("kind")))
        names = {f.name for f in dataclasses.fields(cls)} if cls is not None else set()
        errors = []
        for key, why in columns.items():
            if cls is not None and key not in names:
                errors.append(self._err(doc, line, f"source.columns: '{key}' is not a column of "
                                                   f"kind {cls.KIND}"))
            if not isinstance(why, str) or not why.strip():
                errors.append(self._err(doc, line, f"source.columns.{key}: expected where the "
                                                   f"column comes from, got {why!r}"))
        return errors

    def _err(self, doc: RawDocument, line: int, message: str) -> SpecError:
        return SpecError(doc.path, line, self.rule_id, message)
