"""The report's per-result work done ahead: while a run still waits on its GPU jobs, its main
thread is idle, so each result that has come in is given its reproduce lines
(`with_reproduce`), its results.json line and what report.html shows of its fields, and the
report then only looks them up (`ptxconf.app.report.write_reports`).

    ahead = Ahead(spec)
    ahead.take(results_so_far)          # as often as results come in; cheap when none are new
    write_reports(out, results, meta, spec, ahead=ahead)

Work is looked up by the result object itself (its identity, the object held here so that the
identity is not reused): a result the run made again, or one never taken, is worked out when
the report is written, exactly as without `Ahead`. Measured on an H100 node's warm check
(3,354 results), the report took 0.7 s of the 4.5 s, most of it this work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ptxconf.app.report_fields import fields_view, first_oracle
from ptxconf.app.report_html import html_report
from ptxconf.app.reproduce import with_reproduce
from ptxconf.core.results import Result, result_line

if TYPE_CHECKING:
    from ptxconf.oracle.spec import Spec


class Ahead:
    """Per-result report work, done as results come in and looked up when writing."""

    def __init__(self, spec: Spec | None) -> None:
        self.spec = spec
        self._taken = 0
        #: id(result) -> (result, its reproduced form)
        self._reproduced: dict[int, tuple[Result, Result]] = {}
        #: id(reproduced result) -> (its results.json line, fields_view, first_oracle); every
        #: such result is held in `_reproduced`, so no other live object has its id
        self._done: dict[int, tuple[str, tuple[str | None, bool], str | None]] = {}

    def take(self, results: Sequence[Result]) -> int:
        """Work out the results not taken before (`results` only grows between calls: those
        past the count taken so far are new); how many were new. The first take that finds
        any also draws the page once for them (`warm`)."""
        new = list(results[self._taken:])
        first = self._taken == 0
        self._taken += len(new)
        for r in new:
            self._work(self.reproduced(r))
        if first and new:
            self.warm([self.reproduced(r) for r in new])
        return len(new)

    def warm(self, reproduced: list[Result]) -> None:
        """Draw report.html once for these (reproduced) results and throw it away: the
        template compiled, its drawing code imported, the oracle's answers and the pictures of
        these results made and kept for the page written later. A failure here is the
        writer's to tell (it meets the same problem)."""
        with contextlib.suppress(Exception):
            html_report(reproduced, {}, self.spec, reproduced=True, ahead=self)

    def reproduced(self, result: Result) -> Result:
        """`with_reproduce(result, spec)`, worked out once."""
        hit = self._reproduced.get(id(result))
        if hit is not None and hit[0] is result:
            return hit[1]
        out = with_reproduce(result, self.spec)
        self._reproduced[id(result)] = (result, out)
        return out

    def _work(self, rr: Result) -> tuple[str, tuple[str | None, bool], str | None]:
        done = self._done.get(id(rr))
        if done is None:
            done = self._done[id(rr)] = (result_line(rr), fields_view(rr), first_oracle(rr))
        return done

    def line(self, rr: Result) -> str:
        """A reproduced result's results.json line."""
        known = self._done.get(id(rr))
        return known[0] if known is not None else result_line(rr)

    def fields_view(self, rr: Result) -> tuple[str | None, bool]:
        """`fields_view` of a reproduced result."""
        known = self._done.get(id(rr))
        return known[1] if known is not None else fields_view(rr)

    def first_oracle(self, rr: Result) -> str | None:
        """`first_oracle` of a reproduced result."""
        known = self._done.get(id(rr))
        return known[2] if known is not None else first_oracle(rr)


__all__ = ["Ahead"]
