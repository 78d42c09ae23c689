"""Host arrays laid out for one copy to the device (`ptxconf.gpu.arena.Arena`): every part
starts aligned, keeps its bytes, and the padding between parts is zero."""

from __future__ import annotations

import numpy as np

from ptxconf.gpu.arena import ALIGN_BYTES, Arena


def test_arena_parts_start_aligned_and_keep_their_bytes() -> None:
    arena = Arena()
    parts = [np.arange(n, dtype=dt) for n, dt in ((3, np.uint8), (5, np.uint64),
                                                   (7, np.uint32), (0, np.uint32))]
    offsets = [arena.add(p) for p in parts]
    filled = arena.fill(5, 0xAB)
    last = arena.add(np.full(3, 7, np.uint8))
    host = arena.host()
    assert all(at % ALIGN_BYTES == 0 for at in [*offsets, filled, last])
    for at, p in zip(offsets, parts, strict=True):
        assert host[at:at + p.nbytes].tobytes() == p.tobytes()
    assert host[filled:last].tobytes() == b"\xab" * 5 + bytes(last - filled - 5)
    assert host[last:].tobytes() == b"\x07" * 3
