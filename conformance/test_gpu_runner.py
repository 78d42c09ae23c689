"""The probe runner's isolation, checked on any machine with stand-in probes.

A hang is killed at its timeout, a dying worker is reported and replaced, a clean failure
keeps the worker, and the results gathered before a failure are kept.
"""

from __future__ import annotations

import pytest

from ptxconf.gpu.runner import ProbeRunner


@pytest.fixture
def runner():
    with ProbeRunner(timeout_s=30, start_timeout_s=60) as r:
        yield r


def test_a_run_goes_on_past_hangs_and_deaths(runner: ProbeRunner) -> None:
    results = runner.map([
        ("runner.selftest_sleep", (0.01,), {}),
        ("runner.selftest_sleep", (30.0,), {"timeout_s": 0.2}),
        ("runner.selftest_exit", (7,), {}),
        ("runner.selftest_raise", ("clean failure",), {}),
        ("runner.selftest_sleep", (0.02,), {}),
    ])
    kinds = [r.error_kind for r in results]
    assert kinds == [None, "timeout", "crash", "exception", None], results
    assert results[0].value == 0.01
    assert results[4].value == 0.02
    assert "exit code 7" in (results[2].error or "")
    assert "clean failure" in (results[3].error or "")
    # timeout and crash each cost a worker; the clean failure did not.
    assert runner.restarts == 2
    assert results[3].worker_pid == results[4].worker_pid


def test_per_call_timeout_overrides_default(runner: ProbeRunner) -> None:
    r = runner.call("runner.selftest_sleep", 0.1, timeout_s=5)
    assert r.ok
    assert r.value == 0.1


def test_only_exported_functions_run(runner: ProbeRunner) -> None:
    r = runner.call("runner._classify", 1)
    assert not r.ok
    assert r.error_kind == "exception"
    assert "not exported" in (r.error or "")


def test_device_description_never_raises(runner: ProbeRunner) -> None:
    r = runner.call("device.describe")
    assert r.ok
    assert "python" in r.value


def test_the_runner_counts_its_answered_calls_and_their_seconds(runner: ProbeRunner) -> None:
    runner.call("runner.selftest_sleep", 0.2)
    runner.call("runner.selftest_raise", "clean failure")  # answered: counted
    runner.call("runner.selftest_exit", 5)  # no answer: not counted
    assert runner.calls == 2
    # the worker's own clock saw the 0.2 s sleep; the round trip adds the pipe to it
    assert 0.2 <= runner.worker_s < 1.0
    assert runner.worker_s <= runner.round_trip_s < runner.worker_s + 1.0


def test_a_call_with_no_answer_counts_as_waiting_until_given_up(runner: ProbeRunner) -> None:
    """The lane waited for the worker, not worked: a lane's host seconds (a job's time less its
    waits) must not hold a hung call, nor a fault's recovery."""
    r = runner.call("runner.selftest_sleep", 5.0, timeout_s=0.4)
    assert r.error_kind == "timeout"
    assert runner.calls == 0
    assert runner.worker_s == 0.0
    assert 0.4 <= runner.round_trip_s < 2.0


def test_workers_start_cuda_taking_turns_and_never_stall_on_the_lock(monkeypatch) -> None:
    """A lane's workers warm up holding the lock their GPU's lanes share (runner.START_LOCK,
    inherited by fork): each lets it go when warm, and one that finds it held too long warms
    up anyway (a worker killed while holding it cannot stall the rest)."""
    import multiprocessing as mp

    from ptxconf.gpu import runner as R

    lock = mp.get_context("fork").Lock()
    monkeypatch.setattr(R, "START_LOCK", None)  # put back after the test
    R.take_turns(lock)  # what a lane's pool initializer does
    monkeypatch.setattr(R, "START_LOCK_WAIT_S", 0.1)
    monkeypatch.setattr(R, "_START_METHOD", "fork")
    with ProbeRunner(timeout_s=30, start_timeout_s=60, warm_call="device.warm") as r:
        assert r.call("runner.selftest_sleep", 0.01).ok
    assert lock.acquire(timeout=5), "the worker let the lock go once warm"
    # held by someone else (a dead worker): the next worker waits its time, then goes on
    with ProbeRunner(timeout_s=30, start_timeout_s=60, warm_call="device.warm") as r:
        assert r.call("runner.selftest_sleep", 0.01).ok
    # ... but while it may wait, it waits its turn before answering anything (a worker that
    # did not wait would answer this call in about 0.01 s)
    monkeypatch.setattr(R, "START_LOCK_WAIT_S", 60.0)
    with ProbeRunner(timeout_s=30, start_timeout_s=60, warm_call="device.warm") as r:
        assert r.call("runner.selftest_sleep", 0.01, timeout_s=0.5).error_kind == "timeout"
    lock.release()

