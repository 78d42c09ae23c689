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
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ptxconf.core.cases import case
from ptxconf.oracle.checks import Case, discrepancy, fail
from ptxconf.oracle.instructions import n_ranges
from ptxconf.oracle.records import InstructionType, RegisterFragment
from ptxconf.oracle.spec import Spec

from . import assembler, build
from .variants import IsaFacts, WgmmaVariant, isa_facts

CHECK_VALID_N = "witness.valid_n"
CHECK_TYPES = "witness.type_table_exhaustive"
#: The N the type-table question is asked at (the smallest N every row accepts).
PROBE_N = 8
#: N values the valid-N sweep asks about.
SWEEP_N = range(1, 257)
FORMS = (False, True)  # a_from_regs: SS, RS


def witness_available() -> tuple[bool, str]:
    """(True, NVRTC version) when NVRTC can compile sm_90a here; else why not."""
    problem = build.nvrtc_problem()
    if problem:
        return False, problem
    major, minor = build.nvrtc_version()
    return True, f"NVRTC {major}.{minor}"


def _rows_key(spec: Spec) -> tuple[tuple[int, str, str, str, bool], ...]:
    return tuple((r.k_elems, r.dtype, r.atype, r.btype, r.satfinite)
                 for r in spec.of(InstructionType))


@dataclass(frozen=True)
class Sweep:
    """What the assembler said: accepted N per family, and accepted type candidates."""

    accepted_n: dict[tuple[str, str, str, str, bool], tuple[int, ...]]
    first_rejection: dict[tuple[str, str, str, str, bool], tuple[int, str] | None]
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


def _sweep(rows: tuple[tuple[int, str, str, str, bool], ...], isa: IsaFacts,
           folder: Path | None) -> Sweep:
    """One NVRTC sweep for every case; `folder`: where the assembler's verdicts are kept."""
    start = time.perf_counter()
    families = []
    for k, d, a, b, sat in rows:
        for rs, s in itertools.product(FORMS, (False, True) if sat else (False,)):
            families.append(WgmmaVariant(n=PROBE_N, k=k, dtype=d, atype=a, btype=b,
                                         a_from_regs=rs, satfinite=s, isa=isa))
    asked = assembler.Asked()
    valid = assembler.witness_valid_n(families, SWEEP_N, folder=folder, asked=asked)
    universe = _type_universe(rows, isa)
    verdicts = assembler.compile_check_many(universe, folder=folder, asked=asked)
    first = {fam: next(iter(sorted(rej.items())), None) for fam, rej in valid.rejections.items()}
    return Sweep(valid.accepted_n, first,
                 tuple((v, ok, log) for v, (ok, log) in zip(universe, verdicts, strict=True)),
                 time.perf_counter() - start, valid.nvrtc, asked)


#: The sweeps made in this process, by type table and ISA facts (every case shares one).
_SWEEPS: dict[tuple[Any, ...], Sweep] = {}
_SWEEPS_LOCK = threading.Lock()


def sweep(spec: Spec, folder: Path | None = None) -> Sweep:
    """The shared sweep for a spec's type table (made once a process); `folder`: where the
    assembler's verdicts are kept (`assembler.verdict_folder`), None to ask it everything."""
    key = (_rows_key(spec), isa_facts(spec))
    with _SWEEPS_LOCK:
        if key not in _SWEEPS:
            _SWEEPS[key] = _sweep(*key, folder)
        return _SWEEPS[key]


def sweep_note(spec: Spec) -> dict[str, Any] | None:
    """What this process's sweep for the spec cost: witness kernels, those compiled and those
    answered from the cache, assembler runs, seconds; None where no sweep was made."""
    sw = _SWEEPS.get((_rows_key(spec), isa_facts(spec)))
    if sw is None or sw.asked is None:
        return None
    a = sw.asked
    return {"kernels": a.kernels, "compiled": a.kernels - a.from_cache, "from_cache": a.from_cache,
            "assembler_runs": a.compiles, "seconds": round(sw.seconds, 3)}


def _form_name(rs: bool, sat: bool) -> str:
    return ("RS" if rs else "SS") + (" .satfinite" if sat else "")


