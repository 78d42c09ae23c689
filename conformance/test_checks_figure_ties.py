"""The worked figures tied to the descriptor rows (oracle/checks/figure_ties.py): a figure that
assumes an LBO where its layout uses one.

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
from ptxconf.oracle.checks import figure_ties


def test_figure_assuming_a_used_lbo(tmp_path: Path) -> None:
    """Figure 166 marked lbo_assumed: LBO.K.none is "used: true"."""
    old = ("lbo_u128: 16\n    sbo_u128: 8\n    lbo_assumed: false\n    encode_shift_bits: 4\n"
           "    cite: {anchor: \"Figure 166")
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", old, old.replace("false", "true"))
    key = "wgmma/worked_examples:fig166.K.none.tf32"
    got = _run_module(figure_ties, spec, f"worked_example.lbo_assumed[{key}]")
    witness = "wgmma/leading_byte_offset:LBO.K.none (used: true)"
    expect_fields(got, Status.DISCREPANCY, "documents_disagree", documented=True, derived=False, source=key,
                  witness=witness)
    expect_named(got, "Figure 166")
