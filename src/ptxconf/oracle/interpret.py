"""Probe inputs and dump interpretation: everything the host knows, nothing the kernel knows.

Pure (numpy and the oracle; no GPU, no I/O). The GPU side hands back raw 32-bit register words
and raw memory bytes; this module says what to put in, and what came out means:

* element encodings: exact integers as raw bits of every operand and accumulator type;
* random exact-integer operands (values the type and the accumulator represent exactly);
* shared-memory offsets from `ptxconf.oracle.canonical` (widened to whole template repeats),
  compact LBO/SBO for an operand, and placing a logical matrix into bytes by those offsets;
* register fragments from `ptxconf.oracle.fragments` as tables, matrices to registers and back;
* discovery coding: an index written in digits a type holds exactly, one-hot operands, and
  decoding the digits back;
* the host reference matmul; diff tables in the layout's own coordinates are
  `ptxconf.oracle.diffs` (re-exported here).

It stays one module (past 500 lines) because it is one model: a probe's inputs and the reading
of its dump must agree bit for bit, and the emulator (`conformance/emulator.py`) and every GPU
family use the two halves together.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptxconf.oracle import canonical, facts
from ptxconf.oracle.descriptor import descriptor_format

# re-exported: the probe code reads diffs through this module (I.Diff, I.diff_grid, ...)
from ptxconf.oracle.diffs import Diff as Diff
from ptxconf.oracle.diffs import diff_grid as diff_grid
from ptxconf.oracle.diffs import fingerprint as fingerprint
from ptxconf.oracle.diffs import hex_fmt as hex_fmt
from ptxconf.oracle.diffs import int_fmt as int_fmt
from ptxconf.oracle.fragments import fragment_array
from ptxconf.oracle.records import ElementType, atom_name
from ptxconf.oracle.spec import Spec, default_spec
from ptxconf.oracle.wmma import element_offset_elems

BITS_PER_BYTE = canonical.BITS_PER_BYTE


def __getattr__(name: str) -> Any:
    """`REGISTER_BITS`, for callers that have no spec in scope: the bundled spec's register
    width (`facts.register_bits`, from wgmma/register_fragments.yaml)."""
    if name == "REGISTER_BITS":
        return facts.register_bits(default_spec())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- element encodings -----------------------------------------------------------------------

# The float formats (exponent and mantissa widths, finite-only E4M3) are spec columns of
# wgmma/element_types.yaml, read through `facts.float_format`.
#: The largest power of two up to which integer sums in each accumulator stay exact in the
#: probes: below the accumulator's own precision, and below the ~13-bit alignment window
#: reported for FP8 tensor-core accumulation, so integer partial sums are exact in any order.
EXACT_SUM_LIMIT = 2048


def element_bits(spec: Spec, dtype: str) -> int:
    """Width in bits (spec/wgmma/element_types.yaml)."""
    return spec.element_bits(dtype)


def element_kind(spec: Spec, dtype: str) -> str:
    """'float', 'signed', 'unsigned' or 'bits'."""
    return spec.get(ElementType, dtype).kind


def exact_limit(spec: Spec, dtype: str) -> int:
    """The largest L such that every integer in [0, L] is exactly representable."""
    kind, bits = element_kind(spec, dtype), element_bits(spec, dtype)
    if kind == "float":
        return 1 << (facts.float_format(spec, dtype).mantissa_bits + 1)
    if kind == "signed":
        return (1 << (bits - 1)) - 1
    return (1 << bits) - 1


def value_range(spec: Spec, dtype: str) -> tuple[int, int]:
    """The integers [lo, hi] a type holds exactly (floats: symmetric)."""
    kind, bits = element_kind(spec, dtype), element_bits(spec, dtype)
    hi = exact_limit(spec, dtype)
    if kind == "float":
        return -hi, hi
    if kind == "signed":
        return -(1 << (bits - 1)), hi
    return 0, hi


def _float_encode(values: np.ndarray, dtype: str, width: int,
                  fmt: facts.FloatFormat) -> np.ndarray:
    exp_bits, man_bits = fmt.exponent_bits, fmt.mantissa_bits
    bias = (1 << (exp_bits - 1)) - 1
    v = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{dtype}: only finite values are encoded")
    sign = np.signbit(v).astype(np.uint64)
    a = np.abs(v)
    mant, exp = np.frexp(a)  # a = mant * 2**exp, mant in [0.5, 1)
    biased = exp.astype(np.int64) - 1 + bias
    normal = (biased >= 1) & (a > 0)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.where(normal, (mant * 2 - 1) * (1 << man_bits),
                          np.ldexp(a, bias - 1 + man_bits))
    if not np.all(scaled == np.round(scaled)):
        bad = v.flat[int(np.argmax((scaled != np.round(scaled)).ravel()))]
        raise ValueError(f"{dtype}: {bad!r} is not exactly representable")
    man = np.round(scaled).astype(np.uint64)
    field_exp = np.where(normal, biased, 0).astype(np.int64)
    top = (1 << exp_bits) - 1
    over = field_exp > top if fmt.finite_only else field_exp >= top
    if fmt.finite_only:
        over |= (field_exp == top) & (man == (1 << man_bits) - 1)
    if np.any(over):
        raise ValueError(f"{dtype}: {v.flat[int(np.argmax(over.ravel()))]!r} is out of range")
    pad = width - 1 - exp_bits - man_bits
    bits: np.ndarray = ((sign << np.uint64(width - 1)) | (field_exp.astype(np.uint64)
                        << np.uint64(width - 1 - exp_bits)) | (man << np.uint64(pad)))
    return bits


def _float_decode(raw: np.ndarray, dtype: str, width: int,
                  fmt: facts.FloatFormat) -> np.ndarray:
    exp_bits, man_bits = fmt.exponent_bits, fmt.mantissa_bits
    bias = (1 << (exp_bits - 1)) - 1
    r = np.asarray(raw, dtype=np.uint64)
    pad = width - 1 - exp_bits - man_bits
    man = ((r >> np.uint64(pad)) & np.uint64((1 << man_bits) - 1)).astype(np.float64)
    e = ((r >> np.uint64(width - 1 - exp_bits)) & np.uint64((1 << exp_bits) - 1)).astype(np.int64)
    sign = np.where((r >> np.uint64(width - 1)) & np.uint64(1), -1.0, 1.0)
    normal = e > 0
    with np.errstate(over="ignore"):
        val = np.where(normal, np.ldexp(1 + man / (1 << man_bits), e - bias),
                       np.ldexp(man / (1 << man_bits), 1 - bias))
    top = (1 << exp_bits) - 1
    if fmt.finite_only:
        special = (e == top) & (man == (1 << man_bits) - 1)
        val = np.where(special, np.nan, val)
    else:
        val = np.where(e == top, np.where(man == 0, np.inf, np.nan), val)
    return sign * val


#: The largest |integer| a float type's encodings are tabled for (`_tables`).
TABLED_INTEGERS = 4096


@functools.lru_cache(maxsize=64)
def _tables(width: int, fmt: facts.FloatFormat) -> tuple[np.ndarray | None, int, np.ndarray | None]:
    """(the bits of the integers -L..L, L, the value of every raw word) of a float format, each
    made by _float_encode / _float_decode (None where it would be too big, or an integer in
    range does not encode): encode and decode look values up elementwise in them."""
    lim = min(1 << (fmt.mantissa_bits + 1), TABLED_INTEGERS)
    try:
        ints = _float_encode(np.arange(-lim, lim + 1), "", width, fmt)
    except ValueError:
        ints = None
    words = (_float_decode(np.arange(1 << width, dtype=np.uint64), "", width, fmt)
             if width <= 16 else None)
    return ints, lim, words


def encode(spec: Spec, dtype: str, values: np.ndarray | Sequence[int] | int) -> np.ndarray:
    """Raw bits (uint64) of exact values in a type; ValueError where a value does not fit."""
    kind, bits = element_kind(spec, dtype), element_bits(spec, dtype)
    v = np.asarray(values)
    if kind == "float":
        fmt = facts.float_format(spec, dtype)
        if v.dtype.kind in "iu" and v.ndim and v.size:  # integers: looked up where tabled
            ints, lim, _ = _tables(bits, fmt)
            if ints is not None and -lim <= v.min() and v.max() <= lim:
                found: np.ndarray = ints[v.astype(np.int64) + lim]
                return found
        return _float_encode(v, dtype, bits, fmt)
    iv = v.astype(np.int64)
    if not np.array_equal(iv, v):
        raise ValueError(f"{dtype}: non-integer values")
    lo = -(1 << (bits - 1)) if kind == "signed" else 0
    hi = (1 << (bits - 1)) - 1 if kind == "signed" else (1 << bits) - 1
    if iv.size and (iv.min() < lo or iv.max() > hi):
        raise ValueError(f"{dtype}: values outside [{lo}, {hi}]")
    return (iv & ((1 << bits) - 1)).astype(np.uint64)


def decode(spec: Spec, dtype: str, raw: np.ndarray) -> np.ndarray:
    """Values (float64 for floats, int64 otherwise) of raw bits in a type."""
    kind, bits = element_kind(spec, dtype), element_bits(spec, dtype)
    r = np.asarray(raw).astype(np.uint64) & np.uint64((1 << bits) - 1)
    if kind == "float":
        fmt = facts.float_format(spec, dtype)
        words = _tables(bits, fmt)[2] if r.ndim else None
        return words[r] if words is not None else _float_decode(r, dtype, bits, fmt)
    iv = r.astype(np.int64)
    if kind == "signed":
        iv = np.where(iv >= 1 << (bits - 1), iv - (1 << bits), iv)
    return iv


# --- random exact-integer operands -------------------------------------------------------------


def operand_range(spec: Spec, dtype: str, acc_dtype: str, k: int) -> tuple[int, int]:
    """[lo, hi] for random operands of a K-deep product so that every sum is exact.

    Integer accumulators take the operand type's whole range; float accumulators keep
    K * max|a| * max|b| within EXACT_SUM_LIMIT.
    """
    lo, hi = value_range(spec, dtype)
    if element_kind(spec, acc_dtype) != "float":
        return lo, hi
    m = min(hi, math.isqrt(EXACT_SUM_LIMIT // k))
    return max(lo, -m), m


def random_operand(spec: Spec, dtype: str, shape: tuple[int, int], rng: np.random.Generator,
                   *, acc_dtype: str, k: int) -> np.ndarray:
    """int64 values of an operand, uniformly drawn from `operand_range`."""
    lo, hi = operand_range(spec, dtype, acc_dtype, k)
    return rng.integers(lo, hi + 1, size=shape, dtype=np.int64)


#: Integers up to 2**53 are exact in float64: a product whose every partial sum stays below it
#: is computed exactly by float64 BLAS, whatever order it adds in.
_FLOAT64_EXACT = 1 << 53


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The host reference D = A @ B^T in int64 (A is M x K, B is N x K, as wgmma reads them).

    Exact: where K * max|A| * max|B| < 2**53 (every operand `random_operand` draws) the product
    goes through float64 BLAS, whose every partial sum is then an exact integer; otherwise
    NumPy's int64 loop, which is many times slower."""
    a64 = np.asarray(a, dtype=np.int64)
    b64 = np.asarray(b, dtype=np.int64)
    if a64.size and b64.size:
        bound = int(np.abs(a64).max()) * int(np.abs(b64).max()) * a64.shape[-1]
        if bound < _FLOAT64_EXACT:
            return (a64.astype(np.float64) @ b64.astype(np.float64).T).astype(np.int64)
    return a64 @ b64.T


