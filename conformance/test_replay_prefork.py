"""A warm run's replay workers forked as `check` begins (ptxconf.app.replay_prefork), waiting at
a gate (ptxconf.gpu.context_gate): none where a second thread runs or CuPy is missing; they
answer once the gate opens, make their CUDA contexts only where the run will replay (the bulk
workers' first), ignore Ctrl-C, stop waiting when their owner is gone, and end when let go.
Shown on the CPU: the worker's imports and context fail quietly without CuPy or a driver, which
is also what its first probe would report."""

from __future__ import annotations

import importlib.util
import os
import signal
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from ptxconf.app import replay_prefork, replay_run
from ptxconf.gpu import context_gate
from ptxconf.gpu.context_gate import ContextGate

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="the replay workers are forked only where fork is there")


@pytest.fixture
def cupy_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`prefork` sees CuPy as installed (the workers' own import of it fails quietly here)."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: SimpleNamespace(name=name) if name == "cupy" else real(name, *a))


@pytest.fixture
def forks(cupy_installed: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`prefork` forks here: as `cupy_installed`, in a process of one thread. The threads
    earlier tests left (a worker's reaper, say) get a few seconds to end; any still there are
    not counted (only the worker's code runs in the forked child, which takes no lock they
    could hold)."""
    deadline = time.monotonic() + 5
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    if threading.active_count() > 1:
        monkeypatch.setattr(replay_prefork.threading, "active_count", lambda: 1)


@pytest.fixture(autouse=True)
def _let_go() -> Any:
    yield
    replay_prefork.release()


def _gone(pid: int, within_s: float = 20.0) -> bool:
    """Whether process `pid` (a child of this one) has ended within `within_s`."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return True
        if done:
            return True
        time.sleep(0.02)
    return False


def test_nothing_is_forked_while_a_second_thread_runs(cupy_installed: None) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert replay_prefork.prefork(2, 1) is False
        assert replay_prefork.take() is None
    finally:
        stop.set()
        other.join()


def test_nothing_is_forked_where_cupy_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "cupy" else real(name, *a))
    assert replay_prefork.prefork(2, 1) is False
    assert replay_prefork.take() is None


def test_workers_let_go_before_the_gate_opens_all_end(forks: None) -> None:
    assert replay_prefork.prefork(2, 1)
    pids = [r._proc.pid for group in replay_prefork._early["runners"].values() for r in group]
    assert len(pids) == 3
    replay_prefork.decide(False)
    assert replay_prefork.take() is None
    assert all(_gone(pid) for pid in pids)


def test_taken_workers_answer_once_the_gate_opens(forks: None) -> None:
    assert replay_prefork.prefork(2, 1)
    runners = replay_prefork.take()
    assert runners is not None
    assert [len(runners["bulk"]), len(runners["faulting"])] == [2, 1]
    try:
        for r in (r for group in runners.values() for r in group):
            assert r.await_ready() is None
            res = r.call("device.count", timeout_s=60)
            assert res.ok, res
            assert isinstance(res.value, int), res  # the devices it sees (0: none)
    finally:
        for r in (r for group in runners.values() for r in group):
            r.close()


def test_a_forked_worker_ignores_ctrl_c_and_still_answers(forks: None) -> None:
    assert replay_prefork.prefork(1, 0)
    runners = replay_prefork.take()
    assert runners is not None
    worker = runners["bulk"][0]
    try:
        assert worker.await_ready() is None
        os.kill(worker._proc.pid, signal.SIGINT)
        res = worker.call("device.count", timeout_s=60)
        assert res.ok, res
        assert worker._proc.is_alive()
    finally:
        worker.close()


def test_a_forked_worker_sent_sigterm_ends_silently(forks: None, capfd: pytest.CaptureFixture[str]
                                                    ) -> None:
    """Not with this process's own SIGTERM handler (the run's, which raises): as a fork
    server's child does, whatever the handler it was forked with."""
    def raising(signum: int, frame: Any) -> None:
        raise RuntimeError("the owner's handler ran in the worker")

    old = signal.signal(signal.SIGTERM, raising)
    try:
        assert replay_prefork.prefork(1, 0)
    finally:
        signal.signal(signal.SIGTERM, old)
    runners = replay_prefork.take()
    assert runners is not None
    worker = runners["bulk"][0]
    assert worker.await_ready() is None
    assert worker.call("device.count", timeout_s=60).ok  # past its warm call: its own handlers
    pid = worker._proc.pid
    os.kill(pid, signal.SIGTERM)
    worker._proc.join(20)
    assert worker._proc.exitcode == -signal.SIGTERM
    worker.close()
    assert "Traceback" not in capfd.readouterr().err


def test_the_pool_takes_the_forked_workers_and_restarts_from_the_fork_server(
        forks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTXCONF_REPLAY_WORKERS", "2")
    monkeypatch.setenv("PTXCONF_FAULT_WORKERS", "1")
    assert replay_prefork.prefork(*replay_run.replay_workers())
    forked = [r for group in replay_prefork._early["runners"].values() for r in group]
    pool = replay_run.ReplayPool(SimpleNamespace(), gpus=1)
    try:
        pool.wait_started()
        taken = [r for group in pool.runners.values() for r in group]
        assert taken == forked
        assert [len(pool.runners[(0, "bulk")]), len(pool.runners[(0, "faulting")])] == [2, 1]
        from ptxconf.app.lanes import lane_context

        # a worker that faults is started again as the pool's own would be
        assert all(r._ctx is lane_context() and r.warm_call == "device.warm" for r in taken)
        assert replay_prefork.take() is None
    finally:
        pool.close()


class _Shared:
    """A shared int as multiprocessing's Value is read here (`value`, `get_lock`)."""

    def __init__(self, value: int = 0) -> None:
        self.value = value
        self._lock = threading.Lock()

    def get_lock(self) -> threading.Lock:
        return self._lock


def test_a_context_waits_for_the_ones_it_comes_after(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    monkeypatch.setattr(context_gate, "_primary_context",
                        lambda: made.append(threading.current_thread().name))
    opened, wanted, count = threading.Event(), _Shared(1), _Shared()
    later = threading.Thread(target=context_gate._when_opened, name="faulting",
                             args=(ContextGate(opened, wanted, count, os.getppid(), after=2),))
    first = [threading.Thread(target=context_gate._when_opened, name=f"bulk{n}",
                              args=(ContextGate(opened, wanted, count, os.getppid()),))
             for n in range(2)]
    later.start()
    opened.set()
    time.sleep(0.1)
    assert made == []  # the bulk workers' contexts come first
    for t in first:
        t.start()
    for t in [*first, later]:
        t.join(10)
    assert sorted(made[:2]) == ["bulk0", "bulk1"]
    assert made[2] == "faulting"
    assert count.value == 3


def test_no_context_is_made_where_the_run_will_not_replay_or_the_owner_is_gone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_gate, "_primary_context",
                        lambda: pytest.fail("a context was made"))
    opened, count = threading.Event(), _Shared()
    opened.set()
    context_gate._when_opened(ContextGate(opened, _Shared(0), count, os.getppid()))
    # the gate never opens, and the owner is not this process's parent: it stops waiting
    start = time.monotonic()
    context_gate._when_opened(ContextGate(threading.Event(), _Shared(1), count, owner=-1))
    assert time.monotonic() - start < 5
    assert count.value == 0


def test_check_forks_replay_workers_only_where_some_run_kept_transcripts(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run (no kept run in the cache) compiles: it forks no replay workers. Once any run
    has kept its transcripts (`Transcripts.mark_kept`, as a run writes it), `check` forks them."""
    from ptxconf.app import cli
    from ptxconf.app.cli_parser import build_parser
    from ptxconf.gpu.transcript import Transcripts
    from ptxconf.oracle.spec import default_spec

    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PTXCONF_REPLAY_PREFORK", raising=False)
    forked: list[tuple[int, int]] = []
    monkeypatch.setattr(replay_prefork, "prefork", lambda *n: forked.append(n) or False)
    monkeypatch.setattr(cli, "_check", lambda args: 0)
    args = build_parser().parse_args(["check", "--gpu", "on"])
    assert cli.cmd_check(args) == 0
    assert forked == []
    Transcripts(default_spec()).mark_kept()  # its folder: this test's cache
    assert cli.cmd_check(args) == 0
    assert forked == [replay_run.replay_workers()]
