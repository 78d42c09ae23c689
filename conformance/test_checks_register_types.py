"""The register-type checks (oracle/checks/register_types.py): a register holds 32 bits, an .f16x2
register two 16-bit lanes, a scalar .f32 register one element (PTX ISA 9.7.15.5.1.1), and a
wmma register type reads as .<type><bits>[x<lanes>] of the fragment's element type.

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_fields, expect_named
from case_outcomes import run_module_case as _run_module
from scratch_spec import edited_spec, replaced_row

from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    register_types,
)
from ptxconf.oracle.spec import SpecErrors, default_spec

K16_A = 'register_type: f16x2, elems_per_register: 2, last_index: "7"'
K16_A_KEY = "wgmma/register_fragments:k16.A.f16"
WMMA_EXAMPLE = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"


def test_register_type_lanes_per_register(tmp_path: Path) -> None:
    """k16.A.f16 saying 4 elements per .f16x2 register: the type has 2 lanes (the loader refuses
    the edit first, SPEC-FACT: 64-bit registers; the check, on the row changed in memory)."""
    with pytest.raises(SpecErrors, match="register_fragments.yaml:[0-9]+: SPEC-FACT - row 'k16.A.f16'"):
        edited_spec(tmp_path, "wgmma/register_fragments.yaml", K16_A,
                    K16_A.replace("elems_per_register: 2", "elems_per_register: 4"))
    spec = replaced_row(default_spec(), K16_A_KEY, elems_per_register=4)
    got = _run_module(register_types, spec, f"fragment.register_type[{K16_A_KEY}]")
    expect_fields(got, Status.FAIL, "mismatch", documented=4, derived=2, source=K16_A_KEY,
                  witness="its 2 lanes")
    expect_named(got, ".f16x2")


def test_register_type_scalar_holds_one(tmp_path: Path) -> None:
    """k16.D.f32 ("N/2 number of .f32 registers") saying 2 per register: a scalar .f32 holds 1."""
    row = 'register_type: f32, elems_per_register: 1, last_index: "N/2 - 1", elements: "N/2", figure: 149'
    with pytest.raises(SpecErrors, match="SPEC-FACT - row 'k16.D.f32'"):
        edited_spec(tmp_path, "wgmma/register_fragments.yaml", row,
                    row.replace("elems_per_register: 1", "elems_per_register: 2"))
    key = "wgmma/register_fragments:k16.D.f32"
    spec = replaced_row(default_spec(), key, elems_per_register=2)
    got = _run_module(register_types, spec, f"fragment.register_type[{key}]")
    witness = "a scalar register type"
    expect_fields(got, Status.FAIL, "mismatch", documented=2, derived=1, source=key, witness=witness)
    expect_named(got, ".f32")


def test_wmma_register_type_must_read_as_a_type(tmp_path: Path) -> None:
    """The alignment example's ".f16x2" cut to "f16x": no lane count after the x."""
    spec = edited_spec(tmp_path, "wmma/alignment_examples.yaml", "register_type: f16x2", "register_type: f16x")
    key = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"
    got = _run_module(register_types, spec, f"wmma.register_type[{key}]")
    expect_fields(got, Status.FAIL, "mismatch")
    expect_named(got, key, "'f16x'")


def test_wmma_scalar_register_of_another_type(tmp_path: Path) -> None:
    """The alignment example's registers edited to ".f32": a scalar register holds its own type,
    f32, the example's elements are f16."""
    spec = edited_spec(tmp_path, "wmma/alignment_examples.yaml", "register_type: f16x2", "register_type: f32")
    got = _run_module(register_types, spec, f"wmma.register_type[{WMMA_EXAMPLE}]")
    witness = "a scalar register holds its own type"
    expect_fields(got, Status.FAIL, "mismatch", documented="f32", derived="f16", source=WMMA_EXAMPLE,
                  witness=witness)
    expect_named(got, ".f32")
