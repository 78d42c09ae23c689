"""NVRTC's and the CUDA driver's presence and versions as a warm run reads them: kept by
`ptxconf.core.tool_stamp` (asked again where the libraries they were read from, or what
decides which libraries those are, changed), so that a run whose assembler-witness results all
come from the result cache loads neither cuda-bindings nor its library finder.

`nvrtc_problem`, `nvrtc_version` and `driver_version` ask the tools themselves (what compiles
and the kernel cache's keys use them, through `ptxconf.gpu.build` and `ptxconf.gpu.kcache`);
`kept_nvrtc_problem`, `kept_nvrtc_version` and `kept_driver_version` are the same answers
from their stamps where those are current.
"""

from __future__ import annotations

from typing import Any

from ptxconf.core import tool_stamp

#: The compile options of the witness's and the probes' modules (re-exported by build).
ARCH_OPTIONS: tuple[str, ...] = ("-arch=sm_90a", "-std=c++17")
#: The top-level packages the queries import: cuda-bindings and cuda-pathfinder under `cuda`,
#: NVIDIA's library wheels under `nvidia`.
PACKAGES = ("cuda", "nvidia")


def nvrtc_problem() -> str | None:
    """Why NVRTC cannot be used here (None when it can)."""
    try:
        from cuda.bindings import nvrtc

        err, major, minor = nvrtc.nvrtcVersion()
        if int(err) != 0:
            return f"nvrtcVersion failed: {err}"
    except Exception as exc:  # noqa: BLE001 - the reason is the message
        return (f"NVRTC unavailable ({type(exc).__name__}: {exc}); install cuda-bindings and "
                "nvidia-cuda-nvrtc (pip install 'ptxconf[compile]')")
    return None


def nvrtc_version() -> tuple[int, int]:
    """(major, minor) of the NVRTC that cuda-bindings loads."""
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return int(major), int(minor)


def driver_version() -> str:
    """The CUDA driver's version, or 'none' where no driver is installed."""
    try:
        from cuda.bindings import driver

        err, version = driver.cuDriverGetVersion()
        return str(version) if int(err) == 0 else "none"
    except Exception:  # noqa: BLE001 - no driver library: a CPU machine
        return "none"


def _nvrtc_query() -> dict[str, Any]:
    problem = nvrtc_problem()
    return {"problem": problem, "version": None if problem else list(nvrtc_version())}


def _nvrtc_valid(answer: Any) -> bool:
    if not isinstance(answer, dict) or set(answer) != {"problem", "version"}:
        return False
    problem, version = answer["problem"], answer["version"]
    if problem is None:
        return (isinstance(version, list) and len(version) == 2
                and all(type(x) is int for x in version))
    return isinstance(problem, str) and version is None


def _nvrtc() -> dict[str, Any]:
    answer: dict[str, Any] = tool_stamp.kept(
        "nvrtc", _nvrtc_query, packages=PACKAGES, libraries=("libnvrtc",),
        modules=("cuda.bindings", "cuda.bindings.nvrtc", "cuda.pathfinder"), valid=_nvrtc_valid)
    return answer


def kept_nvrtc_problem() -> str | None:
    """`nvrtc_problem()`, from its stamp where that is current."""
    problem: str | None = _nvrtc()["problem"]
    return problem


def kept_nvrtc_version() -> tuple[int, int]:
    """`nvrtc_version()`, from its stamp where that is current (RuntimeError where there is no
    usable NVRTC)."""
    answer = _nvrtc()
    if answer["version"] is None:
        raise RuntimeError(answer["problem"])
    major, minor = answer["version"]
    return int(major), int(minor)


def kept_driver_version() -> str:
    """`driver_version()`, from its stamp where that is current."""
    answer: str = tool_stamp.kept(
        "cuda-driver", driver_version, packages=PACKAGES, libraries=("libcuda.so",),
        modules=("cuda.bindings", "cuda.bindings.driver", "cuda.pathfinder"),
        valid=lambda a: isinstance(a, str))
    return answer


def witness_versions(spec: object = None) -> str:
    """What the assembler witness's verdicts depend on besides the spec and ptxconf's code:
    NVRTC's (and its ptxas's) version, the driver's, and the compile options (the result
    cache's key part; `ptxconf.gpu.witness.tool_versions`)."""
    return (f"nvrtc {kept_nvrtc_version()}\0driver {kept_driver_version()}\0"
            f"{' '.join(ARCH_OPTIONS)}")


__all__ = ["ARCH_OPTIONS", "driver_version", "kept_driver_version", "kept_nvrtc_problem",
           "kept_nvrtc_version", "nvrtc_problem", "nvrtc_version", "witness_versions"]
