"""The completeness checks (oracle/checks/completeness.py): each major-ness and swizzle mode has
exactly one LBO definition, and the CUTLASS witness covers every descriptor field.

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_fields, expect_named
from case_outcomes import run_module_case as _run_module
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    completeness,
)


def test_lbo_coverage_names_an_empty_cell(tmp_path: Path) -> None:
    """LBO.K.swizzled without 128B: K-major 128B has no LBO definition."""
    spec = edited_spec(tmp_path, "wgmma/leading_byte_offset.yaml", "swizzles: [32B, 64B, 128B], used: false",
                       "swizzles: [32B, 64B], used: false")
    got = _run_module(completeness, spec, "offset_definition.coverage[byte_offset_definition:LBO]")
    expect_fields(got, Status.FAIL, "mismatch", cells={"K/128B": []})
    expect_named(got, "K/128B: none")


def test_witness_complete_names_the_missing_field(tmp_path: Path) -> None:
    """The CUTLASS row of base_offset renamed: no witness of the PTX field base_offset is left."""
    spec = edited_spec(tmp_path, "cute/gmma_descriptor.yaml", "{id: base_offset,", "{id: base_offset_x,")
    got = _run_module(completeness, spec, "descriptor.witness_complete[cute/gmma_descriptor:*]")
    expect_fields(got, Status.FAIL, "mismatch", missing=["base_offset"])
    expect_named(got, "cute/gmma_descriptor.yaml", "['base_offset']", "wgmma/matrix_descriptor.yaml")
