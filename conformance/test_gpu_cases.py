"""The GPU cases: every one runs here against a software model of the probes, and on a GPU.

* Every kernel of `ptxconf check --gpu on` compiles for sm_90a with NVRTC (no GPU needed).
* `ptxconf.oracle.interpret` round-trips: encodings, placement, register fragments, digit
  codes; a dump made from the oracle's own maps decodes back to the matrix it came from.
* Every GPU case of every GPU family (the providers of `ptxconf.app.providers.REGISTRY`, by id)
  runs against `Emulator` (conformance/emulator.py), a software model of the probes that
  reads operands the way the oracle's documented readings say (and a wmma fragment map of its
  own): each must pass. And each family of those cases (each hypothesis and each mistake case
  on its own) must fail against a wrong model (`WRONG_MODELS`: the emulator answering with a
  wrong reading, `emulator.WRONG`), so a pass against the documented model is not a pass by
  construction. A model that swizzles element offsets instead of bytes must be caught, with
  the hypothesis case naming the reading it followed; a model that moves the swizzle phase by
  the base-offset field (what the H100 did) must give the known finding.
* With the `gpu` marker, every GPU case runs on the device, all in one session, each judged as
  `ptxconf check` judges it (`judge(execute(case))`); they skip with `gpu_problem()`'s reason
  where no usable sm_90a device is found.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from emulator import (  # conformance/emulator.py
    MISALIGNED,
    WRONG,
    Emulator,
    emulated_context,
    run_case,
    run_emulated,
)

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import Case, execute
from ptxconf.core.results import Status
from ptxconf.gpu import build, operands, plan
from ptxconf.gpu.variants import parse_wgmma
from ptxconf.oracle import facts
from ptxconf.oracle import interpret as I
from ptxconf.oracle.findings import judge
from ptxconf.oracle.records import CuteMmaTraits, InstructionType
from ptxconf.oracle.spec import default_spec

NVRTC_PROBLEM = build.nvrtc_problem()
needs_nvrtc = pytest.mark.skipif(NVRTC_PROBLEM is not None, reason=str(NVRTC_PROBLEM))
SPEC = default_spec()
PLAN = plan.plan(SPEC)
EVIDENCE = Path(__file__).resolve().parent.parent / "reports" / "evidence"
#: The GPU providers, in run order, and every GPU case id they list (no CuPy, no device).
GPU_PROVIDERS = tuple(p for p in REGISTRY if p.gpu)
GPU_IDS = [i for p in GPU_PROVIDERS for i in p.case_ids(SPEC) or ()]
#: Per evidence folder, the case families added after that device's committed run: their ids
#: are compared once a run of that device holding them is committed (then its entry goes). The
#: H200 run (2f2d992) predates the data-path families; the H100 run (7d81b09) holds them all.
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


# --- kernels compile ----------------------------------------------------------------------


#: Why all but the first compile batch are slow, and what covers them by default.
COMPILE_SWEEP = ("the full NVRTC compile sweep (tox -e slow, and on GPU nodes): by default the "
                 "first batch compiles here and gpu.compile's first case runs against the model")


@needs_nvrtc
@pytest.mark.parametrize("key", [pytest.param(k, marks=[pytest.mark.slow(reason=COMPILE_SWEEP)] * (n > 0))
                                 for n, k in enumerate(PLAN.wgmma_batches)], ids=str)
def test_wgmma_case_kernels_compile(key: str) -> None:
    vs = PLAN.wgmma_batches[key]
    r = build.compile_wgmma_cubin(vs)
    assert r.ok, f"{key}: {len(vs)} kernels do not compile as one module:\n{r.log[:4000]}"


@needs_nvrtc
@pytest.mark.slow(reason="the wmma module compiles by default in test_gpu_compile.py "
                  "(test_wmma_probe_compiles: the same kernels, "
                  "test_the_wmma_plan_is_the_compiled_probe_module)")
def test_wmma_case_kernels_compile() -> None:
    problem = build.include_problem()
    if problem:
        pytest.skip(problem)
    r = build.compile_wmma_cubin(PLAN.wmma)
    assert r.ok, r.log[:4000]


def test_the_wmma_plan_is_the_compiled_probe_module() -> None:
    """The wmma kernels `check --gpu on` runs are the module test_gpu_compile.py compiles."""
    from ptxconf.gpu.variants import wmma_probe_variants

    assert PLAN.wmma
    assert build.wmma_source(PLAN.wmma) == build.wmma_source(wmma_probe_variants(SPEC))


def test_the_space_is_every_valid_variant() -> None:
    """Every type row at every N its fragment row allows, SS and RS, .satfinite where the row
    has it, every transpose pair where the type spells them; each kernel in one module."""
    from ptxconf.gpu import space
    from ptxconf.oracle.instructions import valid_n_for

    vs = space.wgmma_variants(SPEC)
    assert len(vs) == len(set(vs))
    for row in SPEC.of(InstructionType):
        mine = [v for v in vs if (v.k, v.dtype, v.atype, v.btype) ==
                (row.k_elems, row.dtype, row.atype, row.btype)]
        ns, _ = valid_n_for(SPEC, row)
        assert sorted({v.n for v in mine}) == list(ns), row.id
        per_n = {(v.a_from_regs, v.satfinite, v.trans_a, v.trans_b) for v in mine if v.n == ns[0]}
        sats = {False, True} if row.satfinite else {False}
        trans = facts.takes_imm_trans(SPEC, row.atype)
        want = {(rs, sat, ta, tb) for rs in (False, True) for sat in sats
                for ta in ((0, 1) if trans and not rs else (0,))
                for tb in ((0, 1) if trans else (0,))}
        assert per_n == want, row.id
        assert len(mine) == len(ns) * len(want), row.id
    held = [v for vs_ in PLAN.wgmma_batches.values() for v in vs_]
    assert sorted(held, key=repr) == sorted(vs, key=repr)
    assert max(len(b) for b in PLAN.wgmma_batches.values()) <= space.KERNELS_PER_MODULE


def test_modules_are_runs_of_consecutive_variants_of_bounded_cost() -> None:
    """Each module is a run of the space order (its variants share host work), holds at most
    KERNELS_PER_MODULE kernels, costs at most the slack over the mean of the fewest modules
    (a lone kernel excepted), and was closed only because the next kernel would not fit."""
    from ptxconf.gpu import space

    vs = space.wgmma_variants(SPEC)
    mods = space.modules(vs)
    assert [v for m in mods for v in m] == list(vs)

    def cost(m: tuple) -> int:
        return sum(space.compile_weight(v) for v in m)

    fewest = -(-len(vs) // space.KERNELS_PER_MODULE)
    budget = sum(space.compile_weight(v) for v in vs) / fewest * space.MODULE_COST_SLACK
    assert all(len(m) <= space.KERNELS_PER_MODULE for m in mods)
    assert all(cost(m) <= budget or len(m) == 1 for m in mods)
    closed = [len(a) == space.KERNELS_PER_MODULE or cost(a) + space.compile_weight(b[0]) > budget
              for a, b in zip(mods, mods[1:], strict=False)]
    assert len(closed) == len(mods) - 1 > 0
    assert all(closed)


def test_every_variant_is_a_case() -> None:
    from ptxconf.gpu import space
    from ptxconf.gpu.families.sweep import variant_key

    want = {f"{plan.CHECK_VARIANT}[{variant_key(v)}]" for v in space.wgmma_variants(SPEC)}
    assert want <= set(GPU_IDS)
    assert len(want) == len(space.wgmma_variants(SPEC))


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


# --- interpretation round trips ---------------------------------------------------------------

DTYPES = ["f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "f32", "s32", "f64", "s4",
          "u4"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_encode_round_trips(dtype: str) -> None:
    lo, hi = I.value_range(SPEC, dtype)
    v = np.arange(max(lo, -4096), min(hi, 4096) + 1)
    assert np.array_equal(I.decode(SPEC, dtype, I.encode(SPEC, dtype, v)), v)


@pytest.mark.parametrize(("dtype", "value", "bits"), [
    ("f16", 1, 0x3C00), ("f16", -2, 0xC000), ("bf16", 1, 0x3F80), ("tf32", 3, 0x40400000),
    ("e4m3", 1, 0x38), ("e4m3", 448, 0x7E), ("e5m2", 1, 0x3C), ("e5m2", -8, 0xC8),
    ("s8", -1, 0xFF), ("s4", -1, 0xF), ("f64", 1, 0x3FF0000000000000),
])
def test_encode_known_bits(dtype: str, value: int, bits: int) -> None:
    """Pinned against IEEE 754 / OCP FP8 bit patterns (numpy agrees for f16/f32/f64)."""
    assert int(I.encode(SPEC, dtype, [value])[0]) == bits


@pytest.mark.parametrize(("dtype", "value"), [("e4m3", 17), ("e4m3", 480), ("e5m2", 9),
                                              ("bf16", 257), ("s8", 128), ("u8", -1)])
def test_encode_refuses_inexact(dtype: str, value: int) -> None:
    with pytest.raises(ValueError, match="is not exactly representable|is out of range|values outside"):
        I.encode(SPEC, dtype, [value])


@pytest.mark.parametrize("dtype", ["f16", "e4m3", "b1", "tf32"])
@pytest.mark.parametrize(("major", "swizzle"), [("K", "none"), ("K", "128B"), ("K", "32B")])
def test_place_gather_round_trip(dtype: str, major: str, swizzle: str) -> None:
    lay = operands.layout(SPEC, dtype, major, swizzle, 64, 256 // I.element_bits(SPEC, dtype))
    offs = I.offsets(SPEC, lay)
    assert I.offsets_injective(offs), lay
    rng = np.random.default_rng(1)
    lo, hi = I.value_range(SPEC, dtype)
    vals = rng.integers(max(lo, -8), min(hi, 8) + 1, size=offs.shape)
    raw = I.encode(SPEC, dtype, vals)
    img = I.place(raw, offs, I.element_bits(SPEC, dtype))
    assert np.array_equal(I.gather(img, offs, I.element_bits(SPEC, dtype)), raw)


def test_compact_strides_pack_the_operand() -> None:
    """The compact LBO/SBO leave no gap: footprint == elements x width (K-major none)."""
    for dtype in ("f16", "e4m3", "tf32", "b1"):
        k = 256 // I.element_bits(SPEC, dtype)
        lay = operands.layout(SPEC, dtype, "K", "none", 64, k)
        offs = I.offsets(SPEC, lay)
        assert I.footprint_bytes(offs, I.element_bits(SPEC, dtype)) == 64 * 32, lay


@pytest.mark.parametrize("name", [
    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16",
    "wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16",
    "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8",
    "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32",
    "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc",
])
def test_fragments_round_trip(name: str) -> None:
    """Matrix -> registers by the oracle's map -> matrix, for D and register A."""
    v = parse_wgmma(SPEC, name, a_from_regs=True)
    rng = np.random.default_rng(2)
    for operand, dtype, shape, nreg in (("D", v.dtype, (v.m, v.n), v.nreg_d),
                                        ("A", v.atype, (v.m, v.k), v.nreg_a)):
        bits = I.element_bits(SPEC, dtype)
        raw = rng.integers(0, 1 << min(bits, 16), size=shape).astype(np.uint64)
        table = I.fragment_table(SPEC, name, operand)
        regs = I.regs_from_matrix(raw, table, facts.warpgroup_threads(SPEC), nreg, bits)
        assert np.array_equal(I.matrix_from_regs(regs, table, shape, bits), raw), operand


