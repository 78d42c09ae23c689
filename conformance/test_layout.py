"""CuTe layouts (oracle/algebra/layout.py, and UnitLayout's unit changes): calling and indexing,
by-mode divide and product against pycute, complement, composition, the inverses,
make_ordered_layout, blocked_product and tile_to_shape, each with what it refuses (the wording:
messages_oracle_algebra.py's layout.*); the algebra's properties are test_algebra.py's.

Expected values come from pycute (CUTLASS's reference Python CuTe: by-mode logical_divide,
logical_product and zipped_divide keep the modes a short tuple tiler does not reach), from
CuTe's documented definitions (complement, filter_zeros, make_ordered_layout, blocked_product
padding with ``1:0``, left_inverse and right_inverse as in CuTe's layout.hpp) worked by hand in
the comments, and from the error messages the module documents; never from the code under test.
"""

from __future__ import annotations

from typing import Any

import pytest
from case_outcomes import raises_naming
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import layouts

from ptxconf.oracle.algebra import (
    ComposedLayout,
    Layout,
    Swizzle,
    Unit,
    UnitLayout,
    blocked_product,
    complement,
    composition,
    filter_zeros,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    make_ordered_layout,
    right_inverse,
    tile_to_shape,
    zipped_divide,
)
from ptxconf.oracle.algebra.layout import _zip

pycute = pytest.importorskip("pycute", reason="pycute ships in the nvidia-cutlass wheel")

ROWS = Layout((8, 64), (64, 1))  # 8 rows of 64 elements: one 128B swizzle atom in 16-bit units
ATOM = ComposedLayout(Swizzle(3, 4, 3), 0, ROWS, show_offset=False)


def ref(layout: Layout) -> Any:
    """The same layout as a pycute Layout."""
    return pycute.Layout(layout.shape, layout.stride)


def parts(layout: Any) -> tuple[Any, Any]:
    """(shape, stride) of an oracle or pycute layout."""
    return layout.shape, layout.stride


# --- Layout.__call__ / __getitem__ / make_layout: error paths -------------------------------


def test_calling_without_a_coordinate_is_refused_by_name() -> None:
    with raises_naming(ValueError, "coordinate"):
        Layout(4)()


def test_a_none_coordinate_is_refused_by_name() -> None:
    with raises_naming(ValueError, "None"):
        Layout((4, 2))((None, 1))


def test_rank_one_layout_indexes_as_its_own_only_mode() -> None:
    a = Layout(4, 2)
    assert a[0] == a
    assert a[-1] == a
    with pytest.raises(IndexError, match=r"mode 1 of rank-1 layout 4:2"):
        a[1]
    with pytest.raises(IndexError, match=r"mode -2 of rank-1 layout 4:2"):
        a[-2]


@pytest.mark.parametrize("args", [(), (4,), (Layout(2), 3)])
def test_make_layout_needs_layouts(args: tuple) -> None:
    with raises_naming(ValueError, "make_layout"):
        make_layout(*args)


def test_non_layout_arguments_are_named() -> None:
    with raises_naming(TypeError, "got int"):
        composition(4, 2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"a tiler is a Layout, an int, None or a tuple of those"):
        composition(Layout(4), "2")  # type: ignore[arg-type]


@pytest.mark.parametrize("tiler", [(), (2, 2, 2)])
def test_a_tuple_tiler_must_fit_the_layout(tiler: tuple) -> None:
    for op in (composition, logical_divide, zipped_divide):
        with raises_naming(ValueError, f"tiler {tiler}", "(4,6):(1,4)"):
            op(Layout((4, 6)), tiler)


# --- by-mode divide / product: the modes a short tuple tiler leaves are kept (pycute) -------

THREE = Layout((4, 6, 2), (1, 4, 24))


def test_logical_divide_keeps_the_modes_past_a_short_tiler() -> None:
    theirs = pycute.logical_divide(ref(THREE), (pycute.Layout(2, 1),))
    assert parts(logical_divide(THREE, (Layout(2, 1),))) == parts(theirs)
    assert parts(theirs) == (((2, 2), 6, 2), ((1, 2), 4, 24))


