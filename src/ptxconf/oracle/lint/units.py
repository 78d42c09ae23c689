"""SPEC-UNITS: every numeric key names its unit, and the unit is the one the schema counts in."""

from __future__ import annotations

import dataclasses

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument, SpecError


def unit_stem(name: str) -> str:
    """The key name without its unit suffix: lbo_bytes -> lbo."""
    for suffix in records.UNIT_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def unit_of(name: str) -> str | None:
    """The unit suffix of a key name, without the underscore, or None."""
    for suffix in records.UNIT_SUFFIXES:
        if name.endswith(suffix):
            return suffix[1:]
    return None


class UnitsRule:
    """A key with the right stem but another unit is a units mismatch; numbers carry units."""

    rule_id = "SPEC-UNITS"

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Report numeric keys without units and keys whose unit disagrees with the schema."""
        cls = records.RECORD_KINDS.get(str(doc.data.get("kind")))
        if cls is None:
            return []
        names = [f.name for f in dataclasses.fields(cls)]
        by_stem = {unit_stem(n): n for n in names}
        errors: list[SpecError] = []
        for row in doc.rows:
            rid = row.data.get("id", "?")
            for key, value in row.data.items():
                if (isinstance(value, int) and not isinstance(value, bool)
                        and unit_of(key) is None and key not in cls.UNITLESS):
                    errors.append(SpecError(doc.path, row.line_of(key), self.rule_id,
                                            f"row {rid}: numeric key '{key}' names no unit "
                                            f"(one of {', '.join(records.UNIT_SUFFIXES)})"))
                if key in names:
                    continue
                expected = by_stem.get(unit_stem(key))
                if expected is not None:
                    errors.append(SpecError(
                        doc.path, row.line_of(key), self.rule_id,
                        f"row {rid}: '{key}' is in {unit_of(key) or 'no unit'}; kind "
                        f"{cls.KIND} counts it in {unit_of(expected) or 'no unit'} "
                        f"('{expected}')"))
        return errors
