"""CuTe MMA-atom checks (spec/cute/mma_atoms.yaml, seed 004) and their ties to seed 001.

Per row: the layout parses; the atom name's MxNxK agrees with the codomain; every spelled-out
point satisfies layout(thread, value) == index == row + col * rows; a C/A/B layout is a
bijection from its domain onto the codomain (a broadcast layout, thread stride 0, must cover it
with its value mode alone); a ThrID is injective into the threads it names. Across rows and
documents: the ThrID's size is every layout's thread count; the SM90 64xN CLayout is the 64x8
atom repeated along N; its value count is the accumulator's elements per thread of the
register-fragment table; the SS ALayout broadcasts an M64 x K16 tile; a layout's domain comment
agrees with its shape.

And the document's other statements: its C++ spelling of each layout (`layout_cpp`) is the
row's layout; an atom name is the document's (quoted) or marked as the project's
(`cute.atom_name`); traits aliases name the layout's shape or thread group (`cute.alias`); an
NT/TN A or B layout's values run along the major mode CUTLASS's letter names
(`cute.layout_major`); the N it says the 64x8 pattern repeats to are valid N (`cute.variants_n`);
its sentences about single modes (`cute.mode_statement`), its thread groups (`cute.thread_group`:
quadpair, warp, warpgroup) and its Operation register aliases (`cute.operation_registers`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from ptxconf.oracle import facts, fragments
from ptxconf.oracle.algebra.int_tuple import flatten, product
from ptxconf.oracle.algebra.layout import Layout, image, to_function_table
from ptxconf.oracle.algebra.notation import NotationError, parse
from ptxconf.oracle.checks import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import (
    CuteLayout,
    ElementType,
    ModeStatement,
    OperationRegisters,
    RegisterFragment,
    ThreadGroup,
)
from ptxconf.oracle.spec import Spec
from ptxconf.results import Status

#: An atom name's architecture and shape: SM90_64x128x16_F16F16F16F16_TN -> SM90, 64, 128, 16.
_ATOM_NAME = re.compile(r"(?P<arch>SM\d+)_(?P<m>\d+)x(?P<n>\d+|N)x(?P<k>\d+)_(?P<types>[A-Z0-9]+)?")
#: A row id's prefix names the atom too: SM70_8x8x4.CLayout.f32, SM90_64x8.CLayout, SM90_64xNx16...
_ID_PREFIX = re.compile(r"(?P<arch>SM\d+)_(?P<m>\d+)x(?P<n>\d+|N)(?:x(?P<k>\d+))?\.")
#: A domain comment: (T128,V64x8) -> (M64,K16), or (T8,V4) -> (m,k) without the sizes.
_COMMENT = re.compile(r"\(T(?P<t>\d+),V(?P<v>\d+(?:x\d+)*)\)\s*->\s*"
                      r"\((?P<r>[MNKmnk])(?P<rows>\d+)?,(?P<c>[MNKmnk])(?P<cols>\d+)?\)")
#: The document's C++ spelling of a layout: Layout<Shape <_8,_4>, Stride<_1,_8>>.
_CPP_TOKEN = re.compile(r"\s*(Layout<|Shape\s*<|Stride\s*<|_\d+|,|>)")
#: A traits alias: SM70_8x4_Col, SM70_8x8_32b (an 8x8 C of 32-bit values), SM70_QuadPair.
_ALIAS = re.compile(r"(?P<arch>SM\d+)_(?:(?P<rows>\d+)x(?P<cols>\d+)(?:_(?P<bits>\d+)b|_\w+)?"
                    r"|(?P<group>[A-Za-z]+))")
#: The types an atom name spells, in the order D, A, B, C.
TYPE_ORDER = ("D", "A", "B", "C")
#: The codomain each role's index encodes: (rows, cols) as letters of the atom's M, N, K.
ROLE_CODOMAIN = {"CLayout": ("m", "n"), "ALayout": ("m", "k"), "BLayout": ("n", "k")}


def cases(spec: Spec) -> Iterator[Case]:
    """One case per CuteLayout row, then the cross-row and cross-document cases."""
    rows = spec.of(CuteLayout)
    for row in rows:
        yield make_case("cute.layout", row.key, partial(_row, spec, row))
    for row in rows:
        if row.role == "ThrID":
            yield make_case("cute.thread_count", row.key, partial(_thread_count, row, rows))
        if row.domain_comment is not None:
            yield make_case("cute.domain_comment", row.key, partial(_comment, row))
    for row in rows:
        yield make_case("cute.atom_name", row.key, partial(_atom_name, row))
        if row.alias is not None:
            yield make_case("cute.alias", row.key, partial(_alias, spec, row, rows))
        if row.role in ("ALayout", "BLayout") and _letters(row) is not None:
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
    for row in rows:
        if row.role == "CLayout" and _arch(row) == "SM90":
            yield make_case("cute.clayout_repeat", row.key,
                            partial(_clayout_repeat, spec, row))
            for frag in _accumulators(spec, _atom_k(row)):
                yield make_case("cute.clayout_vs_fragment", f"{row.key}~{frag.key}",
                                partial(_clayout_vs_fragment, row, frag))
        if row.role == "ALayout" and _arch(row) == "SM90":
            yield make_case("cute.ss_alayout", row.key, partial(_ss_alayout, spec, row))


def _atom_k(row: CuteLayout) -> int:
    """The K the row's atom name states (0 when the name does not read)."""
    m = _ATOM_NAME.match(row.atom)
    return int(m["k"]) if m else 0


