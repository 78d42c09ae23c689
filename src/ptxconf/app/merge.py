"""`ptxconf report merge RUN_DIR... -o OUT`: the runs of several devices as one device matrix.

Each run folder holds a results.json (`ptxconf check` wrote it on one node). The merge reads
them all, names each run's device, and writes into OUT:

* `merged.json`: for every case id, each device's status, code and message; the devices; the
  cases where the devices disagree; the expectations applied and those gone stale.
* `matrix.html`: a self-contained page: the family x device matrix (a picture), then "where
  devices disagree" (each such case with every device's verdict), then the stale expectations.
* `summary.md`: the same in a few lines, for a CI job page.

A per-device expectation file (`--expect FILE`, YAML) accepts a known difference with a reason:
`{device: H200, expect: [{case: <id>, status: fail, reason: ...}]}`. A result that matches an
expectation becomes a `discrepancy` (code `expected_difference`) on that device; an expectation
whose case no longer gives that status is reported stale (and fails the merge).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ptxconf.core.results import Result, Status

#: Statuses from worst to best: a family's cell shows its worst case.
WORST_FIRST = ("fail", "unknown", "discrepancy", "skip", "pass")
MERGE_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Run:
    """One node's run: where it came from, its device label and its results by case id."""

    path: Path
    device: str
    results: dict[str, Result]
    #: The run was interrupted: what it holds is only what completed (its meta.incomplete).
    incomplete: bool = False


@dataclass(frozen=True)
class Expectation:
    """A known difference on one device, accepted with a reason."""

    device: str
    case: str
    status: str
    reason: str
    source: str


@dataclass
class Merged:
    """What the merge found."""

    devices: list[str]
    cases: dict[str, dict[str, Result]]
    applied: list[Expectation] = field(default_factory=list)
    stale: list[Expectation] = field(default_factory=list)
    #: Expectations for a device none of the runs is from (not applied, not stale).
    absent: list[Expectation] = field(default_factory=list)
    #: The runs that were interrupted (their results are only what completed), by device.
    incomplete: list[str] = field(default_factory=list)

    def disagree(self) -> list[str]:
        """Case ids whose status differs between the devices that ran them."""
        out = []
        for cid, by_dev in self.cases.items():
            if len({r.status for r in by_dev.values()}) > 1 or len(by_dev) < len(self.devices):
                out.append(cid)
        return out


def device_label(results: Sequence[Result], meta: Mapping[str, Any]) -> str:
    """A short device name: from the gpu.device case ('NVIDIA H100 80GB HBM3 (...)' -> 'H100'),
    else the results' device field, else the run's host."""
    names = [r.message for r in results if r.check == "gpu.device" and r.status is Status.PASS]
    names += [r.device for r in results if r.device]
    for name in names:
        for word in name.replace("NVIDIA", "").split():
            if word[:1].isalpha() and any(ch.isdigit() for ch in word):
                return word
    return f"cpu:{meta.get('host', 'unknown')}"


def load_run(path: Path) -> Run:
    """A run folder (or its results.json)."""
    from ptxconf.app.report import load_results

    file = path / "results.json" if path.is_dir() else path
    if not file.is_file():
        raise ValueError(f"{path}: no results.json")
    results, meta = load_results(file)
    return Run(file.parent, device_label(results, meta), {r.id: r for r in results},
               bool(meta.get("incomplete")))


def load_expectations(path: Path) -> list[Expectation]:
    """An expectation file: one line per problem, never a traceback (read as spec files are:
    at most 1 MiB, no aliases, nested at most 16 deep)."""
    from ptxconf.oracle.lint.base import SpecError, compose_file

    try:
        _, data = compose_file(path, str(path))
    except SpecError as exc:
        raise ValueError(f"{path}: cannot read expectations ({exc.message})") from None
    if not isinstance(data, dict) or not isinstance(data.get("device"), str) \
            or not isinstance(data.get("expect"), list):
        raise ValueError(f"{path}: expected {{device: NAME, expect: [{{case, status, reason}}]}}")
    out = []
    for i, e in enumerate(data["expect"]):
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("case", "status", "reason")):
            raise ValueError(f"{path}: expect[{i}] needs string case, status and reason")
        if e["status"] not in WORST_FIRST:
            raise ValueError(f"{path}: expect[{i}]: status {e['status']!r} is not one of {WORST_FIRST}")
        out.append(Expectation(data["device"], e["case"], e["status"], e["reason"], str(path)))
    return out


