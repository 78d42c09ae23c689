"""Reports from the one result model: results.json, junit.xml, report.html, summary.md and a
text summary.

report.html is one self-contained page (inline CSS, JS and SVG; nothing fetched at view time)
rendered from ptxconf/templates/report.html.j2 with autoescape on: the run's summary, then what
needs attention (failures, unknowns, discrepancies) expanded with readable fields and pictures,
then the passing and skipped cases collapsed by provider and family, with filters and a search.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ptxconf.cases import CODES
from ptxconf.results import Result, Status, dumps, summarize

#: Order in which statuses are listed: what needs attention first.
ATTENTION = (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY, Status.SKIP, Status.PASS)
#: Statuses shown expanded at the top of report.html.
EXPANDED = (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY)
#: A passing case's fields are inlined only below this many characters of JSON.
SMALL_FIELDS_CHARS = 300
#: Longest text of one field value shown in report.html (the rest stays in results.json).
MAX_VALUE_CHARS = 20_000
#: Nested mappings deeper than this are shown as indented JSON.
MAX_DEPTH = 3
#: What a picture shows of a layout: the first rows (threads) and columns (registers).
PICTURE_ROWS = 8
PICTURE_COLS = 32
PICTURE_REGS = 16
#: Items per list in summary.md before "... and N more".
SUMMARY_ITEMS = 60
PTX_ISA_URL = "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html"
TEMPLATES = Path(__file__).parent / "templates"


def write_atomic(path: Path, text: str) -> None:
    """Write a file whole or not at all, so an interrupted run never leaves half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, _readable_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _readable_mode() -> int:
    """0o666 less the process umask (mkstemp's 0600 would hide reports from the group)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_reports(out_dir: Path, results: list[Result], meta: dict[str, Any]) -> list[Path]:
    """Write results.json, junit.xml, report.html and summary.md; return their paths in that
    order."""
    paths = [out_dir / "results.json", out_dir / "junit.xml", out_dir / "report.html",
             out_dir / "summary.md"]
    write_atomic(paths[0], dumps(results, meta))
    write_atomic(paths[1], junit(results, meta))
    write_atomic(paths[2], html_report(results, meta))
    write_atomic(paths[3], markdown_summary(results, meta))
    return paths


def load_results(path: Path) -> tuple[list[Result], dict[str, Any]]:
    """Read results.json back into results and metadata."""
    data = json.loads(path.read_text(encoding="utf-8"))
    # schema 1 called the fields `details` and had no code or provider: its passes are "ok",
    # any other outcome's code is unrecorded ("").
    results = [Result(r["id"], r["check"], Status(r["status"]), r.get("message", ""),
                      r.get("fields", r.get("details", {})), r.get("seconds", 0.0), r.get("device"),
                      code=r.get("code", "ok" if r["status"] == "pass" else ""),
                      provider=r.get("provider", ""))
               for r in data["results"]]
    return results, data.get("meta", {})


def _device(results: list[Result], meta: dict[str, Any]) -> str:
    devices = sorted({r.device for r in results if r.device})
    return "; ".join(devices) or str(meta.get("device", "none"))


def junit(results: Iterable[Result], meta: dict[str, Any] | None = None) -> str:
    """JUnit XML, one testcase per case id. Only what fails the run is a failure: FAIL is a
    <failure> with its fields as the body, UNKNOWN an <error>; a known discrepancy passes with
    the finding as a property and in system-out; SKIP is <skipped>."""
    results = list(results)
    meta = meta or {}
    counts = summarize(results)
    suite = ET.Element("testsuite", {
        "name": "ptxconf", "tests": str(len(results)), "failures": str(counts["fail"]),
        "errors": str(counts["unknown"]), "skipped": str(counts["skip"]),
        "time": f"{float(meta.get('seconds', 0.0)):.3f}",
        "timestamp": str(meta.get("started", "")), "hostname": str(meta.get("host", ""))})
    props = ET.SubElement(suite, "properties")
    for name, value in (("device", _device(results, meta)), ("commit", meta.get("commit", "")),
                        ("spec_sha256", meta.get("spec_sha256", "")),
                        ("ptxconf_version", meta.get("ptxconf_version", "")),
                        ("python", meta.get("python", "")), ("gpu", meta.get("gpu", ""))):
        ET.SubElement(props, "property", {"name": name, "value": str(value)})
    for r in results:
        tc = ET.SubElement(suite, "testcase", {"classname": r.check, "name": r.id,
                                               "time": f"{r.seconds:.4f}"})
        body = json.dumps(r.fields, indent=1, default=str) if r.fields else ""
        if r.status is Status.FAIL:
            ET.SubElement(tc, "failure", {"type": r.code, "message": r.message}).text = body
        elif r.status is Status.UNKNOWN:
            ET.SubElement(tc, "error", {"type": r.code, "message": r.message}).text = body
        elif r.status is Status.SKIP:
            ET.SubElement(tc, "skipped", {"message": r.message})
        elif r.status is Status.DISCREPANCY:
            tprops = ET.SubElement(tc, "properties")
            ET.SubElement(tprops, "property", {"name": "finding",
                                               "value": str(r.fields.get("finding", ""))})
            ET.SubElement(tprops, "property", {"name": "status", "value": "discrepancy"})
            ET.SubElement(tc, "system-out").text = (
                f"known spec discrepancy ({r.fields.get('finding', '')}): {r.message}\n"
                f"{r.fields.get('explanation', '')}")
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


# --- case ids, providers, spec rows -----------------------------------------------------------


def case_key(result: Result) -> str:
    """The key inside a case id `<check>[<key>]` (the spec row key(s), `a~b` joining two)."""
    cid = result.id
    if cid.startswith(result.check + "[") and cid.endswith("]"):
        return cid[len(result.check) + 1:-1]
    start = cid.find("[")
    return cid[start + 1:-1] if start >= 0 and cid.endswith("]") else ""


def anchor_id(case_id: str) -> str:
    """The HTML id of a case's anchor: `case-<id>`, whitespace made `_` (ids hold no spaces)."""
    return "case-" + re.sub(r"\s", "_", case_id)