def _accumulators(spec: Spec, k: int) -> tuple[RegisterFragment, ...]:
    """The register-fragment D rows at an atom's K."""
    return tuple(f for f in spec.of(RegisterFragment) if f.operand == "D" and f.k_elems == k)


def _arch(row: CuteLayout) -> str:
    m = _ATOM_NAME.match(row.atom)
    return m["arch"] if m else ""


def _layout(row: CuteLayout) -> Layout:
    """The row's layout, parsed; FAIL if it does not parse or is not a plain layout."""
    try:
        layout = parse(row.layout)
    except NotationError as exc:
        raise fail(f"{row.key}: layout {row.layout!r} does not parse: {exc}") from None
    if not isinstance(layout, Layout):
        raise fail(f"{row.key}: {row.layout!r} is not a plain layout")
    return layout


def _atom_types(spec: Spec, row: CuteLayout) -> None:
    """The atom name's D/A/B/C types (F32F16F16F32) are element types of the spec."""
    m = _ATOM_NAME.match(row.atom)
    tokens = re.findall(r"[A-Z]+\d+", m["types"]) if m and m["types"] else []
    known = {t.id for t in spec.of(ElementType)}
    if len(tokens) != 4 or any(t.lower() not in known for t in tokens):
        raise fail(f"{row.key}: atom {row.atom!r}: types {tokens} are not four element types "
                   f"(D, A, B, C) of spec/wgmma/element_types.yaml")