def _valid_n_body(spec: Spec, row: InstructionType, folder: Path | None):  # noqa: ANN202
    def body() -> str:
        sw = sweep(spec, folder)
        frag = spec.get(RegisterFragment, row.fragment_d)
        expected = frag.valid_n_values()
        accepted: dict[str, tuple[int, ...]] = {}
        for rs, sat in itertools.product(FORMS, (False, True) if row.satfinite else (False,)):
            fam = (row.dtype, row.atype, row.btype, "rs" if rs else "ss", sat)
            accepted[_form_name(rs, sat)] = sw.accepted_n[fam]
        details: dict[str, Any] = {"accepted_n": {k: n_ranges(v) for k, v in accepted.items()},
                   "nvrtc": ".".join(map(str, sw.nvrtc)), "fragment": frag.key,
                   "sweep_seconds": round(sw.seconds, 2)}
        distinct = set(accepted.values())
        if len(distinct) != 1:
            raise fail(f"{row.key}: the forms disagree: " + "; ".join(
                f"{k}: {n_ranges(v)}" for k, v in accepted.items()), **details)
        got = next(iter(distinct))
        if expected is None:
            raise discrepancy(
                f"{frag.key} lists no valid N (the PTX ISA's table is silent for "
                f".{row.dtype} accumulators at k{row.k_elems}); the assembler (sm_90a) "
                f"accepts N = {n_ranges(got)} for {', '.join(accepted)}",
                code="assembler_disagrees", documented_n=None, **details)
        missing = sorted(set(expected) - set(got))
        extra = sorted(set(got) - set(expected))
        if missing or extra:
            fam = (row.dtype, row.atype, row.btype, "ss", False)
            raise discrepancy(
                f"{frag.key} lists N = {n_ranges(expected)}; the assembler rejects "
                f"{n_ranges(missing)} and also accepts {n_ranges(extra)} "
                f"(first rejection: {sw.first_rejection.get(fam)})",
                code="assembler_disagrees", documented_n=n_ranges(expected), **details)
        return (f"the assembler accepts exactly N = {n_ranges(got)} ({', '.join(accepted)}), "
                f"as {frag.key} lists")

    return body


def _types_body(spec: Spec, k: int, folder: Path | None):  # noqa: ANN202 - a check body
    def body() -> str:
        sw = sweep(spec, folder)
        table = {(r.dtype, r.atype, r.btype): r.satfinite
                 for r in spec.of(InstructionType) if r.k_elems == k}
        wrong_accept, wrong_reject = [], []
        checked = 0
        for v, ok, log in sw.type_candidates:
            if v.k != k:
                continue
            checked += 1
            combo = (v.dtype, v.atype, v.btype)
            want = combo in table and (not v.satfinite or table[combo])
            name = f"{v.ptx_name} ({v.form.upper()})"
            if ok and not want:
                wrong_accept.append(name)
            elif want and not ok:
                wrong_reject.append(f"{name}: {log.splitlines()[0] if log else ''}")
        details = {"candidates": checked, "table_rows": len(table),
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
        return (f"k{k}: of {checked} type combinations (SS, RS, .satfinite) the assembler accepts "
                f"exactly the table's {len(table)} rows")

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


def witness_cases(spec: Spec, folder: Path | None = None) -> Iterator[Case]:
    """Every witness case (ids from `case_keys`); `folder`: where the verdicts are kept."""
    rows = {r.key: r for r in spec.of(InstructionType)}
    for check, key in case_keys(spec):
        body = (_valid_n_body(spec, rows[key], folder) if check == CHECK_VALID_N
                else _types_body(spec, int(key.rsplit(":k", 1)[1]), folder))
        yield case(check, key, body, PROVIDER)


def provider_cases(spec: Spec, ctx: object) -> Iterator[Case]:
    """The registry's entry point (ptxconf.app.providers): verdicts kept beside the kernel cache
    unless the run says --no-cache."""
    return witness_cases(spec, assembler.verdict_folder(getattr(ctx, "kernel_cache", True)))


__all__ = ["Sweep", "case_keys", "provider_cases", "sweep", "sweep_note", "witness_available",
           "witness_cases"]
