"""The CuTeDSL examples tied to the other documents (oracle/checks/cutedsl_ties.py): a selection
example's type is the type of the printed atoms.

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from case_outcomes import expect_fields, expect_named
from case_outcomes import run_module_case as _run_module

from ptxconf.core.results import Status
from ptxconf.oracle.checks import cutedsl_ties
from ptxconf.oracle.spec import default_spec


def test_example_dtype_case_of_the_selection_example() -> None:
    """select.bf16.K.8x32 chooses K_SW64; atoms_bf16.yaml prints K_SW64.bf16."""
    got = _run_module(cutedsl_ties, default_spec(),
               "cutedsl.example_dtype[cutedsl/worked_examples:select.bf16.K.8x32]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "bf16", "K_SW64.bf16")