def _row(spec: Spec, row: CuteLayout) -> str:
    """Parse, name, types, points and bijectivity of one row."""
    _atom_types(spec, row)
    _name_matches_id(row)
    layout = _layout(row)
    if row.layout_cpp is not None:
        cpp = cpp_layout(row.layout_cpp, row.key)
        if cpp != layout:
            raise fail(f"{row.key}: the document's {row.layout_cpp} is {cpp}, the row's layout "
                       f"{row.layout}", cpp=str(cpp), layout=row.layout)
    rows, cols = row.codomain_mn
    for t, v, i, j, idx in row.points:
        got = layout(t) if row.role == "ThrID" and v == 0 else layout(t, v)
        expect_equal(f"layout({t}, {v})", idx, got, source=f"{row.key} points",
                     witness=f"{row.layout}")
        expect_equal(f"index of (row {i}, col {j})", idx, i + j * rows, source=f"{row.key} points",
                     witness=f"row + col * {rows}")
    if row.role == "ThrID":
        return _thrid(spec, row, layout)
    if layout.rank() != 2:
        raise fail(f"{row.key}: a {row.role} is a (thread, value) layout; {row.layout} has rank "
                   f"{layout.rank()}")
    thr, val = layout[0], layout[1]
    if row.domain is not None:
        expect_equal("domain (threads, values)", tuple(row.domain), (thr.size(), val.size()),
                     source=row.key, witness=f"the shape of {row.layout}")
    _name_codomain(row)
    target = set(range(rows * cols))
    if all(d == 0 for d in flatten(thr.stride)):
        if val.size() != rows * cols or image(val) != target:
            raise fail(f"{row.key}: broadcast layout's value mode {val} is not a bijection onto "
                       f"{rows}x{cols}", missing=sorted(target - image(val))[:8])
        return (f"{len(row.points)} points; broadcast: {thr.size()} threads each see all "
                f"{rows}x{cols} through {val}")
    table = _table(layout)
    if len(table) != rows * cols or set(table) != target:
        dup = len(table) - len(set(table))
        raise fail(f"{row.key}: not a bijection from {thr.size()}x{val.size()} onto {rows}x{cols} "
                   f"({dup} repeated indices, {len(target - set(table))} missed)")
    return f"{len(row.points)} points; bijection ({thr.size()} threads x {val.size()} values) -> " \
           f"{rows}x{cols}"


def _table(layout: Layout) -> list[int]:
    """to_function_table, computed mode by mode: offset(i) is the sum of each mode's offset."""
    table = [0]
    for mode in layout.modes():
        offs = to_function_table(mode)
        table = [base + o for o in offs for base in table]
    return table


def _name_matches_id(row: CuteLayout) -> None:
    """The arch and dimensions the row id spells equal those of its atom name."""
    m, i = _ATOM_NAME.match(row.atom), _ID_PREFIX.match(row.id)
    if m is None or i is None:
        raise fail(f"{row.key}: atom {row.atom!r} / id {row.id!r} do not read as SM<arch>_<M>x<N>...")
    for part in ("arch", "m", "n", "k"):
        if i[part] is not None and i[part] != m[part]:
            raise fail(f"{row.key}: the id says {part} {i[part]}, the atom name {row.atom} says "
                       f"{m[part]}")


def _name_codomain(row: CuteLayout) -> None:
    """The atom name's MxNxK must give the codomain of the row's role (STYLE: ids are facts)."""
    m = _ATOM_NAME.match(row.atom)
    if m is None or row.role not in ROLE_CODOMAIN:
        raise fail(f"{row.key}: atom name {row.atom!r} does not read as SM<arch>_<M>x<N>x<K>_...")
    dims = {d: int(m[d]) for d in ("m", "n", "k") if m[d].isdigit()}
    if any(d not in dims for d in ROLE_CODOMAIN[row.role]):
        raise fail(f"{row.key}: a {row.role} needs {ROLE_CODOMAIN[row.role]} in the atom name")
    want = tuple(dims[d] for d in ROLE_CODOMAIN[row.role])
    expect_equal(f"{row.role} codomain (rows, cols)", tuple(row.codomain_mn), want,
                 source=row.key, witness=f"the atom name {row.atom}")


