"""What `ptxconf bench` prints of its scaling runs (src/ptxconf/app/bench.py `lane_phase`, `_lines`),
on hand-made figures: no GPU and no timing here (the figures themselves come from a GPU node).

A scaling run reports, beside its wall time, what its lanes did: the span from the first job's
start to the last job's end and their busy seconds summed, from the run's meta.lanes timeline
(jobs with start and end in seconds since the pool started). Worked by hand below.
"""

from __future__ import annotations

from ptxconf.app.bench import _lines, lane_phase

#: Three jobs on two lanes: 1.0-2.5 and 2.5-4.0 on one, 1.5-3.0 on the other.
TIMELINE = [{"provider": "gpu-sweep", "cases": 32, "pid": 1, "start": 1.0, "end": 2.5},
            {"provider": "gpu-wmma", "cases": 1, "pid": 2, "start": 1.5, "end": 3.0},
            {"provider": "gpu-sweep", "cases": 30, "pid": 1, "start": 2.5, "end": 4.0}]


def test_lane_phase_spans_first_start_to_last_end_and_sums_the_jobs() -> None:
    got = lane_phase({"gpus": 1, "lanes": 2, "jobs": 3, "timeline": TIMELINE})
    # span 4.0 - 1.0 = 3.0 s; busy 1.5 + 1.5 + 1.5 = 4.5 lane-s
    assert got == {"lanes": 2, "lane_pool": True, "lanes_span_s": 3.0, "lanes_busy_s": 4.5}


def test_a_kernel_landing_is_not_a_lane_job() -> None:
    # a module that lands at 0.5 s (before any job) neither starts the span nor adds busy time
    landed = {"provider": "kernel-build", "module": "wgmma:00", "cases": 0, "pid": 0,
              "start": 0.5, "end": 0.5}
    got = lane_phase({"gpus": 1, "lanes": 2, "timeline": [landed, *TIMELINE]})
    assert got == {"lanes": 2, "lane_pool": True, "lanes_span_s": 3.0, "lanes_busy_s": 4.5}


def test_the_lanes_waits_for_their_probe_workers_are_summed_where_every_job_has_them() -> None:
    waits = [{**j, "calls": 2, "wait_s": w, "probe_s": p}
             for j, w, p in zip(TIMELINE, (0.5, 0.25, 1.0), (0.25, 0.125, 0.5), strict=True)]
    got = lane_phase({"gpus": 1, "lanes": 2, "timeline": waits})
    # waits 0.5 + 0.25 + 1.0 = 1.75 lane-s; the workers' own 0.25 + 0.125 + 0.5 = 0.875 s
    assert got == {"lanes": 2, "lane_pool": True, "lanes_span_s": 3.0, "lanes_busy_s": 4.5,
                   "lanes_wait_s": 1.75, "probe_s": 0.88}
    # one job without them (a lane of an older run): no sums that leave it out
    assert "lanes_wait_s" not in lane_phase({"lanes": 2, "timeline": [*waits[:2], TIMELINE[2]]})
    run = {"wall_s": 8.0, **got}
    assert _lines(_figures(run=run))[2].endswith(
        "(its 2 lanes: 3.0 s from the first job to the last, 4.5 lane-s busy, 1.75 of them "
        "waiting for the probe workers, which worked 0.88 s): 2.0x")


def test_a_warm_run_that_replayed_every_job_started_no_lane_pool() -> None:
    replayed = [{**j, "replayed": True} for j in TIMELINE]
    got = lane_phase({"mode": "replay", "gpus": 1, "lanes": 2, "timeline": replayed})
    assert got["lane_pool"] is False
    assert got["jobs_replayed"] == 3
    # one job missed: it ran in lanes, whose timeline the run's lanes hold beside the replay's
    missed = {"gpus": 1, "lanes": 1, "timeline": [TIMELINE[2]],
              "replay": {"mode": "replay", "lanes": 2, "timeline": replayed[:2]}}
    got = lane_phase(missed)
    assert got["lane_pool"] is True
    assert got["jobs_replayed"] == 2
    assert got["lanes_busy_s"] == 4.5


