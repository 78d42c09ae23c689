"""Shared fixtures. Tests import the installed `ptxconf` package; no sys.path surgery."""

from __future__ import annotations

import faulthandler
import gc
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import early_deselect
import prewarm
import pytest
from loadgroup import batched_scheduler, group_for_xdist

from ptxconf.app.providers import REGISTRY
from ptxconf.core.blas import one_thread
from ptxconf.core.cases import Case
from ptxconf.core.context import RunContext
from ptxconf.oracle.spec import Spec, default_spec


@pytest.fixture(scope="session")
def spec() -> Spec:
    """The bundled spec, loaded and validated once."""
    return default_spec()


#: The first line of every spec-reading command's text output (ptxconf.oracle.spec.identity_line):
#: the spec it used, why it was chosen (ptxconf.oracle.locate.ORIGINS), its hash, its findings file.
SPEC_LINE = re.compile(r"spec: (?P<root>.+) \((?P<origin>--spec-dir|PTXCONF_SPEC_DIR|checkout|bundled), "
                       r"sha256 (?P<sha256>[0-9a-f]{12}); (?P<known>\d+) known findings in "
                       r"(?P<findings>.+)\)")

#: How the spec line names the findings file of the spec's own tree.
OWN_FINDINGS = "its findings.yaml"

#: The keys of the "spec" object a command's --json output carries (ptxconf.oracle.spec.identity).
SPEC_KEYS = {"root", "origin", "sha256", "findings"}


def _split_spec_line(out: str) -> tuple[dict[str, str], str]:
    """A command's text stdout: the fields of its first line, which must name the spec used
    (SPEC_LINE), and the rest of the output."""
    first, _, rest = out.partition("\n")
    found = SPEC_LINE.fullmatch(first)
    assert found is not None, f"stdout does not start with the spec line: {out[:400]!r}"
    fields = found.groupdict()
    if fields["findings"] == OWN_FINDINGS:  # the spec tree's own findings file, named short
        fields["findings"] = str(Path(fields["root"]) / "findings.yaml")
    return fields, rest


