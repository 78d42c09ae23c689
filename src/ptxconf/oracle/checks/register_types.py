"""A fragment's register type agrees with what each register holds (PTX ISA 9.7.15.5.1.1:
"four .f16x2 registers, with each register containing two .f16/ .bf16 elements", "N/2 number
of .f32 registers", "four .b32 registers containing four .tf32 elements").

* `fragment.register_type`: an untyped `.b<bits>` register holds any elements of a multiplicand
  (the accumulator D is held in registers of its own type, .dtype: .f32, .s32, .f16x2); a vector
  type `.<t><w>x<lanes>` holds `lanes` elements of `w` bits each; a scalar type `.<t><w>` holds
  one element of that very type.
* `wmma.register_type`: the wmma alignment example's fragment registers (".f16x2") have lanes
  of its element type's width, or are of that type.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from ptxconf.oracle.checks.base import Case, expect_equal, fail, make_case
from ptxconf.oracle.records import RegisterFragment, WmmaAlignmentExample
from ptxconf.oracle.spec import Spec

_TYPE = re.compile(r"(?P<name>(?P<kind>[a-z]+)(?P<bits>\d+))(?:x(?P<lanes>\d+))?")


def cases(spec: Spec) -> Iterator[Case]:
    """One case per register-fragment row."""
    for row in spec.of(RegisterFragment):
        yield make_case("fragment.register_type", row.key, partial(_register_type, spec, row))
    for ex in spec.of(WmmaAlignmentExample):
        yield make_case("wmma.register_type", ex.key, partial(_wmma_register_type, spec, ex))


def _wmma_register_type(spec: Spec, ex: WmmaAlignmentExample) -> str:
    """A vector register's lanes, or a scalar register, are the example's element type wide."""
    m = _TYPE.fullmatch(ex.register_type)
    if m is None:
        raise fail(f"{ex.key}: register type {ex.register_type!r} does not read as "
                   ".<type><bits>[x<lanes>]")
    if m["lanes"] is None:
        expect_equal(f".{ex.register_type}: the element type", m["name"], ex.dtype,
                     source=ex.key, witness="a scalar register holds its own type")
        return f".{ex.register_type}: one {ex.dtype}"
    expect_equal(f".{ex.register_type}: width of a lane", int(m["bits"]),
                 spec.element_bits(ex.dtype), source=ex.key, witness=f"width({ex.dtype})")
    return f".{ex.register_type}: {m['lanes']} lanes of {ex.dtype}"


def _register_type(spec: Spec, row: RegisterFragment) -> str:
    """What a register of the row's type holds is what the row says each register holds."""
    m = _TYPE.fullmatch(row.register_type)
    if m is None:
        raise fail(f"{row.key}: register type {row.register_type!r} does not read as "
                   ".<type><bits>[x<lanes>]")
    if m["kind"] == "b":
        if row.operand == "D":
            raise fail(f"{row.key}: the accumulator in untyped .{row.register_type} registers; "
                       f"D is held in registers of its type {row.types}")
        return f".{row.register_type}: untyped, holds {row.elems_per_register} x {row.types}"
    if m["lanes"] is not None:
        expect_equal(f".{row.register_type}: elements per register", row.elems_per_register,
                     int(m["lanes"]), source=row.key, witness=f"its {m['lanes']} lanes")
        for t in row.types:
            expect_equal(f".{row.register_type}: width of a {t} lane", spec.element_bits(t),
                         int(m["bits"]), source=row.key, witness=f"its {m['bits']}-bit lanes")
        return f".{row.register_type}: {m['lanes']} lanes of {m['bits']} bits ({row.types})"
    expect_equal(f".{row.register_type}: elements per register", row.elems_per_register, 1,
                 source=row.key, witness="a scalar register type")
    expect_equal(f".{row.register_type}: element types", list(row.types), [m["name"]],
                 source=row.key, witness="a scalar register holds its own type")
    return f".{row.register_type}: one {m['name']} element"
