"""`spec validate` runs the self-consistency cases `check` runs on the spec alone
(app/spec_checks.py), so the two cannot disagree on a spec: a case `check` would fail is
`path:line: SPEC-CHECK - <case id>: <message>` at the row (or file) its key names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scratch_spec import copy_spec

from ptxconf.app.spec_checks import checks_stage, locate
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import default_spec, load_spec

Cli = Callable[..., tuple[int, str, str]]


def test_a_deleted_table_fails_validate_and_check_alike(tmp_path: Path, cli: Cli) -> None:
    """wgmma/stride_byte_offset.yaml removed: no SBO definitions are left (its rows share the
    kind byte_offset_definition with the LBO file, so no kind goes missing)."""
    root = copy_spec(tmp_path / "spec")
    (root / "wgmma/stride_byte_offset.yaml").unlink()
    code, _, err = cli("spec", "validate", "--spec-dir", str(root), "--assembler", "off",
                       spec_line=False)
    assert code == 2, err
    assert err.splitlines() == [
        f"{root}/wgmma/leading_byte_offset.yaml:1: SPEC-CHECK - "
        "offset_definition.coverage[byte_offset_definition:SBO]: SBO: each major-ness and swizzle "
        "mode needs exactly one definition; K/128B: none, K/32B: none, K/64B: none, K/none: none, "
        "MN/128B: none, MN/32B: none, MN/64B: none, MN/none: none"]
    code, _, err = cli("check", "--gpu", "off", "--only", "offset_definition.coverage",
                       "--spec-dir", str(root), "--report-dir", str(tmp_path / "r"), spec_line=False)
    assert code == 1, err
    code, _, err = cli("spec", "validate", "--spec-dir", str(root), "--assembler", "off",
                       "--checks", "off", spec_line=False)
    assert code == 0, err


def test_the_bundled_spec_passes_every_check() -> None:
    assert checks_stage(default_spec()) == []


def test_a_key_is_located_at_its_row_its_file_or_its_kind(tmp_path: Path) -> None:
    spec = load_spec(copy_spec(tmp_path / "spec"))
    row = spec.get(CanonicalLayout, "K_SW128")
    assert locate(spec, row.key) == (str(spec.root / row.file), row.line)
    assert row.line > 1
    assert locate(spec, "wgmma/canonical_layouts:*") == (str(spec.root / row.file), 1)
    path, line = locate(spec, "byte_offset_definition:SBO")
    assert (Path(path).name, line) == ("leading_byte_offset.yaml", 1)
    assert locate(spec, "nothing:here") == (str(spec.root), 1)
