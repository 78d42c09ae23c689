"""Checks of oracle/banks.py that mutation testing found missing (reports/mutation/README.md).

Expected values come from the shared-memory model of the CUDA Programming Guide (32 banks of
4-byte words; a request served 128 bytes at a time: 32 threads for accesses of 4 bytes or less,
16 for 8-byte, 8 for 16-byte ones) and from hand-worked requests, never from the code under test."""

from __future__ import annotations

import pytest

from ptxconf.oracle import banks


@pytest.mark.parametrize("access,threads", [(1, 32), (2, 32), (4, 32), (8, 16), (16, 8)])
def test_threads_per_phase_of_each_width(access: int, threads: int) -> None:
    assert banks.threads_per_phase(access) == threads


@pytest.mark.parametrize("addr,access,words", [
    (0, 1, [0]), (3, 1, [0]), (4, 2, [1]), (8, 4, [2]), (8, 8, [2, 3]), (32, 16, [8, 9, 10, 11]),
])
def test_words_of_one_access(addr: int, access: int, words: list[int]) -> None:
    assert list(banks.words(addr, access)) == words


SPEC = banks.default_spec()


def test_warp_threads_is_a_warp_and_other_names_are_refused() -> None:
    assert banks.WARP_THREADS == 32
    with pytest.raises(AttributeError, match="has no attribute 'NOPE'"):
        banks.NOPE  # noqa: B018


def test_an_inactive_lane_does_not_end_its_phase() -> None:
    # lanes 1 and 2 read words 0 and 32 (bank 0) after an inactive lane 0: two words, one bank
    assert banks.analyze([None, 0, 128], 4).degree == 2


def test_a_misaligned_address_is_named() -> None:
    with pytest.raises(ValueError, match=r"^thread 1: address 0x6 is not a 4-byte aligned "
                                         r"shared-memory address$"):
        banks.analyze([0, 6], 4)


def test_worst_names_the_lanes_that_collide() -> None:
    # words 0 and 32 share bank 0; lane 2 reads bank 1, lane 3 is inactive
    rep = banks.analyze([0, 128, 4, None], 4)
    assert rep.worst() == "phase 0, bank 0: 2 distinct words (t0@0x0, t1@0x80)"
    # conflict-free: the lowest bank, one word
    assert banks.analyze([0, 4], 4).worst() == "phase 0, bank 0: 1 distinct words (t0@0x0)"
    idle = banks.analyze([None, None], 4)
    assert idle.worst() == "no active thread" and idle.phases[0].worst_bank() is None


def _lines(addresses: list[int | None], access: int) -> list[str]:
    return banks.bank_table(addresses, access).splitlines()


def test_bank_table_of_a_conflict_free_request() -> None:
    # four lanes, consecutive words: columns 3 wide (at least 3, and the widest lane name "t3" + 1)
    lines = _lines([0, 4, 8, 12], 4)
    assert lines[0] == "4-byte accesses, 32 threads per phase; conflict degree 1"
    assert lines[1] == "phase 0: threads 0-3, degree 1"
    assert lines[2] == "bank " + "".join(f"{b:>3}" for b in range(32))
    assert lines[3] == "w0   " + "".join(f"{c:>3}" for c in ("t0", "t1", "t2", "t3", *["."] * 28))
    assert len(lines) == 4


def test_bank_table_of_a_two_way_conflict_in_a_full_warp() -> None:
    # 32 lanes (columns 4 wide: "t31"); lane 16 re-reads bank 0 one row (128 bytes) on
    lines = _lines([4 * t for t in range(16)] + [128 + 4 * t for t in range(16)], 4)
    assert lines[0] == ("4-byte accesses, 32 threads per phase; conflict degree 2 "
                        "(phase 0, bank 0: 2 distinct words (t0@0x0, t16@0x80))")
    assert lines[1] == "phase 0: threads 0-31, degree 2"
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


@pytest.mark.parametrize("row0,shown", [
    ([0, 4, 2, 6, 8, 10, 12, 14], "[0, 4, 2, 6]"),     # aligned start, not contiguous
    ([8, 10, 12, 14, 16, 18, 20, 22], "[8, 10, 12, 14]"),  # contiguous, not 16-byte aligned
])
def test_a_row_that_is_not_one_aligned_chunk_is_named(row0: list[int], shown: str) -> None:
    with pytest.raises(ValueError, match=r"^K-major none f16: row 0 of core matrix \(0, 0\) is not one "
                                         r"aligned 16-byte chunk: " + shown.replace("[", r"\[")
                                         .replace("]", r"\]") + r"\.\.\.$"):
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
    assert got == (16, 1024) and all(type(v) is int for v in got)
    # K-major none: SBO one 8 x 16-byte atom; LBO the 8 atoms of a 64-row column
    got = banks.dense_lbo_sbo_bytes(SPEC, "K", "none", "f16", 64, 16)
    assert got == (1024, 128) and all(type(v) is int for v in got)


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
    with pytest.raises(ValueError, match=r"^K-major none f16 8x16 with LBO=0 SBO=128 bytes puts two "
                                         r"elements at one address$"):
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
    assert banks.threads_per_phase(1, spec) == 64 and banks.threads_per_phase(1) == 32
