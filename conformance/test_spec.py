"""The spec loader (oracle/spec.py): what it refuses in a tree and where, what it passes over, the
records it builds, `Spec`'s lookups and memo, `default_spec` and `spec_sha256`.

Expected values come from the loader's documented contract and from the spec files, read by hand:

* every problem is a `SpecError` printed `path:line: RULE - message` (oracle/lint/base.py), and
  `SpecErrors` prints them one a line (its docstring; the CLI prints each on stderr and exits 2).
  A problem of the whole tree (no directory, no YAML file, a kind with no rows) names the tree
  and line 0: no line of any file is at fault (lines are 1-based); a stray file is named itself,
  at its first line (as the parser's whole-file errors, SPEC-SIZE and SPEC-YAML "cannot read",
  are);
* a spec tree holds only *.yaml spec files and *.md notes; Python's `__pycache__` folders and
  hidden files (a `.gitignore`, an editor's swap file) are not part of it and are passed over;
* each row carries its file's `source` block (oracle/records.py: `Row.source`);
  spec/wgmma/element_types.yaml states `document: NVIDIA PTX ISA`, `ptx_isa_version: "9.0"`,
  `anchor: fundamental-types` and pins `row_count: 13`;
* `spec_sha256` hashes each YAML file's relative path and bytes, in sorted order (worked here
  with hashlib on a hand-made tree).

Scratch specs are the bundled spec copied to tmp_path with one thing changed, as in
test_spec_scratch.py; each test calls `load_spec` itself (never the process-wide `default_spec`,
which an earlier load may have filled).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from scratch_spec import copy_spec

from ptxconf.oracle import records
from ptxconf.oracle import spec as spec_mod
from ptxconf.oracle.lint import RawDocument, SpecError
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, Spec, SpecErrors, load_spec, spec_sha256

TYPES = "wgmma/element_types.yaml"


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A copy of the bundled spec to edit."""
    return copy_spec(tmp_path / "spec")


def _refused(root: Path) -> list[SpecError]:
    with pytest.raises(SpecErrors) as info:
        load_spec(root)
    return info.value.errors


def _where(errors: list[SpecError]) -> list[tuple[str, int, str]]:
    """Each problem's path, line and rule (the wording: messages_oracle.py's spec.*)."""
    return [(e.path, e.line, e.rule) for e in errors]


def _stray(error: SpecError) -> bool:
    """A stray file's problem: it says what belongs in a spec tree."""
    return "*.yaml" in error.message and "*.md" in error.message


# --- SpecErrors ---------------------------------------------------------------------------------


def test_spec_errors_print_one_problem_a_line() -> None:
    errs = SpecErrors([SpecError("spec/a.yaml", 3, "SPEC-ID", "duplicate id 'x'"),
                       SpecError("spec/b.yaml", 7, "SPEC-ROWS", "a row was lost")])
    assert str(errs) == "spec/a.yaml:3: SPEC-ID - duplicate id 'x'\nspec/b.yaml:7: SPEC-ROWS - a row was lost"


# --- the tree: missing, empty, stray files ------------------------------------------------------


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "nowhere"
    errors = _refused(root)
    assert _where(errors) == [(str(root), 0, "SPEC-SOURCE")]
    assert [str(e) for e in errors] == [f"{root}:0: SPEC-SOURCE - {errors[0].message}"]


def test_a_directory_without_yaml_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# notes only\n")
    errors = _refused(tmp_path)
    assert _where(errors) == [(str(tmp_path), 0, "SPEC-SOURCE")]
    assert "*.yaml" in errors[0].message
    assert [str(e) for e in errors] == [f"{tmp_path}:0: SPEC-SOURCE - {errors[0].message}"]


def test_each_stray_file_is_refused_at_its_first_line(scratch: Path) -> None:
    yml = scratch / "wgmma" / "base_offset.yml"
    (scratch / "wgmma" / "base_offset.yaml").rename(yml)
    txt = scratch / "cute" / "notes.txt"
    txt.write_text("a note that is not *.md\n")
    errors = _refused(scratch)
    assert _where(errors) == [(str(txt), 1, "SPEC-SOURCE"), (str(yml), 1, "SPEC-SOURCE")]
    assert all(_stray(e) for e in errors)
    assert errors[0].message == errors[1].message
    assert str(errors[0]) == f"{txt}:1: SPEC-SOURCE - {errors[0].message}"


def test_pycache_folders_and_hidden_files_are_passed_over(scratch: Path) -> None:
    cache = scratch / "wgmma" / "__pycache__"
    cache.mkdir()
    (cache / "helpers.cpython-312.pyc").write_bytes(b"\x00\x01")
    (scratch / ".gitignore").write_text("*.swp\n")
    (scratch / "cute" / ".mma_atoms.yaml.swp").write_bytes(b"\x00")
    spec = load_spec(scratch)
    assert len(spec.in_file(records.ElementType, TYPES)) == 13


