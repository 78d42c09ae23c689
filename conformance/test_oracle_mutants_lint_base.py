"""The spec linter's reading of a file and its SPEC-SOURCE, SPEC-SCHEMA and SPEC-ID rules, pinned to
exact `path:line: RULE - message` reports (reports/mutation/README.md: oracle/lint/ base, source,
schema, ids).

Every expected report is written by hand from the rule's docstring and the YAML snippet under
test (lines counted by hand, 1-based); none is computed by the linter.
"""

from __future__ import annotations

import io
import os
import typing
from pathlib import Path

import pytest
import yaml

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import MAX_DEPTH, MAX_FILE_BYTES, RawDocument, RawRow, SpecError, SpecLoader
from ptxconf.oracle.lint.ids import IdRule
from ptxconf.oracle.lint.schema import SchemaError, SchemaRule, build_row, convert, describe, is_optional
from ptxconf.oracle.lint.source import SourceRule
from ptxconf.oracle.spec import lint_file

SOURCE = 'source: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}\n'


def reports(tmp_path: Path, text: str | bytes, rule: str | None = None) -> list[str]:
    """`line: RULE - message` of every report on a file holding `text` (of `rule` only, if given);
    each report must name the file."""
    path = tmp_path / "s.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    _doc, errors = lint_file(path, tmp_path)
    out = []
    for e in errors:
        shown = str(e)
        assert shown.startswith(f"{path}:"), shown
        if rule is None or e.rule == rule:
            out.append(shown[len(f"{path}:"):])
    return out


def refusal(tmp_path: Path, text: str | bytes) -> str:
    """The one report of a file the parser refuses (`line: RULE - message`)."""
    got = reports(tmp_path, text)
    assert len(got) == 1, got
    return got[0]


# --- base.py: reading a file -------------------------------------------------------------------


def test_anchor_alone_is_refused_on_its_line(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: &w 16, kind: float}\n"
    assert refusal(tmp_path, text) == ("4: SPEC-YAML - anchors and aliases are not allowed in a spec file: "
                                       "write each value out")


