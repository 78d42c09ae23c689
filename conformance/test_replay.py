"""Bulk replay of kept transcripts (ptxconf.gpu.replay): a whole job's recorded calls go to a
probe worker in one message and only a verdict comes back; a warm run that has a record of the
last full run's plan (`Transcripts.keep_run`) plans nothing. Shown against the emulator, which
stands in for the probe worker, and against a real probe worker running the self-test probes."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest
from emulator import SPEC, Emulator, emulated_context
from replaying import EmulatedReplayWorker, lane_job, replay_or_run

from ptxconf.core.results import Status
from ptxconf.core.trust import sign
from ptxconf.gpu import build, kcache, session
from ptxconf.gpu import transcript as T
from ptxconf.gpu.digest import answer_digest
from ptxconf.gpu.plan import plan
from ptxconf.gpu.replay import ReplayWorker, answer_job, replay_file
from ptxconf.gpu.runner import ProbeRunner


def _kept(tmp_path: Path, name: str) -> tuple[T.Transcripts, dict[str, Any], tuple[str, ...]]:
    """A job of `name` run once against the emulator, its transcript kept: the store, the
    entry and the job's ids."""
    kept = T.Transcripts(SPEC, tmp_path)
    prov, ids = lane_job(name)
    replay_or_run(Emulator(SPEC), kept, prov, ids)
    entry, why = kept.entry(prov, ids)
    assert entry is not None, why
    return kept, entry, ids


def _modules(key: str) -> tuple[str, Any, str]:
    return "prepare_wgmma", plan(SPEC).batch(key), f"/cubins/{key}.cubin"


@pytest.mark.parametrize("name", ["gpu-sweep", "gpu-wmma"])
def test_a_job_replayed_in_bulk_takes_the_results_its_run_gave(tmp_path: Path, name: str) -> None:
    kept, entry, ids = _kept(tmp_path, name)
    worker = ReplayWorker(EmulatedReplayWorker(Emulator(SPEC)), _modules)
    assert worker.replay(entry) == ""
    results = kept.taken(entry)
    assert [r.id for r in results] == list(ids)
    assert all(r.fields["replayed"] for r in results)


def test_a_moved_answer_is_a_miss_that_names_the_call_and_what_moved(tmp_path: Path) -> None:
    _, entry, _ = _kept(tmp_path, "gpu-sweep")
    worker = ReplayWorker(EmulatedReplayWorker(Emulator(SPEC, wrong="k_off_by_one")), _modules)
    why = worker.replay(entry)
    assert why.startswith("run_wgmma_sweep: the answer differs in "), why
    assert ".regs" in why


def test_a_job_recorded_on_another_device_is_not_replayed(tmp_path: Path) -> None:
    _, entry, _ = _kept(tmp_path, "gpu-ldmatrix")
    entry["device"] = "NVIDIA H200 (cc 9.0)"
    assert ReplayWorker(EmulatedReplayWorker(Emulator(SPEC)), _modules).replay(entry) == \
        "recorded on NVIDIA H200 (cc 9.0)"


def test_a_module_this_run_has_not_built_is_a_miss(tmp_path: Path) -> None:
    _, entry, _ = _kept(tmp_path, "gpu-sweep")
    assert entry["needs"]
    worker = ReplayWorker(EmulatedReplayWorker(Emulator(SPEC)), lambda key: None)
    assert worker.replay(entry) == "a module it needs is not built or does not load"


def test_a_worker_is_sent_each_module_once_and_again_after_a_restart(tmp_path: Path) -> None:
    _, entry, _ = _kept(tmp_path, "gpu-sweep")
    runner = EmulatedReplayWorker(Emulator(SPEC))
    worker = ReplayWorker(runner, _modules)
    assert worker.replay(entry) == ""
    assert worker.replay(entry) == ""
    wanted = [f"/cubins/{k}.cubin" for k in entry["needs"]]
    assert runner.modules_sent == wanted
    runner.restarts += 1  # a new worker process: nothing loaded in it
    assert worker.replay(entry) == ""
    assert runner.modules_sent == wanted + wanted


def _kept_calls(tmp_path: Path, name: str, calls: list[tuple[str, tuple[Any, ...], str]]) -> str:
    """A kept entry of these (probe, args, answer digest) calls; its path."""
    path = tmp_path / f"{name}.bin"
    T.write_entry(path, name, {"version": T.VERSION, "device": "-", "needs": [],
                               "ncalls": len(calls), "results": []},
                  [T.Call(n, a, {}, None, d) for n, a, d in calls])
    return str(path)


def test_a_probe_worker_replays_a_kept_entry_and_says_which_answer_moved(
        tmp_path: Path) -> None:
    raised = answer_digest(False, "exception", "RuntimeError: boom", None)
    slept = answer_digest(True, None, None, 0.0)
    same = _kept_calls(tmp_path, "same", [("runner.selftest_raise", ("boom",), raised),
                                    ("runner.selftest_sleep", (0.0,), slept)])
    moved = _kept_calls(tmp_path, "moved", [("runner.selftest_sleep", (0.0,), slept),
                                      ("runner.selftest_raise", ("bang",), raised)])
    fault = _kept_calls(tmp_path, "fault", [("runner.selftest_cuda_fault", ("trap",), raised)])
    with ProbeRunner(timeout_s=30) as runner:
        answers = [runner.call("replay.replay_file", [], path, key)
                   for path, key in ((same, "same"), (moved, "moved"), (fault, "fault"),
                                     (same, "another key"))]
    assert [a.ok for a in answers] == [True, True, False, True]
    assert answers[0].value == ""
    assert answers[1].value == "runner.selftest_raise: the answer differs (exception: " \
                               "RuntimeError: bang)"
    assert answers[2].error_kind == "cuda"
    assert answers[3].value == "its transcript changed or went before the worker read it"


