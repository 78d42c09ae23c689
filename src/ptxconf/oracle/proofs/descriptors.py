"""The matrix descriptor's bit fields: round trip, disjointness, range; start-address alignment.

Packing is encoded from the DescriptorField rows of each descriptor file (the PTX ISA's and
CUTLASS's), never from literals: value & address mask, >> encode shift, masked to the width,
<< lsb.
"""

from __future__ import annotations

from collections.abc import Iterator

import z3

from ptxconf.oracle.descriptor import DESCRIPTOR_FILE, DescriptorError, DescriptorFormat
from ptxconf.oracle.proofs import render
from ptxconf.oracle.proofs.encode import DESCRIPTOR_BITS, Encoder, pack_field, unpack_field
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.records import AlignmentRule, DescriptorField
from ptxconf.oracle.spec import Spec

#: The descriptor field that holds an operand's start address.
START_FIELD = "start_address"


def in_range(enc: Encoder, f: DescriptorField, v: z3.BitVecRef) -> list[z3.BoolRef]:
    """The values a field is meant to hold: multiples of 2^shift below 2^(width+shift) (and
    below 2^address_bits where the value is an address)."""
    top = f.width_bits + f.encode_shift_bits
    if f.address_bits is not None:
        top = min(top, f.address_bits)
    return [z3.ULT(v, enc.val(1 << top, DESCRIPTOR_BITS)),
            enc.is_pow2_multiple(v, f.encode_shift_bits)]


def roundtrip(spec: Spec, row: DescriptorField) -> Claim:
    """Every in-range value of this field survives encode/decode, whatever the other fields
    hold (so the fields are disjoint and inside 64 bits)."""

    def body(prover: Prover) -> Proved:
        fields = spec.in_file(DescriptorField, row.file)
        enc = prover.encoder(DESCRIPTOR_BITS)
        values = {f.id: enc.var(f.id) for f in fields}
        dom = [c for f in fields for c in in_range(enc, f, values[f.id])]
        desc = enc.val(0)
        for f in fields:
            desc = desc | pack_field(enc, f, values[f.id])
        back = unpack_field(enc, row, desc)
        hit = prover.find(dom, back != values[row.id])
        if hit is not None:
            got = {k: value(hit, v) for k, v in values.items()}
            clash = [f.id for f in fields if f.id != row.id and _overlap(f, row)]
            raise Refuted(f"{row.id}={got[row.id]:#x} reads back as {value(hit, back):#x} "
                          f"(with {', '.join(f'{k}={v:#x}' for k, v in got.items() if k != row.id)}"
                          f"){'; overlaps ' + ', '.join(clash) if clash else ''}",
                          {k: hex(v) for k, v in got.items()}, _repro(spec, row, got[row.id]))
        return Proved(f"{row.id} (bits [{row.lsb_bits}, {row.lsb_bits + row.width_bits})) round "
                      f"trips every in-range value alongside any values of the other fields")

    return Claim("descriptor_roundtrip", row.key,
                 f"{row.id}: decode(encode(v)) == v for every in-range v, fields disjoint", body)


def _overlap(a: DescriptorField, b: DescriptorField) -> bool:
    return bool((((1 << a.width_bits) - 1) << a.lsb_bits) & (((1 << b.width_bits) - 1)
                                                              << b.lsb_bits))


def _repro(spec: Spec, row: DescriptorField, v: int) -> str:
    """A pasteable line packing and unpacking one value with this row's descriptor file."""
    imp, expr = render.spec_call(spec)
    return (f'python -c "{imp}; from ptxconf.oracle.descriptor import DescriptorFormat; '
            f"from ptxconf.oracle.records import DescriptorField; f = DescriptorFormat.from_rows("
            f"{expr}.in_file(DescriptorField, {row.file!r})); print(hex(f.unpack_field({row.id!r}, "
            f'f.pack_field({row.id!r}, {v:#x}))))"')


