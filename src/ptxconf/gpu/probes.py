"""Launch one probe and hand back raw dumps. Interpretation is the oracle's job.

Inputs are computed on the host (shared-memory bytes, descriptors relative to each operand's
start, register words); outputs are raw 32-bit words and raw memory bytes. Every function
here needs CuPy and an sm_90a device; run them through `ptxconf.gpu.runner` so that a probe
that faults or hangs cannot take the caller down with it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import build
from .arena import ALIGN_BYTES, Arena
from .busy import kernels_timed
from .digest import ECHO, VARIES
from .ldmatrix import WarpMatrixVariant
from .mma_sync import MmaSyncVariant
from .variants import WgmmaVariant, WmmaVariant

#: Each operand's region of the shared-memory image starts on this boundary; the kernel
#: declares its dynamic shared memory with the same alignment (kernels/wgmma_probe.cu).
REGION_ALIGN_BYTES = 1024
#: Dynamic shared memory a kernel gets without asking for more (CUDA's default limit).
DEFAULT_DYNAMIC_SMEM_BYTES = 48 * 1024
_U128 = 16

__all__ = [
    "REGION_ALIGN_BYTES",
    "WgmmaDump",
    "WmmaDump",
    "load_module",
    "prepare_wgmma",
    "prepare_wmma",
    "run_wgmma",
    "run_wgmma_batch",
    "run_wgmma_dump",
    "run_mma_sync",
    "run_wgmma_sweep",
    "run_wmma_load",
    "run_warp_matrix",
    "run_wmma_store",
    "run_tma_write",
    "TmaDump",
    "wgmma_smem_image",
]


def _round_up(x: int, to: int) -> int:
    return -(-x // to) * to


def _words(x: np.ndarray | None, rows: int, cols: int, what: str) -> np.ndarray:
    """A C-contiguous uint32 [rows, cols] copy of x (zeros when x is None)."""
    if x is None:
        return np.zeros((rows, cols), dtype=np.uint32)
    arr = np.ascontiguousarray(np.asarray(x).astype(np.uint32, copy=False))
    if arr.shape != (rows, cols):
        raise ValueError(f"{what}: expected shape ({rows}, {cols}), got {arr.shape}")
    return arr


def _padded(data: bytes, size: int) -> np.ndarray:
    """data as uint8, zero-padded to `size` bytes."""
    out = np.zeros(size, dtype=np.uint8)
    out[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    return out


def _launch(kernel: Any, threads: int, args: tuple[object, ...], smem_bytes: int) -> None:
    """`kernel`: a cupy.RawKernel (Any: CuPy ships no types)."""
    if smem_bytes > DEFAULT_DYNAMIC_SMEM_BYTES:
        kernel.max_dynamic_shared_size_bytes = smem_bytes
    with kernels_timed() as timed:
        timed(lambda: kernel((1,), (threads,), args, shared_mem=smem_bytes))


# --- wgmma ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class WgmmaDump:
    """What one wgmma probe returned, raw."""

    variant: WgmmaVariant = field(metadata={ECHO: "the call's variant"})
    regs: np.ndarray  # uint32 [warpgroup threads, nreg_d]: accumulator words per thread after the MMA
    smem_base_address: int  # the shared-memory address of the image's first byte
    a_start_address: int | None  # shared-memory address of A's first byte (None: RS form)
    b_start_address: int
    a_desc: int | None  # the descriptors the instruction was given (start address folded in)
    b_desc: int


def wgmma_smem_image(a_smem: bytes | None, b_smem: bytes, smem_a_offset_bytes: int = 0,
                     smem_b_offset_bytes: int = 0,
                     smem_bytes: int = 0) -> tuple[bytes, int | None, int]:
    """The shared-memory image and each operand's start in it.

    A's region starts at 0 and B's at the next REGION_ALIGN_BYTES boundary after A; each
    operand sits at its offset into its region (for start-address and base-offset sweeps).
    The image is zero-padded to at least `smem_bytes`.
    """
    if smem_a_offset_bytes < 0 or smem_b_offset_bytes < 0:
        raise ValueError("operand offsets must be >= 0")
    a_start = None
    b_region = 0
    if a_smem is not None:
        a_start = smem_a_offset_bytes
        b_region = _round_up(a_start + len(a_smem), REGION_ALIGN_BYTES)
    b_start = b_region + smem_b_offset_bytes
    size = _round_up(max(b_start + len(b_smem), smem_bytes), _U128)
    image = bytearray(size)
    if a_smem is not None and a_start is not None:
        image[a_start:a_start + len(a_smem)] = a_smem
    image[b_start:b_start + len(b_smem)] = b_smem
    return bytes(image), a_start, b_start


def load_module(variants: Iterable[WgmmaVariant | WmmaVariant], cubin_path: str) -> int:
    """Load these variants' kernels from a module compiled on the host (ptxconf.gpu.kcache);
    how many were asked for."""
    return build.load_kernels(variants, cubin_path)


def prepare_wgmma(variants: Iterable[WgmmaVariant]) -> int:
    """Compile these variants' probe kernels into one module now; how many were asked for."""
    return len(build.wgmma_kernels(variants))


