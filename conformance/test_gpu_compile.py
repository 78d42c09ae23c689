"""The probe kernels compile for sm_90a, and the assembler witnesses the valid-N sets.

Every kernel of `ptxconf check --gpu on` compiles (its compile batches: the first by default,
the rest in `tox -e slow`), and the wmma plan is the probe module compiled here.

CPU only: NVRTC from the cuda-bindings / nvidia-cuda-nvrtc wheels builds sm_90a cubins with
no GPU. Skips (with the reason) only where those wheels are missing.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from ptxconf.gpu import assembler, build, plan
from ptxconf.gpu.variants import (
    WgmmaVariant,
    instruction_types,
    isa_facts,
    parse_wgmma,
    wgmma_families,
    wmma_probe_variants,
)
from ptxconf.oracle.records import RegisterFragment
from ptxconf.oracle.spec import Spec, default_spec

#: Under `--dist loadgroup` (tox's py env) each group runs on one xdist worker, so what its tests
#: share (seconds each) is made once, not per worker: the probe modules (NVRTC_MODULES) and the
#: witness sweep (with test_cases.py's witness cases). The fixtures are session-wide: a worker
#: runs other modules' tests between these, and a module fixture would be made again after each.
NVRTC_MODULES = pytest.mark.xdist_group("nvrtc-modules")

NVRTC_PROBLEM = build.nvrtc_problem()
needs_nvrtc = pytest.mark.skipif(NVRTC_PROBLEM is not None, reason=str(NVRTC_PROBLEM))

SPEC = default_spec()
PLAN = plan.plan(SPEC)
ISA = isa_facts(SPEC)
FAMILIES = wgmma_families(SPEC, n=8)
WMMA = wmma_probe_variants(SPEC)
ROWS = instruction_types(SPEC)
# The widest N of every type row, SS form: the longest operand lists (128 accumulators).
WIDE = [WgmmaVariant(n=256, k=r.k_elems, dtype=r.dtype, atype=r.atype, btype=r.btype, isa=ISA)
        for r in ROWS]


def _per_variant(results: dict, compile_one, v) -> None:
    """Pass if the shared module built; else compile v alone and report its own log."""
    if results["ok"]:
        return
    alone = compile_one([v])
    assert alone.ok, f"{v.kernel_name} does not compile for sm_90a:\n{alone.log}"


@pytest.fixture(scope="session")
def wgmma_n8() -> dict:
    r = build.compile_wgmma_cubin(FAMILIES)
    return {"ok": r.ok, "log": r.log}


@pytest.fixture(scope="session")
def wgmma_wide() -> dict:
    r = build.compile_wgmma_cubin(WIDE)
    return {"ok": r.ok, "log": r.log}


@pytest.fixture(scope="session")
def wmma_module() -> dict:
    problem = build.include_problem()
    if problem:
        pytest.skip(problem)
    r = build.compile_wmma_cubin(WMMA)
    return {"ok": r.ok, "log": r.log}


@NVRTC_MODULES
@needs_nvrtc
@pytest.mark.parametrize("variant", FAMILIES, ids=lambda v: v.kernel_name)
def test_wgmma_probe_compiles(wgmma_n8: dict, variant: WgmmaVariant) -> None:
    _per_variant(wgmma_n8, lambda vs: build.compile_wgmma_cubin(vs), variant)


@NVRTC_MODULES
@needs_nvrtc
@pytest.mark.parametrize("variant", WIDE, ids=lambda v: v.kernel_name)
def test_wgmma_probe_compiles_at_n256(wgmma_wide: dict, variant: WgmmaVariant) -> None:
    _per_variant(wgmma_wide, lambda vs: build.compile_wgmma_cubin(vs), variant)


@NVRTC_MODULES
@needs_nvrtc
@pytest.mark.parametrize("variant", WMMA, ids=lambda v: v.kernel_name)
def test_wmma_probe_compiles(wmma_module: dict, variant) -> None:
    _per_variant(wmma_module, lambda vs: build.compile_wmma_cubin(vs), variant)


# --- the assembler as a witness ------------------------------------------------------------


@needs_nvrtc
@pytest.mark.parametrize(("name", "needle"), [
    ("wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16", "Unknown modifier '.m64n12k16'"),
    ("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8", "Illegal matrix shape '.m64n40k32'"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16", "Unexpected instruction types"),
    ("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3.satfinite", "'.satfinite'"),
])
def test_assembler_rejects(name: str, needle: str) -> None:
    ok, log = assembler.compile_check(parse_wgmma(SPEC, name))
    assert not ok, f"{name}: the assembler accepted it"
    assert needle in log, f"{name}: expected {needle!r} in the assembler's log, got:\n{log}"


@needs_nvrtc
def test_assembler_accepts_m64n8k16() -> None:
    ok, log = assembler.compile_check(parse_wgmma(SPEC, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"))
    assert ok, log


@pytest.fixture(scope="session")
def sweep() -> object:
    """The assembler witness's sweep of the bundled spec, as `check` makes it (every family's
    N from 1 up, SS and RS, .satfinite where a row has it), shared with test_cases.py's witness
    cases in one process (xdist group assembler-witness)."""
    from ptxconf.gpu import witness

    return witness.sweep(SPEC, assembler.verdict_folder(True))


def _spec_valid_n(spec: Spec, fragment_id: str) -> tuple[int, ...] | None:
    return spec.get(RegisterFragment, fragment_id).valid_n_values()


@needs_nvrtc
@pytest.mark.xdist_group("assembler-witness")
@pytest.mark.parametrize("variant", wgmma_families(SPEC, all_trans=False),
                         ids=lambda v: f"{v.dtype}.{v.atype}.{v.btype}.{v.form}"
                         + (".satfinite" if v.satfinite else ""))
def test_assembler_valid_n_matches_spec(sweep: Any, spec: Spec,
                                        variant: WgmmaVariant,
                                        request: pytest.FixtureRequest) -> None:
    accepted = sweep.accepted_n[variant.family]
    request.node.user_properties.append(("sweep_seconds", round(sweep.seconds, 2)))
    row = next(r for r in ROWS if (r.dtype, r.atype, r.btype) == variant.family[:3])
    expected = _spec_valid_n(spec, row.fragment_d)
    if expected is None:
        pytest.skip(f"spec row {row.fragment_d} lists no valid N; the assembler accepts "
                    f"{list(accepted)}")
    missing = sorted(set(expected) - set(accepted))
    extra = sorted(set(accepted) - set(expected))
    assert (missing, extra) == ([], []), (
        f"{variant.ptx_name.replace('n8k', 'nNk')} ({variant.form}): spec {row.fragment_d} "
        f"lists N={list(expected)}; assembler rejects {missing}, also accepts {extra}. "
        f"First rejection: {next(iter(sweep.rejections[variant.family].items()), None)}")


# --- the variant records -------------------------------------------------------------------


@pytest.mark.parametrize("variant", FAMILIES, ids=lambda v: v.kernel_name)
def test_ptx_name_round_trips(variant: WgmmaVariant) -> None:
    again = parse_wgmma(SPEC, variant.ptx_name, a_from_regs=variant.a_from_regs,
                        trans_a=variant.trans_a, trans_b=variant.trans_b)
    assert again == variant


def test_ptx_name_example() -> None:
    v = WgmmaVariant(n=8, k=16, dtype="f32", atype="f16", btype="f16", isa=ISA)
    assert v.ptx_name == "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"
    sat = parse_wgmma(SPEC, "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8.satfinite")
    assert (sat.n, sat.atype, sat.btype, sat.satfinite) == (24, "u8", "s8", True)
    b1 = parse_wgmma(SPEC, "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc")
    assert b1.ptx_name.endswith(".s32.b1.b1.and.popc")


@pytest.mark.parametrize("bad", [
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16",
    "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f99.f16",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
])
def test_parse_rejects(bad: str) -> None:
    with pytest.raises(ValueError, match="not a dense wgmma|goes with .b1 operands only|not a type in"):
        parse_wgmma(SPEC, bad)


def test_with_n_is_the_variant_replace_makes() -> None:
    """with_n is replace(v, n=n) (every other field as it was, facts included), refusing an N
    that is not positive as construction does."""
    for v in FAMILIES:
        for n in (1, 136, 256):
            other = v.with_n(n)
            assert (other, repr(other), other.isa) == (dataclasses.replace(v, n=n),
                                                      repr(dataclasses.replace(v, n=n)), v.isa)
    v = FAMILIES[0]
    with pytest.raises(ValueError, match=re.escape(f"must be positive, got {v.m}, 0, {v.k}")) as made:
        dataclasses.replace(v, n=0)
    with pytest.raises(ValueError, match=f"^{re.escape(str(made.value))}$"):
        v.with_n(0)


def test_trans_only_where_spelled() -> None:
    with pytest.raises(ValueError, match="imm-trans"):
        WgmmaVariant(n=8, k=8, dtype="f32", atype="tf32", btype="tf32", trans_b=1, isa=ISA)
    with pytest.raises(ValueError, match="imm-trans-a"):
        WgmmaVariant(n=8, k=16, dtype="f32", atype="f16", btype="f16", a_from_regs=True,
                     trans_a=1, isa=ISA)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_register_counts_match_spec(spec: Spec, row) -> None:
    """The kernels' register counts (from element widths) agree with the fragment tables."""
    frag_d = spec.get(RegisterFragment, row.fragment_d)
    frag_a = spec.get(RegisterFragment, row.fragment_a)
    checked = 0
    for n in frag_d.valid_n_values() or range(8, 257, 8):
        v = WgmmaVariant(n=n, k=row.k_elems, dtype=row.dtype, atype=row.atype, btype=row.btype,
                         a_from_regs=True, isa=ISA)
        assert (v.nreg_d, v.nreg_a) == (frag_d.registers_for(n), frag_a.registers_for(n)), (
            f"{v.ptx_name}: kernel registers D={v.nreg_d}, A={v.nreg_a}; spec "
            f"{frag_d.id}={frag_d.registers}, {frag_a.id}={frag_a.registers}")
        checked += 1
    assert checked > 0, frag_d.id


