"""Host arrays laid out for one copy to the device (`Arena`): each part starts on an
ALIGN_BYTES boundary, so that a probe call's every input (and its outputs' first values) go
over in one copy and its outputs come back in one (`ptxconf.gpu.probes`' wgmma staging), not a
few small copies a grid. Pure host code (NumPy); the caller makes the one copy.

    arena = Arena()
    at = arena.add(table)             # its byte offset
    out_at = arena.fill(nbytes, 0xFF)  # bytes of one value
    host = arena.host()               # uint8, padding zero
"""

from __future__ import annotations

import numpy as np

#: Where each part starts: the largest alignment a probe kernel reads.
ALIGN_BYTES = 256


class Arena:
    """Parts placed one after another, each on an ALIGN_BYTES boundary."""

    def __init__(self) -> None:
        #: (offset, bytes, an array or the byte that fills them)
        self.parts: list[tuple[int, int, np.ndarray | int]] = []
        self.size = 0

    def add(self, arr: np.ndarray) -> int:
        """Place `arr` (C-contiguous); its byte offset in the arena."""
        return self._place(np.ascontiguousarray(arr), arr.nbytes)

    def fill(self, nbytes: int, byte: int) -> int:
        """Place `nbytes` bytes of `byte`; their offset."""
        return self._place(byte, nbytes)

    def _place(self, part: np.ndarray | int, nbytes: int) -> int:
        at = -(-self.size // ALIGN_BYTES) * ALIGN_BYTES
        self.parts.append((at, nbytes, part))
        self.size = at + nbytes
        return at

    def into(self, out: np.ndarray) -> None:
        """Write the arena's bytes into `out` (uint8, at least `size` long, zeroed)."""
        for at, nbytes, part in self.parts:
            if isinstance(part, np.ndarray):
                out[at:at + nbytes] = part.reshape(-1).view(np.uint8)
            elif part:
                out[at:at + nbytes] = part

    def host(self) -> np.ndarray:
        """The arena's bytes (uint8), padding zero."""
        out = np.zeros(max(self.size, 1), dtype=np.uint8)
        self.into(out)
        return out


__all__ = ["ALIGN_BYTES", "Arena"]
