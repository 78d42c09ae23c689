"""SPEC-ROWS: a table keeps the rows its source has.

Every file pins, in its source block, how many rows the source's table has
(`source: {..., row_count: 16}`). A file holding fewer rows than its pin lost one: a deleted
row that nothing else references would otherwise go unnoticed (the checks read what is there).

A scratch spec may add rows without touching the pin (a file with more rows than its pin still
loads); the bundled spec holds exactly its pins (`exact_pin`, run over spec/ by
conformance/test_spec_audit.py), so adding a row to spec/ means raising the pin with it.
"""

from __future__ import annotations

from ptxconf.oracle.lint.base import RawDocument, SpecError

#: The key of the source block that pins the source's row count.
PIN = "row_count"


def pinned_rows(doc: RawDocument) -> int | None:
    """The file's pin, or None where it is missing or not a positive integer."""
    source = doc.data.get("source")
    value = source.get(PIN) if isinstance(source, dict) else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def pin_line(doc: RawDocument) -> int:
    """The line of the pin (or of the source block, or 1)."""
    return doc.source_lines.get(PIN, doc.top_lines.get("source", 1))


class RowsRule:
    """The source block pins the source's row count; the file holds at least that many rows."""

    rule_id = "SPEC-ROWS"

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Report a missing or malformed pin, and a file with fewer rows than its pin."""
        if not isinstance(doc.data.get("source"), dict):
            return []  # SPEC-SOURCE reports it
        pin = pinned_rows(doc)
        if pin is None:
            got = doc.data["source"].get(PIN)
            return [SpecError(doc.path, pin_line(doc), self.rule_id,
                              f"source.{PIN}: expected the number of rows the source's table "
                              f"has (a positive integer), got {got!r}")]
        if len(doc.rows) < pin:
            return [SpecError(doc.path, pin_line(doc), self.rule_id,
                              f"source.{PIN} pins {pin} rows (the source's table); the file "
                              f"has {len(doc.rows)}: a row was lost. Restore it, or lower the "
                              "pin where the source itself dropped it")]
        return []


def exact_pin(doc: RawDocument) -> list[SpecError]:
    """A file whose row count is not exactly its pin (the bundled spec's own rule: a row added
    to spec/ raises the pin with it, so that deleting it later fails)."""
    pin = pinned_rows(doc)
    if pin is None or pin == len(doc.rows):
        return []
    return [SpecError(doc.path, pin_line(doc), RowsRule.rule_id,
                      f"source.{PIN} pins {pin} rows; the file has {len(doc.rows)}: set the pin "
                      "to the rows the source's table has")]
