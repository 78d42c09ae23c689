"""CuTeDSL blog checks: its atom-selection rule against Table 38 and the canonical layouts,
its printed atoms against its own rule, and its worked examples against the algebra."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.core.results import Status
from ptxconf.oracle import banks, canonical
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout, tile_to_shape
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import (
    AtomSelection,
    CanonicalLayout,
    CuteDslExample,
    PrintedAtom,
    SwizzleAtom,
    atom_name,
)
from ptxconf.oracle.spec import Spec


def cases(spec: Spec) -> Iterator[Case]:
    """One case per selection row, printed atom and worked example."""
    for sel in spec.of(AtomSelection):
        yield make_case("cutedsl.selection", sel.key, partial(_selection, spec, sel))
    for atom in spec.of(PrintedAtom):
        yield make_case("cutedsl.printed_atom", atom.key, partial(_printed, spec, atom))
    for ex in spec.of(CuteDslExample):
        body = {"select": _select, "swizzle": _swizzle, "tile_to_shape": _tile,
                "period": _period, "precondition": _precondition, "bank": _bank}[ex.example]
        yield make_case(f"cutedsl.{ex.example}", ex.key, partial(body, spec, ex))
    for ex in spec.of(CuteDslExample):
        if ex.bit_pattern is not None:
            yield make_case("cutedsl.bits", ex.key, partial(_bits, ex))
        if ex.example == "tile_to_shape" and ex.major is not None:
            yield make_case("cutedsl.tile_atom", ex.key, partial(_tile_atom, spec, ex))
        if ex.mode_layouts is not None:
            yield make_case("cutedsl.tile_modes", ex.key, partial(_tile_modes, spec, ex))


def selection_swizzle(sel: AtomSelection) -> Swizzle:
    """The Swizzle<b,m,s> a selection row builds."""
    return Swizzle(sel.swizzle_bits, sel.swizzle_base, sel.swizzle_shift)


def dsl_atom(sel: AtomSelection, major: str, elem_bits: int) -> ComposedLayout:
    """The atom the blog's make_smem_layout_atom builds for a selection, major-ness and width:
    (n, lines):(1, n) MN-major, (lines, n):(n, 1) K-major, n = contiguous bits / width."""
    n, lines = sel.contiguous_bits // elem_bits, sel.strided_elems
    if lines is None:
        raise fail(f"{sel.key}: no strided_elems (the 8 of make_layout((n, 8)))")
    outer = Layout((n, lines), (1, n)) if major == "MN" else Layout((lines, n), (n, 1))
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
    last = max(s.try_order for s in spec.of(AtomSelection))
    if sel.select_contiguous_bits is None:
        if sel.try_order != last:
            raise fail(f"{sel.key}: only the fallback (tried last) has no selection constant")
    else:
        expect_equal("contiguous bits", sel.select_contiguous_bits, sel.contiguous_bits,
                     source=f"{sel.key} (get_smem_layout_atom)",
                     witness="make_smem_layout_atom", status=Status.DISCREPANCY)
    for atom in (a for a in spec.of(SwizzleAtom) if a.swizzle == sel.swizzle):
        expect_equal(f"atom lines ({atom.id})", sel.strided_elems, atom.strided_elems,
                     source=sel.key, witness=f"Table 38 {atom.id}", status=Status.DISCREPANCY)
    return f"{sel.contiguous_bits} bits, {selection_swizzle(sel)}, {sel.strided_elems} lines"


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
    if ex.element_width_bits is not None:
        expect_equal(f"bits of one {ex.dtype} element", ex.element_width_bits,
                     spec.element_bits(ex.dtype), source=ex.key,
                     witness="wgmma/element_types", status=Status.DISCREPANCY)
    order = sorted(spec.of(AtomSelection), key=lambda s: s.try_order)
    sel = next(s for s in order if bits % s.contiguous_bits == 0)
    chosen = atom_name(ex.major or "K", sel.swizzle)
    expect_equal("chosen atom", ex.chosen, chosen, source=ex.key,
                 witness=f"the selection rule ({sel.id}) for a {ex.major}-major layout")
    if layout.cosize() != layout.size():
        raise fail(f"{ex.key}: {layout} is not a compact shared-memory tile "
                   f"(cosize {layout.cosize()}, size {layout.size()})")
    atom = dsl_atom(sel, ex.major or "K", spec.element_bits(ex.dtype)).outer
    tile = (layout[0].size(), layout[1].size())
    if any(t % a for t, a in zip(tile, (atom[0].size(), atom[1].size()), strict=True)):
        raise fail(f"{ex.key}: the {tile[0]}x{tile[1]} tile is not a whole number of the chosen "
                   f"{chosen} atom {atom} (tile_to_shape needs one)")
    return f"{size} x {ex.dtype} = {bits} bits -> {chosen}"


def _swizzle(spec: Spec, ex: CuteDslExample) -> str:
    """Plain and swizzled offsets of the example coordinate."""
    assert ex.layout is not None and ex.coord is not None
    layout = parse(ex.layout)
    swz = Swizzle(ex.swizzle_bits or 0, ex.swizzle_base or 0, ex.swizzle_shift or 0)
    if not isinstance(layout, Layout) or layout.cosize() != layout.size():
        raise fail(f"{ex.key}: {ex.layout} is not a compact layout")
    plain = layout(tuple(ex.coord))
    expect_equal("plain offset", ex.plain_offset_elems, plain, source=ex.key,
                 witness=f"{layout} at {tuple(ex.coord)}")
    expect_equal("swizzled offset", ex.swizzled_offset_elems, swz(plain), source=ex.key,
                 witness=f"{swz}({plain})")
    for what, text, value in (("plain", ex.plain_offset_binary, ex.plain_offset_elems),
                              ("swizzled", ex.swizzled_offset_binary, ex.swizzled_offset_elems)):
        if text is not None:
            expect_equal(f"{what} offset in binary", _binary(text, ex.key), value,
                         source=ex.key, witness=f"{what} offset {value}")
    return f"{plain} -> {swz(plain)}"


def _binary(text: str, where: str) -> int:
    """The value of the blog's `0b0000000011111001`."""
    body = text.strip()
    if not body.startswith("0b") or not body[2:] or set(body[2:]) - {"0", "1"}:
        raise fail(f"{where}: {text!r} is not a 0b... binary number")
    return int(body[2:], 2)


