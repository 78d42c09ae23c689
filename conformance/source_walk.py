"""Reading Python source for the suite's contract tests (test_layering.py's import graph,
test_module_index.py's index): the statements of a parsed module, without its expressions."""

from __future__ import annotations

import ast
from collections.abc import Iterator

#: The fields of a node that hold statements (a body, an else, a finally, except handlers, match
#: cases): every import statement lies in one, at whatever depth; expressions hold none.
STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(tree: ast.AST) -> Iterator[ast.AST]:
    """Every statement of a module, those nested in functions, classes and blocks too (and the
    except handlers and match cases that hold them): every import statement ast.walk finds,
    without visiting each expression node (most of a module's nodes; half the walk's time)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for field in STATEMENT_FIELDS:
            children = getattr(node, field, None)
            if isinstance(children, list):
                stack.extend(children)
