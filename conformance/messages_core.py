"""Message examples of the shared case model (src/ptxconf/core/cases.py): see golden_messages.py."""

from __future__ import annotations

from golden_messages import example

from ptxconf.core.cases import Verdict, expect_equal


@example("expect_equal.mismatch")
def _mismatch() -> str:
    try:
        expect_equal("K of one instruction", 16, 8, source="wgmma/instruction_types:k16.f16.f16.f16",
                     witness="the canonical K-major layout")
    except Verdict as v:
        return v.outcome.message
    raise AssertionError("expect_equal passed on 16 != 8")
