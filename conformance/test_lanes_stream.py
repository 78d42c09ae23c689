"""Kernels built while the lanes run (`ptxconf.app.lanes`, `ptxconf.gpu.kcache.Builder`), without a
GPU: each case names the compile batches it needs (checked by running cases against the
software model and recording which batches they load), the modules compile in the order the
jobs need them, a job is handed to a lane only once its modules are built, and every job is
handed out in the end. The Builder itself is checked with NVRTC on tiny modules."""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from emulator import SPEC as EMU_SPEC  # conformance/emulator.py
from emulator import Emulator, emulated_context

from ptxconf.app import lanes as L
from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import execute
from ptxconf.core.results import Result, Status
from ptxconf.gpu import kcache, session
from ptxconf.gpu import plan as P
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
GPU_PROVIDERS = [p for p in REGISTRY if p.gpu]
PLAN = P.plan(EMU_SPEC)


# --- what each case needs ------------------------------------------------------------------------


class Recording(Emulator):
    """The software model, noting every compile batch a case loads."""

    def __init__(self) -> None:
        super().__init__(EMU_SPEC)
        self.batch_of = PLAN.batch_of()
        self.loaded: set[str] = set()

    def _prepare_wgmma(self, vs: list) -> int:
        self.loaded |= {self.batch_of[v] for v in vs}
        return len(vs)

    _prepare_wmma = _prepare_wgmma


def _provider(name: str) -> Any:
    return next(p for p in GPU_PROVIDERS if p.name == name)


def _needs_and_loads(prov_name: str, case_id: str) -> tuple[frozenset[str] | None, set[str], Result]:
    """What the plan says a case needs, and what it loaded when run against the model."""
    emu = Recording()
    ctx = emulated_context(emu)
    try:
        case = next(c for c in _provider(prov_name).load(EMU_SPEC, ctx) if c.id == case_id)
        result = execute(case)
    finally:
        ctx.close()
    return session.case_modules(EMU_SPEC, prov_name).get(case_id), emu.loaded, result


#: The hypotheses whose probes come from Z3 models (seconds each to prove again): tox -e slow.
_PROVED_PROBES = ("gpu.hypothesis[swizzle_unit]", "gpu.hypothesis[mn_lbo_sbo_roles]",
                  "gpu.hypothesis[base_offset]")


def _sample() -> list[Any]:
    """(provider, case id) of every planned family: the five hypotheses (their proofs' probes
    run kernels their args do not name; by default the two whose probes need no proof), and the
    first and last case of each other family (the device's first compile batch: its first case
    is the device itself)."""
    out = []
    for prov in GPU_PROVIDERS:
        ids = list(prov.case_ids(EMU_SPEC) or [])
        if prov.name == "gpu-hypotheses":
            out += [pytest.param(prov.name, i, marks=[pytest.mark.slow(
                reason="its probes are proved first; k_swizzled_lbo and a_regs_like_d16 show "
                       "the same by default")] * (i in _PROVED_PROBES)) for i in ids]
        elif prov.name not in ("gpu-mistakes", "gpu-mma_sync", "gpu-ldmatrix",
                                 "gpu-tma"):
            last = pytest.param(prov.name, ids[-1], marks=[pytest.mark.slow(
                reason="the last module runs two dozen b1 K=256 products; the family's first "
                       "case shows the same by default")] * (prov.name == "gpu-sweep"))
            out += [(prov.name, ids[1 if prov.name == "gpu-device" else 0]), last]
    return out


@pytest.mark.parametrize(("prov_name", "case_id"), _sample())
def test_a_case_loads_only_the_batches_its_plan_names(prov_name: str, case_id: str) -> None:
    needs, loaded, result = _needs_and_loads(prov_name, case_id)
    assert needs is not None, f"{case_id}: its family's plan names its kernels"
    assert loaded, f"{case_id} ran no kernel: {result.status.value} {result.message}"
    assert loaded <= needs, f"{case_id} loads {sorted(loaded - needs)} its plan does not name"
    assert result.status in (Status.PASS, Status.SKIP), result.message


def test_the_sm70_atoms_need_no_batch_and_the_unplanned_gallery_needs_every_one() -> None:
    """mma.sync and ldmatrix/stmatrix kernels are compiled in the probe worker (none of the
    plan's batches); the mistakes gallery has no plan, so its jobs wait for every batch (None),
    never for none."""
    atoms = list(_provider("gpu-mma_sync").case_ids(SPEC) or [])
    mistakes = list(_provider("gpu-mistakes").case_ids(SPEC) or [])
    assert atoms
    assert mistakes
    assert L.job_needs(SPEC, [L.Job("gpu-mma_sync", tuple(atoms), 0)]) == [frozenset()]
    forms = tuple(_provider("gpu-ldmatrix").case_ids(SPEC) or [])
    assert forms
    assert L.job_needs(SPEC, [L.Job("gpu-ldmatrix", forms, 0)]) == [frozenset()]
    jobs = [L.Job("gpu-mistakes", (i,), 0) for i in mistakes]
    assert L.job_needs(SPEC, jobs) == [None] * len(jobs)
    mixed = L.Job("gpu-mma_sync", (atoms[0], "gpu.nothing[x]"), 0)
    assert L.job_needs(SPEC, [mixed]) == [None], "an id the plan does not know needs every batch"


