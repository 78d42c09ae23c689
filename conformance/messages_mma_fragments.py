"""Message examples of the mma.sync fragments and atoms: the PTX ISA's formulas
(src/ptxconf/oracle/mma_fragments.py), their checks (oracle/checks/mma_fragments.py), proofs
(oracle/proofs/mma_fragments.py) and the SM80/SM89 gpu.mma_sync cases against a wrong model, each
for the input its test in conformance/test_*mma_fragments.py or test_gpu_mma_sync.py uses (see
golden_messages.py)."""

from __future__ import annotations

import dataclasses

from case_outcomes import run_module_case
from golden_messages import example, raised
from scratch_spec import default_row_replaced

from ptxconf.core.cases import execute
from ptxconf.oracle import mma_fragments as F
from ptxconf.oracle.checks import mma_fragments
from ptxconf.oracle.records import MmaFragment
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
FRAG = "warp/mma_fragments"
TF32 = "SM80_16x8x8_F32TF32TF32F32_TN"
SWAPPED_B = "((4,8),2):((1,8),32)"


@example("mma.fragment.a_bijection")
def _a_bijection() -> str:
    return run_module_case(mma_fragments, SPEC, f"mma.fragment[{FRAG}:m16n8k16.A.f16]").message


@example("mma.fragment.two_elements_to_one")
def _two_elements_to_one() -> str:
    row = SPEC.get(MmaFragment, "m16n8k8.C.f32")
    spec = default_row_replaced("MmaFragment", row.id, row=(
        row.row[0], dataclasses.replace(row.row[1], value="groupID")))
    return run_module_case(mma_fragments, spec, f"mma.fragment[{FRAG}:m16n8k8.C.f32]").message


@example("mma.formula.two_lines_hold")
def _two_lines_hold() -> str:
    row = SPEC.get(MmaFragment, "m16n8k8.C.f32")
    spec = default_row_replaced("MmaFragment", row.id, row=(
        row.row[0], dataclasses.replace(row.row[1], where="i >= 1")))
    return raised(lambda: F.cells(spec, spec.get(MmaFragment, row.id)))


@example("mma.formula.not_allowed")
def _not_allowed() -> str:
    return raised(lambda: F.parse_formula("abs(i)"))


@example("cute.mma_vs_ptx.agrees")
def _agrees() -> str:
    case_id = f"cute.mma_vs_ptx[cute/mma_traits_sm80:{TF32}~{FRAG}:m16n8k8.B.tf32]"
    return run_module_case(mma_fragments, SPEC, case_id).message


@example("cute.mma_vs_ptx.documents_disagree")
def _documents_disagree() -> str:
    spec = default_row_replaced("CuteLayout", "SM80_16x8x8.TF32.BLayout", layout=SWAPPED_B)
    case_id = f"cute.mma_vs_ptx[cute/mma_traits_sm80:{TF32}~{FRAG}:m16n8k8.B.tf32]"
    return run_module_case(mma_fragments, spec, case_id).message


@example("cute.mma_vs_ptx.no_isa_row")
def _no_isa_row() -> str:
    spec = default_row_replaced("CuteMmaTraits", TF32, val_type_a="s8", val_type_b="s8")
    case_id = f"cute.mma_vs_ptx[cute/mma_traits_sm80:{TF32}~m16n8k8.A.s8]"
    return run_module_case(mma_fragments, spec, case_id).message


@example("cute.mma_traits.agrees")
def _traits_agree() -> str:
    return run_module_case(mma_fragments, SPEC,
                           "cute.mma_traits[cute/mma_traits_sm89:SM89_16x8x32_F32E4M3E5M2F32_TN]"
                           ).message


@example("proof.mma_fragment_is_cute.refuted")
def _is_cute_refuted() -> str:
    from ptxconf.oracle.proofs import mma_fragments as P
    from ptxconf.oracle.proofs.cases import claim_case

    spec = default_row_replaced("CuteLayout", "SM80_16x8x8.TF32.BLayout", layout=SWAPPED_B)
    claim = next(c for c in P.claims(spec) if c.key.startswith(
        "cute/mma_layouts_sm80:SM80_16x8x8.TF32.BLayout~"))
    return execute(claim_case(claim, 30.0)).message


@example("gpu.mma_sync.a_registers_reversed")
def _a_registers_reversed() -> str:
    from emulator import Emulator, run_case

    return run_case(Emulator(SPEC, wrong="mma_sync_a_registers_reversed"),
                    "gpu.mma_sync[SM80_16x8x16_F32BF16BF16F32_TN]").message


@example("cute.mma_layouts_read.no_traits_row")
def _no_traits_row() -> str:
    from ptxconf.oracle.spec import Spec

    spec = Spec(SPEC.root, tuple(r for r in SPEC.rows
                                 if not r.file.startswith("cute/mma_traits_sm89")))
    return run_module_case(mma_fragments, spec, "cute.mma_layouts_read[cute/mma_layouts_sm89:"
                                                "SM89_16x8x32.E4M3.ThrID]").message
