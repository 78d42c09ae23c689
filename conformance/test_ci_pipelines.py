"""The pipelines to copy (ci/github/ptxconf.yml, ci/gitlab/.gitlab-ci.yml) run what they say:
the README's test command, `tox -e gpu` with options `ptxconf check` takes, and `ptxconf report
merge` over the devices' runs. Their commands are read out of the files and run here on the CPU
(the check with `--gpu off`); tox's lint env checks both files against the CI systems' schemas."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ptxconf.app.cli import main

ROOT = Path(__file__).resolve().parents[1]
GITHUB = ROOT / "ci" / "github" / "ptxconf.yml"
GITLAB = ROOT / "ci" / "gitlab" / ".gitlab-ci.yml"
README_TEST = "python3 -m pip install tox && python3 -m tox p -o -e lint,py"


def _commands(doc: Any) -> Iterator[str]:
    """Every shell command of a workflow (`run:`) or a GitLab job (`script:`)."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key == "run" and isinstance(value, str):
                yield " ".join(value.split())
            elif key == "script" and isinstance(value, list):
                yield from (" ".join(str(v).split()) for v in value)
            else:
                yield from _commands(value)
    elif isinstance(doc, list):
        for item in doc:
            yield from _commands(item)


def _pipelines() -> dict[str, list[str]]:
    return {p.name: list(_commands(yaml.safe_load(p.read_text()))) for p in (GITHUB, GITLAB)}


def test_each_pipeline_runs_the_readme_test_command_the_gpu_env_and_a_merge() -> None:
    readme = (ROOT / "README.md").read_text()
    assert README_TEST in readme
    for name, commands in _pipelines().items():
        assert README_TEST in commands, (name, commands)
        assert any("tox -e gpu --" in c for c in commands), (name, commands)
        assert any(c.startswith("ptxconf report merge ") for c in commands), (name, commands)


def _gpu_options(command: str, device: str) -> list[str]:
    """The `ptxconf check` options a pipeline passes through `tox -e gpu --`."""
    after = command.split("tox -e gpu --", 1)[1]
    after = re.sub(r"\$\{\{ matrix.device \}\}|\$DEVICE", device, after)
    return shlex.split(after)


@pytest.mark.parametrize("pipeline", ["ptxconf.yml", ".gitlab-ci.yml"])
def test_the_gpu_steps_options_are_checks_and_the_merge_reads_their_runs(
        pipeline: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The GPU job's check options, run here with --gpu off on one family (`--only`), write
    the report set the artifacts name; the matrix job's merge reads it back."""
    monkeypatch.chdir(tmp_path)
    commands = _pipelines()[pipeline]
    gpu = next(c for c in commands if "tox -e gpu --" in c)
    options = _gpu_options(gpu, "h100")
    code = main(["check", "--gpu", "off", "--only", "fig167", *options])
    out = capsys.readouterr().out
    assert code == 0, out
    run = tmp_path / "reports" / "runs" / "h100"
    assert {"junit.xml", "codequality.json", "results.json", "summary.md"} <= {p.name for p in run.iterdir()}
    if "--annotations" in options:
        assert any(x.startswith("::warning file=spec/") for x in out.splitlines()), out
    merge = next(c for c in commands if c.startswith("ptxconf report merge "))
    argv = shlex.split(merge)[1:]
    out_dir = argv[argv.index("-o") + 1]
    code = main(["report", "merge", str(run), "-o", out_dir])
    assert code == 0, capsys.readouterr()
    assert (tmp_path / out_dir / "summary.md").is_file()