def test_a_device_job_needs_only_the_batches_it_compiles() -> None:
    keys = PLAN.keys
    job = L.Job("gpu-device", tuple(f"{P.CHECK_COMPILE}[{k}]" for k in keys[:3]), 0)
    assert L.job_needs(EMU_SPEC, [job]) == [frozenset(keys[:3])]


# --- the order of the build ----------------------------------------------------------------------


MODS = [kcache.Module(n, "x" * size, ()) for n, size in
        (("a", 10), ("b", 30), ("c", 20), ("d", 40), ("e", 5))]


def test_the_build_follows_the_jobs_then_size() -> None:
    order = L.build_order(MODS, [frozenset({"c"}), None, frozenset({"e", "c"}), frozenset({"a"})])
    assert [m.name for m in order] == ["c", "e", "a", "d", "b"]


def test_a_narrowed_run_builds_only_what_its_jobs_need() -> None:
    order = L.build_order(MODS, [frozenset({"d"}), frozenset({"a", "d"}), frozenset()])
    assert [m.name for m in order] == ["d", "a"]
    assert L.build_order(MODS, []) == sorted(MODS, key=lambda m: -len(m.source)), \
        "no jobs: every module, largest first"


def test_a_variant_selection_needs_only_its_module() -> None:
    picked = L.job_groups(SPEC, GPU_PROVIDERS, lambda i: i.startswith(P.CHECK_VARIANT + "[")
                          and ".m64n8k16.f32.f16.f16" in i)
    jobs = L.place(picked, 1)
    needs = L.job_needs(SPEC, jobs)
    assert jobs
    assert all(n is not None and len(n) == 1 for n in needs)
    mods = [kcache.Module(k, "", ()) for k in P.plan(SPEC).keys]
    assert [m.name for m in L.build_order(mods, needs)] == sorted(set().union(*needs))


# --- handing jobs out as modules land ------------------------------------------------------------


class Pool:
    """Stands in for a lane pool: records each job with the modules it was given, and answers
    at once with a pass per case."""

    def __init__(self) -> None:
        self.handed: list[tuple[L.Job, frozenset[str]]] = []

    def submit(self, _fn: Any, _root: str, job: L.Job, _setup: Any, built: Any) -> Future[Any]:
        self.handed.append((job, frozenset(built or {})))
        fut: Future[Any] = Future()
        fut.set_result(([Result(i, "t", Status.PASS, "ok", provider=job.provider)
                         for i in job.ids], {"provider": job.provider, "cases": len(job.ids),
                                              "pid": 1, "start": 0.0, "end": 0.0}))
        return fut

    def shutdown(self, **_: Any) -> None:
        pass


class Lanes(L.LanePool):
    def __init__(self) -> None:  # no processes
        self.started = 0.0
        self.setup = None
        self.pool = Pool()
        self.pools = [self.pool]  # type: ignore[list-item]
        self.lanes_of = [1]


class Landing(kcache.Builder):
    """A build whose modules land one by one, `gap_s` apart, in the given order."""

    def __init__(self, names: list[str], gap_s: float = 0.02) -> None:  # no compiles
        self.names = names
        self.built = {}
        self.rejected = {}
        self.seconds = self._start = self.compiled_now = 0
        self._pool = None
        self._futures = {}
        for n in names:
            fut: Future[Any] = Future()
            self._futures[fut] = (kcache.Module(n, "", ()), Path(f"/nowhere/{n}.cubin"))
        futs = list(self._futures)

        def land() -> None:
            for fut in futs:
                threading.Event().wait(gap_s)
                fut.set_result((True, 0.0, ""))

        threading.Thread(target=land, daemon=True).start()


