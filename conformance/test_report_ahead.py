"""The report's per-result work done ahead, while a run waits on its GPU jobs
(ptxconf.app.report_ahead): the set written is the one written without it, and what was
worked out ahead is not worked out again."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from ptxconf.app import report_ahead
from ptxconf.app.report import write_reports
from ptxconf.app.report_ahead import Ahead
from ptxconf.app.report_fields import SMALL_FIELDS_CHARS, fields_view, first_oracle
from ptxconf.core.results import Result, Status
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
ORACLE = ("ptxconf oracle smem-offsets --dtype f16 --major K --swizzle 128B --mn 64 --k 16 "
          "--lbo 16 --sbo 1024 --json")
META = {"started": "2026-01-01T00:00:00+00:00", "host": "testhost", "commit": "abc123def456",
        "spec_sha256": "f" * 64, "seconds": 1.5, "spec_dir": str(SPEC.root)}


def _results() -> list[Result]:
    """A run's worth of kinds: passing with an oracle line, small and large fields, a skip,
    a proof, a failure."""
    big = {"map": [f"lane {i}: a long value" for i in range(64)]}
    return [
        Result("gpu.e2e[wgmma.a:SS:K_SW128]", "gpu.e2e", Status.PASS, "bit-exact",
               {"A": {"oracle": ORACLE}}, 0.01, "Test GPU (cc 9.0)", provider="gpu-e2e"),
        Result("gpu.e2e[wgmma.b:SS:K_SW128]", "gpu.e2e", Status.PASS, "bit-exact",
               {"A": {"oracle": ORACLE}, "n": 8}, 0.01, "Test GPU (cc 9.0)", provider="gpu-e2e"),
        Result("gpu.wmma.load[m16n16k16.t]", "gpu.wmma.load", Status.PASS, "every element once",
               big, 0.02, "Test GPU (cc 9.0)", provider="gpu-wmma"),
        Result("proof.small[x]", "proof.small", Status.PASS, "proved", {"proof_status": "proved"},
               provider="proofs"),
        Result("gpu.wmma.align[m8n8k4.t]", "gpu.wmma.align", Status.SKIP, "not runnable here",
               code="not_runnable", provider="gpu-wmma"),
        Result("proof.timeout[y]", "proof.timeout", Status.UNKNOWN, "solver gave up",
               {"proof_status": "unknown"}, 20.0, code="proof_unknown", provider="proofs"),
    ]


def _written(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("taken", [0, 3, 6], ids=["none-ahead", "half-ahead", "all-ahead"])
def test_a_report_written_with_results_taken_ahead_is_the_set_written_without(
        tmp_path: Path, taken: int) -> None:
    results = _results()
    plain = write_reports(tmp_path / "plain", results, dict(META), SPEC, cache=False)
    ahead = Ahead(SPEC)
    assert ahead.take(results[:taken]) == taken
    write_reports(tmp_path / "ahead", results, dict(META), SPEC, cache=False, ahead=ahead)
    assert sorted(p.name for p in plain) == list(_written(tmp_path / "ahead"))
    assert _written(tmp_path / "ahead") == _written(tmp_path / "plain")


def test_take_works_out_only_the_results_that_came_in_since_the_last_take() -> None:
    ahead, so_far = Ahead(SPEC), _results()[:2]
    assert ahead.take(so_far) == 2
    assert ahead.take(so_far) == 0
    so_far.append(_results()[2])
    assert ahead.take(so_far) == 1


def test_what_was_taken_ahead_is_not_worked_out_again_when_the_report_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = {"with_reproduce": report_ahead.with_reproduce, "fields_view": report_ahead.fields_view,
            "result_line": report_ahead.result_line}

    def counted(name: str) -> Any:
        def call(r: Result, *rest: Any) -> Any:
            calls.append(f"{name}:{r.id}")
            return real[name](r, *rest)
        return call

    for name in real:
        monkeypatch.setattr(report_ahead, name, counted(name))
    results = _results()
    ahead = Ahead(SPEC)
    ahead.take(results)
    assert len(calls) == 3 * len(results)
    calls.clear()
    write_reports(tmp_path, results, dict(META), SPEC, cache=False, ahead=ahead)
    assert calls == []


def test_a_result_made_again_after_it_was_taken_is_worked_out_afresh() -> None:
    ahead, first = Ahead(SPEC), _results()[1]
    ahead.take([first])
    again = Result(first.id, first.check, first.status, first.message, {"A": {"oracle": ORACLE}},
                   first.seconds, first.device, provider=first.provider)
    assert ahead.reproduced(again) is not ahead.reproduced(first)
    assert ahead.reproduced(again).fields["reproduce"] == ahead.reproduced(first).fields["reproduce"]
    assert ahead.fields_view(ahead.reproduced(again)) == fields_view(ahead.reproduced(again))


def test_fields_view_inlines_small_fields_and_counts_large_ones() -> None:
    small, big = _results()[1], _results()[2]
    text, too_big = fields_view(small)
    assert not too_big
    assert text is not None
    assert text.startswith("A: ")
    assert "n: 8" in text
    assert fields_view(big) == (None, True)
    assert len(str(big.fields)) > SMALL_FIELDS_CHARS
    assert fields_view(_results()[4]) == (None, False)  # a skip with no fields: nothing to show


def test_first_oracle_is_a_passing_results_first_oracle_line_only() -> None:
    passing, unknown = _results()[0], _results()[5]
    assert first_oracle(passing) == ORACLE
    assert first_oracle(unknown) is None
    failing = Result("gpu.e2e[x]", "gpu.e2e", Status.FAIL, "differs", {"A": {"oracle": ORACLE}},
                     code="silicon_disagrees", provider="gpu-e2e")
    assert first_oracle(failing) is None


def test_run_all_works_between_waits_on_results_the_gpu_thread_has_emitted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ptxconf.app import gpu_run, run
    from ptxconf.app.providers import Provider

    seen = threading.Event()
    emitted = _results()[:3]

    def gpu_results(provs: Any, spec: Any, opts: Any, ctx: Any, emit: Any, dispatched: Any,
                    sequential: Any) -> list[Result]:
        dispatched.set()
        for r in emitted:
            emit(r)
        assert seen.wait(10), "the main thread did no work between waits"
        return list(emitted)

    got: list[Result] = []
    ahead = Ahead(SPEC)

    def between() -> int:
        n = ahead.take(got)
        if n and len(got) == len(emitted):
            seen.set()
        return n

    monkeypatch.setattr(run, "providers", lambda opts: (Provider("fake-gpu", "x:y", gpu=True),))
    monkeypatch.setattr(gpu_run, "gpu_results", gpu_results)
    results = run.run_all(SPEC, run.RunOptions(gpu="on"), on_result=got.append, meanwhile=between)
    assert results == emitted
    assert ahead.take(got) == 0  # every result was taken while the GPU thread waited