#: Schema-1 results carry no provider: the provider each check family came from then.
_LEGACY_PROVIDERS = (("spec.", "spec-lint"), ("proof.", "proofs"), ("witness.", "assembler-witness"),
                     ("gpu.device", "gpu-device"), ("gpu.compile", "gpu-device"),
                     ("gpu.smem_map", "gpu-discovery"), ("gpu.d_map", "gpu-discovery"),
                     ("gpu.a_regs", "gpu-discovery"), ("gpu.e2e", "gpu-e2e"),
                     ("gpu.address", "gpu-address"), ("gpu.hypothesis", "gpu-hypotheses"),
                     ("gpu.wmma", "gpu-wmma"))


def provider_of(result: Result) -> str:
    """The provider a result came from (inferred from its check for schema-1 results)."""
    if result.provider:
        return result.provider
    for prefix, name in _LEGACY_PROVIDERS:
        if result.check.startswith(prefix):
            return name
    return "self-consistency"


@dataclass(frozen=True)
class SpecLink:
    """Where a spec row is: its file and line, and the document anchor it cites."""

    key: str
    file: str
    line: int
    href: str
    document: str
    anchor: str
    anchor_text: str
    anchor_href: str | None
    label: str  # short: the row's cited table/figure, else the section or anchor


def load_report_spec(meta: Mapping[str, Any]) -> Any:
    """The spec a report links to and draws from: meta["spec_dir"] where it exists, else the
    bundled spec; None when it cannot be loaded (the report then has no links or oracle
    pictures)."""
    try:
        from ptxconf.oracle.spec import default_spec, load_spec

        spec_dir = meta.get("spec_dir")
        return load_spec(spec_dir) if spec_dir and Path(str(spec_dir)).is_dir() else default_spec()
    except Exception:  # noqa: BLE001 - a report renders without links rather than not at all
        return None


