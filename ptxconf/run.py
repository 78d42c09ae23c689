"""`ptxconf check`: gather every case (self-consistency, witnesses, proofs, probes), run, report."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ptxconf import __version__, interrupts
from ptxconf.cases import Case, execute, skipped
from ptxconf.oracle.findings import judge
from ptxconf.oracle.spec import Spec, spec_sha256
from ptxconf.providers import REGISTRY, Provider, RunContext
from ptxconf.results import Result, Status


@dataclass
class RunOptions:
    """What `ptxconf check` was asked to do."""

    gpu: str = "auto"
    only: str | None = None
    proof_timeout_s: float = 20.0
    proof_cache: bool = True
    strict: bool = False
    #: --resume: results of an earlier, interrupted run, kept instead of run again.
    done: dict[str, Result] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def providers(opts: RunOptions) -> tuple[Provider, ...]:
    """Every registered provider (all of them, always; see ptxconf.providers)."""
    return REGISTRY


def _selected(c: Case, only: str | None) -> bool:
    return not only or only in c.id


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
        listed = prov.case_ids(spec)
        if listed is None:
            yield Result(f"{prov.name}[*]", prov.name, Status.SKIP, why,
                         code="dependency_missing", provider=prov.name)
            return
        for c in listed:
            if _selected(c, opts.only):
                yield skipped(c, why)
        return
    try:
        cases = list(prov.load(spec, ctx))
    except Exception as exc:  # noqa: BLE001 - a provider that cannot even list its cases fails, loudly
        yield Result(f"{prov.name}[*]", prov.name, Status.FAIL,
                     f"the provider could not list its cases: {type(exc).__name__}: {exc}",
                     code="raised", provider=prov.name)
        return
    for c in cases:
        if c.id in opts.done:
            yield opts.done[c.id]
        elif _selected(c, opts.only):
            result = judge(execute(c))
            interrupts.check()  # a signal a native library swallowed still stops the run here
            yield result


def run_all(spec: Spec, opts: RunOptions, on_result: Callable[[Result], None]) -> list[Result]:
    """Run every case of every provider, each result judged against the known findings."""
    results: list[Result] = []
    ctx = RunContext(gpu=opts.gpu, proof_timeout_s=opts.proof_timeout_s,
                     proof_cache=opts.proof_cache)
    try:
        for prov in providers(opts):
            for res in _provider_results(prov, spec, opts, ctx):
                results.append(res)
                on_result(res)
    finally:
        ctx.close()
    return results


def run_meta(spec: Spec, opts: RunOptions) -> dict[str, Any]:
    """Who ran what, where."""
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
        "spec_sha256": spec_sha256(spec),
    }


def _commit() -> str:
    """$PTXCONF_COMMIT (a CI job that runs outside a checkout sets it), else the git commit of
    the working directory's checkout, else 'unknown'."""
    if os.environ.get("PTXCONF_COMMIT"):
        return os.environ["PTXCONF_COMMIT"]
    try:
        done = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def default_report_dir() -> Path:
    """reports/runs/<UTC timestamp> under the working directory."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    return Path("reports") / "runs" / stamp


def exit_code(results: list[Result], strict: bool) -> int:
    """0 when nothing failed (and, with --strict, no discrepancy either)."""
    bad = [r for r in results if r.status.failing or (strict and r.status is Status.DISCREPANCY)]
    return 1 if bad else 0