def field_range(spec: Spec, row: DescriptorField) -> Claim:
    """The largest value that round-trips, found by optimization, against the oracle's bound."""

    def body(prover: Prover) -> Proved:
        enc = prover.encoder(DESCRIPTOR_BITS)
        v = enc.var("v")
        ok = [unpack_field(enc, row, pack_field(enc, row, v)) == v]
        best = prover.minimize(ok, [~v])
        if best is None:
            raise Refuted(f"{row.id}: no value round-trips", {})
        top = value(best, v)
        fmt = DescriptorFormat.from_rows(spec.in_file(DescriptorField, row.file))
        oracle_top = fmt.max_value(row.id)
        if row.address_bits is not None:
            oracle_top = min(oracle_top, (1 << row.address_bits) - (1 << row.encode_shift_bits))
        if top != oracle_top:
            raise Refuted(f"{row.id}: the largest value that round-trips is {top:#x}, the oracle's "
                          f"bound is {oracle_top:#x}", {"proved_max": hex(top),
                                                        "oracle_max": hex(oracle_top)})
        _oracle_accepts(fmt, row, top)
        return Proved(f"{row.id}: largest representable value {top:#x} ({top}"
                      f"{' bytes' if row.encode_shift_bits else ''}), stored as "
                      f"{top >> row.encode_shift_bits:#x} in {row.width_bits} bits; "
                      f"granularity {1 << row.encode_shift_bits}", {"max": top})

    return Claim("descriptor_range", row.key,
                 f"{row.id}: the largest value that round-trips equals the oracle's bound", body,
                 documented=False)


def _oracle_accepts(fmt: DescriptorFormat, row: DescriptorField, top: int) -> None:
    """The oracle packs the proved maximum and refuses the next value of the granularity."""
    if fmt.unpack_field(row.id, fmt.pack_field(row.id, top)) != top:
        raise AssertionError(f"oracle does not round-trip {row.id}={top:#x}")
    try:
        fmt.pack_field(row.id, top + (1 << row.encode_shift_bits))
    except DescriptorError:
        return
    raise AssertionError(f"oracle accepts {row.id}={top + (1 << row.encode_shift_bits):#x}")


def start_alignment(spec: Spec, rule: AlignmentRule) -> Claim:
    """An address round-trips through the start-address field iff it is a multiple of the rule's
    alignment and inside the field's address range."""

    def body(prover: Prover) -> Proved:
        f = _start_field(spec)
        enc = prover.encoder(DESCRIPTOR_BITS)
        addr = enc.var("addr")
        back = unpack_field(enc, f, pack_field(enc, f, addr))
        top = f.address_bits if f.address_bits is not None else f.width_bits + f.encode_shift_bits
        rule_ok = z3.And(z3.URem(addr, rule.alignment_bytes) == 0, z3.ULT(addr, 1 << top))
        hit = prover.find(z3.ULT(addr, 1 << 32), (back == addr) != rule_ok)
        if hit is not None:
            a = value(hit, addr)
            side = ("round-trips but breaks" if value(hit, back) == a else
                    "satisfies the rule but reads back as " + hex(value(hit, back)) + " under")
            raise Refuted(f"start address {a:#x} {side} the {rule.alignment_bytes}-byte rule "
                          f"(address < 2^{top})", {"address": hex(a)},
                          _repro(spec, f, a))
        return Proved(f"for every 32-bit address a: decode(encode(a)) == a iff a % "
                      f"{rule.alignment_bytes} == 0 and a < 2^{top} (the field stores a >> "
                      f"{f.encode_shift_bits} in {f.width_bits} bits)")

    return Claim("start_alignment", rule.key,
                 f"{rule.applies_to}: the start-address field represents exactly the "
                 f"{rule.alignment_bytes}-byte-aligned addresses of its range", body)


def _start_field(spec: Spec) -> DescriptorField:
    """The normative descriptor's start-address row."""
    rows = [r for r in spec.in_file(DescriptorField, DESCRIPTOR_FILE) if r.id == START_FIELD]
    if len(rows) != 1:
        raise KeyError(f"{DESCRIPTOR_FILE}: expected one {START_FIELD} row, found {len(rows)}")
    return rows[0]


def claims(spec: Spec) -> Iterator[Claim]:
    """Round trip and range of every descriptor field row; every start-alignment rule."""
    for row in spec.of(DescriptorField):
        yield roundtrip(spec, row)
        yield field_range(spec, row)
    for rule in spec.of(AlignmentRule):
        yield start_alignment(spec, rule)
