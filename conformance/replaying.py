"""Helpers for the tests of GPU job transcripts and their replay (test_transcript.py,
test_replay.py, test_replay_run.py): a lane job of a provider, a job answered as a lane answers
it (replayed, else run and recorded) against the emulator, and a probe worker that answers
whole-job replays from the emulator."""

from __future__ import annotations

from typing import Any

from emulator import SPEC, Emulator, emulated_context

from ptxconf.app.lanes import group_ids
from ptxconf.app.providers import provider
from ptxconf.core.cases import execute
from ptxconf.core.results import Result
from ptxconf.gpu import session
from ptxconf.gpu.runner import ProbeResult


class EmulatedReplayWorker:
    """A probe worker that answers `replay.replay_file` (ptxconf.gpu.replay) from the
    emulator, as a real worker answers it from the GPU; it records the modules it was sent."""

    def __init__(self, emu: Emulator) -> None:
        self.emu = emu
        self.restarts = 0
        self.modules_sent: list[str] = []

    def call(self, name: str, *args: Any, timeout_s: float | None = None,
             **kw: Any) -> ProbeResult:
        if name != "replay.replay_file":
            return self.emu.call(name, *args, **kw)
        modules = args[0]
        self.modules_sent += [path for _, _, path in modules]
        return ProbeResult(True, value=self.emu.call(name, *args).value, seconds=0.0)

    def close(self) -> None:
        pass


def lane_job(name: str, n: int = 0) -> tuple[str, tuple[str, ...]]:
    """The n-th lane job of a GPU provider, as the lanes cut them."""
    prov = provider(name)
    ids = list(prov.case_ids(SPEC) or [])
    return name, group_ids(SPEC, prov, ids)[n]


def replay_or_run(emu: Emulator, kept: Any, name: str, ids: tuple[str, ...],
                  ran: list[str] | None = None) -> tuple[list[Result], bool]:
    """The job's results as a lane gets them (by replay, else run and recorded), and whether
    they were replayed."""
    ctx = emulated_context(emu)
    try:
        cases = {c.id: c for c in provider(name).load(SPEC, ctx)}
        sess = ctx.shared.get(session.SESSION_RESOURCE)
        if sess is None:  # the session opens with the first case that asks for it
            execute(cases[ids[0]])
            sess = ctx.shared[session.SESSION_RESOURCE]

        def run() -> list[Result]:
            if ran is not None:
                ran.append(name)
            return [execute(cases[i]) for i in ids]

        results = kept.answer(sess, name, ids, run)
        return results, not kept.miss
    finally:
        ctx.close()
