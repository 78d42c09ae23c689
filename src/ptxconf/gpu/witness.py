"""The assembler as a witness (CPU, no GPU): which wgmma forms does ptxas accept for sm_90a?

Two questions, answered by one NVRTC sweep that every case shares (computed once, cached):

* `witness.valid_n[<instruction-type row>]`: the N values the assembler accepts for the row's
  type combination, SS and RS, with and without `.satfinite` where the row has it, against the
  `valid_n` of the row's accumulator fragment (spec/wgmma/register_fragments.yaml). Where the
  fragment row lists none (the PTX ISA's table is silent), the case is a DISCREPANCY that says
  what the assembler accepts.
* `witness.type_table_exhaustive[<K>]`: every .dtype.atype.btype combination of the table's
  types at that K that is not a row is rejected (SS and RS), every row is accepted, and
  `.satfinite` is accepted exactly where the row says it exists.

The sweep asks every N from 1 to the largest N any register-fragment row lists. Each question's
answer is a record (`valid_n_verdict`, `type_table_verdict`) that both the cases here and
`spec validate`'s assembler stage (`ptxconf.app.spec_assembler`) read, so the two judge a row
alike, from one sweep and one verdict cache.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ptxconf.core.cases import Case, case, discrepancy, fail
from ptxconf.oracle.instructions import n_ranges
from ptxconf.oracle.records import InstructionType, RegisterFragment
from ptxconf.oracle.spec import Spec

from . import assembler, build, toolchain
from .variants import IsaFacts, WgmmaVariant, isa_facts

CHECK_VALID_N = "witness.valid_n"
CHECK_TYPES = "witness.type_table_exhaustive"
#: The N the type-table question is asked at (the smallest N every row accepts).
PROBE_N = 8
FORMS = (False, True)  # a_from_regs: SS, RS


def witness_available() -> tuple[bool, str]:
    """(True, NVRTC version) when NVRTC can compile sm_90a here; else why not."""
    problem = build.nvrtc_problem()
    if problem:
        return False, problem
    major, minor = build.nvrtc_version()
    return True, f"NVRTC {major}.{minor}"


#: The type table as the sweep reads it: (K, dtype, atype, btype, satfinite) per row.
RowsKey = tuple[tuple[int, str, str, str, bool], ...]


def _rows_key(spec: Spec) -> RowsKey:
    return tuple((r.k_elems, r.dtype, r.atype, r.btype, r.satfinite)
                 for r in spec.of(InstructionType))


def sweep_n(spec: Spec) -> range:
    """The N the valid-N sweep asks about: 1 up to the largest N any register-fragment row
    lists (wgmma/register_fragments.yaml valid_n), so every listed N is asked."""
    listed = [max(ns) for f in spec.of(RegisterFragment) if (ns := f.valid_n_values())]
    return range(1, max(listed, default=0) + 1)


def _sweep_key(spec: Spec) -> tuple[RowsKey, IsaFacts, range]:
    """What a sweep depends on: the type table, the ISA facts and the N asked."""
    return (_rows_key(spec), isa_facts(spec), sweep_n(spec))


@dataclass(frozen=True)
class Sweep:
    """What the assembler said: accepted N per family, and accepted type candidates."""

    accepted_n: dict[tuple[str, str, str, str, bool], tuple[int, ...]]
    #: Per family, each N the assembler rejects and its words.
    rejections: dict[tuple[str, str, str, str, bool], dict[int, str]]
    type_candidates: tuple[tuple[WgmmaVariant, bool, str], ...]
    seconds: float
    nvrtc: tuple[int, int]
    asked: assembler.Asked | None = None


def _type_universe(rows: tuple[tuple[int, str, str, str, bool], ...], isa: IsaFacts
                   ) -> list[WgmmaVariant]:
    """Every (K, dtype, atype, btype, form) over the table's own types, plus .satfinite on
    every row's combination."""
    ks = sorted({r[0] for r in rows})
    dtypes = sorted({r[1] for r in rows})
    operands = sorted({r[2] for r in rows} | {r[3] for r in rows})
    out = []
    for k, d, a, b, rs in itertools.product(ks, dtypes, operands, operands, FORMS):
        out.append(WgmmaVariant(n=PROBE_N, k=k, dtype=d, atype=a, btype=b, a_from_regs=rs,
                                isa=isa))
    for k, d, a, b, _ in rows:
        for rs in FORMS:
            out.append(WgmmaVariant(n=PROBE_N, k=k, dtype=d, atype=a, btype=b, a_from_regs=rs,
                                    satfinite=True, isa=isa))
    return out


