"""Shared-memory layout checks: Table 38, the LBO/SBO tables, the canonical layouts and
Figures 166-170, each against the others; every statement of the 128-bit normalization; what
each LBO/SBO definition counts before its offset applies; the imm-trans sentence and the
cuBLAS transpose table against each other and against CUTLASS's atom-name letters."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from functools import partial

import numpy as np

from ptxconf.core.results import Status
from ptxconf.oracle import canonical
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.records import (
    BaseOffsetRule,
    ByteOffsetDefinition,
    CanonicalLayout,
    InstructionType,
    MajorConvention,
    Normalization,
    SwizzleAtom,
    SwizzleAtomExample,
    WorkedExample,
)
from ptxconf.oracle.spec import Spec

#: Stride values no template can produce by itself: where one shows up, LBO/SBO was bound there.
LBO_MARK, SBO_MARK = 1_000_003, 2_000_003
#: Index of the MN mode and the K mode in every canonical layout ((MN...),(K...)).
MODE_OF = {"MN": 0, "K": 1}
#: The swizzle mode's name says its width: "128B" -> 128 bytes; 16 bytes = one 128-bit element.
U128_BYTES = canonical.NORMALIZED_BITS // canonical.BITS_PER_BYTE


def cases(spec: Spec) -> Iterator[Case]:
    """Cases for every atom, offset-definition, canonical, worked-example and base-offset row."""
    for atom in spec.of(SwizzleAtom):
        yield make_case("atom.canonical", atom.key, partial(_atom, spec, atom))
    for ex in spec.of(SwizzleAtomExample):
        yield make_case("atom.elements", ex.key, partial(_atom_example, spec, ex))
    for norm in spec.of(Normalization):
        yield make_case("normalization.width", norm.key, partial(_normalization, norm))
    for d in spec.of(ByteOffsetDefinition):
        yield make_case("offset_definition.template", d.key, partial(_definition, spec, d))
    for d in spec.of(ByteOffsetDefinition):
        if d.used:
            yield make_case("offset_definition.extent", d.key, partial(_extent, spec, d))
    for row in spec.of(CanonicalLayout):
        yield make_case("canonical.injective", row.key, partial(_injective, spec, row))
    for fig in spec.of(WorkedExample):
        yield make_case("worked_example.t", fig.key, partial(_fig_t, spec, fig))
        yield make_case("worked_example.template", fig.key, partial(_fig_template, spec, fig))
        yield make_case("worked_example.formula", fig.key, partial(_fig_formula, spec, fig))
        yield make_case("worked_example.encoding", fig.key, partial(_fig_encoding, spec, fig))
        yield make_case("worked_example.injective", fig.key, partial(_fig_injective, fig))
    for rule in spec.of(BaseOffsetRule):
        yield make_case("base_offset.repeat", rule.key, partial(_base_repeat, spec, rule))
    for conv in spec.of(MajorConvention):
        yield make_case("major.convention", conv.key, partial(_convention, spec, conv))


def swizzle_width_u128(swizzle: str) -> int:
    """The width a swizzle mode's name states, in 16-byte units (none: one unit)."""
    return 1 if swizzle == "none" else int(swizzle.rstrip("B")) // U128_BYTES


def strided_mode(row: CanonicalLayout) -> int:
    """The mode that is not the major one: lines of the leading dimension repeat along it."""
    return MODE_OF["MN"] if row.major == "K" else MODE_OF["K"]


def _atom(spec: Spec, atom: SwizzleAtom) -> str:
    """Table 38's shape equals the mode name's width, 2^B of the swizzle, and the template."""
    row = canonical.canonical_row(spec, atom.major, atom.swizzle)
    src = f"Table 38 {atom.id}"
    expect_equal("atom width (u128)", atom.leading_u128, swizzle_width_u128(atom.swizzle),
                 source=src, witness=f"the mode name {atom.swizzle}")
    expect_equal("atom width (u128)", atom.leading_u128, 1 << row.swizzle_bits, source=src,
                 witness=f"2^B of {canonical.row_swizzle(row)}")
    strided = canonical.instantiate(row, 1, 1, 1, 0, 0)[strided_mode(row)]
    line_stride_u128 = flatten(strided.stride)[0]
    expect_equal("atom width (u128)", atom.leading_u128, line_stride_u128, source=src,
                 witness=f"stride between lines of canonical {row.id} at T=1")
    expect_equal("atom lines", atom.strided_elems, flatten(strided.shape)[0], source=src,
                 witness=f"canonical {row.id}")
    dims = (atom.leading_u128, atom.strided_elems)
    printed = "x".join(str(d) for d in (dims if atom.major == "MN" else dims[::-1]))
    expect_equal("printed shape", atom.printed_shape, printed, source=src,
                 witness="leading x strided (MN) / strided x leading (K)")
    return f"{atom.printed_shape} == {atom.leading_u128} x 16 B lines, {atom.strided_elems} lines"


