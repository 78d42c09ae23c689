"""Which layout a result is about, read from its fields and the spec rows its key names: the
collision a non-injective layout's case reports (two coordinates at one address) and the layout
text and element type that show it. Pure; `ptxconf.app.reproduce` turns it into an `explain`
command and `ptxconf.app.figures` into a picture."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptxconf.core.results import Result
    from ptxconf.oracle.records import Row
    from ptxconf.oracle.spec import Spec


@dataclass(frozen=True)
class Collision:
    """Two or more (mn, k) coordinates a layout puts at one address.

    `layout` is CuTe text in elements (`Swizzle<B,M,S> o L` where the case swizzles: the
    swizzle acts on byte addresses, as the hardware's does); `units` is what the case compares:
    "bytes" (swizzled byte addresses) or "elements" (the unswizzled element offsets)."""

    layout: str
    dtype: str
    points: tuple[tuple[int, int], ...]
    units: str
    row_key: str


def case_key(result: Result) -> str:
    """The key inside `<check>[<key>]` ('' where the id has none)."""
    cid = result.id
    if cid.startswith(result.check + "[") and cid.endswith("]"):
        return cid[len(result.check) + 1:-1]
    return ""


def spec_row(spec: Spec, key: str) -> Row | None:
    """The spec row with this key (`<file stem>:<id>`), or None."""
    rows: dict[str, Row] = spec.memo(("rows_by_key",), lambda: {r.key: r for r in spec.rows})
    return rows.get(key)


def _points(fields: Mapping[str, Any]) -> tuple[tuple[int, int], ...]:
    """The (mn, k) points of a counterexample's `points` list; () where it has none."""
    cex = fields.get("counterexample")
    points = cex.get("points") if isinstance(cex, Mapping) else None
    if not isinstance(points, list):
        return ()
    out = []
    for p in points:
        if not isinstance(p, Mapping) or not isinstance(p.get("mn"), int) or not isinstance(p.get("k"), int):
            return ()
        out.append((int(p["mn"]), int(p["k"])))
    return tuple(out)


def split_swizzle(text: str) -> tuple[str, str]:
    """('Swizzle<B,M,S>', layout) of `Swizzle<B,M,S> o [0 o] L`; ('', text) without a swizzle."""
    parts = [p.strip() for p in text.split(" o ")]
    if len(parts) >= 2 and parts[0].startswith("Swizzle<"):
        return parts[0], parts[-1]
    return "", text.strip()


def collision(result: Result, spec: Spec) -> Collision | None:
    """The collision a result reports, with the layout and type that show it; None where the
    result reports none (or names a row this spec lacks)."""
    from ptxconf.oracle.records import CanonicalLayout, WorkedExample

    key = case_key(result)
    row = spec_row(spec, key) if key else None
    fields = result.fields
    if result.check == "worked_example.injective" and isinstance(row, WorkedExample):
        a, b = fields.get("first"), fields.get("second")
        if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b) == 2):
            return None
        return Collision(split_swizzle(row.exact_layout)[1], row.dtype,
                         ((int(a[0]), int(a[1])), (int(b[0]), int(b[1]))), "elements", row.key)
    points = _points(fields)
    if not points:
        return None
    if result.check == "proof.example_injective" and isinstance(row, WorkedExample):
        return Collision(row.exact_layout, row.dtype, points, "bytes", row.key)
    if result.check == "proof.layout_injective" and isinstance(row, CanonicalLayout):
        return _canonical_collision(spec, row, fields["counterexample"], points)
    return None


def _canonical_collision(spec: Spec, row: Any, cex: Mapping[str, Any],
                         points: tuple[tuple[int, int], ...]) -> Collision | None:
    """A canonical row's counterexample (type, m, k, LBO, SBO) as the layout it instantiates."""
    from ptxconf.oracle.canonical import bytes_to_elems, instantiate, row_swizzle, t_elems

    try:
        dtype = str(cex["dtype"])
        bits = spec.element_bits(dtype)
        layout = instantiate(row, t_elems(spec, dtype), int(cex["m"]), int(cex["k"]),
                             bytes_to_elems(int(cex["lbo_bytes"]), bits, "lbo"),
                             bytes_to_elems(int(cex["sbo_bytes"]), bits, "sbo"))
    except (KeyError, TypeError, ValueError):
        return None
    return Collision(f"{row_swizzle(row)} o {layout}", dtype, points, "bytes", row.key)


def explain_layout_command(c: Collision) -> str:
    """The `ptxconf explain layout` line that computes the collision (its answer names the
    first two coordinates at one address)."""
    import shlex

    return f"ptxconf explain layout {shlex.quote(c.layout)} --dtype {c.dtype}"


__all__ = ["Collision", "case_key", "collision", "explain_layout_command", "spec_row",
           "split_swizzle"]
