"""`spec validate`'s assembler stage: rows that name instruction forms the assembler rejects.

Where NVRTC can compile sm_90a (no GPU needed), the stage asks what `ptxconf check`'s assembler
witness asks (`ptxconf.gpu.witness`), through the same cases, sweep and verdict cache: every
valid N of every instruction-type row, SS and RS, with and without `.satfinite` where the row
has it (and that the N between them are rejected), and every type combination at each K. A
witness case that would fail `check` (judged against the spec's known findings) is
`path:line: SPEC-ASSEMBLER - message` at the line a user edits to fix it: a valid-N problem at
the accumulator fragment's `valid_n`, a type problem at the instruction-type row. The wmma
shapes x element types of the default-stride table (a fragment load of A) are compiled too.
Without NVRTC the stage says why it did not run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ptxconf.core.cases import execute
from ptxconf.core.results import Result
from ptxconf.oracle.instructions import n_ranges
from ptxconf.oracle.lint.base import RawDocument, SpecError
from ptxconf.oracle.records import InstructionType, Row, WmmaDefaultStride
from ptxconf.oracle.spec import Spec

if TYPE_CHECKING:
    from ptxconf.gpu.variants import WmmaVariant
    from ptxconf.gpu.witness import Sweep, TypeForm

RULE = "SPEC-ASSEMBLER"


@dataclass(frozen=True)
class AssemblerStage:
    """What the stage did: the problems it found, or why it did not run."""

    errors: tuple[SpecError, ...]
    checked: int
    skipped: str | None = None
    #: What was asked and what it cost, in one line (empty where the stage did not run).
    summary: str = ""


class _Lines:
    """Where a row's keys are in its file (files parsed once, on first use)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.docs: dict[str, RawDocument] = {}

    def path(self, row: Row) -> str:
        """The file of a row, as errors name it."""
        return f"{self.spec.root}/{row.file}"

    def of(self, row: Row, key: str | None = None) -> int:
        """The line of `key` in `row` (its own line where the key is on it, or not given)."""
        if key is None:
            return row.line
        if row.file not in self.docs:
            self.docs[row.file] = RawDocument.parse(Path(self.path(row)), row.file)
        raw = next((r for r in self.docs[row.file].rows if r.line == row.line), None)
        return raw.line_of(key) if raw is not None else row.line

    def error(self, row: Row, message: str, key: str | None = None) -> SpecError:
        """A SPEC-ASSEMBLER error at `row` (at `key` of it where given)."""
        return SpecError(self.path(row), self.of(row, key), RULE, message)


def _type_group_message(forms: list[TypeForm], k: int) -> str:
    """One message for the forms of one type combination the table and the assembler disagree on."""
    from ptxconf.gpu.witness import first_words

    f = forms[0]
    names = f"{f.variant.ptx_name} ({', '.join(x.variant.form.upper() for x in forms)})"
    if f.row is None:
        return (f"the assembler (sm_90a) accepts {names}, which no k{k} instruction-type row "
                "lists: add the row")
    if f.accepted:
        return f"row {f.row.id!r}: the assembler (sm_90a) accepts {names}; the row says satfinite: false"
    where = "satfinite: true says exists" if f.variant.satfinite else "the row lists"
    return f"row {f.row.id!r}: the assembler (sm_90a) rejects {names}, which {where}: {first_words(f.log)}"


def _type_errors(spec: Spec, key: str, result: Result, sw: Sweep, lines: _Lines) -> list[SpecError]:
    """A failing type-table case: one error per disagreeing type combination and .satfinite."""
    from ptxconf.gpu import witness

    k = witness.key_k(key)
    first_row = next(r for r in spec.of(InstructionType) if r.k_elems == k)
    groups: dict[tuple[object, ...], list[TypeForm]] = {}
    for f in witness.type_table_verdict(spec, k, sw):
        if f.listed != f.accepted:
            v = f.variant
            groups.setdefault((v.dtype, v.atype, v.btype, v.satfinite, f.accepted), []).append(f)
    if not groups:
        return [lines.error(first_row, f"k{k} type table: {result.message}")]
    return [lines.error(fs[0].row or first_row, _type_group_message(fs, k),
                        "satfinite" if fs[0].row is not None and fs[0].variant.satfinite else None)
            for fs in groups.values()]


def _valid_n_errors(spec: Spec, failing: Iterable[tuple[str, Result]], sw: Sweep,
                    lines: _Lines, taken: set[tuple[str, int]]) -> list[SpecError]:
    """Failing valid-N cases: listed N the assembler rejects (or unlisted N it accepts) at the
    fragment's valid_n, one error per fragment and difference naming its type rows; forms that
    disagree at the instruction-type row; a row the assembler accepts at no N at its row,
    unless the type table reported that row already (`taken`); anything else (a known finding
    changed or gone stale, a case that raised) at the fragment's valid_n, in check's words."""
    from ptxconf.gpu import witness

    rows = {r.key: r for r in spec.of(InstructionType)}
    grouped: dict[tuple[object, ...], list[witness.ValidN]] = {}
    errors: list[SpecError] = []
    for key, result in failing:
        v = witness.valid_n_verdict(spec, rows[key], sw)
        row = v.row
        if not any(v.accepted.values()):
            if (lines.path(row), row.line) not in taken:
                errors.append(lines.error(row, f"row {row.id!r}: the assembler (sm_90a) accepts "
                                               f"it at no N: {v.differences()}"))
        elif not v.forms_agree:
            errors.append(lines.error(row, f"row {row.id!r}: the assembler (sm_90a) accepts other "
                                           "N in each form: " + "; ".join(
                                               f"{f}: {n_ranges(ns)}" for f, ns in v.accepted.items())))
        elif v.listed is not None and (v.rejected or v.unlisted):
            grouped.setdefault(("differs", v.fragment.key, v.rejected, v.unlisted), []).append(v)
        else:
            grouped.setdefault(("check", v.fragment.key, result.message.replace(row.key, "")),
                               []).append(v)
    for (how, _, *rest), vs in grouped.items():
        v, ids = vs[0], ", ".join(x.row.id for x in vs)
        text = (f"valid_n lists N = {n_ranges(v.listed or ())}; for {ids}, {v.differences()}"
                if how == "differs" else f"for {ids}: {rest[-1]}")
        errors.append(lines.error(v.fragment, f"row {v.fragment.id!r}: {text}", "valid_n"))
    return errors


