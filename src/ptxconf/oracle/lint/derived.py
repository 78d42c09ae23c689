"""SPEC-FACT: the facts the code derives from several rows exist and agree, checked when a spec
loads (after every file passed and every reference resolved), so that an edit that breaks one
is `path:line: SPEC-FACT - message` at the row to fix, from `spec validate` and `check` alike,
not an error from deep inside a later command.

* Register width (`ptxconf.oracle.facts.register_bits`): every register-fragment row's
  elements per register x the width of each type it lists is one width.
* Valid N (`ptxconf.oracle.instructions.valid_n_for`): every instruction-type row has some:
  its accumulator row's `valid_n`, or where that is null, those of the rows with the same K,
  A and B types.

The derivations live here, over records alone (this module runs before a `Spec` exists);
`facts` and `instructions` ask the same functions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import SpecError

RULE = "SPEC-FACT"


def register_widths_bits(fragments: Iterable[records.RegisterFragment],
                         element_bits: Mapping[str, int]
                         ) -> list[tuple[records.RegisterFragment, str, int]]:
    """(row, type, register width in bits) for every type of every register-fragment row:
    the row's elements per register x the type's width."""
    return [(f, t, f.elems_per_register * element_bits[t]) for f in fragments for t in f.types]


def valid_n_sources(itype: records.InstructionType, itypes: Iterable[records.InstructionType],
                    fragments: Mapping[str, records.RegisterFragment]
                    ) -> tuple[records.RegisterFragment, ...]:
    """The register-fragment rows an instruction type's valid N come from: its accumulator's
    where that lists some, else (k32.D.f16: the table's valid-N cell sits in the f32 row) the
    accumulators that do of the rows with the same K, A and B types, in row order; () if none."""
    own = fragments[itype.fragment_d]
    if own.valid_n_values() is not None:
        return (own,)
    same = (itype.k_elems, itype.atype, itype.btype)
    return tuple(fragments[r.fragment_d] for r in itypes
                 if (r.k_elems, r.atype, r.btype) == same
                 and fragments[r.fragment_d].valid_n_values() is not None)


def _at(root: str, row: records.Row, message: str) -> SpecError:
    return SpecError(f"{root}/{row.file}", row.line, RULE, message)


def register_width_errors(root: str, rows: Sequence[records.Row]) -> list[SpecError]:
    """Each register-fragment row whose types imply another register width than most rows."""
    bits = {r.id: r.width_bits for r in rows if isinstance(r, records.ElementType)}
    frags = [r for r in rows if isinstance(r, records.RegisterFragment)]
    implied = register_widths_bits(frags, bits)
    counts = Counter(w for _, _, w in implied)
    if len(counts) <= 1:
        return []
    common = counts.most_common(1)[0][0]
    odd: dict[str, tuple[records.RegisterFragment, list[str]]] = {}
    for frag, t, w in implied:
        if w != common:
            odd.setdefault(frag.key, (frag, []))[1].append(
                f"{t} ({bits[t]} bits) gives {w}-bit registers")
    return [_at(root, frag, f"row {frag.id!r}: {frag.elems_per_register} elements per register "
                            f"x {', '.join(what)}; the other register-fragment rows imply "
                            f"{common}-bit registers (elems_per_register x width_bits is one "
                            "register width for every type a row lists)")
            for frag, what in odd.values()]


def valid_n_errors(root: str, rows: Sequence[records.Row]) -> list[SpecError]:
    """Each accumulator row with valid_n null whose instruction-type rows find no valid N in a
    row with their K, A and B types either, at that accumulator row."""
    itypes = [r for r in rows if isinstance(r, records.InstructionType)]
    frags = {r.id: r for r in rows if isinstance(r, records.RegisterFragment)}
    lacking: dict[str, list[str]] = {}
    for it in itypes:
        if not valid_n_sources(it, itypes, frags):
            lacking.setdefault(it.fragment_d, []).append(it.id)
    return [_at(root, frags[f], f"row {f!r}: valid_n is null, and no instruction-type row with "
                                f"the K, A and B types of {', '.join(ids)} has an accumulator "
                                "that lists one, so they have no valid N: give it a valid_n")
            for f, ids in lacking.items()]


def derived_errors(root: str, rows: Sequence[records.Row]) -> list[SpecError]:
    """Every SPEC-FACT problem of a spec's records (every file passed, every reference resolves)."""
    return register_width_errors(root, rows) + valid_n_errors(root, rows)


__all__ = ["RULE", "derived_errors", "register_width_errors", "register_widths_bits",
           "valid_n_errors", "valid_n_sources"]
