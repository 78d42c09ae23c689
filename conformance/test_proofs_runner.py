"""The prover (oracle/proofs/runner.py): `Prover.find` turns Z3's unknown into `Unknown` with Z3's
reason verbatim, "unknown" when it gives none, and counts the query."""

from __future__ import annotations

import pytest
import z3

from ptxconf.oracle.proofs.runner import Prover, Unknown

pytestmark = pytest.mark.z3


class _Undecided:
    """A solver that answers unknown with the given reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def add(self, *constraints: object) -> None:
        pass

    def check(self) -> z3.CheckSatResult:
        return z3.unknown

    def reason_unknown(self) -> str:
        return self.reason


class _UndecidedProver(Prover):
    def __init__(self, reason: str) -> None:
        super().__init__(z3.Context(), 30.0)
        self.reason = reason

    def _solver(self) -> z3.Solver:
        return _Undecided(self.reason)  # type: ignore[return-value]


@pytest.mark.parametrize(("reason", "told"), [("canceled", "canceled"), ("", "unknown")])
def test_an_unknown_answer_carries_z3s_reason_or_says_unknown(reason: str, told: str) -> None:
    """Prover.find: unknown raises Unknown with reason_unknown() verbatim, "unknown" if empty."""
    prover = _UndecidedProver(reason)
    with pytest.raises(Unknown) as info:
        prover.find(z3.BoolVal(True, prover.ctx))
    assert (info.value.reason, str(info.value), prover.queries) == (told, told, 1)
