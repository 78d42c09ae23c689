"""Parameters the proofs draw from spec rows: element widths, LBO/SBO domains, symbolic operands."""

from __future__ import annotations

from dataclasses import dataclass

from ptxconf.oracle.canonical import BITS_PER_BYTE
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.proofs.encode import Encoder
from ptxconf.oracle.proofs.solver import z3
from ptxconf.oracle.records import InstructionType
from ptxconf.oracle.spec import Spec

#: The descriptor fields that hold LBO and SBO, by template name.
OFFSET_FIELDS = {"LBO": "leading_byte_offset", "SBO": "stride_byte_offset"}


def wgmma_dtypes(spec: Spec) -> tuple[str, ...]:
    """One operand type a distinct element width, as the instruction-type table first names it."""
    seen: dict[int, str] = {}
    for row in spec.of(InstructionType):
        for dtype in (row.atype, row.btype):
            seen.setdefault(spec.element_bits(dtype), dtype)
    return tuple(seen.values())


@dataclass(frozen=True)
class OffsetDomain:
    """The byte values a descriptor offset field can hold: multiples of granule up to max."""

    field: str
    granule_bytes: int
    max_bytes: int


def offset_domain(spec: Spec, name: str) -> OffsetDomain:
    """The domain of LBO or SBO (or the start address) from the descriptor's field row."""
    fmt = descriptor_format(spec)
    field_id = OFFSET_FIELDS.get(name, name)
    f = fmt.field(field_id)
    granule = 1 << f.encode_shift_bits
    top = fmt.max_value(field_id)
    if f.address_bits is not None:
        top = min(top, (1 << f.address_bits) - granule)
    return OffsetDomain(field_id, granule, top)


@dataclass(frozen=True)
class Offsets:
    """Symbolic LBO and SBO in bytes, their domain constraints, and the template's env."""

    lbo_bytes: z3.BitVecRef
    sbo_bytes: z3.BitVecRef
    domain: list[z3.BoolRef]

    def env(self, elem_bits: int) -> dict[str, z3.BitVecRef]:
        """LBO and SBO in elements of ``elem_bits`` (exact: both are multiples of 16 bytes)."""
        shift = elem_bits.bit_length() - 1
        return {"LBO": z3.LShR(self.lbo_bytes * BITS_PER_BYTE, shift),
                "SBO": z3.LShR(self.sbo_bytes * BITS_PER_BYTE, shift)}


def symbolic_offsets(spec: Spec, enc: Encoder, prefix: str = "") -> Offsets:
    """LBO and SBO ranging over every value their descriptor fields represent."""
    out, dom = {}, []
    for name in ("LBO", "SBO"):
        d = offset_domain(spec, name)
        v = enc.var(f"{prefix}{name}_bytes")
        dom += [z3.ULE(v, d.max_bytes), z3.URem(v, d.granule_bytes) == 0]
        out[name] = v
    return Offsets(out["LBO"], out["SBO"], dom)


@dataclass(frozen=True)
class IntOffsets:
    """LBO and SBO as integers (bytes), with their values in elements tied to them exactly."""

    lbo_bytes: z3.ArithRef
    sbo_bytes: z3.ArithRef
    domain: list[z3.BoolRef]
    elems: dict[str, z3.ArithRef]


def int_offsets(spec: Spec, ctx: z3.Context, elem_bits: int) -> IntOffsets:
    """LBO and SBO over their descriptor domains; ``elems`` binds the template's LBO and SBO."""
    out, elems, dom = {}, {}, []
    for name in ("LBO", "SBO"):
        d = offset_domain(spec, name)
        v, e = z3.Int(f"{name}_bytes", ctx), z3.Int(f"{name}_elems", ctx)
        dom += [v >= 0, v <= d.max_bytes, v % d.granule_bytes == 0,
                e * elem_bits == v * BITS_PER_BYTE]
        out[name], elems[name] = v, e
    return IntOffsets(out["LBO"], out["SBO"], dom, elems)
