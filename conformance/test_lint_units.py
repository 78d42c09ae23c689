"""The spec lint rule SPEC-UNITS (oracle/lint/units.py): every numeric key names its unit
(`_bits`, `_bytes`, `_elems`, `_u128`) unless its kind lists it as unitless; a key with a field's
stem but another unit is a mismatch.

Expected values come from the rule's documented semantics (its module's and functions'
docstrings), the `path:line: RULE - message` format (oracle/lint/base.py) and hand-made YAML
snippets whose lines are counted by hand; each error is asserted by its path, line and rule and
the values its message names (the wording: messages_oracle_lint.py's lint.*)."""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_spec_errors
from scratch_spec import raw_document

from ptxconf.oracle.lint.base import RawDocument
from ptxconf.oracle.lint.units import UnitsRule, unit_of, unit_stem
from ptxconf.oracle.spec import lint_file

SOURCE = '{document: x, ptx_isa_version: "9.0", anchor: a, section: "1", row_count: 1}'


def _doc(tmp_path: Path, text: str, name: str = "t.yaml") -> RawDocument:
    return raw_document(tmp_path, text, name)


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
    units = "_bits, _bytes, _elems, _u128"
    expect_spec_errors(UnitsRule().check(doc), (path, 6, "SPEC-UNITS", ("row f16:", "'size'", units)),
                       (path, 7, "SPEC-UNITS", ("row ?:", "'width'", units)),
                       (path, 7, "SPEC-UNITS", ("row ?:", "'width'", "element_type", "('width_bits')")))


def test_a_key_in_another_unit_names_both_units(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: alignment_rule\nsource: {SOURCE}\nrows:\n"
               "  - id: wgmma.smem_operand_start\n"
               "    applies_to: wgmma_smem_operand\n"
               "    alignment_bits: 128\n")  # line 6
    expect_spec_errors(UnitsRule().check(doc), (tmp_path / "t.yaml", 6, "SPEC-UNITS", (
        "row wgmma.smem_operand_start:", "'alignment_bits'", "alignment_rule", "('alignment_bytes')")))


def test_a_unit_on_a_field_the_schema_counts_without_one(tmp_path: Path) -> None:
    doc = _doc(tmp_path, f"kind: element_type\nsource: {SOURCE}\nrows:\n"
               "  - {width_bits: 16, kind_bits: float}\n")
    expect_spec_errors(UnitsRule().check(doc), (tmp_path / "t.yaml", 4, "SPEC-UNITS", (
        "row ?:", "'kind_bits'", "element_type", "('kind')")))


def test_units_lint_of_a_whole_file_names_the_rule_and_line(tmp_path: Path) -> None:
    path = tmp_path / "u.yaml"
    path.write_text(f"kind: element_type\nsource: {SOURCE}\nrows:\n  - {{id: f16, width_bytes: 2, "
                    "kind: float}\n", encoding="utf-8")
    _doc_, errors = lint_file(path, tmp_path)
    units = [e for e in errors if e.rule == "SPEC-UNITS"]
    expect_spec_errors(units, (path, 4, "SPEC-UNITS", ("row f16:", "'width_bytes'", "element_type",
                                                       "('width_bits')")))
