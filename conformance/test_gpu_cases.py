"""The GPU cases: every one runs here against a software model of the probes, and on a GPU.

* Every GPU case of every GPU family (the providers of `ptxconf.app.providers.REGISTRY`, by id)
  runs against `Emulator` (conformance/emulator.py), a software model of the probes that
  reads operands the way the oracle's documented readings say (and a wmma fragment map of its
  own): each must pass. And each family of those cases (each hypothesis and each mistake case
  on its own) must fail against a wrong model (`emulator.WRONG_MODELS`: the emulator answering
  with a wrong reading, `emulator.WRONG`), so a pass against the documented model is not a pass
  by construction: here for the wgmma families, in each data-path family's own file for the
  others (test_gpu_mma_sync.py, test_gpu_ldmatrix.py, test_gpu_tma.py, test_gpu_tma_pairing.py,
  test_gpu_wmma.py). A model that swizzles element offsets instead of bytes must be caught,
  with the hypothesis case naming the reading it followed; a model that moves the swizzle phase
  by the base-offset field (what the H100 did) must give the known finding.
* The case ids are stable: the committed evidence is keyed by them.
* With the `gpu` marker, every GPU case runs on the device, all in one session, each judged as
  `ptxconf check` judges it (`judge(execute(case))`); they skip with `gpu_problem()`'s reason
  where no usable sm_90a device is found.

(The kernels compile: test_gpu_compile.py; the variant space and its modules: test_gpu_space.py;
the interpretation round trips: test_interpret.py and test_interpret_placement.py.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from emulator import (  # conformance/emulator.py
    ADDRESS_VARIANT,
    MMA_SYNC_WRONG,
    WRONG,
    WRONG_MODELS,
    Emulator,
    emulated_context,
    run_emulated,
    wrong_model_verdict,
)

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import Case, execute
from ptxconf.core.results import Status
from ptxconf.gpu import plan
from ptxconf.gpu.variants import parse_wgmma
from ptxconf.oracle.findings import judge
from ptxconf.oracle.records import CuteMmaTraits, InstructionType
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
PLAN = plan.plan(SPEC)
EVIDENCE = Path(__file__).resolve().parent.parent / "reports" / "evidence"
#: The GPU providers, in run order, and every GPU case id they list (no CuPy, no device).
GPU_PROVIDERS = tuple(p for p in REGISTRY if p.gpu)
GPU_IDS = [i for p in GPU_PROVIDERS for i in p.case_ids(SPEC) or ()]
#: Per evidence folder, the case families added after that device's committed run: their ids
#: are compared once a run of that device holding them is committed (then its entry goes). The
#: H200 run (2f2d992) predates the data-path families; the H100 run (2e42fb2) holds them all.
NEWER_THAN_EVIDENCE: dict[str, tuple[str, ...]] = {
    "h200": (plan.CHECK_LDMATRIX + "[", plan.CHECK_STMATRIX + "[", "gpu.tma_write",
             "gpu.mma_sync[SM80_", "gpu.mma_sync[SM89_", "gpu.tma_pairing")}
#: Case families the committed evidence holds that the variant sweep replaced (its products and
#: maps cover every variant): ignored there until evidence of the sweep is committed.
RETIRED_IN_EVIDENCE: tuple[str, ...] = ()
#: Case ids that name an implementation partition, not a fact: the compile batches follow
#: `space.KERNELS_PER_MODULE` and the compile-cost balance, so evidence of an earlier
#: partition holds other ones (the kernels they hold are the same variants).
PARTITION_IDS = ("gpu.compile[",)
#: Cases that claim the H100's reading of the base-offset field (finding
#: base-offset-field-moves-phase), which the documented model does not follow: they run against
#: the H100 model in conformance/test_explain_gpu.py.
H100_READING = tuple(i for i in GPU_IDS if i.startswith("gpu.mistake[start_misaligned_")
                     or (i.startswith("gpu.tma_pairing[") and i.endswith(".off_rule]")))


def test_gpu_case_ids_match_the_evidence() -> None:
    """The ids are stable: the committed evidence and the known findings are keyed by them."""
    runs = sorted(EVIDENCE.glob("*/results.json"))
    if not runs:
        pytest.skip(f"no evidence under {EVIDENCE}")
    assert len(GPU_IDS) == len(set(GPU_IDS))
    for path in runs:
        data = json.loads(path.read_text(encoding="utf-8"))
        ids = {r["id"] for r in data["results"] if r["id"].startswith("gpu.")
               and not r["id"].startswith(PARTITION_IDS)
               and not (RETIRED_IN_EVIDENCE and r["id"].startswith(RETIRED_IN_EVIDENCE))}
        newer = NEWER_THAN_EVIDENCE.get(path.parent.name, ())
        want = {i for i in GPU_IDS if not i.startswith(PARTITION_IDS) and (
            i in ids or not newer or not i.startswith(newer))}
        assert ids == want, (path, sorted(ids ^ want)[:8])


# --- the cases against a software model of the probes (conformance/emulator.py) ----------------

@pytest.fixture(scope="module")
def emulated() -> Iterator[dict[str, Case]]:
    """Every GPU case by id, sharing one session with the documented model."""
    ctx = emulated_context(Emulator(SPEC))
    try:
        yield {c.id: c for p in GPU_PROVIDERS for c in p.load(SPEC, ctx)}
    finally:
        ctx.close()


#: Fields some cases must show against the documented model (the reading it follows).
EXPECTED_FIELDS: dict[str, dict[str, Any]] = {
    "gpu.hypothesis[swizzle_unit]": {"silicon_followed": ["bytes"]},
    "gpu.hypothesis[mn_lbo_sbo_roles]": {"silicon_followed": ["as_documented"]},
    "gpu.hypothesis[k_swizzled_lbo]": {"silicon_followed": ["ignored"]},
    "gpu.hypothesis[base_offset]": {"silicon_followed": {
        "field 0": ["absolute", "absolute_minus_field"],
        "field per rule, start on a 128-B row": ["absolute"],
        "field per rule, start inside a 128-B row": ["absolute"]}},
    "gpu.hypothesis[a_regs_like_d16]": {"silicon_followed": "a_regs_like_d16"},
}


#: The variant cases the software model runs: every form of every type row at its smallest,
#: a middle and its largest N (the whole space runs on a GPU; here it would take minutes).
SAMPLE_NS = {(r.k_elems, r.dtype, r.atype, r.btype): plan.n_values(SPEC, r)
             for r in SPEC.of(InstructionType)}
EMULATED_IDS = [i for i in GPU_IDS if i not in H100_READING and (
    not i.startswith(plan.CHECK_VARIANT + "[")
    or (lambda v: v.n in SAMPLE_NS[(v.k, v.dtype, v.atype, v.btype)])(
        parse_wgmma(SPEC, i[len(plan.CHECK_VARIANT) + 1:].split(":")[0])))]


#: The families whose cases each compile kernels (seconds each): by default the first case of
#: each runs against the model; the rest are slow.
SWEPT_FAMILIES = ("gpu.compile[", plan.CHECK_VARIANT + "[")
#: The shared-memory map cases (hundreds, one per instruction, operand and layout): by default
#: the first instruction of each operand and layout.
SMEM_MAP = "gpu.smem_map["
EMULATED_SWEEP = ("a compile-bound variant or batch case (tox -e slow): by default the first "
                  "case of its family runs against the model, and every family fails against a "
                  "wrong model (test_a_wrong_model_fails_the_family)")


def _emulated_params() -> list[Any]:
    seen: set[str] = set()
    out = []
    for i in EMULATED_IDS:
        family = next((f for f in SWEPT_FAMILIES if i.startswith(f)), None)
        if i.startswith(SMEM_MAP):  # one instruction per operand and layout
            family = SMEM_MAP + i.rstrip("]").split(":", 1)[1]
        slow = family is not None and family in seen
        if family is not None:
            seen.add(family)
        out.append(pytest.param(i, id=i, marks=[pytest.mark.slow(reason=EMULATED_SWEEP)] * slow))
    return out


@pytest.mark.parametrize("case_id", _emulated_params())
def test_gpu_case_passes_against_the_documented_model(emulated: dict[str, Case],
                                                      case_id: str) -> None:
    c = emulated[case_id]
    r = execute(c)
    allowed_skip = r.status is Status.SKIP and "breaks the rule" in r.message
    assert r.status is Status.PASS or allowed_skip, f"{r.status.value} [{r.code}]: {r.message}"
    assert r.provider.startswith("gpu-")
    assert r.id == case_id
    assert r.device == "emulator (cc 9.0; driver -; CUDA runtime -; CuPy -)"
    size = len(json.dumps(r.fields, default=str))
    assert size < 40_000, f"{size} bytes of fields: the report embeds every result's fields"
    for key, want in EXPECTED_FIELDS.get(case_id, {}).items():
        assert r.fields[key] == want, (key, r.fields[key])
    if r.check == plan.CHECK_WMMA_LOAD:
        assert r.fields["map"]
        assert r.fields["map_fingerprint"].startswith("sha256:")
    if r.check == plan.CHECK_COMPILE and c.key != plan.WMMA_BATCH:
        assert r.fields["all_ones"]["kernels"] == len(PLAN.wgmma_batches[c.key])


def emulated_family(case_id: str) -> str:
    """What `WRONG_MODELS` is keyed by: the case id of a hypothesis or mistake case, else the
    family (the id up to its '[')."""
    family = case_id.split("[")[0]
    return case_id if family in ("gpu.hypothesis", "gpu.mistake") else family


def test_every_emulated_family_has_a_wrong_model() -> None:
    families = {emulated_family(i) for i in EMULATED_IDS}
    assert families == set(WRONG_MODELS), (sorted(families - set(WRONG_MODELS)),
                                           sorted(set(WRONG_MODELS) - families))
    assert all(case_id in EMULATED_IDS and emulated_family(case_id) == family
               for family, (case_id, _, _) in WRONG_MODELS.items())
    assert len(WGMMA_FAMILIES) > len(DATA_PATH)
    assert all(any(f.startswith(d) for f in WRONG_MODELS) for d in DATA_PATH)
    used = {m["wrong"] for _, m, _ in WRONG_MODELS.values() if "wrong" in m} | set(MMA_SYNC_WRONG)
    assert used == set(WRONG), f"wrong models no case is run against: {set(WRONG) - used}"


#: Cases run against the model that swizzles element offsets (`Emulator(swizzle_unit=
#: "elements")`), shared by test_a_model_that_swizzles_elements_is_caught and the wrong-model
#: test of the swizzle-unit hypothesis (the same run: seconds).
ELEMENTS_IDS = ("gpu.variant[wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16:SS:t00]",
                "gpu.smem_map[wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16:A:K_SW128]",
                "gpu.hypothesis[swizzle_unit]")


@pytest.fixture(scope="module")
def swizzles_elements() -> dict[str, Any]:
    """ELEMENTS_IDS run in one session against the model that swizzles element offsets."""
    return {r.id: r for r in run_emulated(Emulator(SPEC, swizzle_unit="elements"),
                                          only=ELEMENTS_IDS)}


#: The data-path families, whose wrong models their own test files run (emulator.WRONG_MODELS).
DATA_PATH = ("gpu.mma_sync", "gpu.ldmatrix", "gpu.stmatrix", "gpu.tma_write", "gpu.tma_pairing",
             "gpu.wmma.")
WGMMA_FAMILIES = [f for f in WRONG_MODELS if not f.startswith(DATA_PATH)]


@pytest.mark.parametrize("family", WGMMA_FAMILIES)
def test_a_wrong_model_fails_the_family(family: str, request: pytest.FixtureRequest) -> None:
    """The case passes against the documented model (above) and fails against this one: the
    judgement reads the device's answer, it does not only restate the oracle."""
    case_id, model, code = WRONG_MODELS[family]
    if model == {"swizzle_unit": "elements"} and case_id in ELEMENTS_IDS:
        r = judge(request.getfixturevalue("swizzles_elements")[case_id])
        said = f"{model}: {r.status.value} [{r.code}]: {r.message}"
    else:
        r, said = wrong_model_verdict(family)
    assert r.status in (Status.FAIL, Status.DISCREPANCY), said
    assert r.code == code, said


