"""The one registry of providers: every source of cases, always registered.

A provider turns the spec into cases. Its `requires` names what it needs (z3, NVRTC, CuPy, a
GPU); where one is missing the provider still answers, with a skip per case (or one row when
its cases cannot even be listed without the dependency) that says why. Providers import their
modules lazily, so a missing dependency is a skip row, never a vanished provider.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ptxconf.core.cases import Case, case_id
from ptxconf.core.context import RunContext
from ptxconf.oracle.spec import Spec, spec_sha256


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
    from ptxconf.gpu import toolchain  # its stamp: cuda-bindings is loaded where it changed

    return toolchain.kept_nvrtc_problem()


def _gpu_problem() -> str | None:
    from ptxconf.gpu.session import gpu_problem

    return gpu_problem()


def _z3_problem() -> str | None:
    from ptxconf.oracle.proofs.cache import z3_problem  # its stamp: Z3 is imported where it changed

    return z3_problem()


Z3 = Requirement("z3-solver", _z3_problem)
NVRTC = Requirement("NVRTC", _nvrtc_problem)
CUPY = Requirement("CuPy", _module_problem("cupy", "pip install cupy-cuda13x on a GPU node"))
GPU = Requirement("sm_90a GPU", _gpu_problem)


@dataclass(frozen=True)
class Provider:
    """A named source of cases.

    `cases` (``"module:function"``, called with (spec, ctx)) is imported only when every
    requirement is met; `ids` (``"module:function"``, called with spec, needing none of them)
    lists the cases' (check, key) so that a missing dependency skips each case by id. A GPU
    family may plan its own lane jobs: `jobs` (called with spec, case ids and the chunk size:
    the ids cut into jobs) and `job_weight` (called with spec and a job's ids: its relative
    cost, for running the longest first); without them the lanes cut ids in chunks.
    """

    name: str
    cases: str
    requires: tuple[Requirement, ...] = ()
    ids: str | None = None
    gpu: bool = False
    jobs: str | None = None
    job_weight: str | None = None
    #: Where the provider's results depend only on the spec, ptxconf's code and the tools this
    #: names (``"module:function"``, called with spec: their versions as text), they are kept
    #: in the result cache (ptxconf.core.outcome_cache) under those; None: never kept.
    cache_key: str | None = None

    def problem(self) -> str | None:
        """Why this provider cannot run here, or None."""
        for req in self.requires:
            why = req.problem()
            if why:
                return f"{req.name}: {why}"
        return None

    def load(self, spec: Spec, ctx: RunContext) -> Iterable[Case]:
        """The provider's cases (its dependencies must be met)."""
        cases: Iterable[Case] = _resolve(self.cases)(spec, ctx)
        return cases

    def case_keys(self, spec: Spec) -> list[tuple[str, str]] | None:
        """Every case's (check, key) without running anything, or None when they cannot be
        listed here (a skip of the whole provider then); listed once a spec (they are the
        spec's alone)."""
        if self.ids is None:
            return None
        ids = self.ids
        keys: tuple[tuple[str, str], ...] = spec.memo(
            ("providers.case_keys", ids),
            lambda: tuple((check, key) for check, key in _resolve(ids)(spec)))
        return list(keys)

    def case_ids(self, spec: Spec) -> list[str] | None:
        """Every case id (`<check>[<key>]`) without running anything, or None."""
        keys = self.case_keys(spec)
        return None if keys is None else [case_id(check, key) for check, key in keys]

    def cache_base(self, spec: Spec) -> str | None:
        """The key part of this provider's kept results, or None (its results are not kept)."""
        if self.cache_key is None:
            return None
        return f"{self.name}\0{spec_sha256(spec)}\0{_resolve(self.cache_key)(spec)}"

    def plan_jobs(self, spec: Spec, ids: Sequence[str], chunk: int) -> list[tuple[str, ...]] | None:
        """The provider's own cut of its case ids into lane jobs, or None (the lanes' default)."""
        return None if self.jobs is None else _resolve(self.jobs)(spec, ids, chunk)

    def weigh_job(self, spec: Spec, ids: tuple[str, ...]) -> float | None:
        """A job's relative cost by the provider's own measure, or None (the lanes' default)."""
        return None if self.job_weight is None else float(_resolve(self.job_weight)(spec, ids))


def _resolve(ref: str) -> Callable[..., Any]:
    module, _, name = ref.partition(":")
    fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return fn


def _self_consistency(spec: Spec, ctx: RunContext) -> Iterator[Case]:
    from ptxconf.oracle.checks import all_cases

    return all_cases(spec)


def _no_tools(spec: Spec) -> str:
    """The self-consistency checks run no tool: their results depend on the spec and code."""
    return ""


def _gpu_family(name: str, plans_jobs: bool = False) -> Provider:
    """The provider of one GPU case family: `ptxconf.gpu.families.<name>`'s cases and ids (and
    its `jobs` and `job_weight`, where it plans its own lane jobs)."""
    module = f"ptxconf.gpu.families.{name}"
    return Provider(f"gpu-{name}", f"{module}:cases", (CUPY, GPU), gpu=True, ids=f"{module}:case_keys",
                    jobs=f"{module}:jobs" if plans_jobs else None,
                    job_weight=f"{module}:job_weight" if plans_jobs else None)


#: The GPU families that cut their own lane jobs: a hypothesis runs many probes (a job each), a
#: variant's cases share one compiled module (a job a module), a discovery map's host work grows
#: with its tile (chunks by weight).
PLANNING_FAMILIES = ("sweep", "discovery", "hypotheses")


def gpu_case_ids(spec: Spec) -> tuple[str, ...]:
    """Every GPU case id the registry lists (no CuPy, no device needed): the evidence a
    `ptxconf explain` answer may cite."""
    return tuple(i for p in REGISTRY if p.gpu for i in p.case_ids(spec) or ())


#: Every provider, in the order a run takes them (CPU first; discovery before end-to-end).
REGISTRY: tuple[Provider, ...] = (
    Provider("spec-lint", "ptxconf.oracle.lint.cases:lint_cases"),
    Provider("self-consistency", "ptxconf.app.providers:_self_consistency",
             cache_key="ptxconf.app.providers:_no_tools"),
    Provider("proofs", "ptxconf.oracle.proofs.cases:provider_cases", (Z3,)),
    Provider("assembler-witness", "ptxconf.gpu.witness:provider_cases", (NVRTC,),
             ids="ptxconf.gpu.witness:case_keys", cache_key="ptxconf.gpu.toolchain:witness_versions"),
    # The GPU families (ptxconf.gpu.families): the device first, then every instruction variant
    # (its products and D map: a broken D map explains the rest), then the shared-memory maps,
    # address, hypotheses, the explain gallery, the mma.sync atoms, ldmatrix/stmatrix, the TMA
    # writes; wmma last (its alignment cases may fault).
    *(_gpu_family(name, plans_jobs=name in PLANNING_FAMILIES)
      for name in ("device", "sweep", "discovery", "address", "hypotheses", "mistakes", "mma_sync",
                   "ldmatrix", "tma", "tma_pairing", "wmma")),
)


def provider(name: str) -> Provider:
    """A registered provider by name."""
    for p in REGISTRY:
        if p.name == name:
            return p
    raise KeyError(f"no provider named {name!r}; known: {', '.join(p.name for p in REGISTRY)}")


__all__ = ["CUPY", "GPU", "NVRTC", "PLANNING_FAMILIES", "REGISTRY", "Z3", "Provider", "Requirement",
           "RunContext", "gpu_case_ids", "provider"]
