"""Interrupting `ptxconf check`: Ctrl-C and SIGTERM stop it with one line and the shell's exit
status; the results that completed are published as one consistent set marked incomplete (no
temporary file left), and `check --resume` runs only the rest; a report folder that cannot be
written is noticed before the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ptxconf.app.cli import main
from ptxconf.app.report import write_set

EARLIER = {"results.json": "{}", "junit.xml": "<old/>", "report.html": "old", "summary.md": "old"}


def _cold_env(tmp_path: Path) -> dict[str, str]:
    """Empty proof and witness caches of the test's own: the run then takes long enough (the
    proofs and the assembler sweep are done, not read back) for a signal to land inside it."""
    return {**os.environ, "PTXCONF_CACHE_DIR": str(tmp_path / "cache"),
            "PTXCONF_KERNEL_CACHE": str(tmp_path / "kernels")}


def _interrupt(tmp_path: Path, signum: int, after_s: float) -> tuple[int, str, Path]:
    out = tmp_path / "report"
    proc = subprocess.Popen([sys.executable, "-m", "ptxconf.app.cli", "check", "--gpu", "off",
                             "--report-dir", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_cold_env(tmp_path))
    time.sleep(after_s)
    proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"{signal.Signals(signum).name} did not stop the run within 60 s")
    return proc.returncode, err, out


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("after_s", [4.0])
def test_a_signal_stops_the_run_and_keeps_what_completed(tmp_path: Path, signum: int,
                                                         status: int, after_s: float) -> None:
    code, err, out = _interrupt(tmp_path, signum, after_s)
    if code == 0:
        pytest.skip(f"the run finished within {after_s} s on this machine")
    assert code == status, err
    lines = err.strip().splitlines()
    assert lines[-1] == f"ptxconf: interrupted ({signal.Signals(signum).name})", err
    assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["junit.xml", "report.html", "results.json",
                                                     "summary.md"], "a partial set or a temp file"
    data = json.loads((out / "results.json").read_text())
    assert data["meta"]["incomplete"]["completed"] == len(data["results"]) > 0
    assert "INCOMPLETE" in (out / "summary.md").read_text()
    # the rest is run by --resume, keeping what completed
    done = subprocess.run([sys.executable, "-m", "ptxconf.app.cli", "check", "--gpu", "off",
                           "--resume", str(out)], capture_output=True, text=True, timeout=600,
                          env=_cold_env(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    final = json.loads((out / "results.json").read_text())
    assert "incomplete" not in final["meta"]
    assert final["meta"]["resumed"]["kept"] == len(data["results"])
    kept = {r["id"]: r for r in data["results"]}
    assert all(r == kept[r["id"]] for r in final["results"] if r["id"] in kept)


def test_resume_refuses_a_completed_run(tmp_path: Path, capsys) -> None:
    write_set(tmp_path, {**EARLIER, "results.json": json.dumps(
        {"schema_version": 2, "meta": {}, "results": []})})
    assert main(["check", "--gpu", "off", "--resume", str(tmp_path)]) == 2
    assert "that run completed; nothing to resume" in capsys.readouterr().err


def test_an_unwritable_report_dir_is_refused_before_the_run(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    start = time.perf_counter()
    code = main(["check", "--gpu", "off", "--report-dir", str(blocker / "sub")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot write there" in err, err
    assert time.perf_counter() - start < 5, "the run started before the folder was checked"


def test_write_set_leaves_no_staging_folder(tmp_path: Path) -> None:
    paths = write_set(tmp_path, {"a.txt": "1", "b.txt": "2"})
    assert [p.name for p in paths] == ["a.txt", "b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]
    assert oct(os.stat(paths[0]).st_mode & 0o044) != "0o0", "reports are readable by the group"
