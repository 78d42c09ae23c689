"""Every claim, generated from spec rows: a row added to spec/ adds its proofs.

| claim | one per | module |
| --- | --- | --- |
| swizzle_bijective, swizzle_period_block | canonical-layout and atom-selection row | swizzles |
| base_alignment | base-offset row (swizzle mode) | swizzles |
| layout_injective | canonical-layout row | layouts |
| example_injective, example_matches_canonical | worked example (Figures 166-170) | examples |
| descriptor_roundtrip, descriptor_range | descriptor field row (PTX ISA, CUTLASS) | descriptors |
| start_alignment | start-address alignment rule | descriptors |
| bank_conflict_free | canonical-layout row | banks |
| wmma_alignment_equivalence, wmma_default_stride | wmma shape x matrix x layout | wmma_rules |
| distinguish_<hypothesis> | canonical row (x element width for swizzle_unit) | distinguish |
| warp_fragment_bijective, warp_trans_transpose, | ldmatrix / stmatrix form (shape x .num x | warp_matrix |
| warp_store_inverts_load | .trans x type) | |
| tma_box_bijective | TMA swizzling mode x element size | tma_writes |
| tma_pairing | TMA write mode x wgmma K-major reader x class of destination | tma_writes |
| mma_fragment_bijective | mma.sync fragment row (PTX ISA formulas) | mma_fragments |
| mma_fragment_is_cute | CuTe SM80/SM89 layout x the fragment row its atoms read | mma_fragments |
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ptxconf.oracle.proofs import (
    banks,
    descriptors,
    distinguish,
    examples,
    layouts,
    mma_fragments,
    swizzles,
    synthesis,
    tma_writes,
    warp_matrix,
    wmma_rules,
)
from ptxconf.oracle.proofs.runner import Claim
from ptxconf.oracle.spec import Spec

GENERATORS: tuple[Callable[[Spec], Iterable[Claim]], ...] = (
    swizzles.claims,
    layouts.claims,
    examples.claims,
    descriptors.claims,
    banks.claims,
    wmma_rules.claims,
    distinguish.claims,
    synthesis.claims,
    warp_matrix.claims,
    tma_writes.claims,
    mma_fragments.claims,
)


def all_claims(spec: Spec) -> Iterator[Claim]:
    """Every claim of a spec, module by module, in row order."""
    for _, claim in indexed_claims(spec):
        yield claim


def indexed_claims(spec: Spec) -> Iterator[tuple[int, Claim]]:
    """`all_claims`, each with the index of the generator that made it (what the claims'
    listing keeps: ptxconf.oracle.proofs.listing)."""
    for index, generate in enumerate(GENERATORS):
        for claim in generate(spec):
            yield index, claim