def test_a_model_that_swizzles_elements_is_caught(swizzles_elements: dict[str, Any]) -> None:
    """A device that XORs element offsets: e2e and smem maps fail with diff tables, and the
    hypothesis case says which reading it followed (a discrepancy: not the documented one)."""
    e2e_id, smem_id, hyp_id = ELEMENTS_IDS
    results = swizzles_elements
    e2e = results[e2e_id]
    assert e2e.status is Status.FAIL
    assert e2e.code == "silicon_disagrees"
    assert e2e.fields["disagree"] == ["product 32B", "product 64B", "product 128B"]
    assert "differ; first (m " in e2e.message
    assert "window" in e2e.fields["diff"]
    smem = results[smem_id]
    assert smem.status is Status.FAIL
    assert "(m " in smem.message
    assert "ptxconf oracle smem-offsets" in smem.fields["diff"]["oracle"]
    hyp = results[hyp_id]
    assert hyp.status is Status.DISCREPANCY
    assert hyp.code == "silicon_disagrees"
    assert hyp.fields["silicon_followed"] == ["elements"]
    assert judge(hyp).code == "finding_new"


def test_a_base_offset_field_that_moves_the_phase_is_the_known_finding() -> None:
    """What the H100 did: absolute with the field 0, relative with the field set per the rule.
    The address cases record it; the hypothesis case is one discrepancy naming both, and it
    is the known finding (spec/findings.yaml) exactly."""
    emu = Emulator(SPEC, field_moves_phase=True)
    results = {r.id: r for r in run_emulated(emu, only="gpu.hypothesis[base_offset]")}
    hyp = results["gpu.hypothesis[base_offset]"]
    assert hyp.status is Status.DISCREPANCY, hyp.message
    assert hyp.fields["silicon_followed"]["field 0"] == ["absolute", "absolute_minus_field"]
    assert hyp.message == (
        "unaligned operand start (field 0: ['absolute']; field per rule, start on a 128-B row: "
        "['relative']; field per rule, start inside a 128-B row: neither reading): the "
        "base-offset field is not only informative, it moves the swizzle phase; "
        "swizzle(start + offset - (field << 7)) fits every probe")
    judged = judge(hyp)
    assert judged.code == "finding_known", judged.message
    starts = run_emulated(emu, only=f"gpu.address.start[{ADDRESS_VARIANT}:K_SW128:+256:")
    assert {r.status for r in starts} == {Status.PASS}
    by_field = {r.fields["base_offset_field"]: r.fields["silicon_followed"] for r in starts}
    assert by_field == {0: ["absolute", "absolute_minus_field"],
                        2: ["absolute_minus_field", "relative"]}


