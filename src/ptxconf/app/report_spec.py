"""The spec rows a report cites, embedded in the page: where each row is (`spec/<file>:<line>`),
its text as the file holds it, and the document anchor it cites (the PTX ISA's section, linked
to the documentation; no link to a file, so a downloaded report works)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptxconf.oracle.spec import Spec

PTX_ISA_URL = "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html"


@dataclass(frozen=True)
class SpecLink:
    """Where a spec row is: its file (relative to the spec folder, `spec/<file>` in the
    checkout) and line, the row's text as the file holds it (embedded in the page: a link is
    to `#spec-<key>`, never to a file), and the document anchor it cites."""

    key: str
    file: str
    line: int
    href: str
    document: str
    anchor: str
    anchor_text: str
    anchor_href: str | None
    label: str  # short: the row's cited table/figure, else the section or anchor
    text: str = ""


def load_report_spec(meta: Mapping[str, Any]) -> Spec | None:
    """The spec a report links to and draws from: meta["spec_dir"] where it exists, else the
    bundled spec; None when it cannot be loaded (the report then has no links or oracle
    pictures)."""
    try:
        from ptxconf.oracle.spec import default_spec, load_spec

        spec_dir = meta.get("spec_dir")
        return load_spec(spec_dir) if spec_dir and Path(str(spec_dir)).is_dir() else default_spec()
    except Exception:  # noqa: BLE001 - a report renders without links rather than not at all
        return None


def spec_index(spec: Spec | None) -> dict[str, SpecLink]:
    """Row key -> SpecLink (file, line, the document anchor it cites); empty without a spec."""
    return {} if spec is None else _links(spec)


#: Longest row text embedded in a report (a longer row is cut, its file and line named).
MAX_ROW_CHARS = 800


def row_texts(root: Path, file: str, lines: list[int]) -> dict[int, str]:
    """The text of the rows starting at `lines` of a spec file: the row's line, and where it is
    a block (`- id: ...` then indented keys) the lines indented under it."""
    try:
        text = (root / file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    out = {}
    for n in lines:
        if not 0 < n <= len(text):
            continue
        first = text[n - 1]
        indent = len(first) - len(first.lstrip(" -"))
        block = [first]
        for line in text[n:]:
            if line.strip() and len(line) - len(line.lstrip(" ")) < indent:
                break
            if line.lstrip().startswith("- ") and len(line) - len(line.lstrip(" ")) < indent:
                break
            block.append(line)
        while block and not block[-1].strip():
            block.pop()
        row = "\n".join(block)
        out[n] = row if len(row) <= MAX_ROW_CHARS else row[:MAX_ROW_CHARS] + " …"
    return out


def _links(spec: Spec) -> dict[str, SpecLink]:
    out: dict[str, SpecLink] = {}
    root = Path(spec.root)
    by_file: dict[str, list[int]] = {}
    for row in spec.rows:
        by_file.setdefault(row.file, []).append(row.line)
    texts = {f: row_texts(root, f, lines) for f, lines in by_file.items()}
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
        out[row.key] = SpecLink(row.key, row.file, row.line, f"#{spec_anchor(row.key)}", document,
                                anchor, text, href, label, texts[row.file].get(row.line, ""))
    return out


def spec_anchor(key: str) -> str:
    """The HTML id of an embedded spec row: `spec-<key>` (keys hold no whitespace)."""
    return "spec-" + re.sub(r"\s", "_", key)


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


__all__ = ["PTX_ISA_URL", "SpecLink", "load_report_spec", "row_texts", "spec_anchor", "spec_index",
           "spec_links"]
