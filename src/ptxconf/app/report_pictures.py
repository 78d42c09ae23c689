"""The pictures of report.html: layouts an oracle command in a case's fields describes, and
expected-versus-observed windows of a diff, drawn once each by ptxconf.app.draw and inlined as SVG."""

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
    from ptxconf.oracle.spec import Spec

#: What a picture shows of a layout: the first rows (threads) and columns (registers).
PICTURE_ROWS = 8
PICTURE_COLS = 32
PICTURE_REGS = 16


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


#: SVG of every grid drawn in this process, by its full content: a report drawn while the run
#: still goes on (`ptxconf.app.run`) leaves the final report only the pictures of later results.
_DRAWN: dict[tuple[str, bool], str] = {}


class Pictures:
    """Draws pictures once each (deduplicated by content), SVG inline from ptxconf.app.draw."""

    def __init__(self, spec: Spec | None) -> None:
        self.spec = spec
        self.by_key: dict[str, Picture] = {}

    def _add(self, grid: Grid, owner: str, caption: str, *, text: bool = True) -> PictureRef:
        from ptxconf.app.draw import Cell, Grid, to_svg

        # Row labels padded to the corner label's width, so that `row \ col` clears column 0
        # (SVG collapses the leading spaces; the labels stay right-aligned).
        corner = -(-(6 * (len(grid.row_axis) + 3 + len(grid.col_axis)) - 4) // 7)
        rows = tuple(r.rjust(corner) for r in grid.rows)
        cells = grid.cells if text else tuple(tuple(Cell("", c.group, c.marked) for c in row)
                                              for row in grid.cells)
        legend = grid.legend if text else ""
        grid = Grid(grid.title, rows, grid.cols, cells, grid.row_axis, grid.col_axis, legend, grid.notes)
        content = repr((grid.rows, grid.cols, grid.cells, grid.legend))
        key = hashlib.sha256(content.encode()).hexdigest()
        if key in self.by_key:
            return PictureRef(self.by_key[key], False)
        drawn = (repr(grid), text)
        if drawn not in _DRAWN:  # drawn before in this process (a report made ahead): reused
            svg = to_svg(grid, cell_px=0 if text else 16)
            wide = max([len(grid.title) * 8 + 12] + [len(x) * 6 + 12 for x in (grid.legend, *grid.notes)])
            _DRAWN[drawn] = compact_svg(svg, min_width=wide)
        pic = Picture(f"pic-{len(self.by_key) + 1}", _DRAWN[drawn], caption, owner)
        self.by_key[key] = pic
        return PictureRef(pic, True)

    def diff(self, owner: str, path: str, diff: Mapping[str, Any]) -> list[PictureRef]:
        """Expected and observed windows of a diff, side by side, differing cells marked."""
        from ptxconf.app.draw import Cell, Grid

        parsed = _window_cells(diff)
        if parsed is None:
            return []
        rows, cols, exp, obs, axes = parsed
        out = []
        try:
            for side, data in (("expected", exp), ("observed", obs)):
                cells = tuple(tuple(Cell(v, None, exp[i][j] != obs[i][j]) for j, v in enumerate(row))
                              for i, row in enumerate(data))
                grid = Grid(f"{side}: {diff.get('what', path)}"[:90], tuple(rows), tuple(cols), cells,
                            axes[0], axes[1], "marked: differs from the other side")
                out.append(self._add(grid, owner, f"{path}: {side} (window around the first difference)"))
        except Exception:  # noqa: BLE001 - no drawsvg here, or a window of odd shape: text only
            return []
        return out

    def oracle(self, owner: str, command: str, *, text: bool = True) -> PictureRef | None:
        """The oracle's answer for a command line, first rows (threads) only, or None."""
        parsed = parse_oracle(command)
        spec = self.spec
        if parsed is None or spec is None:
            return None
        kind, o = parsed
        try:
            grid = (self._smem_grid(spec, o, short=not text) if kind == "smem-offsets"
                    else self._fragment_grid(spec, o))
            return self._add(grid, owner, command, text=text)
        except Exception:  # noqa: BLE001 - a picture that cannot be drawn is left out
            return None

    @staticmethod
    def _smem_grid(spec: Spec, o: Mapping[str, str], *, short: bool = False) -> Grid:
        from ptxconf.app.draw import smem_grid
        from ptxconf.oracle import banks
        from ptxconf.oracle.canonical import (
            SmemQuery,
            address_units,
            element_layout,
            smem_offsets_array,
        )
        from ptxconf.oracle.descriptor import descriptor_format
        from ptxconf.oracle.domain import check_smem

        q = SmemQuery(o["dtype"], o["major"], o["swizzle"], int(o["mn"], 0), int(o["k"], 0),
                      int(o["lbo"], 0), int(o["sbo"], 0), int(o.get("base-offset", "0"), 0))
        check_smem(spec, q)  # a query the oracle refuses gets no picture
        # the oracle's offsets, every element at once (held equal to the scalar answer of
        # `ptxconf oracle smem-offsets` by conformance/test_canonical.py); the corner drawn
        offsets = smem_offsets_array(spec, q)[:PICTURE_ROWS, :PICTURE_COLS].tolist()
        units = address_units(element_layout(spec, q)[2])
        granule = 1 << descriptor_format(spec).field("leading_byte_offset").encode_shift_bits
        shown = (f"rows 0-{len(offsets) - 1} of {q.mn}"
                 + (f", k 0-{PICTURE_COLS - 1} of {q.k}" if q.k > PICTURE_COLS else ""))
        title = f"{q.major}-major {q.swizzle} {q.dtype} {q.mn}x{q.k}"
        if not short:
            title += (f": LBO {q.lbo_bytes} B, SBO {q.sbo_bytes} B"
                      + (f", start +{q.base_offset_bytes} B" if q.base_offset_bytes else ""))
        return smem_grid(title, offsets, units=units, color_by="chunk", chunk_bytes=granule,
                         bank_bytes=banks.BANK_BYTES, banks=banks.BANKS, notes=(shown,))

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


def compact_svg(svg: str, min_width: int = 0) -> str:
    """An SVG document made an inline <svg> element: no XML prolog, no empty labels, default
    cell strokes left to the page's CSS; widened to `min_width` px where its title or legend
    is wider than its cells."""
    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<defs>\s*</defs>\s*", "", svg)
    svg = re.sub(r"<text [^>]*></text>\s*", "", svg)
    svg = svg.replace(' xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    svg = svg.replace(' stroke="#999" stroke-width="0.5"', "")
    svg = svg.replace(" />", "/>")
    svg = re.sub(r"\n\s+", " ", svg).replace(">\n<", "><")
    size = re.search(r'<svg [^>]*?width="([\d.]+)" height="([\d.]+)" viewBox="0 0 [\d.]+ [\d.]+"', svg)
    if size and float(size.group(1)) < min_width:
        w, h = size.group(1), size.group(2)
        svg = svg.replace(f'width="{w}" height="{h}" viewBox="0 0 {w} {h}"',
                          f'width="{min_width}" height="{h}" viewBox="0 0 {min_width} {h}"', 1)
        svg = svg.replace(f'<rect x="0" y="0" width="{w}" height="{h}"',
                          f'<rect x="0" y="0" width="{min_width}" height="{h}"', 1)
    return svg.replace("<svg ", '<svg class="grid" role="img" ', 1).strip()


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
