"""Differential tests: oracle/algebra against pycute, CuTe's reference Python algebra.

pycute ships inside the ``nvidia-cutlass`` wheel (``pip install --no-deps nvidia-cutlass``);
the PyPI package called ``pycute`` is unrelated. Known, deliberate differences, not tested:

- ``pycute.logical_product(layout, int)`` calls ``logical_divide`` (a bug); only layout tilers
  are compared.
- pycute's by-mode ``composition`` keeps the modes a short tuple tiler does not reach; CuTe
  (and the oracle) drop them. Tuple tilers are compared at full rank only.
- pycute's ``right_inverse`` stops at the first stride that does not continue the chain, so a
  stride-0 mode hides the rest; CuTe (and the oracle) skip it. Compared without zero strides.
- pycute composes with a plainly coalesced lhs where CuTe uses ``coalesce_x``, which differ
  when the lhs ends in a size-1 mode; and pycute computes ``max(1, s // d)`` where CuTe has
  ``ceil_div(s, d)``. Compared on power-of-two layouts, where they agree.
- pycute's ``Swizzle`` recurses forever when S == 0 (only valid with B == 0); skipped.
- pycute's default strides are plain prefix products; CuTe (and the oracle) give size-1 modes
  stride 0. These tests always pass strides explicitly.
- Equal strides: pycute's inverses break ties by shape, CuTe's exchange sort by position.
- pycute has no blocked_product, raked_product or tile_to_shape.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import compact_layouts, composed_layouts, coordinates, layouts, swizzles

from ptxconf.oracle.algebra import (
    ComposedLayout,
    Layout,
    Swizzle,
    coalesce,
    complement,
    composition,
    crd2idx,
    flatten,
    idx2crd,
    left_inverse,
    logical_divide,
    logical_product,
    right_inverse,
    to_function_table,
)

pycute = pytest.importorskip(
    "pycute",
    reason="pycute ships in the nvidia-cutlass wheel: pip install --no-deps nvidia-cutlass",
)


def ref(layout: Layout) -> Any:
    """The same layout as a pycute Layout."""
    return pycute.Layout(layout.shape, layout.stride)


def same(ours: Layout, theirs: Any) -> bool:
    """True when the oracle's layout and pycute's have identical shape and stride."""
    return (ours.shape, ours.stride) == (theirs.shape, theirs.stride)


@given(layouts(), st.data())
def test_crd2idx_and_idx2crd(layout: Layout, data: st.DataObject) -> None:
    shape, stride = layout.shape, layout.stride
    crd = data.draw(coordinates(shape))
    assert crd2idx(crd, shape, stride) == pycute.crd2idx(crd, shape, stride)
    i = crd2idx(crd, shape)
    assert i == pycute.crd2idx(crd, shape)
    assert idx2crd(i, shape) == pycute.idx2crd(i, shape)


@given(layouts())
def test_layout_call(layout: Layout) -> None:
    theirs = ref(layout)
    assert to_function_table(layout) == [theirs(i) for i in range(layout.size())]
    assert layout.cosize() == theirs.cosize()


@given(layouts())
def test_coalesce(layout: Layout) -> None:
    assert same(coalesce(layout), pycute.coalesce(ref(layout)))


@given(layouts(pow2=True), compact_layouts(max_size=16, pow2=True, gaps=True))
def test_composition(a: Layout, b: Layout) -> None:
    assume(flatten(a.shape)[-1] != 1)  # coalesce_x vs coalesce: see the module docstring
    assert same(composition(a, b), pycute.composition(ref(a), ref(b)))


@given(layouts(max_rank=3, max_depth=1, pow2=True), st.data())
def test_composition_by_mode_full_rank(a: Layout, data: st.DataObject) -> None:
    assume(all(flatten(m.shape)[-1] != 1 for m in a.modes()))
    tiler = tuple(data.draw(compact_layouts(max_size=m.size(), pow2=True)) for m in a.modes())
    ours = composition(a, tiler if a.rank() > 1 else tiler[0])
    theirs = pycute.composition(ref(a), tuple(map(ref, tiler)) if a.rank() > 1 else ref(tiler[0]))
    assert same(ours, theirs)


@given(compact_layouts(gaps=True), st.integers(1, 4))
def test_complement(layout: Layout, k: int) -> None:
    cotarget = k * layout.cosize()
    assert same(complement(layout, cotarget), pycute.complement(ref(layout), cotarget))


@given(layouts(pow2=True, allow_zero=False), compact_layouts(max_size=16, pow2=True, gaps=True))
def test_logical_divide(layout: Layout, tiler: Layout) -> None:
    assume(layout.size() % tiler.size() == 0 and flatten(layout.shape)[-1] != 1)
    assert same(logical_divide(layout, tiler), pycute.logical_divide(ref(layout), ref(tiler)))


@given(compact_layouts(max_size=16), compact_layouts(max_size=8))
def test_logical_product(block: Layout, tiler: Layout) -> None:
    assert same(logical_product(block, tiler), pycute.logical_product(ref(block), ref(tiler)))


@given(layouts(allow_zero=False))
def test_right_inverse(layout: Layout) -> None:
    # Ties: pycute sorts the uncoalesced modes by (stride, shape), CuTe the coalesced ones
    modes = zip(flatten(layout.shape), flatten(layout.stride), strict=True)
    strides = [d for s, d in modes if s != 1]
    assume(len(set(strides)) == len(strides))
    # Overlapping modes: pycute stops at the first sorted stride that breaks the chain, CuTe's
    # C++ (inverse_seq) and this oracle follow the chain to the mode with the next stride, so
    # (6,(2,2,1)):(1,(2,6,1)) has 6:1 in pycute and (6,2):(1,12) here, both right inverses.
    # The two are compared where no two elements share an offset.
    assume(len({layout(i) for i in range(layout.size())}) == layout.size())
    assert same(right_inverse(layout), pycute.right_inverse(ref(layout)))


@given(layouts(allow_zero=False))
def test_right_inverse_is_a_right_inverse(layout: Layout) -> None:
    """Overlapping modes included: layout(r(i)) == i over the whole domain of r."""
    r = right_inverse(layout)
    assert all(layout(r(i)) == i for i in range(r.size()))


def test_right_inverse_follows_the_chain_past_an_overlap() -> None:
    """Hypothesis found this one: pycute gives 6:1; following the stride chain (as CuTe's
    inverse_seq does) reaches the stride-6 mode too: a right inverse of size 12."""
    layout = Layout((6, (2, 2, 1)), (1, (2, 6, 1)))
    r = right_inverse(layout)
    assert (r.shape, r.stride) == ((6, 2), (1, 12))
    assert [layout(r(i)) for i in range(r.size())] == list(range(12))


@given(compact_layouts(gaps=True))
def test_left_inverse_agrees_on_the_image(layout: Layout) -> None:
    ours, theirs = left_inverse(layout), pycute.left_inverse(ref(layout))
    offsets = to_function_table(layout)
    assert [ours(x) for x in offsets] == [theirs(x) for x in offsets] == list(range(len(offsets)))


@given(swizzles(), st.data())
def test_swizzle(sw: Swizzle, data: st.DataObject) -> None:
    assume(sw.shift > 0)  # pycute's shiftr/shiftl recurse forever on a zero shift
    theirs = pycute.Swizzle(sw.bits, sw.base, sw.shift)
    xs = data.draw(st.lists(st.integers(0, 4 * sw.period()), min_size=1, max_size=50))
    assert [sw(x) for x in xs] == [theirs(x) for x in xs]


@given(composed_layouts(max_size=32))
def test_composed_layout(c: ComposedLayout) -> None:
    assume(isinstance(c.inner, Swizzle) and c.inner.shift > 0)
    inner = pycute.Swizzle(c.inner.bits, c.inner.base, c.inner.shift)
    theirs = pycute.ComposedLayout(inner, c.offset, ref(c.outer))
    assert to_function_table(c) == [theirs(i) for i in range(c.size())]
