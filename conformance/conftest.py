"""Shared fixtures. Tests import the installed `ptxconf` package; no sys.path surgery."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import Case
from ptxconf.core.context import RunContext
from ptxconf.oracle.spec import Spec, default_spec


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
    ctx = RunContext(gpu="on", device=_xdist_device())
    try:
        yield {c.id: c for p in REGISTRY if p.gpu for c in p.load(spec, ctx)}
    finally:
        ctx.close()


def _xdist_device() -> int | None:
    """Under pytest-xdist (`pytest -m gpu -n <GPUs> --dist loadgroup`), worker gw<i> probes on
    the (i mod GPUs)-th visible GPU: one worker per device."""
    import os

    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return None
    from ptxconf.gpu.session import gpu_count

    return int(worker[2:]) % max(gpu_count(), 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """GPU cases grouped for `--dist loadgroup`: a compiled module's variants (and the device
    checks) stay on one worker, so each module is loaded once per worker; the other families
    go by family."""
    from ptxconf.gpu.families.sweep import module_of

    spec_ = default_spec()
    for item in items:
        case_id = getattr(item, "callspec", None) and item.callspec.params.get("case_id")
        if not case_id or item.get_closest_marker("gpu") is None:
            continue
        group = module_of(spec_, case_id) or case_id.split("[", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))
