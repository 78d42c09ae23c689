"""TMA checks: the PTX ISA's swizzling modes against their own pattern tables and repeats, against
wgmma's canonical layouts and base-offset table, the driver's CUtensorMapSwizzle enumerators and
CuTe's get_tma_swizzle_bits; the box requirements of the driver against the PTX ISA's bounding
box and the swizzle's cell."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.core.results import Status
from ptxconf.oracle import facts, tma
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.canonical import row_swizzle
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import (
    BaseOffsetRule,
    CanonicalLayout,
    CuteTmaSwizzle,
    TensorMapSwizzle,
    TmaRequirement,
    TmaSwizzleMode,
)
from ptxconf.oracle.spec import Spec


def cases(spec: Spec) -> Iterator[Case]:
    """One case a mode (pattern, repeat, wgmma), enumerator, CuTe row and requirement row."""
    for row in spec.of(TmaSwizzleMode):
        yield make_case("tma.pattern", row.key, partial(_pattern, row))
        yield make_case("tma.repeat", row.key, partial(_repeat, spec, row))
        yield make_case("tma.wgmma_swizzle", row.key, partial(_wgmma, spec, row))
    for enum in spec.of(TensorMapSwizzle):
        yield make_case("tma.tensor_map", enum.key, partial(_tensor_map, spec, enum))
    for cute in spec.of(CuteTmaSwizzle):
        yield make_case("tma.cute", cute.key, partial(_cute, spec, cute))
    for req in spec.of(TmaRequirement):
        tie = _TIES.get((req.file, req.id))
        if tie is not None:
            yield make_case("tma.requirement", req.key, partial(tie, spec, req))


def _pattern(row: TmaSwizzleMode) -> str:
    """The printed table is the derived swizzle's, cell for cell; a line is whole cells."""
    lines = tma.pattern_lines(row)
    swz = tma.derived_swizzle(row)
    want = tma.printed_table(swz, len(lines), len(lines[0]))
    for i, (got, derived) in enumerate(zip(lines, want, strict=True)):
        if got != derived:
            raise fail(f"{row.id}: printed line {i} is {got}, {swz} on byte addresses gives "
                       f"{derived}", line=i, printed=got, derived=derived, swizzle=str(swz))
    if row.cell_bytes is not None and row.line_bytes is not None:
        expect_equal(f"{row.id}: cells x cell bytes of a printed line", row.line_bytes,
                     len(lines[0]) * row.cell_bytes, source=f"{row.key} line_bytes",
                     witness="the printed line's cells")
    return f"{len(lines)} printed lines are {swz} on byte addresses ({len(lines[0])} cells a line)"


def _repeat(spec: Spec, row: TmaSwizzleMode) -> str:
    """The start alignment is the swizzle's period, the base-offset formula counts lines of it,
    and wgmma's base-offset table states the same repeat and line."""
    swz = tma.derived_swizzle(row)
    if swz.bits == 0:
        given = {k: getattr(row, k) for k in ("repeat_bytes", "line_bytes", "base_offset_modulus")
                 if getattr(row, k) is not None}
        if given:
            raise fail(f"{row.id}: a mode without a swizzle states {given}", **given)
        return "no swizzle: no repeat, no base offset"
    assert row.repeat_bytes is not None and row.line_bytes is not None
    expect_equal(f"{row.id}: start alignment (bytes)", row.repeat_bytes, swz.period(),
                 source=row.key, witness=f"the period of {swz}")
    expect_equal(f"{row.id}: base-offset modulus", row.base_offset_modulus,
                 row.repeat_bytes // row.line_bytes, source=row.key,
                 witness="repeat_bytes / line_bytes")
    rule = next((r for r in spec.of(BaseOffsetRule) if r.swizzle == row.swizzle), None)
    if rule is None:
        raise fail(f"{row.id}: wgmma's base-offset table has no {row.swizzle} row")
    expect_equal(f"{row.swizzle}: the repeat (bytes)", rule.repeat_bytes, row.repeat_bytes,
                 source=rule.key, witness=row.key, status=Status.DISCREPANCY)
    expect_equal(f"{row.swizzle}: the base offset's line (bytes)",
                 1 << rule.address_shift_bits, row.line_bytes, source=rule.key, witness=row.key,
                 status=Status.DISCREPANCY)
    return (f"{row.repeat_bytes}-B start alignment = the period of {swz}; (dstMem / "
            f"{row.line_bytes}) % {row.base_offset_modulus}; wgmma's {rule.key} agrees")


