"""The CuTeDSL blog's examples against each other: its Composed Layout example swizzles the
tile its Swizzle Atom example selects an atom for, with that atom's swizzle.

* `cutedsl.swizzle_of_selection`: a `swizzle` example's layout is a `select` example's layout
  ((8, 32):(32, 1), the bf16 K-major tile), and its Swizzle<B, M, S> is the swizzle
  get_smem_layout_atom makes for the atom chosen there (cutedsl/atom_selection.yaml).
* `cutedsl.example_dtype`: the examples are of the type the blog prints its atoms for
  (cutedsl/atoms_bf16.yaml: "K-Major / M-Major BFloat16 atoms"); the atom a selection example
  chooses is one the blog prints for its type. (The layouts follow from the type's width alone,
  so a type of the same width would pass every other check.)
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.checks.base import Case, expect_equal, fail, make_case
from ptxconf.oracle.records import AtomSelection, CuteDslExample, PrintedAtom, atom_name
from ptxconf.oracle.spec import Spec


def cases(spec: Spec) -> Iterator[Case]:
    """One case per swizzle example."""
    for ex in spec.of(CuteDslExample):
        if ex.example == "swizzle":
            yield make_case("cutedsl.swizzle_of_selection", ex.key, partial(_tie, spec, ex))
        if ex.dtype is not None:
            yield make_case("cutedsl.example_dtype", ex.key, partial(_dtype, spec, ex))


def _dtype(spec: Spec, ex: CuteDslExample) -> str:
    """The example's type is one the blog prints atoms for; a chosen atom is printed for it."""
    printed = {a.id for a in spec.of(PrintedAtom)}
    types = sorted({a.dtype for a in spec.of(PrintedAtom)})
    if ex.dtype not in types:
        raise fail(f"{ex.key}: an example of {ex.dtype}; the blog prints its atoms for {types}")
    if ex.chosen is not None and f"{ex.chosen}.{ex.dtype}" not in printed:
        raise fail(f"{ex.key}: chooses {ex.chosen}, which the blog prints for no {ex.dtype} atom")
    return f"{ex.dtype}, as the printed atoms" + (f" ({ex.chosen}.{ex.dtype})" if ex.chosen else "")


def _tie(spec: Spec, ex: CuteDslExample) -> str:
    """The example's layout is a selection example's, its swizzle that selection's atom's."""
    layout = str(parse(ex.layout or ""))
    picks = [s for s in spec.of(CuteDslExample)
             if s.example == "select" and s.layout is not None and str(parse(s.layout)) == layout]
    if len(picks) != 1:
        raise fail(f"{ex.key}: {len(picks)} select examples take the layout {layout}; expected "
                   "one (the blog swizzles the tile it selects an atom for)")
    pick = picks[0]
    atoms = [a for a in spec.of(AtomSelection)
             if pick.major is not None and atom_name(pick.major, a.swizzle) == pick.chosen]
    if len(atoms) != 1:
        raise fail(f"{pick.key}: chosen {pick.chosen!r} names {len(atoms)} atom_selection rows")
    atom = atoms[0]
    expect_equal("Swizzle<B, M, S>", (ex.swizzle_bits, ex.swizzle_base, ex.swizzle_shift),
                 (atom.swizzle_bits, atom.swizzle_base, atom.swizzle_shift), source=ex.key,
                 witness=f"{atom.key}, the atom {pick.key} chooses")
    return f"{layout} is {pick.key}'s tile; Swizzle<{atom.swizzle_bits},{atom.swizzle_base}," \
           f"{atom.swizzle_shift}> is its {pick.chosen} atom's"
