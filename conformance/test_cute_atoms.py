"""CuTe MMA atoms (seed 004, oracle/checks/cute_atoms.py) against themselves, the layout algebra and
seed 001.

One test per check case (ids from spec rows). Then each check is shown to bite: a spec with one
number changed must turn the matching case from PASS into FAIL or DISCREPANCY; and the outcome of
one case, built inside its test from `cute_atoms.cases(spec)` on a scratch copy of the spec with
one row's text edited (conformance/scratch_spec.py), is asserted by status, code and every field
(an expect_equal verdict's documented, derived, source and witness) and by the values its message
names that no field holds; the messages' wording is pinned by messages_checks.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from case_outcomes import expect_fields, expect_mismatch_fields, expect_named
from case_outcomes import run_case as _run
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.checks import cute_atoms
from ptxconf.oracle.records import CuteLayout, RegisterFragment, Row
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
CASES = list(cute_atoms.cases(SPEC))
ATOMS = "cute/mma_atoms"
ATOMS_FILE = "cute/mma_atoms.yaml"
# the full CLayout of SM90_64x128x16_F16F16F16F16_TN, as mma_atoms.yaml spells it
C128 = "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"
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


# --- the SM90 CLayout against the accumulator fragment, repeated ----------------------------------


def test_the_64x8_clayout_holds_the_k16_accumulators_4_values() -> None:
    """(T128,V4): 4 values per thread; k16.D.f16 has N/2 = 4 elements at N = 8."""
    res = _run(cute_atoms.cases(SPEC),
               f"cute.clayout_vs_fragment[{ATOMS}:SM90_64x8.CLayout~wgmma/register_fragments:k16.D.f16]")
    expect_fields(res, Status.PASS, "ok")
    expect_named(res, "N=8", "4 values per thread", "k16.D.f16")


def test_a_codomain_that_is_not_threads_x_values_fails(tmp_path: Path) -> None:
    """SM90_64x8.CLayout's codomain edited to [64, 16]: 1024 cells, the layout maps 128 x 4."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "codomain_mn: [64, 8]", "codomain_mn: [64, 16]")
    res = _run(cute_atoms.cases(spec),
               f"cute.clayout_vs_fragment[{ATOMS}:SM90_64x8.CLayout~wgmma/register_fragments:k16.D.f16]")
    expect_mismatch_fields(res, f"{ATOMS}:SM90_64x8.CLayout", 1024, "its 64x16 codomain", 512)
    expect_named(res, "threads x values of SM90_64x8.CLayout")


