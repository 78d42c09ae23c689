"""The spec-lint provider: one case per spec file, `spec.lint[<file>]`.

Loading a spec already rejects any lint error (`path:line: RULE - message`, exit 2 before a run
starts), so each case here states what the run stands on: the file parsed, every rule passed,
and how many rows of which kinds it gave.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from ptxconf.core.cases import Case, Outcome, case, passed
from ptxconf.oracle.spec import Spec

CHECK = "spec.lint"


def lint_cases(spec: Spec, ctx: Any = None) -> Iterator[Case]:
    """One case per file of the spec."""
    by_file: dict[str, Counter[str]] = {}
    for row in spec.rows:
        by_file.setdefault(row.file, Counter())[row.KIND] += 1
    for rel, kinds in by_file.items():
        def body(rel: str = rel, kinds: Counter[str] = kinds) -> Outcome:
            total = sum(kinds.values())
            return passed(f"{rel}: {total} rows, every lint rule passes",
                          rows=total, kinds=dict(kinds))
        yield case(CHECK, rel.removesuffix(".yaml"), body, "spec-lint")
