"""Checks of the spec lint rules SPEC-CITE, SPEC-ROWS, SPEC-UNITS (oracle/lint/cite.py, rows.py,
units.py) and the cross-file SPEC-ID / SPEC-REF (oracle/lint/refs.py) that mutation testing found
missing (reports/mutation/README.md).

Expected values come from each rule's documented semantics (its module's and functions'
docstrings), the `path:line: RULE - message` format (oracle/lint/base.py) and hand-made YAML
snippets whose lines are counted by hand; every expected message is written out here:

* SPEC-CITE: a cite names an anchor; `agreement` checks both directions: every number the quote
  states (digits or number words, 0 and 1 aside) is one the row holds, and every top-level
  integer column is stated by the quote, the anchor or the row's own `text`, unless
  `source.columns` names it or the cite gives a `provenance`;
* SPEC-ROWS: the source block pins the source's row count (a positive integer); a file holds at
  least that many rows (`exact_pin`, the bundled spec's own rule: exactly that many); the error
  sits on the pin's line (or the source block's, or line 1);
* SPEC-UNITS: every numeric key names its unit (`_bits`, `_bytes`, `_elems`, `_u128`) unless its
  kind lists it as unitless; a key with a field's stem but another unit is a mismatch;
* SPEC-ID across files: an id is unique within its kind across files (within one file is
  SPEC-ID of the file's own lint); SPEC-REF: a named row exists.
"""

from __future__ import annotations

from pathlib import Path

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import RawDocument, SpecError
from ptxconf.oracle.lint.cite import CiteRule, agreement, declared_columns, held_numbers, stated_numbers
from ptxconf.oracle.lint.refs import cross_file_errors
from ptxconf.oracle.lint.rows import RowsRule, exact_pin, pin_line, pinned_rows
from ptxconf.oracle.lint.units import UnitsRule, unit_of, unit_stem
from ptxconf.oracle.spec import lint_file

SOURCE = '{document: x, ptx_isa_version: "9.0", anchor: a, section: "1", row_count: 1}'
CITE_HINT = "(cite: {anchor: <figure, table or section>, text: <the source's own words>})"
NO_CITE_HINT = ("(cite: {anchor: <figure, table or section>, text: <the source's own words>}, or "
                "provenance: <where it comes from>)")
NOT_STATED = ("is not stated by its cite; quote where the document states it, or name the column "
              "in source.columns with where it comes from")


def _doc(tmp_path: Path, text: str, name: str = "t.yaml") -> RawDocument:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return RawDocument.parse(path, name)


def _strs(errors: list[SpecError]) -> list[str]:
    return [str(e) for e in errors]


# --- stated_numbers, held_numbers, declared_columns --------------------------------------------


def test_every_number_word_is_read_as_its_number() -> None:
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
             "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
             "nineteen": 19, "pair": 2, "pairs": 2, "twenty": 20, "thirty": 30, "forty": 40,
             "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
    assert {w: stated_numbers(f"a {w} b") for w in words} == {w: {n} for w, n in words.items()}


def test_tens_and_units_combine_with_a_space_or_a_hyphen_in_any_case() -> None:
    assert stated_numbers("thirty two") == {32}
    assert stated_numbers("forty-nine") == {49}
    assert stated_numbers("twenty one") == {21}
    assert stated_numbers("fifty three") == {53}
    assert stated_numbers("sixty-four") == {64}
    assert stated_numbers("THIRTY TWO .b1") == {32, 1}
    assert stated_numbers("Four registers, Pairs") == {4, 2}
    assert stated_numbers("twenty five, thirty six, forty seven, fifty eight") == {25, 36, 47, 58}
    assert stated_numbers("seventy-two, eighty one and ninety nine") == {72, 81, 99}
    # a teen is one word, not a unit run on: "fourteen" is 14, never 4
    assert stated_numbers("fourteen, seventeen, nineteen") == {14, 17, 19}


def test_digit_runs_are_read_and_words_only_whole() -> None:
    assert stated_numbers("64B Swizzling Mode K 8x4") == {64, 8, 4}
    assert stated_numbers("m64n256k16") == {64, 256, 16}
    # "ten" inside "often", "one" inside "none", "six" inside "sixth" are no numbers
    assert stated_numbers("often none attentive sixth") == set()
    assert stated_numbers("") == set()