def merge(runs: Sequence[Run], expectations: Sequence[Expectation] = ()) -> Merged:
    """Every case by device; expectations applied (matching results become discrepancies)."""
    from dataclasses import replace

    devices = list(dict.fromkeys(r.device for r in runs))
    if len(devices) != len(runs):
        raise ValueError("two runs name the same device: "
                         + ", ".join(f"{r.path} ({r.device})" for r in runs))
    cases: dict[str, dict[str, Result]] = {}
    for run in runs:
        for cid, res in run.results.items():
            cases.setdefault(cid, {})[run.device] = res
    m = Merged(devices, cases, incomplete=[r.device for r in runs if r.incomplete])
    for e in expectations:
        got = cases.get(e.case, {}).get(e.device)
        if got is not None and got.status.value == e.status:
            cases[e.case][e.device] = replace(
                got, status=Status.DISCREPANCY, code="expected_difference",
                message=f"expected on {e.device} ({e.reason}): {got.message}",
                fields={**got.fields, "expected_status": e.status, "reason": e.reason})
            m.applied.append(e)
        elif e.device in devices:
            m.stale.append(e)
        else:
            m.absent.append(e)
    return m


def _family(case_id: str) -> str:
    return case_id.split("[", 1)[0]


def family_matrix(m: Merged) -> tuple[list[str], dict[tuple[str, str], str]]:
    """(families, (family, device) -> 'worst status n/total') for the matrix picture."""
    fams: dict[str, dict[str, list[str]]] = {}
    for cid, by_dev in m.cases.items():
        for dev, res in by_dev.items():
            fams.setdefault(_family(cid), {}).setdefault(dev, []).append(res.status.value)
    cells = {}
    for fam, statuses_by_dev in fams.items():
        for dev in m.devices:
            statuses = statuses_by_dev.get(dev, [])
            worst = next((s for s in WORST_FIRST if s in statuses), "-")
            cells[(fam, dev)] = worst if not statuses else f"{worst} {statuses.count('pass')}/{len(statuses)}"
    return sorted(fams), cells


def merged_json(m: Merged) -> dict[str, Any]:
    """merged.json's content."""
    return {
        "schema_version": MERGE_SCHEMA_VERSION, "devices": m.devices,
        "cases": {cid: {d: {"status": r.status.value, "code": r.code, "message": r.message}
                        for d, r in by_dev.items()} for cid, by_dev in m.cases.items()},
        "disagree": m.disagree(),
        "expectations_applied": [e.__dict__ for e in m.applied],
        "expectations_stale": [e.__dict__ for e in m.stale],
        "expectations_absent_device": [e.__dict__ for e in m.absent],
        "incomplete_runs": m.incomplete,
    }


