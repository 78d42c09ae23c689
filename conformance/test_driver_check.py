"""`device.driver_check`: the run's first answer about the GPU, asked of the CUDA driver library
through ctypes (no import; the interpreter is free while the driver answers). Shown with a stand-in
for libcuda that answers as a driver would."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from ptxconf.gpu import device


class Driver:
    """libcuda's few entry points driver_check calls, answering as told."""

    def __init__(self, init: int = 0, count: int = 1, cc: tuple[int, int] = (9, 0),
                 attribute_err: int = 0) -> None:
        self.init, self.count, self.cc, self.attribute_err = init, count, cc, attribute_err

    def cuInit(self, flags: int) -> int:
        return self.init

    def cuGetErrorName(self, err: int, out: Any) -> int:
        if err != 100:
            return 1
        ctypes.cast(out, ctypes.POINTER(ctypes.c_char_p))[0] = b"CUDA_ERROR_NO_DEVICE"
        return 0

    def cuDeviceGetCount(self, out: Any) -> int:
        ctypes.cast(out, ctypes.POINTER(ctypes.c_int))[0] = self.count
        return 0

    def cuDeviceGetAttribute(self, out: Any, attribute: int, dev: int) -> int:
        value = {device.CC_MAJOR_ATTRIBUTE: self.cc[0], device.CC_MINOR_ATTRIBUTE: self.cc[1]}
        ctypes.cast(out, ctypes.POINTER(ctypes.c_int))[0] = value[attribute]
        return self.attribute_err


def _with(monkeypatch: pytest.MonkeyPatch, driver: Driver | None) -> None:
    def load(name: str) -> Driver:
        assert name == "libcuda.so.1"
        if driver is None:
            raise OSError(f"{name}: cannot open shared object file")
        return driver

    monkeypatch.setattr(ctypes, "CDLL", load)


@pytest.mark.parametrize(("driver", "answer"), [
    (Driver(count=2), (None, 2)),
    (Driver(cc=(8, 0), count=1),
     ("device 0 has compute capability 8.0; sm_90a probes need 9.0", 1)),
    (Driver(cc=(10, 0), count=4),
     ("device 0 has compute capability 10.0; sm_90a probes need 9.0", 4)),
    (Driver(count=0), ("CUDA not usable: no CUDA device is visible", 0)),
    (Driver(init=100), ("CUDA not usable: cuInit failed (CUDA_ERROR_NO_DEVICE)", 0)),
    (Driver(init=999), ("CUDA not usable: cuInit failed (CUresult 999)", 0)),
], ids=["two sm_90 GPUs", "an A100", "a Blackwell", "no device", "no device at init",
        "an unknown error"])
def test_the_driver_says_how_many_gpus_and_whether_device_0_runs_sm90a(
        monkeypatch: pytest.MonkeyPatch, driver: Driver, answer: tuple[str | None, int]) -> None:
    _with(monkeypatch, driver)
    assert device.driver_check() == answer


def test_without_the_driver_library_or_with_an_odd_answer_a_probe_worker_is_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, None)
    assert device.driver_check() is None
    _with(monkeypatch, Driver(attribute_err=1))
    assert device.driver_check() is None
