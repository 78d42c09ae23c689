"""`spec validate`'s checks stage: the spec's self-consistency cases, the ones `check` runs on
the spec alone (coverage of every major-ness and swizzle mode, worked examples, tables that must
agree), judged as `check` judges them (against the spec's findings). Each case that would fail
`check` is `path:line: SPEC-CHECK - <case id>: <message>` at the row its key names (the file,
for a key naming a file or a whole kind), so that `spec validate` and `check` cannot disagree on
a spec: deleting wgmma/stride_byte_offset.yaml leaves no SBO definitions, and both say so.
"""

from __future__ import annotations

from ptxconf.core.cases import execute
from ptxconf.oracle import records
from ptxconf.oracle.lint.base import SpecError
from ptxconf.oracle.spec import Spec

RULE = "SPEC-CHECK"


def locate(spec: Spec, key: str) -> tuple[str, int]:
    """(path, line) of what a case key names: a row (`<file stem>:<id>`), else a file (its
    stem, alone or before a colon), else the first file holding a kind (`<kind>:...`), else
    the spec folder."""
    for row in spec.rows:
        if row.key == key:
            return str(spec.root / row.file), row.line
    head = key.split(":", 1)[0]
    for row in spec.rows:
        if row.file[:-5] == head:
            return str(spec.root / row.file), 1
    kind = records.RECORD_KINDS.get(head)
    for row in spec.rows:
        if kind is not None and isinstance(row, kind):
            return str(spec.root / row.file), 1
    return str(spec.root), 1


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
