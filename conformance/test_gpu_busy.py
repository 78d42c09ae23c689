"""The GPU's own busy time (`ptxconf.gpu.busy`): each probe call's answer carries the seconds
the GPU spent in its kernels, and the runner sums them; on silicon, a kernel of known length
is timed to within its length and the call's own wall time."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from ptxconf.gpu import busy
from ptxconf.gpu import runner as runner_mod
from ptxconf.gpu.runner import ProbeRunner


class _Conn:
    """A pipe end that keeps what is sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[object, ...]] = []

    def send(self, msg: tuple[object, ...]) -> None:
        self.sent.append(msg)


def _stand_in_cupy(elapsed_ms: float, log: list[str]) -> SimpleNamespace:
    """What `kernels_timed` uses of CuPy: a stream and events that log what is done to them,
    and an elapsed time in milliseconds per pair of events, as CUDA's."""

    class Event:
        def record(self, stream: object) -> None:
            log.append(f"record on {stream}")

        def synchronize(self) -> None:
            log.append("wait for the last event")

    stream = SimpleNamespace(synchronize=lambda: log.append("wait for the stream"),
                             __str__=lambda: "stream")
    cuda = SimpleNamespace(get_current_stream=lambda: "stream", Event=Event,
                           get_elapsed_time=lambda start, end: elapsed_ms)
    return SimpleNamespace(cuda=cuda, stream=stream)


def test_each_launch_is_timed_alone_its_milliseconds_added_as_seconds_and_a_fault_adds_none(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two launches: an event pair around each (the host's work between them is not timed),
    one wait at the end, 2 x 250 ms added as 0.5 s. A launch that raises adds nothing, and its
    events are never freed."""
    log: list[str] = []
    monkeypatch.setitem(sys.modules, "cupy", _stand_in_cupy(250.0, log))
    monkeypatch.setattr(busy, "_TOTAL_S", [1.0])
    with busy.kernels_timed() as timed:
        timed(lambda: log.append("launch 1"))
        log.append("host work")
        timed(lambda: log.append("launch 2"))
    assert log == ["record on stream", "launch 1", "record on stream", "host work",
                   "record on stream", "launch 2", "record on stream", "wait for the last event"]
    assert busy.busy_s() == 1.5

    def fault() -> None:
        raise RuntimeError("cuLaunchKernel: CUDA_ERROR_INVALID_VALUE")

    kept: list[object] = []
    monkeypatch.setattr(busy, "_KEPT", kept)
    with pytest.raises(RuntimeError), busy.kernels_timed() as timed:
        timed(fault)
    assert busy.busy_s() == 1.5
    # its events are kept, not freed: in a lost context CuPy prints each failed destruction
    assert len(kept) == 1


def test_a_group_with_no_launch_waits_for_the_stream_and_adds_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[str] = []
    fake = _stand_in_cupy(250.0, log)
    fake.cuda.get_current_stream = lambda: fake.stream
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(busy, "_TOTAL_S", [0.0])
    with busy.kernels_timed():
        pass
    assert (log, busy.busy_s()) == (["wait for the stream"], 0.0)


def test_an_answer_carries_the_gpu_seconds_its_call_added(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """`answer` sends the change in the worker's busy total over the call, not the total:
    a worker that had timed 2.0 s before the call and 2.25 s after reports 0.25 s, for an
    answer and for a failure alike."""
    readings = iter([2.0, 2.25, 2.25, 3.0])
    monkeypatch.setattr(runner_mod, "busy_s", lambda: next(readings))
    conn = _Conn()
    assert runner_mod.answer(conn, ("runner.selftest_sleep", (0.0,), {})) is False
    assert runner_mod.answer(conn, ("runner.selftest_raise", ("no",), {})) is False
    (ok, *_, ok_gpu), (err, *_, err_gpu) = conn.sent
    assert (ok, ok_gpu) == ("ok", 0.25)
    assert (err, err_gpu) == ("error", 0.75)


def test_calls_that_launch_nothing_report_no_gpu_time() -> None:
    with ProbeRunner(timeout_s=30, start_timeout_s=60) as runner:
        res = runner.call("runner.selftest_sleep", 0.05)
    assert res.ok, res
    assert (res.gpu_s, runner.gpu_s) == (0.0, 0.0)


@pytest.mark.gpu
def test_a_kernel_of_known_length_is_timed_within_its_length_and_the_calls_wall() -> None:
    """On silicon: a kernel that spins 50 ms on the GPU's timer reports at least 50 ms of GPU
    time (and not much more) and no more than the worker's own seconds in the call."""
    from ptxconf.gpu.session import gpu_problem

    if (why := gpu_problem()) is not None:
        pytest.skip(f"timing a kernel needs a usable GPU: {why}")
    with ProbeRunner(timeout_s=120, start_timeout_s=180) as runner:
        runner.call("runner.selftest_spin", 1.0)  # CUDA starts, NVRTC compiles: not timed
        first = runner.gpu_s
        res = runner.call("runner.selftest_spin", 50.0)
    assert res.ok, res
    assert 0.050 <= res.gpu_s < 0.060, res.gpu_s
    assert res.gpu_s <= res.seconds, (res.gpu_s, res.seconds)
    assert runner.gpu_s == pytest.approx(first + res.gpu_s)
