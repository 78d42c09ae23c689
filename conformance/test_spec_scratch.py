"""Scratch spec directories: the spec alone decides what is checked, and `spec validate`
catches what would otherwise surface late (duplicate ids across files, dangling references).

Each test copies the bundled spec into tmp_path, edits YAML only, and asks the real entry points.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from scratch_spec import copy_spec

from ptxconf.app.cli import main


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A copy of the bundled spec to edit."""
    return copy_spec(tmp_path / "spec")


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
    head = re.sub(r"row_count: \d+", "row_count: 1", src[: src.index("rows:")])
    extra.write_text(head + "rows:\n  - {id: f16, width_bits: 16, kind: float}\n")
    code, err = _validate(capsys, scratch)
    assert code == 2
    assert len(err) == 1, err
    assert re.match(rf"{re.escape(str(extra))}:\d+: SPEC-ID - duplicate element_type id 'f16'", err[0])
    assert "wgmma/element_types.yaml" in err[0]


def test_a_deleted_row_is_reported_at_its_files_pin(scratch: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A row nothing references, deleted: the file's source.row_count still counts it."""
    target = scratch / "cute" / "mode_statements.yaml"
    text = target.read_text()
    first = text.index("\n  - ", text.index("\nrows:"))
    target.write_text(text[:first] + text[text.index("\n  - ", first + 1):])
    line = _edit(target, "row_count: 16", "row_count: 16")
    code, err = _validate(capsys, scratch)
    assert code == 2
    assert err == [f"{target}:{line}: SPEC-ROWS - source.row_count pins 16 rows (the source's "
                   "table); the file has 15: a row was lost. Restore it, or lower the pin where "
                   "the source itself dropped it"]


def test_an_added_row_raises_the_pin(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Adding a spec entry: the row, and the pin raised with it; a scratch spec that adds a row
    without the pin still loads (the bundled spec holds exactly its pins: test_spec_audit)."""
    target = scratch / "wgmma" / "smem_alignment.yaml"
    row = next(ln for ln in target.read_text().splitlines() if ln.startswith("  - "))
    target.write_text(target.read_text() + row.replace("{id: ", "{id: again_") + "\n")
    assert _validate(capsys, scratch)[0] == 0
    _edit(target, "row_count: 1", "row_count: 2")
    assert _validate(capsys, scratch)[0] == 0
    _edit(target, "row_count: 2", "row_count: 3")
    code, err = _validate(capsys, scratch)
    assert code == 2
    assert len(err) == 1
    assert "SPEC-ROWS - source.row_count pins 3 rows" in err[0]


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
    assert code == 2, err
    assert len(err) == 1, err
    assert "SPEC-REF" in err[0], err
    assert "'tf33'" in err[0], err


def test_validate_json_lists_problems_as_objects(scratch: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target = scratch / "wgmma" / "instruction_types.yaml"
    line = _edit(target, "fragment_d: k16.D.f32}", "fragment_d: nowhere}")
    code = main(["spec", "validate", "--spec-dir", str(scratch), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2
    assert out["ok"] is False
    assert out["problems"] == [{"path": str(target), "line": line, "rule": "SPEC-REF",
                                "message": "row 'k16.f32.f16.f16': fragment_d 'nowhere' names no "
                                           "register_fragment row"}]


def test_validate_json_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "validate", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True
    assert out["problems"] == []
    assert out["rows"] > 0


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
    _edit(target, "printed_shape: 16x16x8,", "printed_shape: 16x16x4,")
    code, err = _validate(capsys, scratch)
    assert code == 2, err
    # the row's default strides (8) no longer fit k = 4 either: check's case says so first
    assert [e.split(" - ")[0] for e in err] == [f"{target}:{line}: SPEC-CHECK",
                                                f"{target}:{line}: SPEC-ASSEMBLER"], err
    assert "wmma.default_stride[wmma/default_strides:m16n16k4]" in err[0]
    assert err[1].startswith(f"{target}:{line}: SPEC-ASSEMBLER - row 'm16n16k4': ")
    assert "m16n16k4 .tf32" in err[1]


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


# --- new shapes and types from YAML alone --------------------------------------------------


def _load_yaml(path: Path) -> Any:
    """A spec file's value as yaml.safe_load gives it, parsed by libyaml where PyYAML has it
    (the pure-Python parser took about 2 s of each test that edits every file)."""
    import yaml

    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _dump_yaml(path: Path, data: Any) -> None:
    """Write `data` to a spec file as yaml.safe_dump does (libyaml's emitter where there is one)."""
    import yaml

    path.write_text(yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                              sort_keys=False))


def _without(root: Path, value: str) -> None:
    """Remove a type or shape from a spec tree by editing YAML only: rows whose id or any field
    names `value` go, and `value` leaves every list field; each file's pin (source.row_count)
    follows its rows, as a spec author's would. The files are the tree's spec files (`spec_files`:
    its findings.yaml, which holds no rows, is left as it is)."""
    from ptxconf.oracle.spec import spec_files

    for path in spec_files(root):
        data = _load_yaml(path)
        rows = []
        for row in data.get("rows", []):
            named = [v for k, v in row.items() if isinstance(v, str) and (v == value or (
                k == "id" and value in v.split(".")))]
            if named:
                continue
            rows.append({k: [x for x in v if x != value] if isinstance(v, list) else v
                         for k, v in row.items()})
        data["rows"] = rows
        data["source"]["row_count"] = len(rows)
        _dump_yaml(path, data)


def _ids(root: Path | None) -> dict[str, frozenset[str]]:
    """Case ids per provider for a spec tree (the bundled one for None: `_bundled_ids`)."""
    from ptxconf.app.providers import REGISTRY
    from ptxconf.core.context import RunContext
    from ptxconf.oracle.spec import load_spec

    spec = load_spec(root)
    out: dict[str, set[str]] = {}
    for prov in REGISTRY:
        listed = prov.case_ids(spec)
        if listed is None:
            if prov.problem() is not None:
                continue
            listed = [c.id for c in prov.load(spec, RunContext(gpu="off"))]
        out.setdefault("gpu" if prov.gpu else prov.name, set()).update(listed)
    return {prov: frozenset(ids) for prov, ids in out.items()}


@functools.cache
def _bundled_ids() -> dict[str, frozenset[str]]:
    """`_ids(None)`, listed once a process (the bundled spec does not change within a run)."""
    return _ids(None)


def _gained(scratch: Path, *, strict: bool = True) -> dict[str, set[str]]:
    """Case ids the bundled spec has over the scratch tree; with `strict`, it loses none."""
    before, after = _ids(scratch), _bundled_ids()
    for prov in before:
        lost = before[prov] - after[prov]
        assert not strict or not lost, f"{prov}: ids lost: {sorted(lost)[:5]}"
    return {prov: after[prov] - before.get(prov, set()) for prov in after}


def test_a_new_element_type_from_yaml_alone(scratch: Path) -> None:
    """e5m2 (its element row, its instruction rows, its place in fragment type lists) is
    the 'new' type: the bundled spec gains its cases over a tree without it, in every
    provider that reads instruction rows, with no Python change."""
    _without(scratch, "e5m2")
    gained = _gained(scratch)
    for prov in ("self-consistency", "assembler-witness", "gpu"):
        named = {i for i in gained.get(prov, set()) if "e5m2" in i}
        assert named, f"{prov}: no case names e5m2 ({sorted(gained.get(prov, set()))[:5]})"
    assert any("wgmma.mma_async.sync.aligned.m64n" in i and ".e5m2" in i
               for i in gained["gpu"]), "no GPU end-to-end case for the new type"


def test_a_new_wmma_shape_from_yaml_alone(scratch: Path) -> None:
    _without(scratch, "m32n8k16")
    gained = _gained(scratch)
    assert any("m32n8k16" in i for i in gained["self-consistency"]), gained["self-consistency"]
    assert any(i.startswith("gpu.wmma.load[") and "m32n8k16" in i for i in gained["gpu"])
    assert any(i.startswith("gpu.wmma.store[") and "m32n8k16" in i for i in gained["gpu"])


def test_a_new_n_range_from_yaml_alone(scratch: Path) -> None:
    """The f32-accumulator k16 fragment with its valid N cut to 8..128: the bundled range
    (to 256) is the 'new' one and gains its largest-N cases."""
    path = scratch / "wgmma" / "register_fragments.yaml"
    data = _load_yaml(path)
    row = next(r for r in data["rows"] if r["id"] == "k16.D.f32")
    row["valid_n"] = [{"step_elems": 8, "i_min": 1, "i_max": 16}]
    _dump_yaml(path, data)
    gained = _gained(scratch, strict=False)  # the middle N of the range moves with it
    assert any("m64n256k16.f32.f16.f16" in i for i in gained["gpu"]), sorted(gained["gpu"])[:5]


# --- ldmatrix / stmatrix: a .num and a shape from YAML alone -------------------------------


def test_a_new_num_of_ldmatrix_and_stmatrix_from_yaml_alone(scratch: Path) -> None:
    """.x2 (its .num rows, its place in the shapes' .num lists) is the 'new' count: the bundled
    spec gains its forms' cases and proofs, .x2 and .x2.trans, over a tree without it, and their
    probe kernels and GPU cases (scattered rows and each swizzled tile): no Python change."""
    from ptxconf.gpu.ldmatrix import variants
    from ptxconf.oracle.spec import default_spec, load_spec

    _without(scratch, "x2")
    gained = _gained(scratch)
    forms = {f"{i}.m8n8.x2{t}.b16" for i in ("ldmatrix", "stmatrix") for t in ("", ".trans")}
    kernels = {v.name for v in variants(default_spec())} - {v.name for v in variants(load_spec(scratch))}
    assert kernels == forms
    gpu = gained["gpu"]
    assert {i.split("[", 1)[0] + "." + i.split("[", 1)[1].split(":")[0].rstrip("]") for i in gpu} == {
        f"gpu.{f}" for f in forms}
    assert {f"gpu.{i}[m8n8.x2{t}.b16]" for i in ("ldmatrix", "stmatrix") for t in ("", ".trans")} <= gpu
    assert {"gpu.ldmatrix[m8n8.x2.b16:K_SW128]", "gpu.stmatrix[m8n8.x2.trans.b16:MN_SW32]"} <= gpu
    assert len(gpu) == 4 * 4, sorted(gpu)
    assert {i.split(":", 1)[1][:-1] for i in gained["self-consistency"]
            if i.startswith("warp.form[")} == forms
    assert {"warp.addresses[warp/ldmatrix_addresses:ldmatrix.x2]",
            "warp.addresses[warp/stmatrix_addresses:stmatrix.x2]"} <= gained["self-consistency"]
    if "proofs" in gained:  # z3 is here: the proofs list their claims
        names = sorted(i.split("[", 1)[0] for i in gained["proofs"])
        assert names == ["proof.warp_fragment_bijective"] * 4 + [
            "proof.warp_store_inverts_load"] * 2 + ["proof.warp_trans_transpose"] * 2


def test_a_new_ldmatrix_shape_from_yaml_alone(scratch: Path) -> None:
    """.m8n16 (sm_100a) gets its forms' maps, cases and proofs from one fragment row: "An entire
    row of the matrix can be loaded by a group of four consecutive and aligned threads. Each
    thread in a warp loads 4 consecutive columns" (16 8-bit elements a 16-byte row)."""
    from ptxconf.app.providers import REGISTRY
    from ptxconf.core.context import RunContext
    from ptxconf.oracle.spec import load_spec

    path = scratch / "warp" / "matrix_fragments.yaml"
    path.write_text(path.read_text() + (
        "  - id: ldmatrix.m8n16\n    threads_per_row: 4\n    row_bytes: 16\n"
        "    alignment_bytes: 16\n    trans_format: column-major\n"
        '    cite: {anchor: "9.7.14.5.15, Figure 106 (outside the seeds)", text: "a group of four '
        'consecutive and aligned threads", provenance: outside-seeds}\n'))
    scratch_ids, bundled_ids = _ids(scratch), _bundled_ids()
    gained = {p: ids for p, ids in ((p, scratch_ids[p] - bundled_ids[p]) for p in
                                      ("self-consistency", "proofs")) if ids}
    forms = {f"ldmatrix.m8n16.{n}.b8x16.{s}" for n in ("x1", "x2", "x4")
             for s in ("b6x16_p32", "b4x16_p64")}
    assert {i.split(":", 1)[1][:-1] for i in gained["self-consistency"]
            if i.startswith("warp.form[")} == forms
    assert "warp.fragment[warp/matrix_fragments:ldmatrix.m8n16]" in gained["self-consistency"]
    spec = load_spec(scratch)
    ran = [c.run() for p in REGISTRY if p.name in gained and p.problem() is None
           for c in p.load(spec, RunContext(gpu="off")) if c.id in gained[p.name]]
    assert len(ran) == len(gained["self-consistency"]) + len(gained.get("proofs", ()))
    assert [r.id for r in ran if r.status.value != "pass"] == []
