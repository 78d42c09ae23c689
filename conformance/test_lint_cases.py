"""The lint cases (oracle/lint/cases.py): one case per spec file, passing where every lint
rule passes.

The cases are built inside each test from the module's `cases(spec)` (case_outcomes.run_case /
run_module_case) and executed; an outcome is asserted by status, code and every field, and by the
values its message names that no field holds (case_outcomes.expect_named); the messages' wording
is pinned by messages_checks.py. A failing outcome comes from a scratch copy of the bundled spec
with one row's text edited (conformance/scratch_spec.py); an expect_equal verdict's fields are
documented, derived, source and witness (ptxconf.core.cases.expect_equal).
"""

from __future__ import annotations

from case_outcomes import expect_fields, expect_named

from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.oracle.lint.cases import lint_cases
from ptxconf.oracle.spec import default_spec


def test_lint_case_of_the_instruction_operands_file() -> None:
    """wgmma/instruction_operands.yaml: "kind: instruction_operand", four rows (imm-trans-a/b,
    imm-scale-a/b)."""
    found = [c for c in lint_cases(default_spec()) if c.id == "spec.lint[wgmma/instruction_operands]"]
    assert len(found) == 1
    got = execute(found[0])
    expect_fields(got, Status.PASS, "ok", rows=4, kinds={"instruction_operand": 4})
    expect_named(got, "wgmma/instruction_operands.yaml", "4 rows")
    assert got.provider == "spec-lint"
