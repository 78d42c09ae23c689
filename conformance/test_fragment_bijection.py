"""check_bijection: a fragment map must hold every tile element once, in a register slot once.

Each way a map can break (a slot outside the registers, an element outside the tile, a slot or
an element taken twice, an element missing) is made from a real map, and the check must name
it; on random breakages the whole-array check and the entry-by-entry one agree.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptxconf.oracle.fragments import FragmentMapError, _first_fault, check_bijection, fragment_map
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
#: One D map (f32 accumulator, two elements per register pair) and one register-A map.
MAPS = {"D": fragment_map("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16", "D", SPEC),
        "A": fragment_map("wgmma.mma_async.sync.aligned.m64n16k32.f16.e4m3.e4m3", "A", SPEC)}


def _with(fmap, entries):
    return replace(fmap, entries=tuple(entries))


@pytest.mark.parametrize("operand", sorted(MAPS))
def test_real_maps_are_bijections(operand: str) -> None:
    fmap = MAPS[operand]
    assert len(fmap.entries) == fmap.rows * fmap.cols
    check_bijection(fmap)  # raises on a fault


BREAKS = {
    "thread outside": (lambda e: [(e[0][0] + 10_000, *e[0][1:])] + e[1:], "is outside"),
    "register outside": (lambda e: [(e[0][0], 999, *e[0][2:])] + e[1:], "is outside"),
    "row outside": (lambda e: [(*e[0][:3], 9_999, e[0][4])] + e[1:], "outside the"),
    "column negative": (lambda e: [(*e[0][:4], -1)] + e[1:], "outside the"),
    "slot twice": (lambda e: e[:-1] + [(*e[0][:3], *e[-1][3:])], "holds both"),
    "element twice": (lambda e: e[:-1] + [(*e[-1][:3], *e[0][3:])], "is held by"),
    "element missing": (lambda e: e[:-1], "entries for a"),
}


@pytest.mark.parametrize("operand", sorted(MAPS))
@pytest.mark.parametrize("name", sorted(BREAKS))
def test_each_break_is_named(operand: str, name: str) -> None:
    breaker, words = BREAKS[name]
    broken = _with(MAPS[operand], breaker(list(MAPS[operand].entries)))
    with pytest.raises(FragmentMapError, match=words):
        check_bijection(broken)


def _says(check, fmap) -> str | None:
    """What a check raises for the map (None: nothing)."""
    try:
        check(fmap)
    except FragmentMapError as exc:
        return str(exc)
    return None


@settings(max_examples=60, deadline=None)
@given(operand=st.sampled_from(sorted(MAPS)), data=st.data())
def test_whole_array_check_agrees_with_the_entry_loop(operand: str, data) -> None:
    fmap = MAPS[operand]
    entries = list(fmap.entries)
    for _ in range(data.draw(st.integers(0, 3), label="edits")):
        i = data.draw(st.integers(0, len(entries) - 1), label="entry")
        field = data.draw(st.integers(0, 4), label="field")
        value = data.draw(st.integers(-2, 140), label="value")
        row = list(entries[i])
        row[field] = value
        entries[i] = tuple(row)
    if data.draw(st.booleans(), label="drop one"):
        entries.pop()
    broken = _with(fmap, entries)
    assert _says(check_bijection, broken) == _says(_first_fault, broken)
