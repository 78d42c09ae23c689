"""CuTe's integer tuples (oracle/algebra/int_tuple.py): shape_div, ceil_div, prefix_product,
compatible, idx2crd, crd2idx and inner_product against pycute and worked examples, and what each
refuses (naming the function), and properties over drawn shapes (idx2crd inverts crd2idx,
flatten/unflatten, shape_div); the layout-level properties are test_algebra.py's.

Expected values come from pycute (CUTLASS's reference Python CuTe, an independent
implementation of shape_div, prefix_product, idx2crd and crd2idx), from CuTe's definitions
(``int_tuple.hpp``: ceil_div pads a shorter divisor with 1s; ``compatible(a, b)``: every
coordinate of shape ``a`` is a coordinate of ``b``, i.e. an int ``a`` matches any ``b`` of that
size, and tuples match mode by mode) with the hand computation written beside each case, and
from the module's documented refusals (where CuTe would ``static_assert``, a ``ValueError``
naming the function), never from the code under test. Only the differentials need pycute;
without it (the mutation audit's env has none) the worked examples and refusals still run."""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import POW2_LEAVES, coordinates, int_tuples, shapes

from ptxconf.oracle.algebra.int_tuple import (
    IntTuple,
    as_int_tuple,
    ceil_div,
    compatible,
    congruent,
    crd2idx,
    flatten,
    idx2crd,
    inner_product,
    prefix_product,
    product,
    product_each,
    shape_div,
    size,
    unflatten,
)

try:
    import pycute
except ImportError:  # the differentials skip; the worked examples and refusals still run
    pycute = None
#: The differentials against pycute need it (the mutation audit's env, for one, lacks it).
needs_pycute = pytest.mark.skipif(
    pycute is None,
    reason="pycute ships in the nvidia-cutlass wheel: pip install --no-deps nvidia-cutlass",
)


def pow2_like(shape: IntTuple) -> st.SearchStrategy[IntTuple]:
    """A power-of-two IntTuple congruent with ``shape`` (shape_div's divisibility then holds)."""
    leaves = st.tuples(*(st.sampled_from(POW2_LEAVES) for _ in flatten(shape)))
    return leaves.map(lambda v: unflatten(v, shape))


# --- differential against pycute -----------------------------------------------------------


@needs_pycute
@given(shapes(pow2=True), st.data())
def test_shape_div_by_a_congruent_tuple_matches_pycute(a: IntTuple, data: st.DataObject) -> None:
    b = data.draw(pow2_like(a))
    assert shape_div(a, b) == pycute.shape_div(a, b)


@needs_pycute
@given(shapes(pow2=True), shapes(pow2=True))
def test_shape_div_of_an_int_by_a_tuple_matches_pycute(a: IntTuple, b: IntTuple) -> None:
    n = pycute.product(a)  # an int dividend; pycute divides it by product(b)
    assert shape_div(n, b) == pycute.shape_div(n, b)


@needs_pycute
@given(shapes(), st.data())
def test_prefix_product_with_a_congruent_init_matches_pycute(
    a: IntTuple, data: st.DataObject
) -> None:
    init = data.draw(pow2_like(a))
    assert prefix_product(a, init) == pycute.prefix_product(a, init)


@needs_pycute
@given(shapes(pow2=True), st.data())
def test_idx2crd_with_tuple_index_and_stride_matches_pycute(
    shape: IntTuple, data: st.DataObject
) -> None:
    # pycute's tuple-index path divides each mode's index by that mode's stride
    stride = pycute.prefix_product(shape)
    idx = data.draw(pow2_like(shape))
    assert idx2crd(idx, shape, stride) == pycute.idx2crd(idx, shape, stride)


@needs_pycute
@given(shapes(), st.data())
def test_idx2crd_with_an_int_index_and_tuple_stride_matches_pycute(
    shape: IntTuple, data: st.DataObject
) -> None:
    stride = pycute.prefix_product(shape, data.draw(st.sampled_from([1, 2, 3])))
    i = data.draw(st.integers(0, 4 * pycute.product(shape)))
    ours = idx2crd(i, shape, stride)
    theirs = pycute.idx2crd(i, shape, stride)
    # the oracle (like CuTe) gives a size-1 mode coordinate 0; pycute computes x % 1 == 0 too
    assert ours == theirs


