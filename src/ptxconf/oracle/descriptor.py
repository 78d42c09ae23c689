"""The wgmma shared-memory matrix descriptor: encode and decode, from the spec's bit fields."""

from __future__ import annotations

from dataclasses import dataclass

from ptxconf.oracle.records import DescriptorField, SwizzleMode
from ptxconf.oracle.spec import Spec, default_spec

#: The spec file that is normative for the descriptor (CUTLASS's is a witness, checked against it).
DESCRIPTOR_FILE = "wgmma/matrix_descriptor.yaml"

#: Field ids in the spec, and the keyword each maps to in encode() / decode().
FIELD_ARGS = {
    "start_address": "start_address_bytes",
    "leading_byte_offset": "lbo_bytes",
    "stride_byte_offset": "sbo_bytes",
    "base_offset": "base_offset",
    "layout_type": "swizzle",
}


class DescriptorError(ValueError):
    """A value the descriptor cannot represent, named with the field and what would fit."""


@dataclass(frozen=True)
class DescriptorFormat:
    """The descriptor's bit fields, keyed by field id."""

    fields: dict[str, DescriptorField]

    @classmethod
    def from_rows(cls, rows: tuple[DescriptorField, ...]) -> DescriptorFormat:
        """Build from the rows of one descriptor spec file."""
        by_id = {r.id: r for r in rows}
        missing = sorted(set(FIELD_ARGS) - set(by_id))
        if missing:
            raise DescriptorError(f"descriptor spec lacks fields {missing}")
        return cls(by_id)

    def field(self, name: str) -> DescriptorField:
        """One field by id."""
        return self.fields[name]

    def swizzle_code(self, swizzle: str) -> int:
        """The layout-type code of a swizzle mode."""
        codes = self.fields["layout_type"].codes or {}
        if swizzle not in codes:
            raise DescriptorError(f"swizzle {swizzle!r}: expected one of {sorted(codes)}")
        return codes[swizzle]

    def swizzle_of(self, code: int) -> SwizzleMode | None:
        """The swizzle mode a layout-type code selects, or None for an undefined code."""
        for name, value in (self.fields["layout_type"].codes or {}).items():
            if value == code:
                return name  # type: ignore[return-value]  # layout_type's codes are keyed by mode
        return None

    def max_value(self, name: str) -> int:
        """The largest value (in the caller's units, e.g. bytes) a field can represent."""
        f = self.fields[name]
        return ((1 << f.width_bits) - 1) << f.encode_shift_bits

    def used_mask(self) -> int:
        """The bits of the 64-bit descriptor that belong to some field."""
        mask = 0
        for f in self.fields.values():
            mask |= ((1 << f.width_bits) - 1) << f.lsb_bits
        return mask

    def pack_field(self, name: str, value: int) -> int:
        """Place a value in its field: check range and granularity, shift, position."""
        f = self.fields[name]
        arg = FIELD_ARGS.get(name, name)
        if value < 0:
            raise DescriptorError(f"{arg}={value}: must be >= 0")
        granule = 1 << f.encode_shift_bits
        if value % granule:
            raise DescriptorError(f"{arg}={value}: not a multiple of {granule} "
                                  f"(the {name} field stores value >> {f.encode_shift_bits})")
        if f.address_bits is not None and value >= 1 << f.address_bits:
            raise DescriptorError(f"{arg}={value:#x}: above the {f.address_bits}-bit address range "
                                  f"(max {(1 << f.address_bits) - granule:#x})")
        encoded = value >> f.encode_shift_bits
        if encoded >= 1 << f.width_bits:
            raise DescriptorError(f"{arg}={value}: does not fit the {f.width_bits}-bit {name} field "
                                  f"(max {self.max_value(name)})")
        return encoded << f.lsb_bits

    def unpack_field(self, name: str, value: int) -> int:
        """Read a field back, in the caller's units."""
        f = self.fields[name]
        return ((value >> f.lsb_bits) & ((1 << f.width_bits) - 1)) << f.encode_shift_bits

    def encode(self, *, start_address_bytes: int, lbo_bytes: int, sbo_bytes: int,
               swizzle: str, base_offset: int = 0) -> int:
        """The 64-bit descriptor for these values (DescriptorError when one cannot be stored)."""
        return (self.pack_field("start_address", start_address_bytes)
                | self.pack_field("leading_byte_offset", lbo_bytes)
                | self.pack_field("stride_byte_offset", sbo_bytes)
                | self.pack_field("base_offset", base_offset)
                | self.pack_field("layout_type", self.swizzle_code(swizzle)))

    def decode(self, value: int) -> dict[str, object]:
        """The fields of a 64-bit descriptor, in the units encode() takes."""
        if not 0 <= value < 1 << 64:
            raise DescriptorError(f"descriptor {value:#x}: not a 64-bit value")
        code = self.unpack_field("layout_type", value)
        return {
            "start_address_bytes": self.unpack_field("start_address", value),
            "lbo_bytes": self.unpack_field("leading_byte_offset", value),
            "sbo_bytes": self.unpack_field("stride_byte_offset", value),
            "base_offset": self.unpack_field("base_offset", value),
            "swizzle": self.swizzle_of(code),
            "layout_type_code": code,
            "unused_bits": f"{value & ~self.used_mask() & ((1 << 64) - 1):#018x}",
        }


def descriptor_format(spec: Spec | None = None) -> DescriptorFormat:
    """The normative descriptor format of a spec (None: the bundled spec). Anything else is a
    TypeError, never a silent fall back to the bundled spec's format (a `--spec-dir` that
    changes the descriptor must reach every caller)."""

    if spec is None:
        spec = default_spec()
    elif not isinstance(spec, Spec):
        raise TypeError(f"descriptor_format wants a Spec or None, got {type(spec).__name__}")
    return spec.memo(("descriptor_format",), lambda: DescriptorFormat.from_rows(
        spec.in_file(DescriptorField, DESCRIPTOR_FILE)))


def encode(start_address_bytes: int, lbo_bytes: int, sbo_bytes: int, swizzle: str,
           base_offset: int = 0) -> int:
    """Encode a descriptor with the bundled spec's format."""
    return descriptor_format().encode(start_address_bytes=start_address_bytes, lbo_bytes=lbo_bytes,
                                      sbo_bytes=sbo_bytes, swizzle=swizzle, base_offset=base_offset)


def decode(value: int) -> dict[str, object]:
    """Decode a descriptor with the bundled spec's format."""
    return descriptor_format().decode(value)
