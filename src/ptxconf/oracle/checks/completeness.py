"""Completeness: where one table's domain says another table must be whole, it is.

A deleted row is caught by its file's pin (SPEC-ROWS); these cases catch what a pin cannot: a
file of a kind that another file of the same kind also holds, deleted whole.

* `offset_definition.coverage`: the LBO and SBO tables define each offset for every major-ness
  and every swizzle mode (of the canonical-layout table), each exactly once;
* `descriptor.witness_complete`: CUTLASS's GmmaDescriptor witnesses every field of the PTX
  ISA's matrix descriptor (descriptor.witness compares each field it has).
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from functools import partial

from ptxconf.oracle import facts
from ptxconf.oracle.checks.base import Case, fail, make_case
from ptxconf.oracle.checks.descriptor_checks import WITNESS_FILE
from ptxconf.oracle.descriptor import DESCRIPTOR_FILE
from ptxconf.oracle.records import ByteOffsetDefinition, DescriptorField, Major
from ptxconf.oracle.spec import Spec

#: The offsets a definition row may define ("LBO", "SBO") and the major-nesses, from the schema.
OFFSETS: tuple[str, ...] = typing.get_args(
    typing.get_type_hints(ByteOffsetDefinition)["offset"])
MAJORS: tuple[str, ...] = typing.get_args(Major)


def cases(spec: Spec) -> Iterator[Case]:
    """One coverage case per offset, one witness-coverage case."""
    for offset in OFFSETS:
        yield make_case("offset_definition.coverage", f"byte_offset_definition:{offset}",
                        partial(_coverage, spec, offset))
    yield make_case("descriptor.witness_complete", f"{WITNESS_FILE[:-5]}:*",
                    partial(_witness_complete, spec))


def definitions_of(spec: Spec, offset: str) -> dict[tuple[str, str], list[str]]:
    """(major, swizzle) -> the ids of the rows defining `offset` there, for every cell."""
    cells: dict[tuple[str, str], list[str]] = {
        (major, swizzle): [] for major in MAJORS for swizzle in facts.swizzle_modes(spec)}
    for d in spec.of(ByteOffsetDefinition):
        if d.offset == offset:
            for swizzle in d.swizzles:
                cells.setdefault((d.major, swizzle), []).append(d.id)
    return cells


def _coverage(spec: Spec, offset: str) -> str:
    """Every (major, swizzle) cell of the offset's table has exactly one definition."""
    cells = definitions_of(spec, offset)
    wrong = {f"{m}/{s}": ids for (m, s), ids in cells.items() if len(ids) != 1}
    if wrong:
        shown = ", ".join(f"{cell}: {ids or 'none'}" for cell, ids in sorted(wrong.items()))
        raise fail(f"{offset}: each major-ness and swizzle mode needs exactly one definition; "
                   f"{shown}", cells=wrong)
    return f"{offset} defined once for each of {len(cells)} (major, swizzle) cells"


def _witness_complete(spec: Spec) -> str:
    """Every PTX descriptor field has its CUTLASS witness row."""
    ptx = [r.id for r in spec.in_file(DescriptorField, DESCRIPTOR_FILE)]
    witnessed = {r.id for r in spec.in_file(DescriptorField, WITNESS_FILE)}
    missing = [f for f in ptx if f not in witnessed]
    if missing:
        raise fail(f"{WITNESS_FILE} witnesses no field {missing} of {DESCRIPTOR_FILE}",
                   missing=missing)
    return f"all {len(ptx)} fields of {DESCRIPTOR_FILE} witnessed"