def _wgmma(spec: Spec, row: TmaSwizzleMode) -> str:
    """TMA writes a mode with the swizzle wgmma's canonical layouts of that mode read with."""
    swz = tma.derived_swizzle(row)
    theirs = [r for r in spec.of(CanonicalLayout) if r.swizzle == row.swizzle]
    if not theirs:
        raise fail(f"{row.id}: no canonical layout has swizzle mode {row.swizzle}")
    for c in theirs:
        other = row_swizzle(c)
        if not tma.same_function(swz, other):
            raise discrepancy(f"{row.swizzle}: TMA writes {swz} (PTX ISA 5.5.7's table), wgmma's "
                              f"{c.key} reads {other}", tma=str(swz), wgmma=str(other),
                              canonical=c.key)
    return f"{swz} = the swizzle of {', '.join(c.id for c in theirs)}"


def _tensor_map(spec: Spec, enum: TensorMapSwizzle) -> str:
    """The driver's enumerator names the PTX ISA's mode: its chunk is the cell, its span the
    swizzle's 2**B cells, its inner-box limit the span ("<= the swizzle size")."""
    row = tma.mode_row(spec, enum.swizzle)
    swz = tma.derived_swizzle(row)
    if swz.bits == 0:
        for k in ("chunk_bytes", "span_bytes", "max_inner_box_bytes"):
            if getattr(enum, k) is not None:
                raise fail(f"{enum.id}: no swizzle, yet {k} = {getattr(enum, k)}")
        return f"{enum.id} = {enum.code}: no swizzle, no inner-box limit"
    expect_equal(f"{enum.id}: chunk (bytes)", row.cell_bytes, enum.chunk_bytes, source=row.key,
                 witness=enum.key, status=Status.DISCREPANCY)
    span = (1 << swz.bits) * (1 << swz.base)
    expect_equal(f"{enum.id}: span (bytes)", enum.span_bytes, span, source=enum.key,
                 witness=f"{row.key}: 2**B cells of {swz}", status=Status.DISCREPANCY)
    expect_equal(f"{enum.id}: largest inner box (bytes)", enum.max_inner_box_bytes,
                 enum.span_bytes, source=f"{enum.key} max_inner_box_bytes",
                 witness=f"{enum.key} span_bytes (\"<= the swizzle size\")",
                 status=Status.DISCREPANCY)
    return f"{enum.id} = {enum.code}: {enum.chunk_bytes}-B chunks within a {span}-B span = {swz}"


def _cute(spec: Spec, cute: CuteTmaSwizzle) -> str:
    """CuTe takes Swizzle<B,M,S> to the enumerator whose mode the PTX ISA swizzles with it; the
    SmemSwizzleBits value is B."""
    enum = next((e for e in spec.of(TensorMapSwizzle) if e.id == cute.tensor_map_swizzle), None)
    if enum is None:
        raise fail(f"{cute.id}: to_CUtensorMapSwizzle gives {cute.tensor_map_swizzle}, which "
                   "tma/tensor_map_swizzle.yaml has no row for")
    theirs = Swizzle(cute.swizzle_bits, cute.swizzle_base, cute.swizzle_shift)
    ours = tma.swizzle_of(spec, enum.swizzle)
    if not tma.same_function(theirs, ours):
        raise discrepancy(f"{cute.id}: CuTe takes {theirs} to {enum.id}, the PTX ISA's "
                          f"{enum.swizzle} mode swizzles with {ours}", cute=str(theirs),
                          ptx=str(ours), enumerator=enum.id)
    expect_equal(f"{cute.id}: SmemSwizzleBits value", cute.value, cute.swizzle_bits,
                 source=cute.key, witness="the B of its Swizzle<B,M,S>",
                 status=Status.DISCREPANCY)
    return f"{theirs} -> TMA::SmemSwizzleBits::{cute.id} = {cute.value} -> {enum.id}"


