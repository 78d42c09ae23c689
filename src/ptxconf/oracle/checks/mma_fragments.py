"""mma.sync fragments: the PTX ISA's formulas (spec/warp/mma_fragments.yaml) and CuTe's SM80/SM89
atoms (spec/cute/mma_traits_sm*.yaml, mma_layouts_sm*.yaml), two statements of one map.

* `mma.fragment[<row>]`: the formulas read, their lines take each element once, and (lane,
  element) -> (row, col) is a bijection from the warp's lanes x a0..aX onto the operand's
  matrix; registers x elements per register = the elements listed; each type's elements fill
  the register width (facts.register_bits), as the register type spells it (f16x2: two
  16-bit elements; f32, s32: one element of that width; b32: any packing).
* `cute.mma_traits[<traits>]`: the Operation struct's name spells the row's value types (D, A,
  B, C); the struct whose traits give the layouts has the same MxNxK and A/B letters, and a
  ThrID, ALayout, BLayout and CLayout row.
* `cute.mma_layouts_read[<ThrID row>]`: a warp-wide atom's layouts (an SM80+ mma.sync atom's)
  are the layouts of some traits row, so that its type pairs' cases read them.
* `cute.mma_vs_ptx[<traits>~<fragment>]`: for A, B and C, CuTe's layout at (thread, value)
  names the element the ISA's formula gives lane ThrID(thread), element a_value (both count a
  thread's elements low to high through its registers): a difference is a discrepancy of the
  two documents, with the first differing point in both coordinates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

import numpy as np

from ptxconf.oracle import facts
from ptxconf.oracle import mma_fragments as F
from ptxconf.oracle.checks.base import (
    Case,
    Verdict,
    discrepancy,
    expect_equal,
    fail,
    make_case,
)
from ptxconf.oracle.checks.cute_names import ATOM_NAME, TYPE_ORDER, row_layout, type_tokens
from ptxconf.oracle.records import CuteLayout, CuteMmaTraits, MmaFragment
from ptxconf.oracle.spec import Spec

#: A register type as PTX spells it: b32, f32, f16x2 (width, and elements packed).
REGISTER_TYPE = re.compile(r"[a-z]+(?P<bits>\d+)(?:x(?P<count>\d+))?")
#: CuTe's roles of a traits struct, and which value type each of A, B, C reads (C: "C or D").
ROLES = ("ThrID", "ALayout", "BLayout", "CLayout")
OPERANDS = ("A", "B", "C")


def cases(spec: Spec) -> Iterator[Case]:
    """One case per fragment row, one per traits row, one per traits row and operand."""
    for row in spec.of(MmaFragment):
        yield make_case("mma.fragment", row.key, partial(_fragment, spec, row))
    for traits in spec.of(CuteMmaTraits):
        yield make_case("cute.mma_traits", traits.key, partial(_traits, spec, traits))
    for thr in spec.of(CuteLayout):
        if thr.role == "ThrID" and _warp_wide(spec, thr):
            yield make_case("cute.mma_layouts_read", thr.key, partial(_layouts_read, spec, thr))
    for traits in spec.of(CuteMmaTraits):
        for operand in OPERANDS:
            frag, want = fragment_of(spec, traits, operand)
            key = f"{traits.key}~{frag.key if frag else want}"
            yield make_case("cute.mma_vs_ptx", key,
                            partial(_vs_ptx, spec, traits, operand, frag, want))


# --- the ISA's rows ----------------------------------------------------------------------------


def _fragment(spec: Spec, row: MmaFragment) -> str:
    """Counts, widths and the bijection of one fragment row."""
    try:
        rows, cols = F.isa_dims(row)
    except ValueError as exc:
        raise fail(f"{row.key}: {exc}") from None
    n = F.elements(row)
    expect_equal("registers x elements per register", row.registers * row.elems_per_register, n,
                 source=row.key, witness=f"the elements a0..a{row.last_index}")
    reg_bits = facts.register_bits(spec)
    for t in row.types:
        expect_equal(f"bits of {row.elems_per_register} {t} element(s)",
                     row.elems_per_register * spec.element_bits(t), reg_bits, source=row.key,
                     witness="facts.register_bits (wgmma/register_fragments)")
    m = REGISTER_TYPE.fullmatch(row.register_type)
    if m is None:
        raise fail(f"{row.key}: register type {row.register_type!r} does not read as "
                   "<kind><bits>[x<count>]")
    count = int(m["count"] or 1)
    expect_equal(f"bits of a {row.register_type} register", int(m["bits"]) * count, reg_bits,
                 source=row.key, witness="facts.register_bits (wgmma/register_fragments)")
    element = row.register_type.split("x")[0]
    if m["count"] is not None or element in facts.element_types(spec):
        # f16x2: two elements of the f16 width (f16, bf16); f32: one f32 (a b32 holds any)
        expect_equal(f"elements of a {row.register_type} register", row.elems_per_register,
                     count, source=row.key, witness=row.register_type)
        expect_equal(f"bits of an element of a {row.register_type} register",
                     spec.element_bits(row.types[0]) if row.types else 0, int(m["bits"]),
                     source=row.key, witness=row.register_type)
        if m["count"] is None and element not in row.types:
            raise fail(f"{row.key}: {row.register_type} registers hold {row.register_type} "
                       f"elements, not {'/'.join(row.types)}", register_type=row.register_type,
                       types=list(row.types))
    lanes = facts.warp_threads(spec)
    expect_equal(f"{lanes} lanes x {n} elements", lanes * n, rows * cols, source=row.key,
                 witness=f"the {rows}x{cols} {row.operand} of {row.shape}")
    try:
        got = F.cells(spec, row)
    except F.FormulaError as exc:
        raise fail(str(exc)) from None
    problem = F.bijection_problem(row, got)
    if problem:
        raise fail(f"{row.key}: not a bijection: {problem}")
    return (f"(lane, element) -> (row, col): a bijection from {lanes} lanes x {n} elements "
            f"onto the {rows}x{cols} {row.operand}")


# --- CuTe's traits -----------------------------------------------------------------------------


def traits_layouts(spec: Spec, traits: CuteMmaTraits) -> dict[str, CuteLayout]:
    """Role -> the layout row of the struct whose traits give the layouts (missing roles left
    out)."""
    return {r.role: r for r in spec.of(CuteLayout) if r.atom == traits.layouts_of}


def value_type(traits: CuteMmaTraits, operand: str) -> str:
    """The value type of operand A, B or C (C or D: D's, which the traits give C too)."""
    order = dict(zip(TYPE_ORDER, traits.val_types, strict=False))
    return order.get("D" if operand == "C" else operand, "")


def fragment_of(spec: Spec, traits: CuteMmaTraits,
                operand: str) -> tuple[MmaFragment | None, str]:
    """The ISA's fragment row of one operand of an atom (its shape, operand and value type), and
    the id it is looked up by (`<shape>.<operand>.<type>`, the id such a row would have)."""
    m = ATOM_NAME.match(traits.id)
    shape = f"m{m['m']}n{m['n']}k{m['k']}" if m else traits.id
    dtype = value_type(traits, operand)
    found = [f for f in spec.of(MmaFragment)
             if f.shape == shape and f.operand == operand and dtype in f.types]
    return (found[0] if len(found) == 1 else None), f"{shape}.{operand}.{dtype}"


def _traits(spec: Spec, traits: CuteMmaTraits) -> str:
    """The name spells the value types; the layouts' struct has the name's MxNxK and letters
    and a row for each role."""
    tokens = [t.lower() for t in type_tokens(traits.id)]
    expect_equal("value types (D, A, B, C)", tuple(traits.val_types), tuple(tokens),
                 source=traits.key, witness=f"the name {traits.id}")
    mine, base = ATOM_NAME.match(traits.id), ATOM_NAME.match(traits.layouts_of)
    if mine is None or base is None:
        raise fail(f"{traits.key}: {traits.id} / {traits.layouts_of} do not read as "
                   "SM<arch>_<M>x<N>x<K>_<types>_<letters>")
    for part in ("arch", "m", "n", "k"):
        expect_equal(part, mine[part], base[part], source=traits.key,
                     witness=f"the traits it derives from, {traits.layouts_of}")
    expect_equal("A/B letters", traits.id.rsplit("_", 1)[-1], traits.layouts_of.rsplit("_", 1)[-1],
                 source=traits.key, witness=traits.layouts_of)
    have = traits_layouts(spec, traits)
    missing = [r for r in ROLES if r not in have]
    if missing:
        raise fail(f"{traits.key}: {traits.layouts_of} has no {', '.join(missing)} row in the "
                   "cute_layout tables", missing=missing)
    return (f"{traits.id}: {'/'.join(traits.val_types)} with the layouts of {traits.layouts_of}")


def _warp_wide(spec: Spec, thr: CuteLayout) -> bool:
    """A ThrID of a whole warp: an mma.sync atom of SM80 on (SM70's is a quadpair, SM90's a
    warpgroup)."""
    try:
        return row_layout(thr).size() == facts.warp_threads(spec)
    except Verdict:
        return False  # cute.layout fails for it


def _layouts_read(spec: Spec, thr: CuteLayout) -> str:
    """A warp-wide atom's layouts are the layouts of some traits row (its own MMA_Traits at
    least): else no gpu.mma_sync case and no comparison with the PTX ISA reads them."""
    readers = [t.id for t in spec.of(CuteMmaTraits) if t.layouts_of == thr.atom]
    if not readers:
        raise fail(f"{thr.key}: no cute_mma_traits row takes the layouts of {thr.atom}",
                   atom=thr.atom)
    return f"the layouts of {thr.atom} are read by {', '.join(readers)}"


def _vs_ptx(spec: Spec, traits: CuteMmaTraits, operand: str, frag: MmaFragment | None,
            want: str) -> str:
    """CuTe's layout of one operand against the ISA's formula, at every (thread, value)."""
    if frag is None:
        raise fail(f"{traits.key}: the PTX ISA rows (spec/warp/mma_fragments.yaml) state no "
                   f"single fragment {want} for {operand} of {traits.id}", wanted=want)
    have = traits_layouts(spec, traits)
    role = F.ROLE[operand]
    if role not in have or "ThrID" not in have:
        raise fail(f"{traits.key}: no ThrID and {role} rows of {traits.layouts_of}")
    layout, thr = row_layout(have[role]), row_layout(have["ThrID"])
    lanes, n = thr.size(), F.elements(frag)
    expect_equal(f"(threads, values) of {have[role].id}", (lanes, n),
                 (layout[0].size(), layout[1].size()), source=have[role].key,
                 witness=f"{facts.warp_threads(spec)} lanes x a0..a{frag.last_index} of {frag.key}")
    try:
        got = F.cells(spec, frag)
    except F.FormulaError as exc:
        raise fail(str(exc)) from None
    t = np.arange(lanes, dtype=np.int64)
    lane = F.layout_index(thr, (t,), F.NUMPY)
    v = np.arange(n, dtype=np.int64)
    cute = F.layout_index(layout, (t[:, None], v[None, :]), F.NUMPY)
    ptx = F.cute_index(frag, F.Cells(got.rows[lane], got.cols[lane]))
    differ = np.argwhere(cute != ptx)
    rows_c, _ = F.cute_dims(frag)
    dims = F.CUTE_DIMS[operand]
    if len(differ):
        tt, vv = (int(x) for x in differ[0])
        c_at = divmod(int(cute[tt, vv]), rows_c)[::-1]
        p_at = divmod(int(ptx[tt, vv]), rows_c)[::-1]

        def at(rc: tuple[int, ...]) -> str:
            return f"({dims[0]} {rc[0]}, {dims[1]} {rc[1]})"

        raise discrepancy(
            f"{traits.id} {role} {have[role].layout}: (T{tt}, V{vv}) is {at(c_at)}; the PTX ISA's "
            f"{frag.key} puts lane {int(lane[tt])}'s element {vv} at {at(p_at)} ({len(differ)} "
            f"of {lanes * n} differ)", point=[tt, vv], cute=list(c_at), ptx=list(p_at),
            differ=len(differ), layout=have[role].layout, fragment=frag.key)
    return (f"{traits.id} {role} {have[role].layout} == the PTX ISA's {frag.key} at all "
            f"{lanes} x {n} (thread, value)")


__all__ = ["cases", "fragment_of", "traits_layouts", "value_type"]