def _thrid(spec: Spec, row: CuteLayout, layout: Layout) -> str:
    """A ThrID maps logical threads injectively into the threads of its codomain: the whole
    warps (`facts.warp_threads`) its logical threads live in."""
    table = to_function_table(layout)
    bound = product(tuple(row.codomain_mn))
    warp = facts.warp_threads(spec)
    warps = -(-layout.cosize() // warp) * warp
    expect_equal("ThrID codomain (threads, 1)", tuple(row.codomain_mn), (warps, 1), source=row.key,
                 witness=f"the whole warps that {row.layout} reaches")
    if len(set(table)) != len(table):
        raise fail(f"{row.key}: ThrID {row.layout} maps two logical threads to one thread")
    if any(not 0 <= x < bound for x in table):
        raise fail(f"{row.key}: ThrID {row.layout} reaches {max(table)}, outside {bound} threads")
    return f"{len(row.points)} points; {len(table)} logical threads -> {sorted(table)[:8]}..."


def _thread_count(thr_row: CuteLayout, rows: tuple[CuteLayout, ...]) -> str:
    """Every layout of the ThrID's architecture has as many threads as the ThrID."""
    n = _layout(thr_row).size()
    same = [r for r in rows if r.role != "ThrID" and _arch(r) == _arch(thr_row)]
    if not same:
        raise fail(f"{thr_row.key}: no layout of {_arch(thr_row)} to compare with")
    if not any(r.atom == thr_row.atom for r in same):
        raise fail(f"{thr_row.key}: no C/A/B layout belongs to atom {thr_row.atom}; a ThrID "
                   f"describes the threads of an atom whose layouts the spec lists")
    for r in same:
        expect_equal(f"threads of {r.id}", n, _layout(r)[0].size(), source=thr_row.key,
                     witness=r.key)
    return f"{n} threads in {len(same)} {_arch(thr_row)} layouts"


def _comment(row: CuteLayout) -> str:
    """A `(T128,V64x8) -> (M64,K16)` comment must say what the layout's shape says."""
    m = _COMMENT.fullmatch((row.domain_comment or "").strip())
    if m is None:
        raise fail(f"{row.key}: domain comment {row.domain_comment!r} does not read as "
                   "(T<n>,V<a>x<b>) -> (<X><rows>,<Y><cols>)")
    layout = _layout(row)
    thr, val = layout[0], layout[1]
    said_v = tuple(int(x) for x in m["v"].split("x"))
    val_modes = tuple(product(s) for s in val.shape) if isinstance(val.shape, tuple) else (
        val.shape,)
    letters = (m["r"].lower(), m["c"].lower())
    if row.role in ROLE_CODOMAIN and letters != ROLE_CODOMAIN[row.role]:
        raise fail(f"{row.key}: the comment maps to ({','.join(letters)}), a {row.role} maps to "
                   f"({','.join(ROLE_CODOMAIN[row.role])})")
    said: dict[str, object] = {"threads": int(m["t"]), "value shape": said_v}
    shape: dict[str, object] = {"threads": thr.size(), "value shape": val_modes}
    if m["rows"] is not None and m["cols"] is not None:
        said["codomain"] = (int(m["rows"]), int(m["cols"]))
        shape["codomain"] = tuple(row.codomain_mn)
    if len(said_v) == 1 and len(val_modes) > 1:
        shape["value shape"] = (val.size(),)  # V8 names the count, not the modes
    wrong = [k for k in said if said[k] != shape[k]]
    if wrong:
        raise discrepancy(
            f"{row.key}: the comment {row.domain_comment!r} says "
            + "; ".join(f"{k} {said[k]}" for k in wrong)
            + f", the layout {row.layout} has "
            + "; ".join(f"{k} {shape[k]}" for k in wrong)
            + f" ({product(said_v)} vs {val.size()} values per thread)",
            comment=row.domain_comment, layout=row.layout, fields=wrong)
    return f"comment {row.domain_comment!r} agrees with {row.layout}"


def cpp_layout(text: str, where: str = "") -> Layout:
    """The layout a C++ `Layout<Shape <...>, Stride<...>>` (or `Layout<_128, _1>`) spells."""
    tokens, pos = [], 0
    while pos < len(text):
        m = _CPP_TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip() in ("", ";"):
                break
            raise fail(f"{where}: cannot read {text!r} at {text[pos:pos + 12]!r}")
        tokens.append(m.group(1).replace(" ", ""))
        pos = m.end()

    def value(i: int) -> tuple[object, int]:
        tok = tokens[i]
        if tok.startswith("_"):
            return int(tok[1:]), i + 1
        if tok in ("Shape<", "Stride<"):
            items, i = [], i + 1
            while tokens[i] != ">":
                item, i = value(i)
                items.append(item)
                if tokens[i] == ",":
                    i += 1
            return (tuple(items) if len(items) > 1 else items[0]), i + 1
        raise fail(f"{where}: unexpected {tok!r} in {text!r}")

    try:
        if not tokens or tokens[0] != "Layout<":
            raise fail(f"{where}: {text!r} is not a Layout<...>")
        shape, i = value(1)
        if tokens[i] != ",":
            raise fail(f"{where}: {text!r}: expected Layout<shape, stride>")
        stride, i = value(i + 1)
        if tokens[i:] != [">"]:
            raise fail(f"{where}: {text!r}: trailing {tokens[i:]}")
    except IndexError:
        raise fail(f"{where}: {text!r} ends early") from None
    return Layout(shape, stride)  # type: ignore[arg-type]


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
    if m is None or m["arch"] != _arch(row):
        raise fail(f"{row.key}: alias {row.alias!r} does not read as {_arch(row)}_<...>")
    if m["group"] is not None:
        group = spec.get(ThreadGroup, m["group"].lower())
        expect_equal(f"threads of {row.alias}", _layout(row).size(), group.threads,
                     source=row.key, witness=group.key)
    else:
        expect_equal(f"shape of {row.alias}", tuple(row.codomain_mn),
                     (int(m["rows"]), int(m["cols"])), source=row.key,
                     witness=f"the alias {row.alias}")
        if m["bits"] is not None:
            want = _type_bits(spec, row.atom)["D" if row.role == "CLayout" else row.role[0]]
            expect_equal(f"value bits of {row.alias}", int(m["bits"]), want, source=row.key,
                         witness=f"the types of {row.atom}")
    for other in rows:
        if other.alias == row.alias and _layout(other) != _layout(row):
            raise fail(f"{row.key} and {other.key} share {row.alias} but not the layout")
    return f"{row.alias}: {row.layout}"


def _type_bits(spec: Spec, atom: str) -> dict[str, int]:
    """The element width of D, A, B and C that an atom name spells (F32F16F16F32)."""
    m = _ATOM_NAME.match(atom)
    tokens = re.findall(r"[A-Z]+\d+", m["types"]) if m and m["types"] else []
    if len(tokens) != len(TYPE_ORDER):
        raise fail(f"atom {atom!r}: expected four types (D, A, B, C)")
    return {op: spec.element_bits(t.lower()) for op, t in zip(TYPE_ORDER, tokens, strict=True)}


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
    val = _layout(row)[1]
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
    accs = _accumulators(spec, _atom_k(row))
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
    mode: object = _layout(row)
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
                     source=grp.key, witness=f"the thread mode of {fragments.D_ATOM_ROW}")
    elif name == "warp":
        expect_equal("threads of a warp", grp.threads, facts.warp_threads(spec), source=grp.key,
                     witness="facts.warp_threads (warpgroup threads / its warps)")
    else:
        thr = [r for r in rows if r.role == "ThrID" and (r.alias or "").lower().endswith(name)]
        if not thr:
            raise fail(f"{grp.key}: no ThrID row whose alias names the {name}")
        expect_equal(f"threads of a {name}", grp.threads, _layout(thr[0]).size(),
                     source=grp.key, witness=thr[0].key)
        if grp.tile is not None:
            atom = _ATOM_NAME.match(thr[0].atom)
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
    values = _layout(layouts[0])[1].size()
    expect_equal("values per thread", regs.values, values, source=regs.key,
                 witness=f"{layouts[0].key} {layouts[0].layout}", status=Status.DISCREPANCY)
    cpp = re.fullmatch(r"u?int(?P<bits>\d+)_t|(?P<float>float)", m["type"])
    if cpp is None:
        raise fail(f"{regs.key}: C++ type {m['type']!r}: expected float or (u)int<bits>_t")
    # the document's "D is F32 (`float`)": a float is an f32
    cpp_bits = spec.element_bits("f32") if cpp["float"] else int(cpp["bits"])
    expect_equal(f"bits of a {m['type']}", cpp_bits, regs.register_bits, source=regs.key,
                 witness="register_bits")
    bits = _type_bits(spec, regs.atom)[regs.operand]
    expect_equal("register bits", int(m["n"]) * regs.register_bits, regs.values * bits,
                 source=regs.key, witness=f"{regs.values} values of {bits} bits")
    expect_equal("register width (bits)", regs.register_bits, facts.register_bits(spec),
                 source=regs.key, witness="facts.register_bits (wgmma/register_fragments)",
                 status=Status.DISCREPANCY)
    return f"{regs.cpp_type}: {regs.values} x {bits}-bit values in {m['n']} x " \
           f"{regs.register_bits}-bit registers"


