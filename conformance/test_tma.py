"""The TMA write side (oracle/tma.py): each mode's swizzle derived from its spec row, the box a
tensor map allows, where TMA writes each element, and the write composed with a wgmma read.

Expected values come from the rows through the oracle, or are properties (one-to-one, inside the
footprint, the identity); the few worked values name the table they are read from.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from case_outcomes import raises_naming
from scratch_spec import replaced_row

from ptxconf.oracle import tma
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.explain.operand import resolve
from ptxconf.oracle.explain.readmap import Descriptor, read_map
from ptxconf.oracle.records import TmaRequirement, TmaSwizzleMode
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
SWIZZLED = ("32B", "64B", "128B")


def test_each_mode_s_swizzle_is_derived_from_its_row() -> None:
    """B from the printed lines before the pattern repeats, M from the cell, M + S the line."""
    assert [r.swizzle for r in SPEC.of(TmaSwizzleMode)] == ["none", *SWIZZLED]
    for row in SPEC.of(TmaSwizzleMode):
        swz = tma.derived_swizzle(row)
        lines = len({tuple(line) for line in tma.pattern_lines(row)})
        assert 1 << swz.bits == lines
        if swz.bits:
            assert (1 << swz.base, 1 << (swz.base + swz.shift)) == (row.cell_bytes, row.line_bytes)


def test_a_row_with_more_printed_lines_swizzles_more_bits() -> None:
    row = SPEC.get(TmaSwizzleMode, "32B")
    wider = dataclasses.replace(row, pattern=SPEC.get(TmaSwizzleMode, "64B").pattern)
    assert tma.derived_swizzle(wider).bits == tma.derived_swizzle(row).bits + 1
    coarser = dataclasses.replace(row, cell_bytes=2 * (row.cell_bytes or 0))
    assert tma.derived_swizzle(coarser).base == tma.derived_swizzle(row).base + 1


def test_a_pattern_needs_a_cell_and_a_line() -> None:
    row = dataclasses.replace(SPEC.get(TmaSwizzleMode, "64B"), cell_bytes=None)
    with raises_naming(ValueError, "tma/swizzling_modes:64B", "cell_bytes"):
        tma.derived_swizzle(row)


@pytest.mark.parametrize("mode", SWIZZLED)
def test_the_printed_table_is_the_swizzle_s_own(mode: str) -> None:
    row = SPEC.get(TmaSwizzleMode, mode)
    lines = tma.pattern_lines(row)
    assert tma.printed_table(tma.swizzle_of(SPEC, mode), len(lines), len(lines[0])) == lines


def test_the_128b_table_s_line_three_swaps_pairs_of_pairs() -> None:
    """PTX ISA 5.5.7's 128-byte table, its fourth line: 3 2 1 0 7 6 5 4."""
    assert tma.printed_table(tma.swizzle_of(SPEC, "128B"), 8, 8)[3] == [3, 2, 1, 0, 7, 6, 5, 4]


def test_a_mode_the_rows_do_not_name_is_refused() -> None:
    with raises_naming(tma.TmaError, "96B", "none, 32B, 64B, 128B") as info:
        tma.mode_row(SPEC, "96B")
    assert info.value.code == "TMA-SWIZZLE"


@pytest.mark.parametrize(("args", "code", "named"), [
    (("128B", "bf16", 64, 72, 0), "TMA-BOX-SPAN", ("144 B", "128 B")),
    (("32B", "f32", 8, 16, 0), "TMA-BOX-SPAN", ("64 B", "32 B")),
    (("none", "bf16", 8, 4, 0), "TMA-BOX-INNER", ("8 B", "16 B")),
    (("64B", "bf16", 300, 32, 0), "TMA-BOX-DIM", ("300", "256")),
    (("64B", "bf16", 8, 0, 0), "TMA-BOX-DIM", ("cols = 0",)),
    (("64B", "bf16", 8, 32, 0x408), "TMA-SMEM-ALIGN", ("0x408", "16-byte")),
    (("64B", "u4", 8, 32, 0), "TMA-DTYPE", ("4-bit",)),
    (("64B", "f8", 8, 32, 0), "TMA-DTYPE", ("'f8'",)),
], ids=["span-128B", "span-32B", "granule", "rows", "cols", "align", "sub-byte", "unknown"])
def test_a_box_the_documents_refuse_names_the_rule(args: tuple[str, str, int, int, int], code: str,
                                                   named: tuple[str, ...]) -> None:
    with raises_naming(tma.TmaError, *named) as info:
        tma.box(SPEC, *args)
    assert info.value.code == code