def test_digits_round_trip() -> None:
    for dtype in ("e5m2", "b1", "bf16", "s8"):
        plan = I.digit_plan(SPEC, dtype, 5000, "f16")
        codes = np.arange(5000)
        digits = [plan.digit(codes, j) for j in range(plan.digits)]
        assert max(int(d.max()) for d in digits) <= I.exact_limit(SPEC, dtype)
        I.encode(SPEC, dtype, digits[0])  # every digit is exact in the type
        assert np.array_equal(plan.combine(digits), codes)


def test_diff_names_coordinates() -> None:
    exp = np.arange(16).reshape(4, 4)
    act = exp.copy()
    act[1, 2] = 99
    act[3, 0] = 98
    d = I.diff_grid("x", exp, act, axes=("m", "n"))
    assert (d.mismatches, d.first, d.last) == (2, (1, 2), (3, 0))
    assert "(m 1, n 2): expected 6, got 99" in d.message()
    assert "6/99*" in d.details()["window"]


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


_V = "wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16"
#: For every family of emulated cases (each hypothesis and each mistake case by itself, as each
#: judges something else): a case, a wrong model of the device (Emulator keywords) and the
#: code that case must fail with against it, judged as `ptxconf check` judges it.
WRONG_MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "gpu.device": ("gpu.device[sm_90a]", {"wrong": "device_unusable"}, "gpu_unusable"),
    "gpu.compile": ("gpu.compile[wgmma:00]", {"wrong": "k_off_by_one"}, "silicon_disagrees"),
    "gpu.variant": (f"gpu.variant[{_V}:SS:t00]", {"wrong": "d_thread_off_by_one"},
                    "silicon_disagrees"),
    "gpu.smem_map": ("gpu.smem_map[wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16:A:K_SW128]",
                     {"swizzle_unit": "elements"}, "silicon_disagrees"),
    # an observation: it fails when silicon follows none of the readings it tells apart
    "gpu.address.start": (f"gpu.address.start[{_V}:K_SW128:+256:base_offset=2]",
                          {"wrong": "d_thread_off_by_one"}, "silicon_disagrees"),
    "gpu.address.unused_lbo": (
        "gpu.address.unused_lbo[wgmma.mma_async.sync.aligned.m64n136k16.f16.f16.f16:K_SW128]",
        {"wrong": "k_lbo_used"}, "finding_new"),
    "gpu.address.unused_base_offset": (f"gpu.address.unused_base_offset[{_V}:K_INTER]",
                                       {"wrong": "base_offset_used"}, "finding_new"),
    "gpu.hypothesis[swizzle_unit]": ("gpu.hypothesis[swizzle_unit]",
                                     {"swizzle_unit": "elements"}, "finding_new"),
    # the probe of the documented reading reads past the operand's image under the swapped
    # roles: the emulator faults there, so the case fails as a fault, not as 'swapped'
    "gpu.hypothesis[mn_lbo_sbo_roles]": ("gpu.hypothesis[mn_lbo_sbo_roles]",
                                         {"wrong": "mn_roles_swapped"}, "gpu_fault"),
    "gpu.hypothesis[k_swizzled_lbo]": ("gpu.hypothesis[k_swizzled_lbo]",
                                       {"wrong": "k_lbo_used"}, "finding_new"),
    "gpu.hypothesis[base_offset]": ("gpu.hypothesis[base_offset]",
                                    {"wrong": "swizzle_relative"}, "silicon_disagrees"),
    "gpu.hypothesis[a_regs_like_d16]": ("gpu.hypothesis[a_regs_like_d16]",
                                        {"wrong": "a_regs_thread_off_by_one"},
                                        "silicon_disagrees"),
    **{f"gpu.mistake[{name}]": (f"gpu.mistake[{name}]", model, "silicon_disagrees")
       for name, model in (("lbo_sbo_swapped", {"swizzle_unit": "elements"}),
                           ("mn_roles_swapped", {"wrong": "mn_roles_swapped"}),
                           ("wrong_swizzle_mode", {"swizzle_unit": "elements"}),
                           ("k_beyond_swizzle_row", {"swizzle_unit": "elements"}),
                           ("ignored_lbo", {"wrong": "k_lbo_used"}),
                           ("ignored_base_offset", {"wrong": "base_offset_used"}),
                           ("overrun", {"wrong": "d_thread_off_by_one"}),
                           ("sbo_zero", {"wrong": "d_thread_off_by_one"}))},
    "gpu.mma_sync": ("gpu.mma_sync[SM70_8x8x4_F32F16F16F32_TN]",
                     {"wrong": "mma_sync_lane_off_by_one"}, "silicon_disagrees"),
    "gpu.ldmatrix": ("gpu.ldmatrix[m8n8.x4.b16:K_SW128]", {"wrong": "warp_matrix_lane_off_by_one"},
                     "silicon_disagrees"),
    "gpu.stmatrix": ("gpu.stmatrix[m8n8.x2.trans.b16]", {"wrong": "warp_matrix_trans_ignored"},
                     "silicon_disagrees"),
    "gpu.tma_write": ("gpu.tma_write[tma/swizzling_modes:128B.2B]",
                      {"wrong": "tma_swizzle_relative"}, "finding_new"),
    "gpu.tma_pairing": ("gpu.tma_pairing[tma/swizzling_modes:128B~wgmma/canonical_layouts:K_SW32"
                        ".aligned]", {"wrong": "tma_rows_packed"}, "silicon_disagrees"),
    "gpu.wmma.load": ("gpu.wmma.load[m16n16k16.f16.a.row]", {"wrong": "wmma_ignores_ldm"},
                      "silicon_disagrees"),
    "gpu.wmma.store": ("gpu.wmma.store[m16n16k16.f16.c:row]",
                       {"wrong": "wmma_store_thread_off_by_one"}, "silicon_disagrees"),
    # the aligned reference load faults under the stricter rule
    "gpu.wmma.align": ("gpu.wmma.align[m16n16k16.f16.a.row:pointer]",
                       {"wrong": "wmma_align_strict"}, "gpu_fault"),
}


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


