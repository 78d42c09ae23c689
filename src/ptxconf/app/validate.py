"""`ptxconf spec validate`: every lint rule, the cross-file rules, the facts several rows derive,
the self-consistency cases and the assembler witness `check` runs; each problem
`path:line: RULE - message` (exit 2)."""

from __future__ import annotations

import argparse

from ptxconf.app.command_io import UsageError, command_spec, emit
from ptxconf.app.spec_assembler import assembler_stage
from ptxconf.app.spec_checks import checks_stage
from ptxconf.oracle.spec import SpecErrors


def cmd_validate(args: argparse.Namespace) -> int:
    """spec validate: every problem as `path:line: RULE - message` (or JSON objects); exit 2."""
    try:
        spec = command_spec(args)
        failed = checks_stage(spec) if args.checks == "on" else []
        stage = None if args.assembler == "off" else assembler_stage(spec)
        if stage is not None and stage.skipped and args.assembler == "on":
            raise UsageError(f"--assembler on: {stage.skipped}")
        failed += list(stage.errors) if stage is not None else []
        if failed:  # both stages' problems, in file and line order
            raise SpecErrors(sorted(failed, key=lambda e: (e.path, e.line)))
    except SpecErrors as errs:
        if not args.json:
            raise
        problems = [{"path": e.path, "line": e.line, "rule": e.rule, "message": e.message}
                    for e in errs.errors]
        emit(args, {"ok": False, "problems": problems}, "")  # names the spec where it loaded
        return 2
    files = sorted({r.file for r in spec.rows})
    if stage is None:
        asm = "assembler stage off"
    elif stage.skipped:
        asm = f"assembler stage skipped: {stage.skipped}"
    else:
        asm = stage.summary
    emit(args, {"ok": True, "spec_dir": str(spec.root), "files": len(files),
                 "rows": len(spec.rows), "problems": [], "assembler": asm},
          f"{spec.root}: {len(files)} files, {len(spec.rows)} rows, no problems; {asm}")
    return 0


__all__ = ["cmd_validate"]
