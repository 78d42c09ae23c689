"""SPEC-ID: ids are present, unique within their file, and agree with the facts they encode."""

from __future__ import annotations

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument, RawRow, SpecError
from ptxconf.oracle.lint.schema import SchemaError, built_row

ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


class IdRule:
    """Every row has a unique, well-formed id; an id that encodes facts is recomputed."""

    rule_id = "SPEC-ID"

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Report missing, malformed, duplicate and disagreeing ids."""
        cls = records.RECORD_KINDS.get(str(doc.data.get("kind")))
        errors: list[SpecError] = []
        seen: dict[str, int] = {}
        for row in doc.rows:
            rid = row.data.get("id")
            line = row.line_of("id")
            if not isinstance(rid, str) or not rid:
                errors.append(SpecError(doc.path, row.line, self.rule_id,
                                        f"row without a string id (got {rid!r})"))
                continue
            if not set(rid) <= ID_CHARS:
                errors.append(SpecError(doc.path, line, self.rule_id,
                                        f"id {rid!r}: only letters, digits, '_', '.', '-'"))
            if rid in seen:
                errors.append(SpecError(doc.path, line, self.rule_id,
                                        f"duplicate id {rid!r} (first on line {seen[rid]})"))
            seen.setdefault(rid, line)
            if cls is not None:
                errors.extend(self._recompute(doc, cls, row, line))
        return errors

    def _recompute(self, doc: RawDocument, cls: type[records.Row], row: RawRow,
                   line: int) -> list[SpecError]:
        try:
            record = cls(**built_row(cls, row))
        except (SchemaError, TypeError):
            return []  # SPEC-SCHEMA reports it
        expected = record.expected_id()
        if expected is not None and expected != record.id:
            return [SpecError(doc.path, line, self.rule_id,
                              f"id {record.id!r} disagrees with the row's fields, which give "
                              f"{expected!r}")]
        return []

