"""Reports from the one result model: results.json, junit.xml, report.html, summary.md and a
text summary.

report.html is one self-contained page (inline CSS, JS and SVG; nothing fetched at view time)
rendered from ptxconf/templates/report.html.j2 with autoescape on: the run's summary, then what
needs attention (failures, unknowns, discrepancies) expanded with readable fields and pictures,
then the passing and skipped cases collapsed by provider and family, with filters and a search.
"""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ptxconf.report_html import html_report, markdown_summary
from ptxconf.results import Result, Status, dumps, summarize


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
    skips: dict[str, dict[str, int]] = {}
    for r in results:
        if r.status is Status.SKIP and r.code == "dependency_missing":
            by_provider = skips.setdefault(r.message, {})
            by_provider[r.provider or r.check] = by_provider.get(r.provider or r.check, 0) + 1
    for why, by_provider in skips.items():
        n = sum(by_provider.values())
        lines.append(f"skipped {', '.join(by_provider)} ({n} case{'s' * (n != 1)}): {why}")
    return "\n".join(lines)
