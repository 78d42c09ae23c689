"""The mode-size checks (oracle/checks/mode_sizes.py): one case per sized mode statement, the size
of a mode of a CuTe layout.

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
from ptxconf.oracle.checks import mode_sizes
from ptxconf.oracle.spec import default_spec

SIZED = ("SM70.ThrID.quad", "SM70.ThrID.pair", "SM70.A.TN.threads", "SM70.A.TN.values",
         "SM70.B.TN.threads", "SM70.B.TN.values", "SM70.A.NT.values", "SM70.A.NT.threads",
         "SM90.C.threads", "SM90.C.pairs", "SM90.C.core", "SM90.C.rows", "SM90.C.warps",
         "SM90.C128.copies")


def test_mode_size_cases_are_the_sized_statements() -> None:
    """One cute.mode_size case per statement with a mode_size, none for the others."""
    ids = [c.id for c in mode_sizes.cases(default_spec())]
    assert ids == [f"cute.mode_size[cute/mode_statements:{i}]" for i in SIZED]


def test_sm90_c_rows_mode_size() -> None:
    """SM90.C.rows: mode [0, 1] of ((4,8,4),(2,2)):((128,1,16),(64,8)) is the 8."""
    got = _run_module(mode_sizes, default_spec(), "cute.mode_size[cute/mode_statements:SM90.C.rows]")
    expect_fields(got, Status.PASS, "ok")
    expect_named(got, "[0, 1]", "SM90_64x8.CLayout", "size 8")
