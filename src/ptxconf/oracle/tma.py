"""The TMA write side: where a tensor copy (cp.async.bulk.tensor) puts each element of a box in
shared memory, and what a wgmma descriptor then reads.

Every number comes from spec rows: the PTX ISA's swizzling modes (spec/tma/swizzling_modes.yaml:
the 16-byte cell, the printed pattern, the 128-byte line of the base-offset formula), the
driver's CUtensorMapSwizzle and box requirements (tma/tensor_map_swizzle.yaml,
tma/tensor_map_limits.yaml) and the PTX ISA's bounding box (tma/bounding_box.yaml).

A mode's swizzle is *derived*: Swizzle<B,M,S> with 2**B the lines its pattern has before it
repeats, 2**M the cell and 2**(M+S) the line. A box is written densely, row after row (its
inner dimension contiguous, rows inner-bytes apart: PTX 5.5 treats shared memory as linear),
and the swizzle acts on the absolute shared-memory byte address, so a destination off the
pattern's repeat starts the pattern at the phase its address bits give (the PTX ISA's
"swizzle base offset" (dstMem / 128) % N). The reader is the oracle's wgmma read map under the
readings silicon showed (ptxconf.oracle.explain.readmap): what wgmma reads where, composed with
the write's inverse, is a permutation of the tile, the identity exactly where the two agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptxconf.oracle import hypotheses
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.banks import CORE_ROWS
from ptxconf.oracle.canonical import BITS_PER_BYTE, NORMALIZED_BITS
from ptxconf.oracle.records import (
    CanonicalLayout,
    SwizzleAtom,
    TensorMapSwizzle,
    TmaRequirement,
    TmaSwizzleMode,
    atom_name,
)
from ptxconf.oracle.spec import Spec

MODES_FILE = "tma/swizzling_modes.yaml"
#: Where a row of requirements lives: (file, id).
BOX_DIM = ("tma/tensor_map_limits.yaml", "boxDim")
BOX_INNER = ("tma/tensor_map_limits.yaml", "boxDim0_bytes")
GLOBAL_ADDRESS = ("tma/tensor_map_limits.yaml", "globalAddress")
GLOBAL_STRIDES = ("tma/tensor_map_limits.yaml", "globalStrides")
BOX_SIZE = ("tma/bounding_box.yaml", "box_size")
BOX_ADDRESS = ("tma/bounding_box.yaml", "box_address")
#: Bytes of wgmma's 128-bit normalized element: Table 38 counts atoms in these.
U128_BYTES = NORMALIZED_BITS // BITS_PER_BYTE


class TmaError(ValueError):
    """A box or tensor map the documents do not allow: `CODE - message`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code} - {message}")
        self.code = code
        self.message = message


# --- the modes, from their rows ---------------------------------------------------------------


def mode_row(spec: Spec, swizzle: str) -> TmaSwizzleMode:
    """The PTX ISA's row of a swizzling mode (TmaError TMA-SWIZZLE if there is none)."""
    for row in spec.of(TmaSwizzleMode):
        if row.swizzle == swizzle:
            return row
    known = ", ".join(r.swizzle for r in spec.of(TmaSwizzleMode))
    raise TmaError("TMA-SWIZZLE", f"expected a swizzle mode one of {known}, got {swizzle!r}")


def enum_row(spec: Spec, swizzle: str) -> TensorMapSwizzle:
    """The driver's CUtensorMapSwizzle enumerator of a mode."""
    for row in spec.of(TensorMapSwizzle):
        if row.swizzle == swizzle:
            return row
    raise TmaError("TMA-SWIZZLE", f"no CUtensorMapSwizzle enumerator names mode {swizzle!r}")


def requirement(spec: Spec, where: tuple[str, str]) -> TmaRequirement:
    """A requirement row by (file, id)."""
    found = [r for r in spec.in_file(TmaRequirement, where[0]) if r.id == where[1]]
    if len(found) != 1:
        raise KeyError(f"{where[0]}: {len(found)} rows with id {where[1]!r}")
    return found[0]


