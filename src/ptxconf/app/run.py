"""`ptxconf check`: gather every case (self-consistency, witnesses, proofs, probes), run, report."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ptxconf import __version__
from ptxconf.app.providers import REGISTRY, Provider
from ptxconf.app.run_options import RunOptions
from ptxconf.app.run_options import selected_id as _selected_id
from ptxconf.core import interrupts
from ptxconf.core.cases import Case, case_id, execute, skipped
from ptxconf.core.context import RunContext
from ptxconf.core.outcome_cache import KEPT, OutcomeCache
from ptxconf.core.results import Result, Status
from ptxconf.oracle.spec import Spec, identity


def providers(opts: RunOptions) -> tuple[Provider, ...]:
    """Every registered provider (all of them, always; see ptxconf.app.providers)."""
    return REGISTRY


def _provider_results(prov: Provider, spec: Spec, opts: RunOptions, ctx: RunContext
                      ) -> Iterator[Result]:
    """A provider's results: its cases run, or a skip per case (one row when its cases cannot
    be listed without the missing dependency)."""
    if prov.gpu and opts.gpu == "off":
        yield Result(f"{prov.name}[*]", prov.name, Status.SKIP, "not asked for (--gpu off)",
                     code="dependency_missing", provider=prov.name)
        return
    why = prov.problem()
    if why is not None:
        if prov.gpu and opts.gpu == "on":
            yield Result(f"{prov.name}[*]", prov.name, Status.FAIL, f"--gpu on: {why}",
                         code="gpu_unusable", provider=prov.name)
            return
        listed = prov.case_keys(spec)
        if listed is None:
            yield Result(f"{prov.name}[*]", prov.name, Status.SKIP, why,
                         code="dependency_missing", provider=prov.name)
            return
        for check, key in listed:
            if _selected_id(case_id(check, key), opts.only):
                yield skipped(check, key, prov.name, why)
        return
    store = _result_cache(prov, spec, opts)
    kept_all = None if store is None else _all_kept(store, spec, opts)
    if kept_all is not None:
        yield from kept_all
        return
    try:
        cases = list(prov.load(spec, ctx))
    except Exception as exc:  # noqa: BLE001 - a provider that cannot even list its cases fails, loudly
        yield Result(f"{prov.name}[*]", prov.name, Status.FAIL,
                     f"the provider could not list its cases: {type(exc).__name__}: {exc}",
                     code="raised", provider=prov.name)
        return
    if prov.gpu and opts.proof_cache:
        yield from _gpu_jobs(prov, spec, opts, ctx, cases)
        return
    whole = True
    for c in cases:
        if c.id in opts.done:
            whole = False
            yield opts.done[c.id]
        elif _selected_id(c.id, opts.only):
            raw = _cached_or_run(c, store, spec)
            whole = whole and raw.status in KEPT and raw.code != "raised"
            result = spec.findings.judge(raw)
            interrupts.check()  # a signal a native library swallowed still stops the run here
            yield result
        else:
            whole = False
    if store is not None and whole:
        store.put_listing([c.id for c in cases])


def _gpu_jobs(prov: Provider, spec: Spec, opts: RunOptions, ctx: RunContext,
              cases: list[Case]) -> Iterator[Result]:
    """A GPU provider's cases in this process (no lanes), in case order, run in the jobs the
    lanes cut: each job answered by its kept transcript where the GPU gives every recorded
    answer again (`ptxconf.gpu.transcript`), else run and recorded, as a lane does."""
    from ptxconf.app.lanes import group_ids
    from ptxconf.gpu.plan import may_fault_ids
    from ptxconf.gpu.replay import answer_job
    from ptxconf.gpu.session import open_session
    from ptxconf.gpu.transcript import for_spec

    by_id = {c.id: c for c in cases}
    wanted = [c.id for c in cases if c.id not in opts.done and _selected_id(c.id, opts.only)]
    job_of = {i: ids for ids in group_ids(spec, prov, wanted) for i in ids}
    kept = for_spec(spec)
    sess = open_session(spec, ctx)
    faulting = may_fault_ids(spec)
    ready: dict[str, Result] = {}
    for c in cases:
        if c.id in opts.done:
            yield opts.done[c.id]
            continue
        if c.id not in job_of:
            continue
        if c.id not in ready:
            ids = job_of[c.id]

            def run(ids: tuple[str, ...] = ids) -> list[Result]:
                return [execute(by_id[i]) for i in ids]

            for r in answer_job(kept, sess, prov.name, ids, run,
                                bulk=not any(i in faulting for i in ids)):
                ready[r.id] = r
        interrupts.check()
        yield spec.findings.judge(ready.pop(c.id))


def _all_kept(store: OutcomeCache, spec: Spec, opts: RunOptions) -> list[Result] | None:
    """Every result of a provider from its kept listing (ptxconf.core.outcome_cache), judged as
    `_cached_or_run` judges a kept one, without loading the provider; None where the listing
    or any selected case's result is missing or not usable (the provider then runs as usual,
    its cases read from the cache one by one)."""
    ids, _ = store.listing()
    if ids is None:
        return None
    out = []
    for cid in ids:
        if cid in opts.done:
            out.append(opts.done[cid])
            continue
        if not _selected_id(cid, opts.only):
            continue
        kept, _ = store.get(cid)
        if kept is None or (cid in spec.findings.by_case and kept.status is not Status.DISCREPANCY):
            return None
        out.append(spec.findings.judge(kept))
    return out


def _result_cache(prov: Provider, spec: Spec, opts: RunOptions) -> OutcomeCache | None:
    """The kept results of a provider whose results may be kept (ptxconf.core.outcome_cache),
    unless the run says --no-cache."""
    if not opts.proof_cache:
        return None
    base = prov.cache_base(spec)
    return None if base is None else OutcomeCache(base)


#: Why a kept result of a case with a known finding is not used.
KNOWN_DISCREPANCY = "a known finding's case takes only a kept discrepancy"


def _cached_or_run(c: Case, store: OutcomeCache | None, spec: Spec) -> Result:
    """The case's kept result, else the case run (and its result kept). A case with a known
    finding takes only a kept discrepancy, which the finding then judges (its recorded fields
    included), so a cache never turns a finding into a pass."""
    if store is None:
        return execute(c)
    kept, why = store.get(c.id)
    if kept is not None and c.id in spec.findings.by_case and kept.status is not Status.DISCREPANCY:
        kept, why = None, KNOWN_DISCREPANCY
    if kept is not None:
        return kept
    result = execute(c)
    store.put(result)
    if why is not None:
        result.fields["cache_rejected"] = why
    return result


def _sequential(provs: tuple[Provider, ...], spec: Spec, opts: RunOptions, ctx: RunContext,
                emit: Callable[[Result], None]) -> list[Result]:
    out = []
    for prov in provs:
        for res in _provider_results(prov, spec, opts, ctx):
            out.append(res)
            emit(res)
    return out


def _beside(provs: tuple[Provider, ...], spec: Spec, opts: RunOptions, ctx: RunContext,
            emit: Callable[[Result], None]) -> list[Result]:
    """The CPU providers each in a thread of its own (Z3 and NVRTC run outside the GIL), this
    thread waiting; results in registry order. A signal stops them at their next case."""
    outs: list[list[Result]] = [[] for _ in provs]
    errs: list[BaseException] = []

    def one(i: int) -> None:
        try:
            outs[i].extend(_sequential((provs[i],), spec, opts, ctx, emit))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            errs.append(exc)

    threads = [threading.Thread(target=one, args=(i,), daemon=True, name=f"ptxconf-{p.name}")
               for i, p in enumerate(provs)]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.2)
            interrupts.check()
    if errs:
        raise errs[0]
    return [r for out in outs for r in out]


def auto_proof_workers() -> int:
    """Processes for the proofs: one per core, at most four (about 200 small claims; more
    workers would mostly start interpreters); none on a single core. The main process mostly
    waits on them once its own cases are done, so on two cores two workers finish a cold
    `check --gpu off` in about 17 s where one took 25 s."""
    cores = os.cpu_count() or 1
    return min(4, cores) if cores > 1 else 0


def run_all(spec: Spec, opts: RunOptions, on_result: Callable[[Result], None],
            meanwhile: Callable[[], int] | None = None) -> list[Result]:
    """Run every case of every provider, each result judged against the known findings: the
    GPU providers in a thread of their own (and their lanes' processes), the CPU providers
    beside them once the GPU jobs are handed out. Results come back in registry order.
    `meanwhile`: work this thread does while it waits on the GPU providers (the report's,
    `ptxconf.app.report_ahead`), called between waits; the next wait is short after a call
    that found work (it returns how much)."""
    lock = threading.Lock()

    def emit(r: Result) -> None:
        with lock:
            on_result(r)

    provs = providers(opts)
    cpu = tuple(p for p in provs if not p.gpu)
    gpu = tuple(p for p in provs if p.gpu)
    ctx = RunContext(gpu=opts.gpu, proof_timeout_s=opts.proof_timeout_s,
                     proof_cache=opts.proof_cache, kernel_cache=opts.kernel_cache,
                     verify_cache=opts.verify_cache, verify_seed=opts.verify_seed,
                     proof_workers=(auto_proof_workers() if opts.proof_workers is None
                                    else opts.proof_workers),
                     wanted=lambda i: i not in opts.done and _selected_id(i, opts.only))
    gpu_out: list[Result] = []
    gpu_err: list[BaseException] = []
    dispatched = threading.Event()

    def gpu_part() -> None:
        try:
            from ptxconf.app.gpu_run import gpu_results

            gpu_out.extend(gpu_results(gpu, spec, opts, ctx, emit, dispatched,
                                       lambda: _sequential(gpu, spec, opts, ctx, emit)))
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread below
            gpu_err.append(exc)
        finally:
            dispatched.set()

    thread = threading.Thread(target=gpu_part, name="ptxconf-gpu", daemon=True)
    thread.start()
    try:
        while not dispatched.wait(0.2):
            interrupts.check()
        cpu_out = _beside(cpu, spec, opts, ctx, emit)
        while thread.is_alive():
            busy = meanwhile is not None and _between_waits(meanwhile)
            thread.join(0.02 if busy else 0.2)
            interrupts.check()
    finally:
        if not thread.is_alive():
            ctx.close()
    if gpu_err:
        raise gpu_err[0]
    return cpu_out + gpu_out


#: The GIL's switch interval while this thread works between waits (seconds; Python's default
#: is 0.005): the GPU thread's replay threads wake as each job's verdict comes back and send
#: the next, and should not wait 5 ms a job for this thread to let go.
MEANWHILE_SWITCH_S = 0.0005


def _between_waits(work: Callable[[], int]) -> bool:
    """Run `work` with a short GIL switch interval; whether it found anything to do."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(MEANWHILE_SWITCH_S)
    try:
        return work() > 0
    finally:
        sys.setswitchinterval(before)


def run_meta(spec: Spec, opts: RunOptions) -> dict[str, Any]:
    """Who ran what, where."""
    ident = identity(spec)
    return {
        "ptxconf_version": __version__,
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "spec_dir": str(spec.root),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "gpu": opts.gpu,
        "strict": opts.strict,
        "only": opts.only,
        "host": os.uname().nodename if hasattr(os, "uname") else "",
        "commit": _commit(),
        "spec_sha256": ident["sha256"],
        "spec": ident,
        **({"verify_cache": {"fraction": opts.verify_cache, "seed": opts.verify_seed}}
           if opts.verify_cache and opts.proof_cache else {}),
    }


#: Where CI systems say which commit a job runs (GitHub Actions, GitLab CI, Buildkite, CircleCI,
#: Jenkins' git plugin), asked when the job runs outside a git checkout.
CI_COMMIT_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "CIRCLE_SHA1", "GIT_COMMIT")


def _commit() -> str:
    """$PTXCONF_COMMIT, else the git commit of the working directory's checkout, else the
    commit the CI system names (CI_COMMIT_VARIABLES, 12 digits), else 'unknown'."""
    if os.environ.get("PTXCONF_COMMIT"):
        return os.environ["PTXCONF_COMMIT"]
    try:
        done = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is not None and done.returncode == 0 and done.stdout.strip():
        return done.stdout.strip()
    ci = next((os.environ[v] for v in CI_COMMIT_VARIABLES if os.environ.get(v)), None)
    return ci.strip()[:12] if ci else "unknown"


def default_report_dir() -> Path:
    """reports/runs/<UTC timestamp> under the working directory."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    return Path("reports") / "runs" / stamp


def exit_code(results: list[Result], strict: bool) -> int:
    """0 when nothing failed (and, with --strict, no discrepancy either)."""
    return 1 if any(r.status.fails_run(strict) for r in results) else 0
