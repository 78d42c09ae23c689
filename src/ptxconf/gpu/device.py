"""What GPU is this, and can it run sm_90a probes? Never raises when CuPy or a GPU is absent."""

from __future__ import annotations

import ctypes
import platform
from typing import Any

#: The compute capability sm_90a code runs on: arch-specific ("a") features such as wgmma
#: are not forward compatible, so exactly 9.0.
SM90A_CAPABILITY = (9, 0)


def _version(v: int) -> str:
    """CUDA's integer version (12040) as text (12.4)."""
    return f"{v // 1000}.{(v % 1000) // 10}"


def describe() -> dict[str, Any]:
    """The device and software stack, as evidence records it; `error` says what is missing."""
    info: dict[str, Any] = {"python": platform.python_version(), "host": platform.node()}
    try:
        import cupy
    except Exception as exc:  # noqa: BLE001 - absent or broken CuPy is an answer, not an error
        info["error"] = f"CuPy not importable: {type(exc).__name__}: {exc}"
        return info
    info["cupy_version"] = cupy.__version__
    try:
        runtime = cupy.cuda.runtime
        info["cuda_runtime_version"] = _version(runtime.runtimeGetVersion())
        info["cuda_driver_version"] = _version(runtime.driverGetVersion())
        count = runtime.getDeviceCount()
        info["device_count"] = count
        if count == 0:
            info["error"] = "no CUDA device visible"
            return info
        dev = cupy.cuda.Device()
        props = runtime.getDeviceProperties(dev.id)
        name = props["name"]
        info["device_id"] = dev.id
        info["name"] = name.decode() if isinstance(name, bytes) else str(name)
        info["compute_capability"] = f"{props['major']}.{props['minor']}"
        info["multiprocessors"] = props["multiProcessorCount"]
        info["shared_memory_per_block_optin_bytes"] = props.get("sharedMemPerBlockOptin")
        info["total_memory_bytes"] = props["totalGlobalMem"]
        try:
            from cupy.cuda import nvrtc

            info["nvrtc_version"] = ".".join(str(x) for x in nvrtc.getVersion())
        except Exception as exc:  # noqa: BLE001 - an unknown NVRTC version is part of the answer
            info["nvrtc_version"] = f"unknown ({type(exc).__name__})"
    except Exception as exc:  # noqa: BLE001 - no driver, no device, broken context
        info["error"] = f"CUDA not usable: {type(exc).__name__}: {exc}"
    return info


#: The CUDA driver's device attributes for the compute capability (cuda.h, CUdevice_attribute).
CC_MAJOR_ATTRIBUTE, CC_MINOR_ATTRIBUTE = 75, 76


def _driver_error(cuda: Any, err: int) -> str:
    """A CUresult's name (CUDA_ERROR_NO_DEVICE, say), else its number."""
    name = ctypes.c_char_p()
    if cuda.cuGetErrorName(err, ctypes.byref(name)) == 0 and name.value:
        return name.value.decode(errors="replace")
    return f"CUresult {err}"


def driver_check() -> tuple[str | None, int] | None:
    """(why no visible GPU can run sm_90a probes or None, how many GPUs are visible), asked of
    the CUDA driver library directly (libcuda through ctypes: nothing to import, and the
    interpreter is free while the driver answers, so a run can ask on a thread beside its own
    work; cuInit creates no context, so it is cheap and safe in the main process); None where
    the driver library is not here (the caller asks a probe worker)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    err = cuda.cuInit(0)
    if err != 0:
        return f"CUDA not usable: cuInit failed ({_driver_error(cuda, err)})", 0
    n, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if cuda.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value == 0:
        return "CUDA not usable: no CUDA device is visible", 0
    if (cuda.cuDeviceGetAttribute(ctypes.byref(major), CC_MAJOR_ATTRIBUTE, 0) != 0
            or cuda.cuDeviceGetAttribute(ctypes.byref(minor), CC_MINOR_ATTRIBUTE, 0) != 0):
        return None  # an unexpected driver answer: the caller asks a probe worker
    if (major.value, minor.value) != SM90A_CAPABILITY:
        want = f"{SM90A_CAPABILITY[0]}.{SM90A_CAPABILITY[1]}"
        return (f"device 0 has compute capability {major.value}.{minor.value}; sm_90a probes "
                f"need {want}", n.value)
    return None, n.value


def count() -> int:
    """How many CUDA devices this process sees (0 when CUDA is not usable)."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no driver, no device
        return 0


def warm() -> int:
    """Start CUDA in this process (the device's context, as cudaFree(0) does), so that the
    first probe finds it ready; how many devices there are (0 when CUDA is not usable)."""
    try:
        import cupy

        cupy.cuda.runtime.free(0)
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no driver, no device: the first probe says so
        return 0


def usable_sm90a() -> tuple[bool, str]:
    """(True, device summary) when a CUDA device of compute capability 9.0 is there."""
    info = describe()
    if "error" in info:
        return False, info["error"]
    cc = info.get("compute_capability", "")
    want = f"{SM90A_CAPABILITY[0]}.{SM90A_CAPABILITY[1]}"
    if cc != want:
        return False, (f"{info.get('name', 'device')} has compute capability {cc}; sm_90a "
                       f"probes need {want}")
    return True, (f"{info['name']} (cc {cc}), driver {info['cuda_driver_version']}, "
                  f"runtime {info['cuda_runtime_version']}, CuPy {info['cupy_version']}")
