"""A GPU job's transcript: the probe calls its cases made and a digest of every answer, kept so
that a warm run replays the calls alone and, where every answer is the same, takes the results
that ptxconf's host code computed from those answers last time.

Why that is sound: a GPU case is a deterministic function of the spec, ptxconf's code, the
device, and the answers its probe calls get (operands are seeded; predictions, placement and
judging are pure host code). The key covers the spec's and the code's sha256 and the job's
case ids; the entry names the device. Replay sends the recorded calls to the GPU, in order, and
digests each answer; one answer unlike the recorded one (and any failure to replay) makes the
job run in full, and its transcript is written anew. So a warm run still measures the silicon
every time; what it skips is the host work around it (operands, placement, the oracle's
predictions, decoding and judging).

    kept = Transcripts(spec)                         # None of it under --no-cache
    results = kept.replay(sess, job_key)             # None: run the job (and record it)
    results = kept.record(sess, job_key, run_cases)  # runs, records, keeps

Entries are input from outside (CI systems share cache folders), read as the other caches read
theirs (`ptxconf.core.trust`): a regular file within MAX_ENTRY_BYTES whose digest binds its
content to its key (an HMAC under $PTXCONF_CACHE_KEY where that is set), unpickled by
`_Restricted`, which builds nothing but ptxconf's own dataclasses and enums, NumPy arrays and
plain containers, never calls anything else.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import importlib
import io
import json
import os
import pickle
import re
import struct
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ptxconf.core.atomic import write_atomic
from ptxconf.core.outcome_cache import code_sha256
from ptxconf.core.results import Result, Status
from ptxconf.core.trust import KEPT_SUFFIX, RUN_SUFFIX, read_regular, sign, transcripts_folder
from ptxconf.oracle.spec import Spec, spec_sha256

from .runner import map_calls

#: 4: an entry's head (results) and its calls pickled apart, so each is read alone; answers
#: digested by `ptxconf.gpu.digest`'s walk (3; 2: a pickle's sha256, 1: blake2b).
VERSION = 4
MAGIC = b"ptxconf-transcript\n"
#: The largest entry read (a sweep module of N = 256 variants is a few MiB).
MAX_ENTRY_BYTES = 256 << 20
#: The most the transcripts folder keeps (`prune`: least recently used first out).
MAX_FOLDER_BYTES = 2 << 30
#: A kernel-cache file name a run record may name (`Transcripts.run_record`).
_CUBIN = re.compile(r"[0-9a-f]{64}\.cubin")
#: Calls that load modules into the worker: session state, not probes (`needs` covers them).
MODULE_CALLS = frozenset({"load_module", "prepare_wgmma", "prepare_wmma"})
#: Statuses a kept job's results may have: a failing case always runs in full, so that its
#: result carries this run's own dumps. A skip is kept: it is as deterministic as a pass (the
#: spec, the code and the device say it), and a job that kept none would start lanes in
#: every warm run.
KEPT = frozenset({Status.PASS, Status.DISCREPANCY, Status.SKIP})


def folder() -> Path:
    """Where transcripts are kept: $PTXCONF_CACHE_DIR/transcripts."""
    return transcripts_folder()


# --- reading entries safely ---------------------------------------------------------------


_NUMPY_GLOBALS = frozenset({
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
})
_BUILTINS = frozenset({"set", "frozenset", "complex", "slice", "range", "bytearray"})


class _Restricted(pickle.Unpickler):
    """An unpickler that builds only ptxconf's dataclasses and enums, NumPy arrays, dtypes and
    scalars, and plain containers: any other global in an entry is refused (UnpicklingError)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _NUMPY_GLOBALS or (module == "builtins" and name in _BUILTINS):
            return super().find_class(module, name)
        if module == "numpy.dtypes" and name.endswith("DType"):
            return super().find_class(module, name)
        if module.split(".")[0] == "ptxconf" and "." not in name:
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and (dataclasses.is_dataclass(found)
                                            or issubclass(found, enum.Enum)):
                return found
        raise pickle.UnpicklingError(f"an entry may not build {module}.{name}")


# --- the store ------------------------------------------------------------------------------