def test_alias_is_refused_on_its_line(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - &r {id: f16, width_bits: 16, kind: float}\n  - *r\n"
    # the anchor (line 4) comes first in the event stream
    assert refusal(tmp_path, text).startswith("4: SPEC-YAML - anchors and aliases are not allowed")


def test_an_alias_without_an_anchor_is_refused_on_its_line(tmp_path: Path) -> None:
    # the parser hands on `*r` though no anchor `&r` exists (only a composer would look it up)
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n  - *r\n"
    assert refusal(tmp_path, text) == ("5: SPEC-YAML - anchors and aliases are not allowed in a spec file: "
                                       "write each value out")


def test_a_second_document_is_refused_where_it_starts(tmp_path: Path) -> None:
    # lines: 1 kind, 2 source, 3 rows, 4 the `---` that starts a second document
    text = "kind: element_type\n" + SOURCE + "rows: []\n---\nkind: element_type\n"
    assert refusal(tmp_path, text) == ("4: SPEC-YAML - a spec file is one YAML document; a second one "
                                       "starts here")


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
    assert refusal(tmp_path, "a: 1\n") == f"{line}: SPEC-SIZE - expected nesting at most 16 deep"


def test_libyamls_other_errors_stay_malformed_yaml(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _libyaml_refuses(monkeypatch, "did not find expected ',' or ']'", 6, 2)
    assert refusal(tmp_path, "a: 1\n") == "7: SPEC-YAML - malformed YAML: did not find expected ',' or ']'"


def _nested(levels: int) -> str:
    """A file whose deepest collection is `levels` deep (the top mapping is level 1)."""
    return "kind: element_type\n" + SOURCE + "rows: []\nx: " + "[" * (levels - 1) + "]" * (levels - 1) + "\n"


def test_nesting_of_max_depth_is_read_one_more_is_refused(tmp_path: Path) -> None:
    assert MAX_DEPTH == 16
    ok = reports(tmp_path, _nested(16), "SPEC-SIZE")
    assert ok == []
    assert "4: SPEC-SOURCE - unknown top-level key 'x' (expected kind, source, rows)" in reports(
        tmp_path, _nested(16))
    assert refusal(tmp_path, _nested(17)) == "4: SPEC-SIZE - expected nesting at most 16 deep"


def test_depth_comes_back_down_after_a_closed_collection(tmp_path: Path) -> None:
    # x: [ [[1]], <15 nested lists> ]: the outer list is level 2, so its deep item reaches 17
    deep = "[" * 15 + "]" * 15
    text = "kind: element_type\n" + SOURCE + "rows: []\nx: [[[1]],\n  " + deep + "]\n"
    assert refusal(tmp_path, text) == "5: SPEC-SIZE - expected nesting at most 16 deep"
    # and with one level less it is read
    text = "kind: element_type\n" + SOURCE + "rows: []\nx: [[[1]],\n  " + deep[1:-1] + "]\n"
    assert reports(tmp_path, text, "SPEC-SIZE") == []


def test_non_string_keys_are_refused_with_their_yaml_type(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, 16: 16, kind: float}\n"
    assert refusal(tmp_path, text) == ("4: SPEC-YAML - expected a string key, got '16' (YAML reads it as int;"
                                       " quote it)")
    text = "kind: element_type\n" + SOURCE + "rows: []\n? [a]\n: 1\n"
    assert refusal(tmp_path, text) == ("4: SPEC-YAML - expected a string key, got 'a collection' (YAML reads "
                                       "it as seq; quote it)")
    # a local tag has no ':' in it: shown whole
    text = "kind: element_type\n" + SOURCE + "rows: []\n!odd key: 1\n"
    assert refusal(tmp_path, text) == ("4: SPEC-YAML - expected a string key, got 'key' (YAML reads it as "
                                       "!odd; quote it)")


def test_duplicate_key_names_both_lines(tmp_path: Path) -> None:
    text = "kind: element_type\n" + SOURCE + "rows:\n  - id: f16\n    width_bits: 16\n    id: f17\n"
    assert refusal(tmp_path, text) == "6: SPEC-YAML - duplicate key 'id' (first on line 4)"


def test_size_limit_is_inclusive(tmp_path: Path) -> None:
    assert MAX_FILE_BYTES == 1 << 20
    body = ("kind: element_type\n" + SOURCE.replace("}", ", row_count: 1}")
            + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n")
    pad = MAX_FILE_BYTES - len(body)
    text = body + "#" * (pad - 1) + "\n"
    assert len(text.encode()) == 1 << 20
    assert reports(tmp_path, text) == []
    text = body + "#" * pad + "\n"
    assert refusal(tmp_path, text) == ("1: SPEC-SIZE - expected a spec file of at most 1048576 bytes, "
                                       "got 1048577")


def test_empty_and_non_mapping_files_are_refused(tmp_path: Path) -> None:
    want = "1: SPEC-YAML - a spec file is a mapping with kind, source, rows"
    assert refusal(tmp_path, "") == want
    assert refusal(tmp_path, "# only a comment\n") == want
    assert refusal(tmp_path, "- kind\n- source\n") == want
    # a mapping node that YAML builds as a set is no mapping of keys to values
    assert refusal(tmp_path, "!!set {kind, source, rows}\n") == want


def test_unreadable_file_is_refused_on_line_1(tmp_path: Path) -> None:
    assert refusal(tmp_path, b"\xff kind: x\n") == ("1: SPEC-YAML - cannot read: 'utf-8' codec can't decode "
                                                    "byte 0xff in position 0: invalid start byte")
    folder = tmp_path / "d.yaml"
    folder.mkdir()
    _doc, errors = lint_file(folder, tmp_path)
    assert [str(e) for e in errors] == [f"{folder}:1: SPEC-YAML - cannot read: not a regular file"]
    # nor is a FIFO read (it would block until a writer came)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "p.yaml"
        os.mkfifo(fifo)
        _doc, errors = lint_file(fifo, tmp_path)
        assert [str(e) for e in errors] == [f"{fifo}:1: SPEC-YAML - cannot read: not a regular file"]


def test_malformed_yaml_is_reported_at_the_problem_not_its_context(tmp_path: Path) -> None:
    # an unknown tag: the problem is the tagged node (line 4); there is no context mark
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: !odd 16, kind: float}\n"
    assert refusal(tmp_path, text) == ("4: SPEC-YAML - malformed YAML: could not determine a constructor "
                                       "for the tag '!odd'")
    # an unclosed flow sequence: its context opens on line 3, the problem is the end of the file (line 5)
    text = "kind: element_type\n" + SOURCE + "rows: [1,\n  x: 2\n"
    got = refusal(tmp_path, text)
    assert got.startswith("5: SPEC-YAML - malformed YAML: "), got


def test_rows_that_are_not_mappings(tmp_path: Path) -> None:
    text = ("kind: element_type\n" + SOURCE + "rows:\n  - 5\n  - !!set {a, b}\n"
            "  - {id: f16, width_bits: 16, kind: float}\n")
    assert reports(tmp_path, text, "SPEC-SCHEMA") == ["4: SPEC-SCHEMA - a row must be a mapping",
                                                      "5: SPEC-SCHEMA - a row must be a mapping"]
    assert reports(tmp_path, text, "SPEC-ID") == ["4: SPEC-ID - row without a string id (got None)",
                                                  "5: SPEC-ID - row without a string id (got None)"]


def test_sets_and_ordered_maps_are_built_whole(tmp_path: Path) -> None:
    text = ("kind: instruction_operand\n" + SOURCE + "rows:\n"
            "  - {id: x, immediate: imm-trans, operand: A, types: !!set {a}}\n"
            "  - {id: y, immediate: imm-trans, operand: A, types: !!omap [b: 1]}\n")
    assert reports(tmp_path, text, "SPEC-SCHEMA") == [
        "4: SPEC-SCHEMA - row x: types: expected a list, got {'a'}",
        "5: SPEC-SCHEMA - row y: types[0]: expected a string, got ('b', 1)",
    ]
    # outside any list too (a list's items are built by the safe constructor as a whole)
    text = ('kind: element_type\nsource: {document: !!omap [a: 1], ptx_isa_version: "9.0", anchor: a, '
            'section: "1"}\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n')
    assert reports(tmp_path, text, "SPEC-SOURCE") == [
        "2: SPEC-SOURCE - source.document: expected a non-empty string, got [('a', 1)]"]


@pytest.mark.parametrize(("value", "tag"), [("!!int abc", "int"), ("!!float abc", "float"),
                                           ("!!bool maybe", "bool"), ("!!timestamp xyz", "timestamp")],
                         ids=["int", "float", "bool", "timestamp"])
def test_a_value_its_explicit_tag_cannot_read_is_a_yaml_error_on_its_line(
        tmp_path: Path, value: str, tag: str) -> None:
    # the safe constructor raised ValueError / KeyError / AttributeError here: a traceback
    text = "kind: element_type\n" + SOURCE + f"rows:\n  - id: f16\n    width_bits: {value}\n"
    word = value.split()[1]
    assert refusal(tmp_path, text) == (f"5: SPEC-YAML - malformed YAML: cannot read {word!r} as "
                                       f"tag:yaml.org,2002:{tag}")


def test_line_of_falls_back_to_the_rows_line() -> None:
    row = RawRow({"a": 1}, 7, {"a": 8})
    assert row.line_of("a") == 8
    assert row.line_of("b") == 7


# --- source.py: SPEC-SOURCE ------------------------------------------------------------------


def test_unknown_and_missing_top_level_keys(tmp_path: Path) -> None:
    text = "# a spec\nkind: element_type\n" + SOURCE + "extra: 1\n"
    assert reports(tmp_path, text, "SPEC-SOURCE") == [
        "4: SPEC-SOURCE - unknown top-level key 'extra' (expected kind, source, rows)",
        "1: SPEC-SOURCE - missing top-level key 'rows'",
        "1: SPEC-SOURCE - rows: expected a non-empty list of rows",
    ]


def test_missing_kind_and_source(tmp_path: Path) -> None:
    text = "# a spec\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n"
    assert reports(tmp_path, text, "SPEC-SOURCE") == [
        "1: SPEC-SOURCE - missing top-level key 'kind'",
        "1: SPEC-SOURCE - missing top-level key 'source'",
    ]
    assert reports(tmp_path, text, "SPEC-SCHEMA") == [
        "1: SPEC-SCHEMA - unknown kind None (expected one of ['alignment_rule', 'atom_selection', "
        "'base_offset_rule', 'byte_offset_definition', 'canonical_layout', 'cute_layout', 'cutedsl_example', "
        "'descriptor_field', 'element_type', 'instruction_operand', 'instruction_type', 'major_convention', "
        "'mode_statement', 'normalization', 'operand_storage', 'operation_registers', 'printed_atom', "
        "'register_fragment', 'swizzle_atom', 'swizzle_atom_example', 'thread_group', "
        "'wmma_alignment_example', 'wmma_default_stride', 'wmma_rule', 'worked_example'])"]


def test_empty_rows_are_reported_on_their_line(tmp_path: Path) -> None:
    text = "# a spec\nkind: element_type\n" + SOURCE + "rows: []\n"
    assert reports(tmp_path, text, "SPEC-SOURCE") == [
        "4: SPEC-SOURCE - rows: expected a non-empty list of rows"]


def test_source_that_is_not_a_mapping(tmp_path: Path) -> None:
    text = "kind: element_type\nsource: x\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n"
    assert reports(tmp_path, text, "SPEC-SOURCE") == ["2: SPEC-SOURCE - source: expected a mapping"]


def test_source_keys(tmp_path: Path) -> None:
    text = ("kind: element_type\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n"
            "source: {document: x, ptx_isa_version: 9.0, anchor: ' ', extra: 1}\n")
    assert reports(tmp_path, text, "SPEC-SOURCE") == [
        "4: SPEC-SOURCE - source.ptx_isa_version: expected a non-empty string, got 9.0",
        "4: SPEC-SOURCE - source.anchor: expected a non-empty string, got ' '",
        "4: SPEC-SOURCE - source.section: expected a non-empty string, got None",
        "4: SPEC-SOURCE - source: unknown key 'extra'",
    ]


def test_source_columns(tmp_path: Path) -> None:
    head = 'kind: element_type\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n'
    src = 'source: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1", columns: '
    assert reports(tmp_path, head + src + "[width_bits]}\n", "SPEC-SOURCE") == [
        "4: SPEC-SOURCE - source.columns: expected a mapping of column to where its values come from"]
    assert reports(tmp_path, head + src + "{width_bits: '', colour: table 3, kind: 5}}\n", "SPEC-SOURCE") == [
        "4: SPEC-SOURCE - source.columns.width_bits: expected where the column comes from, got ''",
        "4: SPEC-SOURCE - source.columns: 'colour' is not a column of kind element_type",
        "4: SPEC-SOURCE - source.columns.kind: expected where the column comes from, got 5",
    ]
    # an unknown kind: the columns cannot be checked against it, only their sources
    text = 'kind: nope\nrows:\n  - {id: f16}\n' + src + "{colour: table 3, width_bits: ''}}\n"
    assert reports(tmp_path, text, "SPEC-SOURCE") == [
        "4: SPEC-SOURCE - source.columns.width_bits: expected where the column comes from, got ''"]


def test_keys_without_a_known_line_are_reported_on_line_1() -> None:
    doc = RawDocument("h.yaml", "h.yaml", {"kind": "nope", "source": "x", "rows": [], "extra": 1}, {}, [])
    assert [str(e) for e in SourceRule().check(doc)] == [
        "h.yaml:1: SPEC-SOURCE - unknown top-level key 'extra' (expected kind, source, rows)",
        "h.yaml:1: SPEC-SOURCE - rows: expected a non-empty list of rows",
        "h.yaml:1: SPEC-SOURCE - source: expected a mapping",
    ]
    assert [str(e) for e in SchemaRule().check(doc)] == [
        "h.yaml:1: SPEC-SCHEMA - unknown kind 'nope' (expected one of ['alignment_rule', 'atom_selection', "
        "'base_offset_rule', 'byte_offset_definition', 'canonical_layout', 'cute_layout', 'cutedsl_example', "
        "'descriptor_field', 'element_type', 'instruction_operand', 'instruction_type', 'major_convention', "
        "'mode_statement', 'normalization', 'operand_storage', 'operation_registers', 'printed_atom', "
        "'register_fragment', 'swizzle_atom', 'swizzle_atom_example', 'thread_group', "
        "'wmma_alignment_example', 'wmma_default_stride', 'wmma_rule', 'worked_example'])"]


# --- schema.py: SPEC-SCHEMA ------------------------------------------------------------------


def test_schema_reports_on_block_rows(tmp_path: Path) -> None:
    text = ("kind: swizzle_atom\n" + SOURCE + "rows:\n"
            "  - id: K_SW128\n"          # 4
            "    swizzle: 128B\n"        # 5
            "    major: K\n"             # 6
            "    printed_shape: 8x8\n"   # 7
            "    colour: red\n"          # 8
            "    strided_elems: 8\n"     # 9
            "  - swizzle: 64B\n"         # 10
            "    major: KM\n"            # 11
            "    printed_shape: 8\n"     # 12
            "    leading_u128: true\n"   # 13
            "    strided_elems: 8\n")    # 14
    assert reports(tmp_path, text, "SPEC-SCHEMA") == [
        "8: SPEC-SCHEMA - row K_SW128: unknown key 'colour' for kind swizzle_atom",
        "4: SPEC-SCHEMA - row K_SW128: missing key 'leading_u128' (an integer)",
        "10: SPEC-SCHEMA - row ?: missing key 'id' (a string)",
        "11: SPEC-SCHEMA - row ?: major: expected one of ['K', 'MN'], got 'KM'",
        "12: SPEC-SCHEMA - row ?: printed_shape: expected a string, got 8",
        "13: SPEC-SCHEMA - row ?: leading_u128: expected an integer, got True",
    ]


def test_schema_names_optional_types(tmp_path: Path) -> None:
    text = ("kind: element_type\n" + SOURCE + "rows:\n"
            "  - {id: f16, width_bits: 16, kind: float, exponent_bits: x, finite_only: 3, "
            "cite: {anchor: 5}}\n")
    assert reports(tmp_path, text, "SPEC-SCHEMA") == [
        "4: SPEC-SCHEMA - row f16: exponent_bits: expected an integer or null, got 'x'",
        "4: SPEC-SCHEMA - row f16: finite_only: expected true/false or null, got 3",
        "4: SPEC-SCHEMA - row f16: cite: expected Cite or null, got {'anchor': 5}",
    ]


def test_describe_names_each_shape_of_type() -> None:
    assert describe(int | None) == "an integer or null"
    assert describe(typing.Optional[typing.Literal["K", "MN"]]) == "one of ['K', 'MN'] or null"  # noqa: UP045
    assert describe(typing.Literal["K", "MN"]) == "one of ['K', 'MN']"
    assert describe(tuple[int, ...]) == "a list of an integer"
    assert describe(tuple[str, ...] | None) == "a list of a string or null"
    assert describe(dict[str, int]) == "a mapping"
    assert describe(type(None)) == "null"
    assert describe(bool) == "true/false"
    assert describe(str) == "a string"
    assert describe(records.Cite) == "Cite"
    assert describe("Cite") == "Cite"  # a type named only by its string annotation


def test_is_optional_only_for_unions_with_none() -> None:
    assert is_optional(int | None)
    assert not is_optional(int)
    assert not is_optional(typing.Tuple[None, ...])  # noqa: UP006 (its args hold NoneType)


def test_convert_names_what_failed() -> None:
    assert convert("x", int | str, "v") == "x"  # the second option of a union
    assert convert([1, None], tuple[int | None, ...], "v") == (1, None)
    assert convert({"a": 1}, dict[str, int], "codes") == {"a": 1}
    with pytest.raises(SchemaError, match=r"^codes: expected a mapping, got 5$"):
        convert(5, dict[str, int], "codes")
    with pytest.raises(SchemaError, match=r"^codes: expected a string, got 1$"):
        convert({1: 2}, dict[str, int], "codes")
    with pytest.raises(SchemaError, match=r"^codes\.a: expected an integer, got 'x'$"):
        convert({"a": "x"}, dict[str, int], "codes")
    with pytest.raises(SchemaError, match=r"^types\[1\]: expected a string, got 2$"):
        convert(["a", 2], tuple[str, ...], "types")
    with pytest.raises(SchemaError, match=r"^cite: expected a mapping, got 5$"):
        convert(5, records.Cite, "cite")
    with pytest.raises(SchemaError, match=r"^cite: unknown key 'zz' \(expected \['anchor', 'provenance', "
                                          r"'text'\]\)$"):
        convert({"anchor": "a", "zz": 1}, records.Cite, "cite")
    with pytest.raises(SchemaError, match=r"^cite\.anchor: expected a string, got 5$"):
        convert({"anchor": 5}, records.Cite, "cite")
    assert convert({"anchor": "a"}, records.Cite, "cite") == records.Cite(anchor="a")
    with pytest.raises(SchemaError, match=r"^width_bits: expected an integer, got 'x'$"):
        build_row(records.ElementType, {"width_bits": "x", "kind": "float"})


# --- ids.py: SPEC-ID -------------------------------------------------------------------------


def test_id_reports(tmp_path: Path) -> None:
    text = ("kind: element_type\n" + SOURCE + "rows:\n"
            "  - {width_bits: 16, kind: float}\n"    # 4
            "  - {id: 7, width_bits: 16, kind: float}\n"  # 5
            "  - {id: '', width_bits: 16, kind: float}\n"  # 6
            "  - width_bits: 16\n"                    # 7
            "    id: f16!\n"                          # 8
            "  - width_bits: 16\n"                    # 9
            "    id: f8\n"                            # 10
            "  - width_bits: 16\n"                    # 11
            "    id: f8\n"                            # 12
            "  - {id: abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-}\n")  # 13
    assert reports(tmp_path, text, "SPEC-ID") == [
        "4: SPEC-ID - row without a string id (got None)",
        "5: SPEC-ID - row without a string id (got 7)",
        "6: SPEC-ID - row without a string id (got '')",
        "8: SPEC-ID - id 'f16!': only letters, digits, '_', '.', '-'",
        "12: SPEC-ID - duplicate id 'f8' (first on line 10)",
    ]


def test_id_that_disagrees_with_its_fields(tmp_path: Path) -> None:
    text = ("kind: swizzle_atom\n" + SOURCE + "rows:\n"
            "  - swizzle: 128B\n"            # 4
            "    id: MN_SW128\n"             # 5
            "    major: K\n"
            "    printed_shape: 8x8\n"
            "    leading_u128: 8\n"
            "    strided_elems: 8\n")
    assert reports(tmp_path, text, "SPEC-ID") == [
        "5: SPEC-ID - id 'MN_SW128' disagrees with the row's fields, which give 'K_SW128'"]


def test_id_rule_alone_on_a_hand_made_document() -> None:
    rows = [RawRow({"id": 3}, 4), RawRow({"id": "a b"}, 5, {"id": 6})]
    doc = RawDocument("h.yaml", "h.yaml", {"kind": "element_type"}, {}, rows)
    assert [str(e) for e in IdRule().check(doc)] == [
        "h.yaml:4: SPEC-ID - row without a string id (got 3)",
        "h.yaml:6: SPEC-ID - id 'a b': only letters, digits, '_', '.', '-'",
    ]
    assert SpecError("p", 2, "R", "m").__str__() == "p:2: R - m"


def test_id_rule_alone_converts_the_row_itself() -> None:
    # no SPEC-SCHEMA ran before it, so the row's values are not converted yet: the id rule
    # converts them (and keeps them) to recompute the id. wgmma/swizzle_atoms.yaml's K_SW128
    # row with the id of the MN-major atom:
    data = {"id": "MN_SW128", "swizzle": "128B", "major": "K", "printed_shape": "8x8",
            "leading_u128": 8, "strided_elems": 8}
    row = RawRow(data, 4, {"id": 5})
    doc = RawDocument("h.yaml", "h.yaml", {"kind": "swizzle_atom"}, {}, [row])
    assert [str(e) for e in IdRule().check(doc)] == [
        "h.yaml:5: SPEC-ID - id 'MN_SW128' disagrees with the row's fields, which give 'K_SW128'"]
    assert row.built == data  # every value already of its field's type


def test_a_row_keeps_its_converted_values_only_when_all_converted(tmp_path: Path) -> None:
    text = ("kind: element_type\n" + SOURCE + "rows:\n"
            "  - {id: f16, width_bits: 16, kind: float}\n"
            "  - {id: f8, width_bits: '8', kind: float}\n")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    doc = RawDocument.parse(path, "s.yaml")
    errors = SchemaRule().check(doc)
    assert [e.line for e in errors] == [5]
    assert doc.rows[0].built == {"id": "f16", "width_bits": 16, "kind": "float"}
    assert doc.rows[1].built is None


def test_a_spec_file_is_read_as_utf8_whatever_the_locale(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """YAML text is UTF-8: a locale whose default encoding is Latin-1 (simulated: pathlib asks
    io.text_encoding for the default) must not change what is read."""
    monkeypatch.setattr(io, "text_encoding", lambda encoding, stacklevel=2: encoding or "latin-1")
    text = "kind: element_type\n" + SOURCE + "rows:\n  - {id: µs, width_bits: 16, kind: float}\n"
    assert reports(tmp_path, text.encode("utf-8"), "SPEC-ID") == [
        "4: SPEC-ID - id 'µs': only letters, digits, '_', '.', '-'"]


def test_a_document_keeps_its_path_relative_to_the_spec_root(tmp_path: Path) -> None:
    # what a row's `file` and a report's spec-relative name are made of
    folder = tmp_path / "wgmma"
    folder.mkdir()
    path = folder / "t.yaml"
    path.write_text("kind: element_type\n" + SOURCE + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n")
    doc, _errors = lint_file(path, tmp_path)
    assert doc is not None and (doc.path, doc.rel) == (str(path), "wgmma/t.yaml")