@pytest.mark.parametrize("family", list(WRONG_MODELS))
def test_a_wrong_model_fails_the_family(family: str, request: pytest.FixtureRequest) -> None:
    """The case passes against the documented model (above) and fails against this one: the
    judgement reads the device's answer, it does not only restate the oracle."""
    case_id, model, code = WRONG_MODELS[family]
    if model == {"swizzle_unit": "elements"} and case_id in ELEMENTS_IDS:
        r = judge(request.getfixturevalue("swizzles_elements")[case_id])
    else:
        r = judge(run_case(Emulator(SPEC, **model), case_id))
    said = f"{model}: {r.status.value} [{r.code}]: {r.message}"
    assert r.status in (Status.FAIL, Status.DISCREPANCY), said
    assert r.code == code, said


#: The wrong mma.sync model every gpu.mma_sync case must fail under (the family's own,
#: WRONG_MODELS' lanes off by one, is shown on one atom): A's registers read in reverse, so each
#: atom's A placement is what its answer is judged by, not a restatement of its layouts.
MMA_SYNC_WRONG = ("mma_sync_a_registers_reversed",)
MMA_SYNC_IDS = [i for i in GPU_IDS if i.startswith(plan.CHECK_MMA_SYNC + "[")]


@pytest.mark.parametrize("wrong", MMA_SYNC_WRONG)
@pytest.mark.parametrize("case_id", MMA_SYNC_IDS)
def test_every_mma_sync_atom_fails_against_a_wrong_model(case_id: str, wrong: str) -> None:
    r = judge(run_case(Emulator(SPEC, wrong=wrong), case_id))
    said = f"{wrong}: {r.status.value} [{r.code}]: {r.message}"
    assert (r.status, r.code) == (Status.FAIL, "silicon_disagrees"), said
    assert r.fields["diff"]["axes"] == ["group", "m", "n"], said


