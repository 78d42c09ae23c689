"""Message examples of the layout algebra, interpret and fragments: see golden_messages.py."""

from __future__ import annotations

from golden_messages import example
from golden_messages import raised as _raised
from scratch_spec import default_row_replaced as _facts_with

# --- oracle/algebra/int_tuple.py ------------------------------------------------------------------


@example("int_tuple.empty_tuple")
def _int_tuple_empty() -> str:
    from ptxconf.oracle.algebra.int_tuple import as_int_tuple

    return _raised(lambda: as_int_tuple((2, ())))


@example("int_tuple.mismatched_ranks")
def _int_tuple_ranks() -> str:
    from ptxconf.oracle.algebra.int_tuple import shape_div

    return _raised(lambda: shape_div((4, 6), (2,)))


# --- oracle/algebra/layout.py and unit_layout.py ----------------------------------------------------


@example("layout.called_without_a_coordinate")
def _layout_call() -> str:
    from ptxconf.oracle.algebra import Layout

    return _raised(lambda: Layout(4)())


@example("layout.sliced_with_none")
def _layout_none() -> str:
    from ptxconf.oracle.algebra import Layout

    return _raised(lambda: Layout((4, 2))((None, 1)))


@example("layout.make_layout_of_what_is_not_a_layout")
def _layout_make() -> str:
    from ptxconf.oracle.algebra import make_layout

    return _raised(lambda: make_layout(4))  # type: ignore[arg-type]


@example("layout.not_a_layout")
def _layout_type() -> str:
    from ptxconf.oracle.algebra import composition

    return _raised(lambda: composition(4, 2), TypeError)  # type: ignore[arg-type]


@example("layout.tiler_does_not_fit")
def _layout_tiler() -> str:
    from ptxconf.oracle.algebra import Layout, logical_divide

    return _raised(lambda: logical_divide(Layout((4, 6)), (2, 2, 2)))


@example("layout.complement_of_negative_strides")
def _layout_complement_negative() -> str:
    from ptxconf.oracle.algebra import Layout, complement

    return _raised(lambda: complement(Layout(4, -1)))


@example("layout.complement_not_injective")
def _layout_complement_injective() -> str:
    from ptxconf.oracle.algebra import Layout, complement

    return _raised(lambda: complement(Layout((2, 2), (1, 1)), 8))


@example("layout.order_not_a_ranking")
def _layout_order() -> str:
    from ptxconf.oracle.algebra import make_ordered_layout

    return _raised(lambda: make_ordered_layout((2, 3), (0, 0)))


@example("layout.cannot_zip")
def _layout_zip() -> str:
    from ptxconf.oracle.algebra import Layout
    from ptxconf.oracle.algebra.layout import _zip

    return _raised(lambda: _zip(Layout((2, 2)), Layout((2, 2, 2))))


@example("layout.tile_to_shape_more_modes")
def _layout_tile_to_shape() -> str:
    from ptxconf.oracle.algebra import Layout, tile_to_shape

    return _raised(lambda: tile_to_shape(Layout((2, 2, 2)), (4, 4)))


@example("unit_layout.not_a_unit")
def _unit_layout_unit() -> str:
    from ptxconf.oracle.algebra import Layout, UnitLayout

    return _raised(lambda: UnitLayout(Layout(4), "bytes", 8))  # type: ignore[arg-type]


@example("unit_layout.elem_bits")
def _unit_layout_bits() -> str:
    from ptxconf.oracle.algebra import Layout, Unit, UnitLayout

    return _raised(lambda: UnitLayout(Layout(4), Unit.BYTES, 0))


def _atom():  # -> ComposedLayout: the 128B swizzle atom of 16-bit elements
    from ptxconf.oracle.algebra import ComposedLayout, Layout, Swizzle

    return ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)), show_offset=False)


@example("unit_layout.swizzle_unit_not_given")
def _unit_layout_swizzle_unit() -> str:
    from ptxconf.oracle.algebra import Unit, UnitLayout

    return _raised(lambda: UnitLayout(_atom(), Unit.ELEMS, 16).to_bits())


@example("unit_layout.not_a_power_of_two")
def _unit_layout_pow2() -> str:
    from ptxconf.oracle.algebra import Unit, UnitLayout

    return _raised(lambda: UnitLayout(_atom(), Unit.BITS, 6).to_unit(Unit.BITS, swizzle_unit=Unit.ELEMS))


# --- oracle/interpret.py: what encoding refuses ------------------------------------------------------


def _encode_values_refused(dtype: str, values: list[float]) -> str:
    from ptxconf.oracle import interpret
    from ptxconf.oracle.spec import default_spec

    return _raised(lambda: interpret.encode(default_spec(), dtype, values))


@example("interpret.not_finite")
def _interpret_finite() -> str:
    return _encode_values_refused("f16", [1.0, float("inf")])


@example("interpret.not_exactly_representable")
def _interpret_representable() -> str:
    return _encode_values_refused("e4m3", [1, 17])