#: Fields per block of the probe kernel's `blocks` table (kernels/wgmma_probe.cu).
BLOCK_FIELDS = 8


def _block_inputs(variant: WgmmaVariant, a_smem: bytes | None, b_smem: bytes,
                  a_desc_rel: int | None, b_desc_rel: int, a_regs: np.ndarray | None = None,
                  c_init: np.ndarray | None = None, *, smem_a_offset_bytes: int = 0,
                  smem_b_offset_bytes: int = 0, smem_bytes: int = 0) -> tuple[
                      bytes, int | None, int, np.ndarray, np.ndarray | None]:
    """One block's image, operand starts, A words and accumulator words, checked."""
    if variant.a_from_regs != (a_smem is None):
        raise ValueError(f"{variant.kernel_name}: give a_smem for the SS form, a_regs for RS")
    if variant.a_from_regs != (a_regs is not None):
        raise ValueError(f"{variant.kernel_name}: a_regs goes with the RS form only")
    if (a_desc_rel is None) != (a_smem is None):
        raise ValueError("a_desc_rel goes with a_smem")
    image, a_start, b_start = wgmma_smem_image(a_smem, b_smem, smem_a_offset_bytes,
                                               smem_b_offset_bytes, smem_bytes)
    threads = variant.facts.warpgroup_threads
    a_words = _words(a_regs, threads, variant.nreg_a, "a_regs") if variant.nreg_a else \
        np.zeros((0, 0), dtype=np.uint32)
    c_words = None if c_init is None else _words(c_init, threads, variant.nreg_d, "c_init")
    return image, a_start, b_start, a_words, c_words


#: One probe's block as `_block_inputs` builds it: (image, A start, B start, A words,
#: accumulator words or None), with its launch's keywords.
_Block = tuple[tuple[bytes, "int | None", int, np.ndarray, "np.ndarray | None"], dict[str, Any]]


@dataclass
class _Staged:
    """One grid's inputs and outputs, placed in a call's arenas (offsets in bytes)."""

    variant: WgmmaVariant
    starts: list[tuple[int | None, int, bool]]
    kernel: Any  # a cupy.RawKernel (CuPy ships no types)
    smem: int
    shift: int
    lsb: int
    inputs: tuple[int, int, int, int]  # images, table, A words, accumulator words
    out_at: int
    info_at: int


