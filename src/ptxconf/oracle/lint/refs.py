"""Cross-file rules, run on the records of a whole spec directory once every file passed:

* `SPEC-ID`: an id is unique within its kind across files (a second row would make every
  lookup of that id ambiguous). Kinds that each source file defines afresh (the descriptor
  fields of the PTX ISA and of CUTLASS's witness, looked up per file) are exempt.
* `SPEC-REF`: every field that names another row (an element type, a register fragment, a
  canonical layout, a wmma shape, a swizzle atom, the shape a warp-matrix fragment describes,
  the Operation struct of a CuTe copy atom's traits, the element types and the traits an MMA
  atom's traits name) names one that exists.
"""

from __future__ import annotations

from collections.abc import Iterable

from ptxconf.oracle import records
from ptxconf.oracle.lint.base import SpecError

#: Kinds whose ids are scoped to their file: each file is one source's table of the same fields.
FILE_SCOPED_KINDS = frozenset({records.DescriptorField.KIND})

#: (record kind, field) -> the kind of row the field names (a field may hold a tuple of names).
REFERENCES: dict[tuple[type[records.Row], str], type[records.Row]] = {
    (records.SwizzleAtomExample, "atom"): records.SwizzleAtom,
    (records.SwizzleAtomExample, "dtype"): records.ElementType,
    (records.WorkedExample, "dtype"): records.ElementType,
    (records.RegisterFragment, "types"): records.ElementType,
    (records.InstructionType, "dtype"): records.ElementType,
    (records.InstructionType, "atype"): records.ElementType,
    (records.InstructionType, "btype"): records.ElementType,
    (records.InstructionType, "fragment_a"): records.RegisterFragment,
    (records.InstructionType, "fragment_d"): records.RegisterFragment,
    (records.WmmaDefaultStride, "types"): records.ElementType,
    (records.WmmaAlignmentExample, "shape"): records.WmmaDefaultStride,
    (records.WmmaAlignmentExample, "dtype"): records.ElementType,
    (records.PrintedAtom, "dtype"): records.ElementType,
    (records.CuteDslExample, "dtype"): records.ElementType,
    (records.WarpMatrixFragment, "id"): records.WarpMatrixShape,
    (records.CuteCopyTraits, "id"): records.CuteCopyOp,
    **{(records.CuteMmaTraits, f"val_type_{op}"): records.ElementType for op in "dabc"},
    (records.CuteMmaTraits, "layouts_of"): records.CuteMmaTraits,
    (records.MmaFragment, "types"): records.ElementType,
}


def _names(value: object) -> Iterable[str]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (tuple, list)):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def cross_file_errors(root: str, rows: Iterable[records.Row]) -> list[SpecError]:
    """Duplicate ids within a kind across files, and references to rows that do not exist."""
    rows = list(rows)
    errors: list[SpecError] = []
    first: dict[tuple[str, str], records.Row] = {}
    ids: dict[type[records.Row], set[str]] = {}
    for row in rows:
        ids.setdefault(type(row), set()).add(row.id)
        if row.KIND in FILE_SCOPED_KINDS:
            continue
        seen = first.setdefault((row.KIND, row.id), row)
        if seen is not row and seen.file != row.file:
            errors.append(SpecError(f"{root}/{row.file}", row.line, "SPEC-ID",
                                    f"duplicate {row.KIND} id {row.id!r}: also {seen.file}:"
                                    f"{seen.line}; ids are unique within a kind across files"))
    for row in rows:
        for (cls, name), target in REFERENCES.items():
            if type(row) is not cls:
                continue
            for ref in _names(getattr(row, name)):
                if ref not in ids.get(target, set()):
                    errors.append(SpecError(
                        f"{root}/{row.file}", row.line, "SPEC-REF",
                        f"row {row.id!r}: {name} {ref!r} names no {target.KIND} row"))
    return errors


__all__ = ["FILE_SCOPED_KINDS", "REFERENCES", "cross_file_errors"]
