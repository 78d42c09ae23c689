"""No vacuous passes: a test that asserts must assert something that always runs.

An AST scan of every ``conformance/test_*.py``. A test function (name starts with ``test``,
at module level or in a class) that checks something (an ``assert``, or a ``pytest.raises`` /
``pytest.warns`` / ``pytest.fail`` call) is flagged when none of its checks is *top level*:
each sits in a ``for`` / ``while`` body or ``else``, an ``if`` branch, a ``match`` case, a
comprehension, a conditional expression or the right-hand side of ``and`` / ``or``. Such a
test passes without checking anything when the loop runs zero times or the branch is never
taken. The report is one ``file:line test_name`` per offender.

A check is top level when it runs whenever the test body runs: directly in the body, or under
``with`` (so ``with pytest.raises(...):`` counts) or ``try``. One top-level check is enough;
the readable ways to show a loop ran are a top-level assert after it (``assert checked``,
``assert n > 0``, ``assert rows, "..."``) or a top-level assert on the iterable before it.
Three refinements keep the rule free of false positives:

* ``pytest.fail`` is the assert of the branch it sits in (``if bad: pytest.fail(...)`` is
  ``assert not bad``; in a loop's ``else`` it asserts the loop broke), so only a loop body or
  a comprehension guards it;
* a ``for`` over a literal that cannot be empty (``for f in (0, 2, 5):``, ``range(4)``) runs
  its body at least once: that body counts as top level;
* ``pytest.skip`` / ``pytest.xfail`` check nothing: a guarded skip (``if no_gpu:
  pytest.skip(...)``) neither satisfies the rule nor brings a test into it; an unconditional
  one does satisfy it (such a test never passes).

Limits of the rule (what it does not see):

* a test with no check in its own body, only calls to a helper that asserts
  (``_check_round_trip(x)``), is out of scope; the helper's own loops are not inspected;
* checks inside a function, lambda or class defined within the test are ignored, whether or
  not it is called;
* a top-level check is taken at its word: ``assert True`` or an assert unrelated to the loop
  satisfies the rule, and an early ``return`` / ``continue`` / ``break`` before a check is not
  followed;
* an ``except`` handler is not a guard: ``try: f() except E as e: assert ...`` counts as top
  level because the ``try`` body is itself a check (anything else ``f`` raises fails the
  test); to require that ``f`` raises, use ``pytest.raises``;
* ``while True:`` is treated like any other loop (its body is counted as guarded).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: ``pytest.<name>(...)`` calls that check something. ``fail`` is the assert of a branch: a
#: ``pytest.fail`` guarded only by branches (``if bad: pytest.fail(...)``) is top level.
PYTEST_CHECKS = frozenset({"raises", "warns", "deprecated_call", "fail"})
#: ``pytest.<name>(...)`` calls that end the test without passing it: top level, they satisfy
#: the rule (the test never passes); they do not on their own make a test one that checks.
PYTEST_STOPS = frozenset({"skip", "xfail"})

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

#: Guard kinds: what a check sits under.
TOP, BRANCH, LOOP = 0, 1, 2


def _pytest_call(node: ast.AST) -> str | None:
    """``name`` of a ``pytest.<name>(...)`` call, else None."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "pytest"):
        return node.func.attr
    return None


def _always_iterates(loop: ast.AST) -> bool:
    """A ``for`` over a literal that cannot be empty: ``(0, 2, 5)``, ``[a, b]``, ``range(4)``."""
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return False
    it = loop.iter
    if isinstance(it, ast.Tuple | ast.List | ast.Set):
        return any(not isinstance(e, ast.Starred) for e in it.elts)
    if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and not it.keywords and 1 <= len(it.args) <= 3
            and all(isinstance(a, ast.Constant) and type(a.value) is int for a in it.args)):
        return len(range(*(a.value for a in it.args))) > 0
    return False


