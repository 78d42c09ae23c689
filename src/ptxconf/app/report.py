"""Reports from the one result model: results.json, junit.xml, report.html, summary.md and a
text summary, published as one set (what the pages hold: ptxconf.app.report_html).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ptxconf.app.report_html import html_report, markdown_summary
from ptxconf.app.report_spec import load_report_spec
from ptxconf.core.atomic import write_atomic
from ptxconf.core.interrupts import blocked
from ptxconf.core.results import SCHEMA_VERSION, Result, Status, dumps, summarize

if TYPE_CHECKING:
    from ptxconf.app.report_ahead import Ahead
    from ptxconf.oracle.spec import Spec


def write_reports(out_dir: Path, results: list[Result], meta: dict[str, Any],
                  spec: Spec | None = None, *, cache: bool = True,
                  ahead: Ahead | None = None) -> list[Path]:
    """Write results.json, junit.xml, report.html, summary.md and codequality.json; return their
    paths in that order. `spec`: the run's spec where the caller has it (the report draws from
    it, and junit.xml and codequality.json name its rows). Every result is written with its
    `ptxconf` reproduce lines (ptxconf.app.reproduce). `cache`: report.html's pictures are
    kept and read back (ptxconf.app.picture_cache; `check --no-cache` draws them afresh).
    `ahead`: the per-result work already done while the run went on (of `spec`)."""
    from ptxconf.app.report_ahead import Ahead

    spec = spec if spec is not None else load_report_spec(meta)
    ahead = ahead if ahead is not None and ahead.spec is spec else Ahead(spec)
    results = [ahead.reproduced(r) for r in results]
    texts = {"results.json": dumps(results, meta, ahead.line),
             "junit.xml": junit(results, meta, spec),
             "report.html": html_report(results, meta, spec, reproduced=True, cache=cache,
                                        ahead=ahead),
             "summary.md": markdown_summary(results, meta),
             "codequality.json": code_quality(results, spec, bool(meta.get("strict")))}
    return write_set(out_dir, texts)


class ReportWriteError(OSError):
    """A report set that was not written (a full disk, a read-only folder): one line naming the
    folder, the files, the one that failed and why, and what the folder holds now."""


def write_set(out_dir: Path, texts: Mapping[str, str]) -> list[Path]:
    """Write files as a set: each is written whole into a staging folder first, then all are
    moved into place with signals held back, so an interrupt or a full disk leaves either the
    old set or the new one (and no temporary file behind). A failure is a ReportWriteError."""
    names = list(texts)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out_dir, prefix=".staging-"))
    except OSError as exc:
        raise _not_written(out_dir, names, str(out_dir), exc, "nothing there changed") from None
    try:
        for name, text in texts.items():
            try:
                write_atomic(staging / name, text)
            except OSError as exc:
                raise _not_written(out_dir, names, name, exc, "the set there before is unchanged"
                                   ) from None
        _publish(staging, out_dir, names)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out_dir / name for name in names]


def _publish(staging: Path, out_dir: Path, names: list[str]) -> None:
    """Move the staged files into place, signals held back. The files they replace are kept
    (hard links, else copies) until every move succeeded: a move that fails puts the earlier
    ones back, so the folder never holds half of each set."""
    previous = staging / ".previous"
    try:
        previous.mkdir()
        for name in names:
            if (out_dir / name).is_file():
                _keep(out_dir / name, previous / name)
    except OSError as exc:
        raise _not_written(out_dir, names, "a copy of the set there", exc,
                           "the set there before is unchanged") from None
    moved: list[str] = []
    with blocked():
        for name in names:
            try:
                os.replace(staging / name, out_dir / name)
            except OSError as exc:
                state = _restore(out_dir, previous, moved)
                raise _not_written(out_dir, names, name, exc, state) from None
            moved.append(name)


def _keep(src: Path, dest: Path) -> None:
    """A hard link to src at dest (no data written), else a copy."""
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def _restore(out_dir: Path, previous: Path, moved: list[str]) -> str:
    """Put back the files that `moved` replaced (removing the ones that were new); say what
    the folder holds now."""
    try:
        for name in moved:
            if (previous / name).is_file():
                os.replace(previous / name, out_dir / name)
            else:
                (out_dir / name).unlink(missing_ok=True)
    except OSError as exc:
        return f"putting the set there before back failed too ({exc.strerror or exc})"
    return "the set there before is unchanged"


def _not_written(out_dir: Path, names: list[str], failed: str, exc: OSError,
                 state: str) -> ReportWriteError:
    """The one-line error of a set not written."""
    why = exc.strerror or str(exc) or type(exc).__name__
    err = ReportWriteError(f"{out_dir}: {', '.join(names)} not written ({failed}: {why}); {state}")
    err.errno = exc.errno
    return err


def check_writable(out_dir: Path) -> None:
    """Fail before a run, not after it, when the report folder cannot be written."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as exc:
        raise OSError(f"--report-dir {out_dir}: cannot write there ({exc.strerror or exc})") from None


