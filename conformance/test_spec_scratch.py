"""Scratch spec directories: the spec alone decides what is checked, and `spec validate`
catches what would otherwise surface late (duplicate ids across files, dangling references).

Each test copies the bundled spec into tmp_path, edits YAML only, and asks the real entry points.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ptxconf.cli import main
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A copy of the bundled spec to edit."""
    root = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, root, ignore=shutil.ignore_patterns("*.md"))
    return root


def _edit(path: Path, old: str, new: str, count: int = 1) -> int:
    """Replace `old` by `new` in a spec file; the line number of the first replacement."""
    text = path.read_text()
    assert text.count(old) >= count, f"{old!r} not in {path}"
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, count))
    return line


def _validate(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, list[str]]:
    code = main(["spec", "validate", "--spec-dir", str(root)])
    return code, capsys.readouterr().err.strip().splitlines()


def test_duplicate_id_across_files_is_reported(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    extra = scratch / "wgmma" / "more_element_types.yaml"
    src = (scratch / "wgmma" / "element_types.yaml").read_text()
    head = src[: src.index("rows:")]
    extra.write_text(head + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n")
    code, err = _validate(capsys, scratch)
    assert code == 2
    assert len(err) == 1, err
    assert re.match(rf"{re.escape(str(extra))}:\d+: SPEC-ID - duplicate element_type id 'f16'", err[0])
    assert "wgmma/element_types.yaml" in err[0]


def test_dangling_reference_is_reported_at_its_row(scratch: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = scratch / "wgmma" / "instruction_types.yaml"
    line = _edit(target, "fragment_d: k16.D.f32}", "fragment_d: k16.D.f33}")
    code, err = _validate(capsys, scratch)
    assert code == 2
    assert err == [f"{target}:{line}: SPEC-REF - row 'k16.f32.f16.f16': fragment_d 'k16.D.f33' "
                   "names no register_fragment row"]


def test_dangling_element_type_in_a_list_is_reported(scratch: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    target = scratch / "wmma" / "default_strides.yaml"
    _edit(target, "types: [tf32]", "types: [tf33]")
    code, err = _validate(capsys, scratch)
    assert code == 2 and len(err) == 1 and "SPEC-REF" in err[0] and "'tf33'" in err[0], err


def test_validate_json_lists_problems_as_objects(scratch: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target = scratch / "wgmma" / "instruction_types.yaml"
    line = _edit(target, "fragment_d: k16.D.f32}", "fragment_d: nowhere}")
    code = main(["spec", "validate", "--spec-dir", str(scratch), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["ok"] is False
    assert out["problems"] == [{"path": str(target), "line": line, "rule": "SPEC-REF",
                                "message": "row 'k16.f32.f16.f16': fragment_d 'nowhere' names no "
                                           "register_fragment row"}]


def test_validate_json_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "validate", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["problems"] == [] and out["rows"] > 0


def _nvrtc_problem() -> str | None:
    from ptxconf.gpu import build

    return build.nvrtc_problem() or build.include_problem()


needs_nvrtc = pytest.mark.skipif(_nvrtc_problem() is not None, reason=str(_nvrtc_problem()))


@needs_nvrtc
def test_made_up_wmma_shape_is_rejected_at_its_row(scratch: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = scratch / "wmma" / "default_strides.yaml"
    line = _edit(target, "{id: m16n16k8, m_elems: 16, n_elems: 16, k_elems: 8,",
                 "{id: m16n16k4, m_elems: 16, n_elems: 16, k_elems: 4,")
    code, err = _validate(capsys, scratch)
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith(f"{target}:{line}: SPEC-ASSEMBLER - row 'm16n16k4': ")
    assert "m16n16k4 .tf32" in err[0]


@needs_nvrtc
def test_instruction_row_the_assembler_rejects(scratch: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    target = scratch / "wgmma" / "instruction_types.yaml"
    text = target.read_text()
    row = next(ln for ln in text.splitlines() if "id: k16.f32.f16.f16," in ln)
    mixed = row.replace("k16.f32.f16.f16", "k16.f32.f16.bf16").replace("btype: f16", "btype: bf16")
    target.write_text(text.replace(row, row + "\n" + mixed))
    line = target.read_text().splitlines().index(mixed) + 1
    code, err = _validate(capsys, scratch)
    assert code == 2, err
    assert any(e.startswith(f"{target}:{line}: SPEC-ASSEMBLER - row 'k16.f32.f16.bf16': the "
                            "assembler (sm_90a) rejects wgmma.mma_async") for e in err), err
