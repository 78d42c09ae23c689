"""CuTe MMA-atom checks (spec/cute/mma_atoms.yaml, seed 004) and their ties to seed 001.

Per row: the layout parses; the atom name's MxNxK agrees with the codomain; every spelled-out
point satisfies layout(thread, value) == index == row + col * rows; a C/A/B layout is a
bijection from its domain onto the codomain (a broadcast layout, thread stride 0, must cover it
with its value mode alone); a ThrID is injective into the threads it names. Across rows and
documents: the ThrID's size is every layout's thread count; the SM90 64xN CLayout is the 64x8
atom repeated along N; its value count is the accumulator's elements per thread of the
register-fragment table; the SS ALayout broadcasts an M64 x K16 tile; a layout's domain comment
agrees with its shape; the document's C++ spelling of each layout (`layout_cpp`) is the row's
layout. The document's other statements are `cute_statements`' cases; what names spell,
`cute_names`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from ptxconf.core.results import Status
from ptxconf.oracle import facts, fragments
from ptxconf.oracle.algebra.int_tuple import flatten, product
from ptxconf.oracle.algebra.layout import Layout, image, to_function_table
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import (
    CuteLayout,
    ElementType,
    RegisterFragment,
)
from ptxconf.oracle.spec import Spec

from . import cute_statements
from .cute_names import ATOM_NAME, accumulators, arch, atom_k, cpp_layout, row_layout, type_tokens

#: A row id's prefix names the atom too: SM70_8x8x4.CLayout.f32, SM90_64x8.CLayout, SM90_64xNx16...
_ID_PREFIX = re.compile(r"(?P<arch>SM\d+)_(?P<m>\d+)x(?P<n>\d+|N)(?:x(?P<k>\d+))?\.")
#: A domain comment: (T128,V64x8) -> (M64,K16), or (T8,V4) -> (m,k) without the sizes.
_COMMENT = re.compile(r"\(T(?P<t>\d+),V(?P<v>\d+(?:x\d+)*)\)\s*->\s*"
                      r"\((?P<r>[MNKmnk])(?P<rows>\d+)?,(?P<c>[MNKmnk])(?P<cols>\d+)?\)")
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
    yield from cute_statements.cases(spec, rows)
    for row in rows:
        if row.role == "CLayout" and arch(row) == "SM90":
            yield make_case("cute.clayout_repeat", row.key,
                            partial(_clayout_repeat, spec, row))
            for frag in accumulators(spec, atom_k(row)):
                yield make_case("cute.clayout_vs_fragment", f"{row.key}~{frag.key}",
                                partial(_clayout_vs_fragment, row, frag))
        if row.role == "ALayout" and arch(row) == "SM90":
            yield make_case("cute.ss_alayout", row.key, partial(_ss_alayout, spec, row))


def _atom_types(spec: Spec, row: CuteLayout) -> None:
    """The atom name's D/A/B/C types (F32F16F16F32) are element types of the spec."""
    tokens = type_tokens(row.atom)
    known = {t.id for t in spec.of(ElementType)}
    if len(tokens) != 4 or any(t.lower() not in known for t in tokens):
        raise fail(f"{row.key}: atom {row.atom!r}: types {tokens} are not four element types "
                   f"(D, A, B, C) of spec/wgmma/element_types.yaml")


def _row(spec: Spec, row: CuteLayout) -> str:
    """Parse, name, types, points and bijectivity of one row."""
    _atom_types(spec, row)
    _name_matches_id(row)
    layout = row_layout(row)
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
    m, i = ATOM_NAME.match(row.atom), _ID_PREFIX.match(row.id)
    if m is None or i is None:
        raise fail(f"{row.key}: atom {row.atom!r} / id {row.id!r} do not read as SM<arch>_<M>x<N>...")
    for part in ("arch", "m", "n", "k"):
        if i[part] is not None and i[part] != m[part]:
            raise fail(f"{row.key}: the id says {part} {i[part]}, the atom name {row.atom} says "
                       f"{m[part]}")


def _name_codomain(row: CuteLayout) -> None:
    """The atom name's MxNxK must give the codomain of the row's role (STYLE: ids are facts)."""
    m = ATOM_NAME.match(row.atom)
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
    n = row_layout(thr_row).size()
    same = [r for r in rows if r.role != "ThrID" and arch(r) == arch(thr_row)]
    if not same:
        raise fail(f"{thr_row.key}: no layout of {arch(thr_row)} to compare with")
    if not any(r.atom == thr_row.atom for r in same):
        raise fail(f"{thr_row.key}: no C/A/B layout belongs to atom {thr_row.atom}; a ThrID "
                   f"describes the threads of an atom whose layouts the spec lists")
    for r in same:
        expect_equal(f"threads of {r.id}", n, row_layout(r)[0].size(), source=thr_row.key,
                     witness=r.key)
    return f"{n} threads in {len(same)} {arch(thr_row)} layouts"


def _comment(row: CuteLayout) -> str:
    """A `(T128,V64x8) -> (M64,K16)` comment must say what the layout's shape says."""
    m = _COMMENT.fullmatch((row.domain_comment or "").strip())
    if m is None:
        raise fail(f"{row.key}: domain comment {row.domain_comment!r} does not read as "
                   "(T<n>,V<a>x<b>) -> (<X><rows>,<Y><cols>)")
    layout = row_layout(row)
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


def _clayout_repeat(spec: Spec, row: CuteLayout) -> str:
    """An SM90 64xN CLayout equals the 64x8 atom repeated N/8 times along N (logical product)."""
    n = row.codomain_mn[1]
    if not accumulators(spec, atom_k(row)):
        raise fail(f"{row.key}: no accumulator rows at k{atom_k(row)} (the atom's K) in the "
                   "register-fragment table")
    derived = fragments.d_layout(spec, n)
    got = row_layout(row)
    if _table(got) != _table(derived):
        raise fail(f"{row.key}: {row.layout} differs from the 64x8 atom repeated {n // 8} times: "
                   f"{derived}", documented=row.layout, derived=str(derived))
    same_text = str(derived) == row.layout.replace(" ", "")
    reps = derived[1].shape[-1]  # type: ignore[index]  # the N mode of a logical product: a tuple
    return (f"{row.layout} == {facts.D_ATOM_ROW} x logical_product({reps}:1) = {derived}"
            + ("" if same_text else " (as functions)"))


def _clayout_vs_fragment(row: CuteLayout, frag: RegisterFragment) -> str:
    """Seed 004's values per thread == seed 001's accumulator elements per thread, at the same N."""
    layout = row_layout(row)
    rows, n = row.codomain_mn
    expect_equal(f"threads x values of {row.id}", rows * n, layout.size(), source=row.key,
                 witness=f"its {rows}x{n} codomain")
    expect_equal(f"values per thread (N={n})", frag.elements_for(n), layout[1].size(),
                 source=frag.key, witness=row.key, status=Status.DISCREPANCY)
    return f"N={n}: {layout[1].size()} values per thread == {frag.elements} of {frag.id}"


def _ss_alayout(spec: Spec, row: CuteLayout) -> str:
    """SS ALayout: thread stride 0, and a value mode that is exactly the M64 x K16 tile."""
    layout = row_layout(row)
    thr, val = layout[0], layout[1]
    if any(d != 0 for d in flatten(thr.stride)):
        raise fail(f"{row.key}: SS ALayout thread stride {thr.stride}, expected 0 (every thread "
                   "sees the whole tile)")
    k_atom = atom_k(row)
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
