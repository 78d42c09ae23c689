"""The wmma checks (oracle/checks/wmma_checks.py): the alignment example adds up (8 .f16x2 registers
= 32 bytes; a stride counts f16 elements, 2 bytes each), its alignment rule and shape, and the
default strides equal the leading dimension (wmma/default_strides.yaml).

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
from case_outcomes import expect_fields, expect_mismatch_fields, expect_named
from case_outcomes import run_case as _run
from case_outcomes import run_module_case as _run_module
from scratch_spec import edited_spec

from ptxconf.core.results import Result, Status
from ptxconf.oracle.checks import (
    wmma_checks,
)
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
EXAMPLE = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"
RULES = "wmma/storage_rules"
WMMA_EXAMPLE = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"


def _example(spec: Spec) -> Result:
    return _run(wmma_checks.cases(spec), f"wmma.alignment_example[{EXAMPLE}]")


def test_the_alignment_example_adds_up() -> None:
    """8 .f16x2 registers = 32 bytes; a stride of f16 elements is 2 bytes each; both multiples 32."""
    res = _example(SPEC)
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "p % 32 == 0", "2*s % 32 == 0")


def test_a_stride_in_bytes_makes_the_examples_2_bytes_per_unit_wrong(tmp_path: Path) -> None:
    """storage_rules' stride_unit edited to bytes: one byte per stride unit, the example says 2."""
    spec = edited_spec(tmp_path, "wmma/storage_rules.yaml", "stride_unit: elems}", "stride_unit: bytes}")
    res = _example(spec)
    expect_mismatch_fields(res, EXAMPLE, 2, f"{RULES}:stride_unit: the stride counts bytes (f16)", 1)


@pytest.mark.parametrize(("column", "what"), [("pointer_multiple_bytes", "pointer multiple"),
                                              ("stride_multiple_bytes", "stride multiple")])
def test_a_multiple_other_than_the_fragment_bytes_fails(tmp_path: Path, column: str,
                                                        what: str) -> None:
    """The example's multiple edited to 64; the alignment rule ties it to 32 fragment bytes."""
    spec = edited_spec(tmp_path, "wmma/alignment_examples.yaml", f"{column}: 32", f"{column}: 64")
    res = _example(spec)
    expect_mismatch_fields(res, EXAMPLE, 64, f"{RULES}:leading_dimension_alignment", 32)
    expect_named(res, what)


def test_alignment_rule_aligned_to_something_else(tmp_path: Path) -> None:
    """leading_dimension_alignment edited to "aligned_to: element_bytes": no rule ties the
    multiples to the fragment bytes."""
    spec = edited_spec(tmp_path, "wmma/storage_rules.yaml", "aligned_to: fragment_bytes}",
                       "aligned_to: element_bytes}")
    got = _run_module(wmma_checks, spec, f"wmma.alignment_example[{WMMA_EXAMPLE}]")
    expect_fields(got, Status.FAIL, "mismatch")
    expect_named(got, "fragment_bytes")


def test_alignment_example_type_of_its_shape(tmp_path: Path) -> None:
    """m16n16k16 edited to "types: [bf16]": the f16 example's shape is there, its type is not."""
    spec = edited_spec(tmp_path, "wmma/default_strides.yaml", "types: [f16], printed_shape: 16x16x16",
                       "types: [bf16], printed_shape: 16x16x16")
    got = _run_module(wmma_checks, spec, f"wmma.alignment_example[{WMMA_EXAMPLE}]")
    expect_fields(got, Status.FAIL, "mismatch")
    expect_named(got, "m16n16k16.f16")


def test_default_strides_of_m16n16k16() -> None:
    """m16n16k16: every one of the six strides is 16, the leading dimension of a 16x16 tile."""
    got = _run_module(wmma_checks, default_spec(), "wmma.default_stride[wmma/default_strides:m16n16k16]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "6 default strides")


def test_printed_shape_against_the_extents(tmp_path: Path) -> None:
    """m16n16k16 printed as 16x16x8: its m, n, k elems spell 16x16x16."""
    spec = edited_spec(tmp_path, "wmma/default_strides.yaml", "printed_shape: 16x16x16",
                       "printed_shape: 16x16x8")
    key = "wmma/default_strides:m16n16k16"
    got = _run_module(wmma_checks, spec, f"wmma.default_stride[{key}]")
    witness = "m_elems, n_elems, k_elems"
    expect_fields(got, Status.FAIL, "mismatch", documented="16x16x8", derived="16x16x16", source=key,
                  witness=witness)
