"""A CuTe layout's documented points lie in its codomain (oracle/checks/cute_points.py): the SM90
64x128 CLayout (T128, V64) -> (64, 128).

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
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.checks import cute_points
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
ATOMS = "cute/mma_atoms"
ATOMS_FILE = "cute/mma_atoms.yaml"


def test_a_point_on_the_row_past_the_last_lies_outside(tmp_path: Path) -> None:
    """64x128's point edited to row 64: rows run 0..63 of the 64x128 codomain."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "points: [[0, 4, 0, 8, 512]]", "points: [[0, 4, 64, 8, 512]]")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    res = _run(cute_points.cases(spec), f"cute.points_in_domain[{key}]")
    expect_fields(res, Status.FAIL, "mismatch", point=[0, 4, 64, 8])
    expect_named(res, key, "(T0, V4) -> (64, 8)", "(T128, V64) -> (64, 128)")


def test_a_point_inside_the_codomain_passes() -> None:
    """64x128's point (T0, V4) -> (0, 8) is inside (T128, V64) -> (64, 128)."""
    res = _run(cute_points.cases(SPEC), f"cute.points_in_domain[{ATOMS}:SM90_64x128.CLayout]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "1 points", "(T128, V64) -> (64, 128)")
