"""The command-line contract: names, JSON keys, one-line errors, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ptxconf.app.cli import main
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR

FIXTURES = Path(__file__).parent / "fixtures" / "lint"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_spec_validate_ok(capsys) -> None:
    code, out, _ = run(capsys, "spec", "validate")
    assert code == 0
    assert "no problems" in out


def test_spec_validate_reports_each_problem_on_one_line(capsys, tmp_path: Path) -> None:
    spec_dir = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, spec_dir)
    target = spec_dir / "wgmma" / "smem_alignment.yaml"
    target.write_text(target.read_text().replace("alignment_bytes: 16", "alignment_bits: 128"))
    code, _, err = run(capsys, "spec", "validate", "--spec-dir", str(spec_dir))
    assert code == 2
    lines = err.strip().splitlines()
    assert lines
    assert all(": SPEC-" in line and " - " in line for line in lines)
    assert any(line.startswith(f"{target}:") and "SPEC-UNITS" in line for line in lines)
    assert "Traceback" not in err


def test_spec_list_json(capsys) -> None:
    code, out, _ = run(capsys, "spec", "list", "--json")
    rows = json.loads(out)
    assert code == 0
    assert {tuple(sorted(r)) for r in rows} == {("file", "id", "kind")}
    assert {"id": "K_SW128", "file": "wgmma/swizzle_atoms.yaml", "kind": "swizzle_atom"} in rows


def test_smem_offsets_json(capsys) -> None:
    code, out, _ = run(capsys, "oracle", "smem-offsets", "--dtype", "bf16", "--major", "MN",
                       "--swizzle", "64B", "--mn", "64", "--k", "16", "--lbo", "512",
                       "--sbo", "1024", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["units"] == "bytes"
    assert data["mn"] == 64
    assert data["k"] == 16
    assert len(data["offsets"]) == 64
    assert all(len(r) == 16 for r in data["offsets"])
    flat = [o for r in data["offsets"] for o in r]
    assert len(set(flat)) == len(flat)


def test_descriptor_encode_decode_json(capsys) -> None:
    code, out, _ = run(capsys, "oracle", "descriptor", "encode", "--start-address", "0x400",
                       "--lbo", "16", "--sbo", "1024", "--swizzle", "128B", "--json")
    enc = json.loads(out)
    assert code == 0
    assert set(enc) >= {"value", "fields"}
    assert enc["value"].startswith("0x")
    code, out, _ = run(capsys, "oracle", "descriptor", "decode", enc["value"], "--json")
    dec = json.loads(out)
    assert dec["fields"]["start_address_bytes"] == 0x400
    assert dec["fields"]["swizzle"] == "128B"
    assert dec["fields"]["sbo_bytes"] == 1024
    assert dec["value"] == enc["value"]


@pytest.mark.parametrize("argv", [
    ["oracle", "descriptor", "encode", "--start-address", "0", "--lbo", "24", "--sbo", "0",
     "--swizzle", "none"],
    ["oracle", "smem-offsets", "--dtype", "f16", "--major", "K", "--swizzle", "128B", "--mn", "8",
     "--k", "12", "--lbo", "16", "--sbo", "1024"],
])
def test_bad_values_give_one_line_and_exit_2(capsys, argv: list[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("ptxconf: error: ")


def test_bad_arguments_give_one_line_with_a_usage_hint_and_exit_2(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["oracle", "descriptor", "encode", "--swizzle", "16B"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.count("\n") == 1
    assert err.startswith("ptxconf oracle descriptor encode: error: ")
    assert err.rstrip().endswith("(see ptxconf oracle descriptor encode --help)")


def test_only_that_matches_nothing_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--gpu", "off", "--only", "zzz-no-such-case"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "matches no case id" in err[0]


def _main_job(report: Path, *only: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`check --gpu off` in a process of its own (as a user runs it): the process and its
    results.json."""
    proc = subprocess.run([sys.executable, "-m", "ptxconf.app.cli", "check", "--gpu", "off",
                           *(["--only", *only] if only else []), "--report-dir", str(report)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert (report / "junit.xml").is_file()
    assert (report / "report.html").is_file()
    data = json.loads((report / "results.json").read_text())
    assert data["schema_version"] == 2
    assert data["summary"]["fail"] == 0
    from ptxconf.app.providers import REGISTRY

    gpu_providers = {p.name for p in REGISTRY if p.gpu}
    gpu = [r for r in data["results"] if r["provider"] in gpu_providers]
    assert len(gpu_providers) > 1
    assert {r["provider"] for r in gpu} == gpu_providers
    assert {(r["status"], r["code"], r["message"]) for r in gpu} == {
        ("skip", "dependency_missing", "not asked for (--gpu off)")}
    return proc, data


def test_check_gpu_off_end_to_end_on_a_figures_cases(tmp_path: Path) -> None:
    """The main job in a process of its own, on Figure 167's cases (its overlap is a known
    finding, proved and checked): exit 0, the finding named, the report set written, each GPU
    provider one skip row."""
    proc, data = _main_job(tmp_path, "fig167")
    assert "spec discrepancies" in proc.stdout
    assert "fig167" in proc.stdout
    assert {r["provider"] for r in data["results"]} >= {"self-consistency", "proofs"}
    assert all("fig167" in r["id"] for r in data["results"] if r["status"] != "skip")


@pytest.mark.slow  # test_check_gpu_off_end_to_end_on_a_figures_cases runs the same job on
# Figure 167's cases by default, and test_cases.py every CPU case in-process
def test_check_gpu_off_end_to_end(tmp_path: Path) -> None:
    """The whole main job cold: every CPU provider, no failure."""
    proc, data = _main_job(tmp_path)
    assert "spec discrepancies" in proc.stdout
    assert "fig167" in proc.stdout
    providers = {r["provider"] for r in data["results"]}
    assert {"spec-lint", "self-consistency", "proofs", "assembler-witness"} <= providers


def test_the_parser_built_once_a_process_parses_each_command_line_afresh() -> None:
    """The argument parser is built once a process (cli_parser.build_parser), and a parse leaves
    nothing behind: a repeatable option starts empty in the next command line."""
    from ptxconf.app.cli_parser import build_parser

    assert build_parser() is build_parser()
    first = build_parser().parse_args(["report", "merge", "a", "-o", "o", "--expect", "x.yaml"])
    second = build_parser().parse_args(["report", "merge", "a", "-o", "o"])
    assert [str(p) for p in first.expect] == ["x.yaml"]
    assert second.expect == []
