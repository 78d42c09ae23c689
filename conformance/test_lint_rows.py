"""The spec lint rule SPEC-ROWS (oracle/lint/rows.py): the source block pins the source's row
count (a positive integer); a file holds at least that many rows (`exact_pin`, the bundled spec's
own rule: exactly that many); the error sits on the pin's line (or the source block's, or line 1).

Expected values come from the rule's documented semantics (its module's and functions'
docstrings), the `path:line: RULE - message` format (oracle/lint/base.py) and hand-made YAML
snippets whose lines are counted by hand; each error is asserted by its path, line and rule and
the values its message names (the wording: messages_oracle_lint.py's lint.*)."""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_spec_errors
from scratch_spec import raw_document

from ptxconf.oracle.lint.base import RawDocument
from ptxconf.oracle.lint.rows import RowsRule, exact_pin, pin_line, pinned_rows


def _doc(tmp_path: Path, text: str, name: str = "t.yaml") -> RawDocument:
    return raw_document(tmp_path, text, name)


# --- SPEC-ROWS ------------------------------------------------------------------------------


def test_a_malformed_pin_is_reported_with_what_it_got(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    for pin, got in (("0", "0"), ('"16"', "'16'"), ("true", "True"), ("-2", "-2")):
        doc = _doc(tmp_path, "kind: element_type\nsource:\n  document: x\n"
                   f"  row_count: {pin}\nrows: []\n")
        expect_spec_errors(RowsRule().check(doc), (path, 4, "SPEC-ROWS", ("source.row_count:", f"got {got}")))
    missing = _doc(tmp_path, "kind: element_type\nsource:\n  document: x\nrows: []\n")
    expect_spec_errors(RowsRule().check(missing), (path, 2, "SPEC-ROWS", ("source.row_count:", "got None")))


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
    expect_spec_errors(exact_pin(more), (path, 4, "SPEC-ROWS", ("source.row_count", "pins 1 rows", "has 2")))
    fewer = _doc(tmp_path, f"kind: element_type\nsource: {{row_count: 3}}\n{two_rows}")
    expect_spec_errors(exact_pin(fewer), (path, 2, "SPEC-ROWS", ("source.row_count", "pins 3 rows", "has 2")))
    assert "lost" not in exact_pin(fewer)[0].message   # the bundled spec's exact pin: not RowsRule's
    exact = _doc(tmp_path, f"kind: element_type\nsource: {{row_count: 2}}\n{two_rows}")
    assert exact_pin(exact) == []
    assert exact_pin(_doc(tmp_path, f"kind: element_type\n{two_rows}")) == []
    assert exact_pin(_doc(tmp_path, f"kind: element_type\nsource: {{row_count: 0}}\n{two_rows}")) == []


def test_a_file_with_fewer_rows_than_its_pin_lost_one(tmp_path: Path) -> None:
    two_rows = "rows:\n  - {id: a}\n  - {id: b}\n"
    fewer = _doc(tmp_path, f"kind: element_type\nsource:\n  document: x\n  row_count: 3\n{two_rows}")
    expect_spec_errors(RowsRule().check(fewer), (tmp_path / "t.yaml", 4, "SPEC-ROWS", (
        "source.row_count", "pins 3 rows", "has 2", "lost")))
    more = _doc(tmp_path, f"kind: element_type\nsource: {{row_count: 1}}\n{two_rows}")
    assert RowsRule().check(more) == []
