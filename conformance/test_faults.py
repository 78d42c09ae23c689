"""Faults never lose or mix results: whole `ptxconf check` runs with a fault in the middle.

A scratch provider's GPU cases run probes through the run's real probe-worker session
(`ptxconf.gpu.session.gpu_case`); the middle one faults. Each run shows, in its published
results.json and its printed summary: the cases before the fault kept their results, the
faulted case is a FAIL with code `gpu_fault` naming what happened (error_kind 'cuda',
'timeout' or 'crash'), the cases after it ran on a fresh worker, and the next provider's
cases ran too. The faults: a kernel that traps (a CUDA context-fatal error: simulated with
the runner's `selftest_cuda_fault` probe, and a real `trap;` kernel under `-m gpu`), a kernel
that hangs past its timeout, and the worker killed with SIGKILL in the middle of a call.

A disk that fills while the report set is written (ENOSPC, simulated in the set writer, and
for real on a tiny tmpfs where user namespaces allow one) leaves the previously published set
intact and readable, no temporary file behind, one line on stderr naming what was not written,
and a non-zero exit; a run interrupted on a full disk says both and still exits 130.
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ptxconf.app.report
import ptxconf.app.run
from ptxconf.app.providers import Provider, provider
from ptxconf.app.report import ReportWriteError, load_results, write_set
from ptxconf.core.cases import Case, Outcome, fail, passed
from ptxconf.core.context import RunContext
from ptxconf.core.interrupts import Interrupted
from ptxconf.gpu.session import Session, gpu_case
from ptxconf.oracle.spec import Spec

SET = ["codequality.json", "junit.xml", "report.html", "results.json", "summary.md"]
CHECK = "faults.probe"
STEPS = ["before.0", "before.1", "fault", "after.0", "after.1"]
#: The fault the scratch provider's middle case runs (each test sets it).
SCENARIO: dict[str, str] = {}


# --- the scratch provider ---------------------------------------------------------------------


def _call(sess: Session, name: str, *args: Any, timeout_s: float = 30.0) -> Outcome:
    """One probe through the session's worker; a failed call is the case's gpu_fault FAIL,
    as the GPU families report one."""
    res = sess.call(name, *args, timeout_s=timeout_s)
    if not res.ok:
        raise fail(f"{name}: the probe failed ({res.error_kind}): {res.error}", code="gpu_fault",
                   error_kind=res.error_kind, error=res.error, worker_pid=res.worker_pid)
    return passed(f"{name} answered {res.value!r}", worker_pid=res.worker_pid)


def _ok(sess: Session) -> Outcome:
    return _call(sess, "runner.selftest_sleep", 0.01)


def _trap_simulated(sess: Session) -> Outcome:
    return _call(sess, "runner.selftest_cuda_fault", "an illegal instruction was encountered")


def _trap(sess: Session) -> Outcome:
    return _call(sess, "runner.selftest_trap", timeout_s=120.0)


#: The hanging probe's limit (the other probes keep 30 s).
HANG_LIMIT_S = 0.3


def _hang(sess: Session) -> Outcome:
    return _call(sess, "runner.selftest_sleep", 600.0, timeout_s=HANG_LIMIT_S)


def _sigkill(sess: Session) -> Outcome:
    """The worker killed with SIGKILL a fifth of a second into a call (the OOM killer, kill -9)."""
    pid = sess.call("runner.selftest_sleep", 0.0).worker_pid
    assert pid is not None
    timer = threading.Timer(0.2, os.kill, (pid, signal.SIGKILL))
    timer.start()
    try:
        return _call(sess, "runner.selftest_sleep", 60.0, timeout_s=30.0)
    finally:
        timer.cancel()


def _interrupted(sess: Session) -> Outcome:
    """Ctrl-C landing in the middle of a case (what the signal handler raises)."""
    raise Interrupted(signal.SIGINT)


FAULTS: dict[str, Callable[[Session], Outcome]] = {
    "trap_simulated": _trap_simulated, "trap": _trap, "hang": _hang, "sigkill": _sigkill,
    "interrupted": _interrupted}


def scratch_cases(spec: Spec, ctx: RunContext) -> list[Case]:
    """Two good probes, the scenario's fault, two good probes."""
    bodies = {"fault": FAULTS[SCENARIO["fault"]]}
    return [gpu_case(spec, ctx, "faults", CHECK, key, bodies.get(key, _ok)) for key in STEPS]


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's providers: the scratch one, then the real spec lint."""
    registry = (Provider("faults", f"{__name__}:scratch_cases"), provider("spec-lint"))
    monkeypatch.setattr(ptxconf.app.run, "REGISTRY", registry)