def matrix_html(m: Merged) -> str:
    """matrix.html: the family x device picture, where devices disagree, stale expectations."""
    from ptxconf.app.draw import device_matrix, to_svg

    fams, cells = family_matrix(m)
    worst = {k: v.split()[0] for k, v in cells.items()}
    grid = device_matrix("case families x devices (worst status, passing/total)", fams, m.devices,
                         worst)
    from ptxconf.app.draw import Cell, Grid
    grid = Grid(grid.title, grid.rows, grid.cols,
                tuple(tuple(Cell(cells[(f, d)], c.group, c.marked) for d, c in zip(m.devices, row, strict=True))
                      for f, row in zip(fams, grid.cells, strict=True)),
                grid.row_axis, grid.col_axis, grid.legend)
    esc = html.escape
    parts = ["<!doctype html><meta charset='utf-8'><title>ptxconf device matrix</title>",
             "<style>body{font-family:system-ui,sans-serif;margin:24px;max-width:1350px}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;"
             "font-size:13px;vertical-align:top;overflow-wrap:anywhere}.pass{background:#e6f4ea}"
             ".fail,.unknown{background:#fde0dc}.discrepancy{background:#fff1c2}.skip{color:#777}"
             ".pic{overflow-x:auto}</style>",
             "<h1>ptxconf device matrix</h1>",
             *([f"<p><b>INCOMPLETE</b>: the runs of {esc(', '.join(m.incomplete))} were "
                "interrupted; they hold only what completed.</p>"] if m.incomplete else []),
             f"<p>{len(m.cases)} cases on {len(m.devices)} devices: "
             f"{', '.join(esc(d) for d in m.devices)}; {len(m.disagree())} where they disagree; "
             f"{len(m.applied)} expected differences; {len(m.stale)} stale expectations.</p>",
             f"<div class='pic'>{to_svg(grid)}</div>",
             "<h2 id='disagree'>Where devices disagree</h2>"]
    rows = m.disagree()
    if not rows:
        parts.append("<p>Nowhere: every case has the same status on every device.</p>")
    else:
        parts.append("<table><tr><th>case</th>" + "".join(f"<th>{esc(d)}</th>" for d in m.devices)
                     + "</tr>")
        for cid in rows:
            tds = []
            for d in m.devices:
                r = m.cases[cid].get(d)
                tds.append("<td>not run</td>" if r is None else
                           f"<td class='{r.status.value}'><b>{r.status.value}</b> <code>{esc(r.code)}"
                           f"</code><br>{esc(r.message[:400])}</td>")
            parts.append(f"<tr><td><code>{esc(cid)}</code></td>{''.join(tds)}</tr>")
        parts.append("</table>")
    parts.append("<h2>Stale expectations</h2>")
    parts.append("<p>None.</p>" if not m.stale else "<ul>" + "".join(
        f"<li>{esc(e.device)}: <code>{esc(e.case)}</code> was expected to {esc(e.status)} "
        f"({esc(e.reason)}; {esc(e.source)})</li>" for e in m.stale) + "</ul>")
    return "\n".join(parts) + "\n"


def summary_md(m: Merged) -> str:
    """summary.md of a merge."""
    lines = [f"# ptxconf device matrix: {', '.join(m.devices)}", "",
             *([f"**INCOMPLETE**: the runs of {', '.join(m.incomplete)} were interrupted; they "
                "hold only what completed.", ""] if m.incomplete else []),
             f"{len(m.cases)} cases; {len(m.disagree())} where the devices disagree; "
             f"{len(m.applied)} expected differences; {len(m.stale)} stale expectations.", ""]
    for cid in m.disagree()[:60]:
        verdicts = "; ".join(f"{d}: {m.cases[cid][d].status.value}" if d in m.cases[cid]
                             else f"{d}: not run" for d in m.devices)
        lines.append(f"- `{cid}`: {verdicts}")
    lines += [f"- stale expectation on {e.device}: `{e.case}` ({html.escape(e.reason, quote=False)})"
              for e in m.stale]
    lines += [f"- expectation for {e.device}, which no run is from: `{e.case}` ({e.source})"
              for e in m.absent]
    return "\n".join(lines) + "\n"


def write_merge(out: Path, m: Merged) -> list[Path]:
    """Write merged.json, matrix.html and summary.md as a set."""
    from ptxconf.app.report import write_set

    return write_set(out, {"merged.json": json.dumps(merged_json(m), indent=1),
                           "matrix.html": matrix_html(m), "summary.md": summary_md(m)})


__all__ = ["Expectation", "Merged", "Run", "device_label", "load_expectations", "load_run",
           "merge", "write_merge"]
