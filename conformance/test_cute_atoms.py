"""CuTe MMA atoms (seed 004) against themselves, the layout algebra and seed 001.

One test per check case (ids from spec rows). Then each check is shown to bite: a spec with one
number changed must turn the matching case from PASS into FAIL or DISCREPANCY.
"""

from __future__ import annotations

import dataclasses

import pytest

from ptxconf.core.results import Status
from ptxconf.oracle.checks import cute_atoms
from ptxconf.oracle.records import CuteLayout, RegisterFragment, Row
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
CASES = list(cute_atoms.cases(SPEC))
#: Cases that must report a spec discrepancy, and the fields the message must name.
# Each case's verdict (a pass, or a known discrepancy with its fields) is judged in
# conformance/test_cases.py against spec/findings.yaml; here, what holds the atoms together.


def test_one_layout_case_per_row() -> None:
    rows = SPEC.of(CuteLayout)
    layout_ids = [c.id for c in CASES if c.check == "cute.layout"]
    assert layout_ids == [f"cute.layout[{r.key}]" for r in rows]


def test_cross_document_cases_exist() -> None:
    """The N=8 and N=128 CLayouts are each compared with every k16 accumulator row."""
    ids = {c.id for c in CASES}
    for row_id in ("SM90_64x8.CLayout", "SM90_64x128.CLayout"):
        for frag in ("k16.D.f16", "k16.D.f32"):
            assert (f"cute.clayout_vs_fragment[cute/mma_atoms:{row_id}~"
                    f"wgmma/register_fragments:{frag}]") in ids
    assert "cute.clayout_repeat[cute/mma_atoms:SM90_64x128.CLayout]" in ids
    assert "cute.ss_alayout[cute/mma_atoms:SM90_64xNx16.ALayout.SS]" in ids


# --- every check bites ---------------------------------------------------------------------


def _mutated(row_id: str, cls: type[Row] = CuteLayout, **changes: object) -> Spec:
    """The bundled spec with one row's fields changed."""
    target = SPEC.get(cls, row_id)
    rows = tuple(dataclasses.replace(r, **changes) if r is target else r for r in SPEC.rows)
    return Spec(SPEC.root, rows)


def _status(spec: Spec, case_id: str) -> Status:
    found = [c for c in cute_atoms.cases(spec) if c.id == case_id]
    assert len(found) == 1, case_id
    return found[0].run().status


MUTATIONS = {
    "point_index": ("SM70_8x8x4.CLayout.f32", {"points": ((0, 1, 0, 1, 9),)},
                    "cute.layout[cute/mma_atoms:SM70_8x8x4.CLayout.f32]", Status.FAIL),
    "point_row_col": ("SM90_64x8.CLayout", {"points": ((32, 0, 17, 0, 16),)},
                      "cute.layout[cute/mma_atoms:SM90_64x8.CLayout]", Status.FAIL),
    "not_bijective": ("SM70_8x8x4.ALayout.TN", {"layout": "(8,4):(1,4)", "points": ()},
                      "cute.layout[cute/mma_atoms:SM70_8x8x4.ALayout.TN]", Status.FAIL),
    "domain": ("SM90_64x128.CLayout", {"domain": (128, 32)},
               "cute.layout[cute/mma_atoms:SM90_64x128.CLayout]", Status.FAIL),
    "name_codomain": ("SM70_8x8x4.ALayout.NT", {"codomain_mn": (4, 8), "points": ()},
                      "cute.layout[cute/mma_atoms:SM70_8x8x4.ALayout.NT]", Status.FAIL),
    "unparsable": ("SM70_8x8x4.BLayout.NT", {"layout": "((4,2),4):((8,4)"},
                   "cute.layout[cute/mma_atoms:SM70_8x8x4.BLayout.NT]", Status.FAIL),
    "thrid_collides": ("SM70_8x8x4.ThrID", {"layout": "(4,2):(1,2)", "points": ()},
                       "cute.layout[cute/mma_atoms:SM70_8x8x4.ThrID]", Status.FAIL),
    "thrid_size": ("SM90_64x8.ThrID", {"layout": "64:1"},
                   "cute.thread_count[cute/mma_atoms:SM90_64x8.ThrID]", Status.FAIL),
    "repeat_stride": ("SM90_64x128.CLayout",
                      {"layout": "((4,8,4),(2,2,16)):((128,1,16),(64,8,520))", "points": ()},
                      "cute.clayout_repeat[cute/mma_atoms:SM90_64x128.CLayout]", Status.FAIL),
    "ss_thread_stride": ("SM90_64xNx16.ALayout.SS", {"layout": "(128,(64,16)):(1,(1,64))"},
                         "cute.ss_alayout[cute/mma_atoms:SM90_64xNx16.ALayout.SS]", Status.FAIL),
    "ss_value_shape": ("SM90_64xNx16.ALayout.SS",
                       {"layout": "(128,(64,8)):(0,(1,64))", "codomain_mn": (64, 8),
                        "domain": (128, 512)},
                       "cute.ss_alayout[cute/mma_atoms:SM90_64xNx16.ALayout.SS]",
                       Status.DISCREPANCY),
    "comment_fixed": ("SM90_64xNx16.ALayout.SS", {"domain_comment": "(T128,V64x16) -> (M64,K16)"},
                      "cute.domain_comment[cute/mma_atoms:SM90_64xNx16.ALayout.SS]", Status.PASS),
    "comment_threads": ("SM90_64xNx16.ALayout.SS", {"domain_comment": "(T64,V64x16) -> (M64,K16)"},
                        "cute.domain_comment[cute/mma_atoms:SM90_64xNx16.ALayout.SS]",
                        Status.DISCREPANCY),
}


@pytest.mark.parametrize(("row_id", "changes", "case_id", "status"), MUTATIONS.values(),
                         ids=list(MUTATIONS))
def test_mutation_is_caught(row_id: str, changes: dict[str, object], case_id: str,
                            status: Status) -> None:
    assert _status(_mutated(row_id, **changes), case_id) is status


def test_fragment_count_mutation_is_a_discrepancy() -> None:
    """Seed 001 saying N/4 elements for an f32 accumulator would contradict seed 004's N/2."""
    spec = _mutated("k16.D.f32", RegisterFragment, elements="N/4", registers="N/4")
    case_id = ("cute.clayout_vs_fragment[cute/mma_atoms:SM90_64x128.CLayout~"
               "wgmma/register_fragments:k16.D.f32]")
    assert _status(spec, case_id) is Status.DISCREPANCY
