"""The one registry of providers: every source of cases, always registered.

A provider turns the spec into cases. Its `requires` names what it needs (z3, NVRTC, CuPy, a
GPU); where one is missing the provider still answers, with a skip per case (or one row when
its cases cannot even be listed without the dependency) that says why. Providers import their
modules lazily, so a missing dependency is a skip row, never a vanished provider.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ptxconf.core.cases import Case, case
from ptxconf.oracle.spec import Spec


@dataclass
class RunContext:
    """What one run shares between providers: its options and resources closed at its end."""

    gpu: str = "auto"
    proof_timeout_s: float = 20.0
    #: Reuse decided proof outcomes from the disk cache (oracle/proofs/cache.py).
    proof_cache: bool = False
    #: Reuse compiled kernel modules from the disk cache (ptxconf/gpu/kcache.py).
    kernel_cache: bool = True
    #: Worker processes for the proofs (0: prove in the provider's own thread).
    proof_workers: int = 0
    #: Which case ids the run will execute (None: all); a provider that works ahead (the
    #: proofs' worker pool) starts only these.
    wanted: Callable[[str], bool] | None = None
    #: Which visible GPU this context's probe worker uses (None: CUDA's default).
    device: int | None = None
    shared: dict[str, Any] = field(default_factory=dict)
    closers: list[Callable[[], None]] = field(default_factory=list)

    def resource(self, name: str, make: Callable[[], Any], close: Callable[[Any], None] | None = None) -> Any:
        """One instance of a shared resource (a GPU session) per run, made on first use."""
        if name not in self.shared:
            self.shared[name] = make()
            if close is not None:
                obj = self.shared[name]
                self.closers.append(lambda: close(obj))
        return self.shared[name]

    def close(self) -> None:
        """Close what the run opened, last opened first."""
        while self.closers:
            self.closers.pop()()


@dataclass(frozen=True)
class Requirement:
    """A dependency: `problem()` is None when it is here, else why it is not."""

    name: str
    problem: Callable[[], str | None]


def _module_problem(module: str, hint: str) -> Callable[[], str | None]:
    def problem() -> str | None:
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - any import failure is the reason to skip
            return f"{module} is not importable ({type(exc).__name__}: {exc}); {hint}"
        return None

    return problem


def _nvrtc_problem() -> str | None:
    from ptxconf.gpu import build

    return build.nvrtc_problem()


def _gpu_problem() -> str | None:
    from ptxconf.gpu.session import gpu_problem

    return gpu_problem()


Z3 = Requirement("z3-solver", _module_problem("z3", "pip install z3-solver"))
NVRTC = Requirement("NVRTC", _nvrtc_problem)
CUPY = Requirement("CuPy", _module_problem("cupy", "pip install cupy-cuda13x on a GPU node"))
GPU = Requirement("sm_90a GPU", _gpu_problem)


@dataclass(frozen=True)
class Provider:
    """A named source of cases.

    `cases` (``"module:function"``, called with (spec, ctx)) is imported only when every
    requirement is met; `ids` (``"module:function"``, called with spec, needing none of them)
    lists the case ids so that a missing dependency skips each case by id.
    """

    name: str
    cases: str
    requires: tuple[Requirement, ...] = ()
    ids: str | None = None
    gpu: bool = False

    def problem(self) -> str | None:
        """Why this provider cannot run here, or None."""
        for req in self.requires:
            why = req.problem()
            if why:
                return f"{req.name}: {why}"
        return None

    def load(self, spec: Spec, ctx: RunContext) -> Iterable[Case]:
        """The provider's cases (its dependencies must be met)."""
        return _resolve(self.cases)(spec, ctx)

    def case_ids(self, spec: Spec) -> list[Case] | None:
        """Placeholder cases (id only) for skips, or None when they cannot be listed here."""
        if self.ids is None:
            return None
        return [case(check, key, lambda: None, self.name) for check, key in _resolve(self.ids)(spec)]


def _resolve(ref: str) -> Callable[..., Any]:
    module, _, name = ref.partition(":")
    fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return fn


def _self_consistency(spec: Spec, ctx: RunContext) -> Iterator[Case]:
    from ptxconf.oracle.checks import all_cases

    return all_cases(spec)


def _gpu_family(name: str) -> Provider:
    """The provider of one GPU case family: `ptxconf.gpu.families.<name>`'s cases and ids."""
    module = f"ptxconf.gpu.families.{name}"
    return Provider(f"gpu-{name}", f"{module}:cases", (CUPY, GPU), gpu=True, ids=f"{module}:case_keys")


#: Every provider, in the order a run takes them (CPU first; discovery before end-to-end).
REGISTRY: tuple[Provider, ...] = (
    Provider("spec-lint", "ptxconf.oracle.checks.lint_cases:lint_cases"),
    Provider("self-consistency", "ptxconf.app.providers:_self_consistency"),
    Provider("proofs", "ptxconf.oracle.proofs.cases:provider_cases", (Z3,)),
    Provider("assembler-witness", "ptxconf.gpu.witness:provider_cases", (NVRTC,),
             ids="ptxconf.gpu.witness:case_keys"),
    # The GPU families (ptxconf.gpu.families): the device first, then every instruction variant
    # (its products and D map: a broken D map explains the rest), then the shared-memory maps,
    # address, hypotheses, the explain gallery, the SM70 mma.sync atoms; wmma last (its
    # alignment cases may fault).
    *(_gpu_family(name) for name in ("device", "sweep", "discovery", "address", "hypotheses",
                                     "mistakes", "mma_sync", "wmma")),
)


def provider(name: str) -> Provider:
    """A registered provider by name."""
    for p in REGISTRY:
        if p.name == name:
            return p
    raise KeyError(f"no provider named {name!r}; known: {', '.join(p.name for p in REGISTRY)}")


__all__ = ["CUPY", "GPU", "NVRTC", "REGISTRY", "Z3", "Provider", "Requirement", "RunContext", "provider"]