@pytest.fixture
def linted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files each load parses and lints from now on (relative paths, in order; the
    spec loader's lint_file counted)."""
    from ptxconf.oracle import spec as spec_mod

    parsed: list[str] = []
    lint_file = spec_mod.lint_file

    def counted(path: Path, top: Path) -> object:
        parsed.append(path.relative_to(top).as_posix())
        return lint_file(path, top)

    monkeypatch.setattr(spec_mod, "lint_file", counted)
    return parsed


def _plant(path: Path, form: str, text: str) -> None:
    """Leave at a cache entry's path what a hostile or broken cache could: for form "symlink"
    a symlink to the entry moved aside, for "folder" a folder, else `text` written there."""
    if form in ("symlink", "folder"):
        real = path.with_name("elsewhere.json")
        path.rename(real)
        if form == "symlink":
            path.symlink_to(real)
        else:
            path.mkdir()
    else:
        path.write_text(text)


@pytest.fixture
def plant() -> Callable[[Path, str, str], None]:
    """`plant(path, form, text)`: a cache entry replaced as `_plant` says."""
    return _plant


@pytest.fixture
def spec_line() -> Callable[[str], tuple[dict[str, str], str]]:
    """Splits a command's text stdout into its spec line's fields and the rest (asserting the
    first line names the spec used)."""
    return _split_spec_line


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """`ptxconf ARGV` run in-process: (exit code, stdout, stderr). In text mode stdout's first
    line must name the spec used, and is taken off; a --json answer that is an object must carry
    the "spec" object. `spec_line=False` for a command that stops before a spec is loaded (its
    stdout is then returned whole)."""
    from ptxconf.app.cli import main

    def run(*argv: str, spec_line: bool = True) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        if not spec_line:
            return code, out, err
        if "--json" not in argv:
            return code, _split_spec_line(out)[1], err
        if out.strip():
            answer = json.loads(out)
            if isinstance(answer, dict):
                assert set(answer.get("spec", ())) == SPEC_KEYS, f"no spec object: {out[:400]!r}"
        return code, out, err

    return run


@pytest.fixture(scope="session")
def gpu_cases(spec: Spec) -> Iterator[dict[str, Case]]:
    """Every GPU case by id, all sharing one run context (one probe-worker session, opened by
    the first case that runs and closed at the end); skips with `gpu_problem()`'s reason where
    no usable sm_90a device is found."""
    from ptxconf.gpu.session import gpu_problem

    why = gpu_problem()
    if why is not None:
        pytest.skip(why)
    ctx = RunContext(gpu="on", device=_xdist_device())
    try:
        yield {c.id: c for p in REGISTRY if p.gpu for c in p.load(spec, ctx)}
    finally:
        ctx.close()


#: The committed H100 run (reports/evidence/h100), whose report page test_report.py and
#: test_report_pictures.py read: their tests of it share one xdist group, "h100-evidence-page".
H100_EVIDENCE = Path(__file__).resolve().parents[1] / "reports" / "evidence" / "h100" / "results.json"


@pytest.fixture(scope="session")
def h100_page() -> dict[str, Any]:
    """The committed H100 run: its results (`list`, and by id under `results`), its meta and its
    HTML report page, rendered once a process (seconds; the tests that read it share a worker
    under `--dist loadgroup`: xdist group "h100-evidence-page")."""
    from ptxconf.app.report import load_results
    from ptxconf.app.report_html import html_report

    results, meta = load_results(H100_EVIDENCE)
    return {"list": results, "results": {r.id: r for r in results}, "meta": meta,
            "page": html_report(results, meta)}


def _xdist_device() -> int | None:
    """Under pytest-xdist (`pytest -m gpu -n <GPUs> --dist loadgroup`), worker gw<i> probes on
    the (i mod GPUs)-th visible GPU: one worker per device."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return None
    from ptxconf.gpu.session import gpu_count

    return int(worker[2:]) % max(gpu_count(), 1)


#: Set by the run's first process: the cache folders every test process of the run shares
#: (proofs under the first, compiled kernels and witness verdicts under the second).
_RUN_CACHE = "PTXCONF_CACHE_DIR"
_RUN_KERNELS = "PTXCONF_KERNEL_CACHE"


def pytest_configure(config: pytest.Config) -> None:
    """The run's caches (proofs, kernels, witness verdicts) live in one folder of this run, which
    the xdist workers inherit through the environment, never in the user's ~/.cache/ptxconf: the
    suite starts cold, as on a fresh CI machine, and nothing a test plants reaches a user's
    checks. Folders the caller set (both variables) are kept: the gpu env shares the check's
    kernels with `pytest -m gpu` so.

    NumPy's BLAS runs one thread in each process the run starts (the xdist workers, which
    inherit the environment, and every process a test starts), unless the caller set it: the
    workers are the run's parallelism, and OpenBLAS's own threads, one per core in each worker,
    spun waiting for work (about a tenth of the emulated GPU tests' CPU on two cores)."""
    _config[0] = config
    one_thread()
    if hasattr(config, "workerinput") or (os.environ.get(_RUN_CACHE) and os.environ.get(_RUN_KERNELS)):
        return
    folder = tempfile.mkdtemp(prefix="ptxconf-test-cache-")
    os.environ[_RUN_CACHE] = folder
    os.environ[_RUN_KERNELS] = os.path.join(folder, "kernels")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """In the controller of an xdist run, before the workers start (xdist starts them in its
    own, trylast, pytest_sessionstart): the test modules' asserts rewritten once for all of them,
    a few processes at once (prewarm.py), instead of once in each worker."""
    processes = prewarm.wanted(session.config)
    if processes:
        prewarm.rewrite_ahead(prewarm.test_modules(session.config), processes)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    """No cyclic collector passes while collection builds what lives to the end of the run
    (imports, the spec, the items): each pass walked that growing heap again (about 0.35 s of
    a worker's 3 s collection); pytest_collection_finish's one pass takes the garbage. (An
    xdist controller collects nothing: the collector is back on as this returns.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if enabled:
            gc.enable()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (thousands of test items, the spec and the plans the modules hold)
    lives to the end of the run: frozen out of the cyclic collector's passes, which then come
    every GC_THRESHOLD allocations instead of 700. The tests make short-lived objects by the
    million (spec loads, layouts, proofs); with the defaults the collector's passes over the
    heap took about 6% of the run."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


#: Allocations between two passes of the youngest generation (pytest_collection_finish).
GC_THRESHOLD = 20_000


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Module | pytest.Class, name: str,
                              obj: object) -> list[pytest.Item] | None:
    """A test function that `-m` deselects by its own marks and its module's is not built at all
    (`pytest -m "not gpu and not slow"`: the 2,352 GPU cases of test_gpu_cases.py's test_gpu_case;
    early_deselect.py says why and when this is certain). None: pytest collects it as usual."""
    return [] if early_deselect.drop_function(collector, name, obj) else None


@pytest.hookimpl(wrapper=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> Iterator[None]:
    """Nor is a parametrization that `-m` deselects by its marks (the slow cases of a sweep),
    taken out once every id is made (the ids of the others are unchanged)."""
    result = yield
    early_deselect.drop_calls(metafunc)
    return result


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`--dist loadgroup` (tox's py and slow envs) hands each worker several tests at a time
    (loadgroup.py's BatchedLoadGroup); every other mode is xdist's own."""
    return batched_scheduler(config, log) if config.getvalue("dist") == "loadgroup" else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """GPU cases grouped for `--dist loadgroup`: a compiled module's variants (and the device
    checks) stay on one worker, so each module is loaded once per worker; the other families
    go by family. Then every `xdist_group` takes effect (loadgroup.py's `group_for_xdist`)."""
    from ptxconf.gpu.families.sweep import module_of

    spec_ = default_spec()
    for item in items:
        case_id = getattr(item, "callspec", None) and item.callspec.params.get("case_id")
        if not case_id or item.get_closest_marker("gpu") is None:
            continue
        group = module_of(spec_, case_id) or case_id.split("[", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))
    group_for_xdist(config, items)