def test_mma_sync_register_counts_are_the_ptx_isa_fragment_tables() -> None:
    """The registers a lane passes, derived from each atom's shape and element widths, are the
    ones the PTX ISA's fragment tables state (spec/warp/mma_fragments.yaml); by hand: 16x8x16
    f16 with f32 C is 4 A, 2 B and 4 C registers; SM70's 8x8x4 (8 threads) 2, 2 and 8."""
    from ptxconf.gpu.mma_sync import mma_sync_variants
    from ptxconf.oracle.records import MmaFragment

    vs = {v.atom: v for v in mma_sync_variants(SPEC)}
    counts = {a: (v.a_words, v.b_words, v.c_words) for a, v in vs.items()}
    assert counts["SM80_16x8x16_F32F16F16F32_TN"] == (4, 2, 4)
    assert counts["SM70_8x8x4_F32F16F16F32_TN"] == (2, 2, 8)
    for v in vs.values():
        if v.atom.startswith("SM70"):
            continue  # the ISA's m8n8k4 rows are not transcribed
        for op, dtype, words in (("A", v.atype, v.a_words), ("B", v.btype, v.b_words),
                                 ("C", v.ctype, v.c_words)):
            rows = [f for f in SPEC.of(MmaFragment) if f.shape == f"m{v.m}n{v.n}k{v.k}"
                    and f.operand == op and dtype in f.types]
            assert [f.registers for f in rows] == [words], (v.atom, op)


