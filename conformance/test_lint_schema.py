"""The spec lint rule SPEC-SCHEMA (oracle/lint/schema.py): each row's keys and value types against
its kind's record (oracle/records.py), how a type is described (`describe`, `is_optional`) and
what `convert` names when a value is not of its field's type; a row keeps its converted values
only where all of them converted.

Every expected line is counted by hand in the YAML snippet under test (1-based); each report is
asserted by its line and rule and the values its message names (the wording: messages_oracle_lint.py's
lint.*).
"""

from __future__ import annotations

import typing
from pathlib import Path

from case_outcomes import expect_spec_errors, raises_naming
from scratch_spec import lint_text

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument
from ptxconf.oracle.lint.schema import SchemaError, SchemaRule, build_row, convert, describe, is_optional

SOURCE = 'source: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}\n'


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
    path = tmp_path / "s.yaml"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SCHEMA"),
                       (path, 8, "SPEC-SCHEMA", ("row K_SW128:", "'colour'", "swizzle_atom")),
                       (path, 4, "SPEC-SCHEMA", ("row K_SW128:", "'leading_u128'", "(an integer)")),
                       (path, 10, "SPEC-SCHEMA", ("row ?:", "'id'", "(a string)")),
                       (path, 11, "SPEC-SCHEMA", ("row ?:", "major:", "['K', 'MN']", "'KM'")),
                       (path, 12, "SPEC-SCHEMA", ("row ?:", "printed_shape:", "a string", "got 8")),
                       (path, 13, "SPEC-SCHEMA", ("row ?:", "leading_u128:", "an integer", "got True")))


def test_schema_names_optional_types(tmp_path: Path) -> None:
    text = ("kind: element_type\n" + SOURCE + "rows:\n"
            "  - {id: f16, width_bits: 16, kind: float, exponent_bits: x, finite_only: 3, "
            "cite: {anchor: 5}}\n")
    path = tmp_path / "s.yaml"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-SCHEMA"),
                       (path, 4, "SPEC-SCHEMA", ("row f16:", "exponent_bits:", "an integer or null", "'x'")),
                       (path, 4, "SPEC-SCHEMA", ("row f16:", "finite_only:", "true/false or null", "3")),
                       (path, 4, "SPEC-SCHEMA", ("row f16:", "cite:", "Cite or null", "{'anchor': 5}")))


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
    """Each refusal starts with the path to the value that failed, then names what was expected
    and what it got (the wording: messages_oracle_lint.py's lint.convert_*)."""
    assert convert("x", int | str, "v") == "x"  # the second option of a union
    assert convert([1, None], tuple[int | None, ...], "v") == (1, None)
    assert convert({"a": 1}, dict[str, int], "codes") == {"a": 1}
    cases = [
        (lambda: convert(5, dict[str, int], "codes"), "codes:", ("a mapping", "got 5")),
        (lambda: convert({1: 2}, dict[str, int], "codes"), "codes:", ("a string", "got 1")),
        (lambda: convert({"a": "x"}, dict[str, int], "codes"), "codes.a:", ("an integer", "got 'x'")),
        (lambda: convert(["a", 2], tuple[str, ...], "types"), "types[1]:", ("a string", "got 2")),
        (lambda: convert(5, records.Cite, "cite"), "cite:", ("a mapping", "got 5")),
        (lambda: convert({"anchor": "a", "zz": 1}, records.Cite, "cite"), "cite:",
         ("'zz'", "['anchor', 'provenance', 'text']")),
        (lambda: convert({"anchor": 5}, records.Cite, "cite"), "cite.anchor:", ("a string", "got 5")),
        (lambda: build_row(records.ElementType, {"width_bits": "x", "kind": "float"}), "width_bits:",
         ("an integer", "got 'x'")),
    ]
    for call, where, named in cases:
        with raises_naming(SchemaError, where, *named) as info:
            call()
        assert str(info.value).startswith(f"{where} "), str(info.value)
    assert convert({"anchor": "a"}, records.Cite, "cite") == records.Cite(anchor="a")


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