def test_the_limits_follow_their_rows() -> None:
    wider = replaced_row(SPEC, "tma/tensor_map_swizzle:CU_TENSOR_MAP_SWIZZLE_128B",
                         max_inner_box_bytes=256)
    assert tma.box(wider, "128B", "bf16", 8, 128).inner_bytes == 256
    taller = replaced_row(SPEC, "tma/tensor_map_limits:boxDim", max_elems=512)
    assert tma.box(taller, "64B", "bf16", 300, 32).rows == 300


@pytest.mark.parametrize("mode", ["none", *SWIZZLED])
@pytest.mark.parametrize("dtype", ["u8", "bf16", "f32", "f64"])
def test_a_box_of_whole_repeats_is_written_onto_its_footprint(mode: str, dtype: str) -> None:
    span = tma.enum_row(SPEC, mode).max_inner_box_bytes or 128
    e = SPEC.element_bits(dtype) // 8
    b = tma.box(SPEC, mode, dtype, 32, span // e, 0x800)
    got = tma.write_addresses(SPEC, b)
    assert sorted(got.ravel().tolist()) == list(range(b.base, b.base + b.size_bytes, e))
    assert [tma.write_address(SPEC, b, r, c) for r, c in ((0, 0), (5, 3), (31, span // e - 1))] \
        == [int(got[0, 0]), int(got[5, 3]), int(got[31, span // e - 1])]


def test_the_swizzle_acts_on_the_absolute_address() -> None:
    """A destination one 128-B line past the repeat starts the pattern at line 1: the box's row
    0 (128 B wide) is swizzled as line 1 of the 128-byte table."""
    b = tma.box(SPEC, "128B", "u8", 8, 128, 0x480)
    line1 = tma.printed_table(tma.swizzle_of(SPEC, "128B"), 2, 8)[1]
    assert [(int(a) - b.base) // 16 for a in tma.write_addresses(SPEC, b)[0, ::16]] == line1
    assert (tma.phase_bytes(SPEC, "128B", b.base), tma.base_offset(SPEC, "128B", b.base)) \
        == (128, 1)
    assert (tma.phase_bytes(SPEC, "none", b.base), tma.base_offset(SPEC, "none", b.base)) == (0, 0)


def test_same_function_treats_every_b0_swizzle_as_the_identity() -> None:
    assert tma.same_function(Swizzle(0, 0, 0), Swizzle(0, 4, 3))
    assert not tma.same_function(Swizzle(1, 4, 3), Swizzle(1, 4, 4))


def _k_major_read(mode: str, b: tma.Box, field: int = 0) -> np.ndarray:
    op = resolve(SPEC, dtype=b.dtype, major="K", mn=b.rows, k=b.cols)
    lbo, sbo = tma.packed_offsets(SPEC, b, "K", mode)
    desc = Descriptor.of(SPEC, start_address=b.base, lbo=lbo, sbo=sbo, swizzle=mode,
                         base_offset=field)
    addresses: np.ndarray = read_map(SPEC, op, desc).addresses
    return addresses


@pytest.mark.parametrize("mode", SWIZZLED)
def test_a_box_read_with_its_own_mode_and_packing_pairs(mode: str) -> None:
    span = tma.enum_row(SPEC, mode).max_inner_box_bytes or 0
    b = tma.box(SPEC, mode, "bf16", 64, span // 2, 0x400)
    p = tma.compose(SPEC, b, "K", _k_major_read(mode, b))
    assert p.identity
    assert p.moved() == []
    assert p.as_dict()["moved_count"] == 0


def test_a_box_read_with_a_narrower_mode_is_read_elsewhere() -> None:
    """64B rows read as 32B rows: row 1 of the reader is the second half of TMA's row 0."""
    b = tma.box(SPEC, "64B", "bf16", 64, 16, 0x400)
    p = tma.compose(SPEC, b, "K", _k_major_read("32B", b))
    assert not p.identity
    moved = p.moved()
    assert len(moved) == p.as_dict()["moved_count"]
    assert moved[0][0] != moved[0][1]


def test_a_read_outside_the_box_finds_nothing() -> None:
    b = tma.box(SPEC, "128B", "bf16", 8, 64, 0x400)
    p = tma.compose(SPEC, b, "K", np.full((8, 64), 0x3FF0, dtype=np.int64))
    assert p.moved()[0] == ((0, 0), None, 0x3FF0)
    assert p.as_dict(limit=1)["moved"] == [{"mn": 0, "k": 0, "address": "0x3ff0",
                                            "holds": None}]


def test_an_mn_major_box_holds_k_along_its_rows() -> None:
    b = tma.box(SPEC, "128B", "bf16", 16, 64, 0x400)
    assert tma.operand_coords(b, "MN") == (64, 16)
    read = tma.write_addresses(SPEC, b).T  # wgmma reading (mn, k) where TMA put (row k, col mn)
    assert tma.compose(SPEC, b, "MN", read).identity


@pytest.mark.parametrize("major", ["K", "MN"])
def test_every_read_address_is_looked_up_as_one_at_a_time(major: str) -> None:
    """compose looks every int64 read address up at once; addresses of another type go one at a
    time: both find the same elements, -1 where TMA wrote none (a read past the box, between
    two elements, twice the same address)."""
    b = tma.box(SPEC, "64B", "bf16", 16, 32, 0x400)
    written = tma.write_addresses(SPEC, b)
    read = np.concatenate([written[::-1, ::2], written[:, ::2] + 1, written[:, :16] + 0x10000])
    at_once = tma.compose(SPEC, b, major, read).found
    one_at_a_time = tma.compose(SPEC, b, major, read.astype(np.uint64)).found
    assert np.array_equal(at_once, one_at_a_time)
    assert (at_once[16:] == -1).all()
    assert at_once[0, 0].tolist() == ([15, 0] if major == "K" else [0, 15])


def test_the_packing_steps_a_core_matrix_group_and_a_box() -> None:
    """SBO: 8 rows of the mode's pitch (Table 38's atom row: 8 x 16 B for 128B); LBO of a K-major
    swizzled layout its assumed 16 B; without a swizzle the next 16-B column is the next box."""
    b = tma.box(SPEC, "128B", "bf16", 64, 64, 0)
    assert tma.packed_offsets(SPEC, b, "K", "128B") == (16, 8 * 128)
    assert tma.packed_offsets(SPEC, b, "MN", "64B") == (64 * 64, 8 * 64)
    assert tma.packed_offsets(SPEC, b, "K", "none") == (64 * 16, 8 * 16)
    assert tma.packed_offsets(SPEC, b, "MN", "none") == (8 * 16, 64 * 16)


def test_base_classes_name_the_pairing_cells() -> None:
    assert tma.base_class(SPEC, 0x800, "128B", 0) == tma.ALIGNED
    assert tma.base_class(SPEC, 0x880, "128B", 1) == tma.OFF_RULE
    assert tma.base_class(SPEC, 0x880, "128B", 0) == tma.OFF_ZERO
    assert tma.base_class(SPEC, 0x880, "none", 0) == tma.OFF_ZERO
    assert tma.base_class(SPEC, 0x810, "128B", 0) is None      # inside a line
    assert tma.base_class(SPEC, 0x200, "64B", 0) is None       # on 64B's repeat, not on 1024
    assert tma.base_class(SPEC, 0x800, "128B", 2) is None      # a field on the repeat
    assert tma.pairing_classes("none") == (tma.ALIGNED, tma.OFF_ZERO)
    assert tma.writable(SPEC, "32B", "64B") is False
    assert tma.writable(SPEC, "none", "128B")


def test_requirements_are_found_by_file_and_id() -> None:
    assert tma.requirement(SPEC, tma.BOX_DIM) is SPEC.get(TmaRequirement, "boxDim")
    with raises_naming(KeyError, "nowhere"):
        tma.requirement(SPEC, ("tma/bounding_box.yaml", "nowhere"))


def test_the_relative_reading_restarts_the_pattern_at_the_destination() -> None:
    """hypotheses.TMA_SWIZZLE_BASE: on the repeat the readings are one map; a line past it the
    relative reading writes row 0 as line 0 of the 128-byte table, the absolute one as line 1."""
    on = tma.box(SPEC, "128B", "u8", 8, 128, 0x400)
    assert (tma.write_addresses(SPEC, on, "relative") == tma.write_addresses(SPEC, on)).all()
    off = tma.box(SPEC, "128B", "u8", 8, 128, 0x480)
    rel = tma.write_addresses(SPEC, off, "relative")
    assert [(int(a) - off.base) // 16 for a in rel[0, ::16]] == list(range(8))
    assert tma.write_address(SPEC, off, 0, 16, "relative") == int(rel[0, 16])
    assert not (rel == tma.write_addresses(SPEC, off, "absolute")).all()
    with raises_naming(ValueError, "tma_swizzle_base", "'shifted'"):
        tma.write_addresses(SPEC, off, "shifted")
