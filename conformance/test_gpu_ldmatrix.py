"""The ldmatrix/stmatrix probes (ptxconf.gpu.ldmatrix, ptxconf.gpu.families.ldmatrix), without
a GPU: one kernel per form the H100 runs, written from the rows and compiling for sm_90a, and
the host's data for each case: every element a value of its own at the byte the oracle names,
the lanes without an address pointing at fillers. (The cases against the software model of the
probes and on the device: conformance/test_gpu_cases.py; here, each case fails against a model
whose lanes are off by one, and the .trans cases against one that ignores .trans.)"""

from __future__ import annotations

import numpy as np
import pytest
from emulator import WRONG_MODELS, Emulator, run_emulated, wrong_model_verdict

from ptxconf.app.providers import REGISTRY
from ptxconf.core.results import Status
from ptxconf.gpu import build, plan
from ptxconf.gpu import ldmatrix as L
from ptxconf.gpu.families import ldmatrix as F
from ptxconf.gpu.plan import swizzled_modes
from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle.records import atom_name
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
FORMS = L.probe_forms(SPEC)
NVRTC_PROBLEM = build.nvrtc_problem()
GPU_IDS = [i for p in REGISTRY if p.gpu for i in p.case_ids(SPEC) or ()]


def test_a_kernel_for_every_m8n8_form_and_none_for_a_later_target() -> None:
    """sm_90 runs ldmatrix and stmatrix .m8n8 (.x1/.x2/.x4, with and without .trans, .b16);
    .m16n16, .m8n16 and stmatrix .m16n8 need sm_100a (their shape rows' targets)."""
    names = {v.name for v in L.variants(SPEC)}
    assert names == {f"{i}.m8n8.{n}{t}.b16" for i in ("ldmatrix", "stmatrix")
                     for n in ("x1", "x2", "x4") for t in ("", ".trans")}
    later = [f for f in lm.forms(SPEC, derivable=False) if not L.runs_here(f)]
    assert {f.shape.shape for f in later} == {"m16n16", "m8n16", "m16n8"}
    assert all(v.registers == int(v.name.split(".")[2][1:]) for v in L.variants(SPEC))


def test_the_syntax_line_says_which_way_the_data_moves() -> None:
    assert L.operand_order("ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type r, [p];") == ("r", "[p]")
    by_name = {v.name: v for v in L.variants(SPEC)}
    assert by_name["ldmatrix.m8n8.x4.b16"].loads
    assert not by_name["stmatrix.m8n8.x4.b16"].loads
    assert "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" in L.stanza(
        by_name["stmatrix.m8n8.x2.trans.b16"])
    assert "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" in L.stanza(
        by_name["ldmatrix.m8n8.x2.b16"])
    with pytest.raises(ValueError, match="one register operand and one"):
        L.operand_order("ldmatrix.sync.aligned.shape.num.type r, q;")


@pytest.mark.skipif(NVRTC_PROBLEM is not None, reason=str(NVRTC_PROBLEM))
def test_every_probe_kernel_compiles_for_sm_90a_in_one_module() -> None:
    vs = L.variants(SPEC)
    r = build.nvrtc_compile(build.warp_matrix_source(vs), build.arch_options(), name="warp_matrix_probe.cu",
                            want_ptx=True)
    assert r.ok, r.log[:4000]
    assert r.ptx is not None
    for v in vs:
        assert f".entry {v.kernel_name}(" in r.ptx, v.kernel_name
        assert v.ptx in r.ptx, v.ptx


