"""SPEC-QUOTE (oracle/lint/quote.py): a descriptor field's bit range and codes are what its
cite quotes, and the PTX ISA's and CUTLASS's descriptor tables agree, so that a consistent wrong
edit of both files (LBO and SBO swapped, two layout-type codes swapped) fails `spec validate`
and `check` at the edited lines. The wording: messages_oracle_lint.py's quote.*.

Expected values are read off the quotes by hand: "bits 29-16" is 14 bits from bit 16 (an
inclusive range, the most significant bit first); "bit [16,30)" the same (half-open, least
significant first); "_ : 14" a 14-bit field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from scratch_spec import copy_spec, raw_document, replace_once, replaced_row

from ptxconf.oracle.lint.quote import QuoteRule, quoted, table_errors
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, default_spec


@pytest.mark.parametrize(("text", "want"), [
    ("Matrix Descriptor Format table, bits 29-16 (outside the seeds)",
     {"lsb_bits": 16, "width_bits": 14}),
    ("table, bits 63-62", {"lsb_bits": 62, "width_bits": 2}),
    ("leading_byte_offset_ : 14, // bit [16,30)", {"lsb_bits": 16, "width_bits": 14}),
    ("base_offset_ : 3, // reserved", {"width_bits": 3}),
    ("a CUTLASS comment alone: bit [62,64)", {"lsb_bits": 62, "width_bits": 2}),
    ("layout_type_ : 2, // bit [62,64): INTERLEAVE 0, SWIZZLE_128B 1, SWIZZLE_64B 2, SWIZZLE_32B 3",
     {"lsb_bits": 62, "width_bits": 2, "codes": {"none": 0, "128B": 1, "64B": 2, "32B": 3}}),
    ("Figure 166: LBO = 64", {}),
])
def test_a_quote_states_the_range_width_and_codes_it_names(text: str, want: dict) -> None:
    assert quoted(text) == want


ROW = ('  - {{id: leading_byte_offset, cite: {{anchor: "{anchor}"}}, lsb_bits: {lsb}, '
       'width_bits: {width}, encode_shift_bits: 4}}\n')
HEAD = ('kind: descriptor_field\nsource: {document: x, ptx_isa_version: "9.0", anchor: a, '
        'section: "1", row_count: 1}\nrows:\n')


@pytest.mark.parametrize(("anchor", "lsb", "width", "wrong"), [
    ("table, bits 29-16", 16, 14, []),
    ("table, bits 29-16", 32, 14, ["lsb_bits"]),
    ("table, bits 29-16", 16, 13, ["width_bits"]),
    ("field_ : 14, // bit [16,30)", 17, 12, ["lsb_bits", "width_bits"]),
    ("a field with no range quoted", 40, 3, []),
])
def test_a_field_its_quote_contradicts_is_reported_at_its_line(
        tmp_path: Path, anchor: str, lsb: int, width: int, wrong: list[str]) -> None:
    doc = raw_document(tmp_path, HEAD + ROW.format(anchor=anchor, lsb=lsb, width=width))
    errors = QuoteRule().check(doc)
    assert [e.rule for e in errors] == ["SPEC-QUOTE"] * len(wrong)
    assert all(e.line == 4 for e in errors)
    for e, key in zip(errors, wrong, strict=True):
        assert e.message.startswith(f"row leading_byte_offset: {key} = "), e.message


@pytest.mark.parametrize("stray", ["note", "__NOT_A_MAPPING__", "not_a_mapping"])
def test_a_mapping_row_is_read_whatever_other_keys_it_has(tmp_path: Path, stray: str) -> None:
    # only a row that is not a mapping at all (the "- 5" after it) is passed over; a stray key
    # (SPEC-SCHEMA's to report) never hides a field its quote contradicts
    row = ROW.format(anchor="table, bits 29-16", lsb=32, width=14).replace(
        "{id: leading_byte_offset,", f"{{{stray}: 1, id: leading_byte_offset,")
    doc = raw_document(tmp_path, HEAD + row + "  - 5\n")
    errors = QuoteRule().check(doc)
    assert [(e.rule, e.line) for e in errors] == [("SPEC-QUOTE", 4)]
    assert errors[0].message.startswith("row leading_byte_offset: lsb_bits = "), errors[0].message


def test_other_kinds_are_not_read(tmp_path: Path) -> None:
    doc = raw_document(tmp_path, HEAD.replace("descriptor_field", "element_type")
                       + ROW.format(anchor="bits 29-16", lsb=3, width=3))
    assert QuoteRule().check(doc) == []


def test_the_bundled_tables_agree_with_their_quotes_and_each_other() -> None:
    spec = default_spec()
    assert table_errors("spec", spec.rows) == []


def test_a_field_the_tables_hold_differently_is_reported_at_both_rows() -> None:
    spec = replaced_row(default_spec(), "cute/gmma_descriptor:stride_byte_offset", encode_shift_bits=5)
    errors = table_errors("spec", spec.rows)
    assert [(e.path, e.rule) for e in errors] == [
        ("spec/wgmma/matrix_descriptor.yaml", "SPEC-QUOTE"), ("spec/cute/gmma_descriptor.yaml", "SPEC-QUOTE")]
    assert all("stride_byte_offset.encode_shift_bits: 4 in wgmma" in e.message for e in errors)


def test_a_disagreement_of_the_tables_is_reported_at_the_line_of_each_row() -> None:
    spec = replaced_row(default_spec(), "cute/gmma_descriptor:stride_byte_offset", width_bits=13)
    errors = table_errors("spec", spec.rows)
    lines = [_row_line(f, "stride_byte_offset") for f in ("wgmma/matrix_descriptor.yaml",
                                                          "cute/gmma_descriptor.yaml")]
    assert [(e.path, e.line, e.rule) for e in errors] == [
        ("spec/wgmma/matrix_descriptor.yaml", lines[0], "SPEC-QUOTE"),
        ("spec/cute/gmma_descriptor.yaml", lines[1], "SPEC-QUOTE")]


def _row_line(file: str, row_id: str) -> int:
    """The 1-based line of the row `{id: row_id, ...}` in the bundled spec's file."""
    text = (DEFAULT_SPEC_DIR / file).read_text().splitlines()
    (line,) = [i for i, ln in enumerate(text, 1) if f"{{id: {row_id}," in ln]
    return line


