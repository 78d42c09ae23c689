"""A layout's offsets over its whole domain at once (NumPy), for pictures and tables.

`offsets(layout)` equals `[layout(i) for i in range(layout.size())]` (`to_function_table`), in
one pass of array arithmetic instead of one Python call per index: an index is split
colexicographically over the flattened shape, each part times its stride, summed (the last
mode takes what is left over, as `crd2idx` does); a composed layout applies its offset and
then its swizzle (or inner layout) to the whole column. `grid(layout)` is a rank-2 layout's
offsets as rows x cols, cell (i, j) the offset of coordinate (i, j).
"""

from __future__ import annotations

import numpy as np

from .int_tuple import flatten
from .layout import Layout, LayoutLike
from .swizzle import ComposedLayout, Swizzle


def _at(layout: Layout, idx: np.ndarray) -> np.ndarray:
    """The layout evaluated at every 1-D index of `idx` (int64)."""
    shapes, strides = flatten(layout.shape), flatten(layout.stride)
    out = np.zeros_like(idx)
    rest = idx.copy()
    for n, (s, d) in enumerate(zip(shapes, strides, strict=True)):
        part = rest if n == len(shapes) - 1 else rest % s
        out += part * d
        rest //= s
    return out


def _inner(inner: Swizzle | Layout, x: np.ndarray) -> np.ndarray:
    if isinstance(inner, Swizzle):
        flipped: np.ndarray = x ^ ((x >> inner.shift) & inner.zzz_mask)
        return flipped
    return _at(inner, x)


def offsets(layout: LayoutLike) -> np.ndarray:
    """int64 [size]: the offset of every index 0 .. size-1."""
    idx = np.arange(layout.size(), dtype=np.int64)
    if isinstance(layout, Layout):
        return _at(layout, idx)
    if isinstance(layout, ComposedLayout):
        return _inner(layout.inner, layout.offset + _at(layout.outer, idx))
    return np.array([layout(int(i)) for i in idx], dtype=np.int64)


def grid(layout: LayoutLike, rows: int, cols: int) -> np.ndarray:
    """int64 [rows, cols]: a layout of rows x cols coordinates, cell (i, j) its offset at
    (i, j) (the colexicographic index i + j x rows)."""
    return offsets(layout).reshape(cols, rows).T


__all__ = ["grid", "offsets"]
