"""The probe server's sharing and fault rules (ptxconf/gpu/server.py), on any machine, with the
runner's stand-in probes: a lane's calls go to its GPU's one server; a call the server cannot
answer (it died, a context-fatal error ended it, the call outlived its limit) runs again in the
lane's own worker, where its outcome is its own; no other lane loses an answer.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from ptxconf.gpu import server as S
from ptxconf.gpu.runner import ProbeRunner
from ptxconf.lanes import lane_context


@pytest.fixture
def srv() -> Iterator[S.Server]:
    s = S.Server(0, lane_context())
    assert s.ready() is None
    yield s
    s.close()


def _runner(s: S.Server | None) -> S.SharedRunner:
    private = ProbeRunner(timeout_s=30, start_timeout_s=60)
    return S.SharedRunner(None if s is None else s.address, b"" if s is None else s.authkey,
                          private)


@pytest.fixture
def two(srv: S.Server) -> Iterator[tuple[S.SharedRunner, S.SharedRunner]]:
    a, b = _runner(srv), _runner(srv)
    yield a, b
    a.close()
    b.close()


def test_the_lanes_calls_go_to_their_gpus_one_server(srv: S.Server, two) -> None:
    a, b = two
    ra, rb = a.call("runner.selftest_sleep", 0.01), b.call("runner.selftest_sleep", 0.02)
    assert (ra.value, rb.value) == (0.01, 0.02)
    assert ra.worker_pid == rb.worker_pid == srv.process.pid
    assert a.private.pid is None and b.private.pid is None  # no worker of their own started
    assert a.calls == 1 and a.reruns == 0


def test_a_clean_failure_is_answered_by_the_server_which_goes_on(srv: S.Server, two) -> None:
    a, b = two
    r = a.call("runner.selftest_raise", "clean failure")
    assert r.error_kind == "exception" and "clean failure" in (r.error or "")
    assert a.shared and b.call("runner.selftest_sleep", 0.01).worker_pid == srv.process.pid


def test_a_dying_server_loses_no_lanes_answer(srv: S.Server, two) -> None:
    a, b = two
    assert b.call("runner.selftest_sleep", 0.01).worker_pid == srv.process.pid
    dead = a.call("runner.selftest_exit", 7)
    # run again alone in a's own worker, the call ended that one too: a crash, its own
    assert dead.error_kind == "crash" and "exit code 7" in (dead.error or "")
    assert dead.worker_pid not in (None, srv.process.pid)
    srv.process.join(timeout=10)
    assert srv.process.exitcode == 7
    # b had nothing in flight; its next call finds the server gone and runs privately
    after = b.call("runner.selftest_sleep", 0.03)
    assert after.ok and after.value == 0.03 and after.worker_pid == b.private.pid
    assert (a.reruns, b.reruns) == (1, 1) and not a.shared and not b.shared


def test_a_context_fatal_error_ends_the_server_and_the_call_runs_again_alone(
        srv: S.Server, two) -> None:
    a, b = two
    b.start()
    r = a.call("runner.selftest_cuda_fault", "illegal address")
    # the server answered nobody (the error may have been another lane's); a's own worker
    # then met the same fault and answered it
    assert r.error_kind == "cuda" and "illegal address" in (r.error or "")
    assert r.worker_pid != srv.process.pid and a.reruns == 1
    srv.process.join(timeout=10)
    assert srv.process.exitcode == 3
    assert b.call("runner.selftest_sleep", 0.01).ok and b.reruns == 1


def test_a_call_past_its_limit_kills_the_server_and_runs_again_alone(srv: S.Server,
                                                                     two) -> None:
    a, b = two
    r = a.call("runner.selftest_sleep", 30.0, timeout_s=0.5)
    assert r.error_kind == "timeout" and r.worker_pid != srv.process.pid
    srv.process.join(timeout=10)
    assert srv.process.exitcode == -signal.SIGKILL
    assert b.call("runner.selftest_sleep", 0.01).ok and not b.shared


def test_a_case_that_may_fault_runs_in_the_lanes_own_worker(srv: S.Server, two) -> None:
    a, b = two
    a.private_only = True
    mine = a.call("runner.selftest_sleep", 0.01)
    assert mine.ok and mine.worker_pid == a.private.pid != srv.process.pid
    assert a.reruns == 0  # not a rerun: it never went to the server
    a.private_only = False
    assert a.call("runner.selftest_sleep", 0.01).worker_pid == srv.process.pid
    assert b.call("runner.selftest_sleep", 0.01).worker_pid == srv.process.pid


def test_the_lanes_own_worker_gets_the_kernels_the_server_had(srv: S.Server, two,
                                                               monkeypatch) -> None:
    # a stand-in for load_module: a call the runner must give a fresh private worker again
    monkeypatch.setattr(S, "LOAD_CALLS", frozenset({"runner.selftest_sleep"}))
    a, b = two
    a.call("runner.selftest_sleep", 0.01)  # "loaded" in the server
    b.call("runner.selftest_exit", 1)  # the server ends
    r = a.call("runner.selftest_raise", "after")
    assert r.error_kind == "exception" and r.worker_pid == a.private.pid
    # the private worker ran the load first, then the call
    assert a.private.calls == 2
    a.call("runner.selftest_raise", "again")
    assert a.private.calls == 3  # the same worker: nothing loaded twice


def test_without_a_server_every_call_is_the_lanes_own() -> None:
    a = _runner(None)
    try:
        assert a.start() is None
        r = a.call("runner.selftest_sleep", 0.01)
        assert r.ok and r.worker_pid == a.private.pid and a.reruns == 0 and not a.shared
    finally:
        a.close()


def test_a_server_that_cannot_listen_says_why_and_the_lanes_go_without(tmp_path) -> None:
    # a socket path longer than AF_UNIX allows (108 bytes): a long TMPDIR does this
    deep = tmp_path / ("x" * 120)
    deep.mkdir()
    s = S.Server(0, lane_context(), folder=str(deep))
    try:
        assert "too long" in (s.ready() or "")
        s.process.join(timeout=10)
        assert s.process.exitcode == 0  # it said why and ended
    finally:
        s.close()
    assert not os.path.exists(s.folder)


@pytest.mark.gpu
def test_a_real_trap_in_the_shared_context_is_pinned_on_its_own_call(srv: S.Server,
                                                                       two) -> None:
    """On silicon: one lane's kernel traps in the server's one context; the server ends,
    answering nobody; the trap runs again in that lane's own worker, which reports it; the
    other lane's next probe runs in its own worker, on a sound context."""
    from ptxconf.gpu.session import gpu_problem

    if (why := gpu_problem()) is not None:
        pytest.skip(f"a real trap needs a usable sm_90a GPU: {why}")
    a, b = two
    first = b.call("device.describe")
    assert first.ok and first.worker_pid == srv.process.pid and "error" not in first.value
    trapped = a.call("runner.selftest_trap")
    assert (trapped.ok, trapped.error_kind) == (False, "cuda"), trapped
    assert trapped.worker_pid == a.private.pid != srv.process.pid
    srv.process.join(timeout=30)
    assert srv.process.exitcode == 3
    then = b.call("device.describe")
    assert then.ok and then.worker_pid == b.private.pid and "error" not in then.value
