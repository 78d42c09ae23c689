"""The TMA write probes, from the spec: what to run and what the shared memory should then hold.

One `TmaWrite` is one tensor copy: a 2-D box of `rows` x `cols` elements of `elem_bytes` bytes
(cols the inner dimension, the whole global tensor: its rows packed, stride = inner bytes),
written with one swizzling mode to dynamic shared memory at `dst_offset`. For every mode of
spec/tma/swizzling_modes.yaml and every whole-byte element size the spec's element types have,
the plan takes every inner width the driver allows in that mode (16-byte steps up to the
enumerator's limit; without a swizzle, a few widths up to the boxDim limit), enough rows to
cover the largest swizzle repeat twice, and two destinations: on every repeat, and one 128-byte
line past it (where the pattern starts at its line-1 phase). The host fills the window with
FILL_BYTE, the tensor with seeded random bytes, and predicts the window after the copy from
ptxconf.oracle.tma.write_addresses at the window's absolute address.

Pure: no CuPy, no device.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ptxconf.oracle import tma
from ptxconf.oracle.facts import element_types
from ptxconf.oracle.records import TmaSwizzleMode
from ptxconf.oracle.spec import Spec

#: The byte the window holds where nothing was written (the kernel fills the window with it).
FILL_BYTE = 0xA5
#: The kernel's name and its block (one thread issues; all copy the window out).
KERNEL = "tma_write_probe"
THREADS = 128
#: Widths probed without a swizzle (no span limits them), bytes.
UNSWIZZLED_WIDTHS_BYTES = (16, 48, 128, 256)


@dataclass(frozen=True)
class TmaWrite:
    """One tensor copy the probe runs."""

    swizzle: str
    code: int
    enumerator: str
    dtype: str
    elem_bytes: int
    rows: int
    cols: int
    dst_offset: int
    #: Bytes between box rows in shared memory (ptxconf.oracle.tma.row_pitch_bytes).
    pitch_bytes: int

    @property
    def inner_bytes(self) -> int:
        """Bytes of a box row."""
        return self.cols * self.elem_bytes

    @property
    def box_bytes(self) -> int:
        """Bytes the copy moves (the mbarrier's transaction count)."""
        return self.rows * self.inner_bytes

    def window_bytes(self, repeat_bytes: int) -> int:
        """Dynamic shared memory the probe fills and dumps: the destination, the rows at their
        pitch and a repeat after (every swizzled byte stays in its repeat block)."""
        return -(-(self.dst_offset + self.rows * self.pitch_bytes) // repeat_bytes) \
            * repeat_bytes + repeat_bytes

    @property
    def label(self) -> str:
        """E.g. `128B u16 64x64 at +0x80`."""
        return f"{self.swizzle} {self.elem_bytes}-B {self.rows}x{self.cols} at +{self.dst_offset:#x}"


def sizes(spec: Spec) -> list[tuple[int, str]]:
    """(bytes, a dtype of that width) for every whole-byte element width the spec has."""
    out: dict[int, str] = {}
    for t in element_types(spec):
        bits = spec.element_bits(t)
        if bits % 8 == 0:
            out.setdefault(bits // 8, t)
    return sorted(out.items())


def largest_repeat(spec: Spec) -> int:
    """The largest swizzle repeat of the modes (bytes)."""
    return max(r.repeat_bytes or 0 for r in spec.of(TmaSwizzleMode))


def writes(spec: Spec, row: TmaSwizzleMode, elem_bytes: int, dtype: str) -> tuple[TmaWrite, ...]:
    """The copies of one mode and element size (each box checked by `tma.box`)."""
    enum = tma.enum_row(spec, row.swizzle)
    granule = tma.requirement(spec, tma.BOX_INNER).multiple_bytes or 1
    dim = tma.requirement(spec, tma.BOX_DIM).max_elems or 1
    limit = enum.max_inner_box_bytes
    widths = (range(granule, limit + 1, granule) if limit is not None
              else [w for w in UNSWIZZLED_WIDTHS_BYTES if w <= dim * elem_bytes])
    repeat = largest_repeat(spec)
    lines = [m.line_bytes for m in spec.of(TmaSwizzleMode) if m.line_bytes]
    out = []
    for width in widths:
        rows = min(dim, max(8, 2 * repeat // width))
        for offset in (0, max(lines)):
            b = tma.box(spec, row.swizzle, dtype, rows, width // elem_bytes, offset)
            out.append(TmaWrite(row.swizzle, enum.code, enum.id, dtype, elem_bytes, b.rows, b.cols,
                                offset, b.pitch_bytes))
    return tuple(out)


def tensor_bytes(w: TmaWrite) -> np.ndarray:
    """uint8 [rows, inner bytes]: the global tensor, seeded random bytes (by the copy's label)."""
    rng = np.random.default_rng(zlib.crc32(w.label.encode()))
    return rng.integers(0, 256, size=(w.rows, w.inner_bytes), dtype=np.uint8)


def predicted_window(spec: Spec, w: TmaWrite, window_address: int, data: np.ndarray,
                     window_bytes: int, reading: str | None = None,
                     fill: int = FILL_BYTE) -> np.ndarray:
    """uint8 [window_bytes]: the window after the copy, per the oracle (under a reading of
    hypotheses.TMA_SWIZZLE_BASE; None: the documented one), for a window whose first byte is at
    shared-memory address `window_address` and that held `fill` before it."""
    b = tma.box(spec, w.swizzle, w.dtype, w.rows, w.cols, window_address + w.dst_offset)
    at = tma.write_addresses(spec, b, reading) - window_address
    if int(at.min()) < 0 or int(at.max()) + w.elem_bytes > window_bytes:
        raise ValueError(f"{w.label}: the oracle writes [{int(at.min()):#x}, {int(at.max()):#x}] "
                         f"of a {window_bytes}-B window at {window_address:#x}")
    out = np.full(window_bytes, fill, dtype=np.uint8)
    for byte in range(w.elem_bytes):
        out[(at + byte).ravel()] = data.reshape(w.rows, w.cols, w.elem_bytes)[:, :, byte].ravel()
    return out


def source() -> str:
    """The probe module's source (kernels/tma_probe.cu, the kernel reads nothing else)."""
    from importlib import resources

    return resources.files("ptxconf.gpu.kernels").joinpath("tma_probe.cu").read_text(
        encoding="utf-8")


__all__ = ["FILL_BYTE", "KERNEL", "THREADS", "TmaWrite", "largest_repeat", "predicted_window",
           "sizes", "source", "tensor_bytes", "writes"]