def test_codes_only_one_table_quotes_fix_the_others() -> None:
    swapped = {"none": 0, "128B": 3, "64B": 2, "32B": 1}
    spec = replaced_row(default_spec(), "wgmma/matrix_descriptor:layout_type", codes=swapped)
    spec = replaced_row(spec, "cute/gmma_descriptor:layout_type", codes=swapped)
    (error,) = table_errors("spec", spec.rows)
    assert error.path == "spec/wgmma/matrix_descriptor.yaml"
    assert "but cute/gmma_descriptor.yaml's row layout_type quotes codes = " in error.message


def _edited_tree(tmp_path: Path, edit: Callable[[str], str]) -> Path:
    root = copy_spec(tmp_path / "spec")
    for rel in ("wgmma/matrix_descriptor.yaml", "cute/gmma_descriptor.yaml"):
        path = root / rel
        path.write_text(edit(path.read_text()))
    return root


def _swap_lbo_sbo(text: str) -> str:
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if "id: leading_byte_offset," in line:
            lines[i] = line.replace("lsb_bits: 16,", "lsb_bits: 32,")
        elif "id: stride_byte_offset," in line:
            lines[i] = line.replace("lsb_bits: 32,", "lsb_bits: 16,")
    return "".join(lines)


@pytest.mark.parametrize(("name", "edit", "where"), [
    ("LBO and SBO bit positions swapped", _swap_lbo_sbo,
     [("cute/gmma_descriptor.yaml", "leading_byte_offset"), ("cute/gmma_descriptor.yaml", "stride_byte_offset"),
      ("wgmma/matrix_descriptor.yaml", "leading_byte_offset"),
      ("wgmma/matrix_descriptor.yaml", "stride_byte_offset")]),
    ("layout-type codes 128B and 32B swapped",
     lambda t: t.replace("128B: 1, 64B: 2, 32B: 3", "128B: 3, 64B: 2, 32B: 1"),
     [("cute/gmma_descriptor.yaml", "layout_type")]),
])
def test_a_consistent_wrong_edit_of_both_tables_fails_validate_and_check_at_its_lines(
        tmp_path: Path, cli: Callable[..., tuple[int, str, str]], name: str,
        edit: Callable[[str], str], where: list[tuple[str, str]]) -> None:
    root = _edited_tree(tmp_path, edit)
    for argv in (("spec", "validate"), ("check", "--gpu", "off", "--report-dir", str(tmp_path / "r"))):
        code, _, err = cli(*argv, "--spec-dir", str(root), spec_line=False)
        assert code == 2, (name, argv, err)
        lines = err.strip().splitlines()
        got = []
        for line in lines:
            path, lineno, rest = line.split(":", 2)
            assert rest.startswith(" SPEC-QUOTE - row "), line
            rel = Path(path).relative_to(root).as_posix()
            row = rest.split("row ", 1)[1].split(":", 1)[0]
            assert f"id: {row}," in (root / rel).read_text().splitlines()[int(lineno) - 1], line
            got.append((rel, row))
        assert got == where, (name, argv, lines)


def test_the_edit_alone_of_an_unquoted_value_is_caught_by_the_other_table(tmp_path: Path) -> None:
    root = copy_spec(tmp_path / "spec")
    replace_once(root / "wgmma/matrix_descriptor.yaml", "128B: 1, 64B: 2, 32B: 3", "128B: 3, 64B: 2, 32B: 1")
    from ptxconf.oracle.spec import SpecErrors, load_spec

    with pytest.raises(SpecErrors) as errs:
        load_spec(root)
    assert {(Path(e.path).name, e.rule) for e in errs.value.errors} == {
        ("matrix_descriptor.yaml", "SPEC-QUOTE"), ("gmma_descriptor.yaml", "SPEC-QUOTE")}
