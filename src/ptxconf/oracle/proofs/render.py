"""Counterexamples in the layout's own coordinates, and the one-line oracle call reproducing them.

Every address a proof reports is recomputed here with the oracle (ptxconf.oracle.canonical)
before it is shown, so an encoding that drifted from the oracle fails loudly instead of
printing a wrong counterexample.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout
from ptxconf.oracle.canonical import (
    BITS_PER_BYTE,
    NORMALIZED_BITS,
    instantiate,
    row_swizzle,
    swizzled_offset,
)
from ptxconf.oracle.proofs.encode import BitForm
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, Spec

#: Bytes in one 16-byte chunk (a 128-bit normalized element).
CHUNK_BYTES = NORMALIZED_BITS // BITS_PER_BYTE


def hex_address(bit_address: int, elem_bits: int) -> str:
    """A byte address in hex; sub-byte elements add the bit within the byte."""
    byte, bit = divmod(bit_address, BITS_PER_BYTE)
    return f"{byte:#05x}" if elem_bits % BITS_PER_BYTE == 0 else f"{byte:#05x}.bit{bit}"


def address_units_name(elem_bits: int) -> str:
    """The unit oracle addresses count in for this element width."""
    return "bits" if elem_bits % BITS_PER_BYTE else "bytes"


def oracle_units(bit_address: int, elem_bits: int) -> int:
    """A bit address in the unit canonical.swizzled_offset answers in (bytes, or bits)."""
    return bit_address if elem_bits % BITS_PER_BYTE else bit_address // BITS_PER_BYTE


@dataclass(frozen=True)
class Point:
    """One coordinate of a layout, named as the layout names it, and where it lands."""

    mode_coords: tuple[int, ...]
    major: str | None
    elem_bits: int
    bit_address: int

    def where(self) -> dict[str, int]:
        """(mn, k) and, for a canonical layout, the core-matrix row and 16-byte chunk."""
        out = dict(zip(("mn", "k"), self.mode_coords, strict=False))
        if self.major is not None and len(self.mode_coords) == 2:
            mn, k = self.mode_coords
            lead, other = (k, mn) if self.major == "K" else (mn, k)
            out["row"] = other
            out["chunk"] = lead * self.elem_bits // NORMALIZED_BITS
        return out

    def text(self) -> str:
        """E.g. ``(mn 0, k 64: row 0, chunk 8)``."""
        w = self.where()
        head = ", ".join(f"{n} {w[n]}" for n in ("mn", "k") if n in w)
        if "row" in w:
            head += f": row {w['row']}, chunk {w['chunk']}"
        return f"({head})"

    def as_dict(self) -> dict[str, Any]:
        """JSON view."""
        return {**self.where(), "address": hex_address(self.bit_address, self.elem_bits)}


def point(form: BitForm, leaf_values: Sequence[int], env: Mapping[str, int], major: str | None,
          bit_address: int) -> Point:
    """A Point from a model's leaf coordinates."""
    return Point(form.mode_coords(tuple(leaf_values), env), major, form.elem_bits, bit_address)


def named_in_order(p1: Point, p2: Point) -> tuple[Point, Point]:
    """Two points in coordinate order where they collide (the same address: an unordered pair,
    whichever the solver found first; Z3 4.15 and 5.4 differ), else as given."""
    if p1.bit_address == p2.bit_address and p2.mode_coords < p1.mode_coords:
        return p2, p1
    return p1, p2


def spec_call(spec: Spec) -> tuple[str, str]:
    """The import and the expression that load this spec in a reproduce line."""
    if spec.root.resolve() == DEFAULT_SPEC_DIR.resolve():
        return "from ptxconf.oracle.spec import default_spec", "default_spec()"
    return "from ptxconf.oracle.spec import load_spec", f"load_spec({str(spec.root)!r})"