def _sweep(rows: tuple[tuple[int, str, str, str, bool], ...], isa: IsaFacts, n_values: range,
           folder: Path | None) -> Sweep:
    """One NVRTC sweep for every case; `folder`: where the assembler's verdicts are kept."""
    start = time.perf_counter()
    families = []
    for k, d, a, b, sat in rows:
        for rs, s in itertools.product(FORMS, (False, True) if sat else (False,)):
            families.append(WgmmaVariant(n=PROBE_N, k=k, dtype=d, atype=a, btype=b,
                                         a_from_regs=rs, satfinite=s, isa=isa))
    asked = assembler.Asked()
    valid = assembler.witness_valid_n(families, n_values, folder=folder, asked=asked)
    universe = _type_universe(rows, isa)
    verdicts = assembler.compile_check_many(universe, folder=folder, asked=asked)
    return Sweep(valid.accepted_n, valid.rejections,
                 tuple((v, ok, log) for v, (ok, log) in zip(universe, verdicts, strict=True)),
                 time.perf_counter() - start, valid.nvrtc, asked)


#: The sweeps made in this process, by `_sweep_key` (every case shares one).
_SWEEPS: dict[tuple[RowsKey, IsaFacts, range], Sweep] = {}
_SWEEPS_LOCK = threading.Lock()


def sweep(spec: Spec, folder: Path | None = None) -> Sweep:
    """The shared sweep for a spec's type table and listed N (made once a process); `folder`:
    where the assembler's verdicts are kept (`assembler.verdict_folder`), None to ask it
    everything."""
    key = _sweep_key(spec)
    with _SWEEPS_LOCK:
        if key not in _SWEEPS:
            _SWEEPS[key] = _sweep(*key, folder)
        return _SWEEPS[key]


def sweep_note(spec: Spec) -> dict[str, Any] | None:
    """What this process's sweep for the spec cost: witness kernels, those compiled and those
    answered from the cache, assembler runs, seconds; None where no sweep was made."""
    sw = _SWEEPS.get(_sweep_key(spec))
    if sw is None or sw.asked is None:
        return None
    a = sw.asked
    return {"kernels": a.kernels, "compiled": a.kernels - a.from_cache, "from_cache": a.from_cache,
            "assembler_runs": a.compiles, "seconds": round(sw.seconds, 3)}


def _form_name(rs: bool, sat: bool) -> str:
    return ("RS" if rs else "SS") + (" .satfinite" if sat else "")


def _forms(row: InstructionType) -> Iterator[tuple[bool, bool]]:
    """(A from registers, .satfinite) of each form a row names: SS and RS, each with and
    without .satfinite where the row has it."""
    return itertools.product(FORMS, (False, True) if row.satfinite else (False,))


#: Where ptxas says an error is: a line of the witness kernel, which means nothing to a reader.
_PTX_LINE = re.compile(r"^ptxas application ptx input, line \d+; ")


