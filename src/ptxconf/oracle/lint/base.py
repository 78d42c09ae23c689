"""What every lint rule sees (a parsed file with line numbers) and what it reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

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
    #: Its values converted to its record's field types, once one rule has done so (each of
    #: SPEC-SCHEMA, SPEC-ID and the records needs them).
    built: dict[str, Any] | None = None

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
    #: The line of each key of the `source` block (1-based).
    source_lines: dict[str, int] = field(default_factory=dict)

    @classmethod
    def parse(cls, path: Path, rel: str) -> RawDocument:
        """Parse a file with yaml.safe_load semantics, keeping line numbers; raise SPEC-YAML."""
        shown = str(path)
        node, data = compose_file(path, shown)
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
        source_node = _child(node, "source")
        source_lines = _key_lines(source_node) if isinstance(source_node, yaml.MappingNode) else {}
        return cls(shown, rel, data, top_lines, rows, source_lines)


def compose_file(path: Path, shown: str, limit_bytes: int | None = None) -> tuple[yaml.Node | None, Any]:
    """A YAML file's node tree and value (safe_load semantics, no aliases, bounded size and
    depth); each problem a SpecError (SPEC-SIZE, SPEC-YAML) at its line."""
    limit = MAX_FILE_BYTES if limit_bytes is None else limit_bytes
    try:
        if not path.is_file():
            raise SpecError(shown, 1, "SPEC-YAML", "cannot read: not a regular file")
        if path.stat().st_size > limit:
            raise SpecError(shown, 1, "SPEC-SIZE", f"expected a spec file of at most {limit} bytes, "
                            f"got {path.stat().st_size}")
        text = path.read_text(encoding="utf-8")
        node = _compose(shown, text)
        return node, _construct(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise SpecError(shown, line, "SPEC-YAML", f"malformed YAML: {exc.problem}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SpecError(shown, 1, "SPEC-YAML", f"cannot read: {exc}") from None


#: Limits on one spec file: its size, and how deep its collections nest.
MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 16

#: libyaml's safe loader where PyYAML was built with it (the pure-Python one takes seconds to
#: parse a 1 MB spec); the same safe_load semantics. Typed as the pure-Python one (both are a
#: safe constructor and resolver over a parser), with the types of the two methods used here
#: that types-PyYAML leaves unannotated.
if TYPE_CHECKING:
    class _BASE_LOADER(yaml.SafeLoader):
        def resolve(self, kind: type[yaml.Node], value: str | None,
                    implicit: tuple[bool, bool]) -> str: ...

        # Any: _compose dispatches on the event's exact type (`type(event) is`), which mypy
        # does not narrow, and reads the fields of each kind.
        def get_event(self) -> Any: ...
else:
    _BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SpecLoader(_BASE_LOADER):
    """The safe loader, remembering how each plain scalar resolved in the file: a spec repeats
    its keys and small values thousands of times, and resolving one is a regex search."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._tags: dict[tuple[str, Any], str] = {}

    def scalar_tag(self, value: str, implicit: tuple[bool, bool]) -> str:
        """The tag the safe loader resolves an untagged scalar to (memoized)."""
        key = (value, implicit)
        tag = self._tags.get(key)
        if tag is None:
            tag = self._tags[key] = self.resolve(yaml.ScalarNode, value, implicit)
        return tag


_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


def _construct(node: yaml.Node | None) -> Any:
    """The Python value of a composed document, as yaml.safe_load builds it, without parsing
    the text again (the nodes hold no aliases and nest at most MAX_DEPTH deep: _compose)."""
    return None if node is None else _Builder().build(node)


class _Builder:
    """Plain strings, lists and dicts built directly; every other node by the safe
    constructor (numbers, booleans, null, timestamps, !!set, ...)."""

    def __init__(self) -> None:
        self.safe = yaml.constructor.SafeConstructor()
        #: Other scalars by (tag, text): their values (numbers, booleans, null, timestamps,
        #: bytes) are immutable, and a spec repeats them thousands of times.
        self.scalars: dict[tuple[str, str], Any] = {}

    def build(self, node: yaml.Node) -> Any:
        """The value of one node."""
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _STR_TAG:
                return node.value
            key = (node.tag, node.value)
            if key not in self.scalars:
                self.scalars[key] = self._construct(node)
            return self.scalars[key]
        if node.tag == _SEQ_TAG and isinstance(node, yaml.SequenceNode):
            return [self.build(n) for n in node.value]
        if node.tag == _MAP_TAG and isinstance(node, yaml.MappingNode):
            return {self.build(k): self.build(v) for k, v in node.value}
        return self._construct(node)

    def _construct(self, node: yaml.Node) -> Any:
        """The safe constructor's value; a value its explicit tag cannot read (`!!int abc`,
        `!!bool maybe`, `!!timestamp xyz`) is a YAML error at its line, not a traceback."""
        try:
            return self.safe.construct_object(node, deep=True)
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError):
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {node.value!r} as {node.tag}", node.start_mark) from None


