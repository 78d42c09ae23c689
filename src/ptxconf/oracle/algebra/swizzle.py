"""CuTe swizzles and composed layouts ``inner o offset o outer``.

``Swizzle<B,M,S>`` flips the B bits at [M, M+B) of an offset by the B bits at [M+S, M+S+B):
``x ^ ((x >> S) & (((1 << B) - 1) << M))``. It is unit-free: it acts on whatever unit its
argument counts in. Which unit a document's swizzle acts on is a hypothesis elsewhere in the
project; see ``unit_layout.UnitLayout``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from .int_tuple import IntTuple, is_int
from .layout import Layout, image, scale_strides


@dataclass(frozen=True)
class Swizzle:
    """CuTe's ``Swizzle<B,M,S>``: ``bits`` = B, ``base`` = M, ``shift`` = S.

    Only S >= B >= 0 and M >= 0 are accepted. CuTe also has negative S (the mask shifted left);
    it is rejected here, as are overlapping masks (S < B), which would not be involutions.
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        """Validate B, M, S."""
        if not all(is_int(v) for v in (self.bits, self.base, self.shift)):
            raise ValueError(f"Swizzle parameters must be ints: {self.bits, self.base, self.shift}")
        if self.shift < 0:
            raise ValueError(f"negative swizzle shift {self.shift} is not supported")
        if self.bits < 0 or self.base < 0 or self.shift < self.bits:
            raise ValueError(
                f"invalid Swizzle<{self.bits},{self.base},{self.shift}>: need S >= B >= 0, M >= 0"
            )

    @property
    def zzz_mask(self) -> int:
        """The bits that get flipped: [M, M+B)."""
        return ((1 << self.bits) - 1) << self.base

    @property
    def yyy_mask(self) -> int:
        """The bits that select the flips: [M+S, M+S+B)."""
        return self.zzz_mask << self.shift

    def __call__(self, offset: int) -> int:
        """Swizzle one offset."""
        return offset ^ ((offset >> self.shift) & self.zzz_mask)

    def period(self) -> int:
        """1 << (B+M+S): the swizzle is periodic-with-offset under this modulus.

        ``sw(x + k * period()) == sw(x) + k * period()``, so every aligned block of this many
        offsets maps onto itself. Units are whatever units the offsets are in.
        """
        return 1 << (self.bits + self.base + self.shift)

    def rebased(self, delta: int) -> Swizzle:
        """The same swizzle on offsets counted in units 2**delta times finer (M grows by delta)."""
        if self.base + delta < 0:
            raise ValueError(f"{self} cannot act on units 2**{-delta} times coarser")
        return Swizzle(self.bits, self.base + delta, self.shift)

    def __str__(self) -> str:
        """CuTe notation, e.g. ``Swizzle<3,4,3>``."""
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"


@dataclass(frozen=True)
class ComposedLayout:
    """CuTe's ``inner o offset o outer``: ``R(c) = inner(offset + outer(c))``.

    ``show_offset`` only records whether the printed form spelled the offset out (``o 0 o``);
    it does not take part in equality. A non-zero offset is always printed.
    """

    inner: Swizzle | Layout
    offset: int
    outer: Layout
    show_offset: bool = field(default=True, compare=False)

    def __post_init__(self) -> None:
        """Validate the parts."""
        if not isinstance(self.inner, (Swizzle, Layout)):
            raise ValueError(f"inner must be a Swizzle or a Layout, got {self.inner!r}")
        if not is_int(self.offset):
            raise ValueError(f"offset must be an int, got {self.offset!r}")
        if not isinstance(self.outer, Layout):
            raise ValueError(f"outer must be a Layout, got {self.outer!r}")

    def __call__(self, *coord: IntTuple) -> int:
        """Evaluate at an index or coordinate."""
        return self.inner(self.offset + self.outer(*coord))

    @property
    def shape(self) -> IntTuple:
        """Shape of the domain (the outer layout's)."""
        return self.outer.shape

    @property
    def stride(self) -> IntTuple:
        """The outer layout's stride."""
        return self.outer.stride

    def size(self) -> int:
        """Size of the domain."""
        return self.outer.size()

    def cosize(self) -> int:
        """One past the largest offset reached (brute force)."""
        return max(image(self)) + 1

    def rank(self) -> int:
        """Number of top-level modes."""
        return self.outer.rank()

    def depth(self) -> int:
        """Nesting depth of the shape."""
        return self.outer.depth()

    def __getitem__(self, i: int) -> ComposedLayout:
        """The i-th mode, still composed with inner and offset."""
        return self.with_outer(self.outer[i])

    def with_outer(self, outer: Layout) -> ComposedLayout:
        """The same inner and offset over a different outer layout."""
        return replace(self, outer=outer)

    def rescaled(self, scale: Fraction, swizzle_log2: int) -> ComposedLayout:
        """Offsets times ``scale`` (whole only); a swizzle inner moved ``swizzle_log2`` bits up."""
        if not isinstance(self.inner, Swizzle):
            raise ValueError(f"cannot change the unit of a layout-inner composition {self}")
        offset = self.offset * scale
        if offset.denominator != 1:
            raise ValueError(f"offset {self.offset} times {scale} is not whole")
        outer = scale_strides(self.outer, scale)
        inner = self.inner.rebased(swizzle_log2)
        return ComposedLayout(inner, int(offset), outer, self.show_offset)

    def is_injective(self) -> bool:
        """True when no two indices share an offset (brute force)."""
        return len(image(self)) == self.size()

    def __str__(self) -> str:
        """CuTe notation, e.g. ``Swizzle<1,4,3> o 0 o (8,16):(16,1)``."""
        if self.show_offset or self.offset != 0:
            return f"{self.inner} o {self.offset} o {self.outer}"
        return f"{self.inner} o {self.outer}"