# --- shared-memory layouts from the oracle -----------------------------------------------------


@dataclass(frozen=True)
class OperandLayout:
    """A wgmma operand in shared memory: what `canonical.smem_offsets` is asked."""

    dtype: str
    major: str
    swizzle: str
    mn: int
    k: int
    lbo_bytes: int
    sbo_bytes: int
    base_offset_bytes: int = 0
    swizzle_unit: str | None = None
    mn_lbo_sbo_roles: str | None = None

    @property
    def atom(self) -> str:
        """K_SW128 and so on (the canonical-layout row id)."""
        return atom_name(self.major, self.swizzle)

    def reproduce(self) -> str:
        """The CLI call that prints these offsets (documented readings only)."""
        cmd = (f"ptxconf oracle smem-offsets --dtype {self.dtype} --major {self.major} "
               f"--swizzle {self.swizzle} --mn {self.mn} --k {self.k} --lbo {self.lbo_bytes} "
               f"--sbo {self.sbo_bytes}")
        if self.base_offset_bytes:
            cmd += f" --base-offset {self.base_offset_bytes}"
        return cmd + " --json"


def address_units(spec: Spec, dtype: str) -> str:
    """'bytes', or 'bits' for sub-byte elements (as smem_offsets reports)."""
    return canonical.address_units(element_bits(spec, dtype))