# --- worked examples -------------------------------------------------------------------------


def test_shape_div_worked_examples() -> None:
    assert shape_div((4, 6), (2, 3)) == (2, 2)  # mode by mode: 4/2, 6/3
    assert shape_div(((8, 2), 6), ((4, 2), 3)) == ((2, 1), 2)
    assert shape_div(12, (2, 3)) == 2  # 12 / product(2,3) = 12 / 6
    assert shape_div(2, (2, 4)) == 1  # 8 % 2 == 0, so ceil(2 / 8) = 1


def test_ceil_div_pads_a_shorter_divisor_with_ones() -> None:
    # padded (3,) -> (3, 1): (ceil(8/3), ceil(6/1)) = (3, 6); a (2,) pad would give (3, 3)
    assert ceil_div((8, 6), (3,)) == (3, 6)
    # padded (2,) -> (2, 1, 1): (ceil(5/2), 7, 9)
    assert ceil_div((5, 7, 9), (2,)) == (3, 7, 9)


def test_ceil_div_accepts_a_divisor_of_equal_rank() -> None:
    # (ceil(4/2), ceil(5/2)) = (2, 3), nested: ceil(7/3) = 3 and 9/(3*3)=1
    assert ceil_div((4, 5), (2, 2)) == (2, 3)
    assert ceil_div((7, 9), (3, (3, 3))) == (3, 1)


def test_ceil_div_of_an_int_by_a_tuple_divides_by_its_product() -> None:
    assert ceil_div(10, (2, 3)) == 2  # ceil(10 / 6)
    assert ceil_div(13, ((2, 2), 3)) == 2  # ceil(13 / 12)
    assert ceil_div(12, ((2, 2), 3)) == 1


def test_ceil_div_refuses_a_divisor_with_more_modes() -> None:
    with pytest.raises(ValueError, match=r"ceil_div: \(2, 2\) has more modes than \(4,\)"):
        ceil_div((4,), (2, 2))


def test_prefix_product_worked_examples() -> None:
    assert prefix_product(((2, 3), 4), (1, 10)) == ((1, 2), 10)  # (1, 1*2) and 10
    assert prefix_product((2, 3), (5, 7)) == (5, 7)  # int modes just take their init
    assert prefix_product((2, 3, 4)) == (1, 2, 6)


def test_size_is_the_number_of_coordinates() -> None:
    assert size(((2, 3), 4)) == 24
    assert size(5) == 5


def test_product_each_of_an_int_is_the_int() -> None:
    assert product_each(6) == 6
    assert product_each(((2, 3), 4)) == (6, 4)


@pytest.mark.parametrize(("a", "b", "expected"), [
    (6, (2, 3), True),             # an int matches any shape of that size
    (6, (2, 4), False),            # size 8
    ((2, 3), (2, 3), True),
    ((2, 3), (3, 2), False),       # same rank, different modes
    ((2, 3), (2, 3, 1), False),    # different rank
    ((6, 4), ((2, 3), 4), True),   # 6 ~ (2,3), 4 ~ 4
    (((2, 3), 4), (6, 4), False),  # a tuple never matches an int
    ((2, 3), 6, False),
    (4, 4, True),
    (4, 5, False),
])
def test_compatible_follows_cutes_definition(a: IntTuple, b: IntTuple, expected: bool) -> None:
    assert compatible(a, b) is expected


def test_idx2crd_tuple_index_splits_each_mode_colexicographically() -> None:
    # mode 0: 3 in (2,2) -> (3 % 2, 3 // 2) = (1, 1); mode 1: 1 in 2 -> 1
    assert idx2crd((3, 1), ((2, 2), 2)) == ((1, 1), 1)