def first_words(log: str) -> str:
    """The assembler's first error line (else its first line), without the witness kernel's
    line number, spaces collapsed, at most 200 characters."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()]
    first = _PTX_LINE.sub("", (errors or lines or ["(no log)"])[0])
    return " ".join(first.split())[:200]


@dataclass(frozen=True)
class ValidN:
    """The witness's answer on one instruction-type row's valid N: the N the assembler accepts
    in each form, against the N the row's accumulator fragment lists (None: none listed)."""

    row: InstructionType
    fragment: RegisterFragment
    listed: tuple[int, ...] | None
    accepted: dict[str, tuple[int, ...]]
    #: Each listed N some form rejects -> the first such form and the assembler's words.
    rejected_words: dict[int, str]

    @property
    def forms_agree(self) -> bool:
        """Whether every form accepts the same N."""
        return len(set(self.accepted.values())) == 1

    @property
    def rejected(self) -> tuple[int, ...]:
        """Listed N that some form rejects."""
        return tuple(sorted(self.rejected_words))

    @property
    def rejecting_forms(self) -> tuple[str, ...]:
        """The forms that reject some listed N."""
        return tuple(f for f, ns in self.accepted.items() if set(self.listed or ()) - set(ns))

    @property
    def unlisted(self) -> tuple[int, ...]:
        """N some form accepts that the fragment does not list."""
        return tuple(sorted(set().union(*self.accepted.values()) - set(self.listed or ())))

    def differences(self) -> str:
        """What the assembler says against the listed N, in words ("" where they agree)."""
        parts = []
        if self.rejected:
            n = self.rejected[0]
            parts.append(f"the assembler (sm_90a) rejects N = {n_ranges(self.rejected)} "
                         f"({', '.join(self.rejecting_forms)}; at N={n}, "
                         f"{self.rejected_words[n]})")
        if self.unlisted:
            parts.append(f"the assembler (sm_90a) accepts N = {n_ranges(self.unlisted)}, "
                         "which it does not list")
        return "; ".join(parts)


def valid_n_verdict(spec: Spec, row: InstructionType, sw: Sweep) -> ValidN:
    """What the sweep says about a row's valid N (the question of `witness.valid_n`)."""
    frag = spec.get(RegisterFragment, row.fragment_d)
    listed = frag.valid_n_values()
    accepted: dict[str, tuple[int, ...]] = {}
    words: dict[int, str] = {}
    for rs, sat in _forms(row):
        fam = (row.dtype, row.atype, row.btype, "rs" if rs else "ss", sat)
        form, ok = _form_name(rs, sat), set(sw.accepted_n[fam])
        accepted[form] = sw.accepted_n[fam]
        for n in sorted(set(listed or ()) - ok):
            log = sw.rejections[fam].get(n, "not asked")
            words.setdefault(n, f"{form}: {first_words(log)}")
    return ValidN(row, frag, listed, accepted, words)


def _valid_n_body(spec: Spec, row: InstructionType, folder: Path | None) -> Callable[[], str]:
    def body() -> str:
        sw = sweep(spec, folder)
        v = valid_n_verdict(spec, row, sw)
        frag = v.fragment
        details: dict[str, Any] = {
            "accepted_n": {k: n_ranges(ns) for k, ns in v.accepted.items()},
            "nvrtc": ".".join(map(str, sw.nvrtc)), "fragment": frag.key,
            "sweep_seconds": round(sw.seconds, 2)}
        if not v.forms_agree:
            raise fail(f"{row.key}: the forms disagree: " + "; ".join(
                f"{k}: {n_ranges(ns)}" for k, ns in v.accepted.items()), **details)
        got = next(iter(v.accepted.values()))
        if v.listed is None:
            raise discrepancy(
                f"{frag.key} lists no valid N (the PTX ISA's table is silent for "
                f".{row.dtype} accumulators at k{row.k_elems}); the assembler (sm_90a) "
                f"accepts N = {n_ranges(got)} for {', '.join(v.accepted)}",
                code="assembler_disagrees", documented_n=None, **details)
        if v.rejected or v.unlisted:
            raise discrepancy(
                f"{frag.key} lists N = {n_ranges(v.listed)}; {v.differences()}",
                code="assembler_disagrees", documented_n=n_ranges(v.listed),
                rejected_n=n_ranges(v.rejected), unlisted_n=n_ranges(v.unlisted), **details)
        return (f"the assembler accepts exactly N = {n_ranges(got)} ({', '.join(v.accepted)}), "
                f"as {frag.key} lists")

    return body


@dataclass(frozen=True)
class TypeForm:
    """One form the type-table question asks about: whether the table lists it (its row, and
    .satfinite where the row has it), and whether the assembler accepts it."""

    variant: WgmmaVariant
    listed: bool
    accepted: bool
    log: str
    #: The row of its type combination at its K (None: the table has none).
    row: InstructionType | None

    @property
    def name(self) -> str:
        """The instruction and its form, as messages name it."""
        return f"{self.variant.ptx_name} ({self.variant.form.upper()})"


