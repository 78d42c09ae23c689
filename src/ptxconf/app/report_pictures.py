"""The pictures of report.html, drawn once each by ptxconf.app.draw and inlined as SVG, each
within the page's bounds (`draw.MAX_WIDTH_PX`, `MAX_HEIGHT_PX`, `MAX_CELLS`: large maps cut to
the rows and columns around the cells that matter): a failure's or discrepancy's own picture
(ptxconf.app.figures, figures_gpu), expected-versus-observed windows of a diff, the layouts an
oracle command in a case's fields describes (shared-memory maps one cell a 16-byte chunk), and
one reference picture per canonical shared-memory layout."""

from __future__ import annotations

import functools
import hashlib
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptxconf.app.draw import Grid
    from ptxconf.core.results import Result
    from ptxconf.oracle.spec import Spec

#: What a fragment picture shows: the first threads and registers.
PICTURE_ROWS = 8
PICTURE_REGS = 8
#: Rows of 16-byte chunks a shared-memory map shows (its swizzle repeats every 8).
SMEM_ROWS = 24


@dataclass
class Picture:
    """One drawn picture (drawn once; later uses link to it)."""

    pid: str
    svg: str
    caption: str
    owner: str  # the case id it is drawn with


@dataclass
class PictureRef:
    """A picture as a case shows it: drawn here, or a link to where it is drawn."""

    picture: Picture
    first: bool