def test_a_hidden_file_is_passed_over_but_a_dotted_name_is_not(scratch: Path) -> None:
    """Hidden means the name starts with a dot; a dot inside the name makes no file hidden."""
    stray = scratch / "wgmma" / "base_offset.yaml.bak"
    stray.write_text("kind: base_offset_rule\n")
    errors = _refused(scratch)
    assert _where(errors) == [(str(stray), 1, "SPEC-SOURCE")]
    assert _stray(errors[0])


def test_a_hidden_folder_is_passed_over_whole(scratch: Path) -> None:
    """A spec tree kept in its own git repository: nothing under .git/ (or another hidden
    folder, even a *.yaml copy there) is read, refused or hashed."""
    before = spec_sha256(load_spec(scratch))
    git = scratch / ".git"
    (git / "refs").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    old = scratch / ".old"
    old.mkdir()
    (old / "base_offset.yaml").write_bytes((scratch / "wgmma" / "base_offset.yaml").read_bytes())
    spec = load_spec(scratch)
    assert len(spec.in_file(records.ElementType, TYPES)) == 13
    assert spec_sha256(spec) == before


# --- what is missing or wrong in a tree that parses ---------------------------------------------


def test_a_missing_table_names_the_tree_and_its_kind(scratch: Path) -> None:
    (scratch / "wgmma" / "base_offset.yaml").unlink()   # kind: base_offset_rule, its only file
    errors = _refused(scratch)
    assert _where(errors) == [(str(scratch), 0, "SPEC-SOURCE")]
    assert "'base_offset_rule'" in errors[0].message


def test_a_row_that_breaks_the_schema_is_reported_not_built(scratch: Path) -> None:
    """A file with lint errors gives no records: a width that is not a number is a SPEC-SCHEMA
    problem of that file, not a crash while building its rows."""
    path = scratch / TYPES
    text = path.read_text()
    assert "  - id: f16\n    width_bits: 16\n" in text
    path.write_text(text.replace("  - id: f16\n    width_bits: 16\n",
                                 "  - id: f16\n    width_bits: sixteen\n", 1))
    errors = _refused(scratch)
    assert errors, "a bad width must be refused"
    assert {(e.path, e.rule) for e in errors} == {(str(path), "SPEC-SCHEMA")}
    assert any("width_bits" in e.message for e in errors)


# --- the records built ----------------------------------------------------------------------------


def test_each_row_carries_its_files_source_block() -> None:
    spec = load_spec(DEFAULT_SPEC_DIR)
    rows = spec.in_file(records.ElementType, TYPES)
    assert len(rows) == 13                                  # source.row_count: 13
    src = rows[0].source
    assert isinstance(src, records.Source)
    assert (src.document, src.ptx_isa_version, src.anchor, src.row_count) == (
        "NVIDIA PTX ISA", "9.0", "fundamental-types", 13)
    assert all(r.source == src for r in rows[1:])
    assert (rows[0].id, rows[0].file) == ("f16", TYPES)


def test_records_of_a_file_no_rule_has_read_yet(tmp_path: Path) -> None:
    # `_records` converts a row's values itself where no rule has (they are kept on the row)
    path = tmp_path / "t.yaml"
    path.write_text('kind: element_type\nsource: {document: NVIDIA PTX ISA, ptx_isa_version: "9.0", '
                    'anchor: fundamental-types, section: "5.2"}\nrows:\n'
                    '  - {id: f16, width_bits: 16, kind: float}\n')
    doc = RawDocument.parse(path, "t.yaml")
    (row,) = spec_mod._records(doc)
    assert (row.id, row.width_bits, row.kind, row.file, row.line) == ("f16", 16, "float", "t.yaml", 4)


def test_in_file_keeps_only_that_files_rows() -> None:
    spec = load_spec(DEFAULT_SPEC_DIR)
    rows = spec.in_file(records.ElementType, TYPES)
    assert len(rows) == 13
    assert {r.file for r in rows} == {TYPES}
    assert spec.in_file(records.ElementType, "wgmma/base_offset.yaml") == ()


# --- Spec: lookups and memo -----------------------------------------------------------------------


def test_get_names_the_kind_the_id_and_how_many_rows_it_found() -> None:
    spec = Spec(Path("scratch"), (records.ElementType(id="a", width_bits=8),
                                  records.ElementType(id="a", width_bits=16),
                                  records.ElementType(id="b", width_bits=4)))
    assert spec.get(records.ElementType, "b").width_bits == 4
    with pytest.raises(KeyError, match=r"element_type 'a': 2 rows"):
        spec.get(records.ElementType, "a")
    with pytest.raises(KeyError, match=r"element_type 'f99': 0 rows"):
        spec.get(records.ElementType, "f99")


def test_memo_keeps_one_value_per_key() -> None:
    spec = Spec(Path("scratch"), ())
    made: list[str] = []

    def make(tag: str) -> str:
        made.append(tag)
        return tag

    assert spec.memo(("offsets", 1), lambda: make("one")) == "one"
    assert spec.memo(("offsets", 2), lambda: make("two")) == "two"
    assert spec.memo(("offsets", 1), lambda: make("again")) == "one"
    assert made == ["one", "two"]


