"""Shared-memory bank analysis: the model's properties, then the canonical layouts through it.

The CuTeDSL blog (seed 003, "Bank Conflicts") shows a 64x64 K-major bf16 tile: with the 128B
swizzle a column of K reads conflict-free, a column of M conflicts less than without swizzle;
without swizzle a column of M conflicts as much as a warp can. Those claims are recomputed here
from the spec's canonical layouts; no number is read off the blog's pictures.
"""

from __future__ import annotations

import math

import pytest
from case_outcomes import raises_naming
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import warp_requests

from ptxconf.oracle import banks, canonical
from ptxconf.oracle.banks import (
    BANKS,
    CORE_ROW_BYTES,
    PHASE_BYTES,
    WARP_THREADS,
    TileQuery,
    bank,
    bank_table,
    conflict_degree,
    core_matrix_column_accesses,
    threads_per_phase,
    tile,
    tile_offsets_bytes,
)
from ptxconf.oracle.records import CanonicalLayout, InstructionType
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


# --- the bank model ------------------------------------------------------------------------


def test_bank_of_words() -> None:
    assert [bank(4 * w) for w in range(2 * BANKS)] == list(range(BANKS)) * 2
    assert {bank(a) for a in range(4 * 7, 4 * 8)} == {7}


@pytest.mark.parametrize("access", banks.ACCESS_BYTES)
def test_phase_is_128_bytes(access: int) -> None:
    assert threads_per_phase(access) * max(access, PHASE_BYTES // WARP_THREADS) == PHASE_BYTES


@given(stride_words=st.integers(1, 256))
@example(stride_words=1).via("consecutive words")
@example(stride_words=32).via("one bank for the whole warp")
def test_word_stride_conflicts_gcd(stride_words: int) -> None:
    """Thread i reading word s*i: banks s*i mod 32, so gcd(s, 32) threads share each bank."""
    addrs = [4 * stride_words * i for i in range(WARP_THREADS)]
    assert conflict_degree(addrs, 4) == math.gcd(stride_words, BANKS)


@pytest.mark.parametrize("access", banks.ACCESS_BYTES)
def test_contiguous_and_broadcast_are_conflict_free(access: int) -> None:
    assert conflict_degree([access * i for i in range(WARP_THREADS)], access) == 1
    assert conflict_degree([access * 5] * WARP_THREADS, access) == 1


@pytest.mark.parametrize("access", [8, 16])
def test_wide_accesses_split_into_phases(access: int) -> None:
    """Threads of different phases never conflict: 32 x `access` bytes at a 128-byte stride
    collide only inside each phase."""
    addrs = [PHASE_BYTES * i for i in range(WARP_THREADS)]
    assert conflict_degree(addrs, access) == threads_per_phase(access)


@given(req=warp_requests(), shift=st.integers(0, 64), data=st.data())
def test_degree_properties(req: tuple[int, list[int]], shift: int, data: st.DataObject) -> None:
    """1 <= degree <= threads per phase; invariant under an aligned shift of all addresses and
    under a permutation of the threads within each phase."""
    access, addrs = req
    degree = conflict_degree(addrs, access)
    assert 1 <= degree <= threads_per_phase(access)
    unit = max(access, PHASE_BYTES // WARP_THREADS)
    assert conflict_degree([a + shift * unit for a in addrs], access) == degree
    per = threads_per_phase(access)
    permuted = []
    for start in range(0, len(addrs), per):
        permuted += data.draw(st.permutations(addrs[start:start + per]))
    assert conflict_degree(permuted, access) == degree


def test_inactive_threads_do_not_count() -> None:
    addrs: list[int | None] = [PHASE_BYTES * i for i in range(WARP_THREADS)]
    addrs[1:] = [None] * (WARP_THREADS - 1)
    assert conflict_degree(addrs, 4) == 1


@pytest.mark.parametrize(("addrs", "access", "message"), [
    ([2], 4, "aligned"), ([8], 16, "aligned"), ([0] * 33, 4, "33 addresses"), ([0], 3, "3 bytes"),
    ([-4], 4, "aligned"),
])
def test_bad_requests(addrs: list[int], access: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        conflict_degree(addrs, access)


def test_bank_table_shows_the_conflict() -> None:
    addrs = [PHASE_BYTES * i for i in range(8)]
    text = bank_table(addrs, 16)
    lines = text.splitlines()
    assert "conflict degree 8" in lines[0]
    assert "bank 0" in lines[0]
    grid = [ln for ln in lines if ln.startswith("w")]
    assert len(grid) == 8
    assert [ln.split()[1] for ln in grid] == [f"t{i}" for i in range(8)]


# --- canonical layouts through the bank model ----------------------------------------------

#: One A type per element width of the wgmma instruction table (T = 128 / width).
WIDTHS = sorted({SPEC.element_bits(r.atype): r.atype for r in SPEC.of(InstructionType)}.items())


def _atom_tile(row: CanonicalLayout, dtype: str, repeats: int = 2) -> tuple[int, int]:
    """(mn, k) of a tile `repeats` swizzle atoms (core matrices for none) wide each way; a
    K-major swizzled tile is one atom wide along K (the template's K mode has no LBO)."""
    t = canonical.t_elems(SPEC, dtype)
    width_elems = t << row.swizzle_bits
    if row.major == "K":
        return 8 * repeats, (width_elems if row.swizzle != "none" else 2 * t * repeats)
    return width_elems * repeats, 8 * repeats


LAYOUT_CASES = [(row, dtype) for row in SPEC.of(CanonicalLayout) for _, dtype in WIDTHS]
LAYOUT_IDS = [f"{row.id}-{dtype}" for row, dtype in LAYOUT_CASES]


@pytest.mark.parametrize(("row", "dtype"), LAYOUT_CASES, ids=LAYOUT_IDS)
def test_core_matrix_reads_are_conflict_free(row: CanonicalLayout, dtype: str) -> None:
    """Every core matrix of every canonical layout is read in one 128-byte phase, no conflict."""
    mn, k = _atom_tile(row, dtype)
    tl = tile(SPEC, TileQuery(row.major, row.swizzle, dtype, mn, k))
    core_matrices = list(tl.core_matrices())
    assert core_matrices, f"{row.id} {dtype}: no core matrix in a {mn}x{k} tile"
    for cm in core_matrices:
        reads = tl.core_matrix_reads(*cm)
        assert len(reads) == 8
        degree = conflict_degree(reads, CORE_ROW_BYTES)
        assert degree == 1, f"{row.id} {dtype} core matrix {cm}:\n{bank_table(reads, 16)}"


@pytest.mark.parametrize(("row", "dtype"), LAYOUT_CASES, ids=LAYOUT_IDS)
def test_without_swizzle_rows_of_a_core_matrix_collide(row: CanonicalLayout, dtype: str) -> None:
    """Drop the swizzle: the 8 rows of a core matrix sit W bytes apart (W = the swizzle width),
    so 8 * W / 128 of them land on the same four banks."""
    mn, k = _atom_tile(row, dtype)
    q = TileQuery(row.major, row.swizzle, dtype, mn, k, swizzled=False)
    width_bytes = CORE_ROW_BYTES << row.swizzle_bits
    expected = max(1, 8 * width_bytes // PHASE_BYTES)
    assert tile(SPEC, q).degree()[0] == expected


@pytest.mark.parametrize("dtype", ["bf16", "tf32"])
def test_elements_reading_of_the_swizzle_conflicts(dtype: str) -> None:
    """Under swizzle_unit='elements' the 128B-swizzled core matrices of 16/32-bit types are no
    longer conflict-free: a bank-level consequence that separates the two readings."""
    row = SPEC.get(CanonicalLayout, "K_SW128")
    mn, k = _atom_tile(row, dtype)
    q_bytes = TileQuery("K", "128B", dtype, mn, k, swizzle_unit="bytes")
    q_elems = TileQuery("K", "128B", dtype, mn, k, swizzle_unit="elements")
    assert tile(SPEC, q_bytes).degree()[0] == 1
    assert tile(SPEC, q_elems).degree()[0] > 1


# Seed 003, "Bank Conflicts": the (64,64) K-major bf16 tile covered with the 128B atom.
BLOG_TILE = dict(major="K", swizzle="128B", dtype="bf16", mn=64, k=64)


def _slice_degrees(offsets: list[list[int]], access: int) -> tuple[int, int]:
    """Worst degree of a warp reading 32 consecutive elements along K, and along M."""
    rows, cols = len(offsets), len(offsets[0])
    along_k = max(conflict_degree([offsets[i][j0 + t] for t in range(WARP_THREADS)], access)
                  for i in range(rows) for j0 in range(0, cols, WARP_THREADS))
    along_m = max(conflict_degree([offsets[i0 + t][j] for t in range(WARP_THREADS)], access)
                  for j in range(cols) for i0 in range(0, rows, WARP_THREADS))
    return along_k, along_m


@pytest.mark.parametrize("unit", ["bytes", "elements"])
def test_blog_bank_claims(unit: str) -> None:
    """Swizzled: conflict-free along K, some conflicts along M; unswizzled: along M as many as a
    warp can have. Holds under either reading of the swizzle unit."""
    elem_bytes = SPEC.element_bits(BLOG_TILE["dtype"]) // 8
    swz = tile_offsets_bytes(SPEC, TileQuery(**BLOG_TILE, swizzle_unit=unit))
    plain = tile_offsets_bytes(SPEC, TileQuery(**BLOG_TILE, swizzled=False, swizzle_unit=unit))
    k_swz, m_swz = _slice_degrees(swz, elem_bytes)
    k_plain, m_plain = _slice_degrees(plain, elem_bytes)
    assert k_swz == 1
    assert 1 < m_swz < m_plain
    assert m_plain == WARP_THREADS
    assert k_plain == 1


def test_blog_unswizzled_tile_is_row_major() -> None:
    """The canonical K_SW128 template without its swizzle is the plain (64,64):(64,1) tile."""
    plain = tile_offsets_bytes(SPEC, TileQuery(**BLOG_TILE, swizzled=False))
    rm = banks.row_major_layout(BLOG_TILE["mn"], BLOG_TILE["k"])
    elem_bytes = SPEC.element_bits(BLOG_TILE["dtype"]) // 8
    assert plain == [[rm((i, j)) * elem_bytes for j in range(64)] for i in range(64)]


def test_core_matrix_outside_tile() -> None:
    q = TileQuery("K", "128B", "bf16", 8, 64)
    with pytest.raises(ValueError, match="outside"):
        core_matrix_column_accesses(SPEC, q, 1, 0)


# --- the model's details, worked by hand ----------------------------------------------------------
# Expected values from the CUDA Programming Guide's shared-memory model (32 banks of 4-byte words;
# a request served 128 bytes at a time: 32 threads for accesses of 4 bytes or less, 16 for 8-byte,
# 8 for 16-byte ones) and from hand-worked requests, never from the code under test.


@pytest.mark.parametrize(("access", "threads"), [(1, 32), (2, 32), (4, 32), (8, 16), (16, 8)])
def test_threads_per_phase_of_each_width(access: int, threads: int) -> None:
    assert banks.threads_per_phase(access) == threads


@pytest.mark.parametrize(("addr", "access", "words"), [
    (0, 1, [0]), (3, 1, [0]), (4, 2, [1]), (8, 4, [2]), (8, 8, [2, 3]), (32, 16, [8, 9, 10, 11]),
])
def test_words_of_one_access(addr: int, access: int, words: list[int]) -> None:
    assert list(banks.words(addr, access)) == words


def test_warp_threads_is_a_warp_and_other_names_are_refused() -> None:
    assert banks.WARP_THREADS == 32
    with pytest.raises(AttributeError, match="has no attribute 'NOPE'"):
        banks.NOPE  # noqa: B018


def test_an_inactive_lane_does_not_end_its_phase() -> None:
    # lanes 1 and 2 read words 0 and 32 (bank 0) after an inactive lane 0: two words, one bank
    assert banks.analyze([None, 0, 128], 4).degree == 2


def test_a_misaligned_address_is_named() -> None:
    with raises_naming(ValueError, "thread 1:", "0x6", "4-byte"):
        banks.analyze([0, 6], 4)


def test_worst_names_the_lanes_that_collide() -> None:
    # words 0 and 32 share bank 0; lane 2 reads bank 1, lane 3 is inactive
    # (the wording: messages_oracle.py's banks.worst_*)
    worst = banks.analyze([0, 128, 4, None], 4).worst()
    assert _named(worst, "phase 0,", "bank 0:", "2 distinct", "(t0@0x0, t1@0x80)")
    assert "t2" not in worst
    # conflict-free: the lowest bank, one word
    assert _named(banks.analyze([0, 4], 4).worst(), "phase 0,", "bank 0:", "1 distinct", "(t0@0x0)")
    idle = banks.analyze([None, None], 4)
    assert idle.worst() == "no active thread"
    assert idle.phases[0].worst_bank() is None


def _named(text: str, *values: str) -> bool:
    return all(v in text for v in values)


def _lines(addresses: list[int | None], access: int) -> list[str]:
    return banks.bank_table(addresses, access).splitlines()


def test_bank_table_of_a_conflict_free_request() -> None:
    # four lanes, consecutive words: columns 3 wide (at least 3, and the widest lane name "t3" + 1)
    # (the header's wording: messages_oracle.py's banks.table_*)
    lines = _lines([0, 4, 8, 12], 4)
    assert _named(lines[0], "4-byte", "32 threads", "degree 1")
    assert "(" not in lines[0]
    assert _named(lines[1], "phase 0:", "threads 0-3", "degree 1")
    assert lines[2] == "bank " + "".join(f"{b:>3}" for b in range(32))
    assert lines[3] == "w0   " + "".join(f"{c:>3}" for c in ("t0", "t1", "t2", "t3", *["."] * 28))
    assert len(lines) == 4


def test_bank_table_of_a_two_way_conflict_in_a_full_warp() -> None:
    # 32 lanes (columns 4 wide: "t31"); lane 16 re-reads bank 0 one row (128 bytes) on
    addresses: list[int | None] = [4 * t for t in range(16)] + [128 + 4 * t for t in range(16)]
    lines = _lines(addresses, 4)
    assert _named(lines[0], "4-byte", "32 threads", "degree 2", f"({banks.analyze(addresses, 4).worst()})",
                  "(t0@0x0, t16@0x80)")
    assert _named(lines[1], "phase 0:", "threads 0-31", "degree 2")
    assert lines[2] == "bank " + "".join(f"{b:>4}" for b in range(32))
    assert lines[3].split() == ["w0", *[f"t{t}" for t in range(16)], *["."] * 16]
    assert lines[4].split() == ["w1", *[f"t{t}" for t in range(16, 32)], *["."] * 16]


# A K-major no-swizzle f16 tile packed densely (the harness's packing: an 8-row x 16-byte atom
# steps along MN by SBO = 128 bytes; the K step LBO is one whole MN column of atoms).
K_NONE = banks.TileQuery("K", "none", "f16", 8, 16)
ROWS_0 = tuple(16 * r for r in range(8))


def test_core_matrix_reads_default_to_the_first_core_matrix() -> None:
    assert banks.core_matrix_column_accesses(SPEC, K_NONE) == ROWS_0
    assert banks.core_matrix_column_accesses(SPEC, K_NONE, core_k=1) == tuple(128 + a for a in ROWS_0)
    assert banks.tile(SPEC, K_NONE).core_matrix_reads() == ROWS_0


def test_a_core_matrix_past_k_is_refused() -> None:
    with pytest.raises(ValueError, match=r"core matrix \(0, 2\) is outside the 8x16 tile"):
        banks.tile(SPEC, K_NONE).core_matrix_reads(0, 2)


def _tile_with_row0(row0: list[int]) -> banks.Tile:
    rows = [row0] + [[16 * r + 2 * e for e in range(8)] for r in range(1, 8)]
    return banks.Tile(K_NONE, 8, 16, tuple(tuple(r) for r in rows))


@pytest.mark.parametrize(("row0", "shown"), [
    ([0, 4, 2, 6, 8, 10, 12, 14], "[0, 4, 2, 6]"),     # aligned start, not contiguous
    ([8, 10, 12, 14, 16, 18, 20, 22], "[8, 10, 12, 14]"),  # contiguous, not 16-byte aligned
])
def test_a_row_that_is_not_one_aligned_chunk_is_named(row0: list[int], shown: str) -> None:
    with raises_naming(ValueError, "K-major none f16:", "row 0", "(0, 0)", "16-byte", f"{shown}..."):
        _tile_with_row0(row0).core_matrix_reads(0, 0)


def test_degree_names_the_first_worst_core_matrix() -> None:
    # the 128B swizzle reads every core matrix conflict-free: degree 1, first at (0, 0)
    assert banks.tile(SPEC, banks.TileQuery("K", "128B", "f16", 16, 64)).degree() == (1, (0, 0))
    # a tile narrower than a core matrix (4 rows) has none: degree 0
    narrow = banks.TileQuery("K", "none", "f16", 4, 16, lbo_bytes=128)
    assert banks.tile(SPEC, narrow).degree() == (0, (0, 0))


def test_dense_strides_are_whole_bytes() -> None:
    # K-major 128B: LBO unused -> 16; SBO one 8 x 128-byte atom along MN
    got = banks.dense_lbo_sbo_bytes(SPEC, "K", "128B", "f16", 64, 64)
    assert got == (16, 1024)
    assert all(type(v) is int for v in got)
    # K-major none: SBO one 8 x 16-byte atom; LBO the 8 atoms of a 64-row column
    got = banks.dense_lbo_sbo_bytes(SPEC, "K", "none", "f16", 64, 16)
    assert got == (1024, 128)
    assert all(type(v) is int for v in got)


def test_a_given_lbo_or_sbo_is_kept_and_the_other_packed_densely() -> None:
    lbo_only = banks.tile_offsets_bytes(SPEC, banks.TileQuery("K", "none", "f16", 8, 16, lbo_bytes=256))
    assert lbo_only == [[16 * i + 2 * (j % 8) + 256 * (j // 8) for j in range(16)] for i in range(8)]
    # SBO given; LBO packed: the 2 atoms of a 16-row column, 256 bytes
    sbo_only = banks.tile_offsets_bytes(SPEC, banks.TileQuery("K", "none", "f16", 16, 16, sbo_bytes=512))
    assert sbo_only == [[16 * (i % 8) + 2 * (j % 8) + 512 * (i // 8) + 256 * (j // 8) for j in range(16)]
                        for i in range(16)]


def test_tile_offsets_keep_a_start_inside_the_repeat() -> None:
    # 128B swizzle, a start on row 1 of the 1024-byte repeat: element (0, 0) is 16 bytes in
    q = banks.TileQuery("K", "128B", "f16", 8, 64, base_offset_bytes=128)
    assert banks.tile_offsets_bytes(SPEC, q)[0][0] == 16


def test_an_aliasing_tile_is_named() -> None:
    with raises_naming(ValueError, "K-major none f16 8x16", "LBO=0", "SBO=128"):
        banks.tile_offsets_bytes(SPEC, banks.TileQuery("K", "none", "f16", 8, 16, lbo_bytes=0))


def test_a_core_matrix_reaching_one_past_the_last_column_is_refused() -> None:
    # a hand-made 8 x 15 tile: core matrix (0, 1) would read columns 8..15, and column 15 is not there
    q = banks.TileQuery("K", "none", "f16", 8, 15)
    offsets = tuple(tuple(16 * i + 2 * j for j in range(15)) for i in range(8))
    with pytest.raises(ValueError, match=r"core matrix \(0, 1\) is outside the 8x15 tile"):
        banks.Tile(q, 8, 16, offsets).core_matrix_reads(0, 1)


def test_a_phase_is_capped_by_the_warp_of_the_spec_given() -> None:
    # A spec (changed in memory) whose warpgroup is 2 warps: a warp of 128 / 2 = 64 threads.
    # 128 bytes' worth of 1-byte accesses is 128 threads, capped by that warp: all 64 threads of
    # one request are served together (the bundled spec's 32-thread warp would make 2 phases).
    import dataclasses

    from ptxconf.oracle.records import ThreadGroup
    from ptxconf.oracle.spec import Spec

    spec = Spec(root=SPEC.root, rows=tuple(
        dataclasses.replace(r, parts=2) if isinstance(r, ThreadGroup) and r.id == "warpgroup" else r
        for r in SPEC.rows))
    report = banks.analyze(list(range(64)), 1, spec)
    assert [p.threads for p in report.phases] == [tuple(range(64))]
    assert banks.threads_per_phase(1, spec) == 64
    assert banks.threads_per_phase(1) == 32