def _guard(node: ast.AST, field: str, index: int) -> int:
    """What the children in ``node.<field>`` (the ``index``-th of a list) run under."""
    if isinstance(node, _LOOPS):
        if field == "body":  # the header (iterable, condition) always runs once
            return TOP if _always_iterates(node) else LOOP
        return BRANCH if field == "orelse" else TOP  # ``else``: runs unless the loop breaks
    if isinstance(node, ast.If | ast.IfExp):
        return BRANCH if field in ("body", "orelse") else TOP
    if isinstance(node, ast.Match):
        return BRANCH if field == "cases" else TOP
    if isinstance(node, ast.BoolOp):  # ``a and b`` / ``a or b``: only ``a`` always runs
        return BRANCH if index > 0 else TOP
    if isinstance(node, _COMPREHENSIONS):
        # elt runs per item; the first generator's iterable always runs
        return TOP if field == "generators" and index == 0 else LOOP
    if isinstance(node, ast.comprehension):
        return TOP if field == "iter" else LOOP
    return TOP


def _checks(node: ast.AST, under: int) -> Iterator[tuple[str, int]]:
    """(kind, guard) of every check under ``node``: kind ``assert`` or a pytest call name."""
    if isinstance(node, ast.Assert):
        yield "assert", under
    elif (name := _pytest_call(node)) in PYTEST_CHECKS | PYTEST_STOPS:
        yield name, under
    if isinstance(node, _SCOPES):
        return  # a nested def / lambda / class: its checks are out of scope
    for field, value in ast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for i, child in enumerate(children):
            if isinstance(child, ast.AST):
                yield from _checks(child, max(under, _guard(node, field, i)))


def _top_level(kind: str, under: int) -> bool:
    return under == TOP or (kind == "fail" and under == BRANCH)


def _test_functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            yield node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if (isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                        and item.name.startswith("test")):
                    yield item


def vacuous_tests(source: str) -> list[tuple[int, str]]:
    """(line, name) of each test whose every check is guarded by a loop or a branch."""
    tree = ast.parse(source)
    found = []
    for fn in _test_functions(tree):
        checking = top_level = False  # walked until both are known (most tests: the first assert)
        for kind, under in (c for stmt in fn.body for c in _checks(stmt, TOP)):
            checking = checking or kind not in PYTEST_STOPS
            top_level = top_level or _top_level(kind, under)
            if checking and top_level:
                break
        if checking and not top_level:
            found.append((fn.lineno, fn.name))
    return found


def offenders(paths: list[Path], root: Path) -> list[str]:
    """``file:line test_name`` of every vacuous test in ``paths`` (file relative to root)."""
    return [f"{path.relative_to(root).as_posix()}:{line} {name}"
            for path in paths for line, name in vacuous_tests(path.read_text(encoding="utf-8"))]


TEST_FILES = sorted(HERE.glob("test_*.py"))


def test_there_are_test_files_to_scan() -> None:
    assert len(TEST_FILES) > 1, HERE
    assert Path(__file__).resolve() in TEST_FILES


def test_no_test_passes_vacuously() -> None:
    found = offenders(TEST_FILES, ROOT)
    assert not found, (
        "every check of these tests sits in a loop or a branch that may run zero times; add a "
        "top-level assert that it ran (assert the collection is non-empty, or count and "
        "assert n > 0):\n" + "\n".join(found))


# --- the rule itself ------------------------------------------------------------------------

FLAGGED = {
    "loop_only": """
        def test_x(rows):
            for r in rows:
                assert r > 0
    """,
    "branch_only": """
        def test_x(r):
            if r:
                assert r > 0
    """,
    "else_branch_only": """
        def test_x(r):
            if r:
                pass
            else:
                assert r == 0
    """,
    "while_only": """
        def test_x(n):
            while n:
                n -= 1
                assert n >= 0
    """,
    "nested_loop_raises": """
        def test_x(rows):
            for r in rows:
                for c in r:
                    with pytest.raises(ValueError):
                        f(c)
    """,
    "literal_outer_loop_computed_inner": """
        def test_x(k):
            for r in range(8):
                for j in range(k):
                    assert f(r, j)
    """,
    "empty_range_literal": """
        def test_x():
            for r in range(0):
                assert f(r)
    """,
    "skip_guard_then_loop": """
        def test_x(rows):
            if not rows:
                pytest.skip("none")
            for r in rows:
                assert r
    """,
    "fail_in_loop": """
        def test_x(rows):
            for r in rows:
                if not r:
                    pytest.fail("falsy row")
    """,
    "assert_after_and": """
        def test_x(r):
            r and f(r)
            if r:
                assert r
    """,
    "comprehension": """
        def test_x(rows):
            [pytest.raises(ValueError, f, r) for r in rows]
    """,
    "conditional_expression": """
        def test_x(r):
            pytest.raises(ValueError, f, r) if r else None
    """,
    "method_in_class": """
        class TestX:
            def test_x(self, rows):
                for r in rows:
                    assert r
    """,
    "async_test": """
        async def test_x(rows):
            async for r in rows:
                assert r
    """,
    "match_case": """
        def test_x(r):
            match r:
                case 1:
                    assert r
    """,
}