def _cell(spec: Spec) -> int:
    """The swizzles' cell (every swizzled mode's cell_bytes; they must agree)."""
    cells = {r.cell_bytes for r in spec.of(TmaSwizzleMode) if r.cell_bytes is not None}
    if len(cells) != 1:
        raise fail(f"the swizzling modes' cells differ: {sorted(cells)}")
    return cells.pop()


def _box_size(spec: Spec, req: TmaRequirement) -> str:
    """The PTX ISA's box granule is the driver's inner-dimension multiple."""
    other = tma.requirement(spec, tma.BOX_INNER)
    expect_equal("a box's byte granule", req.multiple_bytes, other.multiple_bytes,
                 source=req.key, witness=other.key, status=Status.DISCREPANCY)
    return f"{req.multiple_bytes} B = {other.key}"


def _box_inner(spec: Spec, req: TmaRequirement) -> str:
    """A box row is whole swizzle cells, so the swizzle never splits an element's row."""
    cell = _cell(spec)
    if req.multiple_bytes is None or req.multiple_bytes % cell:
        raise fail(f"{req.id}: a multiple of {req.multiple_bytes} B is not whole {cell}-B "
                   "swizzle cells", multiple_bytes=req.multiple_bytes, cell_bytes=cell)
    return f"{req.multiple_bytes} B = whole {cell}-B swizzle cells"


def _box_address(spec: Spec, req: TmaRequirement) -> str:
    """A destination aligned so, on a cell boundary: the swizzle moves whole cells."""
    cell = _cell(spec)
    if req.alignment_bytes is None or req.alignment_bytes % cell:
        raise fail(f"{req.id}: an alignment of {req.alignment_bytes} B leaves a destination "
                   f"inside a {cell}-B swizzle cell", alignment_bytes=req.alignment_bytes,
                   cell_bytes=cell)
    return f"{req.alignment_bytes}-B aligned: on a {cell}-B swizzle cell"


def _global_address(spec: Spec, req: TmaRequirement) -> str:
    """The driver's global address alignment is the PTX ISA's bounding-box address's."""
    other = tma.requirement(spec, tma.BOX_ADDRESS)
    expect_equal("a box address's alignment (bytes)", other.alignment_bytes,
                 req.alignment_bytes, source=other.key, witness=req.key,
                 status=Status.DISCREPANCY)
    return f"{req.alignment_bytes} B = {other.key}"


def _global_strides(spec: Spec, req: TmaRequirement) -> str:
    """Every row of the tensor starts as aligned as its address: strides are whole multiples."""
    addr = tma.requirement(spec, tma.GLOBAL_ADDRESS).alignment_bytes
    if req.multiple_bytes is None or addr is None or req.multiple_bytes % addr:
        raise fail(f"{req.id}: strides of {req.multiple_bytes} B leave rows off the {addr}-B "
                   "address alignment", multiple_bytes=req.multiple_bytes, alignment_bytes=addr)
    return f"a multiple of {req.multiple_bytes} B keeps every row {addr}-B aligned"


def _box_dim(spec: Spec, req: TmaRequirement) -> str:
    """One box spans wgmma's M rows: the pairing tile (tma_pairing) is one box."""
    m = facts.wgmma_m(spec)
    if req.max_elems is None or req.max_elems < m:
        raise fail(f"{req.id}: boxes of at most {req.max_elems} elements, wgmma's M is {m}",
                   max_elems=req.max_elems, wgmma_m=m)
    return f"at most {req.max_elems} elements: wgmma's M ({m} rows) is one box"


_TIES = {
    tma.BOX_SIZE: _box_size,
    tma.BOX_INNER: _box_inner,
    tma.BOX_ADDRESS: _box_address,
    tma.GLOBAL_ADDRESS: _global_address,
    tma.GLOBAL_STRIDES: _global_strides,
    tma.BOX_DIM: _box_dim,
}

__all__ = ["cases"]