def test_each_job_waits_for_its_modules_and_every_job_is_handed_out() -> None:
    jobs = [L.Job("p", ("j0",), 0), L.Job("p", ("j1",), 0), L.Job("p", ("j2",), 0),
            L.Job("p", ("j3",), 0)]
    needs: list[frozenset[str] | None] = [frozenset({"m2"}), frozenset({"m0"}), None,
                                          frozenset({"m0", "m1"})]
    lanes = Lanes()
    dispatched: list[int] = []
    got = L.run_lanes(SPEC, jobs, lanes, "", lambda r: None, None, Landing(["m0", "m1", "m2"]),
                      lambda: dispatched.append(len(lanes.pool.handed)), needs)
    assert [r.id for r in got] == ["j0", "j1", "j2", "j3"], "results in job order"
    handed = lanes.pool.handed
    assert sorted(j.ids[0] for j, _ in handed) == ["j0", "j1", "j2", "j3"]
    for job, built in handed:
        need = needs[jobs.index(job)]
        assert (need or {"m0", "m1", "m2"}) <= built, f"{job.ids} handed out before its modules"
    assert [j.ids[0] for j, _ in handed][:2] == ["j1", "j3"], "handed out as their modules land"
    assert dispatched == [4], "dispatched once, when every job is out"


def test_with_every_module_built_all_jobs_go_at_once() -> None:
    jobs = [L.Job("p", (f"j{i}",), 0) for i in range(3)]
    lanes = Lanes()
    built = {"m0": kcache.Built("m0", True, "/x", True, 0.0)}
    got = L.run_lanes(SPEC, jobs, lanes, "", lambda r: None, None, built, None,
                      [frozenset({"m0"}), None, frozenset({"m0"})])
    assert [j.ids[0] for j, _ in lanes.pool.handed] == ["j0", "j1", "j2"]
    assert len(got) == 3


# --- the Builder, on tiny modules (NVRTC, no GPU) --------------------------------------------


def _nvrtc_or_skip() -> None:
    from ptxconf.gpu import build

    why = build.nvrtc_problem()
    if why is not None:
        pytest.skip(why)


def _tiny(name: str, body: str = "") -> kcache.Module:
    from ptxconf.gpu import build

    src = f'extern "C" __global__ void k_{name}(int *p) {{ p[0] = {len(name)}; {body} }}\n'
    return kcache.Module(name, src, build.arch_options())


def test_the_builder_streams_caches_and_reports_a_broken_module(tmp_path: Path) -> None:
    _nvrtc_or_skip()
    from concurrent.futures import FIRST_COMPLETED, wait

    mods = [_tiny("one"), _tiny("two"), _tiny("bad", "this is not C++;"), _tiny("four")]
    b = kcache.Builder(mods, jobs=2, folder=tmp_path)
    assert len(b.pending) == 4
    assert not b.built
    landed = []
    while b.pending:
        done, _ = wait(b.pending, return_when=FIRST_COMPLETED)
        landed += [x.name for x in b.collect(done)]
    assert sorted(landed) == ["bad", "four", "one", "two"]
    got = b.result()
    assert list(got) == ["one", "two", "bad", "four"], "in the order given"
    assert not got["bad"].ok
    assert got["bad"].path is None
    assert "error" in got["bad"].log.lower()
    assert all(got[n].ok and Path(got[n].path or "").is_file() and not got[n].cached
               for n in ("one", "two", "four"))
    again = kcache.Builder(mods, jobs=2, folder=tmp_path)
    assert {n for n, x in again.built.items() if x.cached} == {"one", "two", "four"}
    got_again = again.result()
    assert again.compiled_now == 1, "only the module that failed is compiled again"
    assert got_again["one"].path == got["one"].path
    assert not got_again["bad"].ok


def _planted(path: Path, form: str) -> None:
    """A hostile cubin at a module's key: what a shared cache may hold."""
    digest = path.with_name(path.name + ".digest")
    if form == "edited":
        data = path.read_bytes()
        path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif form == "no digest":
        digest.unlink()
    elif form == "a symlink to a good cubin":
        good = path.with_name("elsewhere.cubin")
        path.replace(good)
        path.symlink_to(good)
    elif form == "a FIFO":
        path.unlink()
        os.mkfifo(path)
    elif form == "oversized":
        with path.open("ab") as fh:
            fh.truncate(kcache.MAX_CUBIN_BYTES + 1)


@pytest.mark.parametrize(("form", "why"), [
    ("edited", "its digest does not match"), ("no digest", "no digest beside it"),
    ("a symlink to a good cubin", "a symlink"), ("a FIFO", "not a regular file"),
    ("oversized", "more than"),
])
def test_a_tampered_cached_cubin_is_compiled_again_and_named(tmp_path: Path, form: str,
                                                             why: str) -> None:
    _nvrtc_or_skip()
    mods = [_tiny("one")]
    first = kcache.Builder(mods, jobs=1, folder=tmp_path).result()["one"]
    assert first.path is not None
    _planted(Path(first.path), form)
    again = kcache.Builder(mods, jobs=1, folder=tmp_path)
    got = again.result()["one"]
    assert (got.ok, got.cached, again.compiled_now) == (True, False, 1)
    assert why in got.rejected, got.rejected
    assert kcache.cached_why_not(Path(first.path)) is None, "the fresh cubin replaced it"
    assert kcache.Builder(mods, jobs=1, folder=tmp_path).built["one"].cached