_STR_TAG = "tag:yaml.org,2002:str"


def _compose(shown: str, text: str) -> yaml.Node | None:
    """The document's node tree, composed in one pass over libyaml's events, refusing as it
    goes what a spec file may not hold: anchors and aliases (so no alias bomb is ever built),
    nesting deeper than MAX_DEPTH, a key that is not a plain string, a key twice in a mapping,
    and a second document. Scalars and collections get the tags yaml.compose gives them, and
    their start marks (the lines reports name); end marks and styles, which nothing here reads,
    are left out."""
    loader = SpecLoader(text)
    get_event = loader.get_event
    scalar_tag = loader.scalar_tag
    root: yaml.Node | None = None
    #: Open collections, innermost last: [node, key waiting for its value (or None), keys seen
    #: with their lines (mappings)].
    stack: list[list[Any]] = []
    documents = 0
    while True:
        try:
            event = get_event()
        except yaml.MarkedYAMLError as exc:  # libyaml >= 0.2.6 (PyYAML 6.0.4) has a depth limit
            if "nesting depth" not in str(exc.problem):
                raise
            mark = exc.problem_mark or exc.context_mark
            raise _too_deep(shown, mark.line + 1 if mark else 1) from None
        kind = type(event)
        if kind is yaml.ScalarEvent:
            if event.anchor is not None:
                raise _anchor_error(shown, event.start_mark)
            tag = event.tag
            if tag is None or tag == "!":
                tag = scalar_tag(event.value, event.implicit)
            node: yaml.Node = yaml.ScalarNode(tag, event.value, event.start_mark)
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if event.anchor is not None:
                raise _anchor_error(shown, event.start_mark)
            if len(stack) >= MAX_DEPTH:
                raise _too_deep(shown, event.start_mark.line + 1)
            tag = event.tag
            mapping = kind is yaml.MappingStartEvent
            if tag is None or tag == "!":
                tag = _MAP_TAG if mapping else _SEQ_TAG
            node = (yaml.MappingNode if mapping else yaml.SequenceNode)(tag, [], event.start_mark)
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            stack.pop()
            continue
        elif kind is yaml.AliasEvent:
            raise _anchor_error(shown, event.start_mark)
        elif kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise SpecError(shown, event.start_mark.line + 1, "SPEC-YAML", "a spec file is "
                                "one YAML document; a second one starts here")
            continue
        elif kind is yaml.StreamEndEvent:
            return root
        else:  # StreamStart, DocumentEnd
            continue
        if stack:
            _attach(shown, stack[-1], node)
        else:
            root = node
        if kind is not yaml.ScalarEvent:
            stack.append([node, None, {}])


def _attach(shown: str, parent: list[Any], node: yaml.Node) -> None:
    """Put `node` into its open parent: the next item of a sequence, or a mapping's key (checked:
    a plain string, not seen before in this mapping) or the value of the key waiting."""
    collection, key, seen = parent
    if isinstance(collection, yaml.SequenceNode):
        collection.value.append(node)
    elif key is not None:
        collection.value.append((key, node))
        parent[1] = None
    else:
        line = node.start_mark.line + 1
        if not isinstance(node, yaml.ScalarNode) or node.tag != _STR_TAG:
            shown_key = node.value if isinstance(node, yaml.ScalarNode) else "a collection"
            raise SpecError(shown, line, "SPEC-YAML", f"expected a string key, got "
                            f"{shown_key!r} (YAML reads it as {node.tag.rsplit(':', 1)[-1]}; "
                            "quote it)")
        if node.value in seen:
            raise SpecError(shown, line, "SPEC-YAML", f"duplicate key {node.value!r} (first "
                            f"on line {seen[node.value]})")
        seen[node.value] = line
        parent[1] = node


def _too_deep(shown: str, line: int) -> SpecError:
    """The refusal of nesting past MAX_DEPTH (ours, or libyaml's own limit reached first)."""
    return SpecError(shown, line, "SPEC-SIZE", f"expected nesting at most {MAX_DEPTH} deep")


def _anchor_error(shown: str, mark: Any) -> SpecError:
    """The refusal of an anchor or an alias, at its line (every event the parser yields has a
    start mark)."""
    return SpecError(shown, mark.line + 1, "SPEC-YAML", "anchors and aliases are "
                     "not allowed in a spec file: write each value out")


def _key_lines(node: yaml.MappingNode) -> dict[str, int]:
    """Map each scalar key of a mapping node to its 1-based line."""
    return {
        str(k.value): k.start_mark.line + 1
        for k, _ in node.value
        if isinstance(k, yaml.ScalarNode)
    }


def _child(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    """The value node of `key` in a mapping node."""
    k: yaml.Node
    v: yaml.Node
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
