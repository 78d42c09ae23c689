"""Shared-memory bank analysis: the model's properties, then the canonical layouts through it.

The CuTeDSL blog (seed 003, "Bank Conflicts") shows a 64x64 K-major bf16 tile: with the 128B
swizzle a column of K reads conflict-free, a column of M conflicts less than without swizzle;
without swizzle a column of M conflicts as much as a warp can. Those claims are recomputed here
from the spec's canonical layouts; no number is read off the blog's pictures.
"""

from __future__ import annotations

import math

import pytest
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
    assert "conflict degree 8" in lines[0] and "bank 0" in lines[0]
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
