"""`--dist loadgroup` keeps an `xdist_group` on one worker (loadgroup.py's `group_for_xdist`,
which conftest.py calls): the compiled modules of test_gpu_compile.py and a GPU module's variants
are then made once, whichever pytest the machine has (pytest 9.2 dropped the node id xdist 3.8
writes the group to); loadgroup.py's batched scheduler (conftest.py's) hands out every test once,
a group to one worker."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

CONFTEST = f"""
import sys
import pytest
sys.path.insert(0, {str(HERE)!r})
from loadgroup import batched_scheduler, group_for_xdist

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    group_for_xdist(config, items)

@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    return batched_scheduler(config, log)
"""

GROUPED = """
import pytest
pytestmark = pytest.mark.xdist_group("one")

@pytest.mark.parametrize("i", range(8))
def test_grouped(i):
    pass
"""

FREE = """
import pytest

@pytest.mark.parametrize("i", range(40))
def test_free(i):
    pass
"""


def test_a_group_runs_on_one_worker(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    (tmp_path / "test_free.py").write_text(FREE)
    # xdist alone of the installed plugins (hypothesis's would be imported by all three processes:
    # about a third of the run's CPU)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "xdist", "-n", "2", "--dist",
                           "loadgroup", "-v", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = re.findall(r"^\[(gw\d)\].*PASSED \S*::(test_\w+)\[", proc.stdout, flags=re.MULTILINE)
    grouped = {worker for worker, name in ran if name == "test_grouped"}
    assert len([1 for _, name in ran if name == "test_grouped"]) == 8, proc.stdout
    assert len(grouped) == 1, f"the group ran on {sorted(grouped)}:\n{proc.stdout}"
    # the batched scheduler hands out every test once, the free ones to both workers
    assert sorted(name for _, name in ran) == ["test_free"] * 40 + ["test_grouped"] * 8, proc.stdout
    assert {worker for worker, name in ran if name == "test_free"} == {"gw0", "gw1"}, proc.stdout