def _widened(spec: Spec, dtype: str, major: str, swizzle: str, mn: int,
             k: int) -> tuple[int, int]:
    row = canonical.canonical_row(spec, major, swizzle)
    per_mn, per_k = canonical.repeat_extents(row, canonical.t_elems(spec, dtype))
    return -(-mn // per_mn) * per_mn, -(-k // per_k) * per_k


def offsets(spec: Spec, lay: OperandLayout) -> np.ndarray:
    """int64 [mn, k]: where the tensor core reads element (mn, k), from the operand start, in
    address units (bytes; bits for b1). The oracle is asked for whole repeats of the template
    and the first mn x k are kept. Cached with the spec."""
    def make() -> np.ndarray:
        mn_q, k_q = _widened(spec, lay.dtype, lay.major, lay.swizzle, lay.mn, lay.k)
        q = canonical.SmemQuery(
            dtype=lay.dtype, major=lay.major, swizzle=lay.swizzle, mn=mn_q, k=k_q,
            lbo_bytes=lay.lbo_bytes, sbo_bytes=lay.sbo_bytes,
            base_offset_bytes=lay.base_offset_bytes,
            swizzle_unit=lay.swizzle_unit or "bytes",
            mn_lbo_sbo_roles=lay.mn_lbo_sbo_roles or "as_documented")
        full = canonical.smem_offsets_array(spec, q)
        arr = np.ascontiguousarray(full[: lay.mn, : lay.k])
        arr.setflags(write=False)
        return arr

    return spec.memo(("offsets", lay), make)


def stride_granule_bytes(spec: Spec) -> int:
    """The descriptor's LBO/SBO granule (the field stores value >> shift), which is also the
    value a field that is "not used, assumed to be 1" is given."""
    return 1 << descriptor_format(spec).field("leading_byte_offset").encode_shift_bits


def stride_steps(spec: Spec, dtype: str, major: str, swizzle: str, mn: int,
                 k: int) -> tuple[int, int, int]:
    """(LBO steps, SBO steps, bytes one repeat spans) of an mn x k operand.

    The template is instantiated with unit LBO/SBO to learn how many steps of each the operand
    takes (1: the field is not used); one repeat spans the layout's cosize with LBO = SBO = 0,
    rounded up to the swizzle's period.
    """
    row = canonical.canonical_row(spec, major, swizzle)
    t = canonical.t_elems(spec, dtype)
    bits = element_bits(spec, dtype)
    mn_q, k_q = _widened(spec, dtype, major, swizzle, mn, k)
    m, kk = canonical.repeats_for(row, t, mn_q, k_q)
    corner = (mn_q - 1, k_q - 1)
    base = canonical.instantiate(row, t, m, kk, 0, 0)
    n_lbo = canonical.instantiate(row, t, m, kk, 1, 0)(corner) - base(corner) + 1
    n_sbo = canonical.instantiate(row, t, m, kk, 0, 1)(corner) - base(corner) + 1
    period = max(canonical.row_swizzle(row).period(), stride_granule_bytes(spec))
    span = -(-(base.cosize() * bits) // (period * BITS_PER_BYTE)) * period
    return n_lbo, n_sbo, span


def compact_strides(spec: Spec, dtype: str, major: str, swizzle: str, mn: int,
                    k: int) -> tuple[int, int]:
    """(lbo_bytes, sbo_bytes) that pack an mn x k operand without gaps between repeats.

    SBO is the inner step (one repeat) and LBO the outer one; a field the layout does not use
    gets the "assumed 1" value (16 B).
    """
    def make() -> tuple[int, int]:
        n_lbo, n_sbo, span = stride_steps(spec, dtype, major, swizzle, mn, k)
        granule = stride_granule_bytes(spec)
        sbo = span if n_sbo > 1 else granule
        lbo = span * (n_sbo if n_sbo > 1 else 1) if n_lbo > 1 else granule
        return lbo, sbo

    return spec.memo(("compact_strides", dtype, major, swizzle, mn, k), make)


def separated_strides(spec: Spec, dtype: str, major: str, swizzle: str, mn: int,
                      k: int) -> tuple[int, int]:
    """(lbo_bytes, sbo_bytes) far enough apart that swapping the two fields' roles still
    places every element at an address of its own: LBO one repeat, SBO past every step of
    either (i * LBO + j * SBO and i * SBO + j * LBO are then distinct for i, j below both
    step counts)."""
    n_lbo, n_sbo, span = stride_steps(spec, dtype, major, swizzle, mn, k)
    return span, span * max(n_lbo, n_sbo)


def offsets_injective(offs: np.ndarray) -> bool:
    """Whether no two elements share an address."""
    flat = np.asarray(offs, dtype=np.int64).ravel()
    if flat.size == 0:
        return True
    return int(np.bincount(flat - flat.min()).max()) <= 1


def footprint_bytes(offs: np.ndarray, bits: int) -> int:
    """Bytes from the operand start up to the last element's last byte."""
    if offs.size == 0:
        return 0
    last = int(offs.max())
    if bits < BITS_PER_BYTE:
        return last // BITS_PER_BYTE + 1
    return last + bits // BITS_PER_BYTE


def place(raw: np.ndarray, offs: np.ndarray, bits: int, size_bytes: int | None = None,
          image: np.ndarray | None = None) -> np.ndarray:
    """uint8 image with each element's raw bits at its offset (bytes; bits for sub-byte types).

    Multi-byte elements are little-endian; a sub-byte element at bit offset o is bit o % 8 (LSB
    first) of byte o // 8. Unplaced bytes are 0, or those of `image` when given.
    """
    size = footprint_bytes(offs, bits) if size_bytes is None else size_bytes
    out = np.zeros(size, dtype=np.uint8) if image is None else image.copy()
    r = np.asarray(raw, dtype=np.uint64).ravel()
    o = np.asarray(offs, dtype=np.int64).ravel()
    if bits >= BITS_PER_BYTE:
        for byte in range(bits // BITS_PER_BYTE):
            out[o + byte] = ((r >> np.uint64(8 * byte)) & np.uint64(0xFF)).astype(np.uint8)
        return out
    mask = np.uint8((1 << bits) - 1)
    pos, shift = o // BITS_PER_BYTE, (o % BITS_PER_BYTE).astype(np.uint8)
    np.bitwise_and.at(out, pos, ~(mask << shift))
    np.bitwise_or.at(out, pos, ((r & np.uint64(mask)).astype(np.uint8) << shift))
    return out


def gather(image: np.ndarray | bytes, offs: np.ndarray, bits: int) -> np.ndarray:
    """The raw bits (uint64) at each offset: the inverse of `place`."""
    img = np.frombuffer(image, dtype=np.uint8) if isinstance(image, bytes | bytearray) else image
    o = np.asarray(offs, dtype=np.int64)
    if bits >= BITS_PER_BYTE:
        out = np.zeros(o.shape, dtype=np.uint64)
        for byte in range(bits // BITS_PER_BYTE):
            out |= img[o + byte].astype(np.uint64) << np.uint64(8 * byte)
        return out
    return ((img[o // BITS_PER_BYTE] >> (o % BITS_PER_BYTE).astype(np.uint8))
            & np.uint8((1 << bits) - 1)).astype(np.uint64)


# --- register fragments --------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _fragment_table(instr: str, operand: str, spec_id: int) -> np.ndarray:
    spec = _SPECS[spec_id]

    return fragment_array(instr, operand, spec)


_SPECS: dict[int, Spec] = {}


def fragment_table(spec: Spec, instr: str, operand: str) -> np.ndarray:
    """int64 [entries, 5]: (thread, register, subelement, row, col) from the oracle. Cached."""
    _SPECS[id(spec)] = spec
    return _fragment_table(instr, operand, id(spec))


def subelement_bits(elem_bits: int, spec: Spec | None = None) -> int:
    """How many bits of a register (`facts.register_bits`) one subelement takes."""
    register_bits = facts.register_bits(spec or default_spec())
    if register_bits % elem_bits:
        raise ValueError(f"{elem_bits}-bit elements do not pack a {register_bits}-bit register")
    return elem_bits


def regs_from_matrix(raw: np.ndarray, table: np.ndarray, threads: int, nreg: int,
                     elem_bits: int) -> np.ndarray:
    """uint32 [threads, nreg]: each (thread, register, subelement) filled with the raw bits of
    its (row, col), subelement s at bits [s * bits, (s + 1) * bits) (low to high)."""
    t, r, s, i, j = (table[:, c] for c in range(5))
    vals = np.asarray(raw, dtype=np.uint64)[i, j] & np.uint64((1 << elem_bits) - 1)
    words = np.zeros((threads, nreg), dtype=np.uint64)
    np.bitwise_or.at(words, (t, r), vals << (s * elem_bits).astype(np.uint64))
    return words.astype(np.uint32)


def register_slots(regs: np.ndarray, elem_bits: int, spec: Spec | None = None) -> np.ndarray:
    """uint64 [threads, nreg, register bits / bits]: the raw subelements of every register."""
    spec = spec or default_spec()
    per = facts.register_bits(spec) // subelement_bits(elem_bits, spec)
    w = np.asarray(regs, dtype=np.uint64)[..., None]
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(elem_bits))
    return (w >> shifts) & np.uint64((1 << elem_bits) - 1)


def matrix_from_regs(regs: np.ndarray, table: np.ndarray, shape: tuple[int, int],
                     elem_bits: int, spec: Spec | None = None) -> np.ndarray:
    """uint64 [rows, cols]: the raw bits each (row, col) has in the registers, by the table."""
    slots = register_slots(regs, elem_bits, spec)
    t, r, s, i, j = (table[:, c] for c in range(5))
    out = np.zeros(shape, dtype=np.uint64)
    out[i, j] = slots[t, r, s]
    return out


# --- discovery coding ----------------------------------------------------------------------


@dataclass(frozen=True)
class DigitPlan:
    """An index written as `digits` digits of `base`; each digit is a value the operand type
    and the accumulator both hold exactly."""

    base: int
    digits: int

    def digit(self, codes: np.ndarray, j: int) -> np.ndarray:
        """The j-th digit (least significant first) of each code."""
        digit: np.ndarray = (np.asarray(codes, dtype=np.int64) // self.base ** j) % self.base
        return digit

    def combine(self, digits: Sequence[np.ndarray]) -> np.ndarray:
        """Codes from their digits (least significant first)."""
        out = np.zeros(np.shape(digits[0]), dtype=np.int64)
        for j, d in enumerate(digits):
            out += np.asarray(d, dtype=np.int64) * self.base ** j
        return out


def digit_plan(spec: Spec, dtype: str, count: int, acc_dtype: str | None = None) -> DigitPlan:
    """Digits of a base that `dtype` (and the accumulator, when given) hold exactly, enough
    for `count` distinct codes."""
    base = exact_limit(spec, dtype) + 1
    if acc_dtype is not None:
        base = min(base, exact_limit(spec, acc_dtype) + 1)
    base = 1 << (base.bit_length() - 1)  # a power of two: digits are bit fields of the code
    digits = max(1, math.ceil(math.log(max(count, 2), base) - 1e-12))
    while base ** digits < count:
        digits += 1
    return DigitPlan(base, digits)


def index_image(spec: Spec, dtype: str, size_bytes: int, plan: DigitPlan, j: int) -> np.ndarray:
    """uint8 [size_bytes]: element slot i (in address units / element) holds digit j of i."""
    bits = element_bits(spec, dtype)
    count = size_bytes * BITS_PER_BYTE // bits
    slots = np.arange(count, dtype=np.int64)
    raw = encode(spec, dtype, plan.digit(slots, j))
    unit = bits if bits < BITS_PER_BYTE else bits // BITS_PER_BYTE
    offs = slots * unit
    return place(raw, offs, bits, size_bytes)


def slot_to_offset(slots: np.ndarray, bits: int) -> np.ndarray:
    """Element slot index -> offset in address units (bytes; bits for sub-byte types)."""
    return np.asarray(slots, dtype=np.int64) * (bits if bits < BITS_PER_BYTE
                                               else bits // BITS_PER_BYTE)


def one_hot(rows: int, k: int, shift: int = 0) -> np.ndarray:
    """int64 [rows, k]: 1 where column == row + shift."""
    out = np.zeros((rows, k), dtype=np.int64)
    r = np.arange(rows)
    c = r + shift
    ok = (c >= 0) & (c < k)
    out[r[ok], c[ok]] = 1
    return out


def accumulator_values(spec: Spec, acc_dtype: str, raw: np.ndarray) -> np.ndarray:
    """Decoded accumulator values as int64; ValueError if one is not an integer."""
    vals = decode(spec, acc_dtype, raw)
    if vals.dtype.kind == "f":
        bad = ~np.isfinite(vals) | (vals != np.round(vals))
        if np.any(bad):
            idx = tuple(int(x) for x in np.argwhere(bad)[0])
            raise ValueError(f"accumulator {acc_dtype} at {idx} holds {vals[idx]!r}, not an "
                             "integer code")
        return vals.astype(np.int64)
    return vals


# --- wmma ----------------------------------------------------------------------------------


def wmma_element_offsets(rows: int, cols: int, layout: str, ld: int, bits: int) -> np.ndarray:
    """int64 [rows, cols]: offset of (row, col) from the pointer in address units (bytes; bits
    for sub-byte types), with stride `ld` elements (oracle.wmma.element_offset_elems)."""

    idx = np.array([[element_offset_elems(r, c, layout, ld) for c in range(cols)]
                    for r in range(rows)], dtype=np.int64)
    return slot_to_offset(idx, bits)


def wmma_span_elems(rows: int, cols: int, layout: str, ld: int) -> int:
    """Elements from the pointer to one past the last element of the matrix."""
    lead = rows if layout == "row" else cols
    inner = cols if layout == "row" else rows
    return (lead - 1) * ld + inner


def wmma_slot_bits(fragment_bytes: int, num_elements: int, elem_bits: int) -> int:
    """The bits each element of a wmma fragment occupies: its own width, or more where the
    fragment's storage gives each element more (tf32 in a float: one element per 4 bytes).
    ValueError where the elements cannot all fit the fragment."""
    room = fragment_bytes * BITS_PER_BYTE
    if elem_bits * num_elements > room:
        raise ValueError(f"{num_elements} elements of {elem_bits} bits do not fit a "
                         f"{fragment_bytes}-byte fragment")
    return max(elem_bits, room // num_elements)


def wmma_fragment_slots(words: np.ndarray, num_elements: int, fragment_bytes: int,
                        elem_bits: int) -> np.ndarray:
    """uint64 [lanes, num_elements]: element e of a lane's fragment, read from its raw words.

    `fragment.x` is laid out as bytes (words little-endian); element e sits in the low
    `elem_bits` bits of slot e, a slot being `wmma_slot_bits` wide (8-bit and wider elements:
    from byte e * slot / 8), so a 64-bit element spans two words. Sub-byte fragments pack
    num_elements elements into fragment_bytes.
    """
    w = np.asarray(words, dtype=np.uint32)
    raw = w.astype("<u4").view(np.uint8).reshape(w.shape[0], -1)[:, :fragment_bytes]
    slot = wmma_slot_bits(fragment_bytes, num_elements, elem_bits)
    out = np.zeros((w.shape[0], num_elements), dtype=np.uint64)
    for e in range(num_elements):
        bit0 = e * slot
        if elem_bits >= BITS_PER_BYTE:
            for b in range(elem_bits // BITS_PER_BYTE):
                out[:, e] |= raw[:, bit0 // 8 + b].astype(np.uint64) << np.uint64(8 * b)
        else:
            out[:, e] = (raw[:, bit0 // 8] >> np.uint8(bit0 % 8)) & np.uint8((1 << elem_bits) - 1)
    return out


def wmma_fill_words(raw: np.ndarray, fragment_bytes: int, elem_bits: int,
                    words: int) -> np.ndarray:
    """uint32 [lanes, words]: fragment words holding raw [lanes, num_elements] (inverse of
    `wmma_fragment_slots` for 8-bit and wider elements; the rest of a wider slot is zero)."""
    r = np.asarray(raw, dtype=np.uint64)
    lanes, num = r.shape
    slot = wmma_slot_bits(fragment_bytes, num, elem_bits)
    buf = np.zeros((lanes, words * 4), dtype=np.uint8)
    for e in range(num):
        for b in range(elem_bits // BITS_PER_BYTE):
            buf[:, e * slot // 8 + b] = ((r[:, e] >> np.uint64(8 * b)) & np.uint64(0xFF))
    return buf.view("<u4").reshape(lanes, words).astype(np.uint32)


def map_lines(lane_cells: np.ndarray) -> list[str]:
    """A fragment map [lanes, elements, 2] as one compact line per lane: 'lane 0: 0,0 0,1 ...'."""
    out = []
    for lane, cells in enumerate(np.asarray(lane_cells)):
        out.append(f"lane {lane}: " + " ".join(f"{int(r)},{int(c)}" for r, c in cells))
    return out