@dataclasses.dataclass
class Call:
    """One recorded probe call, its answer's digest and its parts' (`answer_parts`)."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    timeout_s: float | None
    answer: str
    parts: dict[str, str] = dataclasses.field(default_factory=dict)


class Recorder:
    """A session's runner while a job runs for its transcript: every call passes through to
    the real runner; each probe call (not a module load) is kept with its answer's digest."""

    def __init__(self, runner: Any) -> None:
        self.inner = runner
        self.calls: list[Call] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def call(self, name: str, /, *args: Any, timeout_s: float | None = None,
             **kwargs: Any) -> Any:
        from .digest import answer_digest, answer_parts  # NumPy: only where answers are kept

        res = self.inner.call(name, *args, timeout_s=timeout_s, **kwargs)
        if name not in MODULE_CALLS and not name.startswith("device."):
            self.calls.append(Call(name, args, kwargs, timeout_s,
                                   answer_digest(res.ok, res.error_kind, res.error, res.value),
                                   answer_parts(res.value) if res.ok else {}))
        return res

    def map(self, calls: Any, *, timeout_s: float | None = None) -> list[Any]:
        return map_calls(self, calls, timeout_s)


class Transcripts:
    """The kept transcripts of one spec's GPU jobs."""

    def __init__(self, spec: Spec, root: Path | None = None) -> None:
        self.root = root or folder()
        self.miss = ""  # why the last replay did not answer
        #: Seconds this process spent replaying: reading entries, in calls, digesting answers.
        self.seconds = {"load": 0.0, "call": 0.0, "digest": 0.0}
        self.base = f"{VERSION}\0{code_sha256()}\0{spec_sha256(spec)}"

    def key(self, provider: str, ids: Sequence[str]) -> str:
        """The entry's key: the code, the spec, the provider and the job's case ids."""
        return hashlib.sha256("\0".join((self.base, provider, *ids)).encode()).hexdigest()

    def _load(self, key: str, *, calls: bool = True) -> dict[str, Any] | None:
        """The entry under `key`, where it is whole and signed (`read_entry`); without its
        calls unless `calls` (a bulk replay's worker reads them itself: `read_calls`)."""
        path = self.root / f"{key}.bin"
        entry = read_entry(path, key, calls=calls)
        if entry is not None:
            entry["path"], entry["key"] = str(path), key
        return entry

    def size(self, provider: str, ids: Sequence[str]) -> int:
        """The bytes of the job's kept entry (0 where there is none): what replaying it costs,
        near enough (its calls' arguments are most of it)."""
        try:
            return (self.root / f"{self.key(provider, ids)}.bin").stat().st_size
        except OSError:
            return 0

    def entry(self, provider: str, ids: Sequence[str], *, calls: bool = True
              ) -> tuple[dict[str, Any] | None, str]:
        """The job's kept entry ("" beside it), or None and why there is none usable; without
        its calls unless `calls`."""
        t0 = time.perf_counter()
        entry = self._load(self.key(provider, ids), calls=calls)
        self.seconds["load"] += time.perf_counter() - t0
        if entry is None or [r.id for r in entry["results"]] != list(ids):
            return None, "no usable transcript" if entry is None else "another job's transcript"
        return entry, ""

    def taken(self, entry: dict[str, Any]) -> list[Result]:
        """A replayed entry's results, marked `replayed`; the entry marked used (the last to
        go when the folder is pruned)."""
        with contextlib.suppress(OSError):
            os.utime(entry["path"])
        return [dataclasses.replace(r, fields={**r.fields, "replayed": True})
                for r in entry["results"]]

    def replay(self, sess: Any, provider: str, ids: Sequence[str]) -> list[Result] | None:
        """The job's results by replay (see the module's docstring), or None: run it (and
        `self.miss` says why)."""
        entry, self.miss = self.entry(provider, ids)
        if entry is None:
            return None
        from .digest import answer_digest, answer_parts  # NumPy: only where answers are compared

        if sess.device is None:
            sess.describe()
        if entry.get("device") != sess.device:
            self.miss = f"recorded on {entry.get('device')}"
            return None
        needs = [k for k in entry.get("needs", ()) if isinstance(k, str)]
        for c in entry["calls"]:
            if not loaded(sess, needs):
                self.miss = "a module it needs is not built or does not load"
                return None
            t0 = time.perf_counter()
            res = sess.runner.call(c.name, *c.args, timeout_s=c.timeout_s, **c.kwargs)
            t1 = time.perf_counter()
            digest = answer_digest(res.ok, res.error_kind, res.error, res.value)
            self.seconds["call"] += t1 - t0
            self.seconds["digest"] += time.perf_counter() - t1
            if digest != c.answer:
                self.miss = differs(c, res.ok, res.error_kind, res.error,
                                    answer_parts(res.value) if res.ok else {})
                return None
        return self.taken(entry)

    def run_kept(self) -> bool:
        """Whether a run of this code and spec kept its GPU jobs' transcripts (`keep_run`,
        `mark_kept`): a warm run then replays them before it starts any lane
        (`ptxconf.app.replay_run`)."""
        name = self._run_name()
        return ((self.root / f"{name}{RUN_SUFFIX}").is_file()
                or (self.root / f"{name}{KEPT_SUFFIX}").is_file())

    def mark_kept(self) -> None:
        """Say that a run of this code and spec (a part of its cases: `--only`, `--resume`)
        kept its jobs' transcripts; unlike `keep_run` it names no plan."""
        with contextlib.suppress(OSError):
            write_atomic(self.root / f"{self._run_name()}{KEPT_SUFFIX}", b"")

    def keep_run(self, groups: Sequence[tuple[str, Sequence[str]]], modules: dict[str, str],
                 tools: Sequence[str]) -> None:
        """Keep beside the transcripts what the run planned: its jobs' (provider, case ids) in
        run order, each compile batch's cubin file name in the kernel cache, and the tool
        versions those cubins were built with (`run_record` reads it back)."""
        name = self._run_name()
        payload = json.dumps({"version": VERSION, "groups": [[p, list(ids)] for p, ids in groups],
                              "modules": modules, "tools": list(tools)}).encode()
        with contextlib.suppress(OSError):
            write_atomic(self.root / f"{name}{RUN_SUFFIX}",
                         sign(name, payload).encode() + b"\n" + payload)

    def run_record(self, tools: Sequence[str]) -> dict[str, Any] | None:
        """What `keep_run` kept for this code and spec, where its digest holds, its shape is
        right and its cubins were built with these tool versions; else None (plan afresh)."""
        name = self._run_name()
        try:
            data = read_regular(self.root / f"{name}{RUN_SUFFIX}", MAX_ENTRY_BYTES)
        except (OSError, ValueError):
            return None
        head, sep, payload = data.partition(b"\n")
        if not sep or head.decode("ascii", "replace") != sign(name, payload):
            return None
        try:
            rec = json.loads(payload)
        except ValueError:
            return None
        ok = (isinstance(rec, dict) and rec.get("version") == VERSION
              and rec.get("tools") == list(tools)
              and isinstance(rec.get("groups"), list) and isinstance(rec.get("modules"), dict)
              and all(isinstance(g, list) and len(g) == 2 and isinstance(g[0], str)
                      and isinstance(g[1], list) and all(isinstance(i, str) for i in g[1])
                      for g in rec["groups"])
              and all(isinstance(k, str) and isinstance(v, str) and _CUBIN.fullmatch(v)
                      for k, v in rec["modules"].items()))
        return rec if ok else None

    def _run_name(self) -> str:
        return hashlib.sha256(self.base.encode()).hexdigest()

    def answer(self, sess: Any, provider: str, ids: Sequence[str],
               run: Callable[[], list[Result]]) -> list[Result]:
        """The job's results: by replay, else `run` recorded (`self.miss` then says why it
        was not replayed; it is "" where it was)."""
        got = self.replay(sess, provider, ids)
        return got if got is not None else self.record(sess, provider, ids, run)

    def record(self, sess: Any, provider: str, ids: Sequence[str],
               run: Callable[[], list[Result]]) -> list[Result]:
        """Run the job with its calls recorded; keep its transcript where every result is
        kept-worthy (KEPT). A write that fails only makes the next run slower."""
        if sess.device is None:
            sess.describe()
        recorder = Recorder(sess.runner)
        sess.runner, sess.touched = recorder, set()
        try:
            results = run()
        finally:
            sess.runner, needs, sess.touched = recorder.inner, sess.touched, None
        if results and all(r.status in KEPT for r in results):
            head = {"version": VERSION, "device": sess.device, "needs": sorted(needs),
                    "ncalls": len(recorder.calls), "results": results}
            key = self.key(provider, ids)
            with contextlib.suppress(Exception):
                write_entry(self.root / f"{key}.bin", key, head, recorder.calls)
        return results


