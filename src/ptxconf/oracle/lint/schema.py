"""SPEC-SCHEMA: the kind is known, keys are the record's fields, values have their types."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Literal

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument, RawRow, SpecError
from ptxconf.oracle.lint.units import unit_stem

#: Fields every row has that the file does not spell out.
INJECTED = ("file", "line", "source")


class SchemaError(ValueError):
    """A value that does not fit its field's type."""


def record_fields(cls: type) -> dict[str, Any]:
    """The spelled-out fields of a record class and their resolved types."""
    return dict(_record_fields(cls))


@functools.cache
def _record_fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """record_fields, resolved once per class (typing.get_type_hints is slow: every row of a
    large spec asks several times)."""
    hints = typing.get_type_hints(cls, vars(records))
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.name not in INJECTED)


@functools.cache
def _field_stems(cls: type) -> frozenset[str]:
    """The unit stems of a record class's fields (a key under another unit is its field's)."""
    return frozenset(unit_stem(name) for name, _ in _record_fields(cls))


@functools.cache
def _required_fields(cls: type) -> tuple[str, ...]:
    """The fields of a record class a row must spell out (those that do not admit None)."""
    return tuple(name for name, tp in _record_fields(cls) if not is_optional(tp))


def is_optional(tp: Any) -> bool:
    """Whether a field type admits None (and so may be left out)."""
    return _is_union(tp) and type(None) in typing.get_args(tp)


def convert(value: Any, tp: Any, name: str) -> Any:
    """Convert a YAML value to a field type, or raise SchemaError naming what was expected."""
    return _converter(tp)(value, name)


#: A converter of one field type: (value, the field's name) -> the value (or SchemaError).
Converter = Callable[[Any, str], Any]


@functools.cache
def _converter(tp: Any) -> Converter:
    """The converter of a field type, built once per type: the type's shape (union, Literal,
    tuple, mapping, nested record, scalar) is read here, not again for every value of a large
    spec."""
    if tp is Any:
        return lambda value, name: value
    if _is_union(tp):
        return _union(tp)
    origin = typing.get_origin(tp)
    if origin is Literal:
        return _literal(typing.get_args(tp))
    if origin is tuple:
        return _tuple(typing.get_args(tp)[0])
    if origin is dict:
        return _mapping(*typing.get_args(tp))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _record(tp)
    if tp in (bool, int, str):
        return _scalar(tp)
    raise TypeError(f"unsupported field type {tp!r}")  # a schema author's mistake


def _union(tp: Any) -> Converter:
    args = typing.get_args(tp)
    optional = type(None) in args
    options = [a for a in args if a is not type(None)]

    def conv(value: Any, name: str) -> Any:
        if value is None and optional:
            return None
        for arg in options:
            try:
                return _converter(arg)(value, name)
            except SchemaError:
                continue
        raise SchemaError(f"{name}: expected {describe(tp)}, got {value!r}")

    return conv


def _literal(allowed: tuple[Any, ...]) -> Converter:
    def conv(value: Any, name: str) -> Any:
        if value in allowed:
            return value
        raise SchemaError(f"{name}: expected one of {list(allowed)}, got {value!r}")

    return conv


def _tuple(item_tp: Any) -> Converter:
    item = _converter(item_tp)

    def conv(value: Any, name: str) -> Any:
        if not isinstance(value, list):
            raise SchemaError(f"{name}: expected a list, got {value!r}")
        try:  # items named only when one fails (most never do; naming each is the cost)
            return tuple([item(v, name) for v in value])
        except SchemaError:
            return tuple([item(v, f"{name}[{i}]") for i, v in enumerate(value)])

    return conv


def _mapping(key_tp: Any, val_tp: Any) -> Converter:
    key, val = _converter(key_tp), _converter(val_tp)

    def conv(value: Any, name: str) -> Any:
        if not isinstance(value, dict):
            raise SchemaError(f"{name}: expected a mapping, got {value!r}")
        return {key(k, name): val(v, f"{name}.{k}") for k, v in value.items()}

    return conv


