"""report.html and summary.md: the run as pages a person reads.

report.html is one self-contained page (inline CSS, JS and SVG; nothing fetched at view time)
rendered from ptxconf/templates/report.html.j2 with autoescape on: the run's summary, then what
needs attention (failures, unknowns, discrepancies) expanded with their `ptxconf` reproduce lines,
readable fields and pictures (each its own, ptxconf.app.report_pictures), one reference picture
per canonical shared-memory layout, the passing and skipped cases collapsed by provider and
family (each row its `ptxconf check` line) with filters and a search, and last the spec rows the
cases cite, embedded (`spec/<file>:<line>` and the row's text: no link leaves the page but to
the documents the rows cite).
summary.md is the same summary for a CI job page.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ptxconf.app.report_fields import Worked, fields_view, first_oracle
from ptxconf.app.report_pictures import PictureRef, Pictures, diffs, layout_key, oracle_commands
from ptxconf.app.report_spec import PTX_ISA_URL, SpecLink, load_report_spec, spec_index, spec_links
from ptxconf.app.reproduce import also_commands, check_command, with_reproduce
from ptxconf.core.cases import CODES
from ptxconf.core.results import Result, Status, summarize

if TYPE_CHECKING:
    import jinja2

    from ptxconf.oracle.spec import Spec

#: Order in which statuses are listed: what needs attention first.
ATTENTION = (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY, Status.SKIP, Status.PASS)
#: Statuses shown expanded at the top of report.html.
EXPANDED = (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY)
#: Longest text of one field value shown in report.html (the rest stays in results.json).
MAX_VALUE_CHARS = 20_000
#: Nested mappings deeper than this are shown as indented JSON.
MAX_DEPTH = 3
#: Items per list in summary.md before "... and N more".
SUMMARY_ITEMS = 60


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


# --- pictures -----------------------------------------------------------------------------------


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
    reproduce: str = ""
    reproduce_also: list[str] = field(default_factory=list)


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
    #: How many of its cases have fields too large to show (they are in results.json).
    big_fields: int = 0

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
    spec = meta.get("spec")
    if isinstance(spec, Mapping) and spec.get("root"):
        shown_spec = f"{spec['root']} ({spec.get('origin', '?')})"
        main.append(("spec", shown_spec, f"{shown_spec}; known findings: {spec.get('findings', '?')}"))
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
    shown = {"device", "commit", "spec", "spec_sha256", "seconds", "started", "host"}
    other = [(k, v if isinstance(v, str) else json.dumps(v, default=str))
             for k, v in meta.items() if k not in shown]
    return main, other


def _verdict(counts: Mapping[str, int], strict: bool,
             incomplete: Mapping[str, Any] | None = None) -> tuple[str, str]:
    if incomplete:
        said = incomplete if isinstance(incomplete, Mapping) else {}
        return "bad", (f"INCOMPLETE: interrupted by {said.get('interrupted_by', '?')} after "
                       f"{said.get('completed', '?')} results (ptxconf check --resume runs "
                       "the rest)")
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
                    spec_links(case_key(r), links), _short_device(r.device),
                    reproduce=str(r.fields.get("reproduce") or check_command(r)))


@functools.cache
def page_template() -> jinja2.Template:
    """The page's Jinja template, loaded once per process (ptxconf.app.report_template: the
    Python shipped beside it where that is current, else compiled; `ptxconf check` loads it
    while the GPU lanes run, so that writing the report does not wait for it)."""
    from ptxconf.app.report_template import load

    return load()


def html_report(results: list[Result], meta: dict[str, Any], spec: Spec | None = None, *,
                reproduced: bool = False, cache: bool = False, ahead: Worked | None = None) -> str:
    """report.html: a single self-contained page (see the module docstring). `spec`: the run's
    own spec, where the caller has it (else `load_report_spec`); `reproduced`: the results carry
    their reproduce lines already (`with_reproduce`, as write_reports gives them); `cache`: the
    pictures' grids are kept and read back (ptxconf.app.picture_cache); `ahead`: what of each
    result was worked out while the run went on (`ptxconf.app.report_ahead`)."""
    try:
        template = page_template()
    except ImportError as exc:  # an offline node without jinja2 must not lose its run
        return _plain_page(results, meta, exc)

    spec = spec if spec is not None else load_report_spec(meta)
    if not reproduced:
        results = [with_reproduce(r, spec) for r in results]  # as results.json holds them
    links = spec_index(spec)
    pics = Pictures(spec, cache=cache)
    counts = summarize(results)
    anchors: set[str] = set()
    references = pics.references()

    attention: list[CaseView] = []
    for status in EXPANDED:
        for r in results:
            if r.status is not status:
                continue
            v = _view(r, links, anchors)
            v.reproduce_also = also_commands(r)  # those its fields hold too
            v.finding = finding_of(r) if r.status is Status.DISCREPANCY or "finding" in r.fields else None
            hidden = {"finding", "explanation", "reproduce", "reproduce_also"}
            v.fields = [(str(k), value_node(val)) for k, val in r.fields.items() if k not in hidden]
            v.pictures = pics.case(r)
            for path, diff in diffs(r.fields):
                v.pictures += pics.diff(r.id, path, diff)
            for cmd in dict.fromkeys(oracle_commands(r.fields)):
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
            big = 0
            for r in quiet:
                v = _view(r, links, anchors)
                small, too_big = ahead.fields_view(r) if ahead else fields_view(r)
                v.small_fields = small or ""
                big += too_big
                first = ahead.first_oracle(r) if ahead else first_oracle(r)
                layout = None if first is None else layout_key(first)
                if first is not None and layout is not None and layout not in seen_layouts:
                    seen_layouts.add(layout)
                    # a shared-memory layout links to its reference picture
                    ref = (pics.reference(layout) if first.startswith("ptxconf oracle smem")
                           else None) or pics.oracle(r.id, first)
                    if ref is not None:
                        fam_pics.setdefault(ref.picture.pid, (ref, []))[1].append(layout)
                cases.append(v)
            devices = {r.device for r in quiet if r.device}
            fviews.append(FamilyView(fname, pname, cases, summarize(quiet), len(group) - len(quiet),
                                     _short_device(next(iter(devices))) if len(devices) == 1 else "",
                                     sum(r.seconds for r in quiet), list(fam_pics.values()), big))
        if fviews:
            provider_views.append(ProviderView(pname, fviews, summarize(
                [c.r for f in fviews for c in f.cases])))

    main_meta, other_meta = _meta_rows(results, meta)
    tone, verdict = _verdict(counts, bool(meta.get("strict")), meta.get("incomplete"))
    cited = {link.key: link for r in results for link in spec_links(case_key(r), links)}
    return template.render(
        references=references, cited=sorted(cited.values(), key=lambda x: (x.file, x.line)),
        counts=counts, total=len(results), statuses=[s.value for s in ATTENTION],
        main_meta=main_meta, other_meta=other_meta, verdict=verdict, tone=tone,
        attention=attention, providers=provider_views,
        families=sorted({r.check for r in results}), provider_names=list(providers),
        markup=_markup, plain=_plain, ptx_isa_url=PTX_ISA_URL) + "\n"


def _plain_page(results: list[Result], meta: Mapping[str, Any], why: Exception) -> str:
    """The page where jinja2 is missing: the text summary, and how to render the real one."""
    import html as html_lib

    return ("<!doctype html><meta charset='utf-8'><title>ptxconf report</title>"
            f"<p>report.html needs jinja2 ({html_lib.escape(str(why))}); re-render it where jinja2 is "
            "installed with <code>ptxconf report results.json</code>.</p><pre>"
            + html_lib.escape(_text(results, meta)) + "</pre>\n")


def _text(results: list[Result], meta: Mapping[str, Any]) -> str:
    from ptxconf.app.text_report import text_summary

    return text_summary(results, bool(meta.get("strict")))


def _plain(text: str) -> Any:
    """Text for an element's content: <, > and & escaped, quotes left as they are (a row's
    `'<case id>'` need not be `&#39;` twice)."""
    from markupsafe import Markup

    return Markup(html.escape(text, quote=False))  # escaped on this line


def _markup(svg: str) -> Any:
    """An SVG made by ptxconf.app.draw (its text escaped by drawsvg), inlined unescaped."""
    from markupsafe import Markup

    return Markup(svg)  # unescaped: drawsvg escapes every text it writes


# --- summary.md and the terminal summary -------------------------------------------------------


def _md(text: str) -> str:
    """One line of text safe inside a Markdown list item (and a code span): whitespace and
    control characters collapsed to spaces, backquotes made quotes."""
    return " ".join(_CONTROL.sub(" ", str(text)).split()).replace("`", "'")


def _md_prose(text: str) -> str:
    """`_md`, and safe as Markdown prose: no HTML a CI page would render (`<script>` shows as
    text)."""
    return html.escape(_md(text), quote=False)


#: Characters no report should carry raw: C0 controls but tab and newline, DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def markdown_summary(results: list[Result], meta: Mapping[str, Any]) -> str:
    """summary.md for CI job pages: counts, device and commit, then what failed and the
    discrepancies, one line each (long lists cut with a count)."""
    counts = summarize(results)
    tone, verdict = _verdict(counts, bool(meta.get("strict")), meta.get("incomplete"))
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
            msg = _md_prose(r.message)
            lines.append(f"- `{_md(r.id)}` — `{r.code or '-'}`{name}: {msg[:300]}{'…' * (len(msg) > 300)}")
        if len(group) > max(budget, 0):
            lines.append(f"- … and {len(group) - max(budget, 0)} more (report.html, results.json)")
        budget -= len(group)
    if not any(r.status in EXPANDED for r in results):
        lines += ["", "Nothing failed and no spec discrepancy."]
    return "\n".join(lines) + "\n"
