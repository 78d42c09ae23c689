"""Shared fixtures. Tests import the installed `ptxconf` package; no sys.path surgery."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ptxconf.gpu.runner import ProbeRunner
from ptxconf.oracle.spec import Spec, default_spec


@pytest.fixture(scope="session")
def spec() -> Spec:
    """The bundled spec, loaded and validated once."""
    return default_spec()


@pytest.fixture(scope="module")
def gpu() -> Iterator[ProbeRunner]:
    """A probe worker on a usable sm_90a device; skips with the worker's reason otherwise."""
    with ProbeRunner(timeout_s=120, start_timeout_s=180) as r:
        res = r.call("device.usable_sm90a")
        if not res.ok:
            pytest.skip(f"device check failed in the worker: {res.error}")
        usable, reason = res.value
        if not usable:
            pytest.skip(reason)
        yield r