def test_a_case_key_points_at_its_row_its_file_or_the_first_file_of_its_kind() -> None:
    # a hand-made tree: a key `<file stem>:<id>` names a row (at its line), a stem alone or with
    # an id it lacks names the file (line 1), a kind's name the first file holding that kind
    # (line 1), anything else no file
    rows = (records.ElementType(id="f16", width_bits=16, file="wgmma/types.yaml", line=7),
            records.ElementType(id="s4", width_bits=4, file="wgmma/types.yaml", line=9),
            records.DescriptorField(id="lbo", file="cute/desc.yaml", line=4),
            records.DescriptorField(id="lbo", file="wgmma/desc.yaml", line=12))
    spec = Spec(Path("scratch"), rows)
    for key, where in [("wgmma/types:s4", ("wgmma/types.yaml", 9)),
                       ("wgmma/desc:lbo", ("wgmma/desc.yaml", 12)),
                       ("wgmma/types", ("wgmma/types.yaml", 1)),
                       ("wgmma/types:f99", ("wgmma/types.yaml", 1)),
                       ("descriptor_field:lbo.lsb_bits", ("cute/desc.yaml", 1)),
                       ("element_type", ("wgmma/types.yaml", 1)),
                       ("wmma/strides:m16n16k16", ("", 1))]:
        assert spec_mod.key_location(spec, key) == where, key


def test_iterating_a_spec_gives_its_rows_in_order() -> None:
    rows = (records.ElementType(id="b", width_bits=4), records.ElementType(id="a", width_bits=8))
    assert list(Spec(Path("scratch"), rows)) == list(rows)


# --- default_spec ---------------------------------------------------------------------------------


def test_default_spec_loads_the_bundled_spec_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec_mod, "_DEFAULT", None)
    first = spec_mod.default_spec()
    assert isinstance(first, Spec)
    assert Path(first.root) == DEFAULT_SPEC_DIR
    assert len(first.in_file(records.ElementType, TYPES)) == 13
    assert spec_mod.default_spec() is first


# --- spec_sha256 ----------------------------------------------------------------------------------


def test_spec_sha256_hashes_each_yaml_files_path_and_bytes_in_order(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.yaml").write_bytes(b"kind: b\n")
    (tmp_path / "sub" / "a.yaml").write_bytes(b"kind: a\n")
    (tmp_path / "notes.md").write_bytes(b"# not hashed\n")
    want = hashlib.sha256(b"b.yaml\0kind: b\n" + b"sub/a.yaml\0kind: a\n").hexdigest()
    assert spec_sha256(Spec(tmp_path, ())) == want
    assert spec_sha256(Spec(str(tmp_path), ())) == want     # a root given as text: the same tree
    (tmp_path / "sub" / "a.yaml").write_bytes(b"kind: A\n")
    assert spec_sha256(Spec(tmp_path, ())) != want


def test_a_file_loaded_before_is_not_parsed_again_and_an_edited_one_is(
        tmp_path: Path, linted: list[str]) -> None:
    """Each distinct file (relative path and bytes) is parsed and linted once a process: a tree
    loaded again parses nothing, one file edited parses that file alone, and the records are
    the ones a cold load makes."""
    root = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, root)
    load_spec(root)
    parsed = linted
    parsed.clear()
    again = load_spec(root)
    assert parsed == []
    edited = root / "wgmma" / "swizzle_atoms.yaml"
    edited.write_text(edited.read_text() + "# an edit that changes no row\n")
    after = load_spec(root)
    assert parsed == ["wgmma/swizzle_atoms.yaml"]
    spec_mod.forget_parsed_files()
    cold = load_spec(root)
    assert again.rows == after.rows == cold.rows
    assert len(parsed) == len(spec_mod.spec_files(root)) + 1


def test_a_tree_loaded_again_skips_the_whole_tree_rules_until_a_file_changes(
        scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cross-file, derived and table rules read only the records: a tree whose records passed
    them before (the same files, the same bytes) is not checked again, and a file edited makes
    the next load check the tree. A findings file is parsed once for its bytes: loaded again
    (here or from a copy) its findings are the same objects, edited it is parsed again."""
    checked: list[str] = []
    rule = spec_mod.cross_file_errors
    monkeypatch.setattr(spec_mod, "cross_file_errors",
                        lambda root, rows: checked.append(root) or rule(root, rows))
    first = load_spec(scratch)
    before = len(checked)
    again = load_spec(scratch)
    assert len(checked) == before
    assert again.rows == first.rows
    assert again.findings == first.findings
    assert again.findings.by_case is first.findings.by_case
    assert load_spec(DEFAULT_SPEC_DIR).findings.by_case is first.findings.by_case
    edited = scratch / TYPES
    edited.write_text(edited.read_text() + "# an edit that changes no row\n")
    findings = scratch / "findings.yaml"
    findings.write_text(findings.read_text() + "# an edit that changes no finding\n")
    after = load_spec(scratch)
    assert len(checked) == before + 1
    assert after.rows == first.rows
    assert after.findings.by_case is not first.findings.by_case
    assert after.findings == first.findings
