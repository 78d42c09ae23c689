"""The spec lint rule SPEC-ID within a file (oracle/lint/ids.py): every row has a string id of
letters, digits, '_', '.', '-', unique in its file, and, where the kind derives its ids from the
row's fields, the id the fields give (across files: test_lint_refs.py).

Every expected line is counted by hand in the YAML snippet under test (1-based); each report is
asserted by its line and rule and the values its message names (the wording: messages_oracle_lint.py's
lint.*).
"""

from __future__ import annotations

from pathlib import Path

from case_outcomes import expect_spec_errors
from scratch_spec import lint_text

from ptxconf.oracle.lint.base import RawDocument, RawRow
from ptxconf.oracle.lint.ids import IdRule

SOURCE = 'source: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}\n'
ID_CHARS = "letters, digits, '_', '.', '-'"


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
    path = tmp_path / "s.yaml"
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-ID"),
                       (path, 4, "SPEC-ID", ("(got None)",)),
                       (path, 5, "SPEC-ID", ("(got 7)",)),
                       (path, 6, "SPEC-ID", ("(got '')",)),
                       (path, 8, "SPEC-ID", ("'f16!'", ID_CHARS)),
                       (path, 12, "SPEC-ID", ("'f8'", "line 10")))


def test_id_that_disagrees_with_its_fields(tmp_path: Path) -> None:
    text = ("kind: swizzle_atom\n" + SOURCE + "rows:\n"
            "  - swizzle: 128B\n"            # 4
            "    id: MN_SW128\n"             # 5
            "    major: K\n"
            "    printed_shape: 8x8\n"
            "    leading_u128: 8\n"
            "    strided_elems: 8\n")
    expect_spec_errors(lint_text(tmp_path, text, "SPEC-ID"),
                       (tmp_path / "s.yaml", 5, "SPEC-ID", ("'MN_SW128'", "'K_SW128'")))


def test_id_rule_alone_on_a_hand_made_document() -> None:
    rows = [RawRow({"id": 3}, 4), RawRow({"id": "a b"}, 5, {"id": 6})]
    doc = RawDocument("h.yaml", "h.yaml", {"kind": "element_type"}, {}, rows)
    expect_spec_errors(IdRule().check(doc), ("h.yaml", 4, "SPEC-ID", ("(got 3)",)),
                       ("h.yaml", 6, "SPEC-ID", ("'a b'", ID_CHARS)))


def test_id_rule_alone_converts_the_row_itself() -> None:
    # no SPEC-SCHEMA ran before it, so the row's values are not converted yet: the id rule
    # converts them (and keeps them) to recompute the id. wgmma/swizzle_atoms.yaml's K_SW128
    # row with the id of the MN-major atom:
    data = {"id": "MN_SW128", "swizzle": "128B", "major": "K", "printed_shape": "8x8",
            "leading_u128": 8, "strided_elems": 8}
    row = RawRow(data, 4, {"id": 5})
    doc = RawDocument("h.yaml", "h.yaml", {"kind": "swizzle_atom"}, {}, [row])
    expect_spec_errors(IdRule().check(doc), ("h.yaml", 5, "SPEC-ID", ("'MN_SW128'", "'K_SW128'")))
    assert row.built == data  # every value already of its field's type