def test_idx2crd_tuple_index_with_a_tuple_stride() -> None:
    # per leaf (idx // stride) % shape: (0 // 1) % 2 = 0, (1 // 2) % 2 = 0
    assert idx2crd((0, 1), (2, 2), (1, 2)) == (0, 0)
    # (5 // 1) % 2 = 1, ((6 // 2) % 2, (6 // 4) % 2) = (1, 1)
    assert idx2crd((5, 6), (2, (2, 2)), (1, (2, 4))) == (1, (1, 1))


def test_idx2crd_int_stride_is_expanded_to_prefix_products() -> None:
    # stride 2 against (2,4) means strides (2, 4): ((5 // 2) % 2, (5 // 4) % 4) = (0, 1)
    assert idx2crd(5, (2, 4), 2) == (0, 1)
    # stride 1: strides (1, 2): (5 % 2, (5 // 2) % 4) = (1, 2)
    assert idx2crd(5, (2, 4), 1) == (1, 2)


def test_idx2crd_size_one_mode_is_coordinate_zero_even_with_stride_zero() -> None:
    # a size-1 mode has the single coordinate 0, whatever its stride (CuTe gives it stride 0)
    assert idx2crd(5, (1, 4), (0, 1)) == (0, 1)  # (0, (5 // 1) % 4)


def test_crd2idx_tuple_coordinate_worked_example() -> None:
    # (1, 2) in (2, 3) with strides (1, 2): 1*1 + 2*2 = 5
    assert crd2idx((1, 2), (2, 3), (1, 2)) == 5


def test_inner_product_worked_example() -> None:
    assert inner_product(((1, 2), 3), ((4, 5), 6)) == 4 + 10 + 18


# --- refusals: the exception and the message naming the function -----------------------------


def test_as_int_tuple_refuses_an_empty_tuple() -> None:
    with raises_naming(ValueError, "empty tuple"):
        as_int_tuple((2, ()))


def test_as_int_tuple_refuses_a_non_integer_naming_it() -> None:
    with pytest.raises(ValueError, match=r"not an IntTuple: 'x'"):
        as_int_tuple((2, "x"))


def test_unflatten_refuses_extra_leaves() -> None:
    with pytest.raises(ValueError, match=r"too many leaves for profile \(0, 0\)"):
        unflatten([1, 2, 3], (0, 0))


def test_shape_div_refuses_mismatched_ranks_by_name() -> None:
    with raises_naming(ValueError, "shape_div:", "(4, 6)", "(2,)"):
        shape_div((4, 6), (2,))


def test_prefix_product_refuses_mismatched_ranks_by_name() -> None:
    with pytest.raises(ValueError, match=r"^prefix_product: mismatched ranks"):
        prefix_product((2, 3), (1, 2, 3))


def test_prefix_product_refuses_a_tuple_init_for_an_int() -> None:
    with pytest.raises(ValueError, match=r"prefix_product of int 2 with tuple init \(1,\)"):
        prefix_product(2, (1,))


def test_inner_product_refuses_mismatched_ranks_by_name() -> None:
    with pytest.raises(ValueError, match=r"^inner_product: mismatched ranks"):
        inner_product((1, 2), (3, 4, 5))


@pytest.mark.parametrize(("a", "b"), [((2, 3), 4), (4, (2, 3))])
def test_inner_product_refuses_a_tuple_against_an_int(a: IntTuple, b: IntTuple) -> None:
    with pytest.raises(ValueError, match=r"inner_product of incongruent"):
        inner_product(a, b)


def test_crd2idx_refuses_a_tuple_coordinate_against_an_int_stride() -> None:
    with pytest.raises(ValueError, match=r"coordinate \(0, 1\) has more modes than shape \(2, 2\)"):
        crd2idx((0, 1), (2, 2), 1)


def test_crd2idx_refuses_a_tuple_coordinate_against_an_int_shape() -> None:
    with pytest.raises(ValueError, match=r"coordinate \(0, 1\) has more modes than shape 4"):
        crd2idx((0, 1), 4, 1)


