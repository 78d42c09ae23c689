"""What `ptxconf bench` prints of its scaling runs (ptxconf/bench.py `lane_phase`, `_lines`),
on hand-made figures: no GPU and no timing here (the figures themselves come from a GPU node).

A scaling run reports, beside its wall time, what its lanes did: the span from the first job's
start to the last job's end and their busy seconds summed, from the run's meta.lanes timeline
(jobs with start and end in seconds since the pool started). Worked by hand below.
"""

from __future__ import annotations

from ptxconf.bench import _lines, lane_phase

#: Three jobs on two lanes: 1.0-2.5 and 2.5-4.0 on one, 1.5-3.0 on the other.
TIMELINE = [{"provider": "gpu-sweep", "cases": 32, "pid": 1, "start": 1.0, "end": 2.5},
            {"provider": "gpu-wmma", "cases": 1, "pid": 2, "start": 1.5, "end": 3.0},
            {"provider": "gpu-sweep", "cases": 30, "pid": 1, "start": 2.5, "end": 4.0}]


def test_lane_phase_spans_first_start_to_last_end_and_sums_the_jobs() -> None:
    got = lane_phase({"gpus": 1, "lanes": 2, "jobs": 3, "timeline": TIMELINE})
    # span 4.0 - 1.0 = 3.0 s; busy 1.5 + 1.5 + 1.5 = 4.5 lane-s
    assert got == {"lanes": 2, "lanes_span_s": 3.0, "lanes_busy_s": 4.5}


def test_a_run_without_lanes_has_no_lane_phase() -> None:
    assert lane_phase(None) == {}
    assert lane_phase({"gpus": 1, "lanes": 12, "timeline": []}) == {}


def _figures(two: dict) -> dict:
    run = {"wall_s": 8.0, "lanes": 2, "lanes_span_s": 3.0, "lanes_busy_s": 4.5}
    return {"space": {"wgmma variants": 1}, "device": {"unusable": "no GPU"},
            "scaling": {"one_gpu": {"workers_1": {"wall_s": 16.0}, "workers_2": run, "ratio": 2.0},
                        "two_gpus": two}}


def test_scaling_lines_say_what_the_lanes_did() -> None:
    two = {"gpus_1": {"wall_s": 8.0}, "gpus_2": {"wall_s": 5.0, "lanes": 4, "lanes_span_s": 1.5,
                                                  "lanes_busy_s": 5.0},
           "workers_per_gpu": 2, "ratio": 1.6}
    lines = _lines(_figures(two))
    assert lines[2] == ("one GPU, warm: 1 probe worker 16.0 s, 2 workers sharing it 8.0 s (its 2 "
                        "lanes: 3.0 s from the first job to the last, 4.5 lane-s busy): 2.0x")
    assert lines[3] == ("two GPUs, warm: 8.0 s on one, 5.0 s on two (its 4 lanes: 1.5 s from the "
                        "first job to the last, 5.0 lane-s busy) (2 workers each): 1.6x")


def test_an_unmeasured_two_gpu_ratio_says_why() -> None:
    lines = _lines(_figures({"unmeasured": "1 visible GPU(s): the 1-vs-2-GPU ratio needs a node "
                                           "with two"}))
    assert lines[3] == "two GPUs, warm: 1 visible GPU(s): the 1-vs-2-GPU ratio needs a node with two"
