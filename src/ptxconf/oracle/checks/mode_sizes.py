"""A CuTe mode statement's size, checked on its own.

`cute.mode_statement` compares a sentence's size and stride of one mode with the printed
layout in one case; where a known finding pins that case's stride discrepancy
(oracle/findings.yaml: cute-sm90-clayout-warp-stride-32), a wrong size in the same statement
would pass behind it. `cute.mode_size` checks the size alone, so each stated size is read by a
case no known finding covers.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.core.results import Status
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.checks.base import Case, expect_equal, fail, make_case
from ptxconf.oracle.checks.cute_names import row_layout
from ptxconf.oracle.records import CuteLayout, ModeStatement
from ptxconf.oracle.spec import Spec


def cases(spec: Spec) -> Iterator[Case]:
    """One case per statement that states a size."""
    for st in spec.of(ModeStatement):
        if st.mode_size is not None:
            yield make_case("cute.mode_size", st.key, partial(_mode_size, spec, st, st.mode_size))


def _mode_size(spec: Spec, st: ModeStatement, size: int) -> str:
    """The stated size is the size of the mode the statement's path names."""
    rows = [r for r in spec.of(CuteLayout) if r.id == st.layout]
    if len(rows) != 1:
        raise fail(f"{st.key}: layout {st.layout!r} names no cute_layout row")
    mode: object = row_layout(rows[0])
    for i in st.mode:
        if not isinstance(mode, Layout) or mode.rank() <= i:
            raise fail(f"{st.key}: {rows[0].layout} has no mode {list(st.mode)}")
        mode = mode[i]
    if not isinstance(mode, Layout):
        raise fail(f"{st.key}: mode {list(st.mode)} of {rows[0].layout} is not a layout")
    expect_equal(f"size of mode {list(st.mode)} of {st.layout}", size, mode.size(),
                 source=st.key, witness=rows[0].layout, status=Status.DISCREPANCY)
    return f"mode {list(st.mode)} of {st.layout} has size {size}"