def _clayout_repeat(spec: Spec, row: CuteLayout) -> str:
    """An SM90 64xN CLayout equals the 64x8 atom repeated N/8 times along N (logical product)."""
    n = row.codomain_mn[1]
    if not _accumulators(spec, _atom_k(row)):
        raise fail(f"{row.key}: no accumulator rows at k{_atom_k(row)} (the atom's K) in the "
                   "register-fragment table")
    derived = fragments.d_layout(spec, n)
    got = _layout(row)
    if _table(got) != _table(derived):
        raise fail(f"{row.key}: {row.layout} differs from the 64x8 atom repeated {n // 8} times: "
                   f"{derived}", documented=row.layout, derived=str(derived))
    same_text = str(derived) == row.layout.replace(" ", "")
    reps = derived[1].shape[-1]  # type: ignore[index]
    return (f"{row.layout} == {fragments.D_ATOM_ROW} x logical_product({reps}:1) = {derived}"
            + ("" if same_text else " (as functions)"))


def _clayout_vs_fragment(row: CuteLayout, frag: RegisterFragment) -> str:
    """Seed 004's values per thread == seed 001's accumulator elements per thread, at the same N."""
    layout = _layout(row)
    rows, n = row.codomain_mn
    expect_equal(f"threads x values of {row.id}", rows * n, layout.size(), source=row.key,
                 witness=f"its {rows}x{n} codomain")
    expect_equal(f"values per thread (N={n})", frag.elements_for(n), layout[1].size(),
                 source=frag.key, witness=row.key, status=Status.DISCREPANCY)
    return f"N={n}: {layout[1].size()} values per thread == {frag.elements} of {frag.id}"