def pattern_lines(row: TmaSwizzleMode) -> list[list[int]]:
    """The printed pattern, one list of cells a line (ValueError if a line is not 8 cells)."""
    lines = [[int(t) for t in text.split()] for text in row.pattern]
    if not lines or any(len(line) != len(lines[0]) for line in lines):
        raise ValueError(f"{row.key}: pattern lines of unequal length: {row.pattern}")
    return lines


def _log2(value: int, what: str) -> int:
    if value <= 0 or value & (value - 1):
        raise ValueError(f"{what} = {value} is not a power of two")
    return value.bit_length() - 1


def derived_swizzle(row: TmaSwizzleMode) -> Swizzle:
    """A mode's Swizzle<B,M,S> on byte addresses: 2**B = the lines its pattern prints before it
    repeats (distinct lines), 2**M = its cell, 2**(M+S) = its line; Swizzle<0,0,0> (the
    identity) for a pattern of one line."""
    distinct = len({tuple(line) for line in pattern_lines(row)})
    bits = _log2(distinct, f"{row.key}: distinct pattern lines")
    if bits == 0:
        return Swizzle(0, 0, 0)
    if row.cell_bytes is None or row.line_bytes is None:
        raise ValueError(f"{row.key}: a swizzling pattern needs cell_bytes and line_bytes")
    base = _log2(row.cell_bytes, f"{row.key}: cell_bytes")
    return Swizzle(bits, base, _log2(row.line_bytes, f"{row.key}: line_bytes") - base)


def swizzle_of(spec: Spec, swizzle: str) -> Swizzle:
    """The derived swizzle of a mode (made once a spec)."""
    return spec.memo(("tma_swizzle", swizzle), lambda: derived_swizzle(mode_row(spec, swizzle)))


def same_function(a: Swizzle, b: Swizzle) -> bool:
    """Whether two swizzles are the same map (every B = 0 swizzle is the identity)."""
    return a == b or (a.bits == 0 and b.bits == 0)


