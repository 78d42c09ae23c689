"""The mma.sync atoms' GPU cases (ptxconf.gpu.mma_sync, ptxconf.gpu.families.mma_sync) without a
GPU: each atom fails against a model that reads a lane's A registers in reverse (and the family
against one whose lanes are off by one), the registers a lane passes are the PTX ISA's fragment
tables, the kernels compile as one sm_90a module, and a type pair added in YAML alone gets its
case. (Every case passes against the documented model in test_gpu_cases.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from emulator import (  # conformance/emulator.py
    MMA_SYNC_WRONG,
    WRONG_MODELS,
    Emulator,
    run_case,
    wrong_model_verdict,
)

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.gpu import build, plan
from ptxconf.oracle.findings import judge
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
NVRTC_PROBLEM = build.nvrtc_problem()
needs_nvrtc = pytest.mark.skipif(NVRTC_PROBLEM is not None, reason=str(NVRTC_PROBLEM))
GPU_IDS = [i for p in REGISTRY if p.gpu for i in p.case_ids(SPEC) or ()]


#: This family's entries of emulator.WRONG_MODELS (the others: test_gpu_cases.py and the other
#: data-path files).
WRONG_FAMILIES = [f for f in WRONG_MODELS if f.startswith('gpu.mma_sync')]


@pytest.mark.parametrize("family", WRONG_FAMILIES)
def test_a_wrong_model_fails_the_family(family: str) -> None:
    """The lanes off by one: the case passes against the documented model (test_gpu_cases.py)
    and fails against this one, so the judgement reads the device's answer."""
    r, said = wrong_model_verdict(family)
    assert r.status in (Status.FAIL, Status.DISCREPANCY), said
    assert r.code == WRONG_MODELS[family][2], said


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
