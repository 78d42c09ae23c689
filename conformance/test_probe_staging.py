"""A wgmma probe call's staging (`ptxconf.gpu.probes._run_staged`): however many probes, grids
and variants one call holds, its inputs go to the device in one copy and its outputs come
back in one, and each probe gets what it would get launched alone.

CuPy and the kernel are stood in for here: the stand-in kernel reads a block's row of the
table, its image, its A words and its accumulator words through the pointers it is given, as
the real kernel (kernels/wgmma_probe.cu) does, and writes a digest of them as the block's
registers, so an input or output placed at a wrong offset shows as a wrong dump."""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest
from emulator import SPEC

from ptxconf.gpu import build, probes
from ptxconf.gpu.variants import wgmma_families

_BASE = 0x400  # the stand-in's shared-memory base address


class _DeviceArray(np.ndarray):
    """A stand-in device array: NumPy memory with CuPy's `get`."""

    def get(self) -> np.ndarray:
        return np.array(self)


class _Kernel:
    """The probe kernel's reads and writes, per block, in NumPy (one per variant)."""

    def __init__(self, variant: Any, launches: list[int]) -> None:
        self.variant, self.launches = variant, launches
        self.max_dynamic_shared_size_bytes = 0

    def __call__(self, grid: tuple[int], block: tuple[int], args: tuple[Any, ...],
                 shared_mem: int) -> None:
        images, table, shift, lsb, a_regs, c_init, d_out, info = args
        n, threads, nd, na = grid[0], block[0], self.variant.nreg_d, self.variant.nreg_a
        rows = np.asarray(table[:n * 64]).view(np.uint64).reshape(n, 8)
        out = np.asarray(d_out[:n * threads * nd * 4]).view(np.uint32).reshape(n, threads, nd)
        inf = np.asarray(info[:n * 24]).view(np.uint64).reshape(n, 3)
        for b, row in enumerate(rows):
            first, count = int(row[0]) * 16, int(row[1]) * 16
            assert count <= shared_mem, "a block's image must fit the grid's shared memory"
            image = np.asarray(images[first:first + count]).view(np.uint32)
            a = (np.asarray(a_regs[int(row[6]) * 4:(int(row[6]) + threads * na) * 4])
                 .view(np.uint32).reshape(threads, na) if na else np.zeros((threads, 1), np.uint32))
            c = (np.asarray(c_init[b * threads * nd * 4:(b + 1) * threads * nd * 4])
                 .view(np.uint32).reshape(threads, nd) if row[7] else 0)
            out[b] = (np.resize(image, (threads, nd)) * np.uint32(3) + a[:, :1] + c
                      + np.uint32(int(row[2]) + 7 * int(row[3])))
            start = lambda at: (((_BASE + at) >> int(shift)) << int(lsb))  # noqa: E731
            inf[b] = (_BASE, int(row[4]) + start(int(row[2])), int(row[5]) + start(int(row[3])))
        self.launches.append(n)


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """CuPy and the kernels stood in for; what was copied to the device, and each grid."""
    seen: dict[str, list[int]] = {"uploads": [], "downloads": [], "grids": []}

    def asarray(host: np.ndarray) -> _DeviceArray:
        seen["uploads"].append(host.nbytes)
        return np.array(host).view(_DeviceArray)

    def get(self: _DeviceArray) -> np.ndarray:
        seen["downloads"].append(self.nbytes)
        return np.array(self)

    monkeypatch.setattr(_DeviceArray, "get", get)
    stream = types.SimpleNamespace(synchronize=lambda: None)
    event = types.SimpleNamespace(record=lambda stream: None, synchronize=lambda: None)
    fake = types.SimpleNamespace(asarray=asarray, cuda=types.SimpleNamespace(
        get_current_stream=lambda: stream, Event=lambda: event,  # the timing (gpu.busy)
        get_elapsed_time=lambda start, end: 0.0))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(build, "wgmma_kernels",
                        lambda vs: {v: _Kernel(v, seen["grids"]) for v in vs})
    return seen


def _launch(variant: Any, seed: int, image_bytes: int, c: bool) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    threads = variant.facts.warpgroup_threads
    return dict(
        a_smem=None if variant.a_from_regs else rng.bytes(image_bytes),
        b_smem=rng.bytes(image_bytes // 2), a_desc_rel=None if variant.a_from_regs else seed,
        b_desc_rel=2 * seed, smem_b_offset_bytes=16 * (seed % 3),
        a_regs=(rng.integers(0, 2**32, (threads, variant.nreg_a), dtype=np.uint32)
                if variant.a_from_regs else None),
        c_init=rng.integers(0, 2**32, (threads, variant.nreg_d), dtype=np.uint32) if c else None,
        desc_start_shift=4, desc_start_lsb=0)


def _same(one: probes.WgmmaDump, other: probes.WgmmaDump) -> bool:
    return (np.array_equal(one.regs, other.regs)
            and (one.smem_base_address, one.a_start_address, one.b_start_address, one.a_desc,
                 one.b_desc) == (other.smem_base_address, other.a_start_address,
                                 other.b_start_address, other.a_desc, other.b_desc))


def test_a_call_of_many_grids_moves_its_inputs_and_outputs_in_one_copy_each_way(
        stand_in: dict[str, list[int]]) -> None:
    ss = next(v for v in wgmma_families(SPEC) if not v.a_from_regs)
    rs = next(v for v in wgmma_families(SPEC) if v.a_from_regs and v.nreg_d != ss.nreg_d)
    jobs = [(v, [_launch(v, 10 * k + i, size, c=i % 2 == 1)
                 for i, size in enumerate([512, 2048, 512, 1024, 2048])])
            for k, v in enumerate([ss, rs, ss])]
    together = probes.run_wgmma_sweep(jobs)
    assert len(stand_in["uploads"]) == 1
    assert len(stand_in["downloads"]) == 1
    assert sum(stand_in["grids"]) == 15
    assert max(stand_in["grids"]) > 1
    for (v, launches), dumps in zip(jobs, together, strict=True):
        for kw, dump in zip(launches, dumps, strict=True):
            [alone] = probes.run_wgmma_batch(v, [kw])
            assert _same(alone, dump)
            assert dump.variant == v


def test_a_moved_input_shows_in_the_dumps(stand_in: dict[str, list[int]]) -> None:
    v = next(v for v in wgmma_families(SPEC) if not v.a_from_regs)
    one, two = _launch(v, 1, 512, c=True), _launch(v, 2, 512, c=True)
    [d1, d2] = probes.run_wgmma_batch(v, [one, two])
    assert not np.array_equal(d1.regs, d2.regs)
    assert _same(probes.run_wgmma_batch(v, [two, one])[1], d1)
