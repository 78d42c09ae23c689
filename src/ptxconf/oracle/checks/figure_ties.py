"""Figures 166-170 against the LBO table: a figure assumes its LBO exactly where the table says
the offset is not used (K-major swizzled layouts: "not used, assumed to be 1").

* `worked_example.lbo_assumed`: a figure's `lbo_assumed` is true exactly where the LBO
  definition of its major-ness and swizzle mode has `used: false`, and then the figure gives no
  LBO of its own (`lbo_elems: null`, its "NA").
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.core.results import Status
from ptxconf.oracle.checks.base import Case, expect_equal, fail, make_case
from ptxconf.oracle.records import ByteOffsetDefinition, WorkedExample
from ptxconf.oracle.spec import Spec


def cases(spec: Spec) -> Iterator[Case]:
    """One case per worked example."""
    for fig in spec.of(WorkedExample):
        yield make_case("worked_example.lbo_assumed", fig.key, partial(_lbo_assumed, spec, fig))


def lbo_definition(spec: Spec, major: str, swizzle: str) -> ByteOffsetDefinition:
    """The LBO table's row for a major-ness and swizzle mode (fail unless exactly one)."""
    rows = [d for d in spec.of(ByteOffsetDefinition)
            if d.offset == "LBO" and d.major == major and swizzle in d.swizzles]
    if len(rows) != 1:
        raise fail(f"LBO {major}/{swizzle}: {len(rows)} definitions, expected one")
    return rows[0]


def _lbo_assumed(spec: Spec, fig: WorkedExample) -> str:
    """lbo_assumed == not used (the LBO table), and an assumed LBO has no value of the figure's."""
    d = lbo_definition(spec, fig.major, fig.swizzle)
    expect_equal(f"Figure {fig.figure}: LBO assumed", fig.lbo_assumed, not d.used,
                 source=fig.key, witness=f"{d.key} (used: {str(d.used).lower()})",
                 status=Status.DISCREPANCY)
    if fig.lbo_assumed and fig.lbo_elems is not None:
        raise fail(f"Figure {fig.figure}: an assumed LBO with a value of the figure's "
                   f"({fig.lbo_elems} elements)")
    return f"Figure {fig.figure}: LBO {'assumed' if fig.lbo_assumed else 'given'}, as {d.key} says"