def printed_table(swz: Swizzle, lines: int, cells: int) -> list[list[int]]:
    """The pattern table a swizzle gives: the cell number at each position of each line (the
    cell a position holds; a XOR swizzle is its own inverse, so either reading)."""
    if swz.bits == 0:
        return [list(range(cells)) for _ in range(lines)]
    cell = 1 << swz.base
    line = cell << swz.shift
    return [[swz(i * line + p * cell) % line // cell for p in range(cells)] for i in range(lines)]


def phase_bytes(spec: Spec, swizzle: str, base: int) -> int:
    """Where in its repeat the pattern starts for a destination at `base` (0: on the repeat)."""
    row = mode_row(spec, swizzle)
    return 0 if row.repeat_bytes is None else base % row.repeat_bytes


def base_offset(spec: Spec, swizzle: str, base: int) -> int:
    """The PTX ISA's swizzle base offset of a destination: (dstMem / line) % modulus."""
    row = mode_row(spec, swizzle)
    if row.line_bytes is None or row.base_offset_modulus is None:
        return 0
    return (base // row.line_bytes) % row.base_offset_modulus


# --- a box -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Box:
    """A 2-D TMA box: rows x cols elements (cols the inner, contiguous dimension) of dtype,
    written with a swizzle mode to shared memory at byte address `base`."""

    swizzle: str
    dtype: str
    rows: int
    cols: int
    base: int
    elem_bytes: int
    #: Bytes from one box row to the next in shared memory: the inner bytes without a swizzle,
    #: the swizzle's span with one (`row_pitch_bytes`).
    pitch_bytes: int

    @property
    def inner_bytes(self) -> int:
        """Bytes of one box row (boxDim[0] * elementSize)."""
        return self.cols * self.elem_bytes

    @property
    def size_bytes(self) -> int:
        """Bytes of shared memory the box spans (rows x pitch)."""
        return self.rows * self.pitch_bytes

    def describe(self) -> str:
        """E.g. `64x64 bf16 box, 128B swizzle, at 0x400`."""
        return (f"{self.rows}x{self.cols} {self.dtype} box (inner {self.inner_bytes} B, rows "
                f"{self.pitch_bytes} B apart), "
                f"{self.swizzle} swizzle, at {self.base:#x}")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"swizzle": self.swizzle, "dtype": self.dtype, "rows": self.rows,
                "cols": self.cols, "base": self.base, "inner_bytes": self.inner_bytes,
                "pitch_bytes": self.pitch_bytes}


def element_bytes(spec: Spec, dtype: str) -> int:
    """Bytes an element of dtype takes (TmaError for an unknown or sub-byte type)."""
    from ptxconf.oracle.facts import element_types

    if dtype not in element_types(spec):
        raise TmaError("TMA-DTYPE", f"expected dtype one of {', '.join(element_types(spec))}, "
                       f"got {dtype!r}")
    bits = spec.element_bits(dtype)
    if bits % BITS_PER_BYTE:
        raise TmaError("TMA-DTYPE", f"{dtype} is {bits}-bit: a tensor map's element types are "
                       "whole bytes (the packed 4- and 6-bit types are not modelled)")
    return bits // BITS_PER_BYTE


def box(spec: Spec, swizzle: str, dtype: str, rows: int, cols: int, base: int = 0) -> Box:
    """A box the documents allow, or TmaError naming the rule it breaks."""
    mode_row(spec, swizzle)
    e = element_bytes(spec, dtype)
    dim = requirement(spec, BOX_DIM)
    if dim.max_elems is None:
        raise ValueError(f"{dim.key}: no max_elems")
    for name, n in (("rows", rows), ("cols", cols)):
        if not 1 <= n <= dim.max_elems:
            raise TmaError("TMA-BOX-DIM", f"box {name} = {n}: each box dimension must be 1 to "
                           f"{dim.max_elems} elements ({dim.key})")
    granule = requirement(spec, BOX_INNER).multiple_bytes or 1
    inner = cols * e
    if inner % granule:
        raise TmaError("TMA-BOX-INNER", f"the box's inner dimension is {cols} x {e} B = {inner} "
                       f"B, not a multiple of {granule} B ({BOX_INNER[0][:-5]}:{BOX_INNER[1]})")
    limit = enum_row(spec, swizzle).max_inner_box_bytes
    if limit is not None and inner > limit:
        raise TmaError("TMA-BOX-SPAN", f"the box's inner dimension is {inner} B, more than the "
                       f"{limit} B the {swizzle} swizzle allows ({enum_row(spec, swizzle).key})")
    align = requirement(spec, BOX_ADDRESS).alignment_bytes or 1
    if base < 0 or base % align:
        raise TmaError("TMA-SMEM-ALIGN", f"the box's shared-memory address {base:#x} is not "
                       f"{align}-byte aligned ({BOX_ADDRESS[0][:-5]}:{BOX_ADDRESS[1]})")
    return Box(swizzle, dtype, rows, cols, base, e, row_pitch_bytes(spec, swizzle, inner))


def row_pitch_bytes(spec: Spec, swizzle: str, inner_bytes: int) -> int:
    """Bytes between box rows in shared memory: the inner bytes without a swizzle; with one,
    the span the driver names ("Swizzle 16B chunks within 32B span": a row takes its span
    whatever its width). Measured on an H100: a 16-B wide box row in the 32B, 64B and 128B
    modes lands 32, 64 and 128 B after the one before it (the dense reading, rows `inner`
    apart, wrote past the window)."""
    span = enum_row(spec, swizzle).max_inner_box_bytes
    return inner_bytes if span is None else span


def write_address(spec: Spec, b: Box, row: int, col: int, reading: str | None = None) -> int:
    """Where TMA puts box element (row, col): the swizzle of base + row * pitch + col * e (the
    documented reading of hypotheses.TMA_SWIZZLE_BASE; "relative": base + the swizzle of
    row * pitch + col * e)."""
    offset = row * b.pitch_bytes + col * b.elem_bytes
    swz = swizzle_of(spec, b.swizzle)
    if reading_of(reading) == "relative":
        return b.base + swz(offset)
    return swz(b.base + offset)


def reading_of(reading: str | None) -> str:
    """A reading of hypotheses.TMA_SWIZZLE_BASE (None: the documented one)."""
    return hypotheses.reading(hypotheses.TMA_SWIZZLE_BASE, reading)


def write_addresses(spec: Spec, b: Box, reading: str | None = None) -> np.ndarray:
    """`write_address` of every element, [rows, cols] int64 (NumPy, the same formula)."""
    swz = swizzle_of(spec, b.swizzle)
    r, c = np.meshgrid(np.arange(b.rows, dtype=np.int64), np.arange(b.cols, dtype=np.int64),
                       indexing="ij")
    offset = r * b.pitch_bytes + c * b.elem_bytes
    relative = reading_of(reading) == "relative"
    x = offset if relative else b.base + offset
    out: np.ndarray = x ^ ((x >> swz.shift) & swz.zzz_mask)
    return out + b.base if relative else out


# --- the pairing table's cells ------------------------------------------------------------------

#: The classes of destination a pairing cell is proved for (ptxconf.oracle.proofs.tma_writes):
#: on every repeat; off the reader's repeat with the base-offset field per the PTX ISA's rule;
#: off it with the field 0.
ALIGNED, OFF_RULE, OFF_ZERO = "aligned", "off_rule", "off_zero"


def pairing_classes(read_swizzle: str) -> tuple[str, ...]:
    """The destination classes of a reader (without a swizzle the field is not used)."""
    return (ALIGNED, OFF_ZERO) if read_swizzle == "none" else (ALIGNED, OFF_RULE, OFF_ZERO)


def writable(spec: Spec, write_swizzle: str, read_swizzle: str, major: str = "K") -> bool:
    """Whether one box of the write mode holds a row of the reader's canonical layout."""
    limit = enum_row(spec, write_swizzle).max_inner_box_bytes
    return limit is None or read_pitch(spec, major, read_swizzle) <= limit


def base_class(spec: Spec, base: int, read_swizzle: str, field: int) -> str | None:
    """The pairing class of a line-aligned destination and a descriptor's base-offset field
    (None: one no cell covers: inside a line, on the reader's repeat but not on every repeat,
    or a field neither 0 nor the rule's)."""
    rows = spec.of(TmaSwizzleMode)
    repeats = [m.repeat_bytes for m in rows if m.repeat_bytes]
    lines = [m.line_bytes for m in rows if m.line_bytes]
    if not repeats or not lines or base % max(lines):
        return None
    if base % max(repeats) == 0:
        return ALIGNED if field == 0 else None
    own = mode_row(spec, read_swizzle)
    if own.repeat_bytes and base % own.repeat_bytes == 0:
        return None
    if field == 0:
        return OFF_ZERO
    if own.base_offset_modulus and own.line_bytes and read_swizzle != "none":
        return OFF_RULE
    return None


# --- the write composed with a read ------------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    """What a wgmma read map finds in a TMA-written box: for each operand element (mn, k) the
    box element at the address it reads ((-1, -1): an address TMA did not write an element at).
    `major` says which box dimension is K: K-major, the inner one (box (row, col) = (mn, k))."""

    box: Box
    major: str
    read: np.ndarray
    found: np.ndarray

    @property
    def identity(self) -> bool:
        """Whether wgmma reads every element where TMA put it."""
        return bool((self.found == self.expected()).all())

    def expected(self) -> np.ndarray:
        """(mn, k) of every operand element: the identity's answer."""
        mn, k = self.read.shape
        i, j = np.meshgrid(np.arange(mn), np.arange(k), indexing="ij")
        return np.stack([i, j], axis=-1)

    def moved(self) -> list[tuple[tuple[int, int], tuple[int, int] | None, int]]:
        """Every element read elsewhere: ((mn, k), the element found or None, the address)."""
        wrong = (self.found != self.expected()).any(axis=-1)
        out = []
        for i, j in zip(*np.nonzero(wrong), strict=True):
            f = (int(self.found[i, j, 0]), int(self.found[i, j, 1]))
            out.append(((int(i), int(j)), None if f[0] < 0 else f, int(self.read[i, j])))
        return out

    def as_dict(self, limit: int = 16) -> dict[str, Any]:
        """JSON-ready: the verdict and the first `limit` moved elements."""
        moved = self.moved()
        return {"identity": self.identity, "moved_count": len(moved),
                "moved": [{"mn": p[0], "k": p[1], "address": hex(a),
                           "holds": None if f is None else {"mn": f[0], "k": f[1]}}
                          for p, f, a in moved[:limit]]}


@dataclass(frozen=True)
class Cell:
    """One cell of the pairing table: the write mode, the reader, the class of destination."""

    write: TmaSwizzleMode
    read: CanonicalLayout
    base_class: str

    @property
    def key(self) -> str:
        """`<write row>~<reader row>.<class>` (proof.tma_pairing's and gpu.tma_pairing's key)."""
        return f"{self.write.key}~{self.read.key}.{self.base_class}"


def cells(spec: Spec) -> Iterator[Cell]:
    """Every writable (W, R) pair, K-major readers, with its classes of destination."""
    for r in spec.of(CanonicalLayout):
        if r.major != "K":
            continue
        for w in spec.of(TmaSwizzleMode):
            if writable(spec, w.swizzle, r.swizzle):
                for c in pairing_classes(r.swizzle):
                    yield Cell(w, r, c)


def operand_coords(b: Box, major: str) -> tuple[int, int]:
    """The operand extents (mn, k) a box holds: K-major, K is the inner dimension."""
    return (b.rows, b.cols) if major == "K" else (b.cols, b.rows)


def compose(spec: Spec, b: Box, major: str, read: np.ndarray) -> Pairing:
    """The box element each read address holds (`read`: absolute addresses [mn, k]; where TMA
    wrote two elements at one address, the later in (row, col) order)."""
    written = write_addresses(spec, b)
    found = np.full((*read.shape, 2), -1, dtype=np.int64)
    if read.ndim == 2 and read.dtype.kind == written.dtype.kind == "i" and written.size:
        # every read address at once: the written addresses sorted (stably, so the last of
        # equal ones is the one written last), each read address's last match found by bisection
        flat = written.ravel()
        order = np.argsort(flat, kind="stable")
        keys = flat[order]
        at = np.maximum(np.searchsorted(keys, read, side="right") - 1, 0)
        hit = keys[at] == read
        r, c = np.divmod(order[at], written.shape[1])
        found[hit] = np.stack((r, c) if major == "K" else (c, r), axis=-1)[hit]
        return Pairing(b, major, read, found)
    where = {int(a): (r, c) for (r, c), a in np.ndenumerate(written)}
    for (i, j), a in np.ndenumerate(read):
        hit_at = where.get(int(a))
        if hit_at is not None:
            found[i, j] = hit_at if major == "K" else hit_at[::-1]
    return Pairing(b, major, read, found)


def read_pitch(spec: Spec, major: str, swizzle: str) -> int:
    """Bytes between the rows of wgmma's canonical layout in a mode: its atom's leading extent
    (Table 38, in 16-byte units): the box inner width a descriptor of that mode reads."""
    return atom_row(spec, major, swizzle).leading_u128 * U128_BYTES


def atom_row(spec: Spec, major: str, swizzle: str) -> SwizzleAtom:
    """Table 38's row of a major-ness and mode."""
    return spec.get(SwizzleAtom, atom_name(major, swizzle))


def packed_offsets(spec: Spec, b: Box, major: str, swizzle: str) -> tuple[int, int]:
    """(LBO, SBO) in bytes of the canonical layout of `swizzle` for a box written densely at
    that mode's pitch: 8 rows a core-matrix group (SBO along the box rows), the next group of
    columns one box further (rows x pitch; LBO; the K-major swizzled LBO is not used and
    takes its assumed 16 B)."""
    pitch = read_pitch(spec, major, swizzle)
    group = CORE_ROWS * pitch
    next_box = b.rows * pitch
    if swizzle == "none":
        return (next_box, group) if major == "K" else (group, next_box)
    return (U128_BYTES, group) if major == "K" else (next_box, group)


__all__ = ["Cell", "cells", "ALIGNED", "OFF_RULE", "OFF_ZERO", "base_class", "pairing_classes", "writable",
           "BOX_ADDRESS", "BOX_DIM", "BOX_INNER", "BOX_SIZE", "GLOBAL_ADDRESS", "GLOBAL_STRIDES",
           "MODES_FILE", "U128_BYTES", "Box", "Pairing", "TmaError", "atom_row", "base_offset",
           "box", "compose", "derived_swizzle", "element_bytes", "enum_row", "mode_row",
           "operand_coords", "packed_offsets", "pattern_lines", "phase_bytes", "printed_table",
           "read_pitch", "reading_of", "requirement", "row_pitch_bytes", "same_function",
           "swizzle_of", "write_address",
           "write_addresses"]