def spec_index(spec: Any) -> dict[str, SpecLink]:
    """Row key -> SpecLink (file, line, the document anchor it cites); empty without a spec."""
    return {} if spec is None else _links(spec)


def _links(spec: Any) -> dict[str, SpecLink]:
    out: dict[str, SpecLink] = {}
    root = Path(spec.root).resolve()
    for row in spec.rows:
        src = row.source
        document = getattr(src, "document", "") or ""
        anchor = getattr(src, "anchor", "") or ""
        url = getattr(src, "url", None)
        cite = getattr(getattr(row, "cite", None), "anchor", "") or ""
        href: str | None = None
        if url:
            href = f"{url}#{anchor}" if anchor and "#" not in url else str(url)
        elif anchor and "PTX ISA" in document:
            href = f"{PTX_ISA_URL}#{anchor}"
        cite = cite if len(cite) <= 60 else cite[:57] + "..."
        text = " · ".join(x for x in (document, getattr(src, "section", "") if href else anchor, cite) if x)
        label = cite or (getattr(src, "section", "") if href else anchor) or document
        out[row.key] = SpecLink(row.key, row.file, row.line, (root / row.file).as_uri(), document,
                                anchor, text, href, label)
    return out


def spec_links(key: str, index: Mapping[str, SpecLink]) -> list[SpecLink]:
    """The spec rows a case key names: `file:row`, `a~b` (both), or a row with one more
    `.suffix` (a per-type case of a row)."""
    found = []
    for part in key.split("~"):
        link = index.get(part)
        if link is None and "." in part:
            link = index.get(part.rsplit(".", 1)[0])
        if link is not None and link not in found:
            found.append(link)
    return found


# --- known findings -----------------------------------------------------------------------------


def finding_of(result: Result) -> tuple[str, str] | None:
    """(name, explanation) of a discrepancy's finding: from its fields, else the findings file
    (schema-1 fields held the explanation under `finding`)."""
    raw = result.fields.get("finding")
    explanation = result.fields.get("explanation")
    name = raw if isinstance(raw, str) and raw and " " not in raw else ""
    if not explanation and isinstance(raw, str) and " " in raw:
        explanation = raw
    if not name or not explanation:
        try:
            from ptxconf.oracle.findings import explain

            known = explain(result.id)
        except Exception:  # noqa: BLE001 - the report must render without the findings file
            known = None
        if known is not None:
            name = name or known.name
            explanation = explanation or known.explanation
    if not name and not explanation:
        return None
    return name, str(explanation or "")


# --- fields as readable key/value ---------------------------------------------------------------


@dataclass
class Node:
    """A field value to show: kind is text, pre, json or table (items: key, Node)."""

    kind: str
    text: str = ""
    items: list[tuple[str, Node]] = field(default_factory=list)


def _clip(text: str) -> str:
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return text[:MAX_VALUE_CHARS] + f"\n... ({len(text) - MAX_VALUE_CHARS} more characters in results.json)"


