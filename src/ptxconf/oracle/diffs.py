"""Diff tables: expected versus actual over a grid, named in the layout's own coordinates.

Pure (numpy). `diff_grid` compares two equally shaped grids and keeps what a person needs to
find a layout bug: how many cells differ, the first and last by coordinate, a few samples and a
window of the grid around the first; `Diff` is that record (`message()` one line, `details()`
JSON for a report). `ptxconf.oracle.interpret` re-exports these names for the probe code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def _cell(fmt: Callable[[Any], str], v: Any) -> str:
    return fmt(v)


@dataclass(frozen=True)
class Diff:
    """Expected versus actual over a grid, in the layout's coordinates."""

    what: str
    axes: tuple[str, ...]
    total: int
    mismatches: int
    first: tuple[int, ...] | None
    last: tuple[int, ...] | None
    samples: tuple[dict[str, Any], ...] = ()
    window: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every element agreed."""
        return self.mismatches == 0

    def _coord(self, c: tuple[int, ...] | None) -> str:
        if c is None:
            return "-"
        return "(" + ", ".join(f"{a} {v}" for a, v in zip(self.axes, c, strict=True)) + ")"

    def message(self) -> str:
        """One line: counts, first and last failing coordinates, the first sample."""
        if self.ok:
            return f"{self.what}: all {self.total} agree"
        s = self.samples[0] if self.samples else {}
        return (f"{self.what}: {self.mismatches} of {self.total} differ; first "
                f"{self._coord(self.first)}: expected {s.get('expected')}, got {s.get('actual')}"
                f"; last {self._coord(self.last)}")

    def details(self) -> dict[str, Any]:
        """JSON-ready: counts, coordinates, samples and the window."""
        d: dict[str, Any] = {"what": self.what, "axes": list(self.axes), "total": self.total,
                             "mismatches": self.mismatches}
        if not self.ok:
            d.update(first=list(self.first or ()), last=list(self.last or ()),
                     samples=list(self.samples), window=self.window)
        d.update(self.extra)
        return d


def diff_grid(what: str, expected: np.ndarray, actual: np.ndarray, *,
              axes: tuple[str, ...] = ("row", "col"), fmt: Callable[[Any], str] = str,
              max_samples: int = 8, window_rows: int = 4, window_cols: int = 8,
              extra: dict[str, Any] | None = None) -> Diff:
    """Compare two equally shaped grids; name mismatches by their coordinates."""
    exp, act = np.asarray(expected), np.asarray(actual)
    if exp.shape != act.shape:
        raise ValueError(f"{what}: shapes differ: expected {exp.shape}, actual {act.shape}")
    bad = exp != act
    if exp.dtype.kind == "f" or act.dtype.kind == "f":
        bad &= ~(np.isnan(exp.astype(float)) & np.isnan(act.astype(float)))
    where = np.argwhere(bad)
    n = len(where)
    if n == 0:
        return Diff(what, axes, int(exp.size), 0, None, None, extra=extra or {})
    first, last = tuple(int(x) for x in where[0]), tuple(int(x) for x in where[-1])
    samples = tuple({"at": {a: int(v) for a, v in zip(axes, w, strict=True)},
                     "expected": _cell(fmt, exp[tuple(w)]), "actual": _cell(fmt, act[tuple(w)])}
                    for w in where[:max_samples])
    window = ""
    if exp.ndim == 2:
        r0 = max(0, first[0] - 1)
        c0 = max(0, min(first[1] - 2, exp.shape[1] - window_cols))
        rows = range(r0, min(exp.shape[0], r0 + window_rows))
        cols = range(c0, min(exp.shape[1], c0 + window_cols))
        lines = [f"expected/actual, {axes[0]} down, {axes[1]} across (* differs)",
                 "\t".join([""] + [f"{axes[1]}={c}" for c in cols])]
        for r in rows:
            cells = []
            for c in cols:
                mark = "*" if bad[r, c] else ""
                e, a = _cell(fmt, exp[r, c]), _cell(fmt, act[r, c])
                cells.append(f"{e}{mark}" if not mark else f"{e}/{a}*")
            lines.append("\t".join([f"{axes[0]}={r}"] + cells))
        window = "\n".join(lines)
    return Diff(what, axes, int(exp.size), n, first, last, samples, window, extra or {})


def hex_fmt(v: Any) -> str:
    """0x-prefixed hex of an integer cell."""
    return f"{int(v):#x}"


def int_fmt(v: Any) -> str:
    """A cell as an integer (or its float value when not integral)."""
    f = float(v)
    return str(int(f)) if f.is_integer() else repr(f)


def fingerprint(arr: np.ndarray) -> str:
    """A short content hash of an int array (shape included), to compare maps across runs."""
    a = np.ascontiguousarray(np.asarray(arr, dtype=np.int64))
    h = hashlib.sha256(repr(a.shape).encode() + a.tobytes()).hexdigest()
    return f"sha256:{h[:16]}"


__all__ = ["Diff", "diff_grid", "fingerprint", "hex_fmt", "int_fmt"]