#: An entry's payload: the head's length, the head (version, device, needs, results), the calls.
_HEAD = struct.Struct("<Q")


def write_entry(path: Path, key: str, head: dict[str, Any], calls: list[Call]) -> None:
    """Write an entry: MAGIC, the payload's signature for `key`, then the payload (the head's
    length, the head pickled, the calls pickled), atomically."""
    first = pickle.dumps(head, protocol=5)
    payload = _HEAD.pack(len(first)) + first + pickle.dumps(calls, protocol=5)
    write_atomic(path, MAGIC + sign(key, payload).encode() + b"\n" + payload)


def _payload(path: Path, key: str) -> bytes | None:
    """An entry file's payload where it is a regular file within MAX_ENTRY_BYTES whose
    signature binds it to `key`; else None."""
    try:
        data = read_regular(path, MAX_ENTRY_BYTES)
    except (OSError, ValueError):
        return None
    head, sep, payload = data[len(MAGIC):].partition(b"\n")
    if not data.startswith(MAGIC) or not sep or head.decode("ascii", "replace") != sign(key, payload):
        return None
    return payload


def _unpickled(data: bytes | memoryview) -> Any:
    try:
        return _Restricted(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 - any unreadable entry is only a job run in full
        return None


def read_entry(path: Path, key: str, *, calls: bool = True) -> dict[str, Any] | None:
    """The kept entry at `path` (its version, device, needs, number of calls and results, and
    its calls where `calls`), where it is whole, signed for `key` and of this VERSION; else
    None."""
    payload = _payload(path, key)
    if payload is None or len(payload) < _HEAD.size:
        return None
    (n,) = _HEAD.unpack_from(payload)
    entry = _unpickled(memoryview(payload)[_HEAD.size:_HEAD.size + n])
    ok = (isinstance(entry, dict) and entry.get("version") == VERSION
          and isinstance(entry.get("ncalls"), int) and isinstance(entry.get("results"), list)
          and all(isinstance(r, Result) for r in entry["results"]))
    if not ok:
        return None
    if calls:
        found = _calls_in(payload, n)
        if found is None:
            return None
        entry["calls"] = found
    return dict(entry)


def _calls_in(payload: bytes, head_bytes: int) -> list[Call] | None:
    found = _unpickled(memoryview(payload)[_HEAD.size + head_bytes:])
    ok = isinstance(found, list) and all(isinstance(c, Call) for c in found)
    return found if ok else None


def read_calls(path: Path, key: str) -> list[Call] | None:
    """The recorded calls of the entry at `path`, checked as `read_entry` checks it (a bulk
    replay's worker reads them itself, so that they never cross a pipe); None where it is
    not usable."""
    payload = _payload(path, key)  # the key covers VERSION: another version never verifies
    if payload is None or len(payload) < _HEAD.size:
        return None
    return _calls_in(payload, _HEAD.unpack_from(payload)[0])


def differs(call: Call, ok: bool, error_kind: str | None, error: str | None,
            parts: dict[str, str]) -> str:
    """Why a replayed call missed: its name and the parts of its answer that moved (or the
    error it met)."""
    moved = [k for k in sorted(set(parts) | set(call.parts)) if parts.get(k) != call.parts.get(k)]
    return (f"{call.name}: the answer differs"
            + (f" in {', '.join(moved[:3])}" if moved and ok else
               f" ({error_kind}: {error})" if not ok else ""))


def for_spec(spec: Spec) -> Transcripts:
    """The process's transcript store for a spec (one a spec: `Spec.memo`)."""
    return spec.memo(("transcripts",), lambda: Transcripts(spec))


def prune(root: Path | None = None, max_bytes: int = MAX_FOLDER_BYTES) -> int:
    """Remove the least recently used transcripts until the folder holds at most `max_bytes`
    (a run of the bundled spec keeps about 120 MB; each edit of the spec or the code starts a
    new set); how many were removed."""
    root = root or folder()
    try:
        entries = [(st.st_mtime, st.st_size, p) for p in root.glob("*.bin") for st in [p.stat()]]
    except OSError:
        return 0
    total = sum(size for _, size, _ in entries)
    removed = 0
    for _, size, path in sorted(entries, key=lambda e: e[0]):
        if total <= max_bytes:
            break
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
        total -= size
    return removed


def loaded(sess: Any, needs: Sequence[str]) -> bool:
    """Load the modules a replayed job needs into the session's current worker (again after a
    restart); False where one is not built here or does not load."""
    sess._sync()
    built = sess.built
    for key in needs:
        if key in sess._prepared:
            continue
        if built and (key not in built or not built[key].ok):
            return False  # not built by this run (yet): the job's own run would compile it
        if not sess.prepare(key).ok:
            return False
    return True


__all__ = ["MAGIC", "Call", "Recorder", "Transcripts", "differs", "folder", "for_spec", "loaded",
           "prune", "read_calls", "read_entry", "write_entry"]