def test_started_workers_compile_the_modules_and_end_with_the_build(tmp_path: Path) -> None:
    _nvrtc_or_skip()
    workers = kcache.start_workers(2)
    started = {p.pid for p in workers._processes.values()}  # type: ignore[attr-defined]
    assert len(started) == 2, "each is started at once, before any module is handed over"
    b = kcache.Builder([_tiny("one"), _tiny("two"), _tiny("three")], folder=tmp_path,
                       workers=workers)
    assert len(b.pending) == 3
    assert {p.pid for p in workers._processes.values()} == started  # type: ignore[attr-defined]
    got = b.result()
    assert all(x.ok and not x.cached for x in got.values())
    with pytest.raises(RuntimeError):  # ended with the build
        workers.submit(print)


def test_started_workers_a_build_has_no_use_for_are_ended(tmp_path: Path) -> None:
    _nvrtc_or_skip()
    mods = [_tiny("one")]
    kcache.Builder(mods, jobs=1, folder=tmp_path).result()
    workers = kcache.start_workers(1)
    b = kcache.Builder(mods, folder=tmp_path, workers=workers)
    assert b.built["one"].cached
    assert not b.pending
    with pytest.raises(RuntimeError):
        workers.submit(print)


def test_a_run_starts_compile_workers_only_where_the_kernel_cache_lacks_a_module(
        tmp_path: Path) -> None:
    _nvrtc_or_skip()
    from ptxconf.app import lanes

    prepared = lanes.prepare_build(SPEC, tmp_path)
    assert prepared is not None
    mods, workers = prepared
    assert [m.name for m in mods] == list(P.plan(SPEC).keys)
    assert workers is not None
    workers.shutdown(wait=True, cancel_futures=True)
    for m in mods[1:]:
        (tmp_path / f"{kcache.module_key(m)}.cubin").write_bytes(b"")
    _, one_missing = lanes.prepare_build(SPEC, tmp_path) or ([], None)
    assert one_missing is not None
    assert one_missing._max_workers == 1
    one_missing.shutdown(wait=True, cancel_futures=True)
    (tmp_path / f"{kcache.module_key(mods[0])}.cubin").write_bytes(b"")
    assert lanes.prepare_build(SPEC, tmp_path) == (mods, None)


@pytest.fixture
def prestarts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lanes.prestart` as on a GPU node (CuPy there, lanes from a fork server) whose kernel
    cache is `tmp_path`: the fork server itself is not started."""
    monkeypatch.setattr(L, "lane_context", lambda: type("Ctx", (), {
        "get_start_method": staticmethod(lambda: "forkserver")})())
    monkeypatch.setattr("multiprocessing.forkserver.ensure_running", lambda: None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: object())
    monkeypatch.setenv(kcache.CACHE_ENV, str(tmp_path))


def test_a_first_run_starts_its_compile_processes_before_the_spec_loads(
        prestarts: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`prestart` (the run's first act) starts them where the kernel cache holds no cubin, and
    the run's build takes them; a cache that holds one starts none; what no build took ends."""
    from ptxconf.gpu import build

    started: list[int] = []

    class Started:
        def __init__(self, count: int) -> None:
            started.append(count)
            self.ended = False

        def shutdown(self, **_: Any) -> None:
            self.ended = True

    monkeypatch.setattr(kcache, "start_workers", Started)
    L.prestart()
    assert started == [min(os.cpu_count() or 1, L.EARLY_COMPILE_MAX)]
    early = L._early_compile[0]
    if build.nvrtc_problem() is None:  # the build takes them
        prepared = L.prepare_build(SPEC, tmp_path / "kernels")
        assert prepared is not None
        assert prepared[1] is early
        assert not L._early_compile
        assert started == [min(os.cpu_count() or 1, L.EARLY_COMPILE_MAX)]
        L._early_compile.append(early)
    L.release_compile()
    assert early.ended
    assert not L._early_compile
    (tmp_path / "0f.cubin").write_bytes(b"")
    L.prestart()
    assert len(started) == 1, "a cache with a cubin in it: none started"
    L.prestart(kernel_cache=False)  # --no-cache: every module compiles
    assert len(started) == 2
    L.release_compile()


def test_a_first_run_that_cannot_start_compile_processes_early_goes_on(
        prestarts: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """No processes to spare at the run's start (the build later starts its own, or says why):
    `prestart` neither raises nor keeps anything."""
    def refuse(count: int) -> Any:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(kcache, "start_workers", refuse)
    L.prestart()
    assert not L._early_compile