def test_replay_file_reads_no_calls_it_cannot_trust_and_loads_no_module_for_none(
        tmp_path: Path) -> None:
    path = _kept_calls(tmp_path, "k", [])
    assert replay_file([], path, "k") == ""
    Path(path).write_bytes(Path(path).read_bytes()[:-3])
    assert replay_file([], path, "k") == "its transcript changed or went before the worker read it"
    marker = tmp_path / "pwned"
    T.write_entry(Path(path), "k", {"version": T.VERSION, "ncalls": 1, "results": []},
                  [_Boom(str(marker))])  # type: ignore[list-item]
    assert replay_file([], path, "k") == "its transcript changed or went before the worker read it"
    assert not marker.exists()


class _Boom:
    """Unpickling this would run a shell command: recorded calls that try to run code."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def test_a_module_not_built_on_the_host_is_prepared_by_its_probe_in_the_worker(
        tmp_path: Path) -> None:
    # the probe named first is called with the variants where no cubin path is given
    with pytest.raises(RuntimeError, match="compiled here"):
        replay_file([("runner.selftest_raise", "compiled here", None)], _kept_calls(tmp_path, "k", []),
                    "k")


def test_a_run_without_lanes_replays_a_whole_job_in_one_worker_call(tmp_path: Path) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    prov, ids = lane_job("gpu-sweep")
    first, _ = replay_or_run(Emulator(SPEC), kept, prov, ids)
    emu = Emulator(SPEC)
    ctx = emulated_context(emu)
    try:
        sess = session.Session(SPEC, emu)
        again = answer_job(kept, sess, prov, ids, lambda: pytest.fail("ran"), bulk=True)
    finally:
        ctx.close()
    assert kept.miss == ""
    assert emu.calls.get("replay.replay_file") == 1
    assert [(r.id, r.status) for r in again] == [(r.id, r.status) for r in first]
    moved = Emulator(SPEC, wrong="k_off_by_one")
    sess = session.Session(SPEC, moved)
    failed = [dataclasses.replace(r, status=Status.FAIL) for r in first]
    ran = answer_job(kept, sess, prov, ids, lambda: failed, bulk=True)
    assert ran == failed  # run in full: this run's own verdicts
    assert kept.miss.startswith("run_wgmma_sweep: the answer differs in ")


def test_a_full_runs_plan_reads_back_for_the_same_code_spec_and_tools(tmp_path: Path) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    assert not kept.run_kept()
    assert kept.run_record(["nvrtc", "driver"]) is None
    groups = [("gpu-sweep", ("a", "b")), ("gpu-wmma", ("c",))]
    kept.keep_run(groups, {"wgmma:00": "ab" * 32 + ".cubin"}, ["nvrtc", "driver"])
    assert kept.run_kept()
    rec = kept.run_record(["nvrtc", "driver"])
    assert rec is not None
    assert [(p, tuple(ids)) for p, ids in rec["groups"]] == groups
    assert rec["modules"] == {"wgmma:00": "ab" * 32 + ".cubin"}
    assert kept.run_record(["nvrtc 2", "driver"]) is None  # other tools built other cubins


@pytest.mark.skipif(build.nvrtc_problem() is not None, reason="NVRTC is not usable here")
def test_a_warm_replay_reads_the_tool_versions_a_cold_run_asked_the_tools_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path))
    asked = kcache.tool_versions()
    assert kcache.kept_tool_versions() == asked  # stamped now
    assert kcache.kept_tool_versions() == asked  # read from the stamps


def test_a_partial_run_says_it_kept_transcripts_but_names_no_plan(tmp_path: Path) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    kept.mark_kept()
    assert kept.run_kept()
    assert kept.run_record(["t"]) is None  # a full run plans afresh


@pytest.mark.parametrize("form", ["edited", "path", "not json"])
def test_a_hostile_run_record_is_not_read(tmp_path: Path, form: str) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    kept.keep_run([("gpu-sweep", ("a",))], {"wgmma:00": "ab" * 32 + ".cubin"}, ["t"])
    [path] = tmp_path.glob("*.run")
    head, payload = path.read_bytes().split(b"\n", 1)
    if form == "edited":
        path.write_bytes(head + b"\n" + payload.replace(b'"a"', b'"b"'))
    else:
        payload = (payload.replace(("ab" * 32).encode(), b"../../etc/passwd") if form == "path"
                   else b"{not json")
        path.write_bytes(sign(path.stem, payload).encode() + b"\n" + payload)
    assert kept.run_record(["t"]) is None


def test_kept_cubins_are_reused_only_where_each_reads_as_cached(tmp_path: Path) -> None:
    names = {}
    for key in ("wgmma:00", "wgmma:01"):
        path = tmp_path / f"{key[-2:] * 32}.cubin"
        path.write_bytes(b"\x7fELF" + key.encode())
        (tmp_path / (path.name + ".digest")).write_text(sign(path.stem, path.read_bytes()))
        names[key] = path.name
    got = kcache.reuse(tmp_path, names)
    assert got is not None
    assert {k: b.path for k, b in got.items()} == \
        {k: str(tmp_path / n) for k, n in names.items()}
    (tmp_path / names["wgmma:01"]).write_bytes(b"\x7fELF tampered")
    assert kcache.reuse(tmp_path, names) is None