CLEAN = {
    "top_level_assert": """
        def test_x(r):
            assert r > 0
    """,
    "count_after_loop": """
        def test_x(rows):
            checked = 0
            for r in rows:
                assert r > 0
                checked += 1
            assert checked
    """,
    "iterable_asserted_before": """
        def test_x(rows):
            assert rows, "no rows"
            for r in rows:
                assert r > 0
    """,
    "top_level_raises": """
        def test_x():
            with pytest.raises(ValueError, match="bad"):
                f()
    """,
    "raises_call_form": """
        def test_x():
            pytest.raises(ValueError, f)
    """,
    "skip_guard_then_asserts": """
        def test_x(gpu):
            if gpu is None:
                pytest.skip("no GPU")
            assert gpu.ok
    """,
    "unconditional_skip": """
        def test_x(rows):
            pytest.skip("not yet")
            for r in rows:
                assert r
    """,
    "skip_guard_then_helper": """
        def test_x(gpu):
            if gpu is None:
                pytest.skip("no GPU")
            _check(gpu)
    """,
    "fail_in_a_branch_is_an_assert": """
        def test_x(r):
            if r.status is not PASS:
                pytest.fail(r.message)
    """,
    "fail_in_for_else_asserts_the_loop_broke": """
        def test_x(rows):
            for r in rows:
                if r:
                    break
            else:
                pytest.fail("no truthy row")
    """,
    "fail_after_or": """
        def test_x(r):
            r or pytest.fail("empty")
    """,
    "assert_in_except_handler": """
        def test_x():
            try:
                f()
            except ValueError as e:
                assert "bad" in str(e)
    """,
    "assert_under_with_and_try": """
        def test_x(tmp_path):
            with open(tmp_path / "f") as fh:
                try:
                    assert fh.read()
                finally:
                    fh.close()
    """,
    "loop_over_literal_tuple": """
        def test_x():
            for field in (0, 2, 5):
                assert f(field)
    """,
    "loop_over_literal_range": """
        def test_x():
            for kb in range(1, 4):
                assert f(kb)
    """,
    "no_checks_only_a_helper": """
        def test_x(rows):
            for r in rows:
                _check(r)
    """,
    "nested_def_is_out_of_scope": """
        def test_x(rows):
            def check(r):
                assert r
            for r in rows:
                check(r)
    """,
    "not_a_test": """
        def helper(rows):
            for r in rows:
                assert r
    """,
    "filtered_collection_asserted_first": """
        def test_x(probes):
            picked = [p for p in probes if p.ok]
            assert picked
            for p in picked:
                assert p.value
    """,
}


def _src(snippet: str) -> str:
    return textwrap.dedent(snippet)


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_rule_flags(name: str) -> None:
    src = _src(FLAGGED[name])
    def_line = next(i for i, line in enumerate(src.splitlines(), 1) if "def test_x" in line)
    assert vacuous_tests(src) == [(def_line, "test_x")]


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_rule_passes(name: str) -> None:
    assert vacuous_tests(_src(CLEAN[name])) == []


def test_offender_report_names_file_line_and_test(tmp_path: Path) -> None:
    """The failure message format: one `file:line name` per offender, clean tests left out."""
    (tmp_path / "conformance").mkdir()
    path = tmp_path / "conformance" / "test_demo.py"
    path.write_text(_src(FLAGGED["loop_only"]) + _src(CLEAN["top_level_assert"]).replace("test_x", "test_y"))
    assert offenders([path], tmp_path) == ["conformance/test_demo.py:2 test_x"]