def _check(out: Path, cli: Callable[..., tuple[int, str, str]], *extra: str) -> tuple[int, str, str]:
    """`ptxconf check` in-process (the conftest's `cli`: stdout after its spec line)."""
    return cli("check", "--gpu", "auto", "--report-dir", str(out), *extra)


# --- faults in a probe ---------------------------------------------------------------------


def _gpu_here() -> str | None:
    from ptxconf.gpu.session import gpu_problem

    return gpu_problem()


@pytest.mark.parametrize(("fault", "kind", "says"), [
    ("trap_simulated", "cuda", "CUDARuntimeError: an illegal instruction was encountered"),
    ("hang", "timeout", f"no answer within {HANG_LIMIT_S} s; worker killed"),
    ("sigkill", "crash", f"the worker died (exit code -{int(signal.SIGKILL)}) without an answer"),
    pytest.param("trap", "cuda", "CUDA", marks=pytest.mark.gpu),
])
def test_a_faulting_case_fails_alone_and_the_run_goes_on(
        fault: str, kind: str, says: str, tmp_path: Path, cli: Callable[..., tuple[int, str, str]],
        monkeypatch: pytest.MonkeyPatch, scratch_registry: None) -> None:
    if fault == "trap" and (why := _gpu_here()) is not None:
        pytest.skip(f"a real trap needs a usable sm_90a GPU: {why}")
    monkeypatch.setitem(SCENARIO, "fault", fault)
    code, out, err = _check(tmp_path / "report", cli)
    assert code == 1, (out, err)
    assert "Traceback" not in err, err
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == SET
    results, meta = load_results(tmp_path / "report" / "results.json")
    assert "incomplete" not in meta
    mine = {r.id.removeprefix(f"{CHECK}[").removesuffix("]"): r for r in results
            if r.check == CHECK}
    assert list(mine) == STEPS, "every case has its result, in order"
    lint = [r for r in results if r.provider == "spec-lint"]
    assert lint, "the next provider ran"
    assert all(r.status.value == "pass" for r in lint), "the next provider ran"
    faulted = mine["fault"]
    assert (faulted.status.value, faulted.code, faulted.fields["error_kind"]) == (
        "fail", "gpu_fault", kind), faulted
    assert says in faulted.message, faulted.message
    good = [mine[k] for k in STEPS if k != "fault"]
    assert all(r.status.value == "pass" and r.code == "ok" for r in good), good
    before, after = ({r.fields["worker_pid"] for r in good[:2]},
                     {r.fields["worker_pid"] for r in good[2:]})
    assert len(before) == 1, "one worker serves the cases between faults"
    assert len(after) == 1, "one worker serves the cases between faults"
    assert before.isdisjoint(after), "the cases after a fault get a fresh worker"
    # the run says what was lost: the summary lists the one failure with its cause
    assert f"{CHECK}[fault]: " in out, out
    assert f"the probe failed ({kind})" in out, out
    assert out.splitlines()[0].startswith(f"ptxconf check: {len(lint) + 4} pass, 1 fail"), out


def test_the_trap_kernel_is_the_ptx_trap_instruction() -> None:
    """What the `-m gpu` case launches: one thread executing PTX `trap;` (compiled by CuPy's
    NVRTC on a GPU machine; here, the source and how the worker classifies the error)."""
    from ptxconf.gpu import runner

    assert 'asm volatile("trap;")' in runner.TRAP_KERNEL
    assert "__global__ void ptxconf_selftest_trap()" in runner.TRAP_KERNEL
    stand_in = type("CUDARuntimeError", (RuntimeError,), {})
    driver = type("CUDADriverError", (RuntimeError,), {})
    assert runner._classify(stand_in("x")) == ("cuda", True)
    assert runner._classify(driver("x")) == ("cuda", True)
    assert runner._classify(RuntimeError("x")) == ("exception", False)