def test_held_numbers_reads_integers_anywhere_and_digits_in_strings() -> None:
    assert held_numbers(7) == {7}
    assert held_numbers(True) == set()
    assert held_numbers(False) == set()
    assert held_numbers(None) == set()
    assert held_numbers(2.5) == set()
    assert held_numbers("8x4 in 128B") == {8, 4, 128}
    assert held_numbers([3, "k16", [5]]) == {3, 16, 5}
    assert held_numbers({"n8": 2, "x": {"y": 9}}) == {8, 2, 9}
    assert held_numbers({}) == set()
    assert held_numbers([]) == set()


def test_declared_columns_are_the_source_blocks_columns_mapping(tmp_path: Path) -> None:
    with_cols = _doc(tmp_path, "kind: element_type\nsource: {row_count: 1, columns: {width_bits: "
                     "derived from the name}}\nrows: []\n")
    assert declared_columns(with_cols) == {"width_bits": "derived from the name"}
    assert declared_columns(_doc(tmp_path, "kind: element_type\nrows: []\n")) == {}
    assert declared_columns(_doc(tmp_path, "kind: element_type\nsource: [a]\nrows: []\n")) == {}
    assert declared_columns(_doc(tmp_path, "kind: element_type\nsource: {columns: [a]}\n"
                                 "rows: []\n")) == {}


# --- CiteRule -------------------------------------------------------------------------------


def test_a_cite_without_an_anchor_is_reported_at_the_cite_line_with_the_row_id(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - id: f16\n"          # line 4
               "    width_bits: 16\n"
               "    cite: {text: \"16-bit values\"}\n")  # line 6
    assert _strs(CiteRule().check(doc)) == [
        f"{tmp_path / 't.yaml'}:6: SPEC-CITE - row f16: a cite needs an anchor {CITE_HINT}"]


def test_a_cite_without_an_anchor_in_a_row_without_id_says_question_mark(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {width_bits: 16, cite: {anchor: \"  \"}}\n")
    assert _strs(CiteRule().check(doc)) == [
        f"{tmp_path / 't.yaml'}:4: SPEC-CITE - row ?: a cite needs an anchor {CITE_HINT}"]


def test_rows_after_a_row_without_cite_are_still_checked(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {id: a, width_bits: 16}\n"
               "  - {id: b, width_bits: 8, cite: 5}\n"
               "  - {id: c, width_bits: 8, cite: {anchor: 7}}\n")
    assert [(e.line, e.rule, e.message.split(":")[0]) for e in CiteRule().check(doc)] == [
        (5, "SPEC-CITE", "row b"), (6, "SPEC-CITE", "row c")]


def test_a_row_marked_not_a_mapping_is_left_to_the_schema(tmp_path: Path) -> None:
    """The parser marks a row that is no mapping with `__not_a_mapping__`; SPEC-CITE passes it
    over (SPEC-SCHEMA reports it), even where that marker sits beside a cite."""
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {id: a, __not_a_mapping__: 1, cite: 5}\n"
               "  - {id: b, cite: 5}\n")
    assert [(e.line, e.message.split(":")[0]) for e in CiteRule().check(doc)] == [(5, "row b")]


# --- agreement ------------------------------------------------------------------------------


def test_agreement_is_silent_for_a_kind_it_does_not_know(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "kind: no_such_kind\nrows:\n  - {id: a, width_bits: 16}\n")
    assert agreement(doc) == []


def test_a_row_without_a_cite_is_reported_at_its_own_line(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - id: f16\n"           # line 4
               "    width_bits: 16\n"
               "  - {width_bits: 8, cite: {text: eight}}\n"     # line 6: no anchor
               "  - {id: b8, width_bits: 8, cite: {anchor: 8}}\n"  # line 7: anchor not a string
               "  - 3\n")                # not a mapping: passed over
    path = tmp_path / "t.yaml"
    assert _strs(agreement(doc)) == [
        f"{path}:4: SPEC-CITE - row f16: no cite {NO_CITE_HINT}",
        f"{path}:6: SPEC-CITE - row ?: no cite {NO_CITE_HINT}",
        f"{path}:7: SPEC-CITE - row b8: no cite {NO_CITE_HINT}"]


def test_a_quote_stating_numbers_the_row_does_not_hold(tmp_path: Path) -> None:
    """5 and 64 are only in the quote (64 in the id does not count: the id is a name); 0 and 1
    are indices; 16 and 8 are held."""
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - id: m64\n"
               "    width_bits: 16\n"
               "    cite:\n"             # line 6
               "      anchor: Table 8\n"
               "      text: \"sixteen bits, 5 or sixty-four, a0 a1\"\n")
    assert _strs(agreement(doc)) == [
        f"{tmp_path / 't.yaml'}:6: SPEC-CITE - row m64: the cited text states [5, 64], which the "
        "row does not hold"]


