"""`ptxconf` works the same from the checkout and from outside it, as users install it.

The main job, `ptxconf check --gpu off --json`, run by the interpreter that runs these tests,
passes with nothing unknown from the repository root (on the checkout's `spec/`) and from a
folder outside the repository (on the bundled spec), and names the spec it used; the wheel
alone, with no checkout (outside the repository, no $PTXCONF_SPEC_DIR), checks its bundled
spec. `python -m ptxconf.mutants --help` runs from both folders. Every process, whatever its
folder (`python -c`, `python -m`, and the spawn and forkserver children that the proof pool and
the probe lanes start), imports the same `ptxconf` as the tests; with
PTXCONF_EXPECT_INSTALL=wheel (tox's `py` env, which installs the wheel) that is the copy in
site-packages, never the checkout's `src/`: the layout bug this guards against had a folder of
the repository root shadow the installed package in such children.

The check runs share one proof and kernel cache in a temporary folder ($PTXCONF_CACHE_DIR,
$PTXCONF_KERNEL_CACHE), so only the first is cold.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import pytest

import ptxconf

ROOT = Path(__file__).resolve().parents[1]
#: The package the tests import; every process below must import this one.
PACKAGE = Path(ptxconf.__file__).resolve().parent
#: "wheel": the tests run on an installed wheel (tox's py env), so PACKAGE is in site-packages.
EXPECT_INSTALL = os.environ.get("PTXCONF_EXPECT_INSTALL", "")

#: Where a `python -c` process, and the spawn and forkserver children it starts, import ptxconf from.
PROBE = """
import json, multiprocessing as mp, ptxconf
where = {"python -c": ptxconf.__file__}
if __name__ == "__main__":
    for method in ("spawn", "forkserver"):
        if method in mp.get_all_start_methods():
            with mp.get_context(method).Pool(1) as pool:
                where[method + " child"] = pool.apply(eval, ("__import__('ptxconf').__file__",))
    print(json.dumps(where))
"""


def _env(cache: Path | None = None, pythonpath: Path | None = None) -> dict[str, str]:
    """The tests' environment without $PTXCONF_SPEC_DIR (so the folder chooses the spec), with
    the shared caches and, for the wheel alone, its unpacked folder first on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PTXCONF_SPEC_DIR"}
    if cache is not None:
        env["PTXCONF_CACHE_DIR"] = str(cache / "proofs")
        env["PTXCONF_KERNEL_CACHE"] = str(cache / "kernels")
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(pythonpath), env.get("PYTHONPATH")) if p)
    return env


def _check(cwd: Path, report: Path, env: dict[str, str], only: str | None = None
           ) -> tuple[dict[str, Any], dict[str, Any]]:
    """`python -m ptxconf check --gpu off --json` (with `--only`, where given) run in `cwd`: its
    JSON summary and the spec it names (the JSON's `spec`, else the report's results.json meta)."""
    select = ["--only", only] if only else []
    proc = subprocess.run([sys.executable, "-m", "ptxconf", "check", "--gpu", "off", "--json", *select,
                           "--report-dir", str(report)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)
    said = f"in {cwd}: exit {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0, said
    assert "Traceback" not in proc.stderr, said
    out, _ = json.JSONDecoder().raw_decode(proc.stdout[proc.stdout.index("{"):])
    spec = out.get("spec") or json.loads((report / "results.json").read_text())["meta"]["spec"]
    assert out["summary"]["unknown"] == 0, said
    assert out["summary"]["fail"] == 0, said
    assert out["failing"] == [], said
    assert out["summary"]["pass"] > 0, said
    return out, spec


def _unpacked_wheel(tmp: Path) -> Path:
    """The project's wheel (built from a copy of pyproject.toml, README.md and src/) unpacked
    into a folder: a pure-Python wheel installs as exactly these files."""
    proj = tmp / "project"
    proj.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, proj / name)
    shutil.copytree(ROOT / "src", proj / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    offline = ["--no-build-isolation"] if _has_setuptools() else []
    args = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *offline, "-w", str(tmp / "dist"),
            str(proj)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = (tmp / "dist").glob("ptxconf-*.whl")
    site = tmp / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return site


def _has_setuptools() -> bool:
    """Whether this environment builds the wheel itself (no build isolation, nothing fetched):
    setuptools >= 64 (pyproject's build requirement) with bdist_wheel (its own from 70.1, else
    the `wheel` package's)."""
    import importlib.util

    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(p) for p in re.findall(r"\d+", setuptools.__version__)[:2])
    return version >= (70, 1) or (version >= (64,) and importlib.util.find_spec("wheel") is not None)