#: A test still running after about TEST_TIMEOUT_S seconds is stuck (a deadlocked child process,
#: say): its process prints every thread's stack and exits, so the run fails naming it instead of
#: hanging CI. faulthandler's watchdog (a thread of its own, which fires even while a test holds
#: the GIL) is armed for TEST_TIMEOUT_S as a test starts, unless it was armed less than REARM_S
#: before: so a stuck test is stopped between TEST_TIMEOUT_S - REARM_S and TEST_TIMEOUT_S after
#: it started. (pytest's own faulthandler_timeout arms and cancels it around every test, starting
#: and joining a thread each time: about 0.4 ms of a worker's wall time a test on a quiet machine,
#: several ms under load, for the run's 5,000 tests.)
TEST_TIMEOUT_S = 600.0
REARM_S = 30.0
#: When the watchdog was last armed (monotonic seconds; -inf: not armed).
_armed_at = [-math.inf]
#: The run's config (pytest_configure), for the stderr the watchdog writes to.
_config: list[pytest.Config | None] = [None]


def _disarmed() -> None:
    _armed_at[0] = -math.inf


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """A test starts in this process (an xdist worker, never the controller, which only hears
    of it): the stuck-test watchdog is armed (again, where its arming is REARM_S old). Returns
    None, so the test then runs as it would without this hook."""
    now = time.monotonic()
    if now - _armed_at[0] >= REARM_S:
        faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True, file=_stderr_fd())
        _armed_at[0] = now


def _stderr_fd() -> Any:
    """Where the stacks go: the stderr pytest's faulthandler plugin kept at configure time (a
    duplicate taken before output capture, which would swallow them), else the process's."""
    from _pytest.faulthandler import fault_handler_stderr_fd_key

    config = _config[0]
    fd = config.stash.get(fault_handler_stderr_fd_key, None) if config is not None else None
    return fd if fd is not None else (sys.__stderr__ or sys.stderr)


@pytest.hookimpl(trylast=True)
def pytest_exception_interact() -> None:
    """pytest's faulthandler plugin cancels the watchdog here (and before the debugger): the
    next test arms it again."""
    _disarmed()


@pytest.hookimpl(trylast=True)
def pytest_enter_pdb() -> None:
    _disarmed()


def pytest_sessionfinish() -> None:
    """No watchdog outlives the tests."""
    faulthandler.cancel_dump_traceback_later()
    _disarmed()


@pytest.fixture(autouse=True)
def _piped_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees the width a piped command sees (120 columns, app/terminal.py): no
    $COLUMNS (pytest-xdist's workers set it to 80); a test of another width sets its own."""
    monkeypatch.delenv("COLUMNS", raising=False)
