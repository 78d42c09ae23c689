"""The grids of report.html's pictures kept on disk, so that a warm run's report draws the
pictures of the same results without computing their maps again (the oracle's, with NumPy).

A failure's or discrepancy's pictures depend on the result (as results.json holds it, less its
seconds), the spec and ptxconf's code; the reference pictures on the spec and the code. Their
grids (ptxconf.app.draw.Grid: text, numbers and flags, never markup) are kept under a key of
those in $PTXCONF_CACHE_DIR/pictures (or ~/.cache/ptxconf/pictures) and drawn as a computed
grid is (`page_svg` escapes every text). An entry is input from outside, read as every cache
entry is (ptxconf.core.trust): a regular file within `MAX_ENTRY_BYTES`, this version's shape,
every value of the type its field has, and the digest of its content under its key; anything
else is not used (the pictures are computed, and kept again).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ptxconf.core.atomic import write_atomic
from ptxconf.core.outcome_cache import code_sha256
from ptxconf.core.results import Result, plain_result
from ptxconf.core.trust import cache_root, read_regular, sign

if TYPE_CHECKING:
    from ptxconf.app.draw import Grid

VERSION = 1
#: The largest entry read (a picture's grid is bounded by draw.MAX_CELLS; real ones are KiB).
MAX_ENTRY_BYTES = 1 << 20
#: What a result says about how it was obtained, not what it found: no picture reads it, and a
#: result read from a cache says it where the run that computed it did not.
PROVENANCE = ("cached",)


def case_key(result: Result, spec_sha256: str) -> str:
    """The key of a result's pictures: the result as results.json holds it (but its seconds and
    its `PROVENANCE` fields, so a warm run's results find the pictures of the cold run's), the
    spec (its sha256: ptxconf.oracle.spec.spec_sha256) and the code."""
    plain = {k: v for k, v in plain_result(result).items() if k != "seconds"}
    if isinstance(plain.get("fields"), dict):
        plain["fields"] = {k: v for k, v in plain["fields"].items() if k not in PROVENANCE}
    return _key(["case", plain], spec_sha256)


def references_key(spec_sha256: str) -> str:
    """The key of the spec's reference pictures."""
    return _key(["references"], spec_sha256)


def oracle_key(kind: str, options: Mapping[str, str], spec_sha256: str) -> str:
    """The key of the picture of an oracle command's answer (its kind and options)."""
    return _key(["oracle", kind, sorted(options.items())], spec_sha256)


def _key(what: list[Any], spec_sha256: str) -> str:
    text = json.dumps([VERSION, code_sha256(), spec_sha256, *what], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _path(key: str) -> Any:
    return cache_root() / "pictures" / f"{key}.json"


def get(key: str) -> list[tuple[str, Grid, str]] | None:
    """The kept pictures ((label, grid, caption) each) under a key, or None."""
    path = _path(key)
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(read_regular(path, MAX_ENTRY_BYTES).decode("utf-8"))
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return None
        kept = data.get("pictures")
        if data.get("digest") != sign(key, _canonical(kept)) or not isinstance(kept, list):
            return None
        return [_picture(p) for p in kept]
    except (OSError, ValueError, TypeError, KeyError):
        return None


def put(key: str, pictures: list[tuple[str, Grid, str]]) -> None:
    """Keep pictures under a key (written whole or not at all; a read-only cache only makes the
    next report slower)."""
    plain = [[label, _plain_grid(grid), caption] for label, grid, caption in pictures]
    with contextlib.suppress(OSError):
        write_atomic(_path(key), json.dumps({"version": VERSION, "pictures": plain,
                                             "digest": sign(key, _canonical(plain))}))


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def _plain_grid(g: Grid) -> dict[str, Any]:
    return {"title": g.title, "rows": list(g.rows), "cols": list(g.cols),
            "cells": [[[c.text, c.group, c.marked, c.mark, c.related] for c in row] for row in g.cells],
            "row_axis": g.row_axis, "col_axis": g.col_axis, "legend": g.legend,
            "notes": list(g.notes), "marks": [list(m) for m in g.marks]}


def _picture(p: Any) -> tuple[str, Grid, str]:
    """A kept picture; ValueError where any value is not of its field's type."""
    if not isinstance(p, list) or len(p) != 3 or not isinstance(p[0], str) or not isinstance(p[2], str):
        raise ValueError("a picture of another shape")
    return p[0], _grid(p[1]), p[2]


def _strs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError("not a list of texts")
    return tuple(value)


def _grid(g: Any) -> Grid:
    from ptxconf.app.draw import Cell, Grid

    if not isinstance(g, dict) or not all(isinstance(g.get(k), str) for k in
                                          ("title", "row_axis", "col_axis", "legend")):
        raise ValueError("a grid of another shape")
    cells = g["cells"]
    if not isinstance(cells, list) or not all(isinstance(row, list) for row in cells):
        raise ValueError("cells of another shape")
    marks = g["marks"]
    if not isinstance(marks, list) or not all(isinstance(m, list) and len(m) == 2 for m in marks):
        raise ValueError("marks of another shape")
    return Grid(g["title"], _strs(g["rows"]), _strs(g["cols"]),
                tuple(tuple(_cell(c, Cell) for c in row) for row in cells),
                g["row_axis"], g["col_axis"], g["legend"], _strs(g["notes"]),
                tuple((a, b) for a, b in (_strs(m) for m in marks)))


def _cell(c: Any, cell: Any) -> Any:
    if (not isinstance(c, list) or len(c) != 5 or not isinstance(c[0], str)
            or not (c[1] is None or type(c[1]) is int) or type(c[2]) is not bool
            or not isinstance(c[3], str) or type(c[4]) is not bool):
        raise ValueError("a cell of another shape")
    return cell(c[0], c[1], c[2], c[3], c[4])


__all__ = ["MAX_ENTRY_BYTES", "case_key", "get", "oracle_key", "put", "references_key"]
