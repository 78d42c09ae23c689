"""Reports from the one result model: results.json, junit.xml, report.html and a text summary."""

from __future__ import annotations

import html
import json
import os
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ptxconf.results import Result, Status, dumps, summarize

#: Order in which statuses are listed: what needs attention first.
ATTENTION = (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY, Status.SKIP, Status.PASS)


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
    """Write the three report files; return their paths."""
    paths = [out_dir / "results.json", out_dir / "junit.xml", out_dir / "report.html"]
    write_atomic(paths[0], dumps(results, meta))
    write_atomic(paths[1], junit(results, meta))
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