def _in_site_packages(path: Path) -> bool:
    sites = {Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}
    return any(path.is_relative_to(s) for s in sites)


def _imported_from(verbose_stderr: str) -> list[Path]:
    """The files `ptxconf/__init__.py` was loaded from, read off `python -v`'s trace."""
    found = re.findall(r"^#.*?(?:code object from|matches) '?(.*?ptxconf[/\\]__init__\.py)'?$",
                       verbose_stderr, flags=re.MULTILINE)
    return [Path(f).resolve() for f in found]


@pytest.mark.parametrize("only", [
    pytest.param("spec.lint[", id="spec-lint"),
    pytest.param(None, id="whole", marks=pytest.mark.slow(
        reason="the whole main job cold, three times (about a minute on two cores); [spec-lint] "
               "runs the same comparison by default on the spec lint cases, and test_cases.py "
               "every CPU case in-process (a sample of each proof and witness family)"))])
def test_check_passes_on_the_same_spec_from_the_checkout_from_outside_and_from_the_wheel_alone(
        tmp_path: Path, only: str | None) -> None:
    cache, outside = tmp_path / "cache", tmp_path / "outside"
    outside.mkdir()
    assert not outside.is_relative_to(ROOT)

    root_out, root_spec = _check(ROOT, tmp_path / "report-root", _env(cache), only)
    assert root_spec["origin"] == "checkout", root_spec
    assert Path(root_spec["root"]) == ROOT / "spec", root_spec
    assert Path(root_spec["findings"]) == ROOT / "spec" / "findings.yaml", root_spec

    out, spec = _check(outside, tmp_path / "report-outside", _env(cache), only)
    assert spec["origin"] == "bundled", spec
    assert Path(spec["root"]).resolve() == PACKAGE / "spec", spec
    assert Path(spec["findings"]).resolve() == PACKAGE / "spec" / "findings.yaml", spec
    # the same spec bytes, so the same cases and the same verdicts
    assert spec["sha256"] == root_spec["sha256"]
    assert out["summary"] == root_out["summary"]
    assert out["discrepancies"] == root_out["discrepancies"]

    # The wheel alone: under tox (PTXCONF_EXPECT_INSTALL=wheel) the run from outside was it;
    # elsewhere (an editable install) the wheel is built and run from its unpacked files.
    if EXPECT_INSTALL != "wheel":
        site = _unpacked_wheel(tmp_path / "wheel")
        out, spec = _check(outside, tmp_path / "report-wheel", _env(cache, pythonpath=site), only)
        assert spec["origin"] == "bundled", spec
        assert Path(spec["root"]).resolve() == (site / "ptxconf" / "spec").resolve(), spec
    assert spec["sha256"] == root_spec["sha256"]
    assert out["summary"] == root_out["summary"]


@pytest.mark.parametrize("where", ["checkout", "outside"])
def test_every_process_imports_the_package_the_tests_import(where: str, tmp_path: Path) -> None:
    cwd = ROOT if where == "checkout" else tmp_path
    env = _env()

    probe = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=300)
    assert probe.returncode == 0, probe.stderr
    where_from = {how: Path(f).resolve() for how, f in json.loads(probe.stdout).items()}
    assert "spawn child" in where_from
    assert set(where_from.values()) == {PACKAGE / "__init__.py"}, where_from

    # `python -m`: the module runs, and the trace shows which ptxconf it imported
    mutants = subprocess.run([sys.executable, "-v", "-m", "ptxconf.mutants", "--help"], cwd=cwd,
                             env=env, capture_output=True, text=True, timeout=300)
    assert mutants.returncode == 0, mutants.stderr[-4000:]
    assert "usage:" in mutants.stdout
    assert set(_imported_from(mutants.stderr)) == {PACKAGE / "__init__.py"}

    # the console script beside the interpreter
    script = Path(sysconfig.get_path("scripts")) / ("ptxconf.exe" if os.name == "nt" else "ptxconf")
    version = subprocess.run([str(script), "--version"], cwd=cwd, env=env, capture_output=True,
                             text=True, timeout=300)
    assert version.returncode == 0
    assert version.stdout.strip() == f"ptxconf {ptxconf.__version__}"

    if EXPECT_INSTALL == "wheel":
        assert _in_site_packages(PACKAGE), f"ptxconf imported from {PACKAGE}, not site-packages"
        # (tox's site-packages lie under the checkout's .tox/, so the test names src/)
        assert not PACKAGE.is_relative_to(ROOT / "src"), f"ptxconf imported from the checkout: {PACKAGE}"