def type_table_verdict(spec: Spec, k: int, sw: Sweep) -> tuple[TypeForm, ...]:
    """Every form the type-table question asks at one K, against the table (the question of
    `witness.type_table_exhaustive`)."""
    rows = {(r.dtype, r.atype, r.btype): r for r in spec.of(InstructionType) if r.k_elems == k}
    out = []
    for v, ok, log in sw.type_candidates:
        if v.k != k:
            continue
        row = rows.get((v.dtype, v.atype, v.btype))
        listed = row is not None and (not v.satfinite or row.satfinite)
        out.append(TypeForm(v, listed, ok, log, row))
    return tuple(out)


def _types_body(spec: Spec, k: int, folder: Path | None) -> Callable[[], str]:
    def body() -> str:
        sw = sweep(spec, folder)
        forms = type_table_verdict(spec, k, sw)
        table = {(r.dtype, r.atype, r.btype) for r in spec.of(InstructionType) if r.k_elems == k}
        wrong_accept = [f.name for f in forms if f.accepted and not f.listed]
        wrong_reject = [f"{f.name}: {f.log.splitlines()[0] if f.log else ''}"
                        for f in forms if f.listed and not f.accepted]
        details = {"candidates": len(forms), "table_rows": len(table),
                   "rows": sorted(".".join(c) for c in table),
                   "nvrtc": ".".join(map(str, sw.nvrtc))}
        if wrong_reject:
            raise fail(f"k{k}: the assembler rejects {len(wrong_reject)} form(s) the type table "
                       f"lists, first: {wrong_reject[0]}", code="assembler_disagrees",
                       rejected=wrong_reject, **details)
        if wrong_accept:
            raise discrepancy(f"k{k}: the assembler accepts {len(wrong_accept)} form(s) the "
                              f"type table does not list, first: {wrong_accept[0]}",
                              code="assembler_disagrees", accepted=wrong_accept, **details)
        return (f"k{k}: of {len(forms)} type combinations (SS, RS, .satfinite) the assembler "
                f"accepts exactly the table's {len(table)} rows")

    return body


PROVIDER = "assembler-witness"


def case_keys(spec: Spec) -> Iterator[tuple[str, str]]:
    """(check, key) of every witness case: one valid-N case per instruction-type row, one
    type-table case per K."""
    rows = spec.of(InstructionType)
    for row in rows:
        yield CHECK_VALID_N, row.key
    for k in sorted({r.k_elems for r in rows}):
        yield CHECK_TYPES, f"{rows[0].key.split(':')[0]}:k{k}"


def key_k(key: str) -> int:
    """The K of a type-table case key (`<file>:k<K>`)."""
    return int(key.rsplit(":k", 1)[1])


def witness_case(spec: Spec, check: str, key: str, folder: Path | None = None) -> Case:
    """One witness case by its (check, key) from `case_keys`; `folder`: where the verdicts are
    kept."""
    if check == CHECK_VALID_N:
        row = next(r for r in spec.of(InstructionType) if r.key == key)
        return case(check, key, _valid_n_body(spec, row, folder), PROVIDER)
    return case(check, key, _types_body(spec, key_k(key), folder), PROVIDER)


def witness_cases(spec: Spec, folder: Path | None = None) -> Iterator[Case]:
    """Every witness case (ids from `case_keys`); `folder`: where the verdicts are kept."""
    for check, key in case_keys(spec):
        yield witness_case(spec, check, key, folder)


def tool_versions(spec: Spec) -> str:
    """What the witness's verdicts depend on besides the spec and ptxconf's code: NVRTC's (and
    its ptxas's) version, the driver's, and the compile options (the result cache's key), read
    through their stamps (`ptxconf.gpu.toolchain.witness_versions`)."""
    return toolchain.witness_versions(spec)


def provider_cases(spec: Spec, ctx: object) -> Iterator[Case]:
    """The registry's entry point (ptxconf.app.providers): verdicts kept beside the kernel cache
    unless the run says --no-cache."""
    return witness_cases(spec, assembler.verdict_folder(getattr(ctx, "kernel_cache", True)))


__all__ = ["CHECK_TYPES", "CHECK_VALID_N", "Sweep", "TypeForm", "ValidN", "case_keys",
           "first_words", "key_k", "provider_cases", "sweep", "sweep_n", "sweep_note", "tool_versions",
           "type_table_verdict", "valid_n_verdict", "witness_available", "witness_case",
           "witness_cases"]
