"""What a lane process takes from its run (ptxconf.app.lane): how many probe servers its GPU
has, and its PTXCONF_*/CUDA_* variables."""

from __future__ import annotations

import pytest

from ptxconf.app import lane


@pytest.mark.parametrize(("raw", "servers"), [("0", 0), ("3", 3), ("", lane.SERVERS_PER_GPU),
                                              ("two", lane.SERVERS_PER_GPU)])
def test_the_probe_servers_a_gpu_has_come_from_the_environment_or_the_default(
        monkeypatch: pytest.MonkeyPatch, raw: str, servers: int) -> None:
    monkeypatch.setenv("PTXCONF_PROBE_SERVERS", raw)
    assert lane.servers_per_gpu() == servers


def test_a_lane_takes_the_runs_variables_and_its_server_folder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", "/tmp/run-cache")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    monkeypatch.setenv("HOME_OF_SOMETHING_ELSE", "x")
    setup = lane.lane_setup("/tmp/kernels", proof_cache=False, server_dir="/tmp/sockets")
    env = dict(setup.env)
    assert env["PTXCONF_CACHE_DIR"] == "/tmp/run-cache"
    assert env["CUDA_VISIBLE_DEVICES"] == "1"
    assert "HOME_OF_SOMETHING_ELSE" not in env
    assert env["PTXCONF_KERNEL_CACHE"] == "/tmp/kernels"
    assert (setup.proof_cache, setup.server_dir) == (False, "/tmp/sockets")


def test_a_lanes_waits_count_its_private_worker_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job whose cases may fault runs on the lane's private probe worker (not the shared
    probe server): its calls, waits and GPU seconds count in the job's figures like the
    server's."""
    from types import SimpleNamespace

    from ptxconf.app import lane
    from ptxconf.gpu.session import SESSION_RESOURCE

    server = SimpleNamespace(calls=3, worker_s=0.5, round_trip_s=0.75, gpu_s=0.125)
    private = SimpleNamespace(calls=2, worker_s=1.0, round_trip_s=4.0, gpu_s=0.25)
    ctx = SimpleNamespace(shared={SESSION_RESOURCE: SimpleNamespace(runner=server)})
    monkeypatch.setitem(lane._LANE, 0, (None, ctx))
    monkeypatch.setitem(lane._PRIVATE, 0, private)
    assert lane._probe_counters(0) == (5, 1.5, 4.75, 0.375)
    monkeypatch.setitem(lane._PRIVATE, 0, server)  # one worker: counted once
    assert lane._probe_counters(0) == (3, 0.5, 0.75, 0.125)