@needs_nvrtc
def test_mma_sync_case_kernels_compile() -> None:
    from ptxconf.gpu.mma_sync import mma_sync_variants, source

    vs = mma_sync_variants(SPEC)
    r = build.nvrtc_compile(source(vs), build.arch_options())
    assert r.ok, f"{len(vs)} mma.sync kernels do not compile as one module:\n{r.log[:4000]}"


#: A type pair CUTLASS has (mma_traits_sm80.hpp: s32 = u8 * s8 + s32) that the bundled spec
#: leaves out, as a row of cute/mma_traits_sm80.yaml: YAML alone adds its GPU case.
U8S8_ROW = ("  - id: SM80_16x8x32_S32U8S8S32_TN\n"
            "    val_type_d: s32\n    val_type_a: u8\n    val_type_b: s8\n    val_type_c: s32\n"
            "    layouts_of: SM80_16x8x32_S32S8S8S32_TN\n"
            "    cite: {anchor: \"MMA_Traits<SM80_16x8x32_S32U8S8S32_TN>\", provenance: "
            "outside-seeds}\n")


def test_a_type_pair_added_in_yaml_alone_gets_its_case_and_runs(tmp_path: Path) -> None:
    """No Python changes: the row is a gpu.mma_sync case that runs (against the model that reads
    the registers by the PTX ISA's formulas), fails against a wrong model, and its CPU cases
    tie it to the ISA's u8 A fragment."""
    from scratch_spec import edited_spec

    from ptxconf.app.providers import provider
    from ptxconf.oracle.checks import mma_fragments

    first = "  - id: SM80_16x8x32_S32S8S8S32_TN\n"
    spec = edited_spec(tmp_path, "cute/mma_traits_sm80.yaml", first, U8S8_ROW + first)
    case_id = "gpu.mma_sync[SM80_16x8x32_S32U8S8S32_TN]"
    assert case_id in list(provider("gpu-mma_sync").case_ids(spec) or [])
    r = judge(run_case(Emulator(spec), case_id, spec))
    assert (r.status, r.code) == (Status.PASS, "ok"), r.message
    assert r.fields["instruction"] == "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"
    assert r.fields["registers"] == {"A": 4, "B": 2, "C": 4}
    wrong = judge(run_case(Emulator(spec, wrong="mma_sync_a_registers_reversed"), case_id, spec))
    assert (wrong.status, wrong.code) == (Status.FAIL, "silicon_disagrees")
    row = "cute/mma_traits_sm80:SM80_16x8x32_S32U8S8S32_TN"
    cpu = {c.id: execute(c) for c in mma_fragments.cases(spec) if row in c.id}
    assert sorted(cpu) == sorted([f"cute.mma_traits[{row}]"] + [
        f"cute.mma_vs_ptx[{row}~warp/mma_fragments:m16n8k32.{op}]" for op in ("A.s8", "B.s8", "C.s32")])
    assert {k: v.status for k, v in cpu.items()} == dict.fromkeys(cpu, Status.PASS)


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


