"""What a CuTe MMA atom's name and text spell (spec/cute/mma_atoms.yaml): the architecture, M, N,
K and the D/A/B/C types of `SM90_64x128x16_F16F16F16F16_TN`, a row's layout parsed, and the C++
`Layout<Shape<...>, Stride<...>>` spelling read as a layout. Shared by the atom checks
(`cute_atoms`), the document-statement checks (`cute_statements`) and the mode checks."""

from __future__ import annotations

import re

from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import NotationError, parse
from ptxconf.oracle.checks.base import fail
from ptxconf.oracle.records import CuteLayout, RegisterFragment
from ptxconf.oracle.spec import Spec

#: An atom name's architecture and shape: SM90_64x128x16_F16F16F16F16_TN -> SM90, 64, 128, 16.
ATOM_NAME = re.compile(r"(?P<arch>SM\d+)_(?P<m>\d+)x(?P<n>\d+|N)x(?P<k>\d+)_(?P<types>[A-Z0-9]+)?")
#: The document's C++ spelling of a layout: Layout<Shape <_8,_4>, Stride<_1,_8>>.
CPP_TOKEN = re.compile(r"\s*(Layout<|Shape\s*<|Stride\s*<|_\d+|,|>)")
#: The types an atom name spells, in the order D, A, B, C.
TYPE_ORDER = ("D", "A", "B", "C")


def atom_k(row: CuteLayout) -> int:
    """The K the row's atom name states (0 when the name does not read)."""
    m = ATOM_NAME.match(row.atom)
    return int(m["k"]) if m else 0


def accumulators(spec: Spec, k: int) -> tuple[RegisterFragment, ...]:
    """The register-fragment D rows at an atom's K."""
    return tuple(f for f in spec.of(RegisterFragment) if f.operand == "D" and f.k_elems == k)


def arch(row: CuteLayout) -> str:
    m = ATOM_NAME.match(row.atom)
    return m["arch"] if m else ""


def row_layout(row: CuteLayout) -> Layout:
    """The row's layout, parsed; FAIL if it does not parse or is not a plain layout."""
    try:
        layout = parse(row.layout)
    except NotationError as exc:
        raise fail(f"{row.key}: layout {row.layout!r} does not parse: {exc}") from None
    if not isinstance(layout, Layout):
        raise fail(f"{row.key}: {row.layout!r} is not a plain layout")
    return layout


def type_tokens(atom: str) -> list[str]:
    """The type names an atom name spells, in order (SM70_8x8x4_F32F16F16F32_NT -> F32, F16,
    F16, F32; an FP8 type whole: F32E4M3E5M2F32 -> F32, E4M3, E5M2, F32); none when the name
    does not read."""
    m = ATOM_NAME.match(atom)
    return re.findall(r"E\d+M\d+|[A-Z]+\d+", m["types"]) if m and m["types"] else []


def type_bits(spec: Spec, atom: str) -> dict[str, int]:
    """The element width of D, A, B and C that an atom name spells (F32F16F16F32)."""
    tokens = type_tokens(atom)
    if len(tokens) != len(TYPE_ORDER):
        raise fail(f"atom {atom!r}: expected four types (D, A, B, C)")
    return {op: spec.element_bits(t.lower()) for op, t in zip(TYPE_ORDER, tokens, strict=True)}


def cpp_layout(text: str, where: str = "") -> Layout:
    """The layout a C++ `Layout<Shape <...>, Stride<...>>` (or `Layout<_128, _1>`, or
    `Layout<_32>` with CuTe's compact column-major strides) spells."""
    tokens, pos = [], 0
    while pos < len(text):
        m = CPP_TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip() in ("", ";"):
                break
            raise fail(f"{where}: cannot read {text!r} at {text[pos:pos + 12]!r}")
        tokens.append(m.group(1).replace(" ", ""))
        pos = m.end()

    def value(i: int) -> tuple[object, int]:
        tok = tokens[i]
        if tok.startswith("_"):
            return int(tok[1:]), i + 1
        if tok in ("Shape<", "Stride<"):
            items, i = [], i + 1
            while tokens[i] != ">":
                item, i = value(i)
                items.append(item)
                if tokens[i] == ",":
                    i += 1
            return tuple(items), i + 1  # Shape<_128> is a rank-1 tuple, as in CuTe
        raise fail(f"{where}: unexpected {tok!r} in {text!r}")

    try:
        if not tokens or tokens[0] != "Layout<":
            raise fail(f"{where}: {text!r} is not a Layout<...>")
        shape, i = value(1)
        if tokens[i:] == [">"]:  # Layout<_32>: CuTe's default, compact column-major strides
            return Layout(shape)  # type: ignore[arg-type]  # value() builds nested int tuples
        if tokens[i] != ",":
            raise fail(f"{where}: {text!r}: expected Layout<shape, stride>")
        stride, i = value(i + 1)
        if tokens[i:] != [">"]:
            raise fail(f"{where}: {text!r}: trailing {tokens[i:]}")
    except IndexError:
        raise fail(f"{where}: {text!r} ends early") from None
    return Layout(shape, stride)  # type: ignore[arg-type]  # value() builds nested int tuples


__all__ = ["ATOM_NAME", "CPP_TOKEN", "TYPE_ORDER", "accumulators", "arch", "atom_k", "cpp_layout", "row_layout",
           "type_bits", "type_tokens"]