@pytest.mark.gpu
def test_a_real_trap_restarts_the_worker_and_the_next_probe_runs(
        capfd: pytest.CaptureFixture[str]) -> None:
    """On silicon: the trap kills the context; the worker answers 'cuda', exits, and the next
    call (a device query) runs in a fresh one. The worker prints nothing on the way out (its
    timing events are not freed in the lost context: CuPy would print their failures)."""
    if (why := _gpu_here()) is not None:
        pytest.skip(f"a real trap needs a usable sm_90a GPU: {why}")
    from ptxconf.gpu.runner import ProbeRunner

    with ProbeRunner(timeout_s=120, start_timeout_s=180) as runner:
        first = runner.call("device.describe")
        trapped = runner.call("runner.selftest_trap")
        then = runner.call("device.describe")
    assert first.ok, (first, then)
    assert then.ok, (first, then)
    assert (trapped.ok, trapped.error_kind) == (False, "cuda"), trapped
    assert runner.restarts == 1
    assert then.worker_pid != first.worker_pid
    assert "error" not in then.value, then.value
    assert capfd.readouterr().err == ""


# --- a full disk while the report set is written ---------------------------------------------


def _enospc_in(out: Path, name: str) -> Callable[..., Any]:
    """os.fdopen, except that the report writer's temporary file for `name` in `out` takes
    half its text and then raises ENOSPC, as a filling disk does."""
    real = os.fdopen

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        fh = real(fd, *args, **kwargs)
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if path.name.startswith(f".{name}.") and out in path.parents:
            return _FillingFile(fh)
        return fh

    return fdopen


class _FillingFile(io.TextIOBase):
    """A text file whose disk fills after half of what is written to it."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh

    def write(self, text: str) -> int:
        self.fh.write(text[: len(text) // 2])
        self.fh.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def close(self) -> None:
        self.fh.close()
        super().close()


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


needs_proc = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="finding the report's temporary file needs /proc/self/fd")


@needs_proc
def test_a_full_disk_keeps_the_published_set(tmp_path: Path, cli: Callable[..., tuple[int, str, str]],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "report"
    code, _, err = _check(out, cli, "--gpu", "off", "--only", "spec.lint[cute/gmma_descriptor]")
    assert code == 0, err
    before = _snapshot(out)
    assert sorted(before) == SET
    monkeypatch.setattr(ptxconf.app.report.os, "fdopen", _enospc_in(out, "report.html"))
    code, stdout, err = _check(out, cli, "--gpu", "off", "--only", "spec.lint[cute/")
    assert code == 2, (stdout, err)
    assert err == (f"ptxconf: error: {out}: results.json, junit.xml, report.html, summary.md, "
                   f"codequality.json not "
                   f"written (report.html: No space left on device); the set there before is "
                   f"unchanged\n"), err
    assert _snapshot(out) == before, "the published set is untouched, and nothing was left beside it"
    results, _ = load_results(out / "results.json")
    assert [r.id for r in results if r.provider == "spec-lint"] == ["spec.lint[cute/gmma_descriptor]"]
    assert stdout.startswith("ptxconf check: "), "the run's verdict still reaches the log"


@needs_proc
def test_an_interrupted_run_on_a_full_disk_says_both(
        tmp_path: Path, cli: Callable[..., tuple[int, str, str]], monkeypatch: pytest.MonkeyPatch,
        scratch_registry: None) -> None:
    """Ctrl-C mid-run publishes what completed; when the disk is full that fails too: one line
    says what was not written, the next that the run was interrupted, and the exit is 130."""
    out = tmp_path / "report"
    write_set(out, {name: f"earlier {name}" for name in SET})
    before = _snapshot(out)
    monkeypatch.setitem(SCENARIO, "fault", "interrupted")
    monkeypatch.setattr(ptxconf.app.report.os, "fdopen", _enospc_in(out, "results.json"))
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # main silences it on Ctrl-C
    code, _, err = _check(out, cli)
    assert code == 130, err
    assert err.splitlines() == [
        f"ptxconf: error: {out}: results.json, junit.xml, report.html, summary.md, codequality.json "
        "not written (results.json: No space left on device); the set there before is unchanged",
        "ptxconf: interrupted (SIGINT)"], err
    assert _snapshot(out) == before


def test_a_failed_move_puts_the_earlier_files_back(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    earlier = {"a.txt": "old a", "b.txt": "old b", "c.txt": "old c"}
    write_set(tmp_path, earlier)
    real = os.replace
    moves: list[str] = []

    def replace(src: Any, dst: Any) -> None:
        if Path(src).parent.name.startswith(".staging-"):
            moves.append(Path(dst).name)
            if Path(dst).name == "c.txt":
                raise OSError(errno.EIO, os.strerror(errno.EIO))
        real(src, dst)

    monkeypatch.setattr(ptxconf.app.report.os, "replace", replace)
    with pytest.raises(ReportWriteError) as caught:
        write_set(tmp_path, {"a.txt": "new a", "b.txt": "new b", "c.txt": "new c", "d.txt": "d"})
    assert moves == ["a.txt", "b.txt", "c.txt"], "two files were in place when the third failed"
    assert str(caught.value).endswith("(c.txt: Input/output error); the set there before is "
                                      "unchanged"), caught.value
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == earlier


#: The private tmpfs: room for the earlier set (five small files, a page each), not the new one.
TMPFS_BYTES = 32 * 1024
REAL_DISK = """
import json, subprocess, sys
from pathlib import Path
from ptxconf.app.report import write_set
out, results = Path(sys.argv[1]), sys.argv[2]
write_set(out, {"results.json": "{}", "junit.xml": "<old/>", "report.html": "old", "summary.md": "old",
               "codequality.json": "[]"})
