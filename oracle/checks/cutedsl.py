"""CuTeDSL blog checks: its atom-selection rule against Table 38 and the canonical layouts,
its printed atoms against its own rule, and its worked examples against the algebra."""

from __future__ import annotations

from collections.abc import Iterator

from ptxconf.oracle import canonical
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout, tile_to_shape
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
from ptxconf.oracle.checks import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import (
    AtomSelection,
    CanonicalLayout,
    CuteDslExample,
    PrintedAtom,
    SwizzleAtom,
)
from ptxconf.oracle.spec import Spec

from ptxconf.results import Status


def cases(spec: Spec) -> Iterator[Case]:
    """One case per selection row, printed atom and worked example."""
    for sel in spec.of(AtomSelection):
        yield make_case("cutedsl.selection", sel.key, lambda s=sel: _selection(spec, s))
    for atom in spec.of(PrintedAtom):
        yield make_case("cutedsl.printed_atom", atom.key, lambda a=atom: _printed(spec, a))
    for ex in spec.of(CuteDslExample):
        body = {"select": _select, "swizzle": _swizzle, "tile_to_shape": _tile,
                "period": _period}[ex.example]
        yield make_case(f"cutedsl.{ex.example}", ex.key, lambda ex=ex, b=body: b(spec, ex))


def selection_swizzle(sel: AtomSelection) -> Swizzle:
    """The Swizzle<b,m,s> a selection row builds."""
    return Swizzle(sel.swizzle_bits, sel.swizzle_base, sel.swizzle_shift)


def dsl_atom(sel: AtomSelection, major: str, elem_bits: int) -> ComposedLayout:
    """The atom the blog's make_smem_layout_atom builds for a selection, major-ness and width."""
    n = sel.contiguous_bits // elem_bits
    outer = Layout((n, 8), (1, n)) if major == "MN" else Layout((8, n), (n, 1))
    return ComposedLayout(selection_swizzle(sel), 0, outer)


def _selection(spec: Spec, sel: AtomSelection) -> str:
    """Contiguous bits and swizzle agree with Table 38 and the canonical layouts, both majors."""
    for atom in (a for a in spec.of(SwizzleAtom) if a.swizzle == sel.swizzle):
        expect_equal(f"contiguous bits ({atom.id})", sel.contiguous_bits,
                     atom.leading_u128 * canonical.NORMALIZED_BITS, source=sel.key,
                     witness=f"Table 38 {atom.id}",
                     status=Status.DISCREPANCY)
    for row in (r for r in spec.of(CanonicalLayout) if r.swizzle == sel.swizzle):
        expect_equal(f"swizzle ({row.id})", str(selection_swizzle(sel)),
                     str(canonical.row_swizzle(row)), source=sel.key,
                     witness=f"canonical {row.id}", status=Status.DISCREPANCY)
    wider = [s for s in spec.of(AtomSelection) if s.contiguous_bits > sel.contiguous_bits]
    expect_equal("try order", sel.try_order, len(wider), source=sel.key,
                 witness="the rule tries the widest atom first (rank by contiguous bits)")
    return f"{sel.contiguous_bits} bits, {selection_swizzle(sel)}"


def _printed(spec: Spec, atom: PrintedAtom) -> str:
    """The printed atom equals what the blog's own rule builds for that kind and type."""
    (sel,) = [s for s in spec.of(AtomSelection) if s.swizzle == atom.swizzle]
    built = dsl_atom(sel, atom.major, spec.element_bits(atom.dtype))
    printed = parse(atom.layout)
    if not isinstance(printed, ComposedLayout) or printed != built:
        raise discrepancy(f"the blog prints {atom.layout}; its make_smem_layout_atom builds {built} "
                          f"for {atom.major}-major {atom.dtype}", printed=atom.layout,
                          built=str(built))
    return str(built)


def major_mode_size(layout: Layout) -> int:
    """The size of the mode with stride 1 (the major mode)."""
    for mode in layout.modes():
        if flatten(mode.stride)[0] == 1:
            return mode.size()
    raise fail(f"{layout} has no stride-1 mode")


