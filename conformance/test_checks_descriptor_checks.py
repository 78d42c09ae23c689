"""The descriptor checks (oracle/checks/descriptor_checks.py): the base-offset mask fills its 3-bit
field (bits 51-49), CUTLASS's GmmaDescriptor witnesses each field's bits (base_offset at
[49,52)), and the fields fit the 64-bit descriptor.

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
from case_outcomes import run_case as _run
from case_outcomes import run_module_case as _run_module
from scratch_spec import descriptor_field_replaced

from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    descriptor_checks,
)
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def test_the_base_offset_mask_fills_the_3_bit_field() -> None:
    """base_offset.yaml mask 7; matrix_descriptor.yaml base_offset: bits 51-49, width 3."""
    res = _run(descriptor_checks.cases(SPEC), "base_offset.field_width[wgmma/base_offset:base_offset.128B]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "mask 7", "3-bit")


def test_base_offset_witness_agrees() -> None:
    """CUTLASS's base_offset_ : 3 at bit [49,52), stored as is: the PTX ISA's bits 51-49."""
    got = _run_module(descriptor_checks, default_spec(), "descriptor.witness[cute/gmma_descriptor:base_offset]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "[49,52)", ">> 0")


def test_base_offset_witness_one_bit_low(tmp_path: Path) -> None:
    """CUTLASS's base_offset read at bit 48: the PTX ISA puts it at bit 49."""
    spec = descriptor_field_replaced("base_offset", "cute/gmma_descriptor", lsb_bits=48)
    got = _run_module(descriptor_checks, spec, "descriptor.witness[cute/gmma_descriptor:base_offset]")
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented=49, derived=48, source="PTX ISA",
                  witness="CUTLASS GmmaDescriptor")


def test_descriptor_field_past_bit_63(tmp_path: Path) -> None:
    """layout_type (bits 63-62) edited to 3 bits wide: bits 62..64, past bit 63."""
    spec = descriptor_field_replaced("layout_type", width_bits=3)
    got = _run_module(descriptor_checks, spec, "descriptor.fields_disjoint[wgmma/matrix_descriptor:*]")
    expect_fields(got, Status.FAIL, "mismatch", lsb=62, width=3)
    expect_named(got, "layout_type", "bit 63")
