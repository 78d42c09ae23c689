"""How a probe worker loads kernels from the host's compiled modules (`ptxconf.gpu.build`): a
module is loaded at once (one kernel fetched: a module that does not load fails there), and
each other kernel is fetched on its first use, from that module, never compiled again. Checked
with a stand-in CuPy that logs what is asked of it."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import NamedTuple

import pytest

from ptxconf.gpu import build


class _Variant(NamedTuple):
    kernel_name: str


A, B, C = _Variant("probe_a"), _Variant("probe_b"), _Variant("probe_c")


@pytest.fixture
def log(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []

    class RawModule:
        def __init__(self, path: str) -> None:
            seen.append(f"module {path}")
            self.path = path

        def get_function(self, name: str) -> str:
            if "broken" in self.path:
                raise RuntimeError("CUDA_ERROR_INVALID_IMAGE")
            seen.append(f"fetch {name}")
            return f"{self.path}:{name}"

    def never(*_: object) -> None:
        raise AssertionError("a loaded module's kernel was compiled again")

    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(RawModule=RawModule))
    monkeypatch.setattr(build, "_modules", {})
    monkeypatch.setattr(build, "_kernels", {})
    monkeypatch.setattr(build, "_pending", {})
    monkeypatch.setattr(build, "_cupy_module", never)
    return seen


def test_a_loaded_modules_kernels_are_fetched_on_first_use_only(log: list[str]) -> None:
    assert build.load_kernels([A, B, C], "m.cubin") == 3
    assert log == ["module m.cubin", "fetch probe_a"]
    assert build.wgmma_kernels([B]) == {B: "m.cubin:probe_b"}
    assert build.wgmma_kernels([B, A]) == {B: "m.cubin:probe_b", A: "m.cubin:probe_a"}
    assert log == ["module m.cubin", "fetch probe_a", "fetch probe_b"]  # C never used
    assert build.load_kernels([A, C], "m.cubin") == 2  # loaded already: nothing asked
    assert len(log) == 3


def test_a_module_that_does_not_load_fails_when_loaded(log: list[str]) -> None:
    with pytest.raises(RuntimeError, match="INVALID_IMAGE"):
        build.load_kernels([A, B], "broken.cubin")
