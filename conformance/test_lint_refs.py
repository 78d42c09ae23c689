"""The spec lint rules across files (oracle/lint/refs.py): SPEC-ID, an id is unique within its kind
across files (within one file is SPEC-ID of the file's own lint); SPEC-REF, a named row exists.

Expected values come from the rule's documented semantics (its module's and functions'
docstrings), the `path:line: RULE - message` format (oracle/lint/base.py) and hand-made YAML
snippets whose lines are counted by hand; each error is asserted by its path, line and rule and
the values its message names (the wording: messages_oracle_lint.py's lint.*)."""

from __future__ import annotations

from case_outcomes import expect_spec_errors

from ptxconf.oracle import records
from ptxconf.oracle.lint.refs import cross_file_errors

# --- cross-file SPEC-ID and SPEC-REF --------------------------------------------------------


def test_a_duplicate_id_within_one_file_is_not_a_cross_file_error() -> None:
    rows = [records.ElementType("f16", file="a.yaml", line=4, width_bits=16),
            records.ElementType("f16", file="a.yaml", line=5, width_bits=16)]
    assert cross_file_errors("spec", rows) == []
    other = [*rows, records.ElementType("f16", file="b.yaml", line=9, width_bits=16)]
    expect_spec_errors(cross_file_errors("spec", other), ("spec/b.yaml", 9, "SPEC-ID", (
        "element_type", "'f16'", "a.yaml:4")))


def test_a_reference_to_a_kind_with_no_rows_at_all_is_reported() -> None:
    rows = [records.WorkedExample("ex", file="w.yaml", line=3, dtype="f16")]
    expect_spec_errors(cross_file_errors("spec", rows), ("spec/w.yaml", 3, "SPEC-REF", (
        "row 'ex':", "dtype 'f16'", "element_type")))


def test_references_to_rows_that_exist_are_not_reported() -> None:
    rows = [records.ElementType("f16", file="types.yaml", line=4, width_bits=16),
            records.ElementType("bf16", file="types.yaml", line=5, width_bits=16),
            records.RegisterFragment("A.k16", file="frags.yaml", line=3, types=("f16", "bf16")),
            records.WorkedExample("ex", file="w.yaml", line=3, dtype="bf16")]
    assert cross_file_errors("spec", rows) == []


def test_each_name_of_a_tuple_reference_is_checked() -> None:
    rows = [records.ElementType("f16", file="types.yaml", line=4, width_bits=16),
            records.RegisterFragment("A.k16", file="frags.yaml", line=3, types=("f16", "e4m3"))]
    expect_spec_errors(cross_file_errors("spec", rows), ("spec/frags.yaml", 3, "SPEC-REF", (
        "row 'A.k16':", "types 'e4m3'", "element_type")))


def test_file_scoped_ids_may_repeat_and_do_not_stop_the_duplicate_check() -> None:
    """Descriptor fields are looked up per file: the same field in two files is no duplicate,
    and the rows after them are still checked."""
    rows = [records.DescriptorField("lbo", file="ptx.yaml", line=3),
            records.DescriptorField("lbo", file="cutlass.yaml", line=3),
            records.ElementType("f16", file="a.yaml", line=4),
            records.ElementType("f32", file="b.yaml", line=4),
            records.ElementType("f16", file="b.yaml", line=5)]
    expect_spec_errors(cross_file_errors("spec", rows), ("spec/b.yaml", 5, "SPEC-ID", (
        "element_type", "'f16'", "a.yaml:4")))