def _witness_errors(spec: Spec) -> tuple[list[SpecError], Sweep]:
    """Every witness case `check` would fail on this spec, as errors at the rows to edit; and
    what the sweep asked and cost."""
    from ptxconf.gpu import assembler, witness

    folder = assembler.verdict_folder(True)
    failing: dict[str, list[tuple[str, Result]]] = {witness.CHECK_VALID_N: [], witness.CHECK_TYPES: []}
    for check, key in witness.case_keys(spec):
        result = spec.findings.judge(execute(witness.witness_case(spec, check, key, folder)))
        if result.status.failing:
            failing[check].append((key, result))
    sw = witness.sweep(spec, folder)
    lines = _Lines(spec)
    errors = [e for key, r in failing[witness.CHECK_TYPES]
              for e in _type_errors(spec, key, r, sw, lines)]
    taken = {(e.path, e.line) for e in errors}
    errors += _valid_n_errors(spec, failing[witness.CHECK_VALID_N], sw, lines, taken)
    return errors, sw


def _forms_judged(sw: Sweep) -> int:
    """The wgmma forms a sweep asked the assembler about."""
    return len(sw.type_candidates) + sum(len(sw.accepted_n[f]) + len(sw.rejections[f])
                                         for f in sw.accepted_n)


def _sweep_summary(sw: Sweep) -> str:
    """How many wgmma forms the sweep judged, in how many witness kernels, how many compiled."""
    a = sw.asked
    kernels = "" if a is None else (f" in {a.kernels} witness kernels ({a.kernels - a.from_cache} "
                                    f"compiled, {a.from_cache} from the cache)")
    return f"{_forms_judged(sw)} wgmma forms judged{kernels}"


def _wmma_variant(spec: Spec, row: WmmaDefaultStride, dtype: str) -> WmmaVariant:
    """The probe that loads A of one wmma shape and type."""
    from ptxconf.gpu.variants import WmmaVariant, isa_facts

    return WmmaVariant(op="load", matrix="a", m=row.m_elems, n=row.n_elems, k=row.k_elems,
                       dtype=dtype, layout="row", isa=isa_facts(spec))


def _wmma_one(spec: Spec, row: WmmaDefaultStride, dtype: str, lines: _Lines) -> SpecError | None:
    """The error for one wmma shape and type (None where the compiler accepts it)."""
    from ptxconf.gpu import build
    from ptxconf.gpu.witness import first_words

    try:
        result = build.compile_wmma_cubin([_wmma_variant(spec, row, dtype)])
    except (ValueError, KeyError) as exc:
        return lines.error(row, f"row {row.id!r}, type {dtype}: no probe can be written: {exc}")
    if result.ok:
        return None
    return lines.error(row, f"row {row.id!r}: the compiler rejects a wmma {row.id} .{dtype} "
                            f"fragment: {first_words(result.log)}")


def _wmma_together(spec: Spec, asked: list[tuple[WmmaDefaultStride, str]]) -> tuple[bool, bool]:
    """Whether one module of every wmma probe compiles, and whether it came from the kernel
    cache (`ptxconf.gpu.kcache`: a warm run compiles nothing)."""
    from ptxconf.gpu import build, kcache

    try:
        source = build.wmma_source(_wmma_variant(spec, r, t) for r, t in asked)
    except (ValueError, KeyError):
        return False, False
    module = kcache.Module("spec_validate_wmma", source, tuple(build.wmma_options()))
    built = kcache.build_all([module], jobs=1)[module.name]
    return built.ok, built.cached


def _wmma_errors(spec: Spec) -> tuple[list[SpecError], int, str]:
    """Every wmma shape x type of the default-stride table: one module for all of them, each
    compiled alone only where that one fails; and what it cost."""
    from ptxconf.gpu import build

    if build.include_problem():
        return [], 0, "wmma not compiled: " + str(build.include_problem())
    asked = [(row, t) for row in spec.of(WmmaDefaultStride) for t in row.types]
    ok, cached = _wmma_together(spec, asked)
    note = f"{len(asked)} wmma fragments in one module ({'from the cache' if cached else 'compiled'})"
    if ok:
        return [], len(asked), note
    lines = _Lines(spec)
    errors = [_wmma_one(spec, row, t, lines) for row, t in asked]
    return [e for e in errors if e is not None], len(asked), note


def assembler_stage(spec: Spec) -> AssemblerStage:
    """Ask the assembler what `check`'s witness asks, and compile the wmma rows; rows the
    assembler disagrees with are errors."""
    from ptxconf.gpu import build

    problem = build.nvrtc_problem()
    if problem:
        return AssemblerStage((), 0, problem)
    wgmma, sw = _witness_errors(spec)
    wmma, n_wmma, wmma_note = _wmma_errors(spec)
    summary = f"the assembler agrees with every row: {_sweep_summary(sw)}; {wmma_note}"
    return AssemblerStage(tuple(wgmma + wmma), _forms_judged(sw) + n_wmma, None, summary)


__all__ = ["RULE", "AssemblerStage", "assembler_stage"]