class ResultsError(ValueError):
    """A results.json that is not one ptxconf wrote: `path: where - what`."""


#: The results.json schema versions this ptxconf reads (1: `details`, no code or provider).
READABLE_SCHEMAS = (1, SCHEMA_VERSION)
#: Nesting deeper than this in a results file is refused (ptxconf writes a handful of levels).
MAX_RESULTS_DEPTH = 64


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of a JSON value, stopping once past `limit`."""
    stack, deepest = [(value, 1)], 0
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def _result(path: Path, i: int, r: Any) -> Result:
    where = f"{path}: results[{i}]"
    if not isinstance(r, dict):
        raise ResultsError(f"{where} - expected an object, got {type(r).__name__}")
    for key in ("id", "check", "status"):
        if not isinstance(r.get(key), str):
            raise ResultsError(f"{where} - expected a string {key!r}, got {r.get(key)!r:.60}")
    if r["status"] not in {s.value for s in Status}:
        raise ResultsError(f"{where} - expected a status in {[s.value for s in Status]}, got "
                           f"{r['status']!r:.40}")
    fields = r.get("fields", r.get("details", {}))
    if not isinstance(fields, dict):
        raise ResultsError(f"{where} - expected fields as an object, got {type(fields).__name__}")
    seconds = r.get("seconds", 0.0)
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        raise ResultsError(f"{where} - expected seconds as a number, got {seconds!r:.40}")
    texts = {k: r.get(k) for k in ("message", "device", "code", "provider")}
    for key, value in texts.items():
        if value is not None and not isinstance(value, str):
            raise ResultsError(f"{where} - expected {key} as a string, got {value!r:.40}")
    # schema 1 had no code or provider: its passes are "ok", any other code is unrecorded ("").
    return Result(r["id"], r["check"], Status(r["status"]), texts["message"] or "", fields,
                  float(seconds), texts["device"],
                  code=texts["code"] or ("ok" if r["status"] == "pass" else ""),
                  provider=texts["provider"] or "")


def load_results(path: Path) -> tuple[list[Result], dict[str, Any]]:
    """Read a results.json back into results and metadata; a file of another shape is one
    `ResultsError` line naming where it went wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ResultsError(f"{path}: not JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object, got {type(data).__name__}")
    if _depth(data, MAX_RESULTS_DEPTH) > MAX_RESULTS_DEPTH:
        raise ResultsError(f"{path}: nested deeper than {MAX_RESULTS_DEPTH} levels")
    version = data.get("schema_version")
    if version not in READABLE_SCHEMAS:
        raise ResultsError(f"{path}: schema_version {version!r:.20} is not one this ptxconf reads "
                           f"{list(READABLE_SCHEMAS)}")
    raw = data.get("results")
    if not isinstance(raw, list):
        raise ResultsError(f"{path}: expected 'results' as a list, got {type(raw).__name__}")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise ResultsError(f"{path}: expected 'meta' as an object, got {type(meta).__name__}")
    return [_result(path, i, r) for i, r in enumerate(raw)], meta


def _device(results: list[Result], meta: dict[str, Any]) -> str:
    devices = sorted({r.device for r in results if r.device})
    return "; ".join(devices) or str(meta.get("device", "none"))


def case_location(spec: Spec | None, result: Result) -> tuple[str, int] | None:
    """The spec file and line a result's case key names, as `spec/<file>` (the checkout's
    `spec/` folder holds it, and a report names it so wherever the run read it from), or None
    where the key names no row, file or kind (a GPU variant's instruction name)."""
    if spec is None:
        return None
    from ptxconf.oracle.spec import key_location

    key = result.id[len(result.check) + 1:-1] if result.id.startswith(result.check + "[") else ""
    rel, line = key_location(spec, key) if key else ("", 1)
    return (f"spec/{rel}", line) if rel else None


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def _flagged(results: Iterable[Result], strict: bool) -> Iterator[tuple[Result, bool]]:
    """(result, whether it fails the run) for each failure and spec discrepancy: what the CI
    annotations and the Code Quality report list."""
    for r in results:
        if r.status.fails_run(strict) or r.status is Status.DISCREPANCY:
            yield r, r.status.fails_run(strict)


def github_annotations(results: Iterable[Result], spec: Spec | None, strict: bool = False) -> list[str]:
    """GitHub Actions workflow commands: `::error` for each case that fails the run, `::warning`
    for each spec discrepancy (an error under --strict), at the spec file and line its case
    names (`spec/...`, the checkout's folder), titled with the case id."""
    lines = []
    for r, failing in _flagged(results, strict):
        level = "error" if failing else "warning"
        where = case_location(spec, r)
        props = [f"file={_gh_property(where[0])}", f"line={where[1]}"] if where else []
        props.append(f"title={_gh_property(r.id)}")
        lines.append(f"::{level} {','.join(props)}::{_gh_data(f'{r.code}: {r.message}')}")
    return lines