def _atom_example(spec: Spec, ex: SwizzleAtomExample) -> str:
    """The tf32 sentence: the atom's leading extent in elements is leading_u128 * T."""
    atom = spec.get(SwizzleAtom, ex.atom)
    t = canonical.t_elems(spec, ex.dtype)
    expect_equal("atom leading extent (elements)", ex.leading_elems, atom.leading_u128 * t,
                 source=ex.key, witness=f"Table 38 {atom.id} x T={t}")
    expect_equal("atom strided extent", ex.strided_elems, atom.strided_elems, source=ex.key,
                 witness=f"Table 38 {atom.id}")
    return f"{ex.leading_elems}x{ex.strided_elems} elements"


def _marked(row: CanonicalLayout) -> Layout:
    """The template at T=1, m=k=2 with LBO and SBO bound to marks that show where they sit."""
    return canonical.instantiate(row, 1, 2, 2, LBO_MARK, SBO_MARK)


def _mode_of_mark(layout: Layout, mark: int) -> int | None:
    """Which top-level mode (0 = MN, 1 = K) has `mark` as a stride, or None."""
    for mode in (0, 1):
        if mark in flatten(layout[mode].stride):
            return mode
    return None


def _definition(spec: Spec, d: ByteOffsetDefinition) -> str:
    """The LBO/SBO table says which way the offset steps; the canonical template must agree."""
    mark = LBO_MARK if d.offset == "LBO" else SBO_MARK
    for swz in d.swizzles:
        row = canonical.canonical_row(spec, d.major, swz)
        mode = _mode_of_mark(_marked(row), mark)
        where = None if mode is None else ("MN", "K")[mode]
        if not d.used:
            if where is not None:
                raise discrepancy(f"{d.offset} for {row.id}: the {d.offset} table says 'not used', "
                                  f"canonical {row.id} steps along {where} by it",
                                  template=row.layout)
            continue
        if where != d.steps_along:
            raise discrepancy(f"{d.offset} for {row.id}: the {d.offset} table says it steps "
                              f"along {d.steps_along}, canonical {row.layout} puts it on "
                              f"{where or 'no mode'}", template=row.layout, table=d.text)
    return f"{d.offset} {'steps along ' + str(d.steps_along) if d.used else 'unused'} " \
           f"for {d.major}-major {list(d.swizzles)}"


def _normalization(norm: Normalization) -> str:
    """Each statement of the normalized width is the width T = 128 / width is computed with."""
    expect_equal("normalized element width (bits)", norm.normalized_bits,
                 canonical.NORMALIZED_BITS, source=norm.key,
                 witness="oracle/canonical.py NORMALIZED_BITS (T = width / element bits)")
    return f"{norm.normalized_bits}-bit normalized elements"


#: The definition tables' words for the two directions.
UNIT_DIRECTION = {"rows": "MN", "columns": "K"}


def _count(text: str, swizzle: str) -> int:
    """A count as a definition writes it: "8", or "swizzle-byte-size/16" for a swizzle mode."""
    expr = text.replace(" ", "").replace("swizzle-byte-size",
                                          str(swizzle_width_u128(swizzle) * U128_BYTES))
    num, _, den = expr.partition("/")
    if not num.isdigit() or (den and not den.isdigit()) or (den and int(num) % int(den)):
        raise fail(f"count {text!r} ({expr}) is not a whole number")
    return int(num) // int(den) if den else int(num)


