"""`spec validate`'s assembler stage: rows that name instruction forms the assembler rejects.

Where NVRTC can compile sm_90a (no GPU needed), every wgmma instruction-type row (at its
smallest valid N, SS and RS) and every wmma shape x element type of the default-stride table
(a fragment load of A) is compiled; a rejected one is `path:line: SPEC-ASSEMBLER - message` at
the row, with the assembler's first words. Without NVRTC the stage says why it did not run.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxconf.oracle.lint.base import SpecError
from ptxconf.oracle.records import InstructionType, WmmaDefaultStride
from ptxconf.oracle.spec import Spec

RULE = "SPEC-ASSEMBLER"


@dataclass(frozen=True)
class AssemblerStage:
    """What the stage did: the problems it found, or why it did not run."""

    errors: tuple[SpecError, ...]
    checked: int
    skipped: str | None = None


def _first_words(log: str) -> str:
    lines = [ln.strip() for ln in log.splitlines() if "error" in ln.lower()]
    return (lines or [ln.strip() for ln in log.splitlines() if ln.strip()] or ["(no log)"])[0][:200]


def _where(spec: Spec, row: InstructionType | WmmaDefaultStride) -> str:
    return f"{spec.root}/{row.file}"


def _wgmma_errors(spec: Spec) -> tuple[list[SpecError], int]:
    from ptxconf.gpu import assembler
    from ptxconf.gpu.variants import WgmmaVariant, isa_facts
    from ptxconf.oracle.instructions import valid_n_for

    isa = isa_facts(spec)
    asked: list[tuple[InstructionType, WgmmaVariant]] = []
    for row in spec.of(InstructionType):
        ns, _ = valid_n_for(spec, row)
        for rs in (False, True):
            asked.append((row, WgmmaVariant(n=ns[0], k=row.k_elems, dtype=row.dtype,
                                            atype=row.atype, btype=row.btype, a_from_regs=rs,
                                            isa=isa)))
    verdicts = assembler.compile_check_many([v for _, v in asked])
    errors: dict[str, SpecError] = {}
    for (row, v), (ok, log) in zip(asked, verdicts, strict=True):
        if not ok and row.key not in errors:
            errors[row.key] = SpecError(_where(spec, row), row.line, RULE,
                                        f"row {row.id!r}: the assembler (sm_90a) rejects "
                                        f"{v.ptx_name} ({v.form.upper()}): {_first_words(log)}")
    return list(errors.values()), len(asked)


def _wmma_errors(spec: Spec) -> tuple[list[SpecError], int]:
    from ptxconf.gpu import build
    from ptxconf.gpu.variants import WmmaVariant, isa_facts

    isa = isa_facts(spec)
    if build.include_problem():
        return [], 0
    errors: list[SpecError] = []
    checked = 0
    for row in spec.of(WmmaDefaultStride):
        for dtype in row.types:
            checked += 1
            try:
                v = WmmaVariant(op="load", matrix="a", m=row.m_elems, n=row.n_elems,
                                k=row.k_elems, dtype=dtype, layout="row", isa=isa)
                result = build.compile_wmma_cubin([v], cache=False)
            except (ValueError, KeyError) as exc:
                errors.append(SpecError(_where(spec, row), row.line, RULE,
                                        f"row {row.id!r}, type {dtype}: no probe can be "
                                        f"written: {exc}"))
                continue
            if not result.ok:
                errors.append(SpecError(_where(spec, row), row.line, RULE,
                                        f"row {row.id!r}: the compiler rejects a wmma "
                                        f"{row.id} .{dtype} fragment: {_first_words(result.log)}"))
    return errors, checked


def assembler_stage(spec: Spec) -> AssemblerStage:
    """Compile what the spec's instruction rows name; rows the assembler rejects are errors."""
    from ptxconf.gpu import build

    problem = build.nvrtc_problem()
    if problem:
        return AssemblerStage((), 0, problem)
    wgmma, n1 = _wgmma_errors(spec)
    wmma, n2 = _wmma_errors(spec)
    return AssemblerStage(tuple(wgmma + wmma), n1 + n2)


__all__ = ["RULE", "AssemblerStage", "assembler_stage"]
