"""The element-type witness (oracle/checks/element_witness.py): the bit patterns it decodes (the
extreme mantissas under every exponent), the float types it witnesses (PTX names f16, bf16, tf32,
e4m3, e5m2, f32, f64; an 8-bit type has 2^8 = 256 patterns), and a type whose kind its name
contradicts (.e4m3 states a float).

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from case_outcomes import expect_fields, expect_mismatch_fields, expect_named
from case_outcomes import run_case as _run
from case_outcomes import run_module_case as _run_module
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.checks import (
    element_witness,
)
from ptxconf.oracle.spec import default_spec


def test_wide_patterns_hold_the_extreme_mantissas_under_every_exponent() -> None:
    """32 bits: 4096 tops (the 12 bits under and at the sign) times 0, 1, 1<<19, (1<<20)-1."""
    got = element_witness.patterns(32)
    assert got.size == 4096 * 4
    assert [int(x) for x in got[:4]] == [0, 1, 1 << 19, (1 << 20) - 1]
    assert int(got.max()) == 0xFFFFFFFF
    assert got.dtype == np.uint64


def test_float_witness_cases_are_the_float_types() -> None:
    """One element_type.float_witness case per float row of wgmma/element_types.yaml, in order."""
    ids = [c.id for c in element_witness.cases(default_spec()) if c.check != "element_type.name"]
    assert ids == [f"element_type.float_witness[wgmma/element_types:{t}]"
                   for t in ("f16", "bf16", "tf32", "e4m3", "e5m2", "f32", "f64")]


def test_e4m3_witness_decodes_every_pattern() -> None:
    """e4m3 is 8 bits wide: all 2^8 = 256 patterns decode as OCP OFP8's table does."""
    got = _run_module(element_witness, default_spec(), "element_type.float_witness[wgmma/element_types:e4m3]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "e4m3", "256 patterns")


def test_an_fp8_row_whose_kind_is_not_float_fails_against_its_name(tmp_path: Path) -> None:
    """element_types.yaml e4m3 edited to `kind: signed`; the name .e4m3 states a float."""
    spec = edited_spec(tmp_path, "wgmma/element_types.yaml", "kind: float\n    exponent_bits: 4",
                    "kind: signed\n    exponent_bits: 4")
    res = _run(element_witness.cases(spec), "element_type.name[wgmma/element_types:e4m3]")
    expect_mismatch_fields(res, "wgmma/element_types:e4m3", "signed", "its name", "float")
    expect_named(res, "e4m3: kind")
