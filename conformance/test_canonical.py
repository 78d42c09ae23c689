"""Canonical layouts and `smem_offsets` (oracle/canonical.py): properties, the well-known swizzle
formulas (row-XOR-chunk, as CUTLASS and DeepGEMM-style kernels compute them) as an independent
witness, small tiles worked by hand from the table's templates (scalar and array paths), the
swizzle on addresses, base offsets, the LBO/SBO readings, and what is refused."""

from __future__ import annotations

import numpy as np
import pytest
from case_outcomes import raises_naming
from hypothesis import given
from hypothesis import strategies as st

from ptxconf.oracle import canonical, facts
from ptxconf.oracle.canonical import SmemQuery, smem_offsets
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
ROWS = SPEC.of(CanonicalLayout)
DTYPES = ("f16", "tf32", "e4m3", "b1")


def xor_chunk_formula(row: int, k_byte: int, width_bytes: int) -> int:
    """K-major, rows packed width_bytes apart: the 16-byte chunk index XOR the row's phase."""
    chunks = width_bytes // 16
    phase = (row * width_bytes // 128) % chunks if width_bytes < 128 else row % 8
    chunk, within = divmod(k_byte, 16)
    return row * width_bytes + ((chunk ^ phase) * 16) + within


@pytest.mark.parametrize(("swizzle", "width"), [("32B", 32), ("64B", 64), ("128B", 128)])
@pytest.mark.parametrize("dtype", ["f16", "tf32", "e4m3"])
def test_k_major_swizzle_matches_row_xor_chunk(swizzle: str, width: int, dtype: str) -> None:
    spec = default_spec()
    bits = spec.element_bits(dtype)
    k = width * 8 // bits  # one atom wide
    q = SmemQuery(dtype, "K", swizzle, 8, k, lbo_bytes=16, sbo_bytes=8 * width)
    offs = smem_offsets(spec, q)
    assert k > 0, (dtype, bits, width)
    for r in range(8):
        for j in range(k):
            assert offs[r][j] == xor_chunk_formula(r, j * bits // 8, width), (r, j)


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
@pytest.mark.parametrize("dtype", DTYPES)
def test_offsets_injective_and_granular(row: CanonicalLayout, dtype: str) -> None:
    spec = default_spec()
    bits = spec.element_bits(dtype)
    t = canonical.t_elems(spec, dtype)
    per_mn, per_k = canonical.repeat_extents(row, t)
    mn, k = 2 * per_mn, per_k
    layout = canonical.instantiate(row, t, 2, 1, 0, 0)
    gap_bytes = -(-layout.cosize() * bits // 8 // 16) * 16 * 4
    q = SmemQuery(dtype, row.major, row.swizzle, mn, k, lbo_bytes=gap_bytes, sbo_bytes=2 * gap_bytes)
    offs = [o for line in smem_offsets(spec, q) for o in line]
    assert len(set(offs)) == len(offs)
    assert min(offs) == 0


@given(st.sampled_from(["32B", "64B", "128B"]), st.integers(0, 7), st.integers(0, 63))
def test_bytes_and_elements_readings_agree_only_for_byte_elements(swizzle: str, r: int, j: int) -> None:
    spec = default_spec()
    q8 = SmemQuery("e4m3", "K", swizzle, 8, 16 * int(swizzle[:-1]) // 16, 16, 8 * int(swizzle[:-1]))
    j = j % q8.k
    a = smem_offsets(spec, q8)[r][j]
    b = smem_offsets(spec, SmemQuery(**{**q8.__dict__, "swizzle_unit": "elements"}))[r][j]
    assert a == b  # 1-byte elements: element offsets are byte offsets


def test_readings_differ_for_wider_elements() -> None:
    spec = default_spec()
    q = SmemQuery("tf32", "K", "32B", 8, 8, 16, 256)
    assert smem_offsets(spec, q) != smem_offsets(spec, SmemQuery(**{**q.__dict__,
                                                                   "swizzle_unit": "elements"}))


def test_b1_offsets_are_in_bits() -> None:
    spec = default_spec()
    out = canonical.smem_offsets_query(spec, SmemQuery("b1", "K", "none", 8, 256, 128, 256))
    assert out["units"] == "bits"
    assert len(out["offsets"]) == 8
    assert len(out["offsets"][0]) == 256
    assert out["offsets"][0][:3] == [0, 1, 2]


def test_operand_that_does_not_tile_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="does not tile"):
        smem_offsets(default_spec(), SmemQuery("f16", "K", "128B", 8, 12, 16, 1024))


@pytest.mark.parametrize("swizzle", ["32B", "64B", "128B"])
@pytest.mark.parametrize("field", [1, 3])
def test_base_offset_field_moves_the_phase(swizzle: str, field: int) -> None:
    # H100 evidence (reports/evidence/h100): a start on a 128-B row with the field set per the
    # PTX rule reads as if the pattern restarted at the start; field 0 keeps absolute bits.
    spec = default_spec()
    width = int(swizzle[:-1])
    base = dict(dtype="f16", major="K", swizzle=swizzle, mn=8, k=width // 2, lbo_bytes=16,
                sbo_bytes=8 * width)
    start = field * 128
    aligned = smem_offsets(spec, SmemQuery(**base))
    with_field = smem_offsets(spec, SmemQuery(**base, base_offset_bytes=start % (8 * width),
                                              base_offset_field=field))
    assert with_field == aligned


#: Each major with each swizzle reading: by default crossed (K with the elements reading, MN
#: with bytes), the other two pairs slow: the array path walks the majors' modes and the
#: readings' units apart (the scalar reference takes seconds a pair on two cores).
CROSSED = "the other major takes this reading by default ([K-elements], [MN-bytes])"


@pytest.mark.parametrize(("shapes", "dtypes"), [
    pytest.param(((24, 32),), ("f16", "b1"), id="small"),
    pytest.param(((24, 32),), ("tf32", "e4m3"), id="small-8-and-32-bit", marks=pytest.mark.slow(
        reason="the 8- and 32-bit types take the byte path f16 takes ([small], by default)")),
    pytest.param(((64, 16), (8, 256)), ("f16", "tf32", "e4m3", "b1"), id="large",
                 marks=pytest.mark.slow(
        reason="the scalar reference over 64 x 16 and 8 x 256 operands takes minutes on two "
               "cores; the same comparison on a 24 x 32 operand runs by default ([small])"))])
@pytest.mark.parametrize(("major", "swizzle_unit"), [
    ("K", "elements"), ("MN", "bytes"),
    pytest.param("K", "bytes", marks=pytest.mark.slow(reason=CROSSED)),
    pytest.param("MN", "elements", marks=pytest.mark.slow(reason=CROSSED))],
    ids=["K-elements", "MN-bytes", "K-bytes", "MN-elements"])
def test_array_offsets_equal_the_scalar_reference(major: str, swizzle_unit: str,
                                                  shapes: tuple[tuple[int, int], ...],
                                                  dtypes: tuple[str, ...]) -> None:
    """`smem_offsets_array` (NumPy, what the GPU sweep places operands by) equals the scalar
    `smem_offsets` for every swizzle mode, element width, several shapes and phases (by
    default a byte-wide and a sub-byte type, a start on the atom and one a row and a chunk into
    it; [large] every type and a chunk too)."""
    from ptxconf.oracle import interpret as I

    spec = default_spec()
    bases = (0, 144) if len(shapes) == 1 else (0, 16, 144)
    compared = 0
    for sw in facts.swizzle_modes(spec):
        for dtype in dtypes:
            for mn, k in shapes:
                lbo, sbo = I.compact_strides(spec, dtype, major, sw, mn, k)
                mn_q, k_q = I._widened(spec, dtype, major, sw, mn, k)
                for base in bases:
                    q = canonical.SmemQuery(dtype=dtype, major=major, swizzle=sw, mn=mn_q, k=k_q,
                                            lbo_bytes=lbo + 32, sbo_bytes=sbo, base_offset_bytes=base,
                                            swizzle_unit=swizzle_unit)
                    want = np.asarray(canonical.smem_offsets(spec, q), dtype=np.int64)
                    np.testing.assert_array_equal(canonical.smem_offsets_array(spec, q), want)
                    compared += 1
    assert compared == 4 * len(dtypes) * len(shapes) * len(bases)


def test_offsets_injective_sees_any_shared_address() -> None:
    """The placement's injectivity check: distinct offsets pass; any two equal ones (negative
    ones too) fail; an empty operand is trivially injective."""
    import numpy as np

    from ptxconf.oracle import interpret as I

    assert I.offsets_injective(np.array([[0, 2], [4, 6]]))
    assert not I.offsets_injective(np.array([[0, 2], [2, 6]]))
    assert not I.offsets_injective(np.array([-3, 5, -3]))
    assert I.offsets_injective(np.array([-3, 5, 9000]))
    assert I.offsets_injective(np.zeros((0, 4), dtype=np.int64))


# --- worked by hand from the canonical-layout table --------------------------------------------
# The PTX ISA's templates (spec/wgmma/canonical_layouts.yaml, e.g. K-major no-swizzle
# ((8,m),(T,2k)):((1T,SBO),(1,LBO)), MN-major no-swizzle ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO));
# T = 128 / element bits): one repeat (m = k = 1) of a K-major layout is 8 x 2T elements, of an
# MN-major one (swizzle width / 16 bytes) * T x 8. Never values read from the code under test.

T_F16 = 8  # 128 / 16


@pytest.mark.parametrize(("major", "swizzle", "mn", "k", "repeats"), [
    ("K", "none", 64, 32, (8, 2)),     # repeat 8 x 16
    ("K", "128B", 64, 32, (8, 2)),     # repeat 8 x 16
    ("MN", "none", 128, 16, (16, 2)),  # repeat 8 x 8
    ("MN", "32B", 128, 16, (8, 2)),    # repeat 16 x 8
    ("MN", "128B", 128, 16, (2, 2)),   # repeat 64 x 8
])
def test_repeats_for_divides_by_the_tables_repeat(major: str, swizzle: str, mn: int, k: int,
                                                  repeats: tuple[int, int]) -> None:
    got = canonical.repeats_for(canonical.canonical_row(SPEC, major, swizzle), T_F16, mn, k)
    assert got == repeats
    assert all(type(v) is int for v in got)


@pytest.mark.parametrize(("mn", "k"), [(0, 16), (8, 0), (-8, 16), (8, -16), (12, 16), (8, 24), (12, 24)])
def test_repeats_for_refuses_what_does_not_tile(mn: int, k: int) -> None:
    row = canonical.canonical_row(SPEC, "K", "128B")
    with raises_naming(ValueError, "K_SW128:", f"{mn}x{k}", "8x16", "T=8"):
        canonical.repeats_for(row, T_F16, mn, k)


@pytest.mark.parametrize(("bits", "units"), [(1, "bits"), (4, "bits"), (6, "bits"), (8, "bytes"),
                                        (16, "bytes"), (32, "bytes"), (64, "bytes")])
def test_address_units(bits: int, units: str) -> None:
    assert canonical.address_units(bits) == units


def _k_inter_f16(i: int, j: int) -> int:
    # ((8,1),(8,2)):((8,SBO),(1,LBO)) with LBO = 128 bytes = 64 elements, in bytes (x2):
    # core-matrix rows of 16 contiguous bytes, the next core matrix along K at LBO.
    return 2 * (8 * i + j % 8 + 64 * (j // 8))


def test_query_answer_of_a_k_major_no_swizzle_tile() -> None:
    q = canonical.SmemQuery(dtype="f16", major="K", swizzle="none", mn=8, k=16, lbo_bytes=128, sbo_bytes=256)
    got = canonical.smem_offsets_query(SPEC, q)
    assert got["units"] == "bytes"
    assert got["mn"] == 8
    assert got["k"] == 16
    assert got["offsets"] == [[_k_inter_f16(i, j) for j in range(16)] for i in range(8)]
    assert got["layout_covers"] == [8, 16]
    assert got["layout_elems"].startswith("Swizzle<0,4,3> o ")
    assert got["hypotheses"] == {"swizzle_unit": "bytes", "mn_lbo_sbo_roles": "as_documented",
                                 "base_offset": "absolute"}


def test_query_answer_covers_a_partial_mn_repeat_and_names_the_base_offset_reading() -> None:
    # MN-major 128B: one repeat is 64 x 8 (f16); an 8-wide operand is covered by one repeat.
    q = canonical.SmemQuery(dtype="f16", major="MN", swizzle="128B", mn=8, k=8, lbo_bytes=16,
                    sbo_bytes=1024, base_offset_field=1)
    got = canonical.smem_offsets_query(SPEC, q)
    assert got["layout_covers"] == [64, 8]
    assert got["mn"] == 8
    assert got["k"] == 8
    assert len(got["offsets"]) == 8
    assert got["hypotheses"]["base_offset"] == "field_moves_phase"
    assert got["layout_elems"].startswith("Swizzle<3,4,3> o ")


def test_sub_byte_answers_are_in_bits() -> None:
    # b1: T = 128, K-major repeat 8 x 256 bits; row i starts 128 bits (16 bytes) after row i-1.
    q = canonical.SmemQuery(dtype="b1", major="K", swizzle="none", mn=8, k=256, lbo_bytes=128, sbo_bytes=256)
    got = canonical.smem_offsets_query(SPEC, q)
    assert got["units"] == "bits"
    assert [row[0] for row in got["offsets"]] == [128 * i for i in range(8)]
    assert got["offsets"][0][:4] == [0, 1, 2, 3]


def _mn_inter_f16(i: int, j: int) -> int:
    # ((8,1,m),(8,k)):((1,8,SBO),(8,LBO)) with SBO = 256 bytes = 128 elements and
    # LBO = 512 bytes = 256 elements, in bytes (x2).
    return 2 * (i % 8 + 128 * (i // 8) + 8 * (j % 8) + 256 * (j // 8))


def test_mn_major_array_and_scalar_offsets_equal_the_template() -> None:
    # A three-level MN mode (T,1,m): the array path's shape walk over more than two sub-modes.
    q = canonical.SmemQuery(dtype="f16", major="MN", swizzle="none", mn=16, k=16, lbo_bytes=512, sbo_bytes=256)
    want = [[_mn_inter_f16(i, j) for j in range(16)] for i in range(16)]
    assert canonical.smem_offsets(SPEC, q) == want
    np.testing.assert_array_equal(canonical.smem_offsets_array(SPEC, q), np.asarray(want, dtype=np.int64))


def test_k_major_array_equals_the_template() -> None:
    q = canonical.SmemQuery(dtype="f16", major="K", swizzle="none", mn=8, k=16, lbo_bytes=128, sbo_bytes=256)
    got = canonical.smem_offsets_array(SPEC, q)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [[_k_inter_f16(i, j) for j in range(16)] for i in range(8)])


@pytest.mark.parametrize("field", [1, 3, 7])
def test_array_with_the_base_offset_field_reads_as_the_aligned_start(field: int) -> None:
    # H100 evidence (reports/evidence/h100, as conformance/test_canonical.py reads it): a 128B
    # K-major operand starting on 128-byte row `field` with the descriptor's base-offset field
    # set to it (the PTX rule: (start >> 7) & 7) reads as if its pattern started at 0.
    base = dict(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024)
    aligned = canonical.smem_offsets_array(SPEC, canonical.SmemQuery(**base))
    moved = canonical.smem_offsets_array(SPEC, canonical.SmemQuery(**base, base_offset_bytes=field * 128,
                                                   base_offset_field=field))
    np.testing.assert_array_equal(moved, aligned)
    # and without the field, the same start shifts the pattern (the swizzle acts on addresses)
    shifted = canonical.smem_offsets_array(SPEC, canonical.SmemQuery(**base, base_offset_bytes=field * 128))
    assert not np.array_equal(shifted, aligned)


# --- the swizzle on addresses, base offsets, and the LBO/SBO readings -----------------------
# The 128B swizzle is Swizzle<3,4,3> on byte addresses: the 16-byte chunk c of 128-byte row r
# (of a 1024-byte repeat) is stored at chunk c ^ (r % 8) of that row.

SW128 = canonical.Swizzle(3, 4, 3)


@pytest.mark.parametrize(("unit", "base", "elem", "want"), [
    ("bytes", 0, 64, 144),     # byte 128 = row 1, chunk 0 -> chunk 1: 128 + 16
    ("bytes", 128, 0, 16),     # a start on row 1: its first chunk is chunk 1 of that row
    ("bytes", 256, 8, 48),     # a start on row 2, byte 16 = chunk 1 -> chunk 3: 48 bytes in
    ("elements", 0, 64, 128),  # element 64: Swizzle<3,4,3>(64) = 64 (bits 7-9 of 64 are 0)
    ("elements", 128, 0, 0),   # 64 elements in: swz(64) - 64 = 0
])
def test_swizzled_offset_of_f16_elements(unit: str, base: int, elem: int, want: int) -> None:
    assert canonical.swizzled_offset(elem, 16, SW128, unit, base) == want


def test_swizzled_offset_starts_at_zero_by_default() -> None:
    # byte 127 is row 0: not swizzled; a start 1 byte in would move it to row 1.
    assert canonical.swizzled_offset(127, 8, SW128, "bytes") == 127
    assert canonical.swizzled_offset(127, 8, SW128, "elements") == 127


@pytest.mark.parametrize(("call", "named", "width"), [
    (lambda: canonical.swizzled_offset(0, 16, SW128, "elements", 1), "base offset=1 bytes", "16-bit"),
    (lambda: canonical.bytes_to_elems(3, 16, "lbo"), "lbo=3 bytes", "16-bit"),
    (lambda: canonical.smem_offsets(SPEC, canonical.SmemQuery(dtype="tf32", major="K", swizzle="none",
                                                              mn=8, k=8, lbo_bytes=18, sbo_bytes=256)),
     "lbo=18 bytes", "32-bit"),
    (lambda: canonical.smem_offsets(SPEC, canonical.SmemQuery(dtype="tf32", major="K", swizzle="none",
                                                              mn=8, k=8, lbo_bytes=16, sbo_bytes=258)),
     "sbo=258 bytes", "32-bit"),
])
def test_byte_counts_that_are_not_whole_elements_are_named(call, named: str, width: str) -> None:
    """The message starts with the count it names, then the element width (16-bit for f16, 32-bit
    for tf32; the wording: messages_oracle.py's canonical.not_whole_elements)."""
    with raises_naming(ValueError, named, width) as info:
        call()
    assert str(info.value).startswith(named)


class _Bits:
    """A spec stand-in with one 24-bit element type."""

    def element_bits(self, dtype: str) -> int:
        return 24


def test_an_element_width_that_does_not_divide_128_is_named() -> None:
    with raises_naming(ValueError, "x24:", "24-bit", "128"):
        canonical.t_elems(_Bits(), "x24")  # type: ignore[arg-type]


def test_a_template_that_is_not_a_plain_layout_is_named() -> None:
    row = canonical.CanonicalLayout(id="K_INTER", file="wgmma/scratch.yaml", major="K", swizzle="none",
                            layout="Swizzle<3,4,3> o (8,8):(8,1)")
    with raises_naming(ValueError, "wgmma/scratch:K_INTER:", "Swizzle<3,4,3> o (8,8):(8,1)"):
        canonical.instantiate(row, 8, 1, 1, 0, 0)


@pytest.mark.parametrize(("mn", "k"), [(0, 16), (-8, 16), (8, 0), (8, -16), (8, 24)])
def test_covering_repeats_refuses(mn: int, k: int) -> None:
    with pytest.raises(ValueError, match="does not tile"):
        canonical.covering_repeats(canonical.canonical_row(SPEC, "K", "128B"), T_F16, mn, k)


@pytest.mark.parametrize(("mn", "k", "want"), [(1, 16, (1, 1)), (8, 32, (1, 2)), (9, 16, (2, 1))])
def test_covering_repeats_rounds_mn_up(mn: int, k: int, want: tuple[int, int]) -> None:
    got = canonical.covering_repeats(canonical.canonical_row(SPEC, "K", "128B"), T_F16, mn, k)
    assert got == want
    assert all(type(v) is int for v in got)


def _offsets(**kw) -> list[list[int]]:
    return canonical.smem_offsets(SPEC, canonical.SmemQuery(**kw))


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
    array = canonical.smem_offsets_array(SPEC, canonical.SmemQuery(**q, base_offset_field=1))
    np.testing.assert_array_equal(array, moved)


def test_a_base_offset_field_past_its_mask_is_refused() -> None:
    q = canonical.SmemQuery(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024,
                    base_offset_field=8)
    with raises_naming(ValueError, "field 8", "0..7"):
        canonical.smem_offsets(SPEC, q)


def test_scalar_and_array_offsets_keep_a_start_inside_the_repeat() -> None:
    # a K-major 128B f16 operand starting at row 1 of the repeat: element (0, 0) is 16 bytes in
    q = canonical.SmemQuery(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024,
                    base_offset_bytes=128)
    assert canonical.smem_offsets(SPEC, q)[0][0] == 16
    assert canonical.smem_offsets_array(SPEC, q)[0, 0] == 16


def test_the_elements_reading_reaches_the_array_path() -> None:
    # row 1, k 0 of a K-major 128B f16 operand: element 64; bytes reading 144, elements reading 128
    q = dict(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16, sbo_bytes=1024)
    assert canonical.smem_offsets_array(SPEC, canonical.SmemQuery(**q))[1, 0] == 144
    assert canonical.smem_offsets_array(SPEC, canonical.SmemQuery(**q, swizzle_unit="elements"))[1, 0] == 128
