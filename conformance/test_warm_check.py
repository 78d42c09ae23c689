"""A warm `ptxconf check --gpu off` (every result from the caches) imports neither NumPy, nor
cuda-bindings, nor Z3, and reports what the cold run reported (issue 29: its import time is
most of a warm run on a node where `import numpy` alone takes 0.38 s)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Run after the command, in its process: which of the heavy modules it imported.
PROBE = ("import atexit, json, os, sys\n"
         "HEAVY = ('numpy', 'z3', 'cuda.bindings', 'cuda.pathfinder')\n"
         "atexit.register(lambda: open(os.environ['PTXCONF_TEST_IMPORTED'], 'w').write(json.dumps("
         "sorted(m for m in HEAVY if m in sys.modules))))\n"
         "sys.argv = ['ptxconf', *sys.argv[1:]]\n"
         "from ptxconf.app.entry import main\n"
         "sys.exit(main())\n")


def _check(tmp_path: Path, name: str) -> tuple[list[str], dict[str, tuple[str, str | None]]]:
    report = tmp_path / name
    imported = tmp_path / f"{name}.imported.json"
    env = {**os.environ, "PTXCONF_CACHE_DIR": str(tmp_path / "cache"),
           "PTXCONF_TEST_IMPORTED": str(imported)}
    done = subprocess.run([sys.executable, "-c", PROBE, "check", "--gpu", "off", "--quiet",
                           "--report-dir", str(report)], capture_output=True, text=True, env=env,
                          cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    results = json.loads((report / "results.json").read_text())["results"]
    return json.loads(imported.read_text()), {r["id"]: (r["status"], r.get("code"))
                                              for r in results}


@pytest.mark.slow(reason="a cold check proves every claim (tens of seconds on 2 cores); the parts "
                         "are covered by test_tool_stamp (no cuda-bindings or Z3 for the tools' "
                         "versions), test_proof_listing (no Z3 for the warm proofs) and "
                         "test_picture_cache (no NumPy for the report's pictures)")
def test_a_warm_check_imports_neither_numpy_nor_cuda_nor_z3(tmp_path: Path) -> None:
    _, cold = _check(tmp_path, "cold")
    imported, warm = _check(tmp_path, "warm")
    assert imported == []
    assert warm == cold
