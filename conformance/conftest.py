"""Shared fixtures. Tests import the installed `ptxconf` package; no sys.path surgery."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ptxconf.cases import Case
from ptxconf.oracle.spec import Spec, default_spec
from ptxconf.providers import REGISTRY, RunContext


@pytest.fixture(scope="session")
def spec() -> Spec:
    """The bundled spec, loaded and validated once."""
    return default_spec()


@pytest.fixture(scope="session")
def gpu_cases(spec: Spec) -> Iterator[dict[str, Case]]:
    """Every GPU case by id, all sharing one run context (one probe-worker session, opened by
    the first case that runs and closed at the end); skips with `gpu_problem()`'s reason where
    no usable sm_90a device is found."""
    from ptxconf.gpu.session import gpu_problem

    why = gpu_problem()
    if why is not None:
        pytest.skip(why)
    ctx = RunContext(gpu="on")
    try:
        yield {c.id: c for p in REGISTRY if p.gpu for c in p.load(spec, ctx)}
    finally:
        ctx.close()
