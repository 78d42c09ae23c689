"""GPU job transcripts (ptxconf.gpu.transcript): a warm run replays a job's probe calls and
takes the kept results only where every answer is the recorded one; anything else runs the job
in full. Shown against the emulator, which stands in for the probe worker."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from emulator import SPEC, Emulator
from replaying import lane_job, replay_or_run

from ptxconf.core.results import Status
from ptxconf.gpu import transcript as T


@pytest.mark.parametrize("name", ["gpu-sweep", "gpu-wmma", "gpu-ldmatrix", "gpu-tma_pairing"])
def test_a_replayed_job_gives_the_results_its_run_gave(tmp_path: Path, name: str) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    prov, ids = lane_job(name)
    assert kept.size(prov, ids) == 0
    first, replayed = replay_or_run(Emulator(SPEC), kept, prov, ids)
    assert not replayed
    assert all(r.status is Status.PASS for r in first)
    [path] = tmp_path.iterdir()
    assert kept.size(prov, ids) == path.stat().st_size > 0  # what the replay routing weighs
    ran: list[str] = []
    emu = Emulator(SPEC)
    again, replayed = replay_or_run(emu, kept, prov, ids, ran)
    assert replayed, kept.miss
    assert not ran
    assert [(r.id, r.status, r.message, r.code) for r in again] == \
        [(r.id, r.status, r.message, r.code) for r in first]
    assert all(r.fields.pop("replayed") for r in again)
    assert [r.fields for r in again] == [r.fields for r in first]
    assert sum(n for c, n in emu.calls.items() if c.startswith("run_")) >= 1  # the GPU was asked


def test_an_answer_unlike_the_recorded_one_runs_the_job_in_full(tmp_path: Path) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    prov, ids = lane_job("gpu-sweep")
    replay_or_run(Emulator(SPEC), kept, prov, ids)
    ran: list[str] = []
    results, replayed = replay_or_run(Emulator(SPEC, wrong="k_off_by_one"), kept, prov, ids, ran)
    assert not replayed
    assert ran == [prov]
    assert kept.miss.startswith("run_wgmma_sweep: the answer differs in ")
    assert all(r.status is Status.FAIL for r in results)  # this run's own verdicts


def test_a_job_with_a_failing_case_keeps_no_transcript(tmp_path: Path) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    prov, ids = lane_job("gpu-sweep")
    results, _ = replay_or_run(Emulator(SPEC, wrong="k_off_by_one"), kept, prov, ids)
    assert any(r.status is Status.FAIL for r in results)
    assert list(tmp_path.iterdir()) == []


def test_a_transcript_of_another_device_is_not_replayed(tmp_path: Path) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    prov, ids = lane_job("gpu-ldmatrix")
    replay_or_run(Emulator(SPEC), kept, prov, ids)
    [path] = tmp_path.iterdir()
    entry = kept._load(path.stem)
    assert entry is not None
    entry["device"] = "NVIDIA H200 (cc 9.0)"
    _write(path, {k: v for k, v in entry.items() if k not in ("calls", "path", "key")},
           entry["calls"])
    _, replayed = replay_or_run(Emulator(SPEC), kept, prov, ids)
    assert not replayed
    assert kept.miss == "recorded on NVIDIA H200 (cc 9.0)"


def _write(path: Path, head: dict[str, object], calls: object = ()) -> None:
    """An entry written as `Transcripts.record` writes one, signed for its file's key."""
    T.write_entry(path, path.stem, head, list(calls))  # type: ignore[call-overload]


class _Boom:
    """Unpickling this runs os.system: a planted entry's attempt at running code."""

    def __reduce__(self):
        return (os.system, ("touch /tmp/ptxconf-transcript-pwned",))


@pytest.mark.parametrize("form", ["edited", "code", "symlink", "truncated"])
def test_a_hostile_entry_is_never_used_and_runs_nothing(
        tmp_path: Path, plant: Callable[[Path, str, str], None], form: str) -> None:
    kept = T.Transcripts(SPEC, tmp_path)
    prov, ids = lane_job("gpu-ldmatrix")
    first, _ = replay_or_run(Emulator(SPEC), kept, prov, ids)
    [path] = tmp_path.iterdir()
    data = path.read_bytes()
    marker = Path("/tmp/ptxconf-transcript-pwned")
    marker.unlink(missing_ok=True)
    if form == "edited":  # a byte of the payload changed, the digest left
        path.write_bytes(data[:-40] + bytes([data[-40] ^ 1]) + data[-39:])
    elif form == "code":  # signed correctly (no $PTXCONF_CACHE_KEY here), but builds os.system
        _write(path, {"version": T.VERSION, "ncalls": 0, "results": [_Boom()]})
    elif form == "symlink":
        plant(path, "symlink", "")
    else:
        path.write_bytes(data[: len(data) // 2])
    ran: list[str] = []
    results, replayed = replay_or_run(Emulator(SPEC), kept, prov, ids, ran)
    assert not replayed
    assert ran == [prov]
    assert kept.miss == "no usable transcript"
    assert not marker.exists()
    assert [r.status for r in results] == [r.status for r in first]


def test_pruning_removes_the_least_recently_used_transcripts_first(tmp_path: Path) -> None:
    for n, name in enumerate(["old", "used", "new"]):
        path = tmp_path / f"{name}.bin"
        path.write_bytes(b"x" * 100)
        os.utime(path, (1000 + n, 1000 + n))
    os.utime(tmp_path / "used.bin", (5000, 5000))  # replayed lately
    assert T.prune(tmp_path, max_bytes=250) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.bin", "used.bin"]
    assert T.prune(tmp_path, max_bytes=100) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["used.bin"]