def _stage(variant: WgmmaVariant, blocks: list[_Block], ins: Arena, outs: Arena) -> _Staged:
    """Place the inputs of many probes of one variant, to launch as one grid, one block per
    probe, in `ins`, and their outputs in `outs`; identical images are placed once."""
    images: dict[bytes, int] = {}
    chunks: list[bytes] = []
    table = np.zeros((len(blocks), BLOCK_FIELDS), dtype=np.uint64)
    a_parts: list[np.ndarray] = []
    starts: list[tuple[int | None, int, bool]] = []
    shift_lsb: set[tuple[int, int]] = set()
    threads, nd = variant.facts.warpgroup_threads, variant.nreg_d
    a_first = u128 = smem = 0
    for i, ((image, a_start, b_start, a_words, c_words), kw) in enumerate(blocks):
        shift_lsb.add((kw["desc_start_shift"], kw["desc_start_lsb"]))
        if image not in images:
            images[image] = u128
            chunks.append(image)
            u128 += len(image) // _U128
        table[i] = (images[image], len(image) // _U128, a_start or 0, b_start,
                    kw.get("a_desc_rel") or 0, kw["b_desc_rel"], a_first,
                    0 if c_words is None else 1)
        a_parts.append(a_words.reshape(-1))
        a_first += a_words.size
        starts.append((a_start, b_start, kw.get("a_smem") is None))
        smem = max(smem, len(image))
    if len(shift_lsb) != 1:
        raise ValueError(f"one launch needs one desc_start_shift/lsb, got {sorted(shift_lsb)}")
    shift, lsb = shift_lsb.pop()
    c_all: np.ndarray
    if any(inputs[4] is not None for inputs, _ in blocks):
        c_all = np.zeros((len(blocks), threads, nd), np.uint32)
        for i, ((*_, c_words), _) in enumerate(blocks):
            if c_words is not None:
                c_all[i] = c_words
    else:
        c_all = np.zeros(1, np.uint32)
    inputs = (ins.add(np.frombuffer(b"".join(chunks), dtype=np.uint8)), ins.add(table),
              ins.add(np.concatenate(a_parts) if a_first else np.zeros(1, np.uint32)),
              ins.add(c_all))
    return _Staged(variant, starts, build.wgmma_kernels([variant])[variant], smem, shift, lsb,
                   inputs, outs.fill(len(blocks) * threads * nd * 4, 0xFF),
                   outs.fill(len(blocks) * 3 * 8, 0))


def _launch_staged(st: _Staged, d_in: Any, d_out: Any) -> None:
    """Launch a staged grid over the call's device arenas (not synchronised)."""
    threads, n = st.variant.facts.warpgroup_threads, len(st.starts)
    images, table, a_words, c_words = (d_in[at:] for at in st.inputs)
    if st.smem > DEFAULT_DYNAMIC_SMEM_BYTES:
        st.kernel.max_dynamic_shared_size_bytes = st.smem
    st.kernel((n,), (threads,), (images, table, np.uint32(st.shift), np.uint32(st.lsb),
                                 a_words, c_words, d_out[st.out_at:], d_out[st.info_at:]),
              shared_mem=st.smem)


def _dumps(st: _Staged, out: np.ndarray) -> list[WgmmaDump]:
    """The dumps of a staged grid, from the call's outputs (`out`, bytes, after
    synchronisation)."""
    threads, nd, n = st.variant.facts.warpgroup_threads, st.variant.nreg_d, len(st.starts)
    regs = out[st.out_at:st.out_at + n * threads * nd * 4].view(np.uint32).reshape(n, threads, nd)
    info = out[st.info_at:st.info_at + n * 3 * 8].view(np.uint64).reshape(n, 3)
    dumps = []
    for i, (a_start, b_start, rs) in enumerate(st.starts):
        base = int(info[i, 0])
        dumps.append(WgmmaDump(
            variant=st.variant, regs=regs[i], smem_base_address=base,
            a_start_address=None if a_start is None else base + a_start,
            b_start_address=base + b_start, a_desc=None if rs else int(info[i, 1]),
            b_desc=int(info[i, 2])))
    return dumps


def _run_staged(jobs: list[tuple[WgmmaVariant, list[dict[str, Any]]]]) -> list[list[WgmmaDump]]:
    """Stage every grid of every job (one grid per variant and image size, so that each block
    gets exactly its image's shared memory: a read past it faults, as a lone launch's would),
    upload their inputs and their outputs' first values in one copy, launch them all,
    synchronise once, bring every output back in one copy, and return the dumps in order."""
    import cupy

    ins, outs = Arena(), Arena()
    staged = []
    for v, launches in jobs:
        groups: dict[int, list[int]] = {}
        blocks: list[_Block] = []
        for i, kw in enumerate(launches):
            inputs = _block_inputs(v, **{k: x for k, x in kw.items()
                                         if k not in ("desc_start_shift", "desc_start_lsb")})
            blocks.append((inputs, kw))
            groups.setdefault(len(inputs[0]), []).append(i)
        staged.append([(g, _stage(v, [blocks[i] for i in g], ins, outs))
                       for g in groups.values()])
    out_at = _round_up(ins.size, ALIGN_BYTES)
    host = np.zeros(out_at + max(outs.size, 1), dtype=np.uint8)
    ins.into(host)
    outs.into(host[out_at:])
    d_in = cupy.asarray(host)
    d_out = d_in[out_at:]
    with kernels_timed() as timed:
        for grids in staged:
            for _, st in grids:
                timed(functools.partial(_launch_staged, st, d_in, d_out))
    out_host = d_out.get()
    out: list[list[WgmmaDump]] = []
    for (_, launches), grids in zip(jobs, staged, strict=True):
        dumps: list[WgmmaDump | None] = [None] * len(launches)
        for g, st in grids:
            for i, d in zip(g, _dumps(st, out_host), strict=True):
                dumps[i] = d
        out.append([d for d in dumps if d is not None])
    return out