def code_quality(results: Iterable[Result], spec: Spec | None, strict: bool = False) -> str:
    """GitLab's Code Quality report (codequality.json): each failure (severity major) and spec
    discrepancy (minor; major under --strict) at the spec file and line its case names (the
    spec folder where it names none), with a fingerprint stable across runs (the case id)."""
    import hashlib

    issues = []
    for r, failing in _flagged(results, strict):
        path, line = case_location(spec, r) or ("spec", 1)
        issues.append({"description": f"{r.id}: {r.code}: {r.message}"[:2000], "check_name": r.check,
                       "fingerprint": hashlib.sha256(r.id.encode()).hexdigest(),
                       "severity": "major" if failing else "minor",
                       "location": {"path": path, "lines": {"begin": line}}})
    return json.dumps(issues, indent=1) + "\n"  # JSON escapes control characters itself (\\u0000)


#: Skipped cases of one provider with one reason are one JUnit testcase from this many on (a
#: CPU-only run skips 2,238 GPU cases: eight rows, not thousands).
SKIP_GROUP_MIN = 2


def junit(results: Iterable[Result], meta: dict[str, Any] | None = None,
          spec: Spec | None = None) -> str:
    """JUnit XML as GitHub's and GitLab's test views read it. Only what fails the run is a
    failure: FAIL is a <failure> with its fields as the body, UNKNOWN an <error>; a known spec
    discrepancy is <skipped> with "known spec discrepancy (<finding>): <message>" (so a test
    view lists it) and its explanation in system-out; skipped cases of one provider with one
    reason are one testcase ("<n> cases skipped"). Each testcase names the spec file and line
    its case key points at (`file`, `line`), where it points at one."""
    results = list(results)
    meta = meta or {}
    counts = summarize(results)
    groups: dict[tuple[str, str, str], list[Result]] = {}
    for r in results:
        if r.status is Status.SKIP:
            groups.setdefault((r.provider, r.code, r.message), []).append(r)
    rows = [r for r in results if r.status is not Status.SKIP
            or len(groups[(r.provider, r.code, r.message)]) < SKIP_GROUP_MIN]
    grouped = [g for g in groups.values() if len(g) >= SKIP_GROUP_MIN]
    suite = ET.Element("testsuite", {
        "name": "ptxconf", "tests": str(len(rows) + len(grouped)), "failures": str(counts["fail"]),
        "errors": str(counts["unknown"]),
        "skipped": str(sum(1 for r in rows if r.status in (Status.SKIP, Status.DISCREPANCY))
                       + len(grouped)),
        "time": f"{float(meta.get('seconds', 0.0)):.3f}",
        "timestamp": str(meta.get("started", "")), "hostname": str(meta.get("host", ""))})
    props = ET.SubElement(suite, "properties")
    for name, value in (("device", _device(results, meta)), ("commit", meta.get("commit", "")),
                        ("spec_sha256", meta.get("spec_sha256", "")),
                        ("ptxconf_version", meta.get("ptxconf_version", "")),
                        ("python", meta.get("python", "")), ("gpu", meta.get("gpu", "")),
                        ("discrepancies", counts["discrepancy"]), ("skipped_cases", counts["skip"])):
        ET.SubElement(props, "property", {"name": name, "value": str(value)})
    for r in rows:
        attrs = {"classname": r.check, "name": r.id, "time": f"{r.seconds:.4f}"}
        where = case_location(spec, r)
        if where is not None:
            attrs.update(file=where[0], line=str(where[1]))
        tc = ET.SubElement(suite, "testcase", attrs)
        # the fields as a failure's or an error's body (only those have one)
        body = (json.dumps(r.fields, indent=1, default=str) if r.fields
                and r.status in (Status.FAIL, Status.UNKNOWN) else "")
        if r.status is Status.FAIL:
            ET.SubElement(tc, "failure", {"type": r.code, "message": r.message}).text = body
        elif r.status is Status.UNKNOWN:
            ET.SubElement(tc, "error", {"type": r.code, "message": r.message}).text = body
        elif r.status is Status.SKIP:
            ET.SubElement(tc, "skipped", {"message": r.message})
        elif r.status is Status.DISCREPANCY:
            finding = r.fields.get("finding", "")
            ET.SubElement(tc, "skipped", {"message": f"known spec discrepancy ({finding}): {r.message}"})
            ET.SubElement(tc, "system-out").text = str(r.fields.get("explanation", ""))
    for group in grouped:
        first = group[0]
        tc = ET.SubElement(suite, "testcase", {"classname": first.provider or first.check,
                                               "name": f"{first.provider}: {len(group)} cases skipped",
                                               "time": "0.0000"})
        ET.SubElement(tc, "skipped", {"message": f"{len(group)} cases: {first.message}"})
    ET.indent(suite)
    text = ET.tostring(suite, encoding="unicode")
    # XML 1.0 cannot hold C0 controls but tab, newline and CR, even escaped: a NUL in a message
    # would make the file unreadable to every CI system; each is written as \\xNN text
    text = _XML_INVALID.sub(lambda m: f"\\x{ord(m[0]):02x}", text)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n"


_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
