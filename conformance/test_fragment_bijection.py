"""check_bijection: a fragment map must hold every tile element once, in a register slot once.

Each way a map can break (a slot outside the registers, an element outside the tile, a slot or
an element taken twice, an element missing, counts that do not match) is made from a real map and
from a hand-made 1 x 2 tile, and the check must name it; on random breakages the whole-array
check and the entry-by-entry one agree.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import pytest
from case_outcomes import raises_naming
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import budget

from ptxconf.oracle import fragments as F
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


@settings(max_examples=budget(60), deadline=None)
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


# --- a hand-made 1 x 2 tile: each fault named, with the slots and elements it is about --------
# (the wording: messages_oracle_algebra.py's fragments.*)

D_F32 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"


# --- check_bijection names the first fault of a hand-made 1 x 2 tile --------------------------


def _tile(*entries: F.Entry) -> F.FragmentMap:
    """A 1 x 2 tile held by 2 threads of 1 register of 1 element."""
    base = F.fragment_map(D_F32, "D", SPEC)
    return dataclasses.replace(base, instr="X", operand="A", rows=1, cols=2, threads=2, registers=1,
                               elems_per_register=1, entries=tuple(entries))

def test_the_hand_made_tile_is_a_bijection() -> None:
    F.check_bijection(_tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 1)))  # raises on a fault

@pytest.mark.parametrize(("entry", "slot"), [
    ((2, 0, 0, 0, 1), "(thread 2, register 0, sub 0)"),
    ((1, 1, 0, 0, 1), "(thread 1, register 1, sub 0)"),
    ((1, 0, 1, 0, 1), "(thread 1, register 0, sub 1)"),
])
def test_a_slot_one_past_the_registers_is_outside(entry: F.Entry, slot: str) -> None:
    with raises_naming(F.FragmentMapError, "X A:", slot, "2 threads", "1 registers") as info:
        F.check_bijection(_tile((0, 0, 0, 0, 0), entry))
    assert str(info.value).startswith(f"X A: {slot} ")

@pytest.mark.parametrize(("entry", "where"), [((1, 0, 0, 1, 0), "(1, 0)"), ((1, 0, 0, 0, 2), "(0, 2)")])
def test_an_element_one_past_the_tile_is_outside(entry: F.Entry, where: str) -> None:
    with raises_naming(F.FragmentMapError, "X A:", "thread 1 register 0 sub 0", where, "1x2"):
        F.check_bijection(_tile((0, 0, 0, 0, 0), entry))

def test_a_slot_taken_twice_names_both_elements() -> None:
    with raises_naming(F.FragmentMapError, "X A:", "thread 0 register 0 sub 0", "(0, 0)", "(0, 1)"):
        F.check_bijection(_tile((0, 0, 0, 0, 0), (0, 0, 0, 0, 1)))

def test_an_element_held_twice_names_both_slots() -> None:
    with raises_naming(F.FragmentMapError, "X A:", "(0, 0)", "(0, 0, 0)", "(thread 1, register 0, sub 0)"):
        F.check_bijection(_tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 0)))

@pytest.mark.parametrize(("rows", "cols", "threads", "registers", "epr", "entries"), [
    (4, 2, 2, 1, 1, ((0, 0, 0, 0, 0), (1, 0, 0, 0, 1))),  # 2 of 8 elements held
    (1, 2, 1, 4, 2, ((0, 0, 0, 0, 0), (0, 0, 1, 0, 1))),  # 2 of 8 register slots used
    (1, 2, 4, 2, 1, ((0, 0, 0, 0, 0), (1, 0, 0, 0, 1))),
    (1, 2, 2, 1, 1, ()),  # no entry at all
])
def test_a_map_whose_counts_do_not_match_is_refused(rows: int, cols: int, threads: int,
                                                    registers: int, epr: int,
                                                    entries: tuple[F.Entry, ...]) -> None:
    fmap = dataclasses.replace(_tile(), rows=rows, cols=cols, threads=threads, registers=registers,
                               elems_per_register=epr, entries=entries)
    with raises_naming(F.FragmentMapError, "X A:", f"{len(entries)} entries", f"{rows}x{cols}",
                       f"({rows * cols} ", f"{threads * registers * epr} register slots"):
        F.check_bijection(fmap)

def test_a_map_made_by_hand_gets_a_read_only_table_of_its_entries() -> None:
    fmap = _tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 1))
    assert fmap.table.tolist() == [[0, 0, 0, 0, 0], [1, 0, 0, 0, 1]]
    assert fmap.table.dtype.name == "int64"
    assert not fmap.table.flags.writeable
