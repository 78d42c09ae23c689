"""SPEC-CITE: a row says where its document states it, in the document's own words.

A row's `cite` has an `anchor` (figure, table, section or line of code) and, where the document
states the row in words, `text`: a short verbatim quote. Two directions are checked, so that a
quote and the values beside it cannot drift apart and a derived value cannot pass for the
document's own:

* every number the quote states (digits, or words: "four", "thirty two") is one the row holds
  (0 and 1 aside: indices such as a0, a1);
* every number the row holds in a top-level integer column is one the quote (the anchor, or
  a `text` column that is itself the source's definition) states, unless the file's
  `source.columns` names that column and says where it comes from instead (derived, the
  assembler, silicon, a document outside the seeds), or the row's cite gives a `provenance`
  (the row as a whole is not the document's sentence).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument, RawRow, SpecError

_DIGITS = re.compile(r"\d+")
_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
          "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
          "nineteen": 19, "pair": 2, "pairs": 2}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_WORDS = re.compile(r"\b(?:(?P<tens>" + "|".join(_TENS) + r")(?:[ -](?P<unit>one|two|"
                    r"three|four|five|six|seven|eight|nine))?|(?P<single>" + "|".join(_UNITS)
                    + r"))\b", re.I)


#: Numbers a quote may state without the row holding them: indices and ordinals (a0, a1, d0;
#: "first"), never a fact of their own.
TRIVIAL = frozenset({0, 1})


def stated_numbers(text: str) -> set[int]:
    """The numbers a piece of text states: digit runs and number words."""
    found = {int(d) for d in _DIGITS.findall(text)}
    for m in _WORDS.finditer(text):
        if m["single"]:
            found.add(_UNITS[m["single"].lower()])
        else:
            found.add(_TENS[m["tens"].lower()] + (_UNITS[m["unit"].lower()] if m["unit"] else 0))
    return found


def held_numbers(value: Any) -> set[int]:
    """Every number a row value holds: integers anywhere, digit runs in strings."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        return {int(d) for d in _DIGITS.findall(value)}
    if isinstance(value, dict):
        return set().union(*(held_numbers(k) | held_numbers(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(held_numbers(v) for v in value))
    return set()


def declared_columns(doc: RawDocument) -> dict[str, str]:
    """The file's `source.columns` (empty when absent or malformed)."""
    source = doc.data.get("source")
    cols = source.get("columns") if isinstance(source, dict) else None
    return cols if isinstance(cols, dict) else {}


class CiteRule:
    """A cite names an anchor. (That its quote and the row's numbers agree is `agreement`, run
    over the bundled spec by conformance/test_spec_audit.py: a scratch spec that edits a number
    or drops a type to test something else keeps loading.)"""

    rule_id = "SPEC-CITE"

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Report cites without an anchor."""
        errors: list[SpecError] = []
        for row in doc.rows:
            cite = row.data.get("cite")
            if cite is None or "__not_a_mapping__" in row.data:
                continue
            if not isinstance(cite, dict) or not isinstance(cite.get("anchor"), str) \
                    or not cite["anchor"].strip():
                errors.append(SpecError(doc.path, row.line_of("cite"), self.rule_id,
                                        f"row {row.data.get('id', '?')}: a cite needs an anchor "
                                        "(cite: {anchor: <figure, table or section>, text: <the "
                                        "source's own words>})"))
        return errors


def agreement(doc: RawDocument) -> list[SpecError]:
    """Rows without a cite, and numbers a row's cite and its values state on one side only."""
    if records.RECORD_KINDS.get(str(doc.data.get("kind"))) is None:
        return []
    columns = declared_columns(doc)
    errors: list[SpecError] = []
    for row in doc.rows:
        if "__not_a_mapping__" not in row.data:
            errors.extend(_row_agreement(doc, row, columns))
    return errors


def _row_agreement(doc: RawDocument, row: RawRow, columns: dict[str, str]) -> Iterator[SpecError]:
    rid = row.data.get("id", "?")
    cite = row.data.get("cite")
    line = row.line_of("cite")
    if not isinstance(cite, dict) or not isinstance(cite.get("anchor"), str):
        yield SpecError(doc.path, row.line, CiteRule.rule_id,
                        f"row {rid}: no cite (cite: {{anchor: <figure, table or section>, text: "
                        f"<the source's own words>}}, or provenance: <where it comes from>)")
        return
    text = cite.get("text")
    text = text if isinstance(text, str) else ""
    held = set().union(*(held_numbers(v) for k, v in row.data.items() if k not in ("cite", "id")))
    unheld = sorted(stated_numbers(text) - held - TRIVIAL)
    if unheld:
        yield SpecError(doc.path, line, CiteRule.rule_id,
                        f"row {rid}: the cited text states {unheld}, which the row does not hold")
    if cite.get("provenance") is not None:
        return
    if not text and not isinstance(row.data.get("text"), str):
        yield SpecError(doc.path, line, CiteRule.rule_id,
                        f"row {rid}: a document row without the document's words (cite.text)")
    own = row.data.get("text")  # a kind whose `text` column is the source's definition
    stated = stated_numbers(text) | stated_numbers(cite["anchor"]) | (
        stated_numbers(own) if isinstance(own, str) else set())
    for key, value in row.data.items():
        if key in columns or isinstance(value, bool) or not isinstance(value, int):
            continue
        if value not in stated:
            yield SpecError(doc.path, row.line_of(key), CiteRule.rule_id,
                            f"row {rid}: {key} = {value} is not stated by its cite; quote where "
                            f"the document states it, or name the column in source.columns "
                            f"with where it comes from")
