"""The spec lint rule SPEC-CITE (oracle/lint/cite.py): a cite names an anchor; `agreement` checks
both directions: every number the quote states (digits or number words, 0 and 1 aside) is one the
row holds, and every top-level integer column is stated by the quote, the anchor or the row's own
`text`, unless `source.columns` names it or the cite gives a `provenance`.

Expected values come from the rule's documented semantics (its module's and functions'
docstrings), the `path:line: RULE - message` format (oracle/lint/base.py) and hand-made YAML
snippets whose lines are counted by hand; each error is asserted by its path, line and rule and
the values its message names (the wording: messages_oracle_lint.py's lint.*)."""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_spec_errors
from scratch_spec import raw_document

from ptxconf.oracle.lint.base import RawDocument
from ptxconf.oracle.lint.cite import CiteRule, agreement, declared_columns, held_numbers, stated_numbers

SOURCE = '{document: x, ptx_isa_version: "9.0", anchor: a, section: "1", row_count: 1}'


def _doc(tmp_path: Path, text: str, name: str = "t.yaml") -> RawDocument:
    return raw_document(tmp_path, text, name)


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
    expect_spec_errors(CiteRule().check(doc), (tmp_path / "t.yaml", 6, "SPEC-CITE", ("row f16:", "anchor")))


def test_a_cite_without_an_anchor_in_a_row_without_id_says_question_mark(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {width_bits: 16, cite: {anchor: \"  \"}}\n")
    expect_spec_errors(CiteRule().check(doc), (tmp_path / "t.yaml", 4, "SPEC-CITE", ("row ?:", "anchor")))


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
    errors = agreement(doc)
    expect_spec_errors(errors, (path, 4, "SPEC-CITE", ("row f16:",)), (path, 6, "SPEC-CITE", ("row ?:",)),
                       (path, 7, "SPEC-CITE", ("row b8:",)))
    assert len({e.message.partition(": ")[2] for e in errors}) == 1   # one refusal: no cite


def test_a_quote_stating_numbers_the_row_does_not_hold(tmp_path: Path) -> None:
    """5 and 64 are only in the quote (64 in the id does not count: the id is a name); 0 and 1
    are indices; 16 and 8 are held."""
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - id: m64\n"
               "    width_bits: 16\n"
               "    cite:\n"             # line 6
               "      anchor: Table 8\n"
               "      text: \"sixteen bits, 5 or sixty-four, a0 a1\"\n")
    expect_spec_errors(agreement(doc), (tmp_path / "t.yaml", 6, "SPEC-CITE", ("row m64:", "[5, 64]")))


def test_the_cites_own_numbers_are_not_held_by_the_row(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {id: f16, width_bits: 16, cite: {anchor: \"Table 12\", text: \"16 bits, Table "
               "12\"}}\n")
    expect_spec_errors(agreement(doc), (tmp_path / "t.yaml", 4, "SPEC-CITE", ("row f16:", "[12]")))


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
    expect_spec_errors(agreement(doc), (path, 6, "SPEC-CITE", ("row f16:", "width_bits = 16")),
                       (path, 7, "SPEC-CITE", ("row f16:", "exponent_bits = 5")),
                       (path, 8, "SPEC-CITE", ("row f16:", "mantissa_bits = 10")))


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
    expect_spec_errors(agreement(doc), (tmp_path / "t.yaml", 4, "SPEC-CITE", ("row f16:", "cite.text")))


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
    expect_spec_errors(agreement(doc), (tmp_path / "t.yaml", 5, "SPEC-CITE", ("row b:", "[4]")))
