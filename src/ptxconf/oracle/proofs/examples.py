"""The worked examples (PTX ISA Figures 166-170): injective, and equal to their canonical formula.

Both sides are derived from text: the figure's exact layout, and the canonical-layout row's
template with the figure's T, m, k, LBO and SBO bound. A refutation is a spec discrepancy
(the figure is a documented fact); its counterexample names the coordinates and addresses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ptxconf.oracle.canonical import row_swizzle, t_elems
from ptxconf.oracle.proofs import render
from ptxconf.oracle.proofs.encode import BitForm, bit_form
from ptxconf.oracle.proofs.layouts import READING
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.proofs.solver import z3
from ptxconf.oracle.records import CanonicalLayout, WorkedExample, atom_name
from ptxconf.oracle.spec import Spec


def _exact(spec: Spec, ex: WorkedExample) -> BitForm:
    """The figure's exact layout, in bit offsets under the bytes reading."""
    return bit_form(ex.exact_layout, spec.element_bits(ex.dtype), reading=READING)


def _points(spec: Spec, ex: WorkedExample, form: BitForm, model: z3.ModelRef,
            coords: list[list[z3.BitVecRef]], addrs: list[z3.BitVecRef]) -> list[render.Point]:
    bits = spec.element_bits(ex.dtype)
    return [render.Point(form.mode_coords(tuple(value(model, c) for c in cs), {}), ex.major, bits,
                         value(model, a)) for cs, a in zip(coords, addrs, strict=True)]


def injective(spec: Spec, ex: WorkedExample) -> Claim:
    """No two coordinates of the figure's exact layout share an address."""

    def body(prover: Prover) -> Proved:
        form = _exact(spec, ex)
        enc = prover.encoder()
        shapes = dict.fromkeys(("m", "k", "LBO", "SBO"), 0)
        c1, d1 = enc.coords(form, "a", shapes, shapes)
        c2, d2 = enc.coords(form, "b", shapes, shapes)
        a1, a2 = enc.address(form, c1, shapes), enc.address(form, c2, shapes)
        differ = z3.Or([x != y for x, y in zip(c1, c2, strict=True)])
        hit = prover.minimize([*d1, *d2, differ, a1 == a2], [a1])
        size = 1
        for s in form.shapes_at(shapes):
            size *= s
        if hit is None:
            return Proved(f"Figure {ex.figure}: {ex.exact_layout} maps its {size} coordinates "
                          f"to distinct addresses ({READING} reading)")
        p1, p2 = render.named_in_order(*_points(spec, ex, form, hit, [c1, c2], [a1, a2]))
        line, got = render.text_reproduce(ex.exact_layout, form.elem_bits,
                                          [p1.mode_coords, p2.mode_coords], READING)
        render.check_against_oracle(ex.key, [p1, p2], got)
        where = render.hex_address(p1.bit_address, form.elem_bits)
        text = (f"Figure {ex.figure} ({ex.major}-major, {ex.swizzle}, {ex.dtype}, k={ex.k}): "
                f"{p1.text()} and {p2.text()} both at {where}")
        raise Refuted(f"{text}: {ex.exact_layout} is not injective",
                      {"summary": text, "points": [p1.as_dict(), p2.as_dict()]}, line)

    def recheck(cex: dict[str, Any]) -> str | None:
        form = _exact(spec, ex)
        env = dict.fromkeys(("m", "k", "LBO", "SBO"), 0)
        return render.recheck_collision(
            form, env, cex.get("points"),
            lambda coords: render.text_reproduce(ex.exact_layout, form.elem_bits, coords,
                                                 READING)[1])

    return Claim("example_injective", ex.key,
                 f"Figure {ex.figure}'s exact layout {ex.exact_layout} is injective", body,
                 recheck=recheck)


