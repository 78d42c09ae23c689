"""The mma.sync fragment proofs (oracle/proofs/mma_fragments.py): every fragment row of the PTX
ISA is a bijection onto its operand, and every CuTe SM80/SM89 layout an atom reads an operand
with is that row's map.

Worked by hand (the same as test_checks_mma_fragments.py's): m16n8k8's C with the +8 of c2, c3
dropped puts lane 0's c0 and c2 both at (row 0, col 0), the smallest such pair; the tf32 BLayout
with its thread strides exchanged first differs from the ISA at (T1, V0): index 1 against 8.
"""

from __future__ import annotations

import dataclasses

import pytest
from scratch_spec import default_row_replaced

from ptxconf.core.cases import execute
from ptxconf.core.results import Result, Status
from ptxconf.oracle.proofs import mma_fragments
from ptxconf.oracle.proofs.cases import claim_case
from ptxconf.oracle.records import MmaFragment
from ptxconf.oracle.spec import Spec, default_spec

pytestmark = pytest.mark.z3

TIMEOUT_S = 30.0
SPEC = default_spec()
FRAG = "warp/mma_fragments"
LAYOUTS = "cute/mma_layouts_sm80"


def _run(spec: Spec, claim_id: str) -> Result:
    found = [c for c in mma_fragments.claims(spec) if c.id == claim_id]
    assert len(found) == 1, f"{claim_id}: {len(found)} claims"
    return execute(claim_case(found[0], TIMEOUT_S))


@pytest.mark.parametrize("claim_id", [c.id for c in mma_fragments.claims(SPEC)])
def test_every_claim_of_the_bundled_spec_is_proved(claim_id: str) -> None:
    res = _run(SPEC, claim_id)
    assert (res.status, res.code, res.fields["proof_status"]) == (Status.PASS, "ok", "proved")


def test_a_bijection_per_fragment_row_and_one_claim_per_layout_and_row_pair() -> None:
    names = [c.name for c in mma_fragments.claims(SPEC)]
    assert names.count("mma_fragment_bijective") == len(SPEC.of(MmaFragment))
    keys = {c.key for c in mma_fragments.claims(SPEC) if c.name == "mma_fragment_is_cute"}
    assert f"{LAYOUTS}:SM80_16x8x8.F16.CLayout~{FRAG}:m16n8k8.C.f16" in keys
    assert f"{LAYOUTS}:SM80_16x8x8.F16.CLayout~{FRAG}:m16n8k8.C.f32" in keys
    assert len(keys) == names.count("mma_fragment_is_cute")


def test_a_dropped_offset_is_refuted_with_the_two_elements_it_merges() -> None:
    row = SPEC.get(MmaFragment, "m16n8k8.C.f32")
    flat = (row.row[0], dataclasses.replace(row.row[1], value="groupID"))
    spec = default_row_replaced("MmaFragment", row.id, row=flat)
    res = _run(spec, f"proof.mma_fragment_bijective[{FRAG}:m16n8k8.C.f32]")
    assert (res.status, res.code) == (Status.DISCREPANCY, "refuted")
    assert res.fields["counterexample"] == {
        "points": [{"lane": 0, "element": 0}, {"lane": 0, "element": 2}],
        "element": {"row": 0, "col": 0}}
    assert "m16n8k8.C.f32" in res.fields["reproduce_python"]


def test_a_cute_layout_other_than_the_isas_is_refuted_at_its_first_point() -> None:
    spec = default_row_replaced("CuteLayout", "SM80_16x8x8.TF32.BLayout",
                                layout="((4,8),2):((1,8),32)")
    res = _run(spec, f"proof.mma_fragment_is_cute[{LAYOUTS}:SM80_16x8x8.TF32.BLayout"
                     f"~{FRAG}:m16n8k8.B.tf32]")
    assert (res.status, res.code) == (Status.DISCREPANCY, "refuted")
    assert res.fields["counterexample"] == {"point": {"thread": 1, "value": 0}, "cute": 1, "ptx": 8}
