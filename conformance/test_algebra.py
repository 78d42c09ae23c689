"""Properties of the pure CuTe layout algebra (oracle/algebra), plus pinned worked examples."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from strategies import (
    compact_layouts,
    composed_layouts,
    divisors,
    layouts,
    swizzles,
)

from ptxconf.oracle.algebra import (
    ComposedLayout,
    Layout,
    NotationError,
    Swizzle,
    Unit,
    UnitLayout,
    blocked_product,
    coalesce,
    complement,
    composition,
    idx2crd,
    image,
    is_injective,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    parse,
    product,
    product_each,
    raked_product,
    right_inverse,
    size,
    tile_to_shape,
    to_function_table,
    zipped_divide,
)

# ------------------------------------------------------------------------------------- layouts


@given(layouts(), st.data())
def test_call_by_index_equals_call_by_coordinate(layout: Layout, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, layout.size() - 1))
    assert layout(i) == layout(idx2crd(i, layout.shape))


def test_layout_basics() -> None:
    layout = Layout(((8, 2), (4, 4)), ((4, 32), (1, 64)))
    assert str(layout) == "((8,2),(4,4)):((4,32),(1,64))"
    assert layout.size() == 256
    assert layout.rank() == 2
    assert layout.depth() == 2
    assert str(layout[1]) == "(4,4):(1,64)"
    assert layout(3, 5) == layout((3, 5)) == 3 * 4 + 1 * 1 + 1 * 64
    assert Layout((4, 8)) == Layout((4, 8), (1, 4))
    assert hash(Layout(8, 1)) == hash(Layout(8, 1))
    assert str(Layout((8,), (1,))) == "(8):(1)"
    with pytest.raises(ValueError, match="congruent"):
        Layout((2, 2), 1)


@given(layouts())
def test_coalesce_preserves_function_and_size(layout: Layout) -> None:
    result = coalesce(layout)
    assert result.size() == layout.size()
    assert result.depth() <= 1
    assert to_function_table(result) == to_function_table(layout)


@given(layouts(max_rank=3, max_depth=2), st.integers(1, 3))
@example(Layout((2, 2), (1, 2)), 2)  # a 0 in the profile once built the layout 0:1
def test_coalesce_by_mode_keeps_rank(layout: Layout, n: int) -> None:
    n = min(n, layout.rank())
    result = coalesce(layout, (0,) * n)
    assert result.rank() == layout.rank()
    assert result.modes()[n:] == layout.modes()[n:]
    assert to_function_table(result) == to_function_table(layout)


@given(layouts(pow2=True), compact_layouts(max_size=16, pow2=True, gaps=True))
@example(Layout((2, 1), (0, 1)), Layout((2, 2), (1, 2)))
def test_composition_is_function_composition_pow2(a: Layout, b: Layout) -> None:
    # Power-of-two shapes and strides are always admissible, so nothing may raise. b's modes
    # must not overlap (CuTe distributes over them): (2,2):(1,1) o a is not a(b(i)).
    # a is read as CuTe reads it past its end (last mode unbounded), hence no bound on b(i).
    r = composition(a, b)
    assert r.size() == b.size()
    assert all(r(i) == a(b(i)) for i in range(b.size()))


@given(layouts(), st.one_of(layouts(max_size=16, max_depth=0), compact_layouts(16, gaps=True)))
@example(Layout((6, 4), (1, 6)), Layout(4, 4))  # stride 4 vs mode of size 6: inadmissible
@example(Layout((3, 1), (0, 1)), Layout(2, 4))  # was silently wrong before the stride check
def test_composition_exact_or_refused(a: Layout, b: Layout) -> None:
    try:
        r = composition(a, b)
    except ValueError:
        return
    assert all(r(i) == a(b(i)) for i in range(b.size()))


@given(layouts(max_rank=3, max_depth=1, pow2=True), st.data())
def test_composition_by_mode(a: Layout, data: st.DataObject) -> None:
    tiler = tuple(
        data.draw(st.sampled_from(divisors(m.size()))) for m in a.modes()[: max(1, a.rank() - 1)]
    )
    r = composition(a, tiler)
    assert r.rank() == (len(tiler) if a.rank() > 1 else 1)  # CuTe drops untouched modes
    for mode_r, mode_a, t in zip(r.modes(), a.modes(), tiler, strict=False):
        assert to_function_table(mode_r) == [mode_a(i) for i in range(t)]


@given(compact_layouts(gaps=True), st.integers(1, 4))
def test_complement_is_disjoint_ordered_and_completes(layout: Layout, k: int) -> None:
    cotarget = k * layout.cosize()
    comp = complement(layout, cotarget)
    table = to_function_table(comp)
    assert table == sorted(set(table))  # strictly increasing
    assert image(layout) & set(table) == {0}
    joint = make_layout(layout, comp)
    assert is_injective(joint)
    assert set(range(cotarget)) <= image(joint)


@given(compact_layouts(), st.integers(1, 4))
def test_complement_of_compact_layout_makes_a_bijection(layout: Layout, k: int) -> None:
    joint = make_layout(layout, complement(layout, k * layout.size()))
    assert sorted(to_function_table(joint)) == list(range(k * layout.size()))


@given(layouts())
def test_right_inverse(layout: Layout) -> None:
    inv = right_inverse(layout)
    assert all(layout(inv(i)) == i for i in range(inv.size()))


@given(compact_layouts())
def test_right_inverse_of_bijection_is_full(layout: Layout) -> None:
    inv = right_inverse(layout)
    assert inv.size() == layout.size()
    assert all(inv(layout(i)) == i for i in range(layout.size()))


@given(compact_layouts(gaps=True))
def test_left_inverse(layout: Layout) -> None:
    inv = left_inverse(layout)
    assert all(inv(layout(i)) == i for i in range(layout.size()))


@given(layouts(pow2=True, allow_zero=False), st.data())
def test_logical_divide(layout: Layout, data: st.DataObject) -> None:
    tiler = data.draw(compact_layouts(max_size=layout.size(), pow2=True, gaps=True))
    r = logical_divide(layout, tiler)
    assert r.rank() == 2
    assert r[0].size() == tiler.size()
    assert all(r(i) == layout(tiler(i)) for i in range(tiler.size()))
    if layout.size() % tiler.cosize() == 0 and tiler.cosize() == tiler.size():
        assert r.size() == layout.size()
        assert sorted(to_function_table(r)) == sorted(to_function_table(layout))


@given(layouts(max_rank=3, max_depth=1, allow_zero=False), st.data())
def test_logical_divide_by_mode_keeps_rank(layout: Layout, data: st.DataObject) -> None:
    tiler = tuple(data.draw(st.sampled_from(divisors(m.size()))) for m in layout.modes())
    r = logical_divide(layout, tiler)
    assert r.rank() == layout.rank()
    assert r.size() == layout.size()
    z = zipped_divide(layout, tiler)
    assert z[0].size() == product(tiler)
    assert image(z) == image(r)


@given(compact_layouts(max_size=16), compact_layouts(max_size=8))
def test_logical_product(block: Layout, tiler: Layout) -> None:
    r = logical_product(block, tiler)
    assert r.size() == block.size() * tiler.size()
    assert r[0] == block
    assert is_injective(r)


@given(compact_layouts(max_size=16, max_rank=2, max_depth=1), st.integers(1, 4))
@example(Layout(4, 1), 3)  # pycute's logical_product(layout, int) calls logical_divide
def test_logical_product_with_int_tiler(block: Layout, n: int) -> None:
    r = logical_product(block, n)
    assert r == logical_product(block, Layout(n))
    assert r.size() == block.size() * n


@given(compact_layouts(max_size=16, max_rank=2, max_depth=1), compact_layouts(max_size=8))
def test_blocked_and_raked_products(block: Layout, tiler: Layout) -> None:
    blocked, raked = blocked_product(block, tiler), raked_product(block, tiler)
    n = max(block.rank(), tiler.rank())
    assert blocked.size() == raked.size() == block.size() * tiler.size()
    assert image(blocked) == image(raked) == image(logical_product(block, tiler))
    if n > 1:
        assert blocked.rank() == raked.rank() == n


@given(compact_layouts(max_size=16, max_rank=2, max_depth=1), st.data())
def test_tile_to_shape(block: Layout, data: st.DataObject) -> None:
    blocks = product_each(block.shape) if block.rank() == 2 else (block.size(), 1)
    repeats = data.draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    target = (blocks[0] * repeats[0], blocks[1] * repeats[1])
    order = data.draw(st.sampled_from([(0, 1), (1, 0)]))
    r = tile_to_shape(block, target, order)
    assert product_each(r.shape) == target
    assert sorted(to_function_table(r)) == list(range(size(target)))
    if block.rank() == 2:  # the first tile is the block itself
        corner = (blocks[0] - 1, blocks[1] - 1)
        assert r(idx2crd(corner, target)) == block(corner)


# Worked examples printed in CUTLASS's media/docs/cpp/cute/02_layout_algebra.md (CuTe's own
# algebra tutorial); Python ints behave like CuTe's static _N, so the static printing applies.
CUTE_DOC_EXAMPLES = [
    ("coalesce", lambda: coalesce(parse("(2,(1,6)):(1,(6,2))")), "12:1"),
    ("coalesce by mode", lambda: coalesce(parse("(2,(1,6)):(1,(6,2))"), (1, 1)), "(2,6):(1,2)"),
    ("compose", lambda: composition(parse("(6,2):(8,2)"), parse("(4,3):(3,1)")),
     "((2,2),3):((24,2),8)"),
    ("compose 20:2", lambda: composition(parse("20:2"), parse("(5,4):(4,1)")), "(5,4):(8,2)"),
    ("compose (10,2)", lambda: composition(parse("(10,2):(16,4)"), parse("(5,4):(1,5)")),
     "(5,(2,2)):(16,(80,4))"),
    ("compose by mode",
     lambda: composition(parse("(12,(4,8)):(59,(13,1))"), (parse("3:4"), parse("8:2"))),
     "(3,(2,4)):(236,(26,1))"),
    ("compose by shape", lambda: composition(parse("(12,(4,8)):(59,(13,1))"), (3, 8)),
     "(3,(4,2)):(59,(13,1))"),
    ("complement 4:1", lambda: complement(parse("4:1"), 24), "6:4"),
    ("complement 6:4", lambda: complement(parse("6:4"), 24), "4:1"),
    ("complement (4,6)", lambda: complement(parse("(4,6):(1,4)"), 24), "1:0"),
    ("complement 4:2", lambda: complement(parse("4:2"), 24), "(2,3):(1,8)"),
    ("complement (2,4)", lambda: complement(parse("(2,4):(1,6)"), 24), "3:2"),
    ("complement (2,2)", lambda: complement(parse("(2,2):(1,6)"), 24), "(3,2):(2,12)"),
    ("divide 1-D", lambda: logical_divide(parse("(4,2,3):(2,1,8)"), parse("4:2")),
     "((2,2),(2,3)):((4,1),(2,8))"),
    ("zipped divide tile",
     lambda: zipped_divide(parse("(9,(4,8)):(59,(13,1))"), (parse("3:3"), parse("(2,4):(1,8)")))[0],
     "(3,(2,4)):(177,(13,2))"),
    ("product 1-D", lambda: logical_product(parse("(2,2):(4,1)"), parse("6:1")),
     "((2,2),(2,3)):((4,1),(2,8))"),
    # Figure productblocked2d: a 2x5 row-major block over a 3x4 column-major tiler. The doc says
    # blocked_product "coalesced mode-0"; CuTe stopped coalescing there in CUTLASS 3.8.
    ("blocked", lambda: blocked_product(parse("(2,5):(5,1)"), parse("(3,4):(1,3)")),
     "((2,3),(5,4)):((5,10),(1,30))"),
    ("raked", lambda: raked_product(parse("(2,5):(5,1)"), parse("(3,4):(1,3)")),
     "((3,2),(4,5)):((10,5),(30,1))"),
]


@pytest.mark.parametrize(
    ("name", "compute", "expected"), CUTE_DOC_EXAMPLES, ids=[e[0] for e in CUTE_DOC_EXAMPLES]
)
def test_cute_doc_examples(name: str, compute: Callable[[], object], expected: str) -> None:
    assert str(compute()) == expected, name


def test_composed_layouts_go_through_the_algebra() -> None:
    atom = parse("Swizzle<3,4,3> o 0 o (8,64):(64,1)")
    assert isinstance(atom, ComposedLayout)
    tiled = tile_to_shape(atom, (16, 64, 2))
    assert isinstance(tiled, ComposedLayout)
    assert tiled.inner == atom.inner
    assert str(composition(atom, (4, 8))) == "Swizzle<3,4,3> o 0 o (4,8):(64,1)"
    assert logical_divide(atom, (4, 8)).size() == atom.size()
    assert str(atom[1]) == "Swizzle<3,4,3> o 0 o 64:1"
    assert str(tile_to_shape(Layout(8, 1), 32)) == "((8,4)):((1,8))"


# ------------------------------------------------------------------------------------ swizzles


@given(swizzles(), st.data())
def test_swizzle_is_periodic_involutive_bijection(sw: Swizzle, data: st.DataObject) -> None:
    period = sw.period()
    x = data.draw(st.integers(0, 8 * period))
    assert sw(sw(x)) == x
    assert sw(x) // period == x // period  # each aligned period block maps onto itself
    assert sw(x + 3 * period) == sw(x) + 3 * period
    if period <= 1 << 12:
        assert sorted(sw(i) for i in range(period)) == list(range(period))


def test_swizzle_rejects_negative_and_overlapping_shift() -> None:
    with pytest.raises(ValueError, match="negative"):
        Swizzle(2, 4, -3)
    with pytest.raises(ValueError, match="S >= B"):
        Swizzle(3, 4, 2)


@given(composed_layouts(max_size=32))
def test_composed_layout_is_swizzle_after_outer(c: ComposedLayout) -> None:
    assert to_function_table(c) == [c.inner(c.offset + c.outer(i)) for i in range(c.size())]
    assert c.is_injective() == is_injective(c.outer)  # a swizzle is a bijection


def test_blog_swizzle_example() -> None:
    # Seed 003 (blog "Swizzles and their usage in CuTeDSL kernels"), spec row
    # cutedsl/worked_examples swizzle.S243.7_25: Swizzle<2,4,3> o (8,32):(32,1) at (7,25).
    layout = Layout((8, 32), (32, 1))
    assert layout(7, 25) == 249
    assert ComposedLayout(Swizzle(2, 4, 3), 0, layout)(7, 25) == 233


def test_tile_to_shape_k_major_atom() -> None:
    # Seed 003, spec row cutedsl/worked_examples tile.K_SW32.32x32 (CuTe >= 3.8 no longer
    # coalesces here; CUTLASS 3.0-3.7 would print (32,(16,2)):(16,(1,512)), same function).
    atom = parse("Swizzle<1,4,3> o 0 o (8,16):(16,1)")
    result = tile_to_shape(atom, (32, 32), (0, 1))
    assert str(result) == "Swizzle<1,4,3> o 0 o ((8,4),(16,2)):((16,128),(1,512))"
    # Row tile.K_SW32.32x32.by_hand writes ((8,16),(16,2)): size 4096, not 32*32: a typo.
    by_hand = parse("Swizzle<1,4,3> o 0 o ((8,16),(16,2)):((16,128),(1,512))")
    assert by_hand.size() == 4096 != result.size() == 1024


def test_tile_to_shape_mn_major_atom() -> None:
    # Seed 003, spec row cutedsl/worked_examples tile.MN_SW32.32x32, order (1,0).
    atom = parse("Swizzle<1,4,3> o 0 o (16,8):(1,16)")
    result = tile_to_shape(atom, (32, 32), (1, 0))
    assert str(result) == "Swizzle<1,4,3> o 0 o ((16,2),(8,4)):((1,512),(16,128))"


# ------------------------------------------------------------------------------------ notation


@given(layouts())
def test_parse_round_trips_layouts(layout: Layout) -> None:
    assert parse(str(layout)) == layout
    assert str(parse(str(layout))) == str(layout) == format(layout)


@given(composed_layouts())
def test_parse_round_trips_composed_layouts(c: ComposedLayout) -> None:
    parsed = parse(str(c))
    assert parsed == c
    assert str(parsed) == str(c)


@given(swizzles())
def test_parse_round_trips_swizzles(sw: Swizzle) -> None:
    assert parse(str(sw)) == sw


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        (
            "S<1,4,3> o 0 o ((8,4),(16,2)):((16,128),(1,512))",
            "Swizzle<1,4,3> o 0 o ((8,4),(16,2)):((16,128),(1,512))",
        ),
        ("Swizzle<3,4,3> o 0 o (8,64):(64,1)", None),
        ("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)", "Swizzle<3,4,3> o 0 o (8,64):(64,1)"),
        (" ( 8 , 8 ) : ( 1 , 8 ) ", "(8,8):(1,8)"),
        ("_128:_1", "128:1"),
        ("Layout<_128, _1>", "128:1"),
        ("Layout<Shape <_4, _2>, Stride<_1,_16>>", "(4,2):(1,16)"),
        ("Layout<Shape<Int<8>,C<4>>>", "(8,4):(1,8)"),
        # Seed 004 (CUTLASS CuTe MMA atoms doc), SM70 8x8x4 accumulator CLayout:
        (
            "Layout<Shape <Shape <_2, _2,_2>, Shape <_2,_2, _2>>,\n"
            "       Stride<Stride<_1,_16,_4>, Stride<_8,_2,_32>>>",
            "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))",
        ),
        ("(8,8):(-1,8)", None),
    ],
)
def test_parse_forms(text: str, canonical: str | None) -> None:
    assert str(parse(text)) == (canonical or text)


def test_parse_ptx_canonical_template() -> None:
    # Seed 000 (PTX ISA wgmma smem layouts): K-major no-swizzle canonical layout and its exact
    # instance for T=4, m=2, k=2, SBO=32, LBO=64.
    bindings = {"m": 2, "k": 2, "T": 4, "SBO": 32, "LBO": 64}
    layout = parse("Swizzle<0,4,3> o ((8,m),(T,2k)):((1T,SBO),(1,LBO))", bindings)
    assert layout == parse("Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))")
    assert parse("((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))", bindings) == Layout(
        ((4, 8, 2), (8, 2)), ((1, 4, 64), (32, 32))
    )
    assert parse("(2*k,T):(1,k*T)", bindings) == Layout((4, 4), (1, 8))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("((8,m),(T,2k)):((1T,SBO),(1,LBO))", "unbound name 'LBO' at column 29"),
        ("(8,8):(1", "expected ')', found end of text at column 9"),
        ("(8,8)", "expected ':' and a stride after the shape at column 6"),
        ("Swizzle<3,4,2>", "need S >= B"),
        ("(8,8):(1,8) x", "unexpected 'x' at column 13"),
        ("(8,8):(1,8,2)", "not congruent"),
        ("(0,8):(1,8)", "must be positive"),
        ("(8,8):(1,8) o 3", "expected ':'"),
        ("Swizzle<1,4,3> o (8,2) o (8,8):(1,8)", "offset must be an integer"),
        ("8:1 $", "unexpected character '$' at column 5"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    bindings = {"m": 2, "k": 2, "T": 4, "SBO": 32}
    with pytest.raises(NotationError, match=re.escape(message)):
        parse(text, bindings)


@given(st.text(alphabet="()<>,:_-*o 0123456789SwzleLayoutShapeStrdk", max_size=40))
def test_parse_fails_only_with_notation_error(text: str) -> None:
    error: NotationError | None = None
    try:
        parse(text, {"k": 2})
    except NotationError as e:  # any other exception fails the test
        error = e
    assert "\n" not in str(error or "")  # a refusal is one line
    assert error is None or (error.column or 0) >= 1  # at a column of the text


# --------------------------------------------------------------------------------------- units


@given(layouts(), st.sampled_from([8, 16, 32, 64]))
def test_units_round_trip(layout: Layout, elem_bits: int) -> None:
    elems = UnitLayout(layout, Unit.ELEMS, elem_bits)
    as_bytes = elems.to_bytes()
    assert as_bytes.unit is Unit.BYTES
    table = to_function_table(layout)
    assert to_function_table(as_bytes.layout) == [x * elem_bits // 8 for x in table]
    assert to_function_table(elems.to_bits().layout) == [x * elem_bits for x in table]
    assert as_bytes.to_unit(Unit.ELEMS) == elems


def test_units_refuse_inexact_and_implicit_swizzle() -> None:
    with pytest.raises(ValueError, match="not whole"):
        UnitLayout(Layout(8, 1), Unit.ELEMS, 1).to_bytes()  # b1 elements: use bits
    assert UnitLayout(Layout(8, 1), Unit.ELEMS, 1).to_bits().layout == Layout(8, 1)
    composed = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    with pytest.raises(ValueError, match="hypothesis"):
        UnitLayout(composed, Unit.ELEMS, 16).to_bytes()
    with pytest.raises(ValueError, match="no swizzle"):
        UnitLayout(Layout(8, 1), Unit.ELEMS, 16).to_bytes(swizzle_unit=Unit.BYTES)


@given(composed_layouts(max_size=32))
def test_units_composed_to_bytes_keeps_the_declared_swizzle_unit(c: ComposedLayout) -> None:
    assume(isinstance(c.inner, Swizzle))
    sw = c.inner
    ul = UnitLayout(c, Unit.ELEMS, 16)
    raw = [c.offset + c.outer(i) for i in range(c.size())]  # element offsets, unswizzled
    expected = {
        Unit.BYTES: [sw(2 * x) for x in raw],
        Unit.ELEMS: [2 * sw(x) for x in raw],
        Unit.U128: [16 * sw(2 * x // 16) + 2 * x % 16 for x in raw],
    }
    for swizzle_unit in (Unit.BYTES, Unit.ELEMS, Unit.U128):
        table = expected[swizzle_unit]
        assert to_function_table(ul.to_bytes(swizzle_unit).layout) == table, swizzle_unit
