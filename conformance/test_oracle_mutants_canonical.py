"""Checks of oracle/canonical.py that mutation testing found missing (reports/mutation/README.md).

Expected values are worked by hand from the PTX ISA's canonical-layout table (the templates of
spec/wgmma/canonical_layouts.yaml, e.g. K-major no-swizzle ``((8,m),(T,2k)):((1T,SBO),(1,LBO))``,
MN-major no-swizzle ``((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))``; T = 128 / element bits): one
repeat (m = k = 1) of a K-major layout is 8 x 2T elements, of an MN-major one (swizzle width /
16 bytes) * T x 8. Never values read from the code under test."""

from __future__ import annotations

import numpy as np
import pytest

from ptxconf.oracle import canonical as C
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
T_F16 = 8  # 128 / 16


@pytest.mark.parametrize("major,swizzle,mn,k,repeats", [
    ("K", "none", 64, 32, (8, 2)),     # repeat 8 x 16
    ("K", "128B", 64, 32, (8, 2)),     # repeat 8 x 16
    ("MN", "none", 128, 16, (16, 2)),  # repeat 8 x 8
    ("MN", "32B", 128, 16, (8, 2)),    # repeat 16 x 8
    ("MN", "128B", 128, 16, (2, 2)),   # repeat 64 x 8
])
def test_repeats_for_divides_by_the_tables_repeat(major: str, swizzle: str, mn: int, k: int,
                                                  repeats: tuple[int, int]) -> None:
    got = C.repeats_for(C.canonical_row(SPEC, major, swizzle), T_F16, mn, k)
    assert got == repeats and all(type(v) is int for v in got)


@pytest.mark.parametrize("mn,k", [(0, 16), (8, 0), (-8, 16), (8, -16), (12, 16), (8, 24), (12, 24)])
def test_repeats_for_refuses_what_does_not_tile(mn: int, k: int) -> None:
    row = C.canonical_row(SPEC, "K", "128B")
    with pytest.raises(ValueError, match=rf"^K_SW128: an operand of {mn}x{k} elements does not tile "
                                         r"into repeats of 8x16 \(T=8\)$"):
        C.repeats_for(row, T_F16, mn, k)


@pytest.mark.parametrize("bits,units", [(1, "bits"), (4, "bits"), (6, "bits"), (8, "bytes"),
                                        (16, "bytes"), (32, "bytes"), (64, "bytes")])
def test_address_units(bits: int, units: str) -> None:
    assert C.address_units(bits) == units


def _k_inter_f16(i: int, j: int) -> int:
    # ((8,1),(8,2)):((8,SBO),(1,LBO)) with LBO = 128 bytes = 64 elements, in bytes (x2):
    # core-matrix rows of 16 contiguous bytes, the next core matrix along K at LBO.
    return 2 * (8 * i + j % 8 + 64 * (j // 8))


def test_query_answer_of_a_k_major_no_swizzle_tile() -> None:
    q = C.SmemQuery(dtype="f16", major="K", swizzle="none", mn=8, k=16, lbo_bytes=128, sbo_bytes=256)
    got = C.smem_offsets_query(SPEC, q)
    assert got["units"] == "bytes" and got["mn"] == 8 and got["k"] == 16
    assert got["offsets"] == [[_k_inter_f16(i, j) for j in range(16)] for i in range(8)]
    assert got["layout_covers"] == [8, 16]
    assert got["layout_elems"].startswith("Swizzle<0,4,3> o ")
    assert got["hypotheses"] == {"swizzle_unit": "bytes", "mn_lbo_sbo_roles": "as_documented",
                                 "base_offset": "absolute"}


def test_query_answer_covers_a_partial_mn_repeat_and_names_the_base_offset_reading() -> None:
    # MN-major 128B: one repeat is 64 x 8 (f16); an 8-wide operand is covered by one repeat.
    q = C.SmemQuery(dtype="f16", major="MN", swizzle="128B", mn=8, k=8, lbo_bytes=16,
                    sbo_bytes=1024, base_offset_field=1)
    got = C.smem_offsets_query(SPEC, q)
    assert got["layout_covers"] == [64, 8]
    assert got["mn"] == 8 and got["k"] == 8 and len(got["offsets"]) == 8
    assert got["hypotheses"]["base_offset"] == "field_moves_phase"
    assert got["layout_elems"].startswith("Swizzle<3,4,3> o ")


def test_sub_byte_answers_are_in_bits() -> None:
    # b1: T = 128, K-major repeat 8 x 256 bits; row i starts 128 bits (16 bytes) after row i-1.
    q = C.SmemQuery(dtype="b1", major="K", swizzle="none", mn=8, k=256, lbo_bytes=128, sbo_bytes=256)
    got = C.smem_offsets_query(SPEC, q)
    assert got["units"] == "bits"
    assert [row[0] for row in got["offsets"]] == [128 * i for i in range(8)]
    assert got["offsets"][0][:4] == [0, 1, 2, 3]


def _mn_inter_f16(i: int, j: int) -> int:
    # ((8,1,m),(8,k)):((1,8,SBO),(8,LBO)) with SBO = 256 bytes = 128 elements and
    # LBO = 512 bytes = 256 elements, in bytes (x2).
    return 2 * (i % 8 + 128 * (i // 8) + 8 * (j % 8) + 256 * (j // 8))


def test_mn_major_array_and_scalar_offsets_equal_the_template() -> None:
    # A three-level MN mode (T,1,m): the array path's shape walk over more than two sub-modes.
    q = C.SmemQuery(dtype="f16", major="MN", swizzle="none", mn=16, k=16, lbo_bytes=512, sbo_bytes=256)
    want = [[_mn_inter_f16(i, j) for j in range(16)] for i in range(16)]
    assert C.smem_offsets(SPEC, q) == want
    np.testing.assert_array_equal(C.smem_offsets_array(SPEC, q), np.asarray(want, dtype=np.int64))


def test_k_major_array_equals_the_template() -> None:
    q = C.SmemQuery(dtype="f16", major="K", swizzle="none", mn=8, k=16, lbo_bytes=128, sbo_bytes=256)
    got = C.smem_offsets_array(SPEC, q)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [[_k_inter_f16(i, j) for j in range(16)] for i in range(8)])


@pytest.mark.parametrize("field", [1, 3, 7])
def test_array_with_the_base_offset_field_reads_as_the_aligned_start(field: int) -> None:
    # H100 evidence (reports/evidence/h100, as conformance/test_canonical.py reads it): a 128B
    # K-major operand starting on 128-byte row `field` with the descriptor's base-offset field
    # set to it (the PTX rule: (start >> 7) & 7) reads as if its pattern started at 0.
    base = dict(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024)
    aligned = C.smem_offsets_array(SPEC, C.SmemQuery(**base))
    moved = C.smem_offsets_array(SPEC, C.SmemQuery(**base, base_offset_bytes=field * 128,
                                                   base_offset_field=field))
    np.testing.assert_array_equal(moved, aligned)
    # and without the field, the same start shifts the pattern (the swizzle acts on addresses)
    shifted = C.smem_offsets_array(SPEC, C.SmemQuery(**base, base_offset_bytes=field * 128))
    assert not np.array_equal(shifted, aligned)
