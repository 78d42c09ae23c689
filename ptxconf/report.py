"""Reports from the one result model: results.json, junit.xml, report.html and a text summary."""

from __future__ import annotations

import html
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from ptxconf.results import Result, Status, dumps, summarize

#: Order in which statuses are listed: what needs attention first.
ATTENTION = (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY, Status.SKIP, Status.PASS)


def write_atomic(path: Path, text: str) -> None:
    """Write a file whole or not at all, so an interrupted run never leaves half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def write_reports(out_dir: Path, results: list[Result], meta: dict[str, Any]) -> list[Path]:
    """Write the three report files; return their paths."""
    paths = [out_dir / "results.json", out_dir / "junit.xml", out_dir / "report.html"]
    write_atomic(paths[0], dumps(results, meta))
    write_atomic(paths[1], junit(results))
    write_atomic(paths[2], html_report(results, meta))
    return paths


def load_results(path: Path) -> tuple[list[Result], dict[str, Any]]:
    """Read results.json back into results and metadata."""
    data = json.loads(path.read_text(encoding="utf-8"))
    # schema 1 called the fields `details` and had no code or provider.
    results = [Result(r["id"], r["check"], Status(r["status"]), r.get("message", ""),
                      r.get("fields", r.get("details", {})), r.get("seconds", 0.0), r.get("device"),
                      code=r.get("code", "ok"), provider=r.get("provider", ""))
               for r in data["results"]]
    return results, data.get("meta", {})


def junit(results: Iterable[Result]) -> str:
    """JUnit XML: discrepancies are failures of type 'spec-discrepancy', skips are skipped."""
    results = list(results)
    counts = summarize(results)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuite name="ptxconf" tests="{len(results)}" '
             f'failures="{counts["fail"] + counts["discrepancy"]}" errors="{counts["unknown"]}" '
             f'skipped="{counts["skip"]}">']
    for r in results:
        attrs = f'classname={quoteattr(r.check)} name={quoteattr(r.id)} time="{r.seconds:.4f}"'
        if r.status is Status.PASS:
            lines.append(f"  <testcase {attrs}/>")
            continue
        tag = {Status.FAIL: "failure", Status.DISCREPANCY: "failure", Status.UNKNOWN: "error",
               Status.SKIP: "skipped"}[r.status]
        kind = "spec-discrepancy" if r.status is Status.DISCREPANCY else r.status.value
        lines.append(f"  <testcase {attrs}><{tag} type={quoteattr(kind)} "
                     f"message={quoteattr(r.message)}/></testcase>")
    lines.append("</testsuite>")
    return "\n".join(lines) + "\n"


def html_report(results: list[Result], meta: dict[str, Any]) -> str:
    """A single self-contained HTML page: summary, then results grouped by status."""
    counts = summarize(results)
    parts = ["<!doctype html><meta charset='utf-8'><title>ptxconf report</title>",
             "<style>body{font-family:sans-serif;margin:2em}td,th{border:1px solid #ccc;"
             "padding:4px;vertical-align:top;font-size:13px}table{border-collapse:collapse}"
             ".fail,.unknown{background:#fdd}.discrepancy{background:#ffe9b3}.skip{color:#777}"
             "pre{margin:0;white-space:pre-wrap}</style>",
             "<h1>ptxconf conformance report</h1><table>"]
    parts += [f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
              for k, v in meta.items()]
    parts.append("</table><h2>Summary</h2><p>" + ", ".join(
        f"{v} {k}" for k, v in counts.items()) + "</p>")
    for status in ATTENTION:
        group = [r for r in results if r.status is status]
        if not group:
            continue
        parts.append(f"<h2>{status.value} ({len(group)})</h2><table>"
                     "<tr><th>id</th><th>code</th><th>message</th><th>fields</th></tr>")
        for r in group:
            fields = html.escape(json.dumps(r.fields, indent=1, default=str)) if r.fields else ""
            parts.append(f"<tr class='{status.value}'><td>{html.escape(r.id)}</td>"
                         f"<td>{html.escape(r.code)}</td><td>{html.escape(r.message)}</td>"
                         f"<td><pre>{fields}</pre></td></tr>")
        parts.append("</table>")
    return "\n".join(parts) + "\n"


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