@example("interpret.out_of_range")
def _interpret_range() -> str:
    return _encode_values_refused("e4m3", [1, 480])


@example("interpret.non_integer")
def _interpret_non_integer() -> str:
    return _encode_values_refused("s8", [1, 1.5])


@example("interpret.outside_the_integer_range")
def _interpret_outside() -> str:
    return _encode_values_refused("s8", [1, -129])


@example("interpret.accumulator_not_an_integer_code")
def _interpret_accumulator() -> str:
    import numpy as np

    from ptxconf.oracle import interpret
    from ptxconf.oracle.spec import default_spec

    raw = np.array([[0x3F800000, 0x7F800000]], dtype=np.uint64)
    return _raised(lambda: interpret.accumulator_values(default_spec(), "f32", raw))


@example("interpret.elements_do_not_pack_a_register")
def _interpret_subelement() -> str:
    from ptxconf.oracle import interpret

    return _raised(lambda: interpret.subelement_bits(3))


@example("interpret.wmma_elements_do_not_fit_the_fragment")
def _interpret_wmma_fit() -> str:
    import numpy as np

    from ptxconf.oracle import interpret

    return _raised(lambda: interpret.wmma_fragment_slots(np.zeros((1, 2), dtype=np.uint32), 4, 8, 32))


# --- oracle/fragments.py: what a fragment map refuses ---------------------------------------------


def _hand_tile(*entries: tuple[int, int, int, int, int]):  # -> FragmentMap: a 1 x 2 tile, 2 threads
    import dataclasses

    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    base = fragments.fragment_map("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "D", default_spec())
    return dataclasses.replace(base, instr="X", operand="A", rows=1, cols=2, threads=2, registers=1,
                               elems_per_register=1, entries=tuple(entries))


def _bijection_fault(fmap) -> str:
    from ptxconf.oracle import fragments

    return _raised(lambda: fragments.check_bijection(fmap), fragments.FragmentMapError)


@example("fragments.slot_outside_the_registers")
def _fragments_slot_outside() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (2, 0, 0, 0, 1)))


@example("fragments.element_outside_the_tile")
def _fragments_element_outside() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (1, 0, 0, 1, 0)))


@example("fragments.slot_taken_twice")
def _fragments_slot_twice() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (0, 0, 0, 0, 1)))


@example("fragments.element_held_twice")
def _fragments_element_twice() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 0)))


@example("fragments.counts_do_not_match")
def _fragments_counts() -> str:
    import dataclasses

    fmap = dataclasses.replace(_hand_tile(), rows=4, entries=((0, 0, 0, 0, 0), (1, 0, 0, 0, 1)))
    return _bijection_fault(fmap)


@example("fragments.k_not_whole_halfwords")
def _fragments_halfwords() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    return _raised(lambda: fragments.a_halfword_layout(default_spec(), 1, 8))


@example("fragments.not_a_thread_value_layout")
def _fragments_tv() -> str:
    from ptxconf.oracle import fragments

    return _raised(lambda: fragments._tv_rows(fragments.Layout(8, 1)))


@example("fragments.n_off_the_atoms_columns")
def _fragments_n() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    return _raised(lambda: fragments.d_layout(default_spec(), 12))


@example("fragments.operand_not_in_registers")
def _fragments_operand_b() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    name = "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16"
    return _raised(lambda: fragments.fragment_map(name, "B", default_spec()))


@example("fragments.not_a_plain_layout")
def _fragments_plain() -> str:
    from ptxconf.oracle import fragments

    return _raised(lambda: fragments._plain("x"), TypeError)  # type: ignore[arg-type]


@example("fragments.accumulator_the_types_lack")
def _fragments_accumulator() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    name = "wgmma.mma_async.sync.aligned.m64n8k16.s32.f16.f16"
    return _raised(lambda: fragments.fragment_map(name, "D", default_spec()))


@example("fragments.table_not_whole_numbers")
def _fragments_table() -> str:
    import numpy as np

    from ptxconf.oracle import fragments

    columns = [np.array([0]), np.array([0.5]), np.array([0]), np.array([0]), np.array([0])]
    return _raised(lambda: fragments._table(columns), TypeError)


@example("facts.d_atom_not_rank_2")
def _facts_d_atom() -> str:
    from ptxconf.oracle import facts

    spec = _facts_with("CuteLayout", facts.D_ATOM_ROW, layout="(4,32,2):(1,4,128)")
    return _raised(lambda: facts.warpgroup_threads(spec))


@example("fragments.tf32_halfword_off_its_element")
def _fragments_tf32_half() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import Spec, default_spec

    spec = default_spec()
    original = fragments.a_halfword_layout
    fragments.a_halfword_layout = lambda spec, k, bits: fragments.Layout((2, 2), (64, 64))  # type: ignore[assignment]
    try:
        name = "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32"
        return _raised(lambda: fragments.fragment_map(name, "A", Spec(spec.root, spec.rows)),
                       fragments.FragmentMapError)
    finally:
        fragments.a_halfword_layout = original  # type: ignore[assignment]