def value_node(value: Any, depth: int = 0) -> Node:
    """A field value as a node: multi-line strings preformatted (never JSON-escaped), mappings
    as nested key/value tables, short lists on one line, long lists of strings one a line."""
    if isinstance(value, str):
        return Node("pre", _clip(_columns(value))) if "\n" in value else Node("text", _clip(value))
    if value is None or isinstance(value, (bool, int, float)):
        return Node("text", json.dumps(value))
    if isinstance(value, Mapping):
        if not value:
            return Node("text", "{}")
        if depth >= MAX_DEPTH:
            return Node("pre", _clip(json.dumps(value, indent=1, default=str)))
        return Node("table", items=[(str(k), value_node(v, depth + 1)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        flat = json.dumps(value, default=str)
        if len(flat) <= 120:
            return Node("json", flat)
        if all(isinstance(v, str) for v in value):
            return Node("pre", _clip("\n".join(value)))
        if all(isinstance(v, (Mapping, list, tuple)) for v in value):
            return Node("pre", _clip("\n".join(json.dumps(v, default=str) for v in value)))
        return Node("pre", _clip(json.dumps(value, indent=1, default=str)))
    return Node("text", _clip(str(value)))


def _columns(text: str) -> str:
    """Tab-separated lines (a diff window) as aligned columns; other text unchanged."""
    lines = text.split("\n")
    if not any("\t" in line for line in lines):
        return text
    cells = [line.split("\t") for line in lines]
    widths: dict[int, int] = {}
    for row in cells:
        if len(row) > 1:
            for i, c in enumerate(row):
                widths[i] = max(widths.get(i, 0), len(c))
    return "\n".join("  ".join(c.ljust(widths.get(i, 0)) for i, c in enumerate(row)).rstrip()
                     if len(row) > 1 else row[0] for row in cells)


def _short_fields(fields: Mapping[str, Any]) -> str:
    """A small field mapping on one line: `key: value · key: value`."""
    parts = []
    for k, v in fields.items():
        if v is None:
            continue
        parts.append(f"{k}: {v if isinstance(v, str) else json.dumps(v, default=str)}")
    return " · ".join(parts)


# --- pictures -----------------------------------------------------------------------------------


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


def _diffs(fields: Mapping[str, Any], depth: int = 0) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, diff) for every diff table (`what`, `axes`, `mismatches`) in the fields."""
    for k, v in fields.items():
        if isinstance(v, Mapping):
            if {"what", "axes", "mismatches"} <= set(v):
                yield str(k), v
            elif depth < 2:
                yield from ((f"{k}.{p}", d) for p, d in _diffs(v, depth + 1))


def _oracle_commands(fields: Mapping[str, Any], depth: int = 0) -> Iterator[str]:
    """Every `ptxconf oracle ...` command line in the fields, in field order."""
    for k, v in fields.items():
        if isinstance(v, str) and k in ("oracle", "reproduce") and v.startswith("ptxconf oracle "):
            yield v
        elif isinstance(v, Mapping) and depth < 2:
            yield from _oracle_commands(v, depth + 1)


def parse_oracle(command: str) -> tuple[str, dict[str, str]] | None:
    """('smem-offsets' | 'fragment', {option: value}) of an oracle command line, or None."""
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
    return words[2], opts


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


class Pictures:
    """Draws pictures once each (deduplicated by content), SVG inline from ptxconf.draw."""

    def __init__(self, spec: Any) -> None:
        self.spec = spec
        self.by_key: dict[str, Picture] = {}

    def _add(self, grid: Any, owner: str, caption: str, *, text: bool = True) -> PictureRef:
        from ptxconf.draw import Cell, Grid, to_svg

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
        svg = to_svg(grid, cell_px=0 if text else 16)
        wide = max([len(grid.title) * 8 + 12] + [len(x) * 6 + 12 for x in (grid.legend, *grid.notes)])
        pic = Picture(f"pic-{len(self.by_key) + 1}", compact_svg(svg, min_width=wide), caption, owner)
        self.by_key[key] = pic
        return PictureRef(pic, True)

    def diff(self, owner: str, path: str, diff: Mapping[str, Any]) -> list[PictureRef]:
        """Expected and observed windows of a diff, side by side, differing cells marked."""
        from ptxconf.draw import Cell, Grid

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
    def _smem_grid(spec: Any, o: Mapping[str, str], *, short: bool = False) -> Any:
        from ptxconf.draw import smem_grid
        from ptxconf.oracle import banks
        from ptxconf.oracle.canonical import SmemQuery
        from ptxconf.oracle.descriptor import descriptor_format
        from ptxconf.oracle.domain import smem_answer

        q = SmemQuery(o["dtype"], o["major"], o["swizzle"], int(o["mn"], 0), int(o["k"], 0),
                      int(o["lbo"], 0), int(o["sbo"], 0), int(o.get("base-offset", "0"), 0))
        out = smem_answer(spec, q)
        offsets = [row[:PICTURE_COLS] for row in out["offsets"][:PICTURE_ROWS]]
        granule = 1 << descriptor_format(spec).field("leading_byte_offset").encode_shift_bits
        shown = (f"rows 0-{len(offsets) - 1} of {q.mn}"
                 + (f", k 0-{PICTURE_COLS - 1} of {q.k}" if q.k > PICTURE_COLS else ""))
        title = f"{q.major}-major {q.swizzle} {q.dtype} {q.mn}x{q.k}"
        if not short:
            title += (f": LBO {q.lbo_bytes} B, SBO {q.sbo_bytes} B"
                      + (f", start +{q.base_offset_bytes} B" if q.base_offset_bytes else ""))
        return smem_grid(title, offsets, units=out["units"], color_by="chunk", chunk_bytes=granule,
                         bank_bytes=banks.BANK_BYTES, banks=banks.BANKS, notes=(shown,))

    @staticmethod
    def _fragment_grid(spec: Any, o: Mapping[str, str]) -> Any:
        from ptxconf.draw import fragment_grid
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


def _layout_key(command: str) -> str | None:
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


@dataclass
class CaseView:
    """A case as the page shows it."""

    r: Result
    anchor: str
    provider: str
    code_meaning: str
    links: list[SpecLink]
    device_short: str
    finding: tuple[str, str] | None = None
    fields: list[tuple[str, Node]] = field(default_factory=list)
    small_fields: str = ""
    fields_note: str = ""
    pictures: list[PictureRef] = field(default_factory=list)


@dataclass
class FamilyView:
    """A check family's passing and skipped cases."""

    name: str
    provider: str
    cases: list[CaseView]
    counts: dict[str, int]
    elsewhere: int
    device: str
    seconds: float
    pictures: list[tuple[PictureRef, list[str]]] = field(default_factory=list)

    @property
    def dom_id(self) -> str:
        return "family-" + re.sub(r"[^A-Za-z0-9_.-]", "_", f"{self.provider}.{self.name}")


@dataclass
class ProviderView:
    """A provider's families."""

    name: str
    families: list[FamilyView]
    counts: dict[str, int]


def _short_device(device: str | None) -> str:
    return (device or "").split(" (")[0]


def _human_seconds(s: float) -> str:
    if s >= 120:
        return f"{s / 60:.1f} min"
    return f"{s:.1f} s" if s >= 1 else f"{s * 1000:.0f} ms"


def _meta_rows(results: list[Result], meta: Mapping[str, Any]) -> tuple[list[tuple[str, str, str]],
                                                                       list[tuple[str, str]]]:
    """(main rows: label, value, title) and the other meta keys, each only where present."""
    devices = sorted({r.device for r in results if r.device})
    main: list[tuple[str, str, str]] = []
    if devices:
        main.append(("device" if len(devices) == 1 else "devices", "; ".join(devices), ""))
    elif meta.get("device"):
        main.append(("device", str(meta["device"]), ""))
    if meta.get("commit"):
        main.append(("commit", str(meta["commit"]), ""))
    if meta.get("spec_sha256"):
        sha = str(meta["spec_sha256"])
        main.append(("spec sha256", sha[:16], sha))
    if meta.get("seconds") is not None:
        try:
            main.append(("duration", _human_seconds(float(meta["seconds"])), f"{meta['seconds']} s"))
        except (TypeError, ValueError):
            main.append(("duration", str(meta["seconds"]), ""))
    for key in ("started", "host"):
        if meta.get(key):
            main.append((key, str(meta[key]), ""))
    shown = {"device", "commit", "spec_sha256", "seconds", "started", "host"}
    other = [(k, v if isinstance(v, str) else json.dumps(v, default=str))
             for k, v in meta.items() if k not in shown]
    return main, other


def _verdict(counts: Mapping[str, int], strict: bool) -> tuple[str, str]:
    failing = counts["fail"] + counts["unknown"] + (counts["discrepancy"] if strict else 0)
    if failing:
        return "bad", f"{failing} case{'s' * (failing != 1)} fail the run"
    if counts["discrepancy"]:
        return "warn", (f"nothing failed; {counts['discrepancy']} known spec "
                        f"discrepanc{'ies' if counts['discrepancy'] != 1 else 'y'}")
    return "good", "nothing failed"


def _view(r: Result, links: Mapping[str, SpecLink], anchors: set[str] | None = None) -> CaseView:
    meaning = (CODES.get(r.code, "(a code this version does not list)") if r.code
               else "no code recorded (results.json schema 1)")
    anchor = anchor_id(r.id)
    if anchors is not None:  # a case id listed twice still gets anchors of its own
        base, n = anchor, 1
        while anchor in anchors:
            n += 1
            anchor = f"{base}~{n}"
        anchors.add(anchor)
    return CaseView(r, anchor, provider_of(r), meaning,
                    spec_links(case_key(r), links), _short_device(r.device))


def html_report(results: list[Result], meta: dict[str, Any]) -> str:
    """report.html: a single self-contained page (see the module docstring)."""
    try:
        import jinja2
    except ImportError as exc:  # an offline node without jinja2 must not lose its run
        return _plain_page(results, meta, exc)

    spec = load_report_spec(meta)
    links = spec_index(spec)
    pics = Pictures(spec)
    counts = summarize(results)
    anchors: set[str] = set()

    attention: list[CaseView] = []
    for status in EXPANDED:
        for r in results:
            if r.status is not status:
                continue
            v = _view(r, links, anchors)
            v.finding = finding_of(r) if r.status is Status.DISCREPANCY or "finding" in r.fields else None
            hidden = {"finding", "explanation"} if v.finding else set()
            v.fields = [(str(k), value_node(val)) for k, val in r.fields.items() if k not in hidden]
            for path, diff in _diffs(r.fields):
                v.pictures += pics.diff(r.id, path, diff)
            for cmd in dict.fromkeys(_oracle_commands(r.fields)):
                ref = pics.oracle(r.id, cmd)
                if ref is not None:
                    v.pictures.append(ref)
            attention.append(v)

    providers: dict[str, dict[str, list[Result]]] = {}
    for r in results:
        providers.setdefault(provider_of(r), {}).setdefault(r.check, []).append(r)
    provider_views: list[ProviderView] = []
    for pname, fams in providers.items():
        fviews = []
        for fname, group in fams.items():
            quiet = [r for r in group if r.status not in EXPANDED]
            if not quiet:
                continue
            cases = []
            seen_layouts: set[str] = set()
            fam_pics: dict[str, tuple[PictureRef, list[str]]] = {}
            for r in quiet:
                v = _view(r, links, anchors)
                if r.fields:
                    text = json.dumps(r.fields, default=str)
                    if len(text) < SMALL_FIELDS_CHARS:
                        v.small_fields = _short_fields(r.fields)
                    else:
                        v.fields_note = f"fields: {len(text) / 1024:.1f} kB, in results.json"
                if r.status is Status.PASS:
                    for cmd in list(_oracle_commands(r.fields))[:1]:
                        layout = _layout_key(cmd)
                        if layout is None or layout in seen_layouts:
                            continue
                        seen_layouts.add(layout)
                        ref = pics.oracle(r.id, cmd, text=not cmd.startswith("ptxconf oracle smem"))
                        if ref is not None:
                            fam_pics.setdefault(ref.picture.pid, (ref, []))[1].append(layout)
                cases.append(v)
            devices = {r.device for r in quiet if r.device}
            fviews.append(FamilyView(fname, pname, cases, summarize(quiet), len(group) - len(quiet),
                                     _short_device(next(iter(devices))) if len(devices) == 1 else "",
                                     sum(r.seconds for r in quiet), list(fam_pics.values())))
        if fviews:
            provider_views.append(ProviderView(pname, fviews, summarize(
                [c.r for f in fviews for c in f.cases])))

    main_meta, other_meta = _meta_rows(results, meta)
    tone, verdict = _verdict(counts, bool(meta.get("strict")))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    template = env.get_template("report.html.j2")
    return template.render(
        counts=counts, total=len(results), statuses=[s.value for s in ATTENTION],
        main_meta=main_meta, other_meta=other_meta, verdict=verdict, tone=tone,
        attention=attention, providers=provider_views,
        families=sorted({r.check for r in results}), provider_names=list(providers),
        markup=_markup, ptx_isa_url=PTX_ISA_URL) + "\n"


def _plain_page(results: list[Result], meta: Mapping[str, Any], why: Exception) -> str:
    """The page where jinja2 is missing: the text summary, and how to render the real one."""
    import html

    return ("<!doctype html><meta charset='utf-8'><title>ptxconf report</title>"
            f"<p>report.html needs jinja2 ({html.escape(str(why))}); re-render it where jinja2 is "
            "installed with <code>ptxconf report results.json</code>.</p><pre>"
            + html.escape(text_summary(results, bool(meta.get("strict")))) + "</pre>\n")


def _markup(svg: str) -> Any:
    """An SVG made by ptxconf.draw (its text escaped by drawsvg), inlined unescaped."""
    from markupsafe import Markup

    return Markup(svg)  # noqa: S704 - drawsvg escapes every text it writes


# --- summary.md and the terminal summary -------------------------------------------------------


def _md(text: str) -> str:
    """One line of text safe inside a Markdown list item."""
    return " ".join(str(text).split()).replace("`", "'")


def markdown_summary(results: list[Result], meta: Mapping[str, Any]) -> str:
    """summary.md for CI job pages: counts, device and commit, then what failed and the
    discrepancies, one line each (long lists cut with a count)."""
    counts = summarize(results)
    tone, verdict = _verdict(counts, bool(meta.get("strict")))
    lines = [f"# ptxconf: {verdict}", "", "| status | cases |", "| --- | ---: |"]
    lines += [f"| {s.value} | {counts[s.value]} |" for s in ATTENTION]
    lines.append(f"| total | {len(results)} |")
    lines.append("")
    main_meta, _ = _meta_rows(results, meta)
    lines += [f"- {label}: `{_md(title or value)}`" for label, value, title in main_meta]
    budget = SUMMARY_ITEMS
    for status, title in ((Status.FAIL, "Failures"), (Status.UNKNOWN, "Unknown"),
                          (Status.DISCREPANCY, "Spec discrepancies")):
        group = [r for r in results if r.status is status]
        if not group:
            continue
        lines += ["", f"## {title} ({len(group)})", ""]
        for r in group[:max(budget, 0)]:
            finding = finding_of(r) if status is Status.DISCREPANCY else None
            name = f" ({finding[0]})" if finding and finding[0] else ""
            msg = _md(r.message)
            lines.append(f"- `{_md(r.id)}` — `{r.code or '-'}`{name}: {msg[:300]}{'…' * (len(msg) > 300)}")
        if len(group) > max(budget, 0):
            lines.append(f"- … and {len(group) - max(budget, 0)} more (report.html, results.json)")
        budget -= len(group)
    if not any(r.status in EXPANDED for r in results):
        lines += ["", "Nothing failed and no spec discrepancy."]
    return "\n".join(lines) + "\n"


def text_summary(results: list[Result], strict: bool = False) -> str:
    """The human summary `ptxconf check` prints: counts, then every non-pass by status."""
    counts = summarize(results)
    lines = ["ptxconf check: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v or k == "fail")]
    for status in (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY):
        group = [r for r in results if r.status is status]
        if group:
            label = "spec discrepancies" if status is Status.DISCREPANCY else status.value
            note = " (fail under --strict)" if status is Status.DISCREPANCY and not strict else ""
            lines.append(f"{label}{note}:")
            lines += [f"  {r.id}: {r.message}" for r in group]
    skips: dict[tuple[str, str], int] = {}
    for r in results:
        if r.status is Status.SKIP and r.code == "dependency_missing":
            key = (r.provider or r.check, r.message)
            skips[key] = skips.get(key, 0) + 1
    lines += [f"skipped {prov} ({n} case{'s' * (n != 1)}): {why}" for (prov, why), n in skips.items()]
    return "\n".join(lines)
