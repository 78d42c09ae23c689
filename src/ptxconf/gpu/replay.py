"""Replaying kept transcripts (`ptxconf.gpu.transcript`) in bulk: a probe worker reads a whole
job's recorded calls from its kept entry itself, runs them in order and digests every answer,
so that only a verdict comes back (neither the calls' arguments nor the dumps cross the pipe:
a sweep's dumps are hundreds of MB in all).

    worker = ReplayWorker(ProbeRunner(device=0, context=ctx), modules)
    why = worker.replay(entry)          # "" where the GPU gave every recorded answer again

`replay_file` is the worker's side (a probe function, called by name). A call that fails
as it failed when recorded (an exception the worker reports) matches; a CUDA fault ends the
worker (its context may be lost), so jobs whose cases may fault on purpose are not replayed in
bulk: they go one call at a time through `Transcripts.replay`, on a worker of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .digest import answer_digest, answer_parts
from .runner import _classify, _resolve
from .transcript import Call, differs

#: The seconds a bulk replay may take per recorded call before its worker is killed (a hung
#: probe; each call alone is allowed the recorded call's own limit, which is larger).
SECONDS_PER_CALL = 30.0


#: One answer as the runner reports it: (ok, error kind, error, value).
Answer = tuple[bool, "str | None", "str | None", Any]


def run_recorded(answer: Callable[[str, tuple[Any, ...], dict[str, Any]], Answer],
                 calls: Sequence[tuple[str, tuple[Any, ...], dict[str, Any], str]]
                 ) -> tuple[int, bool, str | None, str | None, dict[str, str]]:
    """Run each (name, args, kwargs, recorded answer digest) through `answer`, in order, and
    digest what it gives: (-1, True, None, None, {}) where every answer equals the recorded
    one; else the first that differs: (its index, ok, error kind, error, its answer's parts).
    (Digesting on threads beside the calls was measured slower on an H100 node: 3.58 s
    against 2.67 s for the bundled spec's 2,303 calls; the GIL passes back and forth.)"""
    for n, (name, args, kwargs, want) in enumerate(calls):
        ok, kind, error, value = answer(name, args, kwargs)
        if answer_digest(ok, kind, error, value) != want:
            return n, ok, kind, error, answer_parts(value) if ok else {}
    return -1, True, None, None, {}


def _here(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Answer:
    """A probe's answer in this worker, as the runner would report it; a CUDA fault is raised
    (the worker ends: its context may be lost)."""
    try:
        return True, None, None, _resolve(name)(*args, **kwargs)
    except Exception as exc:  # reported as the runner reports it
        kind, fatal = _classify(exc)
        if fatal:
            raise
        return False, kind, f"{type(exc).__name__}: {exc}", None


#: A compile batch a replay needs: (the probe that compiles it in the worker, its variants,
#: its cubin built on the host or None).
Module = tuple[str, Sequence[Any], "str | None"]


def replay_recorded(answer: Callable[[str, tuple[Any, ...], dict[str, Any]], Answer],
                    calls: Sequence[Call]) -> str:
    """`run_recorded` of recorded calls: "" where every answer is the recorded one, else why
    not (`differs`)."""
    n, ok, kind, error, parts = run_recorded(answer, [(c.name, c.args, c.kwargs, c.answer)
                                                      for c in calls])
    return "" if n < 0 else differs(calls[n], ok, kind, error, parts)


def replay_file(modules: Sequence[Module], path: str, key: str) -> str:
    """In a probe worker: load `modules` (a cubin built on the host, `probes.load_module`, else
    compiled here by its probe), read the recorded calls of the kept entry at `path` (checked
    as the main process checked it: `transcript.read_calls`) and replay them here: "" where
    every answer is the recorded one, else why not."""
    from .probes import load_module
    from .transcript import read_calls

    for prepare, variants, cubin in modules:
        if cubin is not None:
            load_module(variants, cubin)
        else:
            _resolve(prepare)(variants)
    calls = read_calls(Path(path), key)
    if calls is None:
        return "its transcript changed or went before the worker read it"
    return replay_recorded(_here, calls)


class ReplayWorker:
    """A probe worker that replays whole jobs (`replay`), loading each module it needs once
    (again after a restart). `modules(key)`: a compile batch as `replay_file` takes it, or
    None where this run cannot load it."""

    def __init__(self, runner: Any, modules: Callable[[str], Module | None]) -> None:
        self.runner = runner
        self.modules = modules
        self.device: str | None = None
        self._loaded: set[str] = set()
        self._generation = runner.restarts
        #: Calls sent, the worker's own seconds in them and the GPU's in their kernels.
        self.calls = 0
        self.worker_s = 0.0
        self.gpu_s = 0.0

    def describe(self) -> str:
        """The device line of the worker's GPU (`session.device_line`), asked once."""
        from .session import DEVICE_TIMEOUT_S, device_line

        if self.device is None:
            info = self.runner.call("device.describe", timeout_s=DEVICE_TIMEOUT_S)
            self.device = device_line(info.value if info.ok else {"error": info.error})
        return self.device

    def replay(self, entry: dict[str, Any]) -> str:
        """Replay a kept entry's calls: "" where the GPU gave every recorded answer again,
        else why not (the job then runs in full)."""
        if entry.get("device") != self.describe():
            return f"recorded on {entry.get('device')}"
        if self.runner.restarts != self._generation:
            self._generation, self._loaded = self.runner.restarts, set()
        send = []
        for key in [k for k in entry.get("needs", ()) if isinstance(k, str)]:
            found = None if key in self._loaded else self.modules(key)
            if key not in self._loaded and found is None:
                return "a module it needs is not built or does not load"
            if found is not None:
                send.append((found[0], list(found[1]), found[2]))
        res = self.runner.call("replay.replay_file", send, entry["path"], entry["key"],
                               timeout_s=SECONDS_PER_CALL * max(1, entry["ncalls"]))
        self.calls += 1
        self.worker_s += res.seconds
        self.gpu_s += res.gpu_s
        if not res.ok:
            return f"the replay failed ({res.error_kind}: {res.error})"
        self._loaded.update(k for k in entry.get("needs", ()) if isinstance(k, str))
        return str(res.value)

    def close(self) -> None:
        self.runner.close()


def answer_job(kept: Any, sess: Any, provider: str, ids: Sequence[str],
               run: Callable[[], list[Any]], *, bulk: bool) -> list[Any]:
    """A job's results in a run without lanes (`ptxconf.app.run`): its transcript replayed in
    one message to the session's worker where `bulk` (a job whose cases never fault on
    purpose), else call by call (`Transcripts.answer`); where the replay misses, `run`
    recorded. `kept.miss` says why a job was not replayed ("" where it was)."""
    if not bulk:
        return list(kept.answer(sess, provider, ids, run))
    entry, kept.miss = kept.entry(provider, ids, calls=False)
    if entry is not None:
        worker = sess.memo.get("replay.worker")
        if worker is None or worker.runner is not sess.runner:
            worker = sess.memo["replay.worker"] = ReplayWorker(
                sess.runner, lambda key: _session_module(sess, key))
        kept.miss = worker.replay(entry)
        if not kept.miss:
            return list(kept.taken(entry))
    return list(kept.record(sess, provider, ids, run))


def _session_module(sess: Any, key: str) -> Module | None:
    """A compile batch as the session loads it (`Session.prepare`): its cubin where the host
    built it, else compiled in the worker; None where its build failed."""
    prepare, variants = sess.batch(key)
    built = sess.build().get(key)
    if built is None:
        return prepare, variants, None
    return (prepare, variants, built.path) if built.ok else None


__all__ = ["SECONDS_PER_CALL", "Answer", "Module", "ReplayWorker", "answer_job", "replay_file",
           "replay_recorded", "run_recorded"]