def canonical_reproduce(spec: Spec, row: CanonicalLayout, *, t: int, m: int, k: int,
                        lbo_elems: int, sbo_elems: int, elem_bits: int,
                        coords: Sequence[tuple[int, ...]], reading: str = "bytes",
                        base_offset_bytes: int = 0) -> tuple[str, list[int]]:
    """A pasteable line printing the oracle's addresses of ``coords``, and those addresses."""
    layout = instantiate(row, t, m, k, lbo_elems, sbo_elems)
    swz = row_swizzle(row)
    got = [swizzled_offset(layout(c), elem_bits, swz, reading, base_offset_bytes) for c in coords]
    imp, expr = spec_call(spec)
    base = f", {base_offset_bytes}" if base_offset_bytes else ""
    line = (f'python -c "{imp}; from ptxconf.oracle.canonical import canonical_row, instantiate, '
            f"row_swizzle, swizzled_offset; r = canonical_row({expr}, {row.major!r}, "
            f"{row.swizzle!r}); L = instantiate(r, {t}, {m}, {k}, {lbo_elems}, {sbo_elems}); "
            f"print([hex(swizzled_offset(L(c), {elem_bits}, row_swizzle(r), {reading!r}{base})) "
            f'for c in {list(coords)!r}])"')
    return line, got


def text_reproduce(text: str, elem_bits: int, coords: Sequence[tuple[int, ...]],
                   reading: str = "bytes") -> tuple[str, list[int]]:
    """The same for a concrete ``Swizzle o layout`` text (a figure's exact layout)."""
    layout = parse(text)
    if not isinstance(layout, ComposedLayout):
        raise ValueError(f"{text}: expected Swizzle o layout")
    # the inner of a `Swizzle o layout` text is its Swizzle
    got = [swizzled_offset(layout.outer(c), elem_bits, layout.inner, reading)  # type: ignore[arg-type]
           for c in coords]
    line = (f'python -c "from ptxconf.oracle.algebra import parse; from ptxconf.oracle.canonical '
            f"import swizzled_offset; L = parse({text!r}); print([hex(swizzled_offset(L.outer(c), "
            f'{elem_bits}, L.inner, {reading!r})) for c in {list(coords)!r}])"')
    return line, got


def recheck_collision(form: BitForm, env: Mapping[str, int], points: Any,
                      oracle: Callable[[list[tuple[int, ...]]], list[int]],
                      shared_leaves: Sequence[int] = ()) -> str | None:
    """None when ``points`` (a cached refutation's two points, as `Point.as_dict` wrote them)
    are two different coordinates of ``form`` at ``env`` that ``oracle`` (coordinates -> its
    addresses) puts at one address, the address recorded, and that agree on every leaf of
    ``shared_leaves``; else why they are not. The check a cached refutation passes before a
    run uses it: cheap (two points evaluated), and bound to the claim through ``form``."""
    names = ("mn", "k")[:form.rank]
    try:
        coords = [tuple(as_count(p[n]) for n in names) for p in points]
        recorded = [str(p["address"]) for p in points]
    except (TypeError, KeyError, ValueError):
        return "its counterexample does not name two points"
    if len(coords) != 2 or coords[0] == coords[1] or len(names) != form.rank:
        return "its counterexample does not name two different points"
    sizes = [1] * form.rank
    for lf in form.leaves:
        sizes[lf.mode] *= lf.shape.at(env)
    if any(not 0 <= x < n for c in coords for x, n in zip(c, sizes, strict=True)):
        return "its counterexample names a point outside the layout"
    got = oracle(coords)
    if got[0] != got[1]:
        return "evaluated, its two points lie at different addresses"
    scale = 1 if form.elem_bits % BITS_PER_BYTE else BITS_PER_BYTE
    if [hex_address(g * scale, form.elem_bits) for g in got] != recorded:
        return "its addresses are not the ones the oracle gives"
    leaves = [form.leaf_coords(c, env) for c in coords]
    if any(leaves[0][i] != leaves[1][i] for i in shared_leaves):
        return "its two points differ in a repeat (LBO/SBO) coordinate"
    return None


def as_count(x: Any) -> int:
    """A non-negative integer from JSON (not a bool, a float or a string)."""
    if type(x) is not int or x < 0:
        raise ValueError(f"{x!r} is not a coordinate")
    return x


def check_against_oracle(what: str, points: Sequence[Point], oracle: Sequence[int]) -> None:
    """Raise AssertionError when the oracle puts a point elsewhere than the encoding did."""
    mine = [oracle_units(p.bit_address, p.elem_bits) for p in points]
    if list(oracle) != mine:
        raise AssertionError(f"{what}: the Z3 encoding gives {mine}, the oracle {list(oracle)}")