def test_every_gpu_family_is_a_provider() -> None:
    names = [p.name for p in GPU_PROVIDERS]
    assert names == ["gpu-device", "gpu-sweep", "gpu-discovery", "gpu-address", "gpu-hypotheses",
                     "gpu-mistakes", "gpu-mma_sync", "gpu-ldmatrix", "gpu-tma",
                     "gpu-tma_pairing", "gpu-wmma"]
    assert {i for i in GPU_IDS if i.startswith("gpu.mma_sync[")} == {
        f"gpu.mma_sync[SM70_8x8x4_{d}F16F16{d}_{ab}]" for d in ("F32", "F16") for ab in ("NT", "TN")
    } | {f"gpu.mma_sync[{r.id}]" for r in SPEC.of(CuteMmaTraits)}
    assert {"gpu.mma_sync[SM80_16x8x8_F32TF32TF32F32_TN]", "gpu.mma_sync[SM80_16x8x32_S32S8S8S32_TN]",
            "gpu.mma_sync[SM89_16x8x32_F32E5M2E4M3F32_TN]"} <= set(GPU_IDS)
    assert "gpu.variant[wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16:SS:t11]" in GPU_IDS
    assert GPU_IDS[:2] == ["gpu.device[sm_90a]", "gpu.compile[wgmma:00]"]


# --- on a GPU: every case, judged as `ptxconf check` judges it ----------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("case_id", GPU_IDS)
def test_gpu_case(gpu_cases: dict[str, Case], case_id: str,
                  record_property: Any) -> None:
    r = judge(execute(gpu_cases[case_id]))
    if r.device:
        record_property("device", r.device)
    if r.status is Status.PASS:
        return
    if r.status is Status.DISCREPANCY and r.code == "finding_known":
        record_property("finding", r.fields["finding"])
        return
    if r.status is Status.SKIP:
        pytest.skip(r.message)
    pytest.fail(f"[{r.code}] {r.message}", pytrace=False)
