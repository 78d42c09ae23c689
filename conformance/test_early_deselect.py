"""Tests `-m` deselects are not built (early_deselect.py, conftest.py's collection hooks), and
every `-m` expression still selects the same tests with the same ids: a test is dropped only
where its marks alone make the expression false, whatever marks it gains later."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from early_deselect import surely_deselected

HERE = Path(__file__).resolve().parent


def _marks(*names: str, **kwargs: object) -> list[pytest.Mark]:
    return [getattr(pytest.mark, name)(**kwargs).mark for name in names]


@pytest.mark.parametrize(("markexpr", "names", "dropped"), [
    ("not gpu and not slow", ("gpu",), True),
    ("not gpu and not slow", ("slow", "z3"), True),
    ("not gpu and not slow", ("z3",), False),  # selected unless it gains gpu or slow
    ("not gpu and not slow", (), False),
    ("slow and not gpu", ("gpu",), True),
    ("slow and not gpu", ("slow",), False),
    ("slow and not gpu", (), False),  # a parametrization or a hook may mark it slow yet
    ("gpu", (), False),
    ("gpu", ("slow",), False),
    ("not gpu", ("gpu", "slow"), True),
    ("gpu or not gpu", ("gpu",), False),
    ("slow and not slow", (), True),  # false whatever the marks
    ("", ("gpu",), False),  # no -m: nothing is dropped
])
def test_a_test_is_dropped_only_where_its_marks_settle_the_expression(
        markexpr: str, names: tuple[str, ...], dropped: bool) -> None:
    assert surely_deselected(markexpr, _marks(*names)) is dropped


def test_nothing_is_dropped_under_a_pytest_whose_expressions_differ(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest 8 (a GPU node's preinstalled one) compiles `-m` to an Expression without
    `idents()`: every test is then built, as without these hooks."""
    import early_deselect
    from _pytest.mark import expression

    class Older:
        @staticmethod
        def compile(text: str) -> object:
            return object()  # an expression with none of the methods relied on

    monkeypatch.setattr(expression, "Expression", Older)
    early_deselect._compiled.cache_clear()
    early_deselect._by_names.cache_clear()
    try:
        assert surely_deselected("not gpu and not slow", _marks("gpu")) is False
    finally:
        monkeypatch.undo()
        early_deselect._compiled.cache_clear()
        early_deselect._by_names.cache_clear()
    assert surely_deselected("not gpu and not slow", _marks("gpu")) is True  # this pytest


def test_keyword_arguments_match_as_pytest_matches_them() -> None:
    """`-m 'slow(reason="a")'`: a known mark settles the name only where its arguments match."""
    reason_a = _marks("slow", reason="a")
    assert surely_deselected('not slow(reason="a")', reason_a)
    assert not surely_deselected('not slow(reason="b")', reason_a)  # it may gain slow(reason="b")
    assert not surely_deselected('slow(reason="a")', reason_a)
    assert not surely_deselected('slow(reason="b")', reason_a)


#: A suite whose tests gain marks every way pytest gives them: on the function, its class, the
#: module, a parametrization (explicit ids, generated ones, duplicates), a fixture's params,
#: stacked parametrizations, and a hook after collection.
SUITE = {
    "test_marked.py": '''
import pytest

class Thing:
    pass

@pytest.mark.gpu
@pytest.mark.parametrize("x", [Thing(), Thing(), 3])
def test_on_gpu(x):
    pass

@pytest.mark.parametrize("x", [pytest.param(Thing(), marks=pytest.mark.slow), Thing(), 1, 1,
                               pytest.param(1, marks=pytest.mark.gpu), 2])
@pytest.mark.parametrize("y", ["a", pytest.param("b", marks=pytest.mark.z3)])
def test_mixed(x, y):
    pass

@pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.slow(reason="r")),
                               pytest.param(2, marks=pytest.mark.slow)])
def test_all_slow(x):
    pass

@pytest.fixture(params=[0, pytest.param(1, marks=pytest.mark.slow)])
def level(request):
    return request.param

def test_fixture_params(level):
    pass

def test_late_slow():
    pass

def test_plain():
    pass

@pytest.mark.slow
class TestSlow:
    def test_one(self):
        pass

    @pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.gpu)])
    def test_two(self, x):
        pass
''',
    "test_module_gpu.py": '''
import pytest
pytestmark = [pytest.mark.gpu]

@pytest.mark.parametrize("x", range(3))
def test_any(x):
    pass
''',
}

#: The suite's conftest: a hook marks a test slow after collection, and the early hooks (as in
#: conftest.py) are on where EARLY is set.
CONFTEST = f'''
import os
import sys
import pytest
sys.path.insert(0, {str(HERE)!r})
import early_deselect

def pytest_configure(config):
    for name in ("gpu", "slow", "z3"):
        config.addinivalue_line("markers", name)

def pytest_collection_modifyitems(items):
    for item in items:
        if "late" in item.name:
            item.add_marker(pytest.mark.slow)

@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name, obj):
    early = os.environ.get("EARLY") and early_deselect.drop_function(collector, name, obj)
    return [] if early else None

@pytest.hookimpl(wrapper=True)
def pytest_generate_tests(metafunc):
    result = yield
    if os.environ.get("EARLY"):
        early_deselect.drop_calls(metafunc)
    return result
'''

EXPRESSIONS = ["not gpu and not slow", "gpu", "slow and not gpu", 'not slow(reason="r")']

#: pytest's plugins that collecting SUITE does without (each collection's own setup and teardown
#: then takes about 30 ms, not 70).
UNUSED_PLUGINS = ("cacheprovider", "unraisableexception", "threadexception", "faulthandler",
                  "junitxml", "doctest", "pastebin", "stepwise", "logging", "warnings",
                  "legacypath", "tmpdir", "monkeypatch", "capture", "debugging")
NO_PLUGINS = [arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")]

#: Collects SUITE under each expression, without the early hooks and with them, in one process:
#: each run's selected ids and how many items it built.
COLLECT = f'''
import json, os
import pytest

class Ids:
    def pytest_collection_modifyitems(self, items):
        self.built = len(items)

    def pytest_collection_finish(self, session):
        self.ids = [item.nodeid for item in session.items]

out = {{}}
for early in ("", "1"):
    os.environ["EARLY"] = early
    for expr in {EXPRESSIONS!r}:
        ids = Ids()
        pytest.main(["--collect-only", "-q", "-m", expr, *{NO_PLUGINS!r}], plugins=[ids])
        out[early + expr] = [ids.ids, ids.built]
print(json.dumps(out))
'''


def test_every_expression_selects_the_same_ids(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for name, text in SUITE.items():
        (tmp_path / name).write_text(text)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run([sys.executable, "-c", COLLECT], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs: dict[str, list] = json.loads(proc.stdout.strip().splitlines()[-1])
    for expr in EXPRESSIONS:
        (want_ids, want_built), (got_ids, got_built) = runs[expr], runs["1" + expr]
        assert got_ids == want_ids, expr
        assert got_built <= want_built, expr
    want, got = runs["not gpu and not slow"], runs["1not gpu and not slow"]
    assert len(want[0]) == 10, want  # the suite is what this test means
    # the default run drops test_on_gpu (3), test_module_gpu.py (3), TestSlow (3), test_mixed's
    # slow and gpu x (4), test_all_slow's second, test_fixture_params' slow level
    assert got[1] == want[1] - 15
    assert runs["1gpu"][1] == runs["gpu"][1]
