"""The spec loader accepts only what it understands: every silent acceptance once seen is now a
`path:line: RULE - message` and exit 2 from `spec validate` (and the same refusal from `check`)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from scratch_spec import copy_spec

from ptxconf.app.cli import main
from ptxconf.oracle.lint.base import MAX_DEPTH, MAX_FILE_BYTES

TYPES = Path("wgmma") / "element_types.yaml"


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return copy_spec(tmp_path / "spec")


def _refused(capsys: pytest.CaptureFixture[str], root: Path, rule: str, says: str) -> list[str]:
    for argv in (["spec", "validate", "--assembler", "off"], ["check", "--gpu", "off"]):
        code = main([*argv, "--spec-dir", str(root)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2, (argv, err)
        assert any(f": {rule} - " in e and says in e for e in err), (argv, err)
        assert all(": SPEC-" in e for e in err), err
    return err


def test_a_duplicate_key_is_refused(scratch: Path, capsys) -> None:
    path = scratch / TYPES
    text = path.read_text()
    path.write_text(text.replace("  - id: f16\n    width_bits: 16\n",
                                 "  - id: f16\n    width_bits: 99\n    width_bits: 16\n", 1))
    err = _refused(capsys, scratch, "SPEC-YAML", "duplicate key 'width_bits'")
    assert err[0].startswith(f"{path}:")


@pytest.mark.parametrize(("extra", "says"), [
    ("yes: 1\n", "expected a string key, got 'yes'"),
    ("~: 1\n", "expected a string key"),
    ("? [1, 2]\n: 3\n", "expected a string key, got 'a collection'"),
    ("a: &x [1, 2]\nb: *x\n", "anchors and aliases are not allowed"),
])
def test_keys_and_aliases(scratch: Path, capsys, extra: str, says: str) -> None:
    path = scratch / TYPES
    path.write_text(path.read_text() + extra)
    _refused(capsys, scratch, "SPEC-YAML", says)


def test_an_alias_bomb_is_refused_before_it_grows(scratch: Path, capsys) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}]\n" for i in range(9))
    path = scratch / TYPES
    path.write_text(path.read_text() + bomb)
    start = time.perf_counter()
    _refused(capsys, scratch, "SPEC-YAML", "anchors and aliases")
    assert time.perf_counter() - start < 30


def test_deep_nesting_and_size_are_bounded(scratch: Path, capsys) -> None:
    path = scratch / TYPES
    path.write_text(path.read_text() + "deep: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n")
    _refused(capsys, scratch, "SPEC-SIZE", f"nesting at most {MAX_DEPTH} deep")
    path.write_text("# " + "x" * MAX_FILE_BYTES + "\n")
    _refused(capsys, scratch, "SPEC-SIZE", f"at most {MAX_FILE_BYTES} bytes")


def test_a_file_not_named_yaml_is_refused(scratch: Path, capsys) -> None:
    src = scratch / "wgmma" / "base_offset.yaml"
    src.rename(src.with_suffix(".yml"))
    _refused(capsys, scratch, "SPEC-SOURCE", "only *.yaml spec files")


@pytest.mark.parametrize("gone", ["wmma", "cutedsl", "wgmma/base_offset.yaml"])
def test_a_spec_tree_missing_a_table_is_refused(scratch: Path, capsys, gone: str) -> None:
    target = scratch / gone
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    _refused(capsys, scratch, "SPEC-SOURCE", "no rows of kind")