def _placements(form: lm.Form) -> list[F.Placement]:
    major = "MN" if form.trans else "K"
    return [F.scattered(form), *(F.tiled(SPEC, form, atom_name(major, sw))
                                 for sw in swizzled_modes(SPEC))]


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.name)
def test_every_element_gets_a_value_of_its_own_at_an_aligned_row(form: lm.Form) -> None:
    placements = _placements(form)
    assert len(placements) == 1 + len(swizzled_modes(SPEC)) > 1
    for p in placements:
        values = [v for _, _, v in p.cells]
        assert len(set(values)) == len(values) == form.lanes * form.registers * form.elems_per_register
        assert all(int(a) % form.fragment.alignment_bytes == 0 for a in p.lane_offsets)
        eb = form.shape.element_bits // 8
        filler = 1 << (form.shape.element_bits - 1)
        for lane in p.fields["decoy_lanes"]:  # a lane without an address points at fillers
            row = p.image[int(p.lane_offsets[lane]) // eb:][: form.stored_dims[1]]
            assert all(int(x) & filler for x in row), (form.name, lane)
        if not L.variant(form).loads:  # a store starts from fillers only
            assert all(int(x) & filler for x in p.image)


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.name)
def test_what_a_lane_should_hold_is_the_tiles_element_the_fragment_map_names(form: lm.Form) -> None:
    """The oracle reads every canonical swizzled tile as laid out (no split rows): the value a
    load must bring each lane is the one a store takes from it, and a store puts each at its
    byte."""
    placements = _placements(form)
    assert placements
    for p in placements:
        assert p.fields.get("tile_problems", []) == []
        want = F.expected(form, p)
        if L.variant(form).loads:
            assert np.array_equal(want, F.elements(form, F.registers(form, p)))
        else:
            flat = want.reshape(-1)
            eb = form.shape.element_bits // 8
            assert all(int(flat[a // eb]) == v for _, a, v in p.cells)


def test_the_cases_name_the_cute_atoms_that_issue_their_form() -> None:
    ld = lm.form(SPEC, "ldmatrix.m8n8.x4.trans.b16")
    st = lm.form(SPEC, "stmatrix.m8n8.x1.b16")
    assert F.cute_atoms(SPEC, ld) == ["SM75_U16x8_LDSM_T"]
    assert F.cute_atoms(SPEC, st) == ["SM90_U32x1_STSM_N"]


# --- against the software model of the probes (conformance/emulator.py) ----------------------

#: This family's entries of emulator.WRONG_MODELS (the others: test_gpu_cases.py and the other
#: data-path files).
WRONG_FAMILIES = [f for f in WRONG_MODELS if f.startswith(('gpu.ldmatrix', 'gpu.stmatrix'))]


@pytest.mark.parametrize("family", WRONG_FAMILIES)
def test_a_wrong_model_fails_the_family(family: str) -> None:
    """A device that moves lane t's registers as lane t-1's, or ignores .trans: the case passes
    against the documented model (test_gpu_cases.py) and fails against this one, so the
    judgement reads the device's answer."""
    r, said = wrong_model_verdict(family)
    assert r.status in (Status.FAIL, Status.DISCREPANCY), said
    assert r.code == WRONG_MODELS[family][2], said


#: The ldmatrix/stmatrix cases (every form, scattered and over each swizzled tile).
WARP_MATRIX_IDS = tuple(i for i in GPU_IDS
                        if i.startswith((plan.CHECK_LDMATRIX + "[", plan.CHECK_STMATRIX + "[")))


def test_every_ldmatrix_and_stmatrix_case_fails_against_a_lane_off_by_one_model() -> None:
    """Each case passes against the documented model (above) and fails, with its diff table,
    against a device that moves lane t's registers as lane t-1's: none passes by construction;
    a device that ignores .trans fails exactly the .trans cases."""
    assert len(WARP_MATRIX_IDS) >= 48
    shifted = run_emulated(Emulator(SPEC, wrong="warp_matrix_lane_off_by_one"),
                           only=WARP_MATRIX_IDS)
    assert [r.id for r in shifted] == list(WARP_MATRIX_IDS)
    for r in shifted:
        assert (r.status, r.code) == (Status.FAIL, "silicon_disagrees"), (r.id, r.message)
        assert r.fields["diff"]["mismatches"] > 0
        assert "window" in r.fields["diff"]
    untransposed = run_emulated(Emulator(SPEC, wrong="warp_matrix_trans_ignored"),
                                only=WARP_MATRIX_IDS)
    failed = {r.id for r in untransposed if r.status is Status.FAIL}
    assert failed == {i for i in WARP_MATRIX_IDS if ".trans." in i}


def test_the_module_source_is_the_same_whichever_form_a_process_asks_for_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm replay's worker asks for the forms in another order than the cold run's lanes:
    one source means CuPy's kernel cache answers instead of NVRTC."""
    forms = L.variants(SPEC)
    sources: list[str] = []

    class _Module:
        def get_function(self, name: str) -> str:
            return name

    def compiled(source: str, options: object) -> _Module:
        sources.append(source)
        return _Module()

    monkeypatch.setattr(build, "_cupy_module", compiled)
    for first in (forms[0], forms[-1]):
        monkeypatch.setattr(build, "_kernels", {})
        build.warp_matrix_kernels([first], forms)
    assert len(sources) == 2
    assert sources[0] == sources[1]
