"""How a TMA probe is launched: the tensor map encoded by the driver (cuTensorMapEncodeTiled,
through cuda-bindings) and a launch whose parameter array holds its 128 bytes by value (what
the kernel takes as a `__grid_constant__` parameter). Used by `probes.run_tma_write`, in the
probe worker; what to run is `ptxconf.gpu.tma`, how to judge it `ptxconf.oracle.tma`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .busy import kernels_timed


def tensor_map(write: Any, address: int) -> tuple[bytes, str]:
    """cuTensorMapEncodeTiled of a 2-D tensor that is exactly the box (its rows packed); the
    128 bytes and the bindings' name of the swizzle value (ValueError on an encode error)."""
    from cuda.bindings import driver as cu

    dtype = getattr(cu.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_UINT{8 * write.elem_bytes}")
    swizzle = cu.CUtensorMapSwizzle(write.code)
    u64, u32 = cu.cuuint64_t, cu.cuuint32_t  # the bindings take the driver's own int types
    err, tmap = cu.cuTensorMapEncodeTiled(
        dtype, 2, address, [u64(write.cols), u64(write.rows)], [u64(write.inner_bytes)],
        [u32(write.cols), u32(write.rows)], [u32(1), u32(1)],
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise ValueError(f"cuTensorMapEncodeTiled({write.label}): {err.name}")
    return np.asarray(tmap.opaque, dtype=np.uint64).tobytes(), swizzle.name


def launch_driver(kernel: Any, tmap: bytes, scalars: list[int], pointers: list[int],
                   smem_bytes: int, threads: int) -> None:
    """cuLaunchKernel with a parameter array built here (for a CuPy that cannot pass a struct):
    the tensor map's bytes, 32-bit scalars, 64-bit pointers, in the kernel's order."""
    import ctypes

    import cupy
    from cuda.bindings import driver as cu

    cells: list[Any] = [(ctypes.c_uint8 * len(tmap)).from_buffer_copy(tmap)]
    cells += [ctypes.c_uint32(v) for v in scalars] + [ctypes.c_uint64(p) for p in pointers]
    params = (ctypes.c_void_p * len(cells))(*[ctypes.addressof(c) for c in cells])
    stream = cu.CUstream(cupy.cuda.get_current_stream().ptr)
    function = getattr(kernel, "kernel", kernel)  # a RawKernel's loaded cupy.cuda.Function

    def launch() -> None:
        (err,) = cu.cuLaunchKernel(cu.CUfunction(function.ptr), 1, 1, 1, threads, 1, 1,
                                   smem_bytes, stream, ctypes.addressof(params), 0)
        if err != cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuLaunchKernel: {err.name}")

    with kernels_timed() as timed:
        timed(launch)


__all__ = ["launch_driver", "tensor_map"]
