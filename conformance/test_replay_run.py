"""A warm GPU run's replay (ptxconf.app.replay_run): every job with a kept transcript is
replayed from the main process, the jobs that may fault on workers of their own, and each other
job is named with why it was not replayed (it then runs in lanes). Shown against the emulator,
which stands in for the probe workers."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from emulator import SPEC, Emulator
from replaying import EmulatedReplayWorker, lane_job, replay_or_run

from ptxconf.app import gpu_run, replay_run
from ptxconf.app.check_lines import kernels_line, replay_misses_line
from ptxconf.app.lane import Job, _may_fault
from ptxconf.app.providers import REGISTRY
from ptxconf.app.replay_run import FAULT_WORKERS_PER_GPU, FirstReplay, Replayed, _replay, replay_workers
from ptxconf.app.run_options import RunOptions
from ptxconf.core.results import Result, Status
from ptxconf.gpu import transcript as T
from ptxconf.gpu.kcache import Built
from ptxconf.gpu.plan import plan


def _pool(bulk: int = 2, faulting: int = 2) -> Any:
    return SimpleNamespace(spec=SPEC, gpus=1, wait_started=lambda: None, runners={
        (0, "bulk"): [EmulatedReplayWorker(Emulator(SPEC)) for _ in range(bulk)],
        (0, "faulting"): [Emulator(SPEC) for _ in range(faulting)]})


def test_a_warm_replay_takes_every_kept_job_and_names_each_miss(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    kept = T.Transcripts(SPEC)
    named = [lane_job("gpu-wmma", 0), lane_job("gpu-sweep", 0), lane_job("gpu-ldmatrix", 0),
             lane_job("gpu-tma_pairing", 0)]
    assert any(_may_fault(SPEC, i) for i in named[0][1])  # the wmma job faults on purpose
    for prov, ids in named[:3]:
        replay_or_run(Emulator(SPEC), kept, prov, ids)
    jobs = [Job(prov, ids, 0) for prov, ids in named]
    built = {k: Built(k, True, f"/cubins/{n}.cubin", True, 0.0)
             for n, k in enumerate(plan(SPEC).keys)}
    emitted: list[Result] = []
    out = _replay(_pool(), jobs, built, emitted.append)
    assert sorted(out.done) == [0, 1, 2], out.misses
    assert out.misses == {3: "no usable transcript"}
    assert [r.id for n in (0, 1, 2) for r in out.done[n]] == \
        [i for _, ids in named[:3] for i in ids]
    assert all(r.fields.get("replayed") for n in out.done for r in out.done[n])
    assert sorted(r.id for r in emitted) == sorted(i for _, ids in named[:3] for i in ids)
    by_provider = {t["provider"]: t for t in out.timeline}
    assert by_provider["gpu-wmma"]["worker"].startswith("gpu0-faulting")
    assert by_provider["gpu-sweep"]["worker"].startswith("gpu0-bulk")
    assert by_provider["gpu-tma_pairing"]["miss"] == "no usable transcript"


def test_a_moved_answer_leaves_its_job_to_the_lanes_and_the_others_replayed(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    kept = T.Transcripts(SPEC)
    named = [lane_job("gpu-sweep", 0), lane_job("gpu-ldmatrix", 0)]
    for prov, ids in named:
        replay_or_run(Emulator(SPEC), kept, prov, ids)
    pool = _pool(bulk=1, faulting=0)
    pool.runners[(0, "bulk")] = [EmulatedReplayWorker(Emulator(SPEC, wrong="k_off_by_one"))]
    built = {k: Built(k, True, f"/cubins/{n}.cubin", True, 0.0)
             for n, k in enumerate(plan(SPEC).keys)}
    out = _replay(pool, [Job(p, ids, 0) for p, ids in named], built, lambda r: None)
    assert list(out.done) == [1]
    assert out.misses[0].startswith("run_wgmma_sweep: the answer differs in ")


def test_the_kernels_line_says_how_many_jobs_were_replayed_and_by_what() -> None:
    kernels = {"modules": 52, "compiled": 0, "from_cache": 52}
    replay = {"mode": "replay", "gpus": 1, "lanes": 7, "jobs": 319, "replayed_jobs": 318}
    assert kernels_line(kernels, replay).endswith(
        "; 318 of 319 GPU jobs replayed from their transcripts by 7 probe workers on 1 GPU(s)")
    # the job that missed ran in a lane
    mixed = {"gpus": 1, "lanes": 1, "jobs": 1, "replay": replay}
    assert kernels_line(kernels, mixed).endswith(
        "by 7 probe workers on 1 GPU(s); GPU cases over 1 GPU(s) x 1 workers")


def test_the_replay_runs_on_one_gpu_whatever_is_asked_and_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    class OnePool:
        def __init__(self, spec: Any, gpus: int) -> None:
            seen.append(gpus)

        def run(self, jobs: Any, built: Any, emit: Any) -> Replayed:
            seen.extend(j.device for j in jobs)
            return Replayed(done={n: [] for n in range(len(jobs))})

        def close(self, *, wait: bool = True) -> None:
            pass

    groups = [("gpu-sweep", ("a",)), ("gpu-sweep", ("b",)), ("gpu-wmma", ("c",))]
    monkeypatch.setattr(replay_run, "ReplayPool", OnePool)
    monkeypatch.setattr(replay_run, "_kept_plan", lambda spec, folder: (groups, {}))
    got = replay_run.replay_first(SPEC, [], lambda i: True, full=True, kernel_cache=True,
                                  gpus=2, emit=lambda r: None, started=lambda: None)
    assert got is not None
    assert seen == [1, 0, 0, 0]  # one GPU's workers; every job on GPU 0
    assert (got.info["gpus"], got.info["gpus_asked"]) == (1, 2)
    line = kernels_line({"modules": 1, "compiled": 0, "from_cache": 1},
                        {**got.info, "replayed_jobs": 3, "lanes": 7})
    assert line.endswith(f"on 1 GPU(s) (2 asked for: {replay_run.REPLAY_ON_ONE_GPU})")


@pytest.mark.gpu
def test_a_warm_check_on_a_gpu_replays_every_job_and_starts_no_lane(tmp_path: Path) -> None:
    from ptxconf.gpu.session import gpu_problem

    if (why := gpu_problem()) is not None:
        pytest.skip(why)
    env = {**os.environ, "PTXCONF_CACHE_DIR": str(tmp_path / "cache")}
    metas = []
    for run in ("cold", "warm"):
        out = subprocess.run([sys.executable, "-m", "ptxconf", "check", "--gpu", "on",
                              "--only", "ldmatrix", "--report-dir", str(tmp_path / run)],
                             env=env, capture_output=True, text=True, timeout=600, check=False)
        assert out.returncode == 0, out.stdout + out.stderr
        data = json.loads((tmp_path / run / "results.json").read_text())
        metas.append((data["meta"]["lanes"], {r["id"]: r["status"] for r in data["results"]}))
    (cold, cold_verdicts), (warm, warm_verdicts) = metas
    assert cold.get("mode") != "replay"
    assert warm["mode"] == "replay"
    assert warm["replayed_jobs"] == warm["jobs"] == cold["jobs"] > 0
    assert "warm_up" not in warm  # no lane pool started
    assert warm_verdicts == cold_verdicts


def test_a_job_the_replay_did_not_take_is_named_with_why() -> None:
    replay = {"mode": "replay", "gpus": 1, "lanes": 7, "jobs": 319, "replayed_jobs": 318,
              "misses": [{"provider": "gpu-sweep", "first_case": "gpu.sweep[x]",
                          "why": "run_wgmma_sweep: the answer differs in [0][3].regs"}]}
    line = replay_misses_line({"gpus": 1, "lanes": 1, "jobs": 1, "replay": replay})
    assert line == ("replay: 1 of 319 GPU jobs ran in full, not from their transcripts (first: "
                    "gpu-sweep gpu.sweep[x]: run_wgmma_sweep: the answer differs in [0][3].regs)")
    assert replay_misses_line({**replay, "misses": [], "replayed_jobs": 319}) is None
    assert replay_misses_line({"gpus": 1, "lanes": 12, "jobs": 319}) is None  # a cold run


@pytest.mark.parametrize("replayed", [0, 1])
def test_a_replay_that_took_nothing_leaves_every_job_to_a_cold_runs_lanes(
        monkeypatch: pytest.MonkeyPatch, replayed: int) -> None:
    # nothing replayed (another device, an unusable GPU): the lanes plan and check the device
    # as in a cold run; some replayed: only the jobs left go to lanes
    done = Result("a[0]", "a", Status.PASS, "replayed", provider="gpu-sweep")
    left = [Job("gpu-sweep", ("a[1]",), 0)]
    got = FirstReplay([done] * replayed, left, {}, {"mode": "replay"})
    monkeypatch.setattr(replay_run, "replay_first", lambda *a, **k: got)
    asked: list[Any] = []

    def lanes(*args: Any, **kw: Any) -> list[Result]:
        asked.append(args[8] if len(args) > 8 else kw.get("jobs"))
        return [Result("a[1]", "a", Status.PASS, "ran", provider="gpu-sweep")]

    monkeypatch.setattr(gpu_run, "_in_lanes", lanes)
    opts = RunOptions(gpu="on")
    out = gpu_run._replay_first((), SPEC, opts, list, lambda r: None,
                                threading.Event(), lambda: 1)
    assert out is not None
    assert [r.id for r in out] == ["a[0]"] * replayed + ["a[1]"]
    assert [j if j is None else [x.ids for x in j] for j in asked] == \
        ([None] if not replayed else [[("a[1]",)]])


@pytest.mark.parametrize("left", [0, 1])
def test_a_warm_replay_asks_the_gpu_count_only_for_the_jobs_it_leaves(
        monkeypatch: pytest.MonkeyPatch, left: int) -> None:
    # --gpus all: the replay runs on REPLAY_GPUS whatever the count; the driver is asked only
    # where jobs are left for lanes (after the replay); the line says what --gpus asked
    order: list[str] = []
    rest = [Job("gpu-sweep", ("a[1]",), 0)] * left
    got = FirstReplay([Result("a[0]", "a", Status.PASS, "replayed", provider="gpu-sweep")], rest,
                      {}, {"mode": "replay", "gpus": 1, "gpus_asked": 1, "replayed_jobs": 1,
                           "jobs": 1 + left, "lanes": 6})

    def replay(*a: Any, gpus: int, **k: Any) -> FirstReplay:
        order.append(f"replay on {gpus}")
        return got

    def count() -> int:
        order.append("count")
        return 2

    def lanes(*a: Any, **k: Any) -> list[Result]:
        order.append(f"lanes over {a[6]}")
        return []

    monkeypatch.setattr(replay_run, "replay_first", replay)
    monkeypatch.setattr(gpu_run, "_in_lanes", lanes)
    out = gpu_run._replay_first((), SPEC, RunOptions(gpu="on", gpus="all"), list,
                                lambda r: None, threading.Event(), count)
    assert out is not None
    assert order == [f"replay on {replay_run.REPLAY_GPUS}"] + ["count", "lanes over 2"] * left
    assert got.info["gpus_asked"] == "all"
    line = kernels_line({"modules": 1, "compiled": 0, "from_cache": 1}, got.info)
    assert line.endswith(f"on 1 GPU(s) (all asked for: {replay_run.REPLAY_ON_ONE_GPU})")


def test_a_run_that_will_replay_starts_no_gpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    # what a warm --gpus all run does before its replay is what a --gpus 1 run does; a cold
    # one asks the driver on a thread at once (its lanes are placed over the GPUs)
    asked: list[str] = []
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name == "cupy" else None)
    monkeypatch.setattr(gpu_run, "_asked_later", lambda opts: asked.append("count") or None)
    monkeypatch.setattr(gpu_run, "_replay_first", lambda *a: [])
    monkeypatch.setattr(gpu_run, "_in_lanes", lambda *a, **k: [])
    monkeypatch.setattr(replay_run, "keep_run", lambda *a, **k: None)
    provs = tuple(p for p in REGISTRY if p.gpu)
    for kept, want in ((True, []), (False, ["count"])):
        asked.clear()
        monkeypatch.setattr(replay_run, "run_kept", lambda spec, kept=kept: kept)
        gpu_run.gpu_results(provs, SPEC, RunOptions(gpu="on", gpus="all", workers_per_gpu=4),
                            None, lambda r: None, threading.Event(), list)  # type: ignore[arg-type]
        assert asked == want


def test_the_worker_counts_follow_their_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTXCONF_REPLAY_WORKERS", "5")
    monkeypatch.setenv("PTXCONF_FAULT_WORKERS", "x")
    assert replay_workers() == (5, FAULT_WORKERS_PER_GPU)
    monkeypatch.setenv("PTXCONF_FAULT_WORKERS", "7")
    assert replay_workers() == (5, 7)


def test_a_gpu_count_asked_of_the_driver_is_awaited_only_where_it_is_used(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # --gpus all: the driver's answer comes on a thread of its own while the run goes on;
    # the count is what the asking gave, and what the asking raised is raised
    going_on = threading.Event()
    monkeypatch.setattr(gpu_run, "_gpus_asked", lambda opts: 2 if going_on.wait(10) else 0)
    count = gpu_run._asked_later(RunOptions(gpu="on", gpus="all"))
    assert count is not None
    going_on.set()  # had the asking held up this thread, it would never have come here
    assert count() == 2

    def broken(opts: RunOptions) -> int:
        raise RuntimeError("no driver")

    monkeypatch.setattr(gpu_run, "_gpus_asked", broken)
    failing = gpu_run._asked_later(RunOptions(gpu="on", gpus="2"))
    assert failing is not None
    with pytest.raises(RuntimeError, match="no driver"):
        failing()
    assert gpu_run._asked_later(RunOptions(gpu="on", gpus="1")) is None
    assert gpu_run._asked_later(RunOptions(gpu="off", gpus="all")) is None