def run_wgmma_batch(variant: WgmmaVariant, launches: list[dict[str, Any]]) -> list[WgmmaDump]:
    """Many probes of one variant, a block each, in one grid per image size and one
    synchronisation; each keyword set is what `run_wgmma_dump` takes. A fault ends the batch."""
    return _run_staged([(variant, launches)])[0] if launches else []


def run_wgmma_sweep(jobs: list[tuple[WgmmaVariant, list[dict[str, Any]]]]) -> list[list[WgmmaDump]]:
    """`run_wgmma_batch` for many variants: their grids all launched, then one
    synchronisation."""
    return _run_staged(jobs)


def run_wgmma_dump(variant: WgmmaVariant, a_smem: bytes | None, b_smem: bytes,
                   a_desc_rel: int | None, b_desc_rel: int, a_regs: np.ndarray | None = None,
                   c_init: np.ndarray | None = None, *, smem_a_offset_bytes: int = 0,
                   smem_b_offset_bytes: int = 0, smem_bytes: int = 0,
                   desc_start_shift: int, desc_start_lsb: int) -> WgmmaDump:
    """Run one wgmma.mma_async on a warpgroup and return its raw accumulator registers.

    a_smem/b_smem: operand bytes exactly as shared memory should hold them from each operand's
    start. a_desc_rel/b_desc_rel: descriptors whose start-address field holds the offset from
    that start (0 normally); the kernel adds ((address >> desc_start_shift) << desc_start_lsb)
    with the real shared-memory address. a_regs: uint32 [threads, nreg_a] for the RS form.
    c_init: uint32 [threads, nreg_d] accumulator words; when given, D = A*B + C, else D = A*B.
    smem_bytes: the least dynamic shared memory to allocate (zero-filled past the operands).
    Give it when a layout reaches past the last byte placed: a read beyond the allocation
    faults (seen on an H100: cudaErrorIllegalAddress).
    """
    return run_wgmma_batch(variant, [dict(
        a_smem=a_smem, b_smem=b_smem, a_desc_rel=a_desc_rel, b_desc_rel=b_desc_rel,
        a_regs=a_regs, c_init=c_init, smem_a_offset_bytes=smem_a_offset_bytes,
        smem_b_offset_bytes=smem_b_offset_bytes, smem_bytes=smem_bytes,
        desc_start_shift=desc_start_shift, desc_start_lsb=desc_start_lsb)])[0]


def run_wgmma(variant: WgmmaVariant, a_smem: bytes | None, b_smem: bytes,
              a_desc_rel: int | None, b_desc_rel: int, a_regs: np.ndarray | None = None,
              c_init: np.ndarray | None = None, *, smem_a_offset_bytes: int = 0,
              smem_b_offset_bytes: int = 0, smem_bytes: int = 0, desc_start_shift: int,
              desc_start_lsb: int) -> np.ndarray:
    """`run_wgmma_dump(...).regs`: uint32 [threads, nreg_d] accumulator words per thread."""
    return run_wgmma_dump(
        variant, a_smem, b_smem, a_desc_rel, b_desc_rel, a_regs, c_init,
        smem_a_offset_bytes=smem_a_offset_bytes, smem_b_offset_bytes=smem_b_offset_bytes,
        smem_bytes=smem_bytes, desc_start_shift=desc_start_shift,
        desc_start_lsb=desc_start_lsb).regs


# --- mma.sync (CuTe's atoms: SM70 8x8x4, SM80 16x8xK, SM89 FP8) ---------------------------