def test_a_run_without_lanes_has_no_lane_phase() -> None:
    assert lane_phase(None) == {}
    assert lane_phase({"gpus": 1, "lanes": 12, "timeline": []}) == {}


def _figures(two: dict | None = None, run: dict | None = None) -> dict:
    run = run or {"wall_s": 8.0, "lanes": 2, "lanes_span_s": 3.0, "lanes_busy_s": 4.5}
    two = two or {"unmeasured": "no second GPU"}
    return {"space": {"wgmma variants": 1}, "device": {"unusable": "no GPU"},
            "scaling": {"one_gpu": {"workers_1": {"wall_s": 16.0}, "workers_2": run, "ratio": 2.0},
                        "two_gpus": two}}


def test_scaling_lines_say_what_the_lanes_did() -> None:
    two = {"gpus_1": {"wall_s": 8.0, "workers_per_gpu": 4},
           "gpus_2": {"wall_s": 5.0, "workers_per_gpu": 2, "lanes": 4, "lanes_span_s": 1.5,
                      "lanes_busy_s": 5.0},
           "ratio": 1.6}
    lines = _lines(_figures(two))
    assert lines[2] == ("one GPU, warm: 1 probe worker 16.0 s, 2 workers sharing it 8.0 s (its 2 "
                        "lanes: 3.0 s from the first job to the last, 4.5 lane-s busy): 2.0x")
    assert lines[3] == ("two GPUs, warm: 8.0 s on one (4 workers), 5.0 s on two (the same lanes "
                        "split, 2 workers each) (its 4 lanes: 1.5 s from the first job to the "
                        "last, 5.0 lane-s busy): 1.6x")
    assert len(lines) == 4, "no line for a doubled run that was not made"
    two["gpus_2_doubled_lanes"] = {"wall_s": 6.4, "workers_per_gpu": 4, "ratio": 1.25, "lanes": 8,
                                   "lanes_span_s": 2.0, "lanes_busy_s": 3.5}
    assert _lines(_figures(two))[4] == (
        "two GPUs, each with one GPU's lanes (4 workers each): 6.4 s (its 8 lanes: 2.0 s from the "
        "first job to the last, 3.5 lane-s busy): 1.25x")


def test_an_unmeasured_two_gpu_ratio_says_why() -> None:
    lines = _lines(_figures({"unmeasured": "1 visible GPU(s): the 1-vs-2-GPU ratio needs a node "
                                           "with two"}))
    assert lines[3] == "two GPUs, warm: 1 visible GPU(s): the 1-vs-2-GPU ratio needs a node with two"