def test_the_cites_own_numbers_are_not_held_by_the_row(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {id: f16, width_bits: 16, cite: {anchor: \"Table 12\", text: \"16 bits, Table "
               "12\"}}\n")
    assert _strs(agreement(doc)) == [
        f"{tmp_path / 't.yaml'}:4: SPEC-CITE - row f16: the cited text states [12], which the "
        "row does not hold"]


def test_a_column_no_quote_states_is_reported_at_its_line(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - id: f16\n"
               "    cite: {anchor: \"Table 3\", text: \"half precision\"}\n"
               "    width_bits: 16\n"    # line 6
               "    exponent_bits: 5\n"  # line 7
               "    mantissa_bits: 10\n"  # line 8
               "    padding_bits: 3\n"   # stated by the anchor
               "    finite_only: false\n"
               "    kind: float\n")
    path = tmp_path / "t.yaml"
    assert _strs(agreement(doc)) == [
        f"{path}:6: SPEC-CITE - row f16: width_bits = 16 {NOT_STATED}",
        f"{path}:7: SPEC-CITE - row f16: exponent_bits = 5 {NOT_STATED}",
        f"{path}:8: SPEC-CITE - row f16: mantissa_bits = 10 {NOT_STATED}"]


def test_a_quote_stating_every_column_agrees(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {id: f16, width_bits: 16, exponent_bits: 5, mantissa_bits: 10, finite_only: "
               "true, cite: {anchor: fp16, text: \"sixteen bits: five exponent, ten mantissa\"}}\n")
    assert agreement(doc) == []


def test_a_declared_column_needs_no_quote(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "kind: element_type\nsource: {row_count: 1, columns: {width_bits: from "
               "the assembler}}\nrows:\n"
               "  - {id: f16, width_bits: 16, mantissa_bits: 10, cite: {anchor: a, text: \"ten\"}}\n")
    assert agreement(doc) == []


def test_a_row_without_the_documents_words(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {id: f16, width_bits: 16, cite: {anchor: \"16\", text: 16}}\n")
    assert _strs(agreement(doc)) == [
        f"{tmp_path / 't.yaml'}:4: SPEC-CITE - row f16: a document row without the document's "
        "words (cite.text)"]


def test_a_rows_own_text_column_states_its_numbers(tmp_path: Path) -> None:
    """A kind whose `text` column is the source's definition: its words stand for cite.text."""
    doc = _doc(tmp_path, "kind: byte_offset_definition\nsource: {row_count: 1}\nrows:\n"
               "  - {id: lbo, assumed_u128: 8, text: \"assumed to be 8\", cite: {anchor: a}}\n")
    assert agreement(doc) == []


def test_a_provenance_row_still_holds_what_its_quote_states(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {id: a, width_bits: 16, cite: {anchor: x, provenance: silicon}}\n"
               "  - {id: b, width_bits: 16, cite: {anchor: x, text: \"4 bits\", provenance: "
               "silicon}}\n")
    assert _strs(agreement(doc)) == [
        f"{tmp_path / 't.yaml'}:5: SPEC-CITE - row b: the cited text states [4], which the row "
        "does not hold"]


# --- SPEC-ROWS ------------------------------------------------------------------------------


def test_a_malformed_pin_is_reported_with_what_it_got(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    for pin, got in (("0", "0"), ('"16"', "'16'"), ("true", "True"), ("-2", "-2")):
        doc = _doc(tmp_path, "kind: element_type\nsource:\n  document: x\n"
                   f"  row_count: {pin}\nrows: []\n")
        assert _strs(RowsRule().check(doc)) == [
            f"{path}:4: SPEC-ROWS - source.row_count: expected the number of rows the source's "
            f"table has (a positive integer), got {got}"], pin
    missing = _doc(tmp_path, "kind: element_type\nsource:\n  document: x\nrows: []\n")
    assert _strs(RowsRule().check(missing)) == [
        f"{path}:2: SPEC-ROWS - source.row_count: expected the number of rows the source's "
        "table has (a positive integer), got None"]


def test_pinned_rows_is_none_without_a_source_block(tmp_path: Path) -> None:
    assert pinned_rows(_doc(tmp_path, "kind: element_type\nrows: []\n")) is None
    assert pinned_rows(_doc(tmp_path, "kind: element_type\nsource: [1]\nrows: []\n")) is None
    assert pinned_rows(_doc(tmp_path, "kind: element_type\nsource: {row_count: 3}\nrows: []\n")) == 3


def test_pin_line_falls_back_to_the_source_block_then_line_one() -> None:
    assert pin_line(RawDocument("p", "p", {"source": {"row_count": 2}}, {}, [], {})) == 1
    assert pin_line(RawDocument("p", "p", {"source": {}}, {"source": 5}, [], {})) == 5
    assert pin_line(RawDocument("p", "p", {"source": {}}, {"source": 5}, [], {"row_count": 7})) == 7


def test_exact_pin_reports_a_file_with_more_or_fewer_rows_than_its_pin(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    two_rows = "rows:\n  - {id: a}\n  - {id: b}\n"
    more = _doc(tmp_path, f"kind: element_type\nsource:\n  document: x\n  row_count: 1\n{two_rows}")
    assert _strs(exact_pin(more)) == [
        f"{path}:4: SPEC-ROWS - source.row_count pins 1 rows; the file has 2: set the pin to the "
        "rows the source's table has"]
    fewer = _doc(tmp_path, f"kind: element_type\nsource: {{row_count: 3}}\n{two_rows}")
    assert _strs(exact_pin(fewer)) == [
        f"{path}:2: SPEC-ROWS - source.row_count pins 3 rows; the file has 2: set the pin to the "
        "rows the source's table has"]
    exact = _doc(tmp_path, f"kind: element_type\nsource: {{row_count: 2}}\n{two_rows}")
    assert exact_pin(exact) == []
    assert exact_pin(_doc(tmp_path, f"kind: element_type\n{two_rows}")) == []
    assert exact_pin(_doc(tmp_path, f"kind: element_type\nsource: {{row_count: 0}}\n{two_rows}")) == []


# --- SPEC-UNITS -----------------------------------------------------------------------------


def test_unit_of_and_unit_stem_name_the_suffix() -> None:
    assert [unit_of(k) for k in ("lbo_bytes", "width_bits", "k_elems", "leading_u128", "m")] == [
        "bytes", "bits", "elems", "u128", None]
    assert [unit_stem(k) for k in ("lbo_bytes", "width_bits", "k_elems", "leading_u128", "m")] == [
        "lbo", "width", "k", "leading", "m"]


def test_a_numeric_key_without_a_unit_is_reported_at_its_line(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - id: f16\n"
               "    width_bits: 16\n"
               "    size: 2\n"           # line 6
               "  - {width: 8}\n")       # line 7, no id
    path = tmp_path / "t.yaml"
    units = "(one of _bits, _bytes, _elems, _u128)"
    assert _strs(UnitsRule().check(doc)) == [
        f"{path}:6: SPEC-UNITS - row f16: numeric key 'size' names no unit {units}",
        f"{path}:7: SPEC-UNITS - row ?: numeric key 'width' names no unit {units}",
        f"{path}:7: SPEC-UNITS - row ?: 'width' is in no unit; kind element_type counts it in "
        "bits ('width_bits')"]


def test_a_key_in_another_unit_names_both_units(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: alignment_rule\nsource: {SOURCE}\nrows:\n"
               "  - id: wgmma.smem_operand_start\n"
               "    applies_to: wgmma_smem_operand\n"
               "    alignment_bits: 128\n")  # line 6
    assert _strs(UnitsRule().check(doc)) == [
        f"{tmp_path / 't.yaml'}:6: SPEC-UNITS - row wgmma.smem_operand_start: 'alignment_bits' is "
        "in bits; kind alignment_rule counts it in bytes ('alignment_bytes')"]


def test_a_unit_on_a_field_the_schema_counts_without_one(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {width_bits: 16, kind_bits: float}\n")
    assert _strs(UnitsRule().check(doc)) == [
        f"{tmp_path / 't.yaml'}:4: SPEC-UNITS - row ?: 'kind_bits' is in bits; kind element_type "
        "counts it in no unit ('kind')"]


def test_units_lint_of_a_whole_file_names_the_rule_and_line(tmp_path: Path) -> None:
    path = tmp_path / "u.yaml"
    path.write_text(f"kind: element_type\nsource: {SOURCE}\nrows:\n  - {{id: f16, width_bytes: 2, "
                    "kind: float}\n", encoding="utf-8")
    _doc_, errors = lint_file(path, tmp_path)
    assert f"{path}:4: SPEC-UNITS - row f16: 'width_bytes' is in bytes; kind element_type counts " \
        "it in bits ('width_bits')" in _strs(errors)


# --- cross-file SPEC-ID and SPEC-REF --------------------------------------------------------


def test_a_duplicate_id_within_one_file_is_not_a_cross_file_error() -> None:
    rows = [records.ElementType("f16", file="a.yaml", line=4, width_bits=16),
            records.ElementType("f16", file="a.yaml", line=5, width_bits=16)]
    assert cross_file_errors("spec", rows) == []
    other = [*rows, records.ElementType("f16", file="b.yaml", line=9, width_bits=16)]
    assert _strs(cross_file_errors("spec", other)) == [
        "spec/b.yaml:9: SPEC-ID - duplicate element_type id 'f16': also a.yaml:4; ids are unique "
        "within a kind across files"]


def test_a_reference_to_a_kind_with_no_rows_at_all_is_reported() -> None:
    rows = [records.WorkedExample("ex", file="w.yaml", line=3, dtype="f16")]
    assert _strs(cross_file_errors("spec", rows)) == [
        "spec/w.yaml:3: SPEC-REF - row 'ex': dtype 'f16' names no element_type row"]


def test_references_to_rows_that_exist_are_not_reported() -> None:
    rows = [records.ElementType("f16", file="types.yaml", line=4, width_bits=16),
            records.ElementType("bf16", file="types.yaml", line=5, width_bits=16),
            records.RegisterFragment("A.k16", file="frags.yaml", line=3, types=("f16", "bf16")),
            records.WorkedExample("ex", file="w.yaml", line=3, dtype="bf16")]
    assert cross_file_errors("spec", rows) == []


def test_each_name_of_a_tuple_reference_is_checked() -> None:
    rows = [records.ElementType("f16", file="types.yaml", line=4, width_bits=16),
            records.RegisterFragment("A.k16", file="frags.yaml", line=3, types=("f16", "e4m3"))]
    assert _strs(cross_file_errors("spec", rows)) == [
        "spec/frags.yaml:3: SPEC-REF - row 'A.k16': types 'e4m3' names no element_type row"]


def test_file_scoped_ids_may_repeat_and_do_not_stop_the_duplicate_check() -> None:
    """Descriptor fields are looked up per file: the same field in two files is no duplicate,
    and the rows after them are still checked."""
    rows = [records.DescriptorField("lbo", file="ptx.yaml", line=3),
            records.DescriptorField("lbo", file="cutlass.yaml", line=3),
            records.ElementType("f16", file="a.yaml", line=4),
            records.ElementType("f32", file="b.yaml", line=4),
            records.ElementType("f16", file="b.yaml", line=5)]
    assert _strs(cross_file_errors("spec", rows)) == [
        "spec/b.yaml:5: SPEC-ID - duplicate element_type id 'f16': also a.yaml:4; ids are unique "
        "within a kind across files"]


def test_a_file_with_fewer_rows_than_its_pin_lost_one(tmp_path: Path) -> None:
    two_rows = "rows:\n  - {id: a}\n  - {id: b}\n"
    fewer = _doc(tmp_path, f"kind: element_type\nsource:\n  document: x\n  row_count: 3\n{two_rows}")
    assert _strs(RowsRule().check(fewer)) == [
        f"{tmp_path / 't.yaml'}:4: SPEC-ROWS - source.row_count pins 3 rows (the source's table); "
        "the file has 2: a row was lost. Restore it, or lower the pin where the source itself "
        "dropped it"]
    more = _doc(tmp_path, f"kind: element_type\nsource: {{row_count: 1}}\n{two_rows}")
    assert RowsRule().check(more) == []