def test_logical_divide_keeps_rest_in_nested_tuple_tilers() -> None:
    nested = Layout(((4, 6), 8), ((1, 4), 24))
    theirs = pycute.logical_divide(ref(nested), ((pycute.Layout(2, 1),),))
    assert parts(logical_divide(nested, ((Layout(2, 1),),))) == parts(theirs)
    assert parts(theirs) == ((((2, 2), 6), 8), (((1, 2), 4), 24))


def test_logical_product_keeps_the_modes_past_a_short_tiler() -> None:
    theirs = pycute.logical_product(ref(THREE), (pycute.Layout(2, 1),))
    assert parts(logical_product(THREE, (Layout(2, 1),))) == parts(theirs)
    assert parts(theirs) == (((4, 2), 6, 2), ((1, 4), 4, 24))


def test_zipped_divide_gathers_the_untiled_modes_into_the_rest() -> None:
    theirs = pycute.zipped_divide(ref(THREE), (pycute.Layout(2, 1),))
    assert parts(zipped_divide(THREE, (Layout(2, 1),))) == parts(theirs)
    assert parts(theirs) == (((2,), (2, 6, 2)), ((1,), (2, 4, 24)))


def test_zipped_divide_gives_a_none_mode_the_tile_one_colon_zero() -> None:
    a = Layout((4, 6), (1, 4))
    theirs = pycute.zipped_divide(ref(a), (pycute.Layout(2, 1), None))
    assert parts(zipped_divide(a, (Layout(2, 1), None))) == parts(theirs)
    assert parts(theirs) == (((2, 1), (2, 6)), ((1, 0), (2, 4)))


@settings(max_examples=30, deadline=None)
@given(layouts(max_rank=3, max_depth=1, pow2=True, allow_zero=False), st.data())
def test_zipped_divide_with_none_modes_matches_pycute(a: Layout, data: st.DataObject) -> None:
    # tiles of 1 are left out: pycute gives a size-1 mode stride 1, CuTe (and the oracle) 0
    tiler = tuple(
        data.draw(st.sampled_from([None, *(d for d in (2, 4) if m.size() % d == 0)]))
        for m in a.modes()
    )
    ours = zipped_divide(a, tiler)
    theirs = pycute.zipped_divide(ref(a), tuple(None if t is None else pycute.Layout(t) for t in tiler))
    assert parts(ours) == parts(theirs)


# --- complement ------------------------------------------------------------------------------


def test_complement_worked_examples() -> None:
    # CuTe docs: complement((2,2):(1,6), 24): sorted modes 2:1, 2:6 -> shapes (1/1, 6/2, 24/12)
    # = (1,3,2) on strides (1,2,12) -> coalesced (3,2):(2,12).
    assert parts(complement(Layout((2, 2), (1, 6)), 24)) == ((3, 2), (2, 12))
    # Default cotarget is the cosize: 4:2 reaches 0..6, cosize 7; shapes (2/1, ceil(7/8)=1)
    # on strides (1, 8) -> 2:1.
    assert parts(complement(Layout(4, 2))) == (2, 1)
    # CuTe docs: complement(4:2, 24) = (2,3):(1,8).
    assert parts(complement(Layout(4, 2), 24)) == ((2, 3), (1, 8))


def test_complement_refusals_are_named() -> None:
    with raises_naming(ValueError, "negative", "4:-1"):
        complement(Layout(4, -1))
    # (2,2):(1,1): after 2:1 the next stride 1 is below 2*1, so 1 // 2 == 0: not injective.
    with raises_naming(ValueError, "complement:", "(2,2):(1,1)"):
        complement(Layout((2, 2), (1, 1)), 8)


def test_filter_zeros_replaces_stride_zero_shapes_by_one() -> None:
    # CuTe: filter_zeros replaces the shape of every stride-0 mode with 1, strides unchanged.
    assert parts(filter_zeros(Layout((4, (2, 3)), (0, (1, 0))))) == ((1, (2, 1)), (0, (1, 0)))
    # so complement ignores a broadcast mode: complement((4,2):(0,1), 8) = complement(2:1, 8) = 4:2
    assert parts(complement(Layout((4, 2), (0, 1)), 8)) == (4, 2)


