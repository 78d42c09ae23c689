"""Shared fixtures. Tests import the installed `ptxconf` package; no sys.path surgery."""

from __future__ import annotations

import pytest
from ptxconf.oracle.spec import Spec, default_spec


@pytest.fixture(scope="session")
def spec() -> Spec:
    """The bundled spec, loaded and validated once."""
    return default_spec()