def test_an_sm90_clayout_at_a_k_of_no_accumulator_fails(tmp_path: Path) -> None:
    """SM90_64x128.CLayout's atom edited to SM90_64x128x24_...: the register-fragment table has D
    rows at k16, k8, k32 and k256, none at k24."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "atom: SM90_64x128x16_F16F16F16F16_TN",
                       "atom: SM90_64x128x24_F16F16F16F16_TN")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    res = _run(cute_atoms.cases(spec), f"cute.clayout_repeat[{key}]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, key, "k24")


def test_an_sm90_clayout_that_is_not_the_repeated_atom_fails(tmp_path: Path) -> None:
    """SM90_64x128.CLayout's repeat stride edited to 256: 128 / 8 = 16 repeats of the 64x8 atom
    ((4,8,4),(2,2)):((128,1,16),(64,8)) step by its 64 x 8 = 512 cells, a last value mode 16:512."""
    bad = "((4,8,4),(2,2,16)):((128,1,16),(64,8,256))"
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", 'layout: "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"',
                       f'layout: "{bad}"')
    key, good = f"{ATOMS}:SM90_64x128.CLayout", "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"
    res = _run(cute_atoms.cases(spec), f"cute.clayout_repeat[{key}]")
    expect_fields(res, Status.FAIL, "mismatch", documented=bad, derived=good)
    expect_named(res, "64x8", "16 times")


# --- a ThrID's thread count -----------------------------------------------------------------------


def test_a_thrid_of_an_architecture_with_no_layouts_fails(tmp_path: Path) -> None:
    """SM90_64x8.ThrID's atom edited to SM75_64x8x16_...: no C/A/B row is an SM75 layout."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "id: SM90_64x8.ThrID\n    atom: SM90_64x8x16",
                       "id: SM90_64x8.ThrID\n    atom: SM75_64x8x16")
    key = f"{ATOMS}:SM90_64x8.ThrID"
    res = _run(cute_atoms.cases(spec), f"cute.thread_count[{key}]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, key, "SM75")


def test_a_thrid_of_64_threads_fails_against_the_first_sm90_layout(tmp_path: Path) -> None:
    """SM90_64x8.ThrID edited to 64:1; the first SM90 layout, SM90_64x8.CLayout, has a thread
    mode (4,8,4) of 128."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", 'layout: "128:1"', 'layout: "64:1"')
    key = f"{ATOMS}:SM90_64x8.ThrID"
    res = _run(cute_atoms.cases(spec), f"cute.thread_count[{key}]")
    expect_mismatch_fields(res, key, 64, f"{ATOMS}:SM90_64x8.CLayout", 128)
    expect_named(res, "threads of SM90_64x8.CLayout")


# --- one row's layout, its points and the SS ALayout ----------------------------------------------


def test_an_id_that_names_no_atom_fails(tmp_path: Path) -> None:
    """SM70_8x8x4.CLayout.f16's id edited to Volta.CLayout.f16: no SM<arch>_<M>x<N> prefix."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "id: SM70_8x8x4.CLayout.f16", "id: Volta.CLayout.f16")
    key = f"{ATOMS}:Volta.CLayout.f16"
    res = _run(cute_atoms.cases(spec), f"cute.layout[{key}]")
    expect_fields(res, Status.FAIL, "mismatch")
    expect_named(res, key, "'SM70_8x8x4_F16F16F16F16_NT'", "'Volta.CLayout.f16'")


def test_a_point_whose_index_the_layout_does_not_give_fails(tmp_path: Path) -> None:
    """64x128's point (T0, V4) edited to index 513; V4 is (0,0,1) in (2,2,16), offset 512."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "points: [[0, 4, 0, 8, 512]]", "points: [[0, 4, 0, 8, 513]]")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    res = _run(cute_atoms.cases(spec), f"cute.layout[{key}]")
    expect_mismatch_fields(res, f"{key} points", 513, C128, 512)
    expect_named(res, "layout(0, 4)")


def test_a_domain_other_than_the_shape_fails(tmp_path: Path) -> None:
    """64x128's domain edited to [128, 32]; its shape is 4*8*4 = 128 threads x 2*2*16 = 64 values."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "domain: [128, 64]", "domain: [128, 32]")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    res = _run(cute_atoms.cases(spec), f"cute.layout[{key}]")
    expect_mismatch_fields(res, key, (128, 32), f"the shape of {C128}", (128, 64))


def test_a_thrid_codomain_past_its_warp_fails(tmp_path: Path) -> None:
    """SM70 ThrID codomain edited to [64, 1]; (4,2):(1,16) reaches 3 + 16 = 19, one 32-thread warp."""
    spec = edited_spec(tmp_path, ATOMS_FILE, "codomain_mn: [32, 1]", "codomain_mn: [64, 1]")
    key = f"{ATOMS}:SM70_8x8x4.ThrID"
    res = _run(cute_atoms.cases(spec), f"cute.layout[{key}]")
    expect_mismatch_fields(res, key, (64, 1), "the whole warps that (4,2):(1,16) reaches", (32, 1))
    expect_named(res, "ThrID codomain (threads, 1)")


def test_ss_alayout_values_must_be_column_major(tmp_path: Path) -> None:
    """SS ALayout edited to (128,(64,16)):(0,(16,1)); column-major m + k * 64 is strides (1, 64)."""
    spec = edited_spec(tmp_path, ATOMS_FILE, 'layout: "(128,(64,16)):(0,(1,64))"',
                       'layout: "(128,(64,16)):(0,(16,1))"')
    key = f"{ATOMS}:SM90_64xNx16.ALayout.SS"
    res = _run(cute_atoms.cases(spec), f"cute.ss_alayout[{key}]")
    expect_mismatch_fields(res, key, (16, 1), "the column-major index m + k * M", (1, 64))
