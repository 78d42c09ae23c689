"""The CuTe MMA-atom document's other statements, each checked against the layouts and tables:
an atom name is the document's (quoted) or the project's (`cute.atom_name`); a traits alias
names its layout's shape or thread group (`cute.alias`); an NT/TN A or B layout's values run
along the major mode CUTLASS's letter names where elements pack into registers
(`cute.layout_major`); the N it says the 64x8
pattern repeats to are valid N (`cute.variants_n`); its sentences about single modes
(`cute.mode_statement`), its thread groups (`cute.thread_group`) and its Operation register
aliases (`cute.operation_registers`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from ptxconf.core.results import Status
from ptxconf.oracle import facts
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import CuteLayout, ModeStatement, OperationRegisters, ThreadGroup
from ptxconf.oracle.spec import Spec

from .cute_names import (
    ATOM_NAME,
    TYPE_ORDER,
    accumulators,
    arch,
    atom_k,
    row_layout,
    type_bits,
    type_tokens,
)

#: A traits alias: SM70_8x4_Col, SM70_8x8_32b (an 8x8 C of 32-bit values), SM70_QuadPair.
_ALIAS = re.compile(r"(?P<arch>SM\d+)_(?:(?P<rows>\d+)x(?P<cols>\d+)(?:_(?P<bits>\d+)b|_\w+)?"
                    r"|(?P<group>[A-Za-z]+))")


def cases(spec: Spec, rows: tuple[CuteLayout, ...]) -> Iterator[Case]:
    """The statements' cases: per atom row, then the mode statements, thread groups and
    Operation registers."""
    for row in rows:
        yield make_case("cute.atom_name", row.key, partial(_atom_name, row))
        if row.alias is not None:
            yield make_case("cute.alias", row.key, partial(_alias, spec, row, rows))
        if row.role in ("ALayout", "BLayout") and _letters(row) is not None \
                and _packed(spec, row):
            yield make_case("cute.layout_major", row.key, partial(_layout_major, spec, row))
        if row.variants_n_elems is not None:
            yield make_case("cute.variants_n", row.key, partial(_variants, spec, row))
    for st in spec.of(ModeStatement):
        yield make_case("cute.mode_statement", st.key, partial(_mode_statement, spec, st))
    for grp in spec.of(ThreadGroup):
        yield make_case("cute.thread_group", grp.key, partial(_thread_group, spec, grp, rows))
    for regs in spec.of(OperationRegisters):
        yield make_case("cute.operation_registers", regs.key,
                        partial(_operation_registers, spec, regs, rows))


def _atom_name(row: CuteLayout) -> str:
    """A name the document spells is in the row's quote; the project's own name is not."""
    text = (row.cite.text if row.cite else None) or ""
    if row.atom_named and row.atom not in text:
        raise fail(f"{row.key}: atom_named, yet the cited text does not spell {row.atom}")
    if not row.atom_named and row.atom in text:
        raise fail(f"{row.key}: the cited text spells {row.atom}; set atom_named")
    return (f"{row.atom}: spelled by the document" if row.atom_named
            else f"{row.atom}: the project's name for what the section describes")


def _alias(spec: Spec, row: CuteLayout, rows: tuple[CuteLayout, ...]) -> str:
    """A traits alias names the layout's shape (SM70_8x4_*: 8x4; *_32b: 32-bit C values) or
    its thread group (SM70_QuadPair); rows sharing an alias share the layout."""
    m = _ALIAS.fullmatch(row.alias or "")
    if m is None or not _arch_number(m["arch"]) <= _arch_number(arch(row)):
        raise fail(f"{row.key}: alias {row.alias!r} does not read as an alias of {arch(row)} "
                   "or an earlier architecture (SM<arch>_<...>)")
    if m["arch"] != arch(row) and not any(o.alias == row.alias and arch(o) == m["arch"]
                                          for o in rows):
        raise fail(f"{row.key}: alias {row.alias!r} names an {m['arch']} layout, and no "
                   f"{m['arch']} row has it", alias=row.alias)
    if m["group"] is not None:
        group = spec.get(ThreadGroup, m["group"].lower())
        expect_equal(f"threads of {row.alias}", row_layout(row).size(), group.threads,
                     source=row.key, witness=group.key)
    else:
        expect_equal(f"shape of {row.alias}", tuple(row.codomain_mn),
                     (int(m["rows"]), int(m["cols"])), source=row.key,
                     witness=f"the alias {row.alias}")
        if m["bits"] is not None:
            want = type_bits(spec, row.atom)["D" if row.role == "CLayout" else row.role[0]]
            expect_equal(f"value bits of {row.alias}", int(m["bits"]), want, source=row.key,
                         witness=f"the types of {row.atom}")
    for other in rows:
        if other.alias == row.alias and row_layout(other) != row_layout(row):
            raise fail(f"{row.key} and {other.key} share {row.alias} but not the layout")
    return f"{row.alias}: {row.layout}"


def _arch_number(name: str) -> int:
    """SM89 -> 89 (a later architecture's header may reuse an alias an earlier one's rows have:
    the SM89 traits' CLayout is SM80_16x8_Row)."""
    return int(name[2:]) if name[2:].isdigit() else -1


def _packed(spec: Spec, row: CuteLayout) -> bool:
    """Whether the operand's elements are narrower than a register, so that the values packed
    in one register run along a mode: a 32-bit (tf32) element fills its register, and its
    layout's values say nothing of the letter."""
    tokens = type_tokens(row.atom)
    try:
        bits = spec.element_bits(tokens[TYPE_ORDER.index(row.role[0])].lower())
    except (IndexError, KeyError):
        return True  # a name that does not read: the case runs and says so
    return bits < facts.register_bits(spec)


def _letters(row: CuteLayout) -> tuple[str, str] | None:
    """The A and B letters at the end of an atom name (SM70_..._NT -> ('N', 'T'))."""
    m = re.search(r"_(?P<a>[NT])(?P<b>[NT])$", row.atom)
    return (m["a"], m["b"]) if m else None


def _convention_major(spec: Spec, operand: str, letter: str) -> str:
    """The major-ness CUTLASS's letter means for an operand (`facts.cute_letter_major`)."""
    try:
        return facts.cute_letter_major(spec, operand, letter)
    except ValueError as exc:
        raise fail(str(exc)) from None


def _layout_major(spec: Spec, row: CuteLayout) -> str:
    """A thread's values run along the major mode its atom's letter names: stride 1 in the
    column-major index is the M (N) mode, a stride of rows the K mode."""
    letters = _letters(row)
    assert letters is not None
    operand = row.role[0]
    letter = letters[0] if operand == "A" else letters[1]
    want = _convention_major(spec, operand, letter)
    val = row_layout(row)[1]
    first = flatten(val.stride)[0]
    rows_ = row.codomain_mn[0]
    got = "MN" if first == 1 else "K" if first == rows_ else None
    if got is None:
        raise fail(f"{row.key}: value stride {first} runs along neither mode")
    expect_equal(f"major-ness of {operand} ({letter})", got, want, source=row.key,
                 witness="cute/major_conventions", status=Status.DISCREPANCY)
    return f"{operand} '{letter}': values run along {got} ({val})"


def _variants(spec: Spec, row: CuteLayout) -> str:
    """The N the document says the pattern repeats to are multiples of its N and valid N of
    the accumulators at the atom's K (seed 001)."""
    n0 = row.codomain_mn[1]
    accs = accumulators(spec, atom_k(row))
    for n in row.variants_n_elems or ():
        if n % n0:
            raise fail(f"{row.key}: N={n} is not a repeat of the {n0}-column pattern")
        for frag in accs:
            valid = frag.valid_n_values()
            if valid is not None and n not in valid:
                raise discrepancy(f"{row.key}: the document's N={n} is not a valid N of "
                                  f"{frag.key}", n=n, fragment=frag.key)
    return f"N = {list(row.variants_n_elems or ())}: repeats of {n0}, valid for " \
           f"{', '.join(f.id for f in accs)}"


def _mode_statement(spec: Spec, st: ModeStatement) -> str:
    """A sentence's size and stride of one mode are the printed layout's."""
    rows = [r for r in spec.of(CuteLayout) if r.id == st.layout]
    if len(rows) != 1:
        raise fail(f"{st.key}: layout {st.layout!r} names no cute_layout row")
    row = rows[0]
    mode: object = row_layout(row)
    for i in st.mode:
        if not isinstance(mode, Layout) or mode.rank() <= i:
            raise fail(f"{st.key}: {row.layout} has no mode {list(st.mode)}")
        mode = mode[i]
    assert isinstance(mode, Layout)
    strides = flatten(mode.stride)
    if st.mode_size is None and st.mode_stride is None:
        raise fail(f"{st.key}: states neither a size nor a stride")
    if st.mode_stride is not None and len(strides) != 1:
        raise fail(f"{st.key}: mode {list(st.mode)} of {row.layout} is {mode}, not one stride")
    said = {"size": st.mode_size, "stride": st.mode_stride}
    has = {"size": mode.size(), "stride": strides[0]}
    checked = [f"{k} {v}" for k, v in said.items() if v is not None]
    wrong = [k for k, v in said.items() if v is not None and v != has[k]]
    if wrong:
        # The two sides of each wrong key, as verdict fields (discrepancy's **fields: Any).
        sides: dict[str, Any] = {f"stated_{k}": said[k] for k in wrong}
        sides.update({f"layout_{k}": has[k] for k in wrong})
        raise discrepancy(
            f"{st.key}: the text says mode {list(st.mode)} of {row.id} has "
            + ", ".join(f"{k} {said[k]}" for k in wrong) + f"; the layout it prints, "
            f"{row.layout}, has " + ", ".join(f"{k} {has[k]}" for k in wrong),
            layout=row.layout, mode=list(st.mode), fields=wrong, **sides)
    return f"mode {list(st.mode)} of {row.id} = {mode}: {', '.join(checked)}"


def _thread_group(spec: Spec, grp: ThreadGroup, rows: tuple[CuteLayout, ...]) -> str:
    """A group is its parts; a tile is its parts' tiles side by side (same K); the warpgroup
    is the SM90 ThrID, the quadpair the SM70 ThrID its alias names, the warp facts.warp_threads."""
    said = []
    if grp.part is not None:
        part = spec.get(ThreadGroup, grp.part)
        expect_equal(f"threads of a {grp.id}", grp.threads, (grp.parts or 0) * part.threads,
                     source=grp.key, witness=f"{grp.parts} x {part.key}")
        said.append(f"{grp.parts} x {part.id}")
        if grp.tile is not None and part.tile is not None:
            (m, n, k), (pm, pn, pk) = (tuple(int(x) for x in t.split("x"))
                                       for t in (grp.tile, part.tile))
            expect_equal(f"tile of a {grp.id}", (m * n, k), ((grp.parts or 0) * pm * pn, pk),
                         source=grp.key, witness=f"{grp.parts} tiles of {part.tile}")
    name = grp.id.split(".")[0]
    if name == "warpgroup":
        expect_equal("threads of a warpgroup", grp.threads, facts.warpgroup_threads(spec),
                     source=grp.key, witness=f"the thread mode of {facts.D_ATOM_ROW}")
    elif name == "warp":
        expect_equal("threads of a warp", grp.threads, facts.warp_threads(spec), source=grp.key,
                     witness="facts.warp_threads (warpgroup threads / its warps)")
    else:
        thr = [r for r in rows if r.role == "ThrID" and (r.alias or "").lower().endswith(name)]
        if not thr:
            raise fail(f"{grp.key}: no ThrID row whose alias names the {name}")
        expect_equal(f"threads of a {name}", grp.threads, row_layout(thr[0]).size(),
                     source=grp.key, witness=thr[0].key)
        if grp.tile is not None:
            atom = ATOM_NAME.match(thr[0].atom)
            assert atom is not None
            expect_equal(f"tile of a {name}", grp.tile, f"{atom['m']}x{atom['n']}x{atom['k']}",
                         source=grp.key, witness=f"the atom {thr[0].atom}")
    return f"{grp.id}: {grp.threads} threads" + (f" ({', '.join(said)})" if said else "")


def _operation_registers(spec: Spec, regs: OperationRegisters,
                         rows: tuple[CuteLayout, ...]) -> str:
    """`DRegisters = float[8]`: the values per thread of the atom's layout for the operand;
    array length x register bits = values x the operand's element bits; register bits are the
    register width of seed 001's tables."""
    m = re.fullmatch(r"(?P<type>\w+)\[(?P<n>\d+)\]", regs.cpp_type.strip())
    if m is None:
        raise fail(f"{regs.key}: {regs.cpp_type!r} is not <type>[<count>]")
    role = "CLayout" if regs.operand in ("C", "D") else f"{regs.operand}Layout"
    layouts = [r for r in rows if r.atom == regs.atom and r.role == role]
    if not layouts:
        raise fail(f"{regs.key}: no {role} row of {regs.atom}")
    values = row_layout(layouts[0])[1].size()
    expect_equal("values per thread", regs.values, values, source=regs.key,
                 witness=f"{layouts[0].key} {layouts[0].layout}", status=Status.DISCREPANCY)
    cpp = re.fullmatch(r"u?int(?P<bits>\d+)_t|(?P<float>float)", m["type"])
    if cpp is None:
        raise fail(f"{regs.key}: C++ type {m['type']!r}: expected float or (u)int<bits>_t")
    # the document's "D is F32 (`float`)": a float is an f32
    cpp_bits = spec.element_bits("f32") if cpp["float"] else int(cpp["bits"])
    expect_equal(f"bits of a {m['type']}", cpp_bits, regs.register_bits, source=regs.key,
                 witness="register_bits")
    bits = type_bits(spec, regs.atom)[regs.operand]
    expect_equal("register bits", int(m["n"]) * regs.register_bits, regs.values * bits,
                 source=regs.key, witness=f"{regs.values} values of {bits} bits")
    expect_equal("register width (bits)", regs.register_bits, facts.register_bits(spec),
                 source=regs.key, witness="facts.register_bits (wgmma/register_fragments)",
                 status=Status.DISCREPANCY)
    return f"{regs.cpp_type}: {regs.values} x {bits}-bit values in {m['n']} x " \
           f"{regs.register_bits}-bit registers"


__all__ = ["cases"]
