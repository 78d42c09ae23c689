"""Tests that `-m` will deselect are not built (conftest.py's collection hooks). Imports nothing of
ptxconf.

`tox -e py` runs `pytest -m "not gpu and not slow"`: of the suite's 8,394 items, 3,292 are `gpu`
or `slow` (the GPU cases by id on a device, the emulated and compiled sweeps, the proof and
witness cases beyond the first of each family). pytest builds every one in each xdist worker
(an item, its keywords and fixture closure, the hooks' passes over it) only to deselect it at
the end of collection. Here a test function, or one parametrization of it, whose marks alone
already make the `-m` expression false is dropped while it is collected instead.

Only where that is certain: marks are only ever added to an item after this point (by its other
parametrizations, by hooks), never taken off, so a test is dropped only where the expression is
false with its known marks present and every other name in the expression either present or
absent (every assignment is tried, `surely_deselected`). Without `-m`, or where pytest's
internals differ, nothing is dropped. The tests each env runs, and their ids, are the same
(parametrizations are dropped after their ids are made); only the "deselected" count is smaller.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import pytest


class _Unknown(Exception):
    """An expression name (with its keyword arguments) that no known mark settles."""

    def __init__(self, key: tuple[str, tuple[tuple[str, Any], ...]]) -> None:
        super().__init__(key)
        self.key = key


@functools.lru_cache(maxsize=8)
def _compiled(markexpr: str) -> Any:
    """The `-m` expression as pytest compiles it; None where there is none or pytest's
    expression module is not the one this was written for."""
    if not markexpr.strip():
        return None
    try:
        from _pytest.mark.expression import Expression

        expr = Expression.compile(markexpr)
    except (ImportError, SyntaxError):  # pytest itself reports a malformed expression
        return None
    # pytest 8's Expression has no idents() (a GPU node's preinstalled pytest): build it all
    return expr if callable(getattr(expr, "idents", None)) else None


def surely_deselected(markexpr: str, marks: Iterable[pytest.Mark]) -> bool:
    """Whether `-m markexpr` deselects every item carrying `marks`, whatever marks it gains
    (False wherever pytest's expression module answers otherwise than this expects)."""
    try:
        return _surely_deselected(markexpr, marks)
    except Exception:  # noqa: BLE001 - another pytest's internals: nothing is dropped
        return False


def _surely_deselected(markexpr: str, marks: Iterable[pytest.Mark]) -> bool:
    expr = _compiled(markexpr)
    if expr is None:
        return False
    names = expr.idents()
    known = [mark for mark in marks if mark.name in names]
    if "(" not in markexpr:  # names alone decide (no keyword arguments to match): cached
        return _by_names(markexpr, frozenset(mark.name for mark in known))

    def present(name: str, kwargs: dict[str, Any]) -> bool:  # as pytest's MarkMatcher matches
        return any(m.name == name and all(m.kwargs.get(k, _Unknown) == v for k, v in kwargs.items())
                   for m in known)

    return not _can_match(expr, present, {})


@functools.lru_cache(maxsize=256)
def _by_names(markexpr: str, names: frozenset[str]) -> bool:
    return not _can_match(_compiled(markexpr), lambda name, kwargs: name in names, {})


def _can_match(expr: Any, present: Callable[[str, dict[str, Any]], bool],
               assumed: dict[tuple[str, tuple[tuple[str, Any], ...]], bool]) -> bool:
    """Whether some presence or absence of the names (with their keyword arguments) that no
    known mark settles makes `expr` true: each such name is tried both ways as the evaluation
    meets it. A name a known mark matches stays matched: marks are never taken off."""

    def matcher(name: str, /, **kwargs: Any) -> bool:
        if present(name, kwargs):
            return True
        key = (name, tuple(sorted(kwargs.items())))
        if key not in assumed:
            raise _Unknown(key)
        return assumed[key]

    try:
        return bool(expr.evaluate(matcher))
    except _Unknown as unknown:
        return any(_can_match(expr, present, {**assumed, unknown.key: value})
                   for value in (True, False))


def drop_function(collector: pytest.Collector, name: str, obj: object) -> bool:
    """Whether the test function `name` of this module or class is deselected by its own marks
    and its parents' alone (then none of its items is built)."""
    markexpr = collector.config.option.markexpr
    if not markexpr or _compiled(markexpr) is None:
        return False
    try:
        from _pytest.mark.structures import get_unpacked_marks

        if not collector.istestfunction(obj, name):  # type: ignore[attr-defined]
            return False
        marks = [*get_unpacked_marks(obj), *collector.iter_markers()]
    except (ImportError, AttributeError, TypeError):  # pytest's internals differ: build it
        return False
    return surely_deselected(markexpr, marks)


def drop_calls(metafunc: pytest.Metafunc) -> None:
    """Take out of `metafunc`'s parametrizations (their ids already made) those deselected by
    their marks and the function's alone; the first stays where every one would go (no
    parametrization at all would make pytest build the bare function)."""
    markexpr = metafunc.config.option.markexpr
    calls = getattr(metafunc, "_calls", None)
    if not markexpr or _compiled(markexpr) is None or not calls:
        return
    static = list(metafunc.definition.iter_markers())
    kept = [c for c in calls if not surely_deselected(markexpr, [*static, *c.marks])]
    metafunc._calls[:] = kept or calls[:1]
