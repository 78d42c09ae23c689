"""Z3 proofs of the spec's rules: three-valued (proved, refuted, unknown), never printing.

Entry point: `prove(claim, timeout_s=...)` -> `ProofResult`; claims come from
`claims.all_claims(spec)`, cases for the check runner from `cases.proof_cases(spec,
timeout_s=...)`, GPU probe inputs from `distinguish.distinguishing_probes(spec)`. Expected
refutations and their explanations live with every other known finding in
`ptxconf.oracle.findings`. This package imports the solver only when one of the names below is
first used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Claim", "ProofResult", "prove"]


def __getattr__(name: str) -> Any:
    """Lazy re-exports of runner's Claim, ProofResult and prove."""
    if name in __all__:
        from ptxconf.oracle.proofs import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