def _select(spec: Spec, ex: CuteDslExample) -> str:
    """Major-mode size and bits, and the first atom (widest first) whose width divides them."""
    assert ex.layout is not None and ex.dtype is not None
    layout = parse(ex.layout)
    assert isinstance(layout, Layout)
    size = major_mode_size(layout)
    bits = size * spec.element_bits(ex.dtype)
    expect_equal("major mode size", ex.major_mode_size_elems, size, source=ex.key,
                 witness=f"stride-1 mode of {layout}")
    expect_equal("major mode bits", ex.major_mode_size_bits, bits, source=ex.key,
                 witness=f"{size} x width({ex.dtype})")
    order = sorted(spec.of(AtomSelection), key=lambda s: s.try_order)
    chosen = next(s.id for s in order if bits % s.contiguous_bits == 0)
    expect_equal("chosen atom", ex.chosen, chosen, source=ex.key, witness="the selection rule")
    return f"{size} x {ex.dtype} = {bits} bits -> {chosen}"


def _swizzle(spec: Spec, ex: CuteDslExample) -> str:
    """Plain and swizzled offsets of the example coordinate."""
    assert ex.layout is not None and ex.coord is not None
    layout = parse(ex.layout)
    swz = Swizzle(ex.swizzle_bits or 0, ex.swizzle_base or 0, ex.swizzle_shift or 0)
    plain = layout(tuple(ex.coord))
    expect_equal("plain offset", ex.plain_offset_elems, plain, source=ex.key,
                 witness=f"{layout} at {tuple(ex.coord)}")
    expect_equal("swizzled offset", ex.swizzled_offset_elems, swz(plain), source=ex.key,
                 witness=f"{swz}({plain})")
    return f"{plain} -> {swz(plain)}"


def _tile(spec: Spec, ex: CuteDslExample) -> str:
    """tile_to_shape of the atom equals the printed result; repeats = target / atom."""
    assert ex.atom and ex.target_shape and ex.result
    atom = parse(ex.atom)
    assert isinstance(atom, ComposedLayout)
    order = tuple(ex.order) if ex.order else None
    if order is not None and sorted(order) != list(range(len(order))):
        raise fail(f"order {order}: expected a permutation of the modes 0..{len(order) - 1}")
    built = tile_to_shape(atom, tuple(ex.target_shape), order)
    repeats = [t // s for t, s in zip(ex.target_shape, (atom.outer[0].size(), atom.outer[1].size()),
                                      strict=True)]
    expect_equal("atom repeats", list(ex.atom_repeats or []), repeats, source=ex.key,
                 witness="target shape / atom shape")
    try:
        printed = parse(ex.result)
    except ValueError as exc:
        raise discrepancy(f"the blog's result {ex.result!r} does not parse: {exc}") from None
    if printed != built:
        raise discrepancy(f"the blog prints {ex.result}; tile_to_shape gives {built}",
                          printed=ex.result, built=str(built))
    return str(built)


def _period(spec: Spec, ex: CuteDslExample) -> str:
    """The swizzle's period, and what the blog says it is in bytes."""
    swz = Swizzle(ex.swizzle_bits or 0, ex.swizzle_base or 0, ex.swizzle_shift or 0)
    expect_equal("period (offset units)", ex.period_units, swz.period(), source=ex.key,
                 witness=f"{swz}: 2^(B+M+S)")
    width_bytes = (1 << swz.bits) * (1 << swz.base)
    if ex.stated_period_bytes != swz.period():
        raise discrepancy(
            f"the blog reads {swz}'s period of {swz.period()} offset units as {swz.period()} bits "
            f"= {ex.stated_period_bytes} B; on byte addresses (swizzle_unit=bytes, as the hardware "
            f"swizzles) the pattern repeats every {swz.period()} B, on bf16 element offsets every "
            f"{swz.period() * 2} B; {ex.stated_period_bytes} B is the swizzle's row width "
            f"(2^B x 2^M = {width_bytes} B)", stated_bytes=ex.stated_period_bytes,
            period_bytes_if_byte_offsets=swz.period(), row_width_bytes=width_bytes)
    return f"period {swz.period()}"
