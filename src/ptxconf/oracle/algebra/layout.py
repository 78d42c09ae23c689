"""CuTe layouts: a (shape, stride) pair read as a function from coordinates to offsets.

Semantics follow CuTe's ``layout.hpp`` as of CUTLASS 4.x (the release line in which
``blocked_product`` and ``tile_to_shape`` stopped coalescing their result). Where CuTe would not
compile (a ``static_assert``), these functions raise ``ValueError``. Every function that can take
a tiler accepts a ``Layout``, an ``int`` (the layout ``n:1``), ``None`` (CuTe's ``_``: leave the
mode alone) or a tuple of those applied mode by mode.

Functions that take a layout as their first argument also take a composed layout (anything
satisfying ``Composed``, e.g. ``swizzle.ComposedLayout``); they act on its outer layout.

One module (past 500 lines) as ``layout.hpp`` is one header: composition, complement, the
inverses, the products and the divides are defined in terms of one another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, TypeAlias, runtime_checkable

from .int_tuple import (
    IntTuple,
    as_int_tuple,
    ceil_div,
    compact_col_major,
    congruent,
    crd2idx,
    depth,
    flatten,
    inner_product,
    is_int,
    is_tuple,
    prefix_product,
    product,
    rank,
    unflatten,
)


@dataclass(frozen=True, init=False)
class Layout:
    """An immutable CuTe layout ``shape:stride``; strides default to compact column-major.

    As in CuTe, default strides of size-1 modes are 0: ``Layout((1, 4))`` is ``(1,4):(0,1)``.
    """

    shape: IntTuple
    stride: IntTuple

    def __init__(self, shape: IntTuple, stride: IntTuple | None = None) -> None:
        """Validate and store; lists are accepted and stored as tuples."""
        shape = as_int_tuple(shape)
        if any(s < 1 for s in flatten(shape)):
            raise ValueError(f"layout shape must be positive: {shape!r}")
        stride = compact_col_major(shape) if stride is None else as_int_tuple(stride)
        if not congruent(shape, stride):
            raise ValueError(f"shape {shape!r} and stride {stride!r} are not congruent")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "stride", stride)

    def __call__(self, *coord: IntTuple) -> int:
        """Evaluate at a 1-D (colexicographic) index, or a coordinate (tuple or several args)."""
        if not coord:
            raise ValueError("a layout is called with an index or a coordinate")
        crd = coord[0] if len(coord) == 1 else tuple(coord)
        if any(c is None for c in flatten(crd)):
            raise ValueError("slicing with None is not supported")
        return crd2idx(crd, self.shape, self.stride)

    def __getitem__(self, i: int) -> Layout:
        """The i-th mode as a layout (a rank-1 layout's only mode is itself)."""
        if is_tuple(self.shape) and is_tuple(self.stride):
            return Layout(self.shape[i], self.stride[i])
        if i not in (0, -1):
            raise IndexError(f"mode {i} of rank-1 layout {self}")
        return self

    def modes(self) -> tuple[Layout, ...]:
        """The top-level modes, each as a layout."""
        return tuple(self[i] for i in range(self.rank()))

    def size(self) -> int:
        """Size of the domain."""
        return product(self.shape)

    def cosize(self) -> int:
        """Size of the codomain: one past the largest |offset| reached."""
        last = tuple(s - 1 for s in flatten(self.shape))
        return inner_product(last, tuple(abs(d) for d in flatten(self.stride))) + 1

    def rank(self) -> int:
        """Number of top-level modes."""
        return rank(self.shape)

    def depth(self) -> int:
        """Nesting depth of the shape."""
        return depth(self.shape)

    def __str__(self) -> str:
        """CuTe notation with no spaces, e.g. ``((8,2),(4,4)):((4,32),(1,64))``."""
        return f"{_fmt(self.shape)}:{_fmt(self.stride)}"

    def __repr__(self) -> str:
        """An evaluable constructor call."""
        return f"Layout({self.shape!r}, {self.stride!r})"


@runtime_checkable
class Composed(Protocol):
    """What the algebra needs of a composed layout ``inner o offset o outer``."""

    @property
    def outer(self) -> Layout:
        """The layout applied first."""
        ...

    def with_outer(self, outer: Layout) -> Composed:
        """The same composition with a different outer layout."""
        ...

    def rescaled(self, scale: Fraction, swizzle_log2: int) -> Composed:
        """Outer strides and offset times ``scale``; the swizzle moved by ``swizzle_log2`` bits."""
        ...

    def size(self) -> int:
        """Size of the domain."""
        ...

    def cosize(self) -> int:
        """One past the largest offset reached."""
        ...

    def __call__(self, *coord: IntTuple) -> int:
        """Evaluate at an index or coordinate."""
        ...


LayoutLike: TypeAlias = Layout | Composed
Tiler: TypeAlias = "Layout | int | None | tuple[Tiler, ...]"


def _fmt(t: IntTuple) -> str:
    """Compact CuTe printing of an IntTuple; a 1-tuple prints as ``(8)``."""
    return "(" + ",".join(_fmt(e) for e in t) + ")" if is_tuple(t) else str(t)


def make_layout(*layouts: Layout) -> Layout:
    """Concatenate layouts: each argument becomes one mode of the result."""
    if not layouts or not all(isinstance(x, Layout) for x in layouts):
        raise ValueError("make_layout takes one or more Layouts")
    return Layout(tuple(x.shape for x in layouts), tuple(x.stride for x in layouts))


def make_ordered_layout(shape: IntTuple, order: tuple[int, ...] | None = None) -> Layout:
    """Compact layout whose modes get strides in increasing ``order`` (default column-major)."""
    modes = shape if is_tuple(shape) else (shape,)
    order = tuple(range(len(modes))) if order is None else tuple(order)
    if len(order) != len(modes) or len(set(order)) != len(order):
        raise ValueError(f"order {order!r} must rank the {len(modes)} modes of {shape!r} uniquely")
    starts = [
        product(tuple(m for m, o in zip(modes, order, strict=True) if o < oi) or 1) for oi in order
    ]
    strides = tuple(compact_col_major(m, s) for m, s in zip(modes, starts, strict=True))
    return Layout(shape, strides if is_tuple(shape) else strides[0])


def size(x: LayoutLike | IntTuple) -> int:
    """Size of a layout's domain, or of a shape."""
    if isinstance(x, (int, tuple)):
        return product(x)
    return x.size()


def cosize(x: LayoutLike) -> int:
    """Size of a layout's codomain (brute force for a composed layout)."""
    return x.cosize()


def _lift(x: LayoutLike, fn: Callable[[Layout], Layout]) -> LayoutLike:
    """Apply ``fn`` to a layout, or to the outer layout of a composed layout."""
    if isinstance(x, Layout):
        return fn(x)
    if isinstance(x, Composed):
        return x.with_outer(fn(x.outer))
    raise TypeError(f"expected a Layout or a composed layout, got {type(x).__name__}")


def _as_layout(tiler: Layout | int) -> Layout:
    """A tiler leaf as a layout: an int n is ``n:1``."""
    if isinstance(tiler, Layout):
        return tiler
    if is_int(tiler):
        return Layout(tiler)
    raise TypeError(f"a tiler is a Layout, an int, None or a tuple of those, not {tiler!r}")


def _apply_tiler(
    layout: Layout, tiler: Tiler, op: Callable[[Layout, Layout | int], Layout], keep_rest: bool
) -> Layout:
    """Apply ``op(layout, tiler)`` with CuTe's tiler conventions; the one by-mode recursion.

    A tuple tiler applies itself to the leading modes; the modes it does not reach are kept
    when ``keep_rest`` (logical_divide/product) and dropped otherwise (composition). ``None``
    leaves a mode alone.
    """
    if tiler is None:
        return layout
    if not isinstance(tiler, tuple):
        return op(layout, tiler)
    if not tiler or len(tiler) > layout.rank():
        raise ValueError(f"tiler {tiler!r} does not fit layout {layout}")
    modes = [_apply_tiler(layout[i], t, op, keep_rest) for i, t in enumerate(tiler)]
    rest = layout.modes()[len(tiler) :] if keep_rest else ()
    return make_layout(*modes, *rest)


def _bw_coalesce(
    shapes: tuple[int, ...], strides: tuple[int, ...], last: tuple[int, int]
) -> Layout:
    """Merge flat modes back to front, starting from the (shape, stride) pair ``last``."""
    new_shape, new_stride = [last[0]], [last[1]]
    for s, d in zip(reversed(shapes), reversed(strides), strict=True):
        if s == 1:
            continue
        if len(new_shape) == 1 and new_shape[0] == 1:
            new_shape[0], new_stride[0] = s, d
        elif s * d == new_stride[0]:
            new_shape[0], new_stride[0] = s * new_shape[0], d
        else:
            new_shape.insert(0, s)
            new_stride.insert(0, d)
    if len(new_shape) == 1:
        return Layout(1, 0) if new_shape[0] == 1 else Layout(new_shape[0], new_stride[0])
    return Layout(tuple(new_shape), tuple(new_stride))


def coalesce(layout: Layout, profile: IntTuple | None = None) -> Layout:
    """Merge modes, keeping the function on the domain; by mode if ``profile`` is a tuple."""
    if is_tuple(profile):
        return _apply_tiler(layout, profile, lambda mode, _: coalesce(mode), keep_rest=True)
    shapes, strides = flatten(layout.shape), flatten(layout.stride)
    return _bw_coalesce(shapes[:-1], strides[:-1], (shapes[-1], strides[-1]))


def _coalesce_x(layout: Layout) -> Layout:
    """Coalesce that also preserves the function past the end of the domain (CuTe coalesce_x)."""
    shapes, strides = flatten(layout.shape), flatten(layout.stride)
    last = (2 if shapes[-1] == 1 else shapes[-1], strides[-1])
    return _bw_coalesce(shapes[:-1], strides[:-1], last)


def filter_zeros(layout: Layout) -> Layout:
    """Replace the shape of every stride-0 mode by 1."""
    shape = unflatten(
        (
            1 if d == 0 else s
            for s, d in zip(flatten(layout.shape), flatten(layout.stride), strict=True)
        ),
        layout.shape,
    )
    return Layout(shape, layout.stride)


def _filter(layout: Layout) -> Layout:
    """Remove stride-0 and size-1 modes (CuTe's ``filter``)."""
    return coalesce(filter_zeros(layout))


def composition(a: LayoutLike, b: Tiler) -> LayoutLike:
    """The layout ``c -> a(b(c))``; a tuple ``b`` composes by mode and drops a's other modes."""
    return _lift(a, lambda lhs: _apply_tiler(lhs, b, _compose, keep_rest=False))


def _compose(lhs: Layout, tiler: Layout | int) -> Layout:
    """Composition of two layouts (CuTe's composition_impl on the coalesced lhs)."""
    rhs = _as_layout(tiler)
    flat = _coalesce_x(lhs)
    return _compose_flat(flat.shape, flat.stride, rhs.shape, rhs.stride)


def _compose_flat(
    lshape: IntTuple, lstride: IntTuple, rshape: IntTuple, rstride: IntTuple
) -> Layout:
    """Compose a flat lhs with rhs, distributing over rhs's modes."""
    if is_tuple(rshape) and is_tuple(rstride):
        return make_layout(
            *(_compose_flat(lshape, lstride, s, d) for s, d in zip(rshape, rstride, strict=True))
        )
    assert is_int(rshape) and is_int(rstride)
    if rstride == 0:
        return Layout(rshape, 0)
    if is_int(lshape) and is_int(lstride):
        return Layout(rshape, rstride * lstride)
    assert is_tuple(lshape) and is_tuple(lstride)
    return _compose_mode(flatten(lshape), flatten(lstride), rshape, rstride)


def _compose_mode(
    lshape: tuple[int, ...], lstride: tuple[int, ...], rest_shape: int, rest_stride: int
) -> Layout:
    """Compose a flat multi-mode lhs with the single mode ``rest_shape:rest_stride``."""
    shapes: list[int] = []
    strides: list[int] = []
    for curr_shape, curr_stride in zip(lshape[:-1], lstride[:-1], strict=True):
        step = abs(rest_stride)
        next_shape = -(-curr_shape // step)
        next_stride = -(-step // curr_shape) * (1 if rest_stride > 0 else -1)
        if rest_shape != 1:
            _check_admissible(curr_shape, step, rest_shape, next_shape)
        if next_shape != 1 and rest_shape != 1:
            new_shape = min(next_shape, rest_shape)
            shapes.append(new_shape)
            strides.append(rest_stride * curr_stride)
            rest_shape //= new_shape
        rest_stride = next_stride
    if not shapes:
        return Layout(rest_shape, rest_stride * lstride[-1])
    if rest_shape != 1:
        shapes.append(rest_shape)
        strides.append(rest_stride * lstride[-1])
    if len(shapes) == 1:
        return Layout(shapes[0], strides[0])
    return Layout(tuple(shapes), tuple(strides))


def _check_admissible(curr_shape: int, step: int, rest_shape: int, next_shape: int) -> None:
    """Raise unless the stride and shape divisibility conditions of composition hold."""
    if step % curr_shape != 0 and curr_shape % step != 0:
        raise ValueError(
            f"composition: stride divisibility violated (stride {step} vs mode size {curr_shape})"
        )
    if next_shape < rest_shape and rest_shape % next_shape != 0:
        raise ValueError(
            f"composition: shape divisibility violated (size {rest_shape} vs {next_shape})"
        )


def complement(layout: Layout, cotarget: IntTuple | None = None) -> Layout:
    """The layout of the offsets in [0, cotarget) that ``layout`` does not reach, ordered."""
    flat = _filter(layout)
    if cotarget is None:
        cotarget = flat.cosize()
    if flat.stride == 0:
        return Layout(product(cotarget))
    if any(d < 0 for d in flatten(flat.stride)):
        raise ValueError(f"complement of a layout with negative strides: {layout}")
    shapes: list[int] = []
    strides = [1]
    modes = zip(flatten(flat.stride), flatten(flat.shape), strict=True)
    for d, s in sorted(modes, key=lambda m: m[0]):
        if d // strides[-1] == 0:
            raise ValueError(f"complement: non-injective layout {layout}")
        shapes.append(d // strides[-1])
        strides.append(d * s)
    shapes.append(product(ceil_div(cotarget, strides[-1])))
    return coalesce(Layout(tuple(shapes), tuple(strides)))


def _wrapped_modes(layout: Layout) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Coalesced flat shapes, strides and their exclusive prefix products."""
    flat = coalesce(layout)
    shapes, strides = flatten(flat.shape), flatten(flat.stride)
    prefix = prefix_product(shapes)
    assert is_tuple(prefix)
    return shapes, strides, tuple(int(p) for p in flatten(prefix))


def _exchange_order(keys: tuple[int, ...]) -> list[int]:
    """Indices sorted by key with CuTe's exchange sort, which breaks ties its own way."""
    order = list(range(len(keys)))
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            if keys[order[j]] < keys[order[i]]:
                order[i], order[j] = order[j], order[i]
    return order


def right_inverse(layout: Layout) -> Layout:
    """A layout ``r`` of maximal size with ``layout(r(i)) == i``."""
    shapes, strides, prefix = _wrapped_modes(layout)
    rshape, rstride, curr = [1], [0], 1
    for i in _exchange_order(strides):
        if strides[i] == curr:
            rshape.append(shapes[i])
            rstride.append(prefix[i])
            curr = shapes[i] * strides[i]
    return coalesce(Layout(tuple(rshape), tuple(rstride)))


def left_inverse(layout: Layout) -> Layout:
    """A layout ``r`` with ``r(layout(i)) == i`` when ``layout`` is injective (a quasi-inverse)."""
    shapes, strides, prefix = _wrapped_modes(layout)
    order = _exchange_order(strides)
    rshape: list[int] = []
    rstride = [0]
    for i in order:
        if strides[i] == 0:
            continue
        if strides[i] % product(tuple(rshape) or 1) != 0:
            raise ValueError(f"left_inverse: divisibility condition violated by {layout}")
        rshape.append(strides[i] // product(tuple(rshape) or 1))
        rstride.append(prefix[i])
    rshape.append(shapes[order[-1]])
    return coalesce(Layout(tuple(rshape), tuple(rstride)))


def logical_divide(layout: LayoutLike, tiler: Tiler) -> LayoutLike:
    """Split ``layout`` into (tile, rest) by ``tiler``, mode by mode for a tuple tiler."""
    return _lift(layout, lambda x: _apply_tiler(x, tiler, _divide, keep_rest=True))


def _divide(layout: Layout, leaf: Layout | int) -> Layout:
    """Logical divide by a single layout tiler."""
    tiler = _as_layout(leaf)
    rest = complement(tiler, coalesce(layout).shape)
    return _compose(layout, make_layout(tiler, rest))


def logical_product(block: LayoutLike, tiler: Tiler) -> LayoutLike:
    """Repeat ``block`` as laid out by ``tiler``: (block, tiler-of-blocks), by mode for tuples."""
    return _lift(block, lambda x: _apply_tiler(x, tiler, _product, keep_rest=True))


def _product(block: Layout, leaf: Layout | int) -> Layout:
    """Logical product with a single layout tiler."""
    tiler = _as_layout(leaf)
    rest = complement(block, block.size() * tiler.cosize())
    return make_layout(block, _compose(rest, tiler))


def _unzip(layout: Layout, tiler: Tiler) -> Layout:
    """Gather the (tile, rest) pairs that a by-mode divide left in each mode into two modes."""
    if tiler is None:
        return make_layout(Layout(1, 0), layout)
    if isinstance(tiler, tuple):
        if not tiler or len(tiler) > layout.rank():
            raise ValueError(f"tiler {tiler!r} does not fit layout {layout}")
        pairs = [_unzip(layout[i], t) for i, t in enumerate(tiler)]
        rest = layout.modes()[len(tiler) :]
        tiles = make_layout(*(p[0] for p in pairs))
        return make_layout(tiles, make_layout(*(p[1] for p in pairs), *rest))
    if layout.rank() != 2:
        raise ValueError(f"expected a rank-2 (tile, rest) layout, got {layout}")
    return layout


def zipped_divide(layout: LayoutLike, tiler: Tiler) -> LayoutLike:
    """Logical divide with the tiles gathered in mode 0 and the rests in mode 1.

    A ``None`` entry in a tuple tiler gives that mode a trivial tile ``1:0`` (as pycute does).
    """
    return _lift(layout, lambda x: _unzip(_apply_tiler(x, tiler, _divide, keep_rest=True), tiler))


def _append(layout: Layout, n: int) -> Layout:
    """Pad ``layout`` with ``1:0`` modes up to rank ``n``."""
    if layout.rank() >= n:
        return layout
    return make_layout(*layout.modes(), *(Layout(1, 0),) * (n - layout.rank()))


def _zip(a: Layout, b: Layout) -> Layout:
    """Pair up modes: ((a0,b0),(a1,b1),...); two rank-1 int layouts give ((a,b))."""
    if not is_tuple(a.shape):
        return make_layout(make_layout(a, b))
    if b.rank() != a.rank():
        raise ValueError(f"cannot zip {a} with {b}")
    return make_layout(*(make_layout(x, y) for x, y in zip(a.modes(), b.modes(), strict=True)))


def _rank_sensitive_product(block: Layout, tiler: Layout, raked: bool) -> Layout:
    """blocked_product (block modes first) or raked_product (tiler modes first)."""
    n = max(block.rank(), tiler.rank())
    result = _product(_append(block, n), _append(tiler, n))
    return _zip(result[1], result[0]) if raked else _zip(result[0], result[1])


def blocked_product(block: LayoutLike, tiler: Layout) -> LayoutLike:
    """Repeat ``block`` over ``tiler``, each result mode being (block mode, tiler mode)."""
    return _lift(block, lambda x: _rank_sensitive_product(x, tiler, raked=False))


def raked_product(block: LayoutLike, tiler: Layout) -> LayoutLike:
    """Interleave copies of ``block`` over ``tiler``: result modes are (tiler mode, block mode)."""
    return _lift(block, lambda x: _rank_sensitive_product(x, tiler, raked=True))


def tile_to_shape(
    block: LayoutLike, target_shape: IntTuple, order: tuple[int, ...] | None = None
) -> LayoutLike:
    """Repeat ``block`` to cover ``target_shape``; ``order`` ranks the modes to repeat along first.

    ``order`` is CuTe's ``ord_shape``: the default (0,1,2,...) repeats across the first mode
    first; (1,0,2) repeats across the second mode first.
    """
    return _lift(block, lambda x: _tile_to_shape(x, target_shape, order))


def _tile_to_shape(block: Layout, target_shape: IntTuple, order: tuple[int, ...] | None) -> Layout:
    """tile_to_shape for a plain layout."""
    n = rank(target_shape)
    if block.rank() > n:
        raise ValueError(f"tile_to_shape: block {block} has more modes than {target_shape!r}")
    padded = _append(block, n)
    blocks = tuple(m.size() for m in padded.modes())
    targets = tuple(map(product, target_shape if is_tuple(target_shape) else (target_shape,)))
    if any(t % b for t, b in zip(targets, blocks, strict=True)):
        raise ValueError(f"tile_to_shape: block shape {blocks} does not divide {targets}")
    repeats = tuple(t // b for t, b in zip(targets, blocks, strict=True))
    tiler = make_ordered_layout(repeats if is_tuple(target_shape) else repeats[0], order)
    return _rank_sensitive_product(padded, tiler, raked=False)


def image(layout: LayoutLike) -> frozenset[int]:
    """The set of offsets reached (brute force over the domain)."""
    return frozenset(to_function_table(layout))


def to_function_table(layout: LayoutLike) -> list[int]:
    """The offsets of indices 0, 1, ..., size-1."""
    return [layout(i) for i in range(layout.size())]


def is_injective(layout: LayoutLike) -> bool:
    """True when no two indices of the domain share an offset (brute force)."""
    return len(image(layout)) == layout.size()


def scale_strides(layout: Layout, scale: Fraction) -> Layout:
    """Multiply every stride by ``scale``; ValueError when a result is not an integer."""
    scaled = [d * scale for d in flatten(layout.stride)]
    if any(x.denominator != 1 for x in scaled):
        raise ValueError(f"strides of {layout} times {scale} are not whole")
    return Layout(layout.shape, unflatten((int(x) for x in scaled), layout.stride))
