"""What every self-consistency check module shares: the provider's name and the case maker."""

from __future__ import annotations

from collections.abc import Callable

from ptxconf.core.cases import Case, Verdict, case, discrepancy, expect_equal, fail

PROVIDER = "self-consistency"


def make_case(check: str, key: str, body: Callable[[], str | None]) -> Case:
    """A self-consistency case (`ptxconf.core.cases.case` with this provider's name)."""
    return case(check, key, body, PROVIDER)


__all__ = ["PROVIDER", "Case", "Verdict", "discrepancy", "expect_equal", "fail", "make_case"]
