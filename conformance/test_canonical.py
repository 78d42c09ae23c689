"""Canonical layouts and `smem_offsets`: properties, and the well-known swizzle formulas
(row-XOR-chunk, as CUTLASS and DeepGEMM-style kernels compute them) as an independent witness."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ptxconf.oracle import canonical, facts
from ptxconf.oracle.canonical import SmemQuery, smem_offsets
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import default_spec

ROWS = default_spec().of(CanonicalLayout)
DTYPES = ("f16", "tf32", "e4m3", "b1")


def xor_chunk_formula(row: int, k_byte: int, width_bytes: int) -> int:
    """K-major, rows packed width_bytes apart: the 16-byte chunk index XOR the row's phase."""
    chunks = width_bytes // 16
    phase = (row * width_bytes // 128) % chunks if width_bytes < 128 else row % 8
    chunk, within = divmod(k_byte, 16)
    return row * width_bytes + ((chunk ^ phase) * 16) + within


@pytest.mark.parametrize("swizzle,width", [("32B", 32), ("64B", 64), ("128B", 128)])
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
    assert out["units"] == "bits" and len(out["offsets"]) == 8 and len(out["offsets"][0]) == 256
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


@pytest.mark.parametrize("swizzle_unit", ["bytes", "elements"])
@pytest.mark.parametrize("major", ["K", "MN"])
def test_array_offsets_equal_the_scalar_reference(major: str, swizzle_unit: str) -> None:
    """`smem_offsets_array` (NumPy, what the GPU sweep places operands by) equals the scalar
    `smem_offsets` for every swizzle mode, element width, several shapes and phases."""
    from ptxconf.oracle import canonical as C
    from ptxconf.oracle import interpret as I

    spec = default_spec()
    compared = 0
    for sw in facts.swizzle_modes(spec):
        for dtype in ("f16", "tf32", "e4m3", "b1"):
            for mn, k in ((64, 16), (24, 32), (8, 256)):
                lbo, sbo = I.compact_strides(spec, dtype, major, sw, mn, k)
                mn_q, k_q = I._widened(spec, dtype, major, sw, mn, k)
                for base in (0, 16, 144):
                    q = C.SmemQuery(dtype=dtype, major=major, swizzle=sw, mn=mn_q, k=k_q,
                                    lbo_bytes=lbo + 32, sbo_bytes=sbo, base_offset_bytes=base,
                                    swizzle_unit=swizzle_unit)
                    want = np.asarray(C.smem_offsets(spec, q), dtype=np.int64)
                    np.testing.assert_array_equal(C.smem_offsets_array(spec, q), want)
                    compared += 1
    assert compared == 4 * 4 * 3 * 3


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
