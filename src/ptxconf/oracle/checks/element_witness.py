"""Element types against their names and against independent float decoders.

* `element_type.name`: PTX names each fundamental type by its kind and width (PTX ISA 5.2.1:
  `.s` signed integer, `.u` unsigned integer, `.b` untyped bits, `.f` / `.bf` / `.tf`
  floating point, followed by the width: `.s8`, `.bf16`); the FP8 types name their exponent
  and mantissa widths instead (`.e4m3`, `.e5m2`). A row's `kind` and widths agree with its id.
* `element_type.float_witness`: the spec's float encoding (oracle.interpret.decode, built from
  the row's exponent, mantissa, padding and finite_only columns) decodes every bit pattern of
  an 8- or 16-bit type, and a spread of patterns of a wider one (every exponent, both signs,
  the extreme mantissas), as an independent decoder does: numpy's IEEE 754 binary16/32/64 for
  .f16/.f32/.f64; .bf16 as the high half of a binary32, .tf32 as a binary32 container with its
  low 13 bits zero (PTX ISA 5.2.5), .e5m2 as the high byte of a binary16 (OCP OFP8 v1.0: E5M2
  follows IEEE 754 conventions); .e4m3 by OCP OFP8 v1.0's table (bias 7, no infinities,
  S.1111.111 its only NaN).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial

import numpy as np

from ptxconf.oracle import interpret
from ptxconf.oracle.checks.base import Case, expect_equal, fail, make_case
from ptxconf.oracle.records import ElementType
from ptxconf.oracle.spec import Spec

#: PTX's type-specifier prefixes and the kind each names.
PREFIX_KIND = {"s": "signed", "u": "unsigned", "b": "bits", "f": "float", "bf": "float",
               "tf": "float"}
_WIDTH_NAME = re.compile(r"(?P<prefix>[a-z]+?)(?P<width>\d+)")
_FP8_NAME = re.compile(r"e(?P<exp>\d+)m(?P<man>\d+)")


def _as(raw: np.ndarray, shift: int, uint: type, flt: type) -> np.ndarray:
    """Bits placed `shift` up in a wider unsigned word, read as an IEEE float."""
    word: np.ndarray = (raw.astype(np.uint64) << np.uint64(shift)).astype(uint)
    with np.errstate(invalid="ignore"):  # signalling NaNs widen to quiet ones
        return word.view(flt).astype(np.float64)


def _e4m3(raw: np.ndarray) -> np.ndarray:
    """OCP OFP8 v1.0 E4M3: bias 7, subnormals at exponent 0, no infinities, NaN = S.1111.111."""
    r = raw.astype(np.int64)
    sign = np.where(r & 0x80, -1.0, 1.0)
    e, m = (r >> 3) & 0xF, r & 0x7
    val = np.where(e > 0, np.ldexp(1 + m / 8, e - 7), np.ldexp(m / 8, -6))
    return np.where((e == 0xF) & (m == 0x7), np.nan, sign * val)


#: An independent decoder per float type: raw bits (uint64) -> values (float64).
WITNESSES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "f16": partial(_as, shift=0, uint=np.uint16, flt=np.float16),
    "f32": partial(_as, shift=0, uint=np.uint32, flt=np.float32),
    "f64": partial(_as, shift=0, uint=np.uint64, flt=np.float64),
    "bf16": partial(_as, shift=16, uint=np.uint32, flt=np.float32),
    "tf32": lambda raw: _as(raw & np.uint64(~0x1FFF & 0xFFFFFFFF), 0, np.uint32, np.float32),
    "e5m2": partial(_as, shift=8, uint=np.uint16, flt=np.float16),
    "e4m3": _e4m3,
}


def cases(spec: Spec) -> Iterator[Case]:
    """A name case per element type; a witness case per float type with a witness."""
    for row in spec.of(ElementType):
        yield make_case("element_type.name", row.key, partial(_name, row))
        if row.kind == "float" and row.id in WITNESSES:
            yield make_case("element_type.float_witness", row.key, partial(_witness, spec, row))


def _name(row: ElementType) -> str:
    """The kind and widths the type's PTX name spells."""
    fp8 = _FP8_NAME.fullmatch(row.id)
    if fp8 is not None:
        expect_equal(f"{row.id}: kind", row.kind, "float", source=row.key, witness="its name")
        expect_equal(f"{row.id}: exponent_bits", row.exponent_bits, int(fp8["exp"]),
                     source=row.key, witness="its name")
        expect_equal(f"{row.id}: mantissa_bits", row.mantissa_bits, int(fp8["man"]),
                     source=row.key, witness="its name")
        return f"{row.id}: float, E{fp8['exp']}M{fp8['man']}"
    named = _WIDTH_NAME.fullmatch(row.id)
    if named is None or named["prefix"] not in PREFIX_KIND:
        raise fail(f"{row.id}: not a PTX type name (.s/.u/.b/.f/.bf/.tf + width, or .eXmY)")
    expect_equal(f"{row.id}: kind", row.kind, PREFIX_KIND[named["prefix"]], source=row.key,
                 witness=f"its prefix .{named['prefix']}")
    expect_equal(f"{row.id}: width_bits", row.width_bits, int(named["width"]), source=row.key,
                 witness="its name")
    return f"{row.id}: {row.kind}, {row.width_bits} bits"


def patterns(width: int) -> np.ndarray:
    """Every pattern of a type of at most 16 bits; else every exponent (the 11 bits under the
    sign) with the extreme and middle mantissas, both signs."""
    if width <= 16:
        return np.arange(1 << width, dtype=np.uint64)
    top = np.arange(1 << 12, dtype=np.uint64) << np.uint64(width - 12)
    low = np.array([0, 1, 1 << (width - 13), (1 << (width - 12)) - 1], dtype=np.uint64)
    return (top[:, None] | low[None, :]).ravel()


def _witness(spec: Spec, row: ElementType) -> str:
    """interpret.decode agrees with the witness decoder on every pattern tried."""
    raw = patterns(row.width_bits)
    ours, theirs = interpret.decode(spec, row.id, raw), WITNESSES[row.id](raw)
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    if not same.all():
        bad = int(np.argmin(same))
        raise fail(f"{row.id}: {int(raw[bad]):#x} decodes to {ours[bad]!r} by the spec's "
                   f"encoding, {theirs[bad]!r} by the witness decoder",
                   raw=int(raw[bad]), spec_value=float(ours[bad]), witness=float(theirs[bad]))
    return f"{row.id}: {raw.size} patterns decode as the witness decodes them"
