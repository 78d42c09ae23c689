"""Message examples of the spec lint rules (oracle/lint/): see golden_messages.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from golden_messages import example
from golden_messages import raised as _raised

# --- oracle/lint/cite.py, rows.py, units.py, refs.py: one message per rule and shape ------------

_LINT_SOURCE = '{document: x, ptx_isa_version: "9.0", anchor: a, section: "1", row_count: 1}'


def _lint_first(check: Callable[[object], list], text: str) -> str:
    """The message of the first error `check` finds in a spec file of this text."""
    import tempfile

    from scratch_spec import raw_document

    with tempfile.TemporaryDirectory() as tmp:
        errors = check(raw_document(Path(tmp), text))
    return errors[0].message


def _rows(body: str) -> str:
    return f"kind: element_type\nsource: {_LINT_SOURCE}\nrows:\n{body}"


@example("lint.cite_needs_an_anchor")
def _lint_anchor() -> str:
    from ptxconf.oracle.lint.cite import CiteRule

    return _lint_first(CiteRule().check, _rows('  - {id: f16, width_bits: 16, cite: {text: "16-bit"}}\n'))


@example("lint.no_cite")
def _lint_no_cite() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows("  - {id: f16, width_bits: 16}\n"))


@example("lint.cited_numbers_not_held")
def _lint_not_held() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows('  - {id: m64, width_bits: 16, cite: {anchor: Table 8, '
                                        'text: "sixteen bits, 5 or sixty-four, a0 a1"}}\n'))


@example("lint.column_not_stated")
def _lint_not_stated() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows('  - {id: f16, width_bits: 16, cite: {anchor: "Table 3", '
                                        'text: "half precision"}}\n'))


@example("lint.no_document_words")
def _lint_no_words() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows('  - {id: f16, width_bits: 16, cite: {anchor: "16", text: 16}}\n'))


@example("lint.rows_malformed_pin")
def _lint_malformed_pin() -> str:
    from ptxconf.oracle.lint.rows import RowsRule

    text = "kind: element_type\nsource:\n  document: x\n  row_count: 0\nrows: []\n"
    return _lint_first(RowsRule().check, text)


_TWO_ROWS = "rows:\n  - {id: a}\n  - {id: b}\n"


@example("lint.rows_exact_pin")
def _lint_exact_pin() -> str:
    from ptxconf.oracle.lint.rows import exact_pin

    return _lint_first(exact_pin, f"kind: element_type\nsource: {{row_count: 3}}\n{_TWO_ROWS}")


@example("lint.rows_lost")
def _lint_rows_lost() -> str:
    from ptxconf.oracle.lint.rows import RowsRule

    return _lint_first(RowsRule().check, f"kind: element_type\nsource: {{row_count: 3}}\n{_TWO_ROWS}")


@example("lint.units_no_unit")
def _lint_no_unit() -> str:
    from ptxconf.oracle.lint.units import UnitsRule

    return _lint_first(UnitsRule().check, _rows("  - {id: f16, width_bits: 16, size: 2}\n"))


@example("lint.units_another_unit")
def _lint_other_unit() -> str:
    from ptxconf.oracle.lint.units import UnitsRule

    text = (f"kind: alignment_rule\nsource: {_LINT_SOURCE}\nrows:\n  - {{id: wgmma.smem_operand_start, "
            "applies_to: wgmma_smem_operand, alignment_bits: 128}\n")
    return _lint_first(UnitsRule().check, text)


@example("lint.units_on_a_unitless_field")
def _lint_unitless() -> str:
    from ptxconf.oracle.lint.units import UnitsRule

    return _lint_first(UnitsRule().check, _rows("  - {width_bits: 16, kind_bits: float}\n"))


@example("lint.duplicate_id_across_files")
def _lint_duplicate_id() -> str:
    from ptxconf.oracle import records
    from ptxconf.oracle.lint.refs import cross_file_errors

    rows = [records.ElementType("f16", file="a.yaml", line=4, width_bits=16),
            records.ElementType("f16", file="b.yaml", line=9, width_bits=16)]
    return cross_file_errors("spec", rows)[0].message


@example("lint.names_no_row")
def _lint_names_no_row() -> str:
    from ptxconf.oracle import records
    from ptxconf.oracle.lint.refs import cross_file_errors

    rows = [records.WorkedExample("ex", file="w.yaml", line=3, dtype="f16")]
    return cross_file_errors("spec", rows)[0].message


# --- oracle/lint/base.py, source.py, schema.py, ids.py: reading a file and its own rules ----------

_LINT_HEAD = 'kind: element_type\nsource: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}\n'


def _linted(text: str | bytes, rule: str | None = None, index: int = 0) -> str:
    """The message of one report of the linter on a spec file of this text."""
    import tempfile

    from scratch_spec import lint_text

    with tempfile.TemporaryDirectory() as tmp:
        return lint_text(Path(tmp), text, rule)[index].message


@example("lint.yaml_anchor")
def _lint_yaml_anchor() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16, width_bits: &w 16, kind: float}\n")


@example("lint.yaml_second_document")
def _lint_yaml_second() -> str:
    return _linted(_LINT_HEAD + "rows: []\n---\nkind: element_type\n")


@example("lint.size_nesting")
def _lint_size_nesting() -> str:
    return _linted(_LINT_HEAD + "rows: []\nx: " + "[" * 16 + "]" * 16 + "\n", "SPEC-SIZE")


@example("lint.size_file")
def _lint_size_file() -> str:
    body = _LINT_HEAD.replace("}", ", row_count: 1}") + _LINT_ROW
    return _linted(body + "#" * ((1 << 20) - len(body)) + "\n", "SPEC-SIZE")


@example("lint.yaml_key_not_a_string")
def _lint_yaml_key() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16, 16: 16, kind: float}\n")


@example("lint.yaml_duplicate_key")
def _lint_yaml_duplicate() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - id: f16\n    width_bits: 16\n    id: f17\n")


@example("lint.yaml_not_a_mapping")
def _lint_yaml_not_mapping() -> str:
    return _linted("- kind\n- source\n")


@example("lint.yaml_cannot_read")
def _lint_yaml_cannot_read() -> str:
    return _linted(b"\xff kind: x\n")


@example("lint.yaml_malformed")
def _lint_yaml_malformed() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16, width_bits: !odd 16, kind: float}\n")


@example("lint.yaml_tag_cannot_read")
def _lint_yaml_tag() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - id: f16\n    width_bits: !!int abc\n")


@example("lint.schema_row_not_a_mapping")
def _lint_row_not_mapping() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - 5\n", "SPEC-SCHEMA")


@example("lint.source_unknown_top_level_key")
def _lint_source_unknown_top() -> str:
    return _linted(_LINT_HEAD + "rows: []\nextra: 1\n", "SPEC-SOURCE")


@example("lint.source_missing_top_level_key")
def _lint_source_missing_top() -> str:
    return _linted("rows:\n  - {id: f16, width_bits: 16, kind: float}\n", "SPEC-SOURCE")


@example("lint.source_rows_empty")
def _lint_source_rows_empty() -> str:
    return _linted(_LINT_HEAD + "rows: []\n", "SPEC-SOURCE")


@example("lint.source_not_a_mapping")
def _lint_source_not_mapping() -> str:
    return _linted("kind: element_type\nsource: x\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n",
                   "SPEC-SOURCE")


_LINT_ROW = "rows:\n  - {id: f16, width_bits: 16, kind: float}\n"


@example("lint.source_value_not_a_string")
def _lint_source_value() -> str:
    return _linted(f"kind: element_type\n{_LINT_ROW}source: {{document: x, ptx_isa_version: 9.0, anchor: a, "
                   'section: "1"}\n', "SPEC-SOURCE")


@example("lint.source_unknown_key")
def _lint_source_unknown_key() -> str:
    return _linted(f"kind: element_type\n{_LINT_ROW}source: {{document: x, ptx_isa_version: '9.0', "
                   "anchor: a, section: '1', extra: 1}\n", "SPEC-SOURCE")


_LINT_COLUMNS = f"kind: element_type\n{_LINT_ROW}source: {{document: x, ptx_isa_version: '9.0', anchor: a, " \
                "section: '1', columns: "


@example("lint.source_columns_not_a_mapping")
def _lint_columns_mapping() -> str:
    return _linted(_LINT_COLUMNS + "[width_bits]}\n", "SPEC-SOURCE")


@example("lint.source_column_without_its_origin")
def _lint_column_origin() -> str:
    return _linted(_LINT_COLUMNS + "{width_bits: ''}}\n", "SPEC-SOURCE")


@example("lint.source_column_not_of_the_kind")
def _lint_column_kind() -> str:
    return _linted(_LINT_COLUMNS + "{colour: table 3}}\n", "SPEC-SOURCE")


@example("lint.schema_unknown_kind")
def _lint_unknown_kind() -> str:
    return _linted("kind: nope\n" + _LINT_ROW, "SPEC-SCHEMA")


_LINT_ATOM = ('kind: swizzle_atom\nsource: {{document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}}\n'
              "rows:\n  - id: K_SW128\n    swizzle: 128B\n    major: {major}\n    printed_shape: {shape}\n"
              "    leading_u128: 8\n    strided_elems: 8\n")


@example("lint.schema_unknown_key")
def _lint_unknown_key() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8x8") + "    colour: red\n", "SPEC-SCHEMA")


@example("lint.schema_missing_key")
def _lint_missing_key() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8x8").replace("    leading_u128: 8\n", ""),
                   "SPEC-SCHEMA")


@example("lint.schema_not_one_of")
def _lint_not_one_of() -> str:
    return _linted(_LINT_ATOM.format(major="KM", shape="8x8"), "SPEC-SCHEMA")


@example("lint.schema_wrong_type")
def _lint_wrong_type() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8"), "SPEC-SCHEMA")


@example("lint.convert_unknown_key")
def _lint_convert_key() -> str:
    from ptxconf.oracle import records
    from ptxconf.oracle.lint.schema import SchemaError, convert

    return _raised(lambda: convert({"anchor": "a", "zz": 1}, records.Cite, "cite"), SchemaError)


@example("lint.ids_no_string_id")
def _lint_ids_none() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: 7, width_bits: 16, kind: float}\n", "SPEC-ID")


@example("lint.ids_characters")
def _lint_ids_chars() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16!, width_bits: 16, kind: float}\n", "SPEC-ID")


@example("lint.ids_duplicate_in_a_file")
def _lint_ids_duplicate() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f8, width_bits: 8}\n  - {id: f8, width_bits: 8}\n", "SPEC-ID")


@example("lint.ids_disagree_with_the_fields")
def _lint_ids_disagree() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8x8").replace("id: K_SW128", "id: MN_SW128"), "SPEC-ID")


# --- oracle/lint/quote.py: SPEC-QUOTE ------------------------------------------------------------

@example("quote.field_contradicts_its_quote")
def _quote_contradicted() -> str:
    from ptxconf.oracle.lint.quote import QuoteRule

    return _lint_first(QuoteRule().check, f"kind: descriptor_field\nsource: {_LINT_SOURCE}\n"
                       "rows:\n  - {id: leading_byte_offset, cite: {anchor: \"table, bits 29-16\"}, "
                       "lsb_bits: 32, width_bits: 14, encode_shift_bits: 4}\n")


@example("quote.tables_disagree")
def _quote_tables_disagree() -> str:
    from scratch_spec import descriptor_field_replaced

    from ptxconf.oracle.lint.quote import table_errors

    spec = descriptor_field_replaced("leading_byte_offset", "cute/gmma_descriptor", encode_shift_bits=5)
    return table_errors("spec", spec.rows)[0].message


@example("quote.unquoted_value_contradicts_the_other_table")
def _quote_other_table() -> str:
    """Both tables' layout-type codes swapped alike: the PTX table's row, which quotes no codes,
    against CUTLASS's quote."""
    from scratch_spec import replaced_row

    from ptxconf.oracle.lint.quote import table_errors
    from ptxconf.oracle.spec import default_spec

    swapped = {"none": 0, "128B": 3, "64B": 2, "32B": 1}
    spec = replaced_row(default_spec(), "wgmma/matrix_descriptor:layout_type", codes=swapped)
    spec = replaced_row(spec, "cute/gmma_descriptor:layout_type", codes=swapped)
    return table_errors("spec", spec.rows)[0].message