def _bits(ex: CuteDslExample) -> str:
    """The blog's bit picture: in `0bxxxxxxxUVxXYxxxx` the letters sit at bit positions
    (counted from the right); "X<-U" says X flips where U is 1. The flips must be exactly
    Swizzle<B,M,S>'s: bit M+i flips with bit M+S+i, i < B."""
    swz = Swizzle(ex.swizzle_bits or 0, ex.swizzle_base or 0, ex.swizzle_shift or 0)
    pattern = (ex.bit_pattern or "").strip()
    if not pattern.startswith("0b"):
        raise fail(f"{ex.key}: bit pattern {pattern!r} does not start with 0b")
    body = pattern[2:]
    pos = {c: len(body) - 1 - i for i, c in enumerate(body) if c != "x"}
    stated = set()
    for flip in ex.flips or ():
        target, arrow, source = flip.partition("<-")
        if not arrow or target not in pos or source not in pos:
            raise fail(f"{ex.key}: flip {flip!r} names letters not in {pattern}")
        stated.add((pos[target], pos[source]))
    actual = {(swz.base + i, swz.base + swz.shift + i) for i in range(swz.bits)}
    if stated != actual or len(pos) != 2 * swz.bits:
        raise discrepancy(f"{ex.key}: the blog's {pattern} with {list(ex.flips or ())} flips "
                          f"bits {sorted(stated)} (target, source); {swz} flips {sorted(actual)}",
                          stated=sorted(stated), swizzle=sorted(actual))
    said = [f"bit {t} with bit {s}" for t, s in sorted(actual)]
    if ex.period_binary is not None:
        expect_equal("period in binary", _binary(ex.period_binary, ex.key), ex.period_units,
                     source=ex.key, witness="period_units")
    if ex.pattern_bits is not None:
        expect_equal("bits that determine the pattern", ex.pattern_bits,
                     swz.bits + swz.base + swz.shift, source=ex.key, witness=f"{swz}: B+M+S")
    return f"{swz}: {', '.join(said)} ({len(body)}-bit picture)"


def built_atom(spec: Spec, ex: CuteDslExample) -> ComposedLayout:
    """The atom the blog's own make_smem_layout_atom builds for the example: its major-ness and
    type, and the swizzle its printed atom names; the printed atom where the row names no
    major-ness."""
    assert ex.atom
    printed = parse(ex.atom)
    if not isinstance(printed, ComposedLayout):
        raise fail(f"{ex.key}: {ex.atom!r} is not a composed layout")
    if ex.major is None or ex.dtype is None:
        return printed
    sels = [s for s in spec.of(AtomSelection) if selection_swizzle(s) == printed.inner]
    if len(sels) != 1:
        raise fail(f"{ex.key}: {printed.inner} is the swizzle of no selection row")
    return dsl_atom(sels[0], ex.major, spec.element_bits(ex.dtype))


