"""Descriptor checks: the PTX bit fields against CUTLASS's, and the alignment they imply."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.core.results import Status
from ptxconf.oracle.checks.base import Case, expect_equal, fail, make_case
from ptxconf.oracle.descriptor import DESCRIPTOR_FILE, DescriptorFormat
from ptxconf.oracle.records import AlignmentRule, BaseOffsetRule, DescriptorField
from ptxconf.oracle.spec import Spec

WITNESS_FILE = "cute/gmma_descriptor.yaml"


def cases(spec: Spec) -> Iterator[Case]:
    """Witness comparison per field, field layout, and the alignment/base-offset ties."""
    ptx = {r.id: r for r in spec.in_file(DescriptorField, DESCRIPTOR_FILE)}
    for row in spec.in_file(DescriptorField, WITNESS_FILE):
        yield make_case("descriptor.witness", row.key, partial(_witness, row, ptx))
    fmt_rows = tuple(ptx.values())
    yield make_case("descriptor.fields_disjoint", f"{DESCRIPTOR_FILE[:-5]}:*",
                    partial(_disjoint, fmt_rows))
    for rule in spec.of(AlignmentRule):
        yield make_case("alignment.descriptor_granule", rule.key,
                        partial(_granule, rule, fmt_rows))
    for base_rule in spec.of(BaseOffsetRule):
        yield make_case("base_offset.field_width", base_rule.key,
                        partial(_base_offset_mask, base_rule, fmt_rows))


def _witness(row: DescriptorField, ptx: dict[str, DescriptorField]) -> str:
    """A CUTLASS field must sit where the PTX ISA puts it, with the same width, shift and codes."""
    if row.id not in ptx:
        raise fail(f"CUTLASS field {row.id!r} has no PTX counterpart in {DESCRIPTOR_FILE}")
    other = ptx[row.id]
    for attr in ("lsb_bits", "width_bits", "encode_shift_bits"):
        expect_equal(f"{row.id}.{attr}", getattr(other, attr), getattr(row, attr),
                     source="PTX ISA", witness="CUTLASS GmmaDescriptor", status=Status.DISCREPANCY)
    if row.codes is not None:
        expect_equal(f"{row.id}.codes", other.codes, row.codes, source="PTX ISA",
                     witness="CUTLASS GmmaDescriptor", status=Status.DISCREPANCY)
    return f"bits [{row.lsb_bits},{row.lsb_bits + row.width_bits}) >> {row.encode_shift_bits} agree"


def _disjoint(rows: tuple[DescriptorField, ...]) -> str:
    """Fields fit in 64 bits and do not overlap."""
    used = 0
    for r in rows:
        mask = ((1 << r.width_bits) - 1) << r.lsb_bits
        if mask >> 64:
            raise fail(f"field {r.id} runs past bit 63", lsb=r.lsb_bits, width=r.width_bits)
        if used & mask:
            raise fail(f"field {r.id} overlaps another field at {used & mask:#x}")
        used |= mask
    return f"{len(rows)} fields, mask {used:#018x}"


def _granule(rule: AlignmentRule, rows: tuple[DescriptorField, ...]) -> str:
    """The 16-byte rule equals the granule the descriptor's start-address field can express."""
    start = DescriptorFormat.from_rows(rows).field("start_address")
    expect_equal("smem operand start alignment (bytes)", rule.alignment_bytes,
                 1 << start.encode_shift_bits, source=rule.key,
                 witness="descriptor start-address field granule")
    return f"{rule.alignment_bytes}-byte alignment == start address stored >> {start.encode_shift_bits}"


def _base_offset_mask(rule: BaseOffsetRule, rows: tuple[DescriptorField, ...]) -> str:
    """The base-offset rule's mask fills exactly the descriptor's base-offset field."""
    field = DescriptorFormat.from_rows(rows).field("base_offset")
    expect_equal("base-offset mask", rule.mask, (1 << field.width_bits) - 1, source=rule.key,
                 witness=f"{field.width_bits}-bit base_offset field")
    return f"mask {rule.mask} fills the {field.width_bits}-bit field"
