"""The asserts of the test modules rewritten once a run (prewarm.py, conftest.py's
pytest_sessionstart): what it writes is what pytest itself would write and reads back, a module
whose pyc pytest reads is left alone, and no process but an xdist controller does it."""

from __future__ import annotations

from pathlib import Path

import prewarm
import pytest
from _pytest.assertion import rewrite as rw

MODULE = '''
def test_sum():
    total = sum([1, 2, 3])
    assert total == 7, "the message stays"
'''


def _pyc(module: Path) -> Path:
    return rw.get_cache_dir(module) / (module.name[:-3] + rw.PYC_TAIL)


def test_the_pyc_written_ahead_is_the_one_pytest_writes_and_reads(tmp_path: Path,
                                                                   pytestconfig: pytest.Config) -> None:
    module = tmp_path / "test_ahead.py"
    module.write_text(MODULE)
    assert prewarm.rewrite_ahead([module], processes=2)
    code = rw._read_pyc(module, _pyc(module))
    assert code is not None, "pytest does not read the pyc written ahead"
    _, own = rw._rewrite_test(module, pytestconfig)
    assert code == own  # bytecode, constants, names and line numbers alike
    scope: dict[str, object] = {}
    exec(code, scope)
    with pytest.raises(AssertionError, match=r"the message stays\nassert 6 == 7"):
        scope["test_sum"]()  # type: ignore[operator]


def test_a_pyc_pytest_reads_is_left_alone_and_an_edited_module_is_rewritten(tmp_path: Path) -> None:
    module = tmp_path / "test_ahead.py"
    module.write_text(MODULE)
    assert prewarm.rewrite_ahead([module], processes=1)
    pyc = _pyc(module)
    written = pyc.stat().st_mtime_ns
    assert prewarm.rewrite_ahead([module], processes=1)
    assert pyc.stat().st_mtime_ns == written
    module.write_text(MODULE.replace("== 7", "== 6"))
    assert prewarm.rewrite_ahead([module], processes=1)
    code = rw._read_pyc(module, pyc)
    assert code is not None
    scope: dict[str, object] = {}
    exec(code, scope)
    scope["test_sum"]()  # type: ignore[operator]


def test_the_run_rewrites_its_test_modules_and_only_its_controller_does(
        pytestconfig: pytest.Config) -> None:
    found = prewarm.test_modules(pytestconfig)
    assert Path(__file__).resolve() in found
    assert all(p.name.startswith("test_") for p in found)
    assert len(found) == len(set(found))
    assert prewarm.wanted(pytestconfig) == 0  # a worker, or a run without xdist's workers
