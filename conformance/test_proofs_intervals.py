"""The difference sets as text (oracle/proofs/intervals.py): bit runs open to byte ranges, equal
runs at one spacing around a centred middle run written as one pattern, an even number of runs
listed one by one."""

from __future__ import annotations

import pytest

from ptxconf.oracle.proofs import intervals

pytestmark = pytest.mark.z3


def test_describe_centres_three_equal_runs() -> None:
    """Runs [-144, -112], [-16, 16], [112, 144] bits of 16-bit steps open to (-20, -12), (-4, 4),
    (12, 20) bytes: equal widths, one gap of 16, the middle one centred: one pattern."""
    diff = [(-144, -112), (-16, 16), (112, 144)]
    assert intervals.describe(diff, 16) == "(-4, 4) + 16j for |j| <= 1"


def test_describe_lists_an_even_number_of_runs() -> None:
    """Two runs [-144, -112], [-16, 16] open to (-20, -12), (-4, 4): equal widths, one gap, the
    second centred, but an even count has no middle run: listed one by one."""
    assert intervals.describe([(-144, -112), (-16, 16)], 16) == "(-20, -12) u (-4, 4)"
