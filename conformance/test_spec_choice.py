"""Which spec a command reads (ptxconf.oracle.locate, README "Which spec"): `--spec-dir`, else
`$PTXCONF_SPEC_DIR`, else the spec/ of the ptxconf checkout holding the current folder (the first
folder upwards with a pyproject.toml of the project `ptxconf` and a spec/ beside it), else the
bundled copy. Each command names what it used: `spec: <root> (<origin>, sha256 <12 hex>; N known
findings in <file>)` as its first line of text output, `"spec": {root, origin, sha256, findings}`
in its --json object. An edit to a checkout's spec/ is what the next command sees (no reinstall).

The fake checkouts here are folders of tmp_path (scratch_spec.fake_checkout); the commands run
in-process with the current folder moved into them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from scratch_spec import S143_CASE, S143_FIXED, copy_spec, fake_checkout, replace_once

from ptxconf.app.cli import main
from ptxconf.oracle.locate import BUNDLED_SPEC_DIR, SPEC_DIR_ENV, SpecChoice, choose_spec, project_checkout
from ptxconf.oracle.spec import load_spec, spec_sha256

Cli = Callable[..., tuple[int, str, str]]
SpecLine = Callable[[str], tuple[dict[str, str], str]]

#: A descriptor query (any spec answers it; spec/wgmma/matrix_descriptor.yaml).
ENCODE = ["oracle", "descriptor", "encode", "--start-address", "0", "--lbo", "16", "--sbo", "1024",
          "--swizzle", "128B"]
#: A CPU case that is a known finding of the bundled spec (scratch_spec.S143_FIXED: its fix).
S143 = S143_CASE


@pytest.fixture(autouse=True)
def _no_spec_dir_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment of the test run names no spec (each test sets it where it means to)."""
    monkeypatch.delenv(SPEC_DIR_ENV, raising=False)


def _known(findings: Path) -> int:
    """How many case ids a findings file lists (read here with plain YAML)."""
    return sum(len(entry["cases"]) for entry in yaml.safe_load(findings.read_text())["findings"])


def _expected_line(root: Path, origin: str) -> dict[str, str]:
    """The spec line's fields for a tree with its own findings file."""
    return {"root": str(root), "origin": origin, "sha256": spec_sha256(load_spec(root))[:12],
            "known": str(_known(root / "findings.yaml")), "findings": str(root / "findings.yaml")}


# --- the order: --spec-dir, $PTXCONF_SPEC_DIR, the checkout, the bundled copy -------------------


def test_choose_spec_takes_the_strongest_source_given(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "ptxconf"\n')
    (repo / "spec").mkdir()
    nested = repo / "a" / "b"
    nested.mkdir(parents=True)
    flag, env = tmp_path / "flag", tmp_path / "env"
    assert choose_spec(flag, cwd=nested, environ={SPEC_DIR_ENV: str(env)}) == SpecChoice(flag, "--spec-dir")
    assert choose_spec(None, cwd=nested, environ={SPEC_DIR_ENV: str(env)}) == SpecChoice(env, SPEC_DIR_ENV)
    assert choose_spec(None, cwd=nested, environ={}) == SpecChoice(repo / "spec", "checkout")
    assert choose_spec(None, cwd=nested, environ={SPEC_DIR_ENV: ""}) == SpecChoice(repo / "spec", "checkout")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert choose_spec(None, cwd=outside, environ={}) == SpecChoice(BUNDLED_SPEC_DIR, "bundled")
    # --findings travels beside whichever tree is chosen
    named = tmp_path / "mine.yaml"
    assert choose_spec(None, named, cwd=outside, environ={}) == SpecChoice(BUNDLED_SPEC_DIR, "bundled", named)
    assert choose_spec(flag, named, cwd=nested, environ={}) == SpecChoice(flag, "--spec-dir", named)


def test_each_source_in_turn_through_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str],
                                                       spec_line: SpecLine) -> None:
    """The same command, with one source taken away at a time: each line names the next."""
    repo = fake_checkout(tmp_path / "repo")
    env, flag = copy_spec(tmp_path / "env"), copy_spec(tmp_path / "flag")
    nested = repo / "work" / "deeper"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    monkeypatch.setenv(SPEC_DIR_ENV, str(env))

    def line(*extra: str) -> dict[str, str]:
        assert main([*ENCODE, *extra]) == 0
        return spec_line(capsys.readouterr().out)[0]

    assert line("--spec-dir", str(flag)) == _expected_line(flag, "--spec-dir")
    assert line() == _expected_line(env, SPEC_DIR_ENV)
    monkeypatch.delenv(SPEC_DIR_ENV)
    assert line() == _expected_line(repo / "spec", "checkout")
    monkeypatch.chdir(tmp_path)
    assert line() == _expected_line(BUNDLED_SPEC_DIR, "bundled")


# --- what is a checkout --------------------------------------------------------------------------


def test_the_checkout_is_found_upwards_from_a_nested_folder(tmp_path: Path) -> None:
    repo = fake_checkout(tmp_path / "repo")
    nested = repo / "conformance" / "fixtures" / "lint"
    nested.mkdir(parents=True)
    assert project_checkout(nested) == repo
    assert project_checkout(repo) == repo
    assert project_checkout(tmp_path) is None


def test_another_projects_pyproject_is_no_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   spec_line: SpecLine) -> None:
    other = fake_checkout(tmp_path / "other", project="ptxconf-fork")
    (other / "src").mkdir()
    assert project_checkout(other / "src") is None
    monkeypatch.chdir(other / "src")
    assert main(ENCODE) == 0
    assert spec_line(capsys.readouterr().out)[0]["origin"] == "bundled"


