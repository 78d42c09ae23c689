"""Launch one probe and hand back raw dumps. Interpretation is the oracle's job.

Inputs are computed on the host (shared-memory bytes, descriptors relative to each operand's
start, register words); outputs are raw 32-bit words and raw memory bytes. Every function
here needs CuPy and an sm_90a device; run them through `ptxconf.gpu.runner` so that a probe
that faults or hangs cannot take the caller down with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from . import build
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
    "prepare_wgmma",
    "prepare_wmma",
    "run_wgmma",
    "run_wgmma_batch",
    "run_wgmma_dump",
    "run_wmma_load",
    "run_wmma_store",
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


def _launch(kernel: object, threads: int, args: tuple, smem_bytes: int) -> None:
    import cupy

    if smem_bytes > DEFAULT_DYNAMIC_SMEM_BYTES:
        kernel.max_dynamic_shared_size_bytes = smem_bytes  # type: ignore[attr-defined]
    kernel((1,), (threads,), args, shared_mem=smem_bytes)  # type: ignore[operator]
    cupy.cuda.get_current_stream().synchronize()


# --- wgmma ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class WgmmaDump:
    """What one wgmma probe returned, raw."""

    variant: WgmmaVariant
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


def prepare_wgmma(variants: Iterable[WgmmaVariant]) -> int:
    """Compile these variants' probe kernels into one module now; how many were asked for."""
    return len(build.wgmma_kernels(variants))


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
    import cupy

    if variant.a_from_regs != (a_smem is None):
        raise ValueError(f"{variant.kernel_name}: give a_smem for the SS form, a_regs for RS")
    if variant.a_from_regs != (a_regs is not None):
        raise ValueError(f"{variant.kernel_name}: a_regs goes with the RS form only")
    if (a_desc_rel is None) != (a_smem is None):
        raise ValueError("a_desc_rel goes with a_smem")
    image, a_start, b_start = wgmma_smem_image(a_smem, b_smem, smem_a_offset_bytes,
                                               smem_b_offset_bytes, smem_bytes)
    nd, na = variant.nreg_d, variant.nreg_a
    threads = variant.facts.warpgroup_threads
    # The SS kernel reads no A words; it still gets a valid pointer.
    a_words = _words(a_regs if na else None, threads, max(na, 1), "a_regs")
    c_words = _words(c_init, threads, nd, "c_init")

    kernel = build.wgmma_kernels([variant])[variant]
    d_image = cupy.asarray(np.frombuffer(image, dtype=np.uint8))
    d_a = cupy.asarray(a_words)
    d_c = cupy.asarray(c_words)
    d_out = cupy.full((threads, nd), 0xFFFFFFFF, dtype=cupy.uint32)
    d_info = cupy.zeros(3, dtype=cupy.uint64)
    args = (d_image, np.uint32(len(image) // _U128), np.uint32(a_start or 0), np.uint32(b_start),
            np.uint64(a_desc_rel or 0), np.uint64(b_desc_rel), np.uint32(desc_start_shift),
            np.uint32(desc_start_lsb), d_a, d_c, np.uint32(0 if c_init is None else 1), d_out,
            d_info)
    _launch(kernel, threads, args, len(image))
    info = [int(x) for x in d_info.get()]
    base = info[0]
    return WgmmaDump(
        variant=variant, regs=d_out.get(), smem_base_address=base,
        a_start_address=None if a_start is None else base + a_start,
        b_start_address=base + b_start, a_desc=None if a_smem is None else info[1],
        b_desc=info[2])


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


def run_wgmma_batch(variant: WgmmaVariant, launches: list[dict]) -> list[WgmmaDump]:
    """`run_wgmma_dump(variant, **kw)` for each keyword set, in order, in one call (a probe
    campaign of many launches pays the worker round trip once). A fault ends the batch."""
    return [run_wgmma_dump(variant, **kw) for kw in launches]


# --- wmma ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WmmaDump:
    """What one wmma probe returned, raw."""

    variant: WmmaVariant
    words: np.ndarray  # uint32 [warp threads, fragment words]: loaded (load) or given (store) per lane
    memory: bytes  # the matrix memory after the probe (a store wrote into it)
    fragment_bytes: int  # sizeof(fragment.x), as the compiled header has it
    num_elements: int  # fragment.num_elements
    pointer_address: int  # low 32 bits of the matrix pointer in its state space
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