# --- kernel hygiene: layout facts travel as data -------------------------------------------

KERNELS = sorted((Path(build.__file__).parent / "kernels").glob("*.cu"))
# A hex literal, or a shift by a constant: the shapes a hard-coded descriptor field takes.
_LITERAL = re.compile(r"0x[0-9a-fA-F]+|<<\s*\d+|>>\s*\d+|&\s*\d{2,}")


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_kernels_hold_no_layout_literals(path: Path) -> None:
    code = re.sub(r"//.*", "", path.read_text(encoding="utf-8"))
    found = _LITERAL.findall(code)
    assert not found, f"{path.name}: literals {found}; layout facts come from the host"


@needs_nvrtc
def test_an_empty_compile_log_leaves_the_interpreter_intact() -> None:
    """NVRTC writes into the buffers it is handed; an empty log (size 1) must not land in the
    interpreter's shared one-byte b" " (it once did, and single spaces vanished from every
    string compiled afterwards)."""
    space = bytes((0x20,))
    result = build.nvrtc_compile('extern "C" __global__ void k() {}')
    assert result.ok, result.log
    assert space == b" "
    assert b" "[0] == 0x20
    assert (b" " * 1)[0] == 0x20
    assert compile("f'{1} {2}'", "<t>", "eval")
    assert eval("f'{1} {2}'") == "1 2"


# --- the kernels `check --gpu on` runs ---------------------------------------------------------


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
