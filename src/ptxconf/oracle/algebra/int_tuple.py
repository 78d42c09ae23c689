"""CuTe integer tuples: nested tuples of ints, and the arithmetic CuTe's layouts are built from.

An ``IntTuple`` is an ``int`` or a (possibly nested, non-empty) ``tuple`` of IntTuples. Names and
semantics follow CuTe's ``int_tuple.hpp``/``stride.hpp`` (CUTLASS 4.x); where CuTe would fail to
compile (a ``static_assert``), these functions raise ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias, TypeGuard

IntTuple: TypeAlias = int | tuple["IntTuple", ...]


def is_int(x: object) -> TypeGuard[int]:
    """True for a plain integer (``bool`` is not an integer here)."""
    return isinstance(x, int) and not isinstance(x, bool)


def is_tuple(x: object) -> TypeGuard[tuple[IntTuple, ...]]:
    """True for a tuple (one level of an IntTuple's hierarchy)."""
    return isinstance(x, tuple)


def as_int_tuple(x: object) -> IntTuple:
    """Validate ``x`` as an IntTuple, turning lists into tuples; raise ValueError otherwise."""
    if is_int(x):
        return x
    if isinstance(x, (tuple, list)):
        if not x:
            raise ValueError("an IntTuple cannot contain an empty tuple")
        return tuple(as_int_tuple(e) for e in x)
    raise ValueError(f"not an IntTuple: {x!r}")


def flatten(t: IntTuple) -> tuple[int, ...]:
    """The leaves of ``t`` left to right, always as a flat tuple (an int gives a 1-tuple)."""
    if isinstance(t, tuple):
        return tuple(leaf for e in t for leaf in flatten(e))
    return (t,)


def unflatten(flat: Iterable[int], profile: IntTuple) -> IntTuple:
    """Fold the flat sequence ``flat`` into the nesting of ``profile`` (inverse of flatten)."""
    leaves = iter(flat)

    def fold(p: IntTuple) -> IntTuple:
        return tuple(fold(e) for e in p) if isinstance(p, tuple) else next(leaves)

    result = fold(profile)
    if next(leaves, None) is not None:
        raise ValueError(f"too many leaves for profile {profile!r}")
    return result


def product(t: IntTuple) -> int:
    """Product of all leaves (1 for an empty tuple)."""
    result = 1
    for leaf in flatten(t):
        result *= leaf
    return result


def product_each(t: IntTuple) -> IntTuple:
    """Product of each top-level mode: ((2,3),4) -> (6,4); an int is returned as is."""
    return tuple(product(e) for e in t) if isinstance(t, tuple) else t


def inner_product(a: IntTuple, b: IntTuple) -> int:
    """Sum of leafwise products of two congruent IntTuples."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        _require_same_rank(a, b, "inner_product")
        return sum(inner_product(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, tuple) or isinstance(b, tuple):
        raise ValueError(f"inner_product of incongruent {a!r} and {b!r}")
    return a * b


def prefix_product(a: IntTuple, init: IntTuple = 1) -> IntTuple:
    """Exclusive prefix product congruent to ``a`` (the compact column-major strides of ``a``)."""
    if isinstance(a, tuple):
        if isinstance(init, tuple):
            _require_same_rank(a, init, "prefix_product")
            return tuple(prefix_product(x, i) for x, i in zip(a, init, strict=True))
        result = []
        for mode in a:
            result.append(prefix_product(mode, init))
            init = init * product(mode)
        return tuple(result)
    if isinstance(init, tuple):
        raise ValueError(f"prefix_product of int {a!r} with tuple init {init!r}")
    return init


def compact_col_major(shape: IntTuple, current: int = 1) -> IntTuple:
    """CuTe's compact column-major strides: prefix products, but 0 for every size-1 leaf."""
    strides = prefix_product(shape, current)
    return unflatten(
        (0 if s == 1 else d for s, d in zip(flatten(shape), flatten(strides), strict=True)), shape
    )


def shape_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """CuTe's shape_div: divide ``b`` out of ``a`` mode by mode (ceil); congruent to ``a``."""
    if isinstance(a, tuple):
        if isinstance(b, tuple):
            _require_same_rank(a, b, "shape_div")
            return tuple(shape_div(x, y) for x, y in zip(a, b, strict=True))
        result = []
        for mode in a:
            result.append(shape_div(mode, b))
            b = shape_div(b, product(mode))
        return tuple(result)
    if isinstance(b, tuple):
        return shape_div(a, product(b))
    if a % b != 0 and b % a != 0:
        raise ValueError(f"shape_div divisibility condition violated: {a} and {b}")
    return -(-a // b)


def ceil_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """CuTe's ceil_div: like shape_div but with no divisibility condition."""
    if isinstance(a, tuple):
        if isinstance(b, tuple):
            if len(b) > len(a):
                raise ValueError(f"ceil_div: {b!r} has more modes than {a!r}")
            padded = b + (1,) * (len(a) - len(b))
            return tuple(ceil_div(x, y) for x, y in zip(a, padded, strict=True))
        result = []
        for mode in a:
            result.append(ceil_div(mode, b))
            b = ceil_div(b, mode)
        return tuple(result)
    if isinstance(b, tuple):
        return ceil_div(a, product(b))
    return -(-a // b)


def size(a: IntTuple) -> int:
    """Number of coordinates in the shape ``a`` (the product of its leaves)."""
    return product(a)


def rank(a: IntTuple) -> int:
    """Number of top-level modes (1 for an int)."""
    return len(a) if isinstance(a, tuple) else 1


def depth(a: IntTuple) -> int:
    """Nesting depth: 0 for an int, 1 for a flat tuple, and so on."""
    return 1 + max(depth(e) for e in a) if isinstance(a, tuple) else 0


def congruent(a: IntTuple, b: IntTuple) -> bool:
    """True when ``a`` and ``b`` have the same nesting profile."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b, strict=True))
    return not isinstance(a, tuple) and not isinstance(b, tuple)


def compatible(a: IntTuple, b: IntTuple) -> bool:
    """True when every coordinate of shape ``a`` is also a coordinate of shape ``b``."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(compatible(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, tuple):
        return False
    return a == size(b)


def crd2idx(crd: IntTuple, shape: IntTuple, stride: IntTuple | None = None) -> int:
    """Map a (possibly partially flattened) coordinate to an index: sum of coordinate * stride.

    An integer coordinate against a tuple shape is split colexicographically; the last mode takes
    whatever is left over, as in CuTe (so indices past the end extend the last mode).
    Without ``stride``, the compact column-major strides of ``shape`` are used.
    """
    if stride is None:
        stride = prefix_product(shape)
    if isinstance(crd, tuple):
        if not (isinstance(shape, tuple) and isinstance(stride, tuple)):
            raise ValueError(f"coordinate {crd!r} has more modes than shape {shape!r}")
        _require_same_rank(crd, shape, "crd2idx")
        _require_same_rank(shape, stride, "crd2idx")
        return sum(crd2idx(c, s, d) for c, s, d in zip(crd, shape, stride, strict=True))
    if isinstance(shape, tuple):
        if not isinstance(stride, tuple):
            raise ValueError(f"shape {shape!r} and stride {stride!r} are not congruent")
        _require_same_rank(shape, stride, "crd2idx")
        result = 0
        for s, d in zip(shape[:-1], stride[:-1], strict=True):
            result += crd2idx(crd % product(s), s, d)
            crd //= product(s)
        return result + crd2idx(crd, shape[-1], stride[-1])
    if isinstance(stride, tuple):
        raise ValueError(f"shape {shape!r} and stride {stride!r} are not congruent")
    return crd * stride


def idx2crd(idx: IntTuple, shape: IntTuple, stride: IntTuple | None = None) -> IntTuple:
    """Split an index into a coordinate of ``shape``.

    Without ``stride``: colexicographic, the last mode keeping any overflow, so
    ``crd2idx(idx2crd(i, s), s) == i`` for every i >= 0. With ``stride``: CuTe's
    ``(idx // stride) % shape`` at every leaf (meaningful for compact strides).
    """
    if isinstance(idx, tuple):
        if not isinstance(shape, tuple):
            raise ValueError(f"index {idx!r} has more modes than shape {shape!r}")
        _require_same_rank(idx, shape, "idx2crd")
        if stride is not None and not isinstance(stride, tuple):
            raise ValueError(f"index {idx!r} and stride {stride!r} are not congruent")
        strides = stride if isinstance(stride, tuple) else (None,) * len(shape)
        return tuple(idx2crd(i, s, d) for i, s, d in zip(idx, shape, strides, strict=True))
    if stride is None:
        return _idx2crd_colex(idx, shape)
    if isinstance(shape, tuple):
        full = stride if isinstance(stride, tuple) else prefix_product(shape, stride)
        assert isinstance(full, tuple)
        _require_same_rank(shape, full, "idx2crd")
        return tuple(idx2crd(idx, s, d) for s, d in zip(shape, full, strict=True))
    if isinstance(stride, tuple):
        raise ValueError(f"shape {shape!r} and stride {stride!r} are not congruent")
    return 0 if shape == 1 else (idx // stride) % shape


def _idx2crd_colex(idx: int, shape: IntTuple) -> IntTuple:
    """Colexicographic split of ``idx`` with the overflow left in the last mode."""
    if not isinstance(shape, tuple):
        return idx
    crd = []
    for mode in shape[:-1]:
        crd.append(_idx2crd_colex(idx % product(mode), mode))
        idx //= product(mode)
    crd.append(_idx2crd_colex(idx, shape[-1]))
    return tuple(crd)


def _require_same_rank(a: tuple[IntTuple, ...], b: tuple[IntTuple, ...], where: str) -> None:
    """Raise ValueError naming ``where`` unless the two tuples have the same length."""
    if len(a) != len(b):
        raise ValueError(f"{where}: mismatched ranks {a!r} and {b!r}")