def diffs(fields: Mapping[str, Any], depth: int = 0) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, diff) for every diff table (`what`, `axes`, `mismatches`) in the fields."""
    for k, v in fields.items():
        if isinstance(v, Mapping):
            if {"what", "axes", "mismatches"} <= set(v):
                yield str(k), v
            elif depth < 2:
                yield from ((f"{k}.{p}", d) for p, d in diffs(v, depth + 1))


def oracle_commands(fields: Mapping[str, Any], depth: int = 0) -> Iterator[str]:
    """Every `ptxconf oracle ...` command line in the fields, in field order."""
    for k, v in fields.items():
        if isinstance(v, str) and k in ("oracle", "reproduce") and v.startswith("ptxconf oracle "):
            yield v
        elif isinstance(v, Mapping) and depth < 2:
            yield from oracle_commands(v, depth + 1)


def parse_oracle(command: str) -> tuple[str, dict[str, str]] | None:
    """('smem-offsets' | 'fragment', {option: value}) of an oracle command line, or None."""
    parsed = _parse_oracle(command)
    return None if parsed is None else (parsed[0], dict(parsed[1]))


@functools.lru_cache(maxsize=4096)
def _parse_oracle(command: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """parse_oracle, kept once per command line (a report holds many of the same)."""
    # tolerate options run together ("--major K--swizzle none", as in reports/evidence/h100
    # of 4c24137c52c5): no option value holds "--"
    command = re.sub(r"(?<=\S)--(?=[a-z])", " --", command)
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 3 or words[:2] != ["ptxconf", "oracle"] or words[2] not in ("smem-offsets", "fragment"):
        return None
    opts: dict[str, str] = {}
    i = 3
    while i < len(words):
        w = words[i]
        if w.startswith("--") and i + 1 < len(words) and not words[i + 1].startswith("--"):
            opts[w[2:]] = words[i + 1]
            i += 2
        else:
            i += 1
    return words[2], tuple(opts.items())


def _window_cells(diff: Mapping[str, Any]) -> tuple[list[str], list[str], list[list[str]], list[list[str]],
                                                   tuple[str, str]] | None:
    """(row labels, col labels, expected, observed, axes) of a diff's window: the structured
    `window_cells` when present ({rows, cols, expected, actual|observed}), else the text window
    parsed (tab-separated; `e` where equal, `e/a*` where they differ)."""
    axes = tuple(str(a) for a in (list(diff.get("axes") or []) + ["row", "col"])[:2])
    cells = diff.get("window_cells")
    samples = diff.get("samples")
    if not diff.get("window") and not isinstance(cells, Mapping) and isinstance(samples, list):
        return _sample_cells(diff, samples)
    if isinstance(cells, Mapping) and "expected" in cells:
        exp = [[str(c) for c in row] for row in cells["expected"]]
        obs = [[str(c) for c in row] for row in cells.get("actual", cells.get("observed", []))]
        rows = [str(r) for r in cells.get("rows", range(len(exp)))]
        cols = [str(c) for c in cells.get("cols", range(len(exp[0]) if exp else 0))]
        if len(obs) == len(exp) == len(rows) and all(len(r) == len(cols) for r in exp + obs):
            return rows, cols, exp, obs, (axes[0], axes[1])
    window = diff.get("window")
    if not isinstance(window, str) or "\t" not in window:
        return None
    lines = window.splitlines()
    if len(lines) < 3:
        return None
    cols = [c.split("=", 1)[-1] for c in lines[1].split("\t")[1:]]
    rows, exp, obs = [], [], []
    for line in lines[2:]:
        parts = line.split("\t")
        if len(parts) != len(cols) + 1:
            return None
        rows.append(parts[0].split("=", 1)[-1])
        e_row, o_row = [], []
        for cell in parts[1:]:
            if cell.endswith("*") and "/" in cell:
                e, a = cell[:-1].rsplit("/", 1)
            else:
                e = a = cell
            e_row.append(e)
            o_row.append(a)
        exp.append(e_row)
        obs.append(o_row)
    return rows, cols, exp, obs, (axes[0], axes[1])


def _sample_cells(diff: Mapping[str, Any], samples: list[Any]) -> tuple[
        list[str], list[str], list[list[str]], list[list[str]], tuple[str, str]] | None:
    """A diff without a window (three axes and more): its samples, one row per coordinate
    before the last axis, one column per value of the last."""
    axes = [str(a) for a in diff.get("axes") or []]
    if len(axes) < 2 or not samples:
        return None
    rows: dict[str, dict[str, tuple[str, str]]] = {}
    cols: list[str] = []
    for s in samples:
        at = s.get("at") if isinstance(s, Mapping) else None
        if not isinstance(at, Mapping) or set(at) != set(axes):
            return None
        label = ", ".join(f"{a} {at[a]}" for a in axes[:-1])
        col = str(at[axes[-1]])
        cols += [col] if col not in cols else []
        rows.setdefault(label, {})[col] = (str(s.get("expected", "")), str(s.get("actual", "")))
    exp = [[rows[r].get(c, ("·", "·"))[0] for c in cols] for r in rows]
    obs = [[rows[r].get(c, ("·", "·"))[1] for c in cols] for r in rows]
    return list(rows), cols, exp, obs, (", ".join(axes[:-1]), axes[-1])


#: SVG of every grid drawn in this process, by its full content: a report drawn while the run
#: still goes on (`ptxconf.app.run`) leaves the final report only the pictures of later results.
_DRAWN: dict[str, str] = {}


class Pictures:
    """Draws pictures once each (deduplicated by content), bounded (`ptxconf.app.draw.fit`)
    and inline (`page_svg`)."""

    def __init__(self, spec: Spec | None, cache: bool = False) -> None:
        self.spec = spec
        self.by_key: dict[str, Picture] = {}
        self._references: list[tuple[str, PictureRef]] | None = None
        #: Keep the grids of the pictures computed from the oracle (ptxconf.app.picture_cache).
        self.cache = cache
        self._spec_sha256: str | None = None

    def _kept_key(self, what: Result | tuple[str, Mapping[str, str]] | None) -> str | None:
        """The picture cache's key of a result's pictures, an oracle answer's (kind, options)
        or (None) the references; None where nothing is kept."""
        if not self.cache or self.spec is None:
            return None
        from ptxconf.app import picture_cache
        from ptxconf.oracle.spec import spec_sha256

        if self._spec_sha256 is None:
            self._spec_sha256 = spec_sha256(self.spec)
        if what is None:
            return picture_cache.references_key(self._spec_sha256)
        if isinstance(what, tuple):
            return picture_cache.oracle_key(*what, self._spec_sha256)
        return picture_cache.case_key(what, self._spec_sha256)

    def _add(self, grid: Grid, owner: str, caption: str, *, fitted: bool = False,
             max_rows: int = 0) -> PictureRef:
        from ptxconf.app.draw import fit, page_svg

        grid = grid if fitted else fit(grid, max_rows=max_rows)
        content = repr(grid)
        key = hashlib.sha256(content.encode()).hexdigest()
        if key in self.by_key:
            return PictureRef(self.by_key[key], False)
        if content not in _DRAWN:  # drawn before in this process (a report made ahead): reused
            _DRAWN[content] = page_svg(grid)
        pic = Picture(f"pic-{len(self.by_key) + 1}", _DRAWN[content], caption, owner)
        self.by_key[key] = pic
        return PictureRef(pic, True)

    def case(self, result: Result) -> list[PictureRef]:
        """The pictures of a failure or discrepancy (`ptxconf.app.figures` and
        `figures_gpu`): its layout with the cells that matter marked."""
        found = self._case_figures(result)
        if len(found) == 2 and found[0][0].cols == found[1][0].cols \
                and found[0][0].rows == found[1][0].rows:
            from ptxconf.app.draw import fit_together

            grids = fit_together([grid for grid, _ in found])
            return [self._add(g, result.id, caption, fitted=True)
                    for g, (_, caption) in zip(grids, found, strict=True)]
        return [self._add(grid, result.id, caption) for grid, caption in found]

    def _case_figures(self, result: Result) -> list[tuple[Grid, str]]:
        """(grid, caption) of each picture of a result: kept, else computed (and kept)."""
        spec = self.spec
        if spec is None:
            return []
        from ptxconf.app import picture_cache

        key = self._kept_key(result)
        kept = picture_cache.get(key) if key is not None else None
        if kept is not None:
            return [(grid, caption) for _, grid, caption in kept]
        from ptxconf.app.figures import figures
        from ptxconf.app.figures_gpu import gpu_figures

        try:
            drawn = list(figures(result, spec)) or list(gpu_figures(result, spec))
            found = [(f.grid, f.caption) for f in drawn]
        except Exception:  # noqa: BLE001 - fields of another shape (an older results.json)
            return []
        if key is not None:
            picture_cache.put(key, [("", grid, caption) for grid, caption in found])
        return found

    def references(self) -> list[tuple[str, PictureRef]]:
        """(layout family, picture) of each canonical layout of the spec, drawn once."""
        if self._references is None:
            self._references = [(family, self._add(grid, "reference", caption))
                                for family, grid, caption in self._reference_figures()]
        return self._references

    def _reference_figures(self) -> list[tuple[str, Grid, str]]:
        """(layout family, grid, caption) of each canonical layout: kept, else computed."""
        from ptxconf.app import picture_cache

        key = self._kept_key(None)
        kept = picture_cache.get(key) if key is not None else None
        if kept is not None:
            return kept
        from ptxconf.app.figures_gpu import reference_figures

        try:
            refs = reference_figures(self.spec) if self.spec is not None else []
        except Exception:  # noqa: BLE001 - a spec without canonical layouts: none
            return []
        found = [(family, f.grid, f.caption) for family, f in refs]
        if key is not None:
            picture_cache.put(key, found)
        return found

    def reference(self, family: str) -> PictureRef | None:
        """A link to the reference picture of a layout family ("K-major 128B"), or None."""
        for name, ref in self.references():
            if name == family:
                return PictureRef(ref.picture, False)
        return None

    def diff(self, owner: str, path: str, diff: Mapping[str, Any]) -> list[PictureRef]:
        """Expected and observed windows of a diff, side by side, differing cells marked."""
        from ptxconf.app.draw import Cell, Grid, fit_together

        parsed = _window_cells(diff)
        if parsed is None:
            return []
        rows, cols, exp, obs, axes = parsed
        try:
            grids = []
            for side, data in (("expected", exp), ("observed", obs)):
                cells = tuple(tuple(Cell(v, None, exp[i][j] != obs[i][j]) for j, v in enumerate(row))
                              for i, row in enumerate(data))
                grids.append(Grid(f"{side}: {diff.get('what', path)}"[:90], tuple(rows), tuple(cols),
                                  cells, axes[0], axes[1], "marked: differs from the other side"))
            return [self._add(g, owner, f"{path}: {side} (window around the first difference)",
                              fitted=True)
                    for g, side in zip(fit_together(grids), ("expected", "observed"), strict=True)]
        except Exception:  # noqa: BLE001 - a window of odd shape: text only
            return []

    def oracle(self, owner: str, command: str) -> PictureRef | None:
        """The oracle's answer for a command line (a shared-memory map by 16-byte chunk, a
        fragment's first threads), or None."""
        parsed = parse_oracle(command)
        spec = self.spec
        if parsed is None or spec is None:
            return None
        kind, o = parsed
        rows = SMEM_ROWS if kind == "smem-offsets" else 0  # three 8-row groups: the pattern repeats
        from ptxconf.app import picture_cache

        key = self._kept_key((kind, o))
        kept = picture_cache.get(key) if key is not None else None
        try:
            if kept is not None and len(kept) == 1:
                return self._add(kept[0][1], owner, command, max_rows=rows)
            grid = self._smem_grid(spec, o) if kind == "smem-offsets" else self._fragment_grid(spec, o)
            ref = self._add(grid, owner, command, max_rows=rows)
        except Exception:  # noqa: BLE001 - a picture that cannot be drawn is left out
            return None
        if key is not None:
            picture_cache.put(key, [("", grid, "")])
        return ref

    @staticmethod
    def _smem_grid(spec: Spec, o: Mapping[str, str]) -> Grid:
        from ptxconf.app.figures_gpu import smem_chunk_grid
        from ptxconf.oracle.canonical import SmemQuery

        q = SmemQuery(o["dtype"], o["major"], o["swizzle"], int(o["mn"], 0), int(o["k"], 0),
                      int(o["lbo"], 0), int(o["sbo"], 0), int(o.get("base-offset", "0"), 0),
                      base_offset_field=int(o.get("base-offset-field", "0"), 0))
        return smem_chunk_grid(spec, q, f"{q.major}-major {q.swizzle} {q.dtype} {q.mn}x{q.k}: "
                                        f"LBO {q.lbo_bytes} B, SBO {q.sbo_bytes} B")

    @staticmethod
    def _fragment_grid(spec: Spec, o: Mapping[str, str]) -> Grid:
        from ptxconf.app.draw import fragment_grid
        from ptxconf.oracle.fragments import fragment_map

        fmap = fragment_map(o["instr"], o["operand"], spec)
        regs = sorted({e[1] for e in fmap.entries})
        keep = set(regs[:PICTURE_REGS])
        entries = [list(e) for e in fmap.entries if e[0] < PICTURE_ROWS and e[1] in keep]
        note = (f"threads 0-{PICTURE_ROWS - 1}"
                + (f", registers 0-{PICTURE_REGS - 1} of {len(regs)}" if len(regs) > PICTURE_REGS else ""))
        return fragment_grid(f"{o['instr']} operand {o['operand']}", entries,
                             threads=range(PICTURE_ROWS), notes=(note,))


def layout_key(command: str) -> str | None:
    """What a passing picture represents: the smem layout (major, swizzle) or the fragment
    (operand and the instruction's types, any N)."""
    parsed = parse_oracle(command)
    if parsed is None:
        return None
    kind, o = parsed
    if kind == "smem-offsets":
        return f"{o.get('major')}-major {o.get('swizzle')}"
    instr = re.sub(r"n\d+k", "nNk", o.get("instr", "")).removeprefix("wgmma.mma_async.sync.aligned.")
    return f"{o.get('operand')} of {instr}"


# --- the page -----------------------------------------------------------------------------------
