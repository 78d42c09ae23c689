"""Layouts whose offsets count in a named unit (elements, bytes, bits, 16-byte units), and the
exact conversion between units.

The PTX ISA counts shared-memory offsets in bytes or 16-byte units, CuTe's layouts in elements,
and a swizzle acts on the address bits of a unit of its own, which the project treats as a
hypothesis: a composed layout converts only when told the swizzle's unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .int_tuple import is_int
from .layout import Composed, Layout, scale_strides


class Unit(StrEnum):
    """The unit an offset counts in."""

    ELEMS = "elems"
    BYTES = "bytes"
    BITS = "bits"
    U128 = "u128"

    def bits(self, elem_bits: int) -> int:
        """Width of one unit in bits (``elem_bits`` for ELEMS)."""
        return {"elems": elem_bits, "bytes": 8, "bits": 1, "u128": 128}[self.value]


def _exact_log2(x: Fraction) -> int:
    """k with 2**k == x; ValueError when x is not a power of two."""
    num, den = x.numerator, x.denominator
    if num & (num - 1) or den & (den - 1):
        raise ValueError(f"{x} is not a power of two")
    return num.bit_length() - den.bit_length()


@dataclass(frozen=True)
class UnitLayout:
    """A layout (or composed layout) whose offsets count in ``unit``.

    A composed layout's swizzle acts on address bits in a unit of its own, which the project
    treats as a hypothesis: conversions of a composed layout must be told ``swizzle_unit``.
    """

    layout: Layout | Composed
    unit: Unit
    elem_bits: int

    def __post_init__(self) -> None:
        """Validate the unit and element width."""
        if not isinstance(self.unit, Unit):
            raise ValueError(f"unit must be a Unit, got {self.unit!r}")
        if not is_int(self.elem_bits) or self.elem_bits < 1:
            raise ValueError(f"elem_bits must be a positive int, got {self.elem_bits!r}")

    def to_unit(self, target: Unit, swizzle_unit: Unit | None = None) -> UnitLayout:
        """The same addresses counted in ``target``: strides (and offset) rescaled exactly.

        For a composed layout ``swizzle_unit`` is required: the swizzle is re-expressed on the
        target unit's address bits (its base moves by log2 of the unit ratio); it is never
        converted implicitly.
        """
        scale = Fraction(self.unit.bits(self.elem_bits), target.bits(self.elem_bits))
        if isinstance(self.layout, Layout):
            if swizzle_unit is not None:
                raise ValueError(f"swizzle_unit given for {self.layout}, which has no swizzle")
            return UnitLayout(scale_strides(self.layout, scale), target, self.elem_bits)
        if swizzle_unit is None:
            raise ValueError(
                "the unit a swizzle acts on is a hypothesis: pass swizzle_unit explicitly"
            )
        ratio = Fraction(swizzle_unit.bits(self.elem_bits), target.bits(self.elem_bits))
        converted = self.layout.rescaled(scale, _exact_log2(ratio))
        return UnitLayout(converted, target, self.elem_bits)

    def to_bytes(self, swizzle_unit: Unit | None = None) -> UnitLayout:
        """Convert to byte offsets (ValueError when not whole, e.g. 1-bit elements: use bits)."""
        return self.to_unit(Unit.BYTES, swizzle_unit)

    def to_bits(self, swizzle_unit: Unit | None = None) -> UnitLayout:
        """Convert to bit offsets."""
        return self.to_unit(Unit.BITS, swizzle_unit)
