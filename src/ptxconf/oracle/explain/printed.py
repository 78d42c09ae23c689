"""A CuTe shared-memory layout as CUTLASS or CuTe DSL prints it -> the layout in bytes.

The print says more than the layout (`notation.parse_printed`), and explain reads it:

* the element width: `smem_ptr[16b]` and `ptr[16b]` state 16-bit elements, CuTe DSL's
  `ptr<f16, ...>` names the type; it must be the width of the operand's type (`EXPLAIN-
  LAYOUT-WIDTH` names both), and CuTe DSL's type stands in for --dtype where it is a spec type;
* where the swizzle acts: on byte addresses for a layout's pointer flag (`Sw<3,4,3> o
  smem_ptr[16b](unset) o L`, CuTe's GMMA layouts) and a swizzled pointer (`Sw<3,4,3>_smem_ptr`,
  CuTe DSL's `ptr<..., S<3,4,3>>`); on element offsets for a tensor whose layout carries the
  swizzle (`smem_ptr[16b](0x..) o Sw<3,3,3> o _0 o L`: the layout is applied to the element
  index). A print that states it decides `--swizzle-unit` (one that disagrees is refused);
  otherwise the unit is `--swizzle-unit`, by default bytes (an assumption, said as one);
* the memory: a global- or register-memory tensor is no wgmma operand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ptxconf.oracle import canonical, facts
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import Pointer, Printed, parse_printed
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
from ptxconf.oracle.algebra.unit_layout import Unit, UnitLayout
from ptxconf.oracle.spec import Spec

from .operand import ExplainError

UNITS = {"bytes": Unit.BYTES, "elements": Unit.ELEMS}
#: CuTe DSL's names of the wgmma element types where they are not the spec's.
DSL_TYPES = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
#: Where the unit came from when no print states it.
GIVEN, ASSUMED = "--swizzle-unit", "assumed"


@dataclass(frozen=True)
class UserLayout:
    """A parsed CuTe layout in bytes: outer (mn, k) -> byte offset, the composed offset, and
    the swizzle on byte addresses (None: none); `unit_source` says who chose `swizzle_unit`
    (the print's text, GIVEN or ASSUMED), `notes` what of the print is not read."""

    text: str
    dtype: str
    bits: int
    swizzle_unit: str
    outer: Layout
    offset: int
    swizzle: Swizzle | None
    unit_source: str = ASSUMED
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def mn(self) -> int:
        """The tile's MN extent (mode 0)."""
        return self.outer[0].size()

    @property
    def k(self) -> int:
        """The tile's K extent (mode 1)."""
        return self.outer[1].size()

    def unswizzled(self) -> np.ndarray:
        """offset + outer(i, j) in bytes, [mn, k]."""
        rows = canonical.layout_values(self.outer[0], self.mn)
        cols = canonical.layout_values(self.outer[1], self.k)
        grid: np.ndarray = self.offset + rows[:, None] + cols[None, :]
        return grid

    def addresses(self, start: int) -> np.ndarray:
        """start + swizzle(offset + outer(i, j)): each element's byte address [mn, k]."""
        x = self.unswizzled()
        if self.swizzle is not None:
            x = x ^ ((x >> self.swizzle.shift) & self.swizzle.zzz_mask)
        return start + x

    def swizzle_text(self) -> str:
        """The swizzle on bytes, in CuTe notation ('none' for none)."""
        return "none" if self.swizzle is None or not self.swizzle.bits else str(self.swizzle)


#: The most elements a layout `explain` reads may have (its maps are arrays of this size).
MAX_LAYOUT_ELEMS = 1 << 20


def _type_bits(name: str) -> int | None:
    """The width a CuTe DSL type name spells (f16, bf16, tf32, i8, ui8, f8E4M3FN: its digits)."""
    m = re.match(r"[a-z]*?(\d+)", name)
    return int(m.group(1)) if m else None


def printed_width(spec: Spec, p: Printed) -> tuple[str, int, str | None] | None:
    """What the print says of the elements: (its text, their width in bits, the spec type it
    names where CuTe DSL names one), or None where it says nothing."""
    for ptr in (p.flag, p.pointer):
        if ptr is None:
            continue
        if ptr.bits is not None:
            return ptr.text, ptr.bits, None
        if ptr.type_name is not None:
            dtype = DSL_TYPES.get(ptr.type_name, ptr.type_name)
            known = dtype in facts.element_types(spec)
            bits = spec.element_bits(dtype) if known else _type_bits(ptr.type_name)
            if bits is not None:
                return ptr.text, bits, dtype if known else None
    return None


def printed_dtype(spec: Spec, text: str) -> str | None:
    """The spec element type a CuTe DSL print names (None: it names none)."""
    said = printed_width(spec, parse_printed(text))
    return None if said is None else said[2]


def widths_hint(spec: Spec, text: str) -> str:
    """For a refusal asking for --dtype: the width the print states and the types of it."""
    said = printed_width(spec, parse_printed(text))
    if said is None:
        return ""
    types = [t for t in facts.element_types(spec) if spec.element_bits(t) == said[1]]
    return f" ({said[0]} holds {said[1]}-bit elements: {', '.join(types) or 'no spec type'})"


def _unit(p: Printed) -> tuple[str, str] | None:
    """(unit, why) where the print states where its swizzle acts."""
    if p.flag is not None:
        return "bytes", p.flag.text
    if p.pointer is not None and p.pointer.swizzle is not None:
        return "bytes", p.pointer.text
    if p.pointer is not None and isinstance(p.layout, ComposedLayout):
        return "elements", f"{p.pointer.text} o (a swizzled layout)"
    return None


def _pointer_notes(ptr: Pointer | None) -> tuple[str, ...]:
    if ptr is None or ptr.address is None:
        return ()
    return (f"the pointer's address {ptr.address:#x} is not read as the tile's start "
            "(--start-address gives it)",)


def parse_layout(spec: Spec, text: str, dtype: str, swizzle_unit: str | None = None) -> UserLayout:
    """Parse a CuTe layout (as CuTe C++ or CuTe DSL prints it) of `dtype` elements and move it
    to bytes (ExplainError if it is not a rank-2 (mn, k) shared-memory layout, plain or
    `Swizzle o offset o layout`, or its print contradicts `dtype` or `swizzle_unit`)."""
    if swizzle_unit is not None and swizzle_unit not in UNITS:
        raise ExplainError("EXPLAIN-LAYOUT", f"expected swizzle unit bytes or elements, got "
                           f"{swizzle_unit!r}")
    bits = spec.element_bits(dtype)
    if bits % canonical.BITS_PER_BYTE:
        raise ExplainError("EXPLAIN-SUB-BYTE", f"{dtype} is {bits}-bit: explain works in bytes")
    p = parse_printed(text)
    said = printed_width(spec, p)
    if said is not None and said[1] != bits:
        raise ExplainError("EXPLAIN-LAYOUT-WIDTH", (
            f"{said[0]} holds {said[1]}-bit elements, {dtype} is {bits}-bit: the layout counts "
            f"{said[1]}-bit elements"))
    if p.pointer is not None and p.pointer.space in ("gmem", "rmem"):
        raise ExplainError("EXPLAIN-LAYOUT", f"{p.pointer.text} points to "
                           f"{'global' if p.pointer.space == 'gmem' else 'register'} memory: "
                           "wgmma reads its operands from shared memory")
    parsed = p.layout
    if isinstance(parsed, Swizzle):
        raise ExplainError("EXPLAIN-LAYOUT", f"{text!r} is a swizzle alone: give the layout "
                           "it composes with (Swizzle<B,M,S> o 0 o (mn, k):(...))")
    if isinstance(parsed, ComposedLayout) and not isinstance(parsed.inner, Swizzle):
        raise ExplainError("EXPLAIN-LAYOUT", f"{text!r}: only Swizzle<B,M,S> o offset o layout "
                           "compositions are shared-memory layouts")
    if p.pointer is not None and p.pointer.swizzle is not None:
        if isinstance(parsed, ComposedLayout):
            raise ExplainError("EXPLAIN-LAYOUT", f"{text!r}: a swizzled pointer and a swizzled "
                               "layout: two swizzles")
        parsed = ComposedLayout(p.pointer.swizzle, 0, parsed)
    stated = _unit(p)
    if stated is not None and swizzle_unit not in (None, stated[0]):
        raise ExplainError("EXPLAIN-LAYOUT", f"{stated[1]} says the swizzle acts on "
                           f"{stated[0]}: --swizzle-unit {swizzle_unit} disagrees")
    unit, source = ((stated[0], stated[1]) if stated is not None
                    else (swizzle_unit, GIVEN) if swizzle_unit is not None else ("bytes", ASSUMED))
    outer = parsed.outer if isinstance(parsed, ComposedLayout) else parsed
    if outer.rank() != 2:
        raise ExplainError("EXPLAIN-LAYOUT", f"{text!r} has {outer.rank()} top-level mode(s): "
                           "expected (mn, k) -> offset")
    if outer.size() > MAX_LAYOUT_ELEMS:
        raise ExplainError("EXPLAIN-LAYOUT", f"{text!r} has {outer.size()} elements; explain "
                           f"reads at most {MAX_LAYOUT_ELEMS} (a wgmma operand has at most "
                           "256 x 256)")
    moved = UnitLayout(parsed, Unit.ELEMS, bits).to_bytes(
        UNITS[unit] if isinstance(parsed, ComposedLayout) else None).layout
    notes = _pointer_notes(p.pointer)
    if isinstance(moved, ComposedLayout):
        assert isinstance(moved.inner, Swizzle)
        swz = moved.inner if moved.inner.bits else None
        return UserLayout(text, dtype, bits, unit, moved.outer, moved.offset, swz, source, notes)
    assert isinstance(moved, Layout)
    return UserLayout(text, dtype, bits, unit, moved, 0, None, source, notes)


__all__ = ["ASSUMED", "DSL_TYPES", "GIVEN", "MAX_LAYOUT_ELEMS", "UNITS", "UserLayout",
           "parse_layout", "printed_dtype", "printed_width", "widths_hint"]