# --- composition ----------------------------------------------------------------------------


def test_composition_admissibility_refusals_are_named() -> None:
    # lhs (4,3):(1,5) does not coalesce; rhs stride 3 neither divides nor is a multiple of 4.
    with pytest.raises(ValueError, match=r"stride divisibility violated \(stride 3 vs mode size 4\)"):
        composition(Layout((4, 3), (1, 5)), Layout(2, 3))
    # rhs 6:1 takes the whole first mode (4) and needs 6/4 more: 4 does not divide 6.
    with pytest.raises(ValueError, match=r"shape divisibility violated \(size 6 vs 4\)"):
        composition(Layout((4, 8), (1, 10)), Layout(6, 1))


def test_composition_with_a_negative_stride_steps_back_a_column() -> None:
    # a = (4,8):(1,10); b = 2:-4: b(1) = -4 is one full column (4 elements) back, the coordinate
    # (0,-1) of a, offset -10. So a o b = 2:-10 (pycute agrees).
    a, b = Layout((4, 8), (1, 10)), Layout(2, -4)
    assert parts(pycute.composition(ref(a), ref(b))) == (2, -10)
    assert parts(composition(a, b)) == (2, -10)
    # b = 4:-2: first mode gives 2:-2 and leaves stride -1 on the columns: (2,2):(-2,-10).
    ours = composition(a, Layout(4, -2))
    assert parts(ours) == ((2, 2), (-2, -10))
    assert [ours(i) for i in range(4)] == [0, -2, -10, -12]


# --- inverses: CuTe's layout.hpp ------------------------------------------------------------


def test_right_inverse_takes_the_first_mode_of_a_tied_stride() -> None:
    # CuTe's inverse_seq finds the *first* mode whose stride continues the chain: for
    # (2,3):(1,1) that is mode 0 (2:1, prefix 1), then no mode has stride 2: result 2:1.
    assert parts(right_inverse(Layout((2, 3), (1, 1)))) == (2, 1)


def test_left_inverse_by_cute_fold() -> None:
    # CuTe's left_inverse folds the stride-sorted, non-zero modes starting from strides (_0):
    # 4:2 -> shapes (2/1, 4) strides (0, 1): (2,4):(0,1), so r(2k) = k.
    assert parts(left_inverse(Layout(4, 2))) == ((2, 4), (0, 1))
    # (2,4):(0,1): the stride-0 mode is skipped, then 4:1 at prefix 2 -> (1,4):(0,2) = 4:2.
    a = Layout((2, 4), (0, 1))
    r = left_inverse(a)
    assert parts(r) == (4, 2)
    assert [a(r(x)) for x in range(4)] == [0, 1, 2, 3]


def test_left_inverse_refuses_a_divisibility_violation() -> None:
    # (2,2):(2,3): after 2:2 the result has size 2, and 3 is not a multiple of 2.
    with pytest.raises(ValueError, match=r"^left_inverse: divisibility condition violated by "):
        left_inverse(Layout((2, 2), (2, 3)))


# --- make_ordered_layout / blocked_product / tile_to_shape -----------------------------------


def test_make_ordered_layout_worked_examples() -> None:
    # CuTe: make_ordered_layout((2,3,4), (1,0,2)): mode 1 first (stride 1), then mode 0
    # (stride 3), then mode 2 (stride 3*2=6).
    assert parts(make_ordered_layout((2, 3, 4), (1, 0, 2))) == ((2, 3, 4), (3, 1, 6))
    # A nested mode is laid out compactly from its start: 3 first (stride 1), then (2,2) from 3.
    assert parts(make_ordered_layout(((2, 2), 3), (1, 0))) == (((2, 2), 3), ((3, 6), 1))
    assert parts(make_ordered_layout((2, 3))) == ((2, 3), (1, 2))


