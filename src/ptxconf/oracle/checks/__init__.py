"""Self-consistency checks of the spec: each a Case with a test id drawn from spec rows.

A check compares a document's number with what another table, the CuTe atoms, or the layout
algebra implies. It returns PASS, FAIL (the oracle or the spec file is broken) or DISCREPANCY
(two published sources disagree; both sides are in the message and fields). The case model is
`ptxconf.core.cases`; `base` adds the provider's name; `all_cases` runs every check module.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

from ptxconf.oracle.checks import (
    completeness,
    cute_atoms,
    cute_copy,
    cute_points,
    cutedsl,
    cutedsl_ties,
    descriptor_checks,
    descriptor_ranges,
    element_witness,
    figure_ties,
    fragments_checks,
    mma_fragments,
    mode_sizes,
    register_types,
    smem_layouts,
    tma_checks,
    warp_examples,
    warp_matrix,
    wmma_checks,
)
from ptxconf.oracle.checks.base import PROVIDER, Case, make_case
from ptxconf.oracle.spec import Spec

#: The check modules, in the order a run takes them.
MODULES: tuple[ModuleType, ...] = (descriptor_checks, smem_layouts, fragments_checks, wmma_checks,
                                   cute_atoms, cutedsl, completeness, descriptor_ranges,
                                   element_witness, figure_ties, register_types, mode_sizes,
                                   cutedsl_ties, cute_points, warp_matrix, warp_examples,
                                   cute_copy, tma_checks, mma_fragments)


def all_cases(spec: Spec) -> Iterator[Case]:
    """Every self-consistency case of a spec, module by module."""
    for module in MODULES:
        yield from module.cases(spec)


__all__ = ["MODULES", "PROVIDER", "all_cases", "make_case"]
