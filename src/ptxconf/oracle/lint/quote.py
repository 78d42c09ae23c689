"""SPEC-QUOTE: where a row quotes its source's numbers, the row's fields say the same.

A descriptor bit field's cite quotes where the field sits, in the source's own notation: the
PTX ISA's table as inclusive ranges ("bits 29-16"), CUTLASS's `GmmaDescriptor` as a C++ bit
field and a half-open range ("leading_byte_offset_ : 14, // bit [16,30)"), and CUTLASS the
layout-type codes ("INTERLEAVE 0, SWIZZLE_128B 1, ..."). An edit of `lsb_bits`, `width_bits`
or `codes` that its own quote contradicts is an error at the edited line, so that swapping two
fields consistently in both descriptor tables (the LBO/SBO swap every kernel writer fears)
cannot pass as a new truth. The two tables (wgmma/matrix_descriptor.yaml, the PTX ISA's, and
cute/gmma_descriptor.yaml, CUTLASS's) must also agree field by field where both give a value,
and a value only one of them quotes (the PTX table's layout-type codes) must be what the other
quotes (`table_errors`).

Both run when a spec loads, so `spec validate` and `check` report them alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument, RawRow, SpecError

RULE = "SPEC-QUOTE"
#: "bits 29-16": an inclusive range, the most significant bit first (the PTX ISA's table).
_INCLUSIVE = re.compile(r"\bbits? (\d+)\s*-\s*(\d+)\b")
#: "bit [16,30)": a half-open range, least significant bit first (CUTLASS's comments).
_HALF_OPEN = re.compile(r"\bbits? \[(\d+)\s*,\s*(\d+)\)")
#: "leading_byte_offset_ : 14": a C++ bit field's width.
_BITFIELD = re.compile(r"\b\w+_\s*:\s*(\d+)\b")
#: "SWIZZLE_128B 1", "INTERLEAVE 0": a layout-type code (CUTLASS's enum LayoutType).
_CODE = re.compile(r"\b(INTERLEAVE|SWIZZLE_(\d+B))\s+(\d+)\b")
#: The two descriptor tables, the PTX ISA's first.
TABLES = ("wgmma/matrix_descriptor.yaml", "cute/gmma_descriptor.yaml")
#: The fields the two tables must agree on, where both give one.
SHARED = ("lsb_bits", "width_bits", "encode_shift_bits", "codes")


def quoted(text: str) -> dict[str, Any]:
    """What a quote states about a bit field: lsb_bits and width_bits (from a range, or a
    width alone from a C++ bit field) and codes (layout type -> code); only what it states."""
    out: dict[str, Any] = {}
    if m := _HALF_OPEN.search(text):
        lo, end = int(m[1]), int(m[2])
        out.update(lsb_bits=lo, width_bits=end - lo)
    elif m := _INCLUSIVE.search(text):
        hi, lo = int(m[1]), int(m[2])
        out.update(lsb_bits=min(hi, lo), width_bits=abs(hi - lo) + 1)
    if (m := _BITFIELD.search(text)) and "width_bits" not in out:
        out["width_bits"] = int(m[1])
    codes = {("none" if name == "INTERLEAVE" else mode): int(code)
             for name, mode, code in _CODE.findall(text)}
    if codes:
        out["codes"] = codes
    return out


class QuoteRule:
    """A descriptor field's lsb_bits, width_bits and codes agree with what its cite quotes."""

    rule_id = RULE

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Report each field its row's quote contradicts, at the field's line."""
        if doc.data.get("kind") != records.DescriptorField.KIND:
            return []
        return [e for row in doc.rows if "__not_a_mapping__" not in row.data
                for e in self._row(doc, row)]

    def _row(self, doc: RawDocument, row: RawRow) -> Iterator[SpecError]:
        cite = row.data.get("cite")
        if not isinstance(cite, dict):
            return
        words = " ".join(str(cite.get(k, "")) for k in ("anchor", "text"))
        stated = quoted(words)
        for key, want in stated.items():
            have = row.data.get(key)
            if have != want:
                yield SpecError(doc.path, row.line_of(key), RULE,
                                f"row {row.data.get('id', '?')}: {key} = {have!r}, but its cite "
                                f"({words.strip()!r}) states {key} = {want!r}")


def _quote_of(row: records.Row) -> dict[str, Any]:
    cite = row.cite
    return quoted(f"{cite.anchor} {cite.text or ''}") if cite is not None else {}


def table_errors(root: str, rows: Sequence[records.Row]) -> list[SpecError]:
    """The two descriptor tables agree field by field: where both give a value they are the
    same (else an error at each of the two rows, naming both), and a value one table's row
    does not quote equals what the other table's row quotes (else an error at the row that
    holds it: the PTX table's codes are fixed by CUTLASS's quote)."""
    by_file: dict[str, dict[str, records.DescriptorField]] = {t: {} for t in TABLES}
    for r in rows:
        if isinstance(r, records.DescriptorField) and r.file in by_file:
            by_file[r.file][r.id] = r
    ptx, cute = (by_file[t] for t in TABLES)
    errors: list[SpecError] = []
    for rid in sorted(ptx.keys() & cute.keys()):
        pair = (ptx[rid], cute[rid])
        quotes = [_quote_of(r) for r in pair]
        for key in SHARED:
            values = [getattr(r, key) for r in pair]
            if None in values:
                continue
            if values[0] != values[1]:
                said = (f"the descriptor tables disagree on {rid}.{key}: {values[0]!r} in "
                        f"{TABLES[0]}, {values[1]!r} in {TABLES[1]}")
                errors += [SpecError(f"{root}/{r.file}", r.line, RULE, f"row {rid}: {said}")
                           for r in pair]
                continue
            for i, row in enumerate(pair):
                other = quotes[1 - i].get(key)
                cite = pair[1 - i].cite
                if key not in quotes[i] and other is not None and values[i] != other and cite:
                    errors.append(SpecError(
                        f"{root}/{row.file}", row.line, RULE,
                        f"row {rid}: {key} = {values[i]!r}, but {TABLES[1 - i]}'s row {rid} "
                        f"quotes {key} = {other!r} (its cite: {cite.anchor!r})"))
    return errors


__all__ = ["RULE", "SHARED", "TABLES", "QuoteRule", "quoted", "table_errors"]
