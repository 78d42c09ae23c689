"""The ldmatrix / stmatrix proofs (oracle/proofs/warp_matrix.py): every derivable form's fragment is
a bijection onto its matrices, .trans is the transpose of the form without it, and stmatrix
stores every (lane, register, element) where ldmatrix of the same form loads it from.

The claims are built inside each test (`warp_matrix.claims(spec)`), picked by id and run through
`cases.claim_case` (as the run does); an outcome is asserted by status, code and fields; the
messages' wording is pinned by messages_proofs.py.

Expected values are worked by hand from the PTX ISA's words (the same as test_ldmatrix.py's): a
row is four lanes x two 16-bit elements, eight rows one register's worth of 32 lanes. With two
threads a row (a fragment row edited in memory, past the checks that refuse it), lane l holds row
l / 2: lane 16 is the first whose row, 8, is outside an 8x8 matrix; and lane 2, which holds row 1,
column 0 (2 % 2 = 0), is the first where such a stmatrix stores another place than ldmatrix's
lane 2 loads (row 0, columns 4, 5). With stmatrix's .x2 cells exchanged (threads 0-7 supplying
addr8-addr15), lane 0 names row 0 of matrix 1 to stmatrix and of matrix 0 to ldmatrix.
"""

from __future__ import annotations

import pytest
from scratch_spec import default_row_replaced

from ptxconf.core.cases import execute
from ptxconf.core.results import Result, Status
from ptxconf.oracle.proofs import warp_matrix
from ptxconf.oracle.proofs.cases import claim_case
from ptxconf.oracle.spec import Spec, default_spec

pytestmark = pytest.mark.z3

TIMEOUT_S = 30.0
SPEC = default_spec()
LD = "warp/ldmatrix_shapes:ldmatrix.m8n8"
ST = "warp/stmatrix_shapes:stmatrix.m8n8"


def _run(spec: Spec, claim_id: str) -> Result:
    found = [c for c in warp_matrix.claims(spec) if c.id == claim_id]
    assert len(found) == 1, f"{claim_id}: {len(found)} claims"
    return execute(claim_case(found[0], TIMEOUT_S))


@pytest.mark.parametrize("claim_id", [c.id for c in warp_matrix.claims(SPEC)])
def test_every_claim_of_the_bundled_spec_is_proved(claim_id: str) -> None:
    res = _run(SPEC, claim_id)
    assert (res.status, res.code, res.fields["proof_status"]) == (Status.PASS, "ok", "proved")


def test_a_bijection_per_form_a_transpose_per_trans_form_an_inverse_per_stmatrix_form() -> None:
    names = [c.name for c in warp_matrix.claims(SPEC)]
    assert {n: names.count(n) for n in dict.fromkeys(names)} == {
        "warp_fragment_bijective": 12, "warp_trans_transpose": 6, "warp_store_inverts_load": 6}
    keys = {c.key for c in warp_matrix.claims(SPEC) if c.name == "warp_store_inverts_load"}
    assert f"{ST}.x4.trans.b16~{LD}.x4.trans.b16" in keys


def test_the_x4_bijection_counts_its_points() -> None:
    res = _run(SPEC, f"proof.warp_fragment_bijective[{LD}.x4.b16]")
    assert res.fields["facts"]["points"] == 32 * 4 * 2


def test_two_threads_a_row_put_lane_16_outside_the_matrix() -> None:
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", threads_per_row=2)
    res = _run(spec, f"proof.warp_fragment_bijective[{LD}.x2.b16]")
    assert (res.status, res.code, res.fields["proof_status"]) == (
        Status.DISCREPANCY, "refuted", "refuted")
    assert res.fields["counterexample"] == {"point": {"lane": 16, "register": 0, "element": 0},
                                            "element": {"matrix": 0, "row": 8, "col": 0}}
    assert "ldmatrix.m8n8.x2.b16" in res.fields["reproduce_python"]


def test_a_stmatrix_of_two_threads_a_row_stores_lane_2_elsewhere() -> None:
    spec = default_row_replaced("WarpMatrixFragment", "stmatrix.m8n8", threads_per_row=2)
    res = _run(spec, f"proof.warp_store_inverts_load[{ST}.x1.b16~{LD}.x1.b16]")
    assert (res.status, res.code) == (Status.DISCREPANCY, "refuted")
    assert res.fields["counterexample"] == {
        "point": {"lane": 2, "register": 0, "element": 0},
        "store": {"matrix": 0, "row": 1, "col": 0}, "load": {"matrix": 0, "row": 0, "col": 4}}


def test_stmatrix_s_rows_from_other_lanes_refute_the_inverse() -> None:
    spec = default_row_replaced("WarpMatrixAddresses", "stmatrix.x2",
                                addresses=("addr8–addr15", "addr0–addr7", "–", "–"))
    res = _run(spec, f"proof.warp_store_inverts_load[{ST}.x2.b16~{LD}.x2.b16]")
    assert (res.status, res.code) == (Status.DISCREPANCY, "refuted")
    assert res.fields["counterexample"] == {"lane": 0, "store": [1, 0], "load": [0, 0]}


def test_a_row_that_divides_no_warp_is_refuted() -> None:
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", threads_per_row=3)
    res = _run(spec, f"proof.warp_trans_transpose[{LD}.x1.trans.b16]")
    assert (res.status, res.code) == (Status.DISCREPANCY, "refuted")
    assert res.fields["counterexample"] == {"threads_per_row": 3, "lanes": 32}
