"""`spec validate`'s checks stage: the spec's self-consistency cases, the ones `check` runs on
the spec alone (coverage of every major-ness and swizzle mode, worked examples, tables that must
agree), judged as `check` judges them (against the spec's findings). Each case that would fail
`check` is `path:line: SPEC-CHECK - <case id>: <message>` at the row its key names (the file,
for a key naming a file or a whole kind), so that `spec validate` and `check` cannot disagree on
a spec: deleting wgmma/stride_byte_offset.yaml leaves no SBO definitions, and both say so.
"""

from __future__ import annotations

from ptxconf.core.cases import execute
from ptxconf.oracle.lint.base import SpecError
from ptxconf.oracle.spec import Spec, key_location

RULE = "SPEC-CHECK"


def locate(spec: Spec, key: str) -> tuple[str, int]:
    """(path, line) of what a case key names (`ptxconf.oracle.spec.key_location`), the path
    under the spec's folder (the folder itself where the key names nothing in it)."""
    rel, line = key_location(spec, key)
    return (str(spec.root / rel) if rel else str(spec.root)), line


def checks_stage(spec: Spec) -> list[SpecError]:
    """Every self-consistency case `check` would fail on this spec, at its row."""
    from ptxconf.oracle.checks import all_cases

    errors = []
    for case in all_cases(spec):
        result = spec.findings.judge(execute(case))
        if result.status.failing:
            path, line = locate(spec, case.key)
            errors.append(SpecError(path, line, RULE, f"{result.id}: {result.message}"))
    return errors


__all__ = ["RULE", "checks_stage", "locate"]
