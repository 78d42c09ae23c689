"""ldmatrix / stmatrix over a shared-memory tile (oracle/ldmatrix_smem.py): which byte each lane's
row address points at, what each register moves, and what is wrong with a tile the instruction
does not read as laid out.

Expected values are worked by hand:

* a row-major 16x16 f16 tile, (16,16):(16,1): element (r, c) at 2 x (16r + c) bytes; .x4 puts
  its matrices in the 8x8 blocks column by column (rows 0-7 then 8-15 of columns 0-7, then of
  columns 8-15), so lane 9 (row 1 of matrix 1) points at element (9, 0), byte 288, and lane 16
  (row 0 of matrix 2) at (0, 8), byte 16. Its rows are 32 bytes apart: rows 0 and 4 of a
  matrix start 128 bytes apart, in the same four banks (bank = byte / 4 mod 32): two distinct
  words a bank in one phase of eight 16-byte rows, a 2-way conflict;
* the 128-byte swizzle on a 64-column f16 tile, Swizzle<3,4,3> o (16,64):(64,1) on bytes: row r
  starts at 128r, its 16-byte chunk c moved to c XOR (r mod 8): lane 1 (row 1) points at
  128 + 16 = 144, and the eight rows of a matrix fill the eight chunks of a 128-byte bank row:
  conflict-free; the canonical K_SW128 tile (spec/wgmma/canonical_layouts.yaml) is the same;
* the same swizzle written on 8-byte units, Swizzle<3,3,3> o (16,32):(32,1) (64-byte rows): row 1
  starts at 64, bits 6-8 = 1 flip bit 3: the row's first element sits at 64 XOR 8 = 72, not
  16-byte aligned, and its 16 bytes are not one tile row;
* a column-major tile, (16,16):(1,16): element (r, c) at 2 x (r + 16c) bytes: a row address is
  16-byte aligned only at rows 0 and 8 of a column (lanes 0, 8, 16, 24); lane 1's is 2.
"""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming

from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle import ldmatrix_smem as sm
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
X4 = lm.form(SPEC, "ldmatrix.m8n8.x4.b16")


def _access(layout: str, form: lm.Form = X4, dtype: str = "f16") -> sm.TileAccess:
    return sm.access(SPEC, form, sm.tile(SPEC, layout, dtype))


def test_x4_over_a_16x16_tile_takes_the_blocks_column_by_column() -> None:
    acc = _access("(16,16):(16,1)")
    assert acc.origins == ((0, 0), (8, 0), (0, 8), (8, 8))
    by_lane = {r.lane: (r.tile_row, r.tile_col, r.address_bytes) for r in acc.rows}
    assert (by_lane[9], by_lane[16]) == ((9, 0, 288), (0, 8, 16))
    assert all(m.ok for m in acc.moved)
    assert len(acc.moved) == 32 * 4 * 2


def test_a_row_major_16_column_f16_tile_has_2_way_bank_conflicts() -> None:
    acc = _access("(16,16):(16,1)")
    assert acc.bank_degree == 2
    assert len(acc.problems()) == 1


@pytest.mark.parametrize("layout", ["Swizzle<3,4,3> o 0 o (16,64):(64,1)", "K_SW128"])
def test_the_128_byte_swizzle_is_read_as_laid_out_without_conflicts(layout: str) -> None:
    acc = _access(layout)
    assert acc.rows[1].address_bytes == 144
    assert (acc.problems(), acc.bank_degree) == ([], 1)


def test_a_swizzle_on_8_byte_units_splits_the_rows() -> None:
    acc = _access("Swizzle<3,3,3> o 0 o (16,32):(32,1)")
    lane1 = acc.rows[1]
    assert (lane1.address_bytes, lane1.aligned, lane1.whole_row) == (72, False, False)
    assert [r.lane for r in acc.rows if not r.aligned] == list(range(1, 32, 2))
    assert any(not m.ok for m in acc.moved)


def test_a_column_major_tile_misaligns_the_row_addresses() -> None:
    acc = _access("(16,16):(1,16)")
    assert [r.address_bytes for r in acc.rows[:3]] == [0, 2, 4]
    assert [r.lane for r in acc.rows if r.aligned] == [0, 8, 16, 24]


def test_trans_over_an_mn_major_canonical_tile_reads_it_along_mn() -> None:
    """MN_SW128 bf16: its 16-byte rows run along MN, so the tile's rows are k."""
    form = lm.form(SPEC, "ldmatrix.m8n8.x4.trans.b16")
    t = sm.tile(SPEC, "MN_SW128", "bf16")
    acc = sm.access(SPEC, form, t)
    assert t.axes == ("k", "mn")
    assert (acc.problems(), acc.bank_degree) == ([], 1)


def test_a_canonical_tile_is_named_by_its_row_and_spans_mn_by_k() -> None:
    """K_SW128 (spec/wgmma/canonical_layouts.yaml) is ((8,m),(T,2k)), T = 8 f16 (16 bytes): its
    smallest tile of at least 16 x 16 has m = 2 and k = 1, 16 mn x 16 k."""
    t = sm.tile(SPEC, "K_SW128", "f16")
    assert (t.name, t.axes, t.dims) == ("K_SW128", ("mn", "k"), (16, 16))


def test_stmatrix_writes_where_ldmatrix_reads() -> None:
    st = _access("K_SW128", lm.form(SPEC, "stmatrix.m8n8.x4.b16"))
    ld = _access("K_SW128")
    assert [(m.held, m.address_bytes) for m in st.moved] == [(m.held, m.address_bytes)
                                                            for m in ld.moved]


def test_a_tile_of_another_width_is_refused() -> None:
    with raises_naming(ValueError, "f32 is 32-bit", "16-bit"):
        _access("(16,16):(16,1)", dtype="f32")


def test_a_tile_too_small_for_the_matrices_is_refused() -> None:
    with raises_naming(ValueError, "8x8 tile holds 1 block", "4 matrices"):
        _access("(8,8):(8,1)")


def test_a_start_moves_every_address() -> None:
    t = sm.tile(SPEC, "(16,16):(16,1)", "f16", start_bytes=0x400)
    acc = sm.access(SPEC, X4, t)
    assert acc.rows[9].address_bytes == 0x400 + 288
