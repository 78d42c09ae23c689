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


# --- the swizzle on addresses, base offsets, and the LBO/SBO readings -----------------------
# The 128B swizzle is Swizzle<3,4,3> on byte addresses: the 16-byte chunk c of 128-byte row r
# (of a 1024-byte repeat) is stored at chunk c ^ (r % 8) of that row.

SW128 = C.Swizzle(3, 4, 3)


@pytest.mark.parametrize("unit,base,elem,want", [
    ("bytes", 0, 64, 144),     # byte 128 = row 1, chunk 0 -> chunk 1: 128 + 16
    ("bytes", 128, 0, 16),     # a start on row 1: its first chunk is chunk 1 of that row
    ("bytes", 256, 8, 48),     # a start on row 2, byte 16 = chunk 1 -> chunk 3: 48 bytes in
    ("elements", 0, 64, 128),  # element 64: Swizzle<3,4,3>(64) = 64 (bits 7-9 of 64 are 0)
    ("elements", 128, 0, 0),   # 64 elements in: swz(64) - 64 = 0
])
def test_swizzled_offset_of_f16_elements(unit: str, base: int, elem: int, want: int) -> None:
    assert C.swizzled_offset(elem, 16, SW128, unit, base) == want


def test_swizzled_offset_starts_at_zero_by_default() -> None:
    # byte 127 is row 0: not swizzled; a start 1 byte in would move it to row 1.
    assert C.swizzled_offset(127, 8, SW128, "bytes") == 127
    assert C.swizzled_offset(127, 8, SW128, "elements") == 127


@pytest.mark.parametrize("call,match", [
    (lambda: C.swizzled_offset(0, 16, SW128, "elements", 1),
     r"^base offset=1 bytes is not a whole number of 16-bit elements$"),
    (lambda: C.bytes_to_elems(3, 16, "lbo"), r"^lbo=3 bytes is not a whole number of 16-bit elements$"),
    (lambda: C.smem_offsets(SPEC, C.SmemQuery(dtype="tf32", major="K", swizzle="none", mn=8, k=8,
                                              lbo_bytes=18, sbo_bytes=256)),
     r"^lbo=18 bytes is not a whole number of 32-bit elements$"),
    (lambda: C.smem_offsets(SPEC, C.SmemQuery(dtype="tf32", major="K", swizzle="none", mn=8, k=8,
                                              lbo_bytes=16, sbo_bytes=258)),
     r"^sbo=258 bytes is not a whole number of 32-bit elements$"),
])
def test_byte_counts_that_are_not_whole_elements_are_named(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


class _Bits:
    """A spec stand-in with one 24-bit element type."""

    def element_bits(self, dtype: str) -> int:
        return 24


def test_an_element_width_that_does_not_divide_128_is_named() -> None:
    with pytest.raises(ValueError, match=r"^x24: 24-bit elements do not divide 128 bits$"):
        C.t_elems(_Bits(), "x24")  # type: ignore[arg-type]


def test_a_template_that_is_not_a_plain_layout_is_named() -> None:
    row = C.CanonicalLayout(id="K_INTER", file="wgmma/scratch.yaml", major="K", swizzle="none",
                            layout="Swizzle<3,4,3> o (8,8):(8,1)")
    with pytest.raises(ValueError, match=r"^wgmma/scratch:K_INTER: template .* is not a plain layout$"):
        C.instantiate(row, 8, 1, 1, 0, 0)


@pytest.mark.parametrize("mn,k", [(0, 16), (-8, 16), (8, 0), (8, -16), (8, 24)])
def test_covering_repeats_refuses(mn: int, k: int) -> None:
    with pytest.raises(ValueError, match="does not tile"):
        C.covering_repeats(C.canonical_row(SPEC, "K", "128B"), T_F16, mn, k)


@pytest.mark.parametrize("mn,k,want", [(1, 16, (1, 1)), (8, 32, (1, 2)), (9, 16, (2, 1))])
def test_covering_repeats_rounds_mn_up(mn: int, k: int, want: tuple[int, int]) -> None:
    got = C.covering_repeats(C.canonical_row(SPEC, "K", "128B"), T_F16, mn, k)
    assert got == want and all(type(v) is int for v in got)


def _offsets(**kw) -> list[list[int]]:
    return C.smem_offsets(SPEC, C.SmemQuery(**kw))


def test_swapped_roles_exchange_lbo_and_sbo_for_mn_major_swizzled_only() -> None:
    mn_sw = dict(dtype="f16", major="MN", swizzle="128B", mn=128, k=16)
    swapped = _offsets(**mn_sw, lbo_bytes=4096, sbo_bytes=2048, mn_lbo_sbo_roles="swapped")
    assert swapped == _offsets(**mn_sw, lbo_bytes=2048, sbo_bytes=4096)
    assert swapped != _offsets(**mn_sw, lbo_bytes=4096, sbo_bytes=2048)
    for other in (dict(dtype="f16", major="MN", swizzle="none", mn=16, k=16),
                  dict(dtype="f16", major="K", swizzle="128B", mn=16, k=64)):
        assert (_offsets(**other, lbo_bytes=512, sbo_bytes=256, mn_lbo_sbo_roles="swapped")
                == _offsets(**other, lbo_bytes=512, sbo_bytes=256))


def test_the_base_offset_field_is_ignored_without_swizzle() -> None:
    q = dict(dtype="f16", major="K", swizzle="none", mn=8, k=16, lbo_bytes=128, sbo_bytes=256)
    assert _offsets(**q, base_offset_field=3) == _offsets(**q)


def test_the_field_moves_the_phase_back_within_the_1024_byte_repeat() -> None:
    # field 1 at an aligned start: the pattern starts 128 bytes back, i.e. at 896 of the repeat
    q = dict(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024)
    moved = _offsets(**q, base_offset_field=1)
    assert moved == _offsets(**q, base_offset_bytes=896)
    assert moved != _offsets(**q)
    np.testing.assert_array_equal(C.smem_offsets_array(SPEC, C.SmemQuery(**q, base_offset_field=1)),
                                  moved)


def test_a_base_offset_field_past_its_mask_is_refused() -> None:
    q = C.SmemQuery(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024,
                    base_offset_field=8)
    with pytest.raises(ValueError, match=r"^base-offset field 8: expected 0\.\.7$"):
        C.smem_offsets(SPEC, q)


def test_scalar_and_array_offsets_keep_a_start_inside_the_repeat() -> None:
    # a K-major 128B f16 operand starting at row 1 of the repeat: element (0, 0) is 16 bytes in
    q = C.SmemQuery(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024,
                    base_offset_bytes=128)
    assert C.smem_offsets(SPEC, q)[0][0] == 16
    assert C.smem_offsets_array(SPEC, q)[0, 0] == 16


def test_the_elements_reading_reaches_the_array_path() -> None:
    # row 1, k 0 of a K-major 128B f16 operand: element 64; bytes reading 144, elements reading 128
    q = dict(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024)
    assert C.smem_offsets_array(SPEC, C.SmemQuery(**q))[1, 0] == 144
    assert C.smem_offsets_array(SPEC, C.SmemQuery(**q, swizzle_unit="elements"))[1, 0] == 128