def matches_canonical(spec: Spec, ex: WorkedExample) -> Claim:
    """The exact layout equals the table's template at the figure's parameters, everywhere."""

    def body(prover: Prover) -> Proved:
        bits = spec.element_bits(ex.dtype)
        row = spec.get(CanonicalLayout, atom_name(ex.major, ex.swizzle))
        if ex.t_elems != t_elems(spec, ex.dtype):
            raise Refuted(f"Figure {ex.figure}: T={ex.t_elems}, but 128 / {bits} bits = "
                          f"{t_elems(spec, ex.dtype)}", {"t_elems": ex.t_elems})
        table = bit_form(row.layout, bits, t=ex.t_elems, swizzle=row_swizzle(row),
                         reading=READING)
        printed = bit_form(ex.canonical_layout, bits, t=ex.t_elems, reading=READING)
        if (printed.leaves, printed.swizzle) != (table.leaves, table.swizzle):
            raise Refuted(f"Figure {ex.figure} prints the canonical layout {ex.canonical_layout}; "
                          f"the table's {row.id} is {row_swizzle(row)} o {row.layout}",
                          {"printed": ex.canonical_layout, "table": row.layout})
        uses_lbo = any("LBO" in lf.stride.symbols for lf in table.leaves)
        if uses_lbo and ex.lbo_elems is None:
            raise Refuted(f"Figure {ex.figure} gives no LBO, but {row.id} steps by LBO",
                          {"lbo_elems": None})
        env = {"m": ex.m, "k": ex.k, "LBO": ex.lbo_elems or 0, "SBO": ex.sbo_elems or 0}
        exact = _exact(spec, ex)
        return _equal(prover, spec, ex, exact, table, env, row)

    return Claim("example_matches_canonical", ex.key,
                 f"Figure {ex.figure}'s exact layout equals {ex.canonical_layout} at "
                 f"T={ex.t_elems}, m={ex.m}, k={ex.k}, LBO={ex.lbo_elems}, SBO={ex.sbo_elems} "
                 f"(elements)", body)


def _equal(prover: Prover, spec: Spec, ex: WorkedExample, exact: BitForm, table: BitForm,
           env: dict[str, int], row: CanonicalLayout) -> Proved:
    """Same modes, same shapes, and the same swizzled address at every coordinate."""
    shapes_e, shapes_t = exact.shapes_at(env), table.shapes_at(env)
    modes_e, modes_t = ([lf.mode for lf in f.leaves] for f in (exact, table))
    if (shapes_e, modes_e) != (shapes_t, modes_t):
        raise Refuted(f"Figure {ex.figure}: the exact layout has leaf shapes {shapes_e}, the "
                      f"formula {shapes_t}", {"exact": list(shapes_e), "formula": list(shapes_t)})
    enc = prover.encoder()
    cs, dom = enc.coords(exact, "c", env, env)
    a_e, a_t = enc.address(exact, cs, env), enc.address(table, cs, env)
    hit = prover.find(dom, a_e != a_t)
    if hit is None:
        return Proved(f"Figure {ex.figure}: {ex.exact_layout} == {row_swizzle(row)} o "
                      f"{row.layout} at T={ex.t_elems}, m={ex.m}, k={ex.k}, LBO={ex.lbo_elems}, "
                      f"SBO={ex.sbo_elems} at every coordinate ({READING} reading)")
    p_e, p_t = _points(spec, ex, exact, hit, [cs, cs], [a_e, a_t])
    cex: dict[str, Any] = {"coordinate": p_e.where(),
                           "exact": render.hex_address(p_e.bit_address, exact.elem_bits),
                           "formula": render.hex_address(p_t.bit_address, exact.elem_bits)}
    line_e, got_e = render.text_reproduce(ex.exact_layout, exact.elem_bits, [p_e.mode_coords],
                                          READING)
    line_t, got_t = render.canonical_reproduce(
        spec, row, t=ex.t_elems, m=ex.m, k=ex.k, lbo_elems=env["LBO"], sbo_elems=env["SBO"],
        elem_bits=exact.elem_bits, coords=[p_t.mode_coords], reading=READING)
    render.check_against_oracle(ex.key, [p_e, p_t], got_e + got_t)
    raise Refuted(f"Figure {ex.figure}: at {p_e.text()} the exact layout gives {cex['exact']}, "
                  f"the formula {cex['formula']}", cex, f"{line_e} && {line_t}")


def claims(spec: Spec) -> Iterator[Claim]:
    """Two claims per worked example."""
    for ex in spec.of(WorkedExample):
        yield injective(spec, ex)
        yield matches_canonical(spec, ex)