def test_scaling_asks_for_each_run_and_divides_the_walls(monkeypatch, tmp_path) -> None:
    """On two GPUs: one GPU with its default lanes against two GPUs with the same lanes split
    (the default), and against each GPU with one GPU's lanes; each ratio is the one-GPU wall
    over the other's."""
    from ptxconf.app import bench, lanes

    asked: list[list[str]] = []
    walls = {("1",): 16.0, ("2",): 8.0, ("1", "6"): 9.0, ("2", "3"): 6.0, ("2", "6"): 7.5}

    def fake_check(args: list[str], env: dict, report_dir) -> dict:
        asked.append(args)
        gpus = args[args.index("--gpus") + 1] if "--gpus" in args else None
        workers = args[args.index("--workers-per-gpu") + 1]
        key = (workers,) if gpus is None else (gpus, workers)
        return {"command": " ".join(args), "wall_s": walls[key], "exit_code": 0}

    monkeypatch.setattr(bench, "_check", fake_check)
    monkeypatch.setattr(lanes, "auto_workers", lambda gpus: 6 // gpus)
    one = bench.scaling(tmp_path, gpus=1)
    assert one["one_gpu"]["ratio"] == 2.0
    assert "unmeasured" in one["two_gpus"]
    assert len(asked) == 2
    two = bench.scaling(tmp_path, gpus=2)["two_gpus"]
    assert asked[-3:] == [["--gpu", "on", "--gpus", "1", "--workers-per-gpu", "6"],
                          ["--gpu", "on", "--gpus", "2", "--workers-per-gpu", "3"],
                          ["--gpu", "on", "--gpus", "2", "--workers-per-gpu", "6"]]
    assert (two["ratio"], two["gpus_2"]["workers_per_gpu"]) == (1.5, 3)
    assert (two["gpus_2_doubled_lanes"]["ratio"], two["gpus_2_doubled_lanes"]["workers_per_gpu"]) == (
        1.2, 6)


def test_more_gpus_share_one_gpus_lanes(monkeypatch) -> None:
    """The default lanes: every core but four, at most 16, on one GPU; split over more GPUs
    (rounded up), never added per GPU (the H100 pair measured that slower)."""
    from ptxconf.app import lanes

    for cores, want in ((32, {1: 16, 2: 8, 3: 6}), (16, {1: 12, 2: 6, 4: 3}), (2, {1: 1, 2: 1})):
        monkeypatch.setattr(lanes.os, "cpu_count", lambda c=cores: c)
        assert {g: lanes.auto_workers(g) for g in want} == want


def test_a_warm_run_is_recorded_as_computing_no_cpu_result() -> None:
    """`computed`: per CPU provider, the results not taken from a cache (a warm run: all 0)."""
    from ptxconf.app.bench import _computed

    results = [{"provider": "proofs", "fields": {"cached": True}},
               {"provider": "proofs", "fields": {}},
               {"provider": "self-consistency", "fields": {"cached": True}},
               {"provider": "gpu-sweep", "fields": {}}]
    assert _computed(results) == {"self-consistency": 0, "proofs": 1, "assembler-witness": 0}
    assert _computed(results[:1] + results[2:3]) == {"self-consistency": 0, "proofs": 0,
                                                      "assembler-witness": 0}


def test_each_familys_host_seconds_are_its_jobs_time_less_their_waits() -> None:
    """`family_seconds`: per provider, its jobs' lane time, of which host work (less the waits
    for the probe workers) and the workers' own seconds; worked by hand on TIMELINE."""
    from ptxconf.app.bench import family_seconds

    waits = [{**j, "calls": 2, "wait_s": w, "probe_s": p}
             for j, w, p in zip(TIMELINE, (0.5, 0.25, 1.0), (0.25, 0.125, 0.5), strict=True)]
    landed = {"provider": "kernel-build", "module": "wgmma:00", "cases": 0, "pid": 0,
              "start": 0.5, "end": 0.5}
    got = family_seconds({"gpus": 1, "lanes": 2, "timeline": [landed, *waits]})
    # gpu-sweep: 1.5 + 1.5 = 3.0 lane-s, host (1.5 - 0.5) + (1.5 - 1.0) = 1.5, workers 0.75;
    # gpu-wmma: 1.5 lane-s, host 1.25, worker 0.125 (rounded to 0.12); longest first
    assert got == {"gpu-sweep": {"jobs": 2, "lane_s": 3.0, "host_s": 1.5, "worker_s": 0.75},
                   "gpu-wmma": {"jobs": 1, "lane_s": 1.5, "host_s": 1.25, "worker_s": 0.12}}
    # a warm run's replay first, then the lanes of the jobs it left: both timelines count
    replay = {"mode": "replay", "timeline": [{**waits[1], "start": 0.0, "end": 0.5,
                                              "wait_s": 0.5}]}
    both = family_seconds({"gpus": 1, "lanes": 2, "timeline": waits[:1], "replay": replay})
    assert both == {"gpu-sweep": {"jobs": 1, "lane_s": 1.5, "host_s": 1.0, "worker_s": 0.25},
                    "gpu-wmma": {"jobs": 1, "lane_s": 0.5, "host_s": 0.0, "worker_s": 0.12}}
    assert family_seconds(None) == {}


def test_the_bench_prints_each_familys_host_and_worker_seconds() -> None:
    from ptxconf.app.bench import family_seconds

    waits = [{**j, "calls": 2, "wait_s": 0.5, "probe_s": 0.25} for j in TIMELINE]
    lanes = {"gpus": 1, "lanes": 2, "timeline": waits}
    run = {"command": "ptxconf --gpu on", "wall_s": 9.0, "exit_code": 0, "lanes": lanes,
           "families": family_seconds(lanes)}  # as `_check` records a run
    figures = {"space": {}, "device": {"name": "H200"},
               "check_gpu_on": {"cold": run, "warm": {**run, "lanes": None, "families": {}},
                                "warm_walls_s": [9.0]}}
    lines = _lines(figures)
    assert ("per family, cold (host s in the lanes / the probe workers' s): "
            "gpu-sweep 2.0/0.5, gpu-wmma 1.0/0.25") in lines
    assert not any(line.startswith("per family, warm") for line in lines)


def test_the_gpus_own_kernel_seconds_are_summed_per_family_and_per_run() -> None:
    """Jobs that recorded the GPU's kernel seconds (`gpu_s`, CUDA events in the probe worker)
    give each family its sum and the run a total; the lines print both. Worked by hand."""
    from ptxconf.app.bench import family_seconds, gpu_busy_s

    timed = [{**j, "calls": 1, "wait_s": 0.5, "probe_s": 0.25, "gpu_s": g}
             for j, g in zip(TIMELINE, (0.0125, 0.5, 0.0375), strict=True)]
    fams = family_seconds({"gpus": 1, "lanes": 2, "timeline": timed})
    assert {p: r["gpu_s"] for p, r in fams.items()} == {"gpu-sweep": 0.05, "gpu-wmma": 0.5}
    assert gpu_busy_s(fams) == 0.55
    assert gpu_busy_s(family_seconds({"timeline": TIMELINE})) is None  # never recorded: no 0
    run = {"command": "ptxconf --gpu on", "wall_s": 3.0, "exit_code": 0, "families": fams,
           "gpu_busy_s": gpu_busy_s(fams)}
    lines = _lines({"space": {}, "device": {"name": "H200"},
                    "check_gpu_on": {"cold": run, "warm": {**run, "families": {},
                                                           "gpu_busy_s": None},
                                     "warm_walls_s": [3.0]}})
    assert lines[2].endswith("; the GPU's time in kernels at most 0.55 s")
    assert not lines[3].endswith("kernels 0.55 s")  # the warm run recorded none
    assert ("per family, cold (host s in the lanes / the probe workers' s / the GPU's own s "
            "in kernels): gpu-sweep 2.0/0.5/0.05, gpu-wmma 1.0/0.25/0.5") in lines


def test_the_device_floor_is_the_least_gpu_time_of_the_runs_and_the_walls_are_put_over_it(
        ) -> None:
    """Worked by hand: cold 0.9 s of kernels, warm 2.1 s (its contexts took turns): the floor
    is 0.9 s, the walls 13.5 s and 3.6 s are 15.0x and 4.0x it; no figure, no floor."""
    from ptxconf.app.bench import device_floor

    on = {"cold": {"wall_s": 13.5, "gpu_busy_s": 0.9}, "warm": {"wall_s": 3.6, "gpu_busy_s": 2.1}}
    floor = device_floor(on)
    assert floor == {"gpu_busy_s": 0.9, "cold_wall_over_floor": 15.0, "warm_wall_over_floor": 4.0}
    lines = _lines({"space": {}, "device": {"name": "H200"}, "device_floor": floor})
    assert lines[2].startswith("device floor: the GPU's time in kernels is at most 0.9 s")
    assert lines[2].endswith("the walls are 15.0x (cold) and 4.0x (warm) that")
    assert device_floor({"cold": {"wall_s": 13.5}, "warm": {"wall_s": 3.6,
                                                           "gpu_busy_s": None}}) is None