def _tile(spec: Spec, ex: CuteDslExample) -> str:
    """tile_to_shape of the atom equals the printed result; repeats = target / atom; the atom's
    stated shape, and the atoms after which the swizzle pattern repeats."""
    assert ex.atom and ex.target_shape
    atom = built_atom(spec, ex)
    order = tuple(ex.order) if ex.order else None
    if order is not None and sorted(order) != list(range(len(order))):
        raise fail(f"order {order}: expected a permutation of the modes 0..{len(order) - 1}")
    built = tile_to_shape(atom, tuple(ex.target_shape), order)
    repeats = [t // s for t, s in zip(ex.target_shape, (atom.outer[0].size(), atom.outer[1].size()),
                                      strict=True)]
    expect_equal("atom repeats", list(ex.atom_repeats or []), repeats, source=ex.key,
                 witness="target shape / atom shape")
    if ex.atom_shape is not None:
        expect_equal("atom shape", list(ex.atom_shape),
                     [atom.outer[0].size(), atom.outer[1].size()], source=ex.key,
                     witness=f"the atom {atom}", status=Status.DISCREPANCY)
    if ex.period_units is not None or ex.pattern_repeat_atoms is not None:
        if not isinstance(atom.inner, Swizzle):
            raise fail(f"{ex.key}: the atom {atom} has no swizzle, so no period")
        period = atom.inner.period()
        expect_equal("index the pattern repeats after", ex.period_units, period, source=ex.key,
                     witness=f"{atom.inner}: 2^(B+M+S)", status=Status.DISCREPANCY)
        expect_equal("atoms the pattern repeats after", ex.pattern_repeat_atoms,
                     period // atom.outer.size(), source=ex.key,
                     witness=f"{period} / {atom.outer.size()} elements per atom",
                     status=Status.DISCREPANCY)
    if ex.result is None:
        return f"{built} ({' x '.join(map(str, repeats))} atoms)"
    try:
        printed = parse(ex.result)
    except ValueError as exc:
        raise discrepancy(f"the blog's result {ex.result!r} does not parse: {exc}") from None
    if printed != built:
        raise discrepancy(f"the blog prints {ex.result}; tile_to_shape gives {built}",
                          printed=ex.result, built=str(built))
    return str(built)


def _tile_atom(spec: Spec, ex: CuteDslExample) -> str:
    """The atom a tiling example prints, and the major-ness it labels it with, are the ones
    the blog's own make_smem_layout_atom builds for the example's major-ness and type."""
    built = built_atom(spec, ex)
    printed = parse(ex.atom or "")
    label = ex.atom_label_major or ex.major
    if printed != built or label != ex.major:
        raise discrepancy(
            f"{ex.key}: the blog prints the {ex.major}-major {ex.dtype} atom as {ex.atom}"
            + (f", labelled {label}-major" if label != ex.major else "")
            + f"; its make_smem_layout_atom builds {built}", printed=ex.atom,
            built=str(built), label_major=label, major=ex.major)
    return f"{ex.major}-major {ex.dtype}: {built}"


def _tile_modes(spec: Spec, ex: CuteDslExample) -> str:
    """Each mode of the result as the text derives it is that mode of tile_to_shape's result."""
    assert ex.target_shape
    order = tuple(ex.order) if ex.order else None
    built = tile_to_shape(built_atom(spec, ex), tuple(ex.target_shape), order)
    assert isinstance(built, ComposedLayout)  # tile_to_shape tiles a composed atom's outer layout
    for i, text in enumerate(ex.mode_layouts or ()):
        try:
            said = parse(text)
        except ValueError as exc:
            raise fail(f"{ex.key}: mode {i} {text!r} does not parse: {exc}") from None
        mode = built.outer[i]
        if said != mode:
            raise discrepancy(f"{ex.key}: the blog derives mode {i} as {text}; tile_to_shape's "
                              f"mode {i} is {mode}", mode=i, printed=text, built=str(mode))
    return f"modes {', '.join(ex.mode_layouts or ())} of {built}"


def _precondition(spec: Spec, ex: CuteDslExample) -> str:
    """get_smem_layout_atom asserts major_mode_size % m == 0: every selection example obeys."""
    m = ex.major_mode_multiple_elems
    if not m:
        raise fail(f"{ex.key}: no major_mode_multiple_elems")
    sizes = [(e.key, e.major_mode_size_elems) for e in spec.of(CuteDslExample)
             if e.example == "select"]
    bad = [k for k, size in sizes if size is None or size % m]
    if bad or not sizes:
        raise fail(f"{ex.key}: selection examples break 'assert major_mode_size % {m} == 0': "
                   f"{bad or 'none to check'}")
    return f"major_mode_size % {m} == 0 for {len(sizes)} selection example(s)"


def _bank(spec: Spec, ex: CuteDslExample) -> str:
    """A bank is a word of bank_word_bits (the oracle's bank model), holding that many bits
    over the type's width elements."""
    assert ex.dtype is not None
    expect_equal("bank word (bits)", ex.bank_word_bits, banks.BANK_BYTES * canonical.BITS_PER_BYTE,
                 source=ex.key, witness="oracle/banks.py BANK_BYTES")
    expect_equal(f"{ex.dtype} elements per bank word", ex.elems_per_bank_word,
                 (ex.bank_word_bits or 0) // spec.element_bits(ex.dtype), source=ex.key,
                 witness=f"{ex.bank_word_bits} / width({ex.dtype})")
    return f"{ex.elems_per_bank_word} {ex.dtype} per {ex.bank_word_bits}-bit bank word"


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