def test_a_fault_is_that_cases_failure_and_the_run_goes_on() -> None:
    emu = Emulator(SPEC)
    results = run_emulated(emu, only="gpu.wmma.align")
    assert results
    assert emu.restarts > 0
    faulted = [r for r in results if f"silicon: {MISALIGNED}" in r.message]
    not_passed = [(r.id, r.message) for r in results if r.status is not Status.PASS]
    assert faulted, not_passed
    assert all(r.status in (Status.PASS, Status.SKIP) for r in results), not_passed
    assert all("the rule rejects it (start of leading-dimension instance" in r.message
               and r.code == "observed" for r in faulted)


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
    starts = run_emulated(emu, only=f"gpu.address.start[{_V}:K_SW128:+256:")
    assert {r.status for r in starts} == {Status.PASS}
    by_field = {r.fields["base_offset_field"]: r.fields["silicon_followed"] for r in starts}
    assert by_field == {0: ["absolute", "absolute_minus_field"],
                        2: ["absolute_minus_field", "relative"]}


def test_wmma_maps_agree_across_devices() -> None:
    """The wmma fragment map is unspecified: flag it when two devices' evidence differ."""
    runs = sorted(EVIDENCE.glob("*/results.json"))
    if len(runs) < 2:
        pytest.skip(f"evidence from {len(runs)} device(s) under {EVIDENCE}: nothing to compare")
    seen: dict[str, dict[str, str]] = {}
    for path in runs:
        data = json.loads(path.read_text(encoding="utf-8"))
        for r in data["results"]:
            fp = (r.get("fields") or r.get("details") or {}).get("map_fingerprint")
            if r["check"] == plan.CHECK_WMMA_LOAD and fp:
                seen.setdefault(r["id"], {})[f"{path.parent.name} ({r.get('device')})"] = fp
    differ = {k: v for k, v in seen.items() if len(set(v.values())) > 1}
    assert not differ, f"wmma fragment maps differ across devices: {differ}"


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
