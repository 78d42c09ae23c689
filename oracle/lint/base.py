"""What every lint rule sees (a parsed file with line numbers) and what it reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml


@dataclass(frozen=True)
class SpecError(Exception):
    """One spec problem, printed as `path:line: RULE - message`."""

    path: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule} - {self.message}"


@dataclass
class RawRow:
    """A row as parsed, with the line of the row and of each key (1-based)."""

    data: dict[str, Any]
    line: int
    key_lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, key: str) -> int:
        """The line of `key` in this row, or the row's own line."""
        return self.key_lines.get(key, self.line)


@dataclass
class RawDocument:
    """A spec file as parsed: its top-level mapping, rows, and where each thing is."""

    path: str
    rel: str
    data: dict[str, Any]
    top_lines: dict[str, int]
    rows: list[RawRow]

    @classmethod
    def parse(cls, path: Path, rel: str) -> RawDocument:
        """Parse a file with yaml.safe_load semantics, keeping line numbers; raise SPEC-YAML."""
        shown = str(path)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise SpecError(shown, 1, "SPEC-SIZE", f"expected a spec file of at most "
                                f"{MAX_FILE_BYTES} bytes, got {path.stat().st_size}")
            text = path.read_text(encoding="utf-8")
            _check_events(shown, text)
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            if node is not None:
                _check_keys(shown, node)
            data = yaml.safe_load(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else 1
            raise SpecError(shown, line, "SPEC-YAML", f"malformed YAML: {exc.problem}") from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise SpecError(shown, 1, "SPEC-YAML", f"cannot read: {exc}") from None
        if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
            raise SpecError(shown, 1, "SPEC-YAML", "a spec file is a mapping with kind, source, rows")
        top_lines = _key_lines(node)
        rows: list[RawRow] = []
        rows_node = _child(node, "rows")
        raw_rows = data.get("rows")
        if isinstance(rows_node, yaml.SequenceNode) and isinstance(raw_rows, list):
            for item_node, item in zip(rows_node.value, raw_rows, strict=True):
                line = item_node.start_mark.line + 1
                if isinstance(item, dict) and isinstance(item_node, yaml.MappingNode):
                    rows.append(RawRow(item, line, _key_lines(item_node)))
                else:
                    rows.append(RawRow({"__not_a_mapping__": item}, line))
        return cls(shown, rel, data, top_lines, rows)


#: Limits on one spec file: its size, and how deep its collections nest.
MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 16


def _check_events(shown: str, text: str) -> None:
    """Refuse anchors and aliases (and so alias bombs) and deep nesting, from the event stream,
    before anything is built."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        line = event.start_mark.line + 1 if event.start_mark is not None else 1
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise SpecError(shown, line, "SPEC-YAML", "anchors and aliases are not allowed in a "
                            "spec file: write each value out")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise SpecError(shown, line, "SPEC-SIZE", f"expected nesting at most {MAX_DEPTH} "
                                "deep")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


_STR_TAG = "tag:yaml.org,2002:str"


def _check_keys(shown: str, node: yaml.Node) -> None:
    """Every mapping key is a plain string, and none appears twice in one mapping."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, yaml.MappingNode):
            seen: dict[str, int] = {}
            for k, v in n.value:
                line = k.start_mark.line + 1
                if not isinstance(k, yaml.ScalarNode) or k.tag != _STR_TAG:
                    shown_key = k.value if isinstance(k, yaml.ScalarNode) else "a collection"
                    raise SpecError(shown, line, "SPEC-YAML", f"expected a string key, got "
                                    f"{shown_key!r} (YAML reads it as {k.tag.rsplit(':', 1)[-1]}; "
                                    "quote it)")
                if k.value in seen:
                    raise SpecError(shown, line, "SPEC-YAML", f"duplicate key {k.value!r} (first "
                                    f"on line {seen[k.value]})")
                seen[k.value] = line
                stack.append(v)
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)


def _key_lines(node: yaml.MappingNode) -> dict[str, int]:
    """Map each scalar key of a mapping node to its 1-based line."""
    return {
        str(k.value): k.start_mark.line + 1
        for k, _ in node.value
        if isinstance(k, yaml.ScalarNode)
    }


def _child(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    """The value node of `key` in a mapping node."""
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


class Rule(Protocol):
    """A lint rule: a stable id and a check over one parsed file."""

    rule_id: str

    def check(self, doc: RawDocument) -> list[SpecError]:
        """Every problem this rule finds in `doc`."""
        ...