@pytest.mark.parametrize(("crd", "shape", "stride"), [
    ((0, 1), (2, 2, 2), None),   # coordinate vs shape
    ((0, 1), (2, 2), (1, 2, 4)),  # shape vs stride, tuple coordinate
    (1, (2, 2), (1, 2, 4)),       # shape vs stride, int coordinate
])
def test_crd2idx_refuses_mismatched_ranks_by_name(
    crd: IntTuple, shape: IntTuple, stride: IntTuple | None
) -> None:
    with pytest.raises(ValueError, match=r"^crd2idx: mismatched ranks"):
        crd2idx(crd, shape, stride)


@pytest.mark.parametrize(("shape", "stride"), [((2, 2), 1), (4, (1, 2))])
def test_crd2idx_refuses_incongruent_shape_and_stride(shape: IntTuple, stride: IntTuple) -> None:
    with pytest.raises(ValueError, match=r"are not congruent"):
        crd2idx(1, shape, stride)


def test_idx2crd_refuses_a_tuple_index_against_an_int_shape() -> None:
    with pytest.raises(ValueError, match=r"index \(0, 1\) has more modes than shape 4"):
        idx2crd((0, 1), 4)


@pytest.mark.parametrize(("idx", "shape", "stride"), [
    ((0, 1), (2, 2, 2), None),  # index vs shape
    (3, (2, 2), (1, 2, 4)),     # shape vs stride
])
def test_idx2crd_refuses_mismatched_ranks_by_name(
    idx: IntTuple, shape: IntTuple, stride: IntTuple | None
) -> None:
    with pytest.raises(ValueError, match=r"^idx2crd: mismatched ranks"):
        idx2crd(idx, shape, stride)


def test_idx2crd_refuses_a_tuple_index_with_an_int_stride() -> None:
    with pytest.raises(ValueError, match=r"index \(0, 1\) and stride 1 are not congruent"):
        idx2crd((0, 1), (2, 2), 1)


def test_idx2crd_refuses_a_stride_shorter_than_a_tuple_index() -> None:
    with pytest.raises(ValueError, match="shorter"):   # zip(..., strict=True) names it
        idx2crd((0, 1), (2, 2), (1,))


@pytest.mark.parametrize(("shape", "stride"), [(4, (1, 2)), ((2, 2), ((1, 2), 4))])
def test_idx2crd_refuses_a_tuple_stride_for_an_int_shape(shape: IntTuple, stride: IntTuple) -> None:
    with pytest.raises(ValueError, match=r"shape 2 and stride \(1, 2\) are not congruent|"
                                         r"shape 4 and stride \(1, 2\) are not congruent"):
        idx2crd(3, shape, stride)


# --- properties over drawn shapes (moved from test_algebra.py) ----------------------------------


@given(shapes(), st.data())
def test_idx2crd_inverts_crd2idx(shape: IntTuple, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, 4 * size(shape)), label="index (past the end too)")
    assert crd2idx(idx2crd(i, shape), shape) == i
    crd = data.draw(coordinates(shape), label="coordinate")
    assert idx2crd(crd2idx(crd, shape), shape) == crd


@given(shapes(), st.data())
def test_idx2crd_with_compact_strides_matches_colex(shape: IntTuple, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, size(shape) - 1))
    assert idx2crd(i, shape, prefix_product(shape)) == idx2crd(i, shape)


@given(int_tuples(st.integers(1, 8)))
def test_flatten_unflatten_and_prefix_product(t: IntTuple) -> None:
    assert unflatten(flatten(t), t) == t
    assert congruent(prefix_product(t), t)
    assert product(t) == product(flatten(t))


@given(shapes(pow2=True), st.sampled_from([1, 2, 4, 8]))
def test_shape_div_divides_size(shape: IntTuple, d: int) -> None:
    assume(size(shape) % d == 0)
    assert size(shape_div(shape, d)) == size(shape) // d
    assert congruent(shape_div(shape, d), shape)


def test_shape_div_rejects_indivisible() -> None:
    with pytest.raises(ValueError, match="divisibility"):
        shape_div(6, 4)