def _ss_alayout(spec: Spec, row: CuteLayout) -> str:
    """SS ALayout: thread stride 0, and a value mode that is exactly the M64 x K16 tile."""
    layout = _layout(row)
    thr, val = layout[0], layout[1]
    if any(d != 0 for d in flatten(thr.stride)):
        raise fail(f"{row.key}: SS ALayout thread stride {thr.stride}, expected 0 (every thread "
                   "sees the whole tile)")
    k_atom = _atom_k(row)
    k16 = sorted({f.k_elems for f in spec.of(RegisterFragment)
                  if f.operand == "A" and f.k_elems == k_atom})
    if not k16:
        raise fail(f"{row.key}: no k{k_atom} A row in the register-fragment table")
    wgmma_m = facts.wgmma_m(spec)
    val_shape = tuple(val.shape) if isinstance(val.shape, tuple) else (val.shape,)
    expect_equal("value shape (M, K)", val_shape, (wgmma_m, k16[0]), source=row.key,
                 witness=f"wgmma m{wgmma_m} and the k{k16[0]} register-fragment rows",
                 status=Status.DISCREPANCY)
    expect_equal("value strides", tuple(flatten(val.stride)), (1, wgmma_m), source=row.key,
                 witness="the column-major index m + k * M")
    return f"thread stride 0; values {val} cover M{wgmma_m} x K{k16[0]}"
