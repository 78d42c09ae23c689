"""The spec linter's reading of a file (oracle/lint/base.py): YAML it refuses (anchors and aliases,
a second document, keys that are not strings, duplicate keys, malformed YAML, what cannot be
read) and how big and deep a file may be (SPEC-SIZE), each on the line it is about.

Every expected line is counted by hand in the YAML snippet under test (1-based); each report is
asserted by its line and rule and the values its message names (the wording: messages_oracle_lint.py's
lint.*); none is computed by the linter.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
import yaml
from case_outcomes import names
from scratch_spec import lint_text

from ptxconf.oracle.lint.base import MAX_DEPTH, MAX_FILE_BYTES, RawDocument, RawRow, SpecError, SpecLoader
from ptxconf.oracle.spec import lint_file

SOURCE = 'source: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}\n'


def refusal(tmp_path: Path, text: str | bytes) -> SpecError:
    """The one report of a file the parser refuses."""
    got = lint_text(tmp_path, text)
    assert len(got) == 1, [str(e) for e in got]
    return got[0]


def _at(error: SpecError) -> tuple[int, str]:
    return error.line, error.rule


# --- YAML a spec file may not hold ----------------------------------------------------------------


def test_anchor_alone_is_refused_on_its_line(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: &w 16, kind: float}\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (4, "SPEC-YAML")
    assert names(err.message, "anchors and aliases")


def test_alias_is_refused_on_its_line(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - &r {id: f16, width_bits: 16, kind: float}\n  - *r\n"
    # the anchor (line 4) comes first in the event stream
    err = refusal(tmp_path, text)
    assert _at(err) == (4, "SPEC-YAML")
    assert names(err.message, "anchors and aliases")


def test_an_alias_without_an_anchor_is_refused_on_its_line(tmp_path: Path) -> None:
    # the parser hands on `*r` though no anchor `&r` exists (only a composer would look it up)
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n  - *r\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (5, "SPEC-YAML")
    assert names(err.message, "anchors and aliases")


def test_a_second_document_is_refused_where_it_starts(tmp_path: Path) -> None:
    # lines: 1 kind, 2 source, 3 rows, 4 the `---` that starts a second document
    text = "kind: element_type\n" + SOURCE + "rows: []\n---\nkind: element_type\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (4, "SPEC-YAML")
    assert names(err.message, "second")


def _libyaml_refuses(monkeypatch: pytest.MonkeyPatch, problem: str, problem_line: int | None,
                     context_line: int | None) -> None:
    """The parser raising as libyaml >= 0.2.6 does past its own nesting limit (PyYAML 6.0.4),
    whichever PyYAML is installed: marks on the given 0-based lines (None: no mark)."""
    def mark(line: int | None) -> yaml.Mark | None:
        return None if line is None else yaml.Mark("s.yaml", 0, line, 0, None, None)

    def get_event(self: object) -> object:
        raise yaml.parser.ParserError("while parsing a flow node", mark(context_line), problem,
                                      mark(problem_line))

    monkeypatch.setattr(SpecLoader, "get_event", get_event)


@pytest.mark.parametrize(("problem_line", "context_line", "line"),
                         [(6, 2, 7), (None, 2, 3), (None, None, 1)],
                         ids=["problem-mark", "context-mark-only", "no-mark"])
def test_libyamls_own_nesting_limit_is_the_size_refusal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, problem_line: int | None,
        context_line: int | None, line: int) -> None:
    _libyaml_refuses(monkeypatch, "exceeded maximum nesting depth", problem_line, context_line)
    err = refusal(tmp_path, "a: 1\n")
    assert _at(err) == (line, "SPEC-SIZE")
    assert names(err.message, "nesting", "16")


def test_libyamls_other_errors_stay_malformed_yaml(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _libyaml_refuses(monkeypatch, "did not find expected ',' or ']'", 6, 2)
    err = refusal(tmp_path, "a: 1\n")
    assert _at(err) == (7, "SPEC-YAML")
    assert names(err.message, "malformed", "did not find expected ',' or ']'")


def _nested(levels: int) -> str:
    """A file whose deepest collection is `levels` deep (the top mapping is level 1)."""
    return "kind: element_type\n" + SOURCE + "rows: []\nx: " + "[" * (levels - 1) + "]" * (levels - 1) + "\n"


def test_nesting_of_max_depth_is_read_one_more_is_refused(tmp_path: Path) -> None:
    assert MAX_DEPTH == 16
    assert lint_text(tmp_path, _nested(16), "SPEC-SIZE") == []
    (unknown,) = [e for e in lint_text(tmp_path, _nested(16), "SPEC-SOURCE") if e.line == 4]
    assert names(unknown.message, "'x'", "kind, source, rows")
    err = refusal(tmp_path, _nested(17))
    assert _at(err) == (4, "SPEC-SIZE")
    assert names(err.message, "nesting", "16")


def test_depth_comes_back_down_after_a_closed_collection(tmp_path: Path) -> None:
    # x: [ [[1]], <15 nested lists> ]: the outer list is level 2, so its deep item reaches 17
    deep = "[" * 15 + "]" * 15
    text = "kind: element_type\n" + SOURCE + "rows: []\nx: [[[1]],\n  " + deep + "]\n"
    assert _at(refusal(tmp_path, text)) == (5, "SPEC-SIZE")
    # and with one level less it is read
    text = "kind: element_type\n" + SOURCE + "rows: []\nx: [[[1]],\n  " + deep[1:-1] + "]\n"
    assert lint_text(tmp_path, text, "SPEC-SIZE") == []


def test_non_string_keys_are_refused_with_their_yaml_type(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, 16: 16, kind: float}\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (4, "SPEC-YAML")
    assert names(err.message, "'16'", "int")
    text = "kind: element_type\n" + SOURCE + "rows: []\n? [a]\n: 1\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (4, "SPEC-YAML")
    assert names(err.message, "'a collection'", "seq")
    # a local tag has no ':' in it: shown whole
    text = "kind: element_type\n" + SOURCE + "rows: []\n!odd key: 1\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (4, "SPEC-YAML")
    assert names(err.message, "'key'", "!odd;")


def test_duplicate_key_names_both_lines(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - id: f16\n    width_bits: 16\n    id: f17\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (6, "SPEC-YAML")
    assert names(err.message, "'id'", "line 4")


def test_size_limit_is_inclusive(tmp_path: Path) -> None:
    assert MAX_FILE_BYTES == 1 << 20
    body = ("kind: element_type\n" + SOURCE.replace("}", ", row_count: 1}")
            + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n")
    pad = MAX_FILE_BYTES - len(body)
    text = body + "#" * (pad - 1) + "\n"
    assert len(text.encode()) == 1 << 20
    assert lint_text(tmp_path, text) == []
    text = body + "#" * pad + "\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (1, "SPEC-SIZE")
    assert names(err.message, "1048576", "1048577")


def test_empty_and_non_mapping_files_are_refused(tmp_path: Path) -> None:
    got = [refusal(tmp_path, text) for text in (
        "", "# only a comment\n", "- kind\n- source\n",
        # a mapping node that YAML builds as a set is no mapping of keys to values
        "!!set {kind, source, rows}\n")]
    assert [_at(e) for e in got] == [(1, "SPEC-YAML")] * 4
    assert len({e.message for e in got}) == 1
    assert names(got[0].message, "mapping", "kind, source, rows")


def test_unreadable_file_is_refused_on_line_1(tmp_path: Path) -> None:
    err = refusal(tmp_path, b"\xff kind: x\n")
    assert _at(err) == (1, "SPEC-YAML")
    assert names(err.message, "cannot read", "'utf-8' codec can't decode byte 0xff in position 0")
    folder = tmp_path / "d.yaml"
    folder.mkdir()
    _doc, errors = lint_file(folder, tmp_path)
    assert [(e.path, e.line, e.rule) for e in errors] == [(str(folder), 1, "SPEC-YAML")]
    assert names(errors[0].message, "cannot read", "not a regular file")
    # nor is a FIFO read (it would block until a writer came)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "p.yaml"
        os.mkfifo(fifo)
        _doc, fifo_errors = lint_file(fifo, tmp_path)
        assert [(e.path, e.line, e.rule, e.message) for e in fifo_errors] == [
            (str(fifo), 1, "SPEC-YAML", errors[0].message)]


def test_malformed_yaml_is_reported_at_the_problem_not_its_context(tmp_path: Path) -> None:
    # an unknown tag: the problem is the tagged node (line 4); there is no context mark
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: !odd 16, kind: float}\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (4, "SPEC-YAML")
    assert names(err.message, "malformed", "'!odd'")
    # an unclosed flow sequence: its context opens on line 3, the problem is the end of the file (line 5)
    text = "kind: element_type\n" + SOURCE + "rows: [1,\n  x: 2\n"
    err = refusal(tmp_path, text)
    assert _at(err) == (5, "SPEC-YAML")
    assert names(err.message, "malformed")


def test_rows_that_are_not_mappings(tmp_path: Path) -> None:
    text = ("kind: element_type\n" + SOURCE + "rows:\n  - 5\n  - !!set {a, b}\n"
            "  - {id: f16, width_bits: 16, kind: float}\n")
    schema = lint_text(tmp_path, text, "SPEC-SCHEMA")
    assert [_at(e) for e in schema] == [(4, "SPEC-SCHEMA"), (5, "SPEC-SCHEMA")]
    assert schema[0].message == schema[1].message
    assert names(schema[0].message, "row", "mapping")
    ids = lint_text(tmp_path, text, "SPEC-ID")
    assert [_at(e) for e in ids] == [(4, "SPEC-ID"), (5, "SPEC-ID")]
    assert all(names(e.message, "(got None)") for e in ids)


def test_sets_and_ordered_maps_are_built_whole(tmp_path: Path) -> None:
    text = ("kind: instruction_operand\n" + SOURCE + "rows:\n"
            "  - {id: x, immediate: imm-trans, operand: A, types: !!set {a}}\n"
            "  - {id: y, immediate: imm-trans, operand: A, types: !!omap [b: 1]}\n")
    schema = lint_text(tmp_path, text, "SPEC-SCHEMA")
    assert [_at(e) for e in schema] == [(4, "SPEC-SCHEMA"), (5, "SPEC-SCHEMA")]
    assert names(schema[0].message, "row x:", "types:", "list", "{'a'}")
    assert names(schema[1].message, "row y:", "types[0]:", "string", "('b', 1)")
    # outside any list too (a list's items are built by the safe constructor as a whole)
    text = ('kind: element_type\nsource: {document: !!omap [a: 1], ptx_isa_version: "9.0", anchor: a, '
            'section: "1"}\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n')
    source = lint_text(tmp_path, text, "SPEC-SOURCE")
    assert [_at(e) for e in source] == [(2, "SPEC-SOURCE")]
    assert names(source[0].message, "source.document:", "[('a', 1)]")


@pytest.mark.parametrize(("value", "tag"), [("!!int abc", "int"), ("!!float abc", "float"),
                                           ("!!bool maybe", "bool"), ("!!timestamp xyz", "timestamp")],
                         ids=["int", "float", "bool", "timestamp"])
def test_a_value_its_explicit_tag_cannot_read_is_a_yaml_error_on_its_line(
        tmp_path: Path, value: str, tag: str) -> None:
    # the safe constructor raised ValueError / KeyError / AttributeError here: a traceback
    text = "kind: element_type\n" + SOURCE + f"rows:\n  - id: f16\n    width_bits: {value}\n"
    word = value.split()[1]
    err = refusal(tmp_path, text)
    assert _at(err) == (5, "SPEC-YAML")
    assert names(err.message, "malformed", repr(word), f"tag:yaml.org,2002:{tag}")


def test_line_of_falls_back_to_the_rows_line() -> None:
    row = RawRow({"a": 1}, 7, {"a": 8})
    assert row.line_of("a") == 8
    assert row.line_of("b") == 7


def test_a_spec_error_prints_path_line_rule_and_message() -> None:
    assert SpecError("p", 2, "R", "m").__str__() == "p:2: R - m"


def test_a_spec_file_is_read_as_utf8_whatever_the_locale(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """YAML text is UTF-8: a locale whose default encoding is Latin-1 (simulated: pathlib asks
    io.text_encoding for the default) must not change what is read."""
    monkeypatch.setattr(io, "text_encoding", lambda encoding, stacklevel=2: encoding or "latin-1")
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: µs, width_bits: 16, kind: float}\n"
    ids = lint_text(tmp_path, text.encode("utf-8"), "SPEC-ID")
    assert [_at(e) for e in ids] == [(4, "SPEC-ID")]
    assert names(ids[0].message, "'µs'")


def test_a_document_keeps_its_path_relative_to_the_spec_root(tmp_path: Path) -> None:
    # what a row's `file` and a report's spec-relative name are made of
    folder = tmp_path / "wgmma"
    folder.mkdir()
    path = folder / "t.yaml"
    path.write_text("kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n")
    doc, _errors = lint_file(path, tmp_path)
    assert isinstance(doc, RawDocument)
    assert (doc.path, doc.rel) == (str(path), "wgmma/t.yaml")