def run_mma_sync(variant: MmaSyncVariant, a_words: np.ndarray, b_words: np.ndarray,
                 c_words: np.ndarray) -> np.ndarray:
    """One warp issues one mma.sync of the atom: per lane its A, B and accumulator words in (one
    row per lane, the variant's register counts); uint32 [lanes, accumulator words] out."""
    import cupy

    nd = variant.c_words
    lanes = len(a_words)
    kernel = build.mma_sync_kernels([variant])[variant]
    d_a = cupy.asarray(_words(a_words, lanes, variant.a_words, "a_words"))
    d_b = cupy.asarray(_words(b_words, lanes, variant.b_words, "b_words"))
    d_c = cupy.asarray(_words(c_words, lanes, nd, "c_words"))
    d_out = cupy.full((lanes, nd), 0xFFFFFFFF, dtype=cupy.uint32)
    _launch(kernel, lanes, (d_a, d_b, d_c, d_out), 0)
    words: np.ndarray = d_out.get()
    return words


# --- ldmatrix / stmatrix --------------------------------------------------------------------


def run_warp_matrix(variant: WarpMatrixVariant, module: tuple[WarpMatrixVariant, ...],
                    image: bytes, lane_offsets: np.ndarray,
                    regs: np.ndarray) -> tuple[np.ndarray, bytes]:
    """One warp issues one ldmatrix or stmatrix over a shared-memory copy of `image`, lane l
    at `lane_offsets[l]` bytes from its start, with register words `regs` (uint32 [lanes,
    registers]: what a store stores; a load overwrites them). Returns the register words and
    the image afterwards. `module`: the forms compiled with this one (one module for all)."""
    import cupy

    lanes = len(lane_offsets)
    size = max(_round_up(len(image), _U128), _U128)
    kernel = build.warp_matrix_kernels([variant], module)[variant]
    d_image = cupy.asarray(_padded(image, size).view(np.uint32))
    d_out = cupy.zeros_like(d_image)
    d_offsets = cupy.asarray(_words(np.reshape(lane_offsets, (lanes, 1)), lanes, 1, "lane_offsets"))
    d_regs = cupy.asarray(_words(regs, lanes, variant.registers, "regs"))
    _launch(kernel, lanes, (d_image, np.uint32(size // 4), d_offsets, d_regs, d_out), size)
    words: np.ndarray = d_regs.get()
    return words, d_out.get().tobytes()[: len(image)]


# --- wmma ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WmmaDump:
    """What one wmma probe returned, raw."""

    variant: WmmaVariant = field(metadata={ECHO: "the call's variant"})
    words: np.ndarray  # uint32 [warp threads, fragment words]: loaded (load) or given (store) per lane
    memory: bytes  # the matrix memory after the probe (a store wrote into it)
    fragment_bytes: int  # sizeof(fragment.x), as the compiled header has it
    num_elements: int  # fragment.num_elements
    #: Low 32 bits of the matrix pointer in its state space (the selftest campaign records
    #: it; no case reads it, and a global pointer differs run to run: see digest.VARIES).
    pointer_address: int = field(metadata={VARIES: "a device pointer"})
    in_smem: bool


def prepare_wmma(variants: Iterable[WmmaVariant]) -> int:
    """Compile these wmma probes into one module now; how many were asked for."""
    return len(build.wmma_kernels(variants))


def _run_wmma(variant: WmmaVariant, words: np.ndarray, memory: bytes, offset_bytes: int,
              ldm: int, col_major: bool, use_smem: bool) -> WmmaDump:
    import cupy

    size = max(_round_up(len(memory), _U128), _U128)
    kernel = build.wmma_kernels([variant])[variant]
    d_buf = cupy.asarray(_padded(memory, size))
    d_words = cupy.asarray(words)
    d_info = cupy.zeros(4, dtype=cupy.uint32)
    args = (d_buf, np.uint32(size // _U128), np.uint32(use_smem), np.uint32(offset_bytes),
            np.uint32(ldm), np.uint32(col_major), d_words, d_info)
    _launch(kernel, variant.facts.warp_threads, args, size if use_smem else 0)
    info = [int(x) for x in d_info.get()]
    nwords = -(-info[0] // 4)
    return WmmaDump(variant=variant, words=d_words.get()[:, :nwords].copy(),
                    memory=d_buf.get().tobytes()[: len(memory)], fragment_bytes=info[0],
                    num_elements=info[1], pointer_address=info[2], in_smem=bool(info[3]))


def _check_layout_arg(variant: WmmaVariant, col_major: bool | None) -> bool:
    if variant.matrix == "c":
        if col_major is None:
            raise ValueError(f"{variant.kernel_name}: the accumulator needs col_major=True/False")
        return col_major
    if col_major is not None:
        raise ValueError(f"{variant.kernel_name}: the layout of a/b is compiled in "
                         f"({variant.layout}); col_major must be None")
    return False


def run_wmma_load(variant: WmmaVariant, memory: bytes, *, ldm: int, offset_bytes: int = 0,
                  col_major: bool | None = None, use_smem: bool = False) -> WmmaDump:
    """wmma::load_matrix_sync from `memory` + offset_bytes with stride `ldm` (elements).

    col_major: the accumulator's memory layout (a/b carry theirs in the variant). use_smem:
    load from a shared-memory copy of `memory` instead of global memory.
    """
    if variant.op != "load":
        raise ValueError(f"{variant.kernel_name} is not a load probe")
    layout = _check_layout_arg(variant, col_major)
    fill = np.full((variant.facts.warp_threads, build.WMMA_MAX_WORDS), 0xFFFFFFFF, dtype=np.uint32)
    return _run_wmma(variant, fill, memory, offset_bytes, ldm, layout, use_smem)


def run_wmma_store(variant: WmmaVariant, frag_words: np.ndarray, memory: bytes, *, ldm: int,
                   col_major: bool, offset_bytes: int = 0, use_smem: bool = False) -> WmmaDump:
    """Fill an accumulator fragment with raw words (uint32 [lanes, words]) and store it.

    `memory` is the image the store lands in (a sentinel pattern shows what it left alone).
    """
    if variant.op != "store":
        raise ValueError(f"{variant.kernel_name} is not a store probe")
    lanes = variant.facts.warp_threads
    arr = np.ascontiguousarray(np.asarray(frag_words).astype(np.uint32, copy=False))
    if arr.ndim != 2 or arr.shape[0] != lanes or arr.shape[1] > build.WMMA_MAX_WORDS:
        raise ValueError(f"frag_words: expected [{lanes}, <= {build.WMMA_MAX_WORDS}], "
                         f"got {arr.shape}")
    words = np.zeros((lanes, build.WMMA_MAX_WORDS), dtype=np.uint32)
    words[:, : arr.shape[1]] = arr
    return _run_wmma(variant, words, memory, offset_bytes, ldm, col_major, use_smem)


# --- TMA (cp.async.bulk.tensor) ----------------------------------------------------------------


#: Dynamic shared memory asked beyond the TMA window: the kernel puts the window at the first
#: 1024-byte boundary (kernels/tma_probe.cu WINDOW_SLACK), the strictest swizzle's repeat.
TMA_WINDOW_SLACK_BYTES = 1024


@dataclass(frozen=True)
class TmaDump:
    """What one TMA write probe returned, raw."""

    write: Any  # the ptxconf.gpu.tma.TmaWrite it ran
    window_address: int  # the shared-memory address of the window's first byte
    window: np.ndarray  # uint8 [window bytes]: the window after the copy
    launch: str  # how the 128-byte tensor map was passed: "driver" (cuLaunchKernel's parameter array)
    enumerator: str  # the cuda-bindings name of the CUtensorMapSwizzle value the spec gave


def run_tma_write(write: Any, data: np.ndarray, window_bytes: int, fill: int) -> TmaDump:
    """One tensor copy of `data` (uint8 [rows, inner bytes], the whole tensor) into a window of
    `window_bytes` filled with `fill`; the window after it, raw."""
    import cupy

    from . import tma
    from .tma_launch import launch_driver, tensor_map

    kernel = build.tma_kernel()
    d_data = cupy.asarray(np.ascontiguousarray(data, dtype=np.uint8))
    tmap, name = tensor_map(write, d_data.data.ptr)
    d_out = cupy.zeros(window_bytes, dtype=cupy.uint8)
    d_info = cupy.zeros(1, dtype=cupy.uint32)
    scalars = [write.dst_offset, write.box_bytes, window_bytes, fill]
    smem_bytes = window_bytes + TMA_WINDOW_SLACK_BYTES
    if smem_bytes > DEFAULT_DYNAMIC_SMEM_BYTES:
        kernel.max_dynamic_shared_size_bytes = smem_bytes
    launch_driver(kernel, tmap, scalars, [d_out.data.ptr, d_info.data.ptr], smem_bytes,
                   tma.THREADS)
    return TmaDump(write, int(d_info.get()[0]), d_out.get(), "driver", name)