def test_a_ptxconf_pyproject_needs_its_spec_folder_and_must_parse(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "pyproject.toml").write_text('[project]\nname = "ptxconf"\n')
    assert project_checkout(bare) is None, "no spec/ beside it"
    broken = fake_checkout(tmp_path / "broken")
    (broken / "pyproject.toml").write_text('[project\nname = "ptxconf"\n')
    assert project_checkout(broken) is None, "a pyproject.toml that is not TOML names no project"
    nameless = fake_checkout(tmp_path / "nameless")
    (nameless / "pyproject.toml").write_text('[tool.ptxconf]\nname = "ptxconf"\n')
    assert project_checkout(nameless) is None, "only [project] name counts"


def test_another_project_inside_a_checkout_is_passed_over(tmp_path: Path) -> None:
    """A vendored project with its own pyproject.toml (and spec/) inside a ptxconf checkout:
    the search goes on upwards to the ptxconf one."""
    repo = fake_checkout(tmp_path / "repo")
    vendored = fake_checkout(repo / "third_party" / "other", project="other")
    assert project_checkout(vendored / "spec") == repo


# --- how a command names the spec it used --------------------------------------------------------

COMMANDS = {
    "spec validate": ["spec", "validate", "--assembler", "off"],
    "spec list": ["spec", "list"],
    "oracle descriptor encode": ENCODE,
    "check --only": ["check", "--gpu", "off", "--only", S143],
}


@pytest.mark.parametrize("argv", list(COMMANDS.values()), ids=list(COMMANDS))
def test_the_first_line_of_text_output_names_the_spec(argv: list[str], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      spec_line: SpecLine) -> None:
    root = copy_spec(tmp_path / "spec")
    extra = ["--report-dir", str(tmp_path / "report")] if argv[0] == "check" else []
    assert main([*argv, "--spec-dir", str(root), *extra]) == 0
    fields, rest = spec_line(capsys.readouterr().out)
    assert fields == _expected_line(root, "--spec-dir")
    assert rest.strip(), "the command's own answer follows its spec line"
    assert not rest.startswith("spec: "), "the spec is named once"


JSON_COMMANDS = {k: v for k, v in COMMANDS.items() if k != "spec list"}  # that one is a list of rows


@pytest.mark.parametrize("argv", list(JSON_COMMANDS.values()), ids=list(JSON_COMMANDS))
def test_the_json_object_names_the_spec(argv: list[str], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    root = copy_spec(tmp_path / "spec")
    extra = ["--report-dir", str(tmp_path / "report")] if argv[0] == "check" else []
    assert main([*argv, "--spec-dir", str(root), "--json", *extra]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "one JSON object, no spec line before it"
    answer = json.loads(out)
    assert answer["spec"] == {"root": str(root), "origin": "--spec-dir",
                              "sha256": spec_sha256(load_spec(root)),
                              "findings": str(root / "findings.yaml")}


def test_spec_list_json_stays_the_documented_list_of_rows(tmp_path: Path, cli: Cli) -> None:
    """README: `spec list --json` is `[{"id", "file", "kind"}]`, every row of the spec named."""
    import json

    root = copy_spec(tmp_path / "spec")
    code, out, _ = cli("spec", "list", "--spec-dir", str(root), "--json")
    rows = json.loads(out)
    assert code == 0
    assert isinstance(rows, list)
    assert len(rows) == len(load_spec(root).rows)
    assert set(rows[0]) == {"id", "file", "kind"}


# --- an edit to the checkout's spec is what the next command sees ---------------------------------


def test_an_edit_to_the_checkouts_spec_is_seen_without_reinstalling(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str],
                                                                      spec_line: SpecLine) -> None:
    repo = fake_checkout(tmp_path / "repo")
    here = repo / "notes"
    here.mkdir()
    monkeypatch.chdir(here)
    report = ["--report-dir", str(tmp_path / "report")]

    def run(*argv: str) -> tuple[int, dict[str, str], str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        fields, rest = spec_line(out)
        assert (fields["root"], fields["origin"]) == (str(repo / "spec"), "checkout")
        return code, fields, rest, err

    code, before, _, _ = run("spec", "validate", "--assembler", "off")
    assert code == 0
    code, _, out, _ = run("check", "--gpu", "off", "--only", S143, *report)
    assert code == 0, out
    assert "1 discrepancy" in out, out   # the known finding, listed in the checkout

    # a value edit: the spec still loads, its hash moves, and the finding it pinned is stale
    # (validate runs check's case too, and says so at the row)
    replace_once(repo / "spec" / S143_FIXED[0], *S143_FIXED[1:])
    code, after, _, err = run("spec", "validate", "--assembler", "off")
    assert code == 2
    assert f"SPEC-CHECK - {S143}: known finding cutedsl-period-s143 no longer happens" in err, err
    assert after["sha256"] != before["sha256"]
    assert after["sha256"] == spec_sha256(load_spec(repo / "spec"))[:12]
    code, _, out, _ = run("check", "--gpu", "off", "--only", S143, *report)
    assert code == 1
    assert (f"{S143}: known finding cutedsl-period-s143 no longer happens (the case passes: period "
            f"256); remove it from {repo / 'spec' / 'findings.yaml'}") in out, out

    # a broken reference: validate names the checkout's file and line
    target = repo / "spec" / "wgmma" / "instruction_types.yaml"
    line = replace_once(target, "btype: f16, k_major_only: false, satfinite: false, fragment_a: k16.A.f16, "
                        "fragment_d: k16.D.f32}", "btype: f16, k_major_only: false, satfinite: false, "
                        "fragment_a: k16.A.f16, fragment_d: k16.D.f33}")
    assert main(["spec", "validate", "--assembler", "off"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"{target}:{line}: SPEC-REF - row 'k16.f32.f16.f16': fragment_d 'k16.D.f33' names "
                   "no register_fragment row\n")