def _extent(spec: Spec, d: ByteOffsetDefinition) -> str:
    """The LBO/SBO text counts rows/columns before the offset applies: the canonical template
    repeats that many 128-bit rows (MN-major MN) or elements before it steps by the offset."""
    if d.after is None or d.unit is None:
        raise fail(f"{d.key}: a used offset states what it steps over (after, unit)")
    expect_equal(f"{d.offset} direction", d.steps_along, UNIT_DIRECTION[d.unit], source=d.key,
                 witness=f"the text's word '{d.unit}' (rows run along MN, columns along K)")
    mark = LBO_MARK if d.offset == "LBO" else SBO_MARK
    said = []
    for swz in d.swizzles:
        row = canonical.canonical_row(spec, d.major, swz)
        layout = _marked(row)  # T = 1: counts in 128-bit rows / elements
        mode = _mode_of_mark(layout, mark)
        if mode is None:
            raise fail(f"{row.id}: {d.offset} is on no mode of {row.layout}")
        shape, stride = flatten(layout[mode].shape), flatten(layout[mode].stride)
        before = 1
        for extent in shape[:stride.index(mark)]:
            before *= extent
        want = _count(d.after, swz)
        if before != want:
            raise discrepancy(
                f"{d.key}: the {d.offset} text steps after {d.after} {d.unit} (= {want} for "
                f"{swz}); canonical {row.id} {row.layout} steps by {d.offset} after {before}",
                stated=want, template=before, swizzle=swz, template_layout=row.layout)
        if d.tile is not None:
            one = canonical.instantiate(row, 1, 1, 1, 0, 0)
            tile = f"{one[0].size()}x{one[1].size()}"
            expect_equal("tile (rows x columns)", d.tile, tile, source=d.key,
                         witness=f"canonical {row.id} at T=1, m=k=1", status=Status.DISCREPANCY)
        said.append(f"{swz}: {before}")
    return f"{d.offset} steps after {d.after} {d.unit} ({', '.join(said)})"


#: Which conventions a row is compared with: the PTX ISA's two statements with each other,
#: CUTLASS's atom-name letters with the PTX ISA's cuBLAS table.
COMPARED_WITH = {"imm-trans": "blas", "blas": "imm-trans", "cute-name": "blas"}


def _spelled_transposed(conv: MajorConvention) -> bool:
    """What the document's own spelling says: imm-trans-a is 1, "Transposed", "T"."""
    text = conv.spelled.strip()
    if conv.convention == "imm-trans":
        digits = [c for c in text if c.isdigit()]
        if len(digits) != 1 or digits[0] not in "01":
            raise fail(f"{conv.key}: {text!r} names no imm-trans value 0 or 1")
        return digits[0] == "1"
    if conv.convention == "blas":
        if text not in ("Transposed", "Non-Transposed"):
            raise fail(f"{conv.key}: {text!r} is not a column of the cuBLAS table")
        return text == "Transposed"
    if text not in ("N", "T"):
        raise fail(f"{conv.key}: {text!r} is not an atom-name letter N or T")
    return text == "T"


def _convention(spec: Spec, conv: MajorConvention) -> str:
    """The row's reading matches its spelling, and the compared convention's row for the same
    operand and orientation names the same major-ness."""
    expect_equal("transposed", conv.transposed, _spelled_transposed(conv), source=conv.key,
                 witness=f"the spelling {conv.spelled!r}")
    other_kind = COMPARED_WITH[conv.convention]
    others = [r for r in spec.of(MajorConvention) if r.convention == other_kind
              and (r.operand, r.transposed) == (conv.operand, conv.transposed)]
    if not others:
        raise fail(f"{conv.key}: no {other_kind} row for operand {conv.operand}, "
                   f"{'transposed' if conv.transposed else 'not transposed'}")
    for other in others:
        if other.major != conv.major:
            raise discrepancy(
                f"{conv.key}: {conv.operand} {conv.spelled!r} ({conv.convention}) is "
                f"{conv.major}-major; {other.key} ({other.convention}, {other.spelled!r}) says "
                f"{other.major}-major", code="documents_disagree", operand=conv.operand,
                transposed=conv.transposed, major=conv.major, other=other.key,
                other_major=other.major)
    return (f"{conv.operand} {conv.spelled!r} -> {conv.major}-major, as "
            f"{', '.join(o.key for o in others)}")


def _instruction_widths(spec: Spec) -> list[int]:
    """Every operand element width an instruction uses."""
    return sorted({spec.element_bits(i.atype) for i in spec.of(InstructionType)})