@pytest.mark.parametrize("order", [(0, 0), (0,), (0, 1, 2)])
def test_make_ordered_layout_refuses_a_bad_order(order: tuple) -> None:
    with raises_naming(ValueError, f"order {order}", "2 modes", "(2, 3)"):
        make_ordered_layout((2, 3), order)


def test_blocked_product_pads_the_lower_rank_with_one_colon_zero() -> None:
    # CuTe appends Layout<_1,_0> to the block: (2,1):(1,0). Product with (2,2):(1,2):
    # complement(2:1, 2*4) = 4:2; 4:2 o (2,2):(1,2) = (2,2):(2,4); zipped by mode:
    # ((2,2),(1,2)):((1,2),(0,4)).
    got = blocked_product(Layout(2, 1), Layout((2, 2), (1, 2)))
    assert parts(got) == (((2, 2), (1, 2)), ((1, 2), (0, 4)))


def test_blocked_product_leaves_a_full_rank_block_unpadded() -> None:
    # CuTe's append<R> returns a rank-R layout unchanged: block 2:1 stays int-shaped, so the
    # result is one mode (block, tiler-of-blocks). complement(2:1, 2*3) = 3:2 and
    # 3:2 o (3):(1) = (3):(2): ((2,(3))):((1,(2))), not the re-wrapped ((2,3)):((1,2)).
    got = blocked_product(Layout(2, 1), Layout((3,), (1,)))
    assert parts(got) == (((2, (3,)),), ((1, (2,)),))


def test_zip_refuses_different_ranks() -> None:
    with raises_naming(ValueError, "(2,2):(1,2)", "(2,2,2):(1,2,4)"):
        _zip(Layout((2, 2)), Layout((2, 2, 2)))


def test_tile_to_shape_refusals_are_named() -> None:
    with raises_naming(ValueError, "tile_to_shape: block", "(4, 4)"):
        tile_to_shape(Layout((2, 2, 2)), (4, 4))
    with pytest.raises(ValueError, match=r"^tile_to_shape: block shape \(2, 3\) does not divide"):
        tile_to_shape(Layout((2, 3)), (4, 4))


# --- UnitLayout ------------------------------------------------------------------------------


def test_unit_layout_fields_are_checked_by_name() -> None:
    with raises_naming(ValueError, "unit", "'bytes'"):
        UnitLayout(Layout(4), "bytes", 8)  # type: ignore[arg-type]
    with raises_naming(ValueError, "elem_bits", "0"):
        UnitLayout(Layout(4), Unit.BYTES, 0)


def test_to_bits_passes_the_swizzle_unit_on() -> None:
    # 16-bit elements -> bits: strides x16; a swizzle on byte addresses moves up log2(8) = 3
    # bits: Swizzle<3,4,3> on bytes is Swizzle<3,7,3> on bits.
    got = UnitLayout(ATOM, Unit.ELEMS, 16).to_bits(Unit.BYTES)
    assert str(got.layout) == "Swizzle<3,7,3> o (8,64):(1024,16)"
    with raises_naming(ValueError, "swizzle_unit"):
        UnitLayout(ATOM, Unit.ELEMS, 16).to_bits()


def test_to_elems_moves_a_byte_swizzle_down_one_bit() -> None:
    # 16-bit elements: byte strides halve, and a swizzle on bytes is one bit lower on elements
    # (unit ratio 8/16 = 2**-1).
    atom = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (128, 2)), show_offset=False)
    got = UnitLayout(atom, Unit.BYTES, 16).to_unit(Unit.ELEMS, swizzle_unit=Unit.BYTES)
    assert str(got.layout) == "Swizzle<3,3,3> o (8,64):(64,1)"


def test_a_unit_ratio_that_is_not_a_power_of_two_is_refused() -> None:
    # 6-bit elements: a swizzle on elements is 6 bits wide per unit step, not a shift.
    with raises_naming(ValueError, "6"):
        UnitLayout(ATOM, Unit.BITS, 6).to_unit(Unit.BITS, swizzle_unit=Unit.ELEMS)
