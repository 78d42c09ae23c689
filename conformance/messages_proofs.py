"""Message examples of the Z3 proofs (src/ptxconf/oracle/proofs): a claim's outcome, one per message
shape, each for the input its tests use (see golden_messages.py). Messages that name a point Z3
chose (a collision, a refuted tile's element) have no example here: their tests assert the values
they name."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from tempfile import TemporaryDirectory

from case_outcomes import SHARED_PROOFS, prove_module_claim, proved_once
from golden_messages import example

from ptxconf.core.cases import execute
from ptxconf.oracle.spec import Spec, default_spec

TIMEOUT_S = 30.0


def _canonical_row(spec: Spec, row_id: str):
    from ptxconf.oracle.records import CanonicalLayout

    return next(r for r in spec.of(CanonicalLayout) if r.id == row_id)


def _edited(edit: tuple[str, str, str], prove: object) -> str:
    """The message of `prove(spec)` on a scratch copy of the bundled spec with one edit."""
    from scratch_spec import edited_spec

    with TemporaryDirectory() as tmp:
        return prove(edited_spec(Path(tmp), *edit)).message  # type: ignore[operator]


# --- proofs/synthesis.py ---------------------------------------------------------------------------

@example("synthesis.proved")
def _synthesis_proved() -> str:
    from ptxconf.oracle.proofs import synthesis
    from ptxconf.oracle.proofs.cases import claim_case

    spec = default_spec()
    claim = synthesis.synthesis_equivalent(spec, _canonical_row(spec, "MN_INTER"))
    return execute(claim_case(claim, TIMEOUT_S)).message


@example("synthesis.vacuous")
def _synthesis_vacuous() -> str:
    import z3

    from ptxconf.oracle.explain.operand import Operand
    from ptxconf.oracle.explain.synthesize import synthesize
    from ptxconf.oracle.proofs import synthesis
    from ptxconf.oracle.proofs.runner import Prover

    spec = default_spec()
    tile = "((8,8),(8,2)):((1,128),(8,64))"
    op = Operand("f16", "MN", 64, 16, 16, "A", None)
    syn = synthesize(spec, tile, op, majors=("MN",), start=0, swizzle_unit="bytes")
    try:
        synthesis.prove_tile(Prover(z3.Context(), TIMEOUT_S), spec, _canonical_row(spec, "MN_INTER"),
                             tile, dataclasses.replace(op, k=0), syn)
    except AssertionError as e:
        return str(e)
    raise AssertionError("a tile with no element was proved")


# --- proofs/examples.py ----------------------------------------------------------------------------

FIG166 = "wgmma/worked_examples:fig166.K.none.tf32"
FIG166_EXACT = "Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))"
FIG166_OVERLAPPING = ("wgmma/worked_examples.yaml", f'"{FIG166_EXACT}"',
                      '"Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,16))"')


def _examples(spec: Spec, claim: str) -> object:
    from ptxconf.oracle.proofs import examples

    return prove_module_claim(examples, spec, f"proof.{claim}[{FIG166}]")


@example("examples.matches_canonical")
def _examples_matches() -> str:
    return _examples(default_spec(), "example_matches_canonical").message  # type: ignore[attr-defined]


@example("examples.no_lbo")
def _examples_no_lbo() -> str:
    return _edited(("wgmma/worked_examples.yaml", "lbo_elems: 64\n", "lbo_elems: null\n"),
                   lambda spec: _examples(spec, "example_matches_canonical"))


@example("examples.injective")
def _examples_injective() -> str:
    return _examples(default_spec(), "example_injective").message  # type: ignore[attr-defined]


@example("examples.not_injective")
def _examples_not_injective() -> str:
    return _edited(FIG166_OVERLAPPING, lambda spec: _examples(spec, "example_injective"))


@example("examples.oracle_disagrees")
def _examples_oracle_disagrees() -> str:
    from unittest import mock

    from ptxconf.oracle.proofs import render

    real = render.text_reproduce

    def disagreeing(*args: object, **kwargs: object) -> tuple[str, list[int]]:
        line, _ = real(*args, **kwargs)  # type: ignore[arg-type]
        return line, [0, 0]

    with mock.patch.object(render, "text_reproduce", disagreeing):
        return _edited(FIG166_OVERLAPPING, lambda spec: _examples(spec, "example_injective"))


# --- proofs/distinguish.py -------------------------------------------------------------------------

CANON = "wgmma/canonical_layouts"


def _distinguish(spec: Spec, claim: str) -> object:
    from ptxconf.oracle.proofs import distinguish

    return prove_module_claim(distinguish, spec, claim)


@example("distinguish.probe")
def _distinguish_probe() -> str:
    return _distinguish(default_spec(),  # type: ignore[attr-defined]
                        f"proof.distinguish_swizzle_unit[{CANON}:K_SW32.f16]").message


@example("distinguish.probe_at_a_start")
def _distinguish_probe_start() -> str:
    return _distinguish(default_spec(),  # type: ignore[attr-defined]
                        f"proof.distinguish_base_offset[{CANON}:K_SW32.f16]").message


@example("distinguish.never_differ")
def _distinguish_never() -> str:
    return _edited(("wgmma/canonical_layouts.yaml", 'layout: "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))"',
                    'layout: "((T,2,m),(8,k)):((1,T,2T),(2T,4T))"'),
                   lambda spec: _distinguish(spec, f"proof.distinguish_mn_lbo_sbo_roles[{CANON}:MN_SW32.f16]"))


# --- proofs/swizzles.py ----------------------------------------------------------------------------

@example("swizzles.period_block", group=SHARED_PROOFS)
def _swizzles_period() -> str:
    from ptxconf.oracle.proofs import swizzles

    return proved_once(swizzles, f"proof.swizzle_period_block[{CANON}:K_SW128]").message


@example("swizzles.wrong_period")
def _swizzles_wrong_period() -> str:
    from ptxconf.oracle.proofs import swizzles

    row = "id: period.S143, example: period, swizzle_bits: 1, swizzle_base: 4, swizzle_shift: 3, "
    return _edited(("cutedsl/worked_examples.yaml", row + "period_units: 256", row + "period_units: 128"),
                   lambda spec: prove_module_claim(
                       swizzles, spec, "proof.swizzle_period_block[cutedsl/worked_examples:period.S143]"))


# --- proofs/descriptors.py -------------------------------------------------------------------------

DESC = "wgmma/matrix_descriptor"


def _descriptors(spec: Spec, claim: str) -> object:
    from ptxconf.oracle.proofs import descriptors

    return prove_module_claim(descriptors, spec, claim)


@example("descriptors.range")
def _descriptors_range() -> str:
    return _descriptors(default_spec(),  # type: ignore[attr-defined]
                        f"proof.descriptor_range[{DESC}:start_address]").message


@example("descriptors.range_past_the_oracle")
def _descriptors_range_oracle() -> str:
    from scratch_spec import descriptor_field_replaced

    spec = descriptor_field_replaced("layout_type", lsb_bits=63)
    return _descriptors(spec, f"proof.descriptor_range[{DESC}:layout_type]").message  # type: ignore[attr-defined]


@example("descriptors.start_alignment")
def _descriptors_start() -> str:
    return _descriptors(default_spec(),  # type: ignore[attr-defined]
                        "proof.start_alignment[wgmma/smem_alignment:wgmma.smem_operand_start]").message


# --- proofs/banks.py and proofs/layouts.py ---------------------------------------------------------

@example("banks.no_swizzle_needed", group=SHARED_PROOFS)
def _banks_unswizzled() -> str:
    from ptxconf.oracle.proofs import banks

    return proved_once(banks, f"proof.bank_conflict_free[{CANON}:K_INTER]").message


@example("layouts.k_bound_and_condition", group=SHARED_PROOFS)
def _layouts_k_bound() -> str:
    from ptxconf.oracle.proofs import layouts

    return proved_once(layouts, f"proof.layout_injective[{CANON}:K_SW128]").message


# --- proofs/wmma_rules.py and proofs/cases.py ------------------------------------------------------

ROWS = "wmma/default_strides"
ONE_ROW = ("wmma/default_strides.yaml",
           "{id: m8n8k4, m_elems: 8, n_elems: 8, k_elems: 4, a_row_elems: 4,",
           "{id: m1n8k4, m_elems: 1, n_elems: 8, k_elems: 4, a_row_elems: 5,")


def _wmma(spec: Spec, claim_id: str, pool: object = None) -> object:
    from ptxconf.oracle.proofs import wmma_rules
    from ptxconf.oracle.proofs.cases import claim_case

    claim = next(c for c in wmma_rules.claims(spec) if c.id == claim_id)
    return execute(claim_case(claim, TIMEOUT_S, pool=pool))  # type: ignore[arg-type]


@example("wmma_rules.alignment")
def _wmma_alignment() -> str:
    return _wmma(default_spec(),  # type: ignore[attr-defined]
                 f"proof.wmma_alignment_equivalence[{ROWS}:m16n16k16.a.row]").message


@example("wmma_rules.default_stride")
def _wmma_default_stride() -> str:
    return _wmma(default_spec(),  # type: ignore[attr-defined]
                 f"proof.wmma_default_stride[{ROWS}:m8n32k16.b.col]").message


@example("wmma_rules.gaps")
def _wmma_gaps() -> str:
    return _edited(ONE_ROW, lambda spec: _wmma(spec, f"proof.wmma_default_stride[{ROWS}:m1n8k4.a.col]"))


@example("wmma_rules.oracle_disagrees")
def _wmma_oracle() -> str:
    return _edited(ONE_ROW, lambda spec: _wmma(spec, f"proof.wmma_default_stride[{ROWS}:m1n8k4.a.row]"))


@example("cases.proof_lost")
def _cases_lost() -> str:
    from ptxconf.oracle.proofs.pool import ProofLost, ProofPool

    class Lost(ProofPool):
        def __init__(self) -> None:  # no workers: nothing to start
            pass

        def has(self, claim_id: str) -> bool:
            return True

        def result(self, claim_id: str) -> object:
            raise ProofLost("the proof worker (pid 1) died while proving this claim")

    return _wmma(default_spec(), f"proof.wmma_default_stride[{ROWS}:m16n16k16.a.row]",  # type: ignore[attr-defined]
                 pool=Lost()).message
