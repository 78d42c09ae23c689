"""`ptxconf check`: gather every case (self-consistency, witnesses, proofs, probes), run, report."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ptxconf import __version__
from ptxconf.oracle.checks import Case
from ptxconf.oracle.findings import explain
from ptxconf.oracle.spec import Spec
from ptxconf.results import Result, Status


@dataclass(frozen=True)
class Provider:
    """A named source of cases; `available` says whether it can run here, and if not, why."""

    name: str
    cases: Callable[[Spec], Iterable[Case]]
    available: Callable[[], tuple[bool, str]] = lambda: (True, "")


@dataclass
class RunOptions:
    """What `ptxconf check` was asked to do."""

    gpu: str = "auto"
    only: str | None = None
    proof_timeout_s: float = 20.0
    strict: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def providers(opts: RunOptions) -> list[Provider]:
    """Every provider, CPU ones first; GPU probes only when asked for or when a GPU is usable."""
    from ptxconf.oracle.checks import all_cases

    found = [Provider("self-consistency", all_cases)]
    found.extend(_optional_providers(opts))
    return found


def _optional_providers(opts: RunOptions) -> Iterator[Provider]:
    """Providers that live in modules other engineers own; each may be absent in a checkout."""
    try:
        from ptxconf.oracle.proofs.cases import proof_cases
    except ImportError:
        pass
    else:
        yield Provider("proofs", lambda spec: proof_cases(spec, timeout_s=opts.proof_timeout_s),
                       _z3_available)
    try:
        from ptxconf.gpu.witness import witness_available, witness_cases
    except ImportError:
        pass
    else:
        yield Provider("assembler-witness", witness_cases, witness_available)
    if opts.gpu != "off":
        try:
            from ptxconf.gpu.cases import gpu_available, gpu_cases
        except ImportError:
            if opts.gpu == "on":
                yield Provider("gpu", lambda spec: (), lambda: (False, "gpu probes not built"))
        else:
            yield Provider("gpu", gpu_cases, gpu_available)


def _z3_available() -> tuple[bool, str]:
    """The proofs need z3-solver; without it they are skipped, with the reason."""
    try:
        import z3  # noqa: F401
    except ImportError:
        return False, "z3-solver is not installed (pip install z3-solver)"
    return True, ""


def run_all(spec: Spec, opts: RunOptions, on_result: Callable[[Result], None]) -> list[Result]:
    """Run every case of every provider; a provider that cannot run yields SKIP (or FAIL with --gpu on)."""
    results: list[Result] = []
    for prov in providers(opts):
        ok, why = prov.available()
        if not ok:
            status = Status.FAIL if (prov.name == "gpu" and opts.gpu == "on") else Status.SKIP
            res = Result(f"{prov.name}[*]", prov.name, status, why)
            results.append(res)
            on_result(res)
            continue
        for case in prov.cases(spec):
            if opts.only and opts.only not in case.id:
                continue
            res = _run_case(case)
            results.append(res)
            on_result(res)
    return results


def _run_case(case: Case) -> Result:
    """Run one case; an exception inside a check is that case's FAIL, never the run's crash."""
    start = time.perf_counter()
    try:
        return triage(case.run())
    except Exception as exc:  # noqa: BLE001 - a broken check must not stop the others
        return Result(case.id, case.check, Status.FAIL, f"check raised {type(exc).__name__}: {exc}",
                      {}, time.perf_counter() - start)


def triage(result: Result) -> Result:
    """A discrepancy that is a known finding carries its explanation; a new one fails."""
    if result.status is not Status.DISCREPANCY:
        return result
    known = explain(result.id)
    if known is None:
        return replace(result, status=Status.FAIL,
                       message=f"new spec discrepancy (not a known finding in "
                               f"oracle/findings.py): {result.message}")
    if known.observed != result.message:
        return replace(result, status=Status.FAIL,
                       message=f"known finding changed: oracle/findings.py records "
                               f"{known.observed!r}, now {result.message!r}")
    return replace(result, details={**result.details, "finding": known.explanation})


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
    }


def default_report_dir() -> Path:
    """reports/runs/<UTC timestamp> under the working directory."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    return Path("reports") / "runs" / stamp


def exit_code(results: list[Result], strict: bool) -> int:
    """0 when nothing failed (and, with --strict, no discrepancy either)."""
    bad = [r for r in results if r.status.failing or (strict and r.status is Status.DISCREPANCY)]
    return 1 if bad else 0
