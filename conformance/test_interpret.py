"""Element values of the probes (oracle/interpret.py): element encodings, exact ranges, random
operands, the discovery coding and the host arithmetic, and what encoding refuses (the wording:
messages_oracle_algebra.py's interpret.*). The placement model (offsets, strides, place/gather,
registers, wmma) is test_interpret_placement.py's.

Expected values are worked by hand, never read from the code under test:

* bit patterns from IEEE 754 binary16/32/64 and bfloat16, and OCP OFP8 v1.0 (E4M3: bias 7, no
  infinities, S.1111.111 its only NaN, largest finite 448; E5M2: bias 15, IEEE-like), with the
  exponent/mantissa widths of spec/wgmma/element_types.yaml; subnormals are
  mantissa * 2**(1 - bias - mantissa_bits);
* exact integer ranges: a float with p stored mantissa bits holds every integer up to
  2**(p + 1); an n-bit two's-complement type [-2**(n-1), 2**(n-1) - 1]; unsigned [0, 2**n - 1];
* the documented rules of each function (docstrings): operands of a K-deep product with a float
  accumulator stay within sqrt(2048 / K); digits of a power-of-two base both types hold, as few
  as give `count` codes; D = A @ B^T in int64.

Where a mutant keeps the spec it is given from reaching a helper (the bundled spec read instead),
a scratch spec with rows changed shows it (as test_facts.py builds them)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from case_outcomes import raises_naming
from scratch_spec import wide_registers

from ptxconf.oracle import interpret as I
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def _ints(a: np.ndarray) -> list:
    return np.asarray(a).tolist()


# --- module attribute ----------------------------------------------------------------------


def test_register_bits_attribute_and_unknown_names() -> None:
    # wgmma/register_fragments.yaml: an .f16x2 register holds two 16-bit elements
    assert I.REGISTER_BITS == 32
    with pytest.raises(AttributeError, match=r"interpret' has no attribute 'NO_SUCH_NAME'"):
        _ = I.NO_SUCH_NAME


# --- exact ranges ----------------------------------------------------------------------------


@pytest.mark.parametrize(("dtype", "limit", "lo"), [
    ("f16", 2048, -2048), ("bf16", 256, -256), ("tf32", 2048, -2048), ("e4m3", 16, -16),
    ("e5m2", 8, -8), ("f32", 1 << 24, -(1 << 24)), ("f64", 1 << 53, -(1 << 53)),
    ("s8", 127, -128), ("s4", 7, -8), ("s32", (1 << 31) - 1, -(1 << 31)),
    ("u8", 255, 0), ("u4", 15, 0), ("b1", 1, 0),
])
def test_exact_limit_and_value_range(dtype: str, limit: int, lo: int) -> None:
    assert I.exact_limit(SPEC, dtype) == limit
    assert I.value_range(SPEC, dtype) == (lo, limit)


# --- encodings -------------------------------------------------------------------------------


@pytest.mark.parametrize(("dtype", "value", "bits"), [
    ("f16", 2.0 ** -24, 0x0001),           # smallest subnormal
    ("f16", 2.0 ** -15, 0x0200),           # subnormal, mantissa 512
    ("f16", 1023 * 2.0 ** -24, 0x03FF),    # largest subnormal
    ("f16", 2.0 ** -14, 0x0400),           # smallest normal
    ("f16", 1.5 * 2.0 ** -14, 0x0600),
    ("f16", 65504, 0x7BFF),                # largest finite
    ("e4m3", 2.0 ** -9, 0x01),             # bias 7, 3 mantissa bits: 2**(1-7-3)
    ("e4m3", 3 * 2.0 ** -9, 0x03),
    ("e4m3", 2.0 ** -6, 0x08),
    ("e4m3", 256, 0x78),                   # exponent field 15 is finite in E4M3
    ("e4m3", 416, 0x7D),
    ("e5m2", 2.0 ** -16, 0x01),
    ("e5m2", 57344, 0x7B),
    ("bf16", 2.0 ** -133, 0x0001),
    ("tf32", 2.0 ** -136, 0x00002000),     # 10 mantissa bits over 13 padding bits
    ("f64", 2.0 ** 1000, 0x7E70000000000000),
])
def test_encode_and_decode_subnormals_and_extremes(dtype: str, value: float, bits: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from the branch not taken
        raw = I.encode(SPEC, dtype, [value])
        assert raw.dtype == np.uint64
        assert int(raw[0]) == bits
        back = I.decode(SPEC, dtype, np.array([bits], dtype=np.uint64))
    assert back.dtype == np.float64
    assert float(back[0]) == value


@pytest.mark.parametrize(("dtype", "bits", "want"), [
    ("f16", 0x7C00, np.inf), ("f16", 0xFC00, -np.inf), ("f16", 0x7E00, np.nan),
    ("f16", 0x7C01, np.nan), ("e5m2", 0x7C, np.inf), ("e5m2", 0x7D, np.nan),
    ("e4m3", 0x7F, np.nan), ("e4m3", 0xFF, np.nan), ("e4m3", 0x7E, 448.0), ("e4m3", 0xF8, -256.0),
    ("bf16", 0x7F80, np.inf), ("f64", 0x7FF0000000000000, np.inf),
])
def test_decode_infinities_and_nans(dtype: str, bits: int, want: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the overflowing normal branch is silenced
        got = I.decode(SPEC, dtype, np.array([bits], dtype=np.uint64))
    assert got.dtype == np.float64
    assert np.array_equal(got, np.array([want]), equal_nan=True)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "tf32", "e4m3", "e5m2", "f32", "f64"])
def test_tabled_encodings_are_the_computed_ones(dtype: str) -> None:
    """Integer arrays are encoded from a table of the type's integers (up to I.TABLED_INTEGERS,
    past it computed), and raw words of 16 bits or fewer decoded from a table of every word:
    the bits of the same values given as floats (computed), and, bit for bit, the values of the
    words decoded one at a time (computed), NaNs and signed zeros included."""
    top = min(I.exact_limit(SPEC, dtype), I.TABLED_INTEGERS + 64)
    ints = np.arange(-top, top + 1)
    bits = I.encode(SPEC, dtype, ints)
    assert bits.dtype == np.uint64
    assert np.array_equal(bits, I.encode(SPEC, dtype, ints.astype(np.float64)))
    assert np.array_equal(I.decode(SPEC, dtype, bits), ints)
    width = I.element_bits(SPEC, dtype)
    words = np.arange(0, 1 << min(width, 16), 97, dtype=np.uint64)
    if width <= 16:  # every word tabled: the all-ones words (NaN or the largest), -0
        words = np.concatenate([words, np.array([(1 << width) - 1, (1 << (width - 1)) - 1,
                                                 1 << (width - 1)], dtype=np.uint64)])
    one_at_a_time = np.array([I.decode(SPEC, dtype, w) for w in words])
    assert I.decode(SPEC, dtype, words).view(np.uint64).tolist() == one_at_a_time.view(np.uint64).tolist()


def test_encode_reads_values_of_any_float_width() -> None:
    # float16 inputs are the same numbers: 1.0 and 3.0 in binary32
    raw = I.encode(SPEC, "f32", np.array([1.0, 3.0], dtype=np.float16))
    assert _ints(raw) == [0x3F800000, 0x40400000]


@pytest.mark.parametrize(("dtype", "values", "named"), [
    ("f16", [1.0, np.inf], ("finite",)),
    ("e4m3", [1, 17], ("17.0", "representable")),
    ("f16", [1.0, 2.0 ** -25], ("2.98", "e-08", "representable")),
    ("e4m3", [1, 512], ("512.0", "range")),   # exponent field 16 > 15
    ("e4m3", [1, 480], ("480.0", "range")),   # S.1111.111 is NaN
    ("f16", [1, 65536], ("65536.0", "range")),  # field 31 is inf/NaN
    ("s8", [1, 1.5], ("non-integer",)),
    ("s8", [1, -129], ("[-128, 127]",)),
    ("s4", [8], ("[-8, 7]",)),
    ("u8", [256], ("[0, 255]",)),
    ("u4", [-1], ("[0, 15]",)),
])
def test_encode_refusals_name_the_value(dtype: str, values: list, named: tuple[str, ...]) -> None:
    """The message starts with the type and names the value or the range, and which refusal it
    is (finite, representable, range, non-integer; the wording: messages_oracle_algebra.py's
    interpret.*)."""
    with raises_naming(ValueError, *named) as info:
        I.encode(SPEC, dtype, values)
    assert str(info.value).startswith(f"{dtype}: ")


@pytest.mark.parametrize(("dtype", "values", "bits"), [
    ("s8", [-128, -1, 127], [0x80, 0xFF, 0x7F]), ("s4", [-8, -1, 7], [0x8, 0xF, 0x7]),
    ("u8", [0, 255], [0x00, 0xFF]), ("u4", [15], [0xF]), ("b1", [0, 1], [0, 1]),
    ("s32", [-1], [0xFFFFFFFF]),
])
def test_integer_encodings_are_twos_complement_in_uint64(dtype: str, values: list,
                                                          bits: list) -> None:
    raw = I.encode(SPEC, dtype, values)
    assert raw.dtype == np.uint64
    assert _ints(raw) == bits
    back = I.decode(SPEC, dtype, raw)
    assert back.dtype == np.int64
    assert _ints(back) == values


# --- random exact-integer operands -----------------------------------------------------------


@pytest.mark.parametrize(("dtype", "acc", "k", "want"), [
    ("f16", "f32", 16, (-11, 11)),      # isqrt(2048 // 16) = 11 < 2048
    ("e4m3", "f32", 32, (-8, 8)),       # isqrt(64) = 8 < 16
    ("e5m2", "f16", 16, (-8, 8)),       # isqrt(128) = 11 > 8: the type's own limit
    ("u8", "f16", 16, (0, 11)),         # unsigned: never below 0
    ("s8", "s32", 32, (-128, 127)),     # integer accumulator: the type's whole range
    ("u8", "s32", 32, (0, 255)),
    ("b1", "s32", 256, (0, 1)),
])
def test_operand_range(dtype: str, acc: str, k: int, want: tuple[int, int]) -> None:
    assert I.operand_range(SPEC, dtype, acc, k) == want


@pytest.mark.parametrize(("dtype", "acc", "k", "lo", "hi"), [
    ("e4m3", "f32", 32, -8, 8), ("u8", "s32", 32, 0, 255), ("f16", "f16", 16, -11, 11),
])
def test_random_operand_draws_the_whole_range(dtype: str, acc: str, k: int, lo: int,
                                              hi: int) -> None:
    vals = I.random_operand(SPEC, dtype, (64, 80), np.random.default_rng(7), acc_dtype=acc, k=k)
    assert vals.shape == (64, 80)
    assert vals.dtype == np.int64
    # 5120 uniform draws from at most 256 values: every end is drawn
    assert (int(vals.min()), int(vals.max())) == (lo, hi)


def test_matmul_is_a_times_b_transposed_in_int64() -> None:
    a = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 4.0]])      # M x K, as decoded (float64)
    b = np.array([[2, 0, 1], [1, 1, 1], [0, -3, 5]])         # N x K
    d = I.matmul(a, b)
    assert d.dtype == np.int64
    assert _ints(d) == [[5, 6, 9], [2, 3, 20]]
    d2 = I.matmul(b, a.astype(np.float32))                   # B @ A^T, the float one second
    assert d2.dtype == np.int64
    assert _ints(d2) == [[5, 2], [6, 3], [9, 20]]
    big = I.matmul(np.array([[1 << 40]]), np.array([[(1 << 20) + 1]]))
    assert big.dtype == np.int64
    assert int(big[0, 0]) == (1 << 60) + (1 << 40)


def test_matmul_is_exact_on_both_sides_of_the_float64_bound() -> None:
    """Below K * max|a| * max|b| = 2**53 the product is float64 BLAS, above it int64: both exact
    (a float64 product of these just above the bound would round the sum's lowest bit)."""
    k = 4
    for top in (int(math.isqrt((1 << 53) // k)) - 1, (1 << 27) + 1):
        a = np.full((2, k), top, dtype=np.int64)
        b = np.full((3, k), top, dtype=np.int64)
        b[0, 0] = top - 1
        d = I.matmul(a, b)
        assert d.dtype == np.int64
        want = [[sum(int(x) * int(y) for x, y in zip(ra, rb, strict=True)) for rb in b] for ra in a]
        assert _ints(d) == want
    assert I.matmul(np.zeros((2, 0)), np.zeros((3, 0))).shape == (2, 3)


# --- discovery coding ----------------------------------------------------------------------


@pytest.mark.parametrize(("dtype", "count", "acc", "want"), [
    ("s8", 100, None, (128, 1)),          # 127 + 1 = 128 codes in one digit
    ("s8", 128, None, (128, 1)),
    ("s8", 129, None, (128, 2)),
    ("e5m2", 9, None, (8, 2)),            # 8 holds 9 exact integers 0..8: base 8
    ("e5m2", 64, None, (8, 2)),           # exactly 8**2
    ("e5m2", 4096, None, (8, 4)),         # exactly 8**4
    ("e5m2", 5000, None, (8, 5)),
    ("b1", 1, None, (2, 1)),
    ("b1", 2, None, (2, 1)),
    ("b1", 3, None, (2, 2)),
    ("b1", (1 << 45) + 1, None, (2, 46)),  # one past 2**45: log2 rounds to 45
    ("f16", 5000, "f16", (2048, 2)),      # 2049 exact integers each: base 2048
    ("u8", 5000, "e4m3", (16, 4)),        # the accumulator's 17 integers bind: base 16
    ("bf16", 300, "f32", (256, 2)),
])
def test_digit_plan_is_the_fewest_digits_of_the_largest_base(dtype: str, count: int,
                                                              acc: str | None,
                                                              want: tuple[int, int]) -> None:
    plan = I.digit_plan(SPEC, dtype, count, acc)
    assert (plan.base, plan.digits) == want


def test_digits_and_combine() -> None:
    plan = I.DigitPlan(base=4, digits=3)
    codes = np.array([0, 5, 27, 63])
    # 27 = 1*16 + 2*4 + 3; 63 = 3*16 + 3*4 + 3
    assert _ints(plan.digit(codes, 0)) == [0, 1, 3, 3]
    assert _ints(plan.digit(codes, 1)) == [0, 1, 2, 3]
    assert _ints(plan.digit(codes, 2)) == [0, 0, 1, 3]
    assert plan.digit(codes, 1).dtype == np.int64
    # codes decoded from a float type's image are float64; digits come back int64
    from_float = plan.digit(np.array([27.0, 63.0]), 1)
    assert from_float.dtype == np.int64
    assert _ints(from_float) == [2, 3]
    # digits read back from a float type's image are float64; codes come back int64
    got = plan.combine([np.array([3.0, 1.0]), np.array([2.0, 0.0]), np.array([1.0, 3.0])])
    assert got.dtype == np.int64
    assert _ints(got) == [27, 49]
    one = I.DigitPlan(base=8, digits=1).combine([np.array([[5, 7]])])
    assert one.dtype == np.int64
    assert _ints(one) == [[5, 7]]


def test_accumulator_values_are_int64_codes() -> None:
    # binary32 1.0, 3.0, -2.0; binary16 1.0 and 2048.0; s32 -1
    got = I.accumulator_values(SPEC, "f32", np.array([0x3F800000, 0x40400000, 0xC0000000]))
    assert got.dtype == np.int64
    assert _ints(got) == [1, 3, -2]
    f16 = I.accumulator_values(SPEC, "f16", np.array([[0x3C00, 0x6800]]))
    assert f16.dtype == np.int64
    assert _ints(f16) == [[1, 2048]]
    s32 = I.accumulator_values(SPEC, "s32", np.array([0xFFFFFFFF, 5]))
    assert s32.dtype == np.int64
    assert _ints(s32) == [-1, 5]


@pytest.mark.parametrize(("raw", "at", "held"), [
    ([0x3F800000, 0x3FC00000], "(1,)", "1.5"),
    ([[0x3F800000, 0x7F800000]], "(0, 1)", "inf"),
    ([[0x40000000], [0x7FC00000]], "(1, 0)", "nan"),
])
def test_accumulator_values_refuse_what_is_not_an_integer(raw: list, at: str, held: str) -> None:
    with raises_naming(ValueError, "f32", f"at {at}", held):
        I.accumulator_values(SPEC, "f32", np.array(raw, dtype=np.uint64))


def test_index_image_holds_digit_j_of_each_slot() -> None:
    two = I.DigitPlan(base=2, digits=4)
    # f16: slot i at byte 2i; digit 1 of 0..3 in base 2 is 0,0,1,1 (1.0 = 0x3C00, little-endian)
    assert list(I.index_image(SPEC, "f16", 8, two, 1)) == [0, 0, 0, 0, 0, 0x3C, 0, 0x3C]
    # f16, base 4, digit 0: 0,1,2,3 = 0x0000, 0x3C00, 0x4000, 0x4200
    four = I.DigitPlan(base=4, digits=2)
    assert list(I.index_image(SPEC, "f16", 8, four, 0)) == [0, 0, 0, 0x3C, 0, 0x40, 0, 0x42]
    # 5 bytes hold two whole f16 slots; the last byte stays 0
    assert list(I.index_image(SPEC, "f16", 5, four, 0)) == [0, 0, 0, 0x3C, 0]
    # e4m3: slot i at byte i; 1.0 = 0x38, 2.0 = 0x40, 3.0 = 0x44
    img = I.index_image(SPEC, "e4m3", 4, I.DigitPlan(base=16, digits=1), 0)
    assert img.dtype == np.uint8
    assert list(img) == [0, 0x38, 0x40, 0x44]
    # b1: slot i at bit i % 8 of byte i // 8 (LSB first)
    assert list(I.index_image(SPEC, "b1", 2, two, 0)) == [0xAA, 0xAA]
    assert list(I.index_image(SPEC, "b1", 2, two, 1)) == [0xCC, 0xCC]
    assert list(I.index_image(SPEC, "b1", 2, two, 3)) == [0x00, 0xFF]
    # s4: two slots a byte, the low nibble first
    assert list(I.index_image(SPEC, "s4", 2, I.DigitPlan(base=8, digits=1), 0)) == [0x10, 0x32]


def test_one_hot() -> None:
    assert _ints(I.one_hot(3, 4)) == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    assert I.one_hot(3, 4).dtype == np.int64
    assert _ints(I.one_hot(3, 4, 2)) == [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]]
    assert _ints(I.one_hot(3, 4, -1)) == [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]
    assert _ints(I.one_hot(2, 3, 1)) == [[0, 1, 0], [0, 0, 1]]


def test_map_lines() -> None:
    cells = np.array([[[0, 0], [0, 1], [8, 0]], [[1, 0], [1, 1], [9, 10]]])
    assert I.map_lines(cells) == ["lane 0: 0,0 0,1 8,0", "lane 1: 1,0 1,1 9,10"]


def test_subelement_bits() -> None:
    assert I.subelement_bits(16) == 16
    assert I.subelement_bits(4, SPEC) == 4
    with raises_naming(ValueError, "3-bit", "32-bit"):
        I.subelement_bits(3)
    # a spec whose registers are 64 bits wide (every fragment row holds twice the elements)
    wide = wide_registers(SPEC)
    assert I.subelement_bits(64, wide) == 64
    with raises_naming(ValueError, "48-bit", "64-bit"):
        I.subelement_bits(48, wide)


# --- round trips (moved from test_gpu_cases.py) ----------------------------------------------

DTYPES = ["f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "f32", "s32", "f64", "s4",
          "u4"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_encode_round_trips(dtype: str) -> None:
    lo, hi = I.value_range(SPEC, dtype)
    v = np.arange(max(lo, -4096), min(hi, 4096) + 1)
    assert np.array_equal(I.decode(SPEC, dtype, I.encode(SPEC, dtype, v)), v)


@pytest.mark.parametrize(("dtype", "value", "bits"), [
    ("f16", 1, 0x3C00), ("f16", -2, 0xC000), ("bf16", 1, 0x3F80), ("tf32", 3, 0x40400000),
    ("e4m3", 1, 0x38), ("e4m3", 448, 0x7E), ("e5m2", 1, 0x3C), ("e5m2", -8, 0xC8),
    ("s8", -1, 0xFF), ("s4", -1, 0xF), ("f64", 1, 0x3FF0000000000000),
])
def test_encode_known_bits(dtype: str, value: int, bits: int) -> None:
    """Pinned against IEEE 754 / OCP FP8 bit patterns (numpy agrees for f16/f32/f64)."""
    assert int(I.encode(SPEC, dtype, [value])[0]) == bits


@pytest.mark.parametrize(("dtype", "value"), [("e4m3", 17), ("e4m3", 480), ("e5m2", 9),
                                              ("bf16", 257), ("s8", 128), ("u8", -1)])
def test_encode_refuses_inexact(dtype: str, value: int) -> None:
    with pytest.raises(ValueError, match="is not exactly representable|is out of range|values outside"):
        I.encode(SPEC, dtype, [value])


def test_digits_round_trip() -> None:
    for dtype in ("e5m2", "b1", "bf16", "s8"):
        plan = I.digit_plan(SPEC, dtype, 5000, "f16")
        codes = np.arange(5000)
        digits = [plan.digit(codes, j) for j in range(plan.digits)]
        assert max(int(d.max()) for d in digits) <= I.exact_limit(SPEC, dtype)
        I.encode(SPEC, dtype, digits[0])  # every digit is exact in the type
        assert np.array_equal(plan.combine(digits), codes)


def test_diff_names_coordinates() -> None:
    exp = np.arange(16).reshape(4, 4)
    act = exp.copy()
    act[1, 2] = 99
    act[3, 0] = 98
    d = I.diff_grid("x", exp, act, axes=("m", "n"))
    assert (d.mismatches, d.first, d.last) == (2, (1, 2), (3, 0))
    assert "(m 1, n 2): expected 6, got 99" in d.message()
    assert "6/99*" in d.details()["window"]