def _record(tp: type) -> Converter:
    def conv(value: Any, name: str) -> Any:
        if not isinstance(value, dict):
            raise SchemaError(f"{name}: expected a mapping, got {value!r}")
        fields = record_fields(tp)
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise SchemaError(f"{name}: unknown key '{unknown[0]}' (expected {sorted(fields)})")
        return tp(**{k: convert(v, fields[k], f"{name}.{k}") for k, v in value.items()})

    return conv


def _scalar(tp: type) -> Converter:
    def conv(value: Any, name: str) -> Any:
        if isinstance(value, tp) and (tp is not int or not isinstance(value, bool)):
            return value
        raise SchemaError(f"{name}: expected {describe(tp)}, got {value!r}")

    return conv


def describe(tp: Any) -> str:
    """A short human name for a field type."""
    if _is_union(tp):
        return " or ".join(describe(a) for a in typing.get_args(tp))
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + str(list(typing.get_args(tp)))
    if origin is tuple:
        return f"a list of {describe(typing.get_args(tp)[0])}"
    if origin is dict:
        return "a mapping"
    if tp is type(None):
        return "null"
    return {bool: "true/false", int: "an integer", str: "a string"}.get(tp, getattr(tp, "__name__", str(tp)))


def build_row(cls: type[records.Row], data: dict[str, Any]) -> dict[str, Any]:
    """Convert a raw row's values to its record's field types (raise SchemaError)."""
    fields = record_fields(cls)
    return {k: convert(v, fields[k], k) for k, v in data.items() if k in fields}


def built_row(cls: type[records.Row], row: RawRow) -> dict[str, Any]:
    """build_row of a parsed row, converted once and kept on it (raise SchemaError)."""
    if row.built is None:
        row.built = build_row(cls, row.data)
    return row.built


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


class SchemaRule:
    """Known kind; no unknown or missing keys; each value of its field's type."""

    rule_id = "SPEC-SCHEMA"

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Report schema problems row by row."""
        kind = doc.data.get("kind")
        if kind not in records.RECORD_KINDS:
            return [SpecError(doc.path, doc.top_lines.get("kind", 1), self.rule_id,
                              f"unknown kind {kind!r} (expected one of "
                              f"{sorted(records.RECORD_KINDS)})")]
        cls = records.RECORD_KINDS[kind]
        fields = record_fields(cls)
        errors: list[SpecError] = []
        for row in doc.rows:
            errors.extend(self._check_row(doc, cls, fields, row))
        return errors

    def _check_row(self, doc: RawDocument, cls: type[records.Row], fields: dict[str, Any],
                   row: RawRow) -> list[SpecError]:
        rid = row.data.get("id", "?")
        if "__not_a_mapping__" in row.data:
            return [SpecError(doc.path, row.line, self.rule_id, "a row must be a mapping")]
        errors = []
        record_cls: type = cls  # functools.cache wants a plain (hashable) type
        stems, required = _field_stems(record_cls), _required_fields(record_cls)
        for key in row.data:
            if key not in fields and unit_stem(key) not in stems:
                errors.append(SpecError(doc.path, row.line_of(key), self.rule_id,
                                        f"row {rid}: unknown key '{key}' for kind {cls.KIND}"))
        missing = [name for name in required if name not in row.data]
        if missing:
            present_stems = {unit_stem(k) for k in row.data}
            for name in missing:
                if unit_stem(name) not in present_stems:
                    errors.append(SpecError(doc.path, row.line, self.rule_id, f"row {rid}: "
                                            f"missing key '{name}' ({describe(fields[name])})"))
        built: dict[str, Any] = {}
        converted = True
        for key, value in row.data.items():
            if key in fields:
                try:
                    built[key] = convert(value, fields[key], key)
                except SchemaError as exc:
                    converted = False
                    errors.append(SpecError(doc.path, row.line_of(key), self.rule_id,
                                            f"row {rid}: {exc}"))
        if converted:
            row.built = built
        return errors