def tight_offsets(row: CanonicalLayout, t: int, m: int, k: int) -> tuple[int, int]:
    """LBO/SBO (elements) that place repeats one after another, with room to spare."""
    block = canonical.instantiate(row, t, 1, 1, 0, 0).cosize()
    granule = t  # 16 bytes: LBO/SBO are stored >> 4
    step = -(-block // granule) * granule
    return step, step * (m + 1) * (2 * k + 1)


def _injective(spec: Spec, row: CanonicalLayout) -> str:
    """Injective for every instruction width, m in 1..2, k within one swizzle atom."""
    width_u128 = swizzle_width_u128(row.swizzle)
    tried = 0
    for bits in _instruction_widths(spec):
        t = 128 // bits
        _per_mn, per_k = canonical.repeat_extents(row, t)
        k_max = max(1, (width_u128 * t) // per_k) if row.major == "K" and row.swizzle != "none" \
            else 2
        for m in (1, 2):
            for k in range(1, k_max + 1):
                lbo, sbo = tight_offsets(row, t, m, k)
                layout = canonical.instantiate(row, t, m, k, lbo, sbo)
                pair = first_collision(layout)
                if pair is not None:
                    raise fail(f"{row.id} (T={t}, m={m}, k={k}, LBO={lbo}, SBO={sbo} elems): "
                               f"coordinates {pair[0]} and {pair[1]} share offset {pair[2]}")
                tried += 1
    return f"injective in {tried} instantiations (k within one {row.swizzle} atom)"


def _offsets(layout: Layout | ComposedLayout) -> np.ndarray | None:
    """Every offset of a rank-2 layout in (k, mn) order (mn fastest), or None for a
    composition whose inner function is not a swizzle."""
    outer = layout if isinstance(layout, Layout) else layout.outer
    if isinstance(layout, ComposedLayout) and not isinstance(layout.inner, Swizzle):
        return None
    i, j = np.meshgrid(np.arange(outer[0].size(), dtype=np.int64),
                       np.arange(outer[1].size(), dtype=np.int64), indexing="ij")
    off = np.asarray(canonical.crd2idx_array((i, j), outer.shape, outer.stride), dtype=np.int64)
    if isinstance(layout, ComposedLayout):
        sw = layout.inner
        assert isinstance(sw, Swizzle)
        off = off + layout.offset
        off = off ^ ((off >> sw.shift) & sw.zzz_mask)  # Swizzle.__call__, over the array
    return off.ravel(order="F")


def first_collision(layout: Layout | ComposedLayout) -> tuple[tuple[int, int], tuple[int, int], int] | None:
    """Two coordinates (mn, k) that map to one offset, or None when injective: the first
    coordinate, in (k, mn) order, whose offset an earlier one has, and that earlier one."""
    rows, cols = (layout[0].size(), layout[1].size()) if isinstance(layout, Layout) else \
        (layout.outer[0].size(), layout.outer[1].size())
    offs = _offsets(layout)
    if offs is not None:  # the same answer as the loop below, over arrays
        _, first, inverse = np.unique(offs, return_index=True, return_inverse=True)
        repeats = np.flatnonzero(first[inverse] != np.arange(offs.size))
        if repeats.size == 0:
            return None
        at = int(repeats[0])
        was = int(first[inverse[at]])
        return (was % rows, was // rows), (at % rows, at // rows), int(offs[at])
    seen: dict[int, tuple[int, int]] = {}
    for j in range(cols):
        for i in range(rows):
            off = layout((i, j))
            if off in seen:
                return seen[off], (i, j), off
            seen[off] = (i, j)
    return None


def _split(text: str) -> tuple[Swizzle | None, str]:
    """'Swizzle<1,4,3> o L' -> (Swizzle, 'L'); plain 'L' -> (None, 'L')."""
    head, sep, tail = text.partition(" o ")
    if not sep:
        return None, text.strip()
    swz = parse(head)
    if not isinstance(swz, Swizzle):
        raise fail(f"{text!r}: expected 'Swizzle<B,M,S> o layout'")
    return swz, tail.strip()


def _fig_t(spec: Spec, fig: WorkedExample) -> str:
    """T in the figure equals 128 / width of its type."""
    expect_equal("T", fig.t_elems, canonical.t_elems(spec, fig.dtype), source=f"Figure {fig.figure}",
                 witness=f"128 / width({fig.dtype})")
    return f"T={fig.t_elems}"


def _fig_template(spec: Spec, fig: WorkedExample) -> str:
    """The figure's canonical layout is the canonical table's row, with the same swizzle."""
    row = canonical.canonical_row(spec, fig.major, fig.swizzle)
    swz, template = _split(fig.canonical_layout)
    expect_equal("canonical template", template.replace(" ", ""), row.layout.replace(" ", ""),
                 source=f"Figure {fig.figure}", witness=f"canonical table {row.id}",
                 status=Status.DISCREPANCY)
    expect_equal("swizzle", str(swz), str(canonical.row_swizzle(row)),
                 source=f"Figure {fig.figure}", witness=f"canonical table {row.id}",
                 status=Status.DISCREPANCY)
    return f"{row.id}: {row.layout}"


def _fig_formula(spec: Spec, fig: WorkedExample) -> str:
    """The exact layout equals the canonical template bound with the figure's parameters."""
    row = canonical.canonical_row(spec, fig.major, fig.swizzle)
    lbo = LBO_MARK if fig.lbo_elems is None else fig.lbo_elems
    sbo = SBO_MARK if fig.sbo_elems is None else fig.sbo_elems
    derived = canonical.instantiate(row, fig.t_elems, fig.m, fig.k, lbo, sbo)
    if LBO_MARK in flatten(derived.stride) or SBO_MARK in flatten(derived.stride):
        raise discrepancy(f"Figure {fig.figure} gives no value for an offset its template uses",
                          derived=str(derived))
    swz, exact_text = _split(fig.exact_layout)
    exact = parse(exact_text)
    expect_equal("exact layout", str(exact), str(derived), source=f"Figure {fig.figure}",
                 witness=f"{row.layout} with T={fig.t_elems}, m={fig.m}, k={fig.k}, "
                         f"LBO={fig.lbo_elems}, SBO={fig.sbo_elems}", status=Status.DISCREPANCY)
    expect_equal("swizzle", str(swz), str(canonical.row_swizzle(row)),
                 source=f"Figure {fig.figure}", witness=row.id, status=Status.DISCREPANCY)
    return f"{swz} o {exact} == template"


def _fig_encoding(spec: Spec, fig: WorkedExample) -> str:
    """LBO/SBO encodings are the byte values >> the descriptor fields' shift."""
    fmt = descriptor_format(spec)
    bits = spec.element_bits(fig.dtype)
    for name, elems, enc, field in (("LBO", fig.lbo_elems, fig.lbo_u128, "leading_byte_offset"),
                                    ("SBO", fig.sbo_elems, fig.sbo_u128, "stride_byte_offset")):
        shift = fmt.field(field).encode_shift_bits
        if fig.encode_shift_bits is None:
            raise fail(f"Figure {fig.figure}: no encode_shift_bits (the figure writes "
                       f"\"({name}) >> <shift>\")")
        expect_equal(f"{name} encoding shift", fig.encode_shift_bits, shift,
                     source=f"Figure {fig.figure}", witness=f"descriptor field {field}",
                     status=Status.DISCREPANCY)
        if elems is None:
            continue
        expect_equal(f"{name} encoding", enc, (elems * bits // 8) >> shift,
                     source=f"Figure {fig.figure}", witness=f"{elems} x sizeof({fig.dtype}) >> {shift}",
                     status=Status.DISCREPANCY)
    if fig.lbo_assumed:
        (unused,) = [d for d in spec.of(ByteOffsetDefinition)
                     if d.offset == "LBO" and d.major == fig.major and fig.swizzle in d.swizzles]
        expect_equal("assumed LBO encoding", fig.lbo_u128, unused.assumed_u128,
                     source=f"Figure {fig.figure}", witness=unused.key, status=Status.DISCREPANCY)
    return f"LBO {fig.lbo_u128}, SBO {fig.sbo_u128} (16-byte units)"


def _fig_injective(fig: WorkedExample) -> str:
    """No two elements of the figure's exact layout share an address."""
    swz, exact_text = _split(fig.exact_layout)
    exact = parse(exact_text)
    assert isinstance(exact, Layout)
    pair = first_collision(exact)
    if pair is not None:
        (a, b, off) = pair
        raise discrepancy(
            f"Figure {fig.figure}'s exact layout {exact} maps (mn,k)={a} and {b} to element "
            f"offset {off}: not injective (its k={fig.k} spans {2 * fig.k} 16-byte chunks per row, "
            f"wider than the {fig.swizzle} atom)", first=list(a), second=list(b), offset=off,
            explain=f"ptxconf explain layout {shlex.quote(exact_text)} --dtype {fig.dtype}")
    return f"injective over {exact.size()} elements"


def _base_repeat(spec: Spec, rule: BaseOffsetRule) -> str:
    """The repeat is the period of the mode's swizzle on byte addresses; shift = M + S."""
    rows = [r for r in spec.of(CanonicalLayout) if r.swizzle == rule.swizzle]
    swz = canonical.row_swizzle(rows[0])
    expect_equal("repeat (bytes)", rule.repeat_bytes, swz.period(), source=rule.key,
                 witness=f"period of {swz} on byte addresses (swizzle_unit=bytes)")
    expect_equal("address shift (bits)", rule.address_shift_bits, swz.base + swz.shift,
                 source=rule.key, witness=f"{swz}: the row bits start at M+S")
    return f"{rule.swizzle}: repeats every {rule.repeat_bytes} bytes"

