"""CuTe MMA-atom rows: one layout per atom and role, and points inside the layout's domain.

* `cute.one_layout`: an Operation's MMA_Traits give one ThrID, ALayout, BLayout and CLayout;
  two rows with the same atom and role would be two answers to one question.
* `cute.points_in_domain`: every point (thread, value, row, col, index) the document spells
  out lies in the layout's (threads, values) domain and its (rows, cols) codomain (a CuTe
  layout evaluates past its shape, so a point outside would pass the layout check). Where the
  layout broadcasts (every thread stride 0: "all threads are mapped to (0,0)"), its points
  name the first and the last thread, the statement's range.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.checks.base import Case, fail, make_case
from ptxconf.oracle.checks.cute_names import row_layout
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import Spec


def cases(spec: Spec) -> Iterator[Case]:
    """Two cases per cute_layout row."""
    rows = spec.of(CuteLayout)
    for row in rows:
        yield make_case("cute.one_layout", row.key, partial(_one_layout, rows, row))
        yield make_case("cute.points_in_domain", row.key, partial(_points, row))


def _one_layout(rows: tuple[CuteLayout, ...], row: CuteLayout) -> str:
    """No other row gives this atom's layout of this role."""
    others = [r.key for r in rows if r is not row and (r.atom, r.role) == (row.atom, row.role)]
    if others:
        raise fail(f"{row.key}: {row.atom} has another {row.role}: {others}", others=others)
    return f"the one {row.role} of {row.atom}"


def _points(row: CuteLayout) -> str:
    """Each point inside the domain and codomain; a broadcast's points span its threads."""
    layout = row_layout(row)
    if row.role == "ThrID":
        threads, values = layout.size(), 1
        broadcast = False
    else:
        threads, values = layout[0].size(), layout[1].size()
        broadcast = all(d == 0 for d in flatten(layout[0].stride))
    rows, cols = row.codomain_mn
    for t, v, i, j, _idx in row.points:
        if not (0 <= t < threads and 0 <= v < values and 0 <= i < rows and 0 <= j < cols):
            raise fail(f"{row.key}: point (T{t}, V{v}) -> ({i}, {j}) lies outside "
                       f"(T{threads}, V{values}) -> ({rows}, {cols})", point=[t, v, i, j])
    if broadcast and row.points:
        named = {p[0] for p in row.points}
        if not {0, threads - 1} <= named:
            raise fail(f"{row.key}: a broadcast over {threads} threads stated by points at "
                       f"threads {sorted(named)}; name the first and the last (0, {threads - 1})")
    return f"{len(row.points)} points inside (T{threads}, V{values}) -> ({rows}, {cols})"
