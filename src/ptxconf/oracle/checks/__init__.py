"""Self-consistency checks of the spec: each a Case with a test id drawn from spec rows.

A check compares a document's number with what another table, the CuTe atoms, or the layout
algebra implies. It returns PASS, FAIL (the oracle or the spec file is broken) or DISCREPANCY
(two published sources disagree; both sides are in the message and fields). The case model is
`ptxconf.core.cases`; this package only adds the provider's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import ModuleType

from ptxconf.core.cases import Case, Verdict, case, discrepancy, expect_equal, fail
from ptxconf.oracle.spec import Spec

PROVIDER = "self-consistency"


def make_case(check: str, key: str, body: Callable[[], str | None]) -> Case:
    """A self-consistency case (`ptxconf.core.cases.case` with this provider's name)."""
    return case(check, key, body, PROVIDER)


def all_cases(spec: Spec) -> Iterator[Case]:
    """Every self-consistency case of a spec, module by module."""
    from ptxconf.oracle.checks import (
        completeness,
        cute_atoms,
        cute_points,
        cutedsl,
        cutedsl_ties,
        descriptor_checks,
        descriptor_ranges,
        element_witness,
        figure_ties,
        fragments_checks,
        mode_sizes,
        register_types,
        smem_layouts,
        wmma_checks,
    )

    modules: Iterable[ModuleType] = (descriptor_checks, smem_layouts, fragments_checks, wmma_checks,
                         cute_atoms, cutedsl, completeness, descriptor_ranges,
                         element_witness, figure_ties, register_types,
                         mode_sizes, cutedsl_ties, cute_points)
    for module in modules:
        yield from module.cases(spec)


__all__ = ["Case", "Verdict", "all_cases", "discrepancy", "expect_equal", "fail", "make_case"]