before = {p.name: p.read_text() for p in out.iterdir()}
done = subprocess.run([sys.executable, "-m", "ptxconf.app.cli", "report", results, "--out-dir", str(out)],
                      capture_output=True, text=True)
after = {p.name: p.read_text() for p in out.iterdir()}
print(json.dumps({"code": done.returncode, "err": done.stderr, "same": before == after,
                  "names": sorted(after)}))
"""


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare(1) for a private tmpfs")
def test_a_really_full_tmpfs_keeps_the_published_set(tmp_path: Path,
                                                     cli: Callable[..., tuple[int, str, str]]) -> None:
    """ENOSPC for real: `ptxconf report` into a tmpfs of TMPFS_BYTES (mounted in a user
    namespace of this test's own) that holds the earlier small set but not the new one."""
    src = tmp_path / "src"
    code, _, err = _check(src, cli, "--gpu", "off", "--only", "spec.lint[")
    assert code == 0, err
    assert sum(p.stat().st_size for p in src.iterdir()) > TMPFS_BYTES, "the new set must not fit"
    disk = tmp_path / "disk"
    disk.mkdir()
    in_tmpfs = ["unshare", "-rm", "sh", "-c", f'mount -t tmpfs -o size={TMPFS_BYTES} tmpfs "$1" '
                '&& shift && exec "$@"', "sh", str(disk)]
    probe = subprocess.run([*in_tmpfs, "true"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"no private tmpfs here (user namespaces off?): {probe.stderr.strip()[:200]}")
    done = subprocess.run([*in_tmpfs, sys.executable, "-c", REAL_DISK, str(disk),
                           str(src / "results.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["code"] == 2, seen
    assert seen["same"], seen
    assert seen["names"] == SET, seen
    assert seen["err"].count("\n") == 1, seen
    assert "No space left on device" in seen["err"], seen
    assert seen["err"].startswith(f"ptxconf: error: {disk}: results.json, junit.xml, report.html, "
                                  "summary.md, codequality.json not written ("), seen
    assert "Traceback" not in seen["err"]
