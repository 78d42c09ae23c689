"""The spec lint rule SPEC-SOURCE (oracle/lint/source.py): a spec file's top-level keys (kind,
source, rows), its source block's keys and their values, and `source.columns` (each a column of
the file's kind, with where its values come from).

Every expected line is counted by hand in the YAML snippet under test (1-based); each report is
asserted by its line and rule and the values its message names (the wording: messages_oracle_lint.py's
lint.*).
"""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_spec_errors, names
from scratch_spec import lint_text

from ptxconf.oracle.lint.base import RawDocument
from ptxconf.oracle.lint.schema import SchemaRule
from ptxconf.oracle.lint.source import SourceRule

SOURCE = 'source: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}\n'
TOP = "kind, source, rows"


def test_unknown_and_missing_top_level_keys(tmp_path: Path) -> None:
    text = "# a spec\nkind: element_type\n" + SOURCE + "extra: 1\n"
    path = tmp_path / "s.yaml"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SOURCE"),
                       (path, 4, "SPEC-SOURCE", ("'extra'", TOP)),
                       (path, 1, "SPEC-SOURCE", ("'rows'",)),
                       (path, 1, "SPEC-SOURCE", ("rows:", "non-empty")))


def test_missing_kind_and_source(tmp_path: Path) -> None:
    text = "# a spec\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n"
    path = tmp_path / "s.yaml"
    source = lint_text(tmp_path, text, "SPEC-SOURCE")
    expect_spec_errors(source, (path, 1, "SPEC-SOURCE", ("'kind'",)), (path, 1, "SPEC-SOURCE", ("'source'",)))
    assert source[0].message.replace("'kind'", "'source'") == source[1].message
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SCHEMA"),
                       (path, 1, "SPEC-SCHEMA", ("kind None", "'alignment_rule'", "'worked_example'")))


def test_empty_rows_are_reported_on_their_line(tmp_path: Path) -> None:
    text = "# a spec\nkind: element_type\n" + SOURCE + "rows: []\n"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SOURCE"),
                       (tmp_path / "s.yaml", 4, "SPEC-SOURCE", ("rows:", "non-empty")))


def test_source_that_is_not_a_mapping(tmp_path: Path) -> None:
    text = "kind: element_type\nsource: x\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SOURCE"),
                       (tmp_path / "s.yaml", 2, "SPEC-SOURCE", ("source:", "mapping")))


def test_source_keys(tmp_path: Path) -> None:
    text = ("kind: element_type\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n"
            "source: {document: x, ptx_isa_version: 9.0, anchor: ' ', extra: 1}\n")
    path = tmp_path / "s.yaml"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SOURCE"),
                       (path, 4, "SPEC-SOURCE", ("source.ptx_isa_version:", "non-empty string", "got 9.0")),
                       (path, 4, "SPEC-SOURCE", ("source.anchor:", "non-empty string", "got ' '")),
                       (path, 4, "SPEC-SOURCE", ("source.section:", "non-empty string", "got None")),
                       (path, 4, "SPEC-SOURCE", ("source:", "'extra'")))


def test_source_columns(tmp_path: Path) -> None:
    head = 'kind: element_type\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n'
    src = 'source: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1", columns: '
    path = tmp_path / "s.yaml"
    expect_spec_errors(lint_text(tmp_path, head + src + "[width_bits]}\n", "SPEC-SOURCE"),
                       (path, 4, "SPEC-SOURCE", ("source.columns:", "mapping")))
    expect_spec_errors(lint_text(tmp_path, head + src + "{width_bits: '', colour: table 3, kind: 5}}\n",
                                 "SPEC-SOURCE"),
                       (path, 4, "SPEC-SOURCE", ("source.columns.width_bits:", "got ''")),
                       (path, 4, "SPEC-SOURCE", ("source.columns:", "'colour'", "element_type")),
                       (path, 4, "SPEC-SOURCE", ("source.columns.kind:", "got 5")))
    # an unknown kind: the columns cannot be checked against it, only their sources
    text = 'kind: nope\nrows:\n  - {id: f16}\n' + src + "{colour: table 3, width_bits: ''}}\n"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SOURCE"),
                       (path, 4, "SPEC-SOURCE", ("source.columns.width_bits:", "got ''")))


def test_keys_without_a_known_line_are_reported_on_line_1() -> None:
    doc = RawDocument("h.yaml", "h.yaml", {"kind": "nope", "source": "x", "rows": [], "extra": 1}, {}, [])
    expect_spec_errors(SourceRule().check(doc),
                       ("h.yaml", 1, "SPEC-SOURCE", ("'extra'", TOP)),
                       ("h.yaml", 1, "SPEC-SOURCE", ("rows:", "non-empty")),
                       ("h.yaml", 1, "SPEC-SOURCE", ("source:", "mapping")))
    schema = SchemaRule().check(doc)
    expect_spec_errors(schema, ("h.yaml", 1, "SPEC-SCHEMA", ("kind 'nope'", "'alignment_rule'",
                                                            "'worked_example'")))
    assert names(schema[0].message, "'element_type'", "'swizzle_atom'", "'wmma_rule'")
