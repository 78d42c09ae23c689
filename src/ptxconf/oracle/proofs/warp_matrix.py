"""ldmatrix / stmatrix: the fragment maps the rows of spec/warp/*.yaml give, proved for every
(lane, register, element) of every derivable form (ptxconf.oracle.ldmatrix.forms).

The map is written once, `cell`, over integers or Z3 bit-vectors alike, from the form's
geometry as the rows state it: row = lane / threads_per_row + groups x (register % registers a
matrix), col = (lane % threads_per_row) x elements + element, matrix = register / registers a
matrix, and with .trans (row, col) exchanged. Where the oracle derives the form, each claim
first holds the formula equal to its table (`ldmatrix.fragment`) on every point, so what Z3
proves is the oracle's map; where it refuses the rows, Z3 shows a point where they fail.

* `warp_fragment_bijective`: a bijection from lanes x registers x elements onto the form's
  matrices x stored rows x cols (into the range, injective, and the two sets equal in size);
* `warp_trans_transpose`: a .trans form puts each (lane, register, element) at the transpose of
  where the form without .trans puts it;
* `warp_store_inverts_load`: stmatrix stores each (lane, register, element) where ldmatrix of the
  same shape, .num, .trans and type loads it from, and the same lanes supply the same row
  addresses: load after store is the identity (the load map is injective: the first claim).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import z3

from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.spec import Spec

#: Bit-vector width: lanes, registers, rows and columns are far below 2^16.
WIDTH = 16
X = TypeVar("X", int, z3.BitVecRef)


def cell(g: lm.Geometry, trans: bool, lane: X, reg: X, e: X, div: Callable[[X, int], X],
         rem: Callable[[X, int], X]) -> tuple[X, X, X]:
    """(matrix, row, col) of (lane, register, element): the oracle's map, written once for
    integers and bit-vectors (`div`, `rem`: floor division and remainder by a constant)."""
    row: X = div(lane, g.threads_per_row) + rem(reg, g.per_matrix) * g.groups
    col: X = rem(lane, g.threads_per_row) * g.elems + e
    return (div(reg, g.per_matrix), col, row) if trans else (div(reg, g.per_matrix), row, col)


def _int_div(a: int, b: int) -> int:
    return a // b


def _int_rem(a: int, b: int) -> int:
    return a % b


def _bv_div(a: z3.BitVecRef, b: int) -> z3.BitVecRef:
    return z3.UDiv(a, b)


def _bv_rem(a: z3.BitVecRef, b: int) -> z3.BitVecRef:
    return z3.URem(a, b)


def _geometry(form: lm.Form) -> lm.Geometry:
    """The form's geometry as its rows state it (the oracle may refuse rows that do not tile: Z3
    then shows where they fail), and, where the oracle derives the form, the formula equal to
    its table on every point (AssertionError otherwise: the proof would be about another map)."""
    frag, lanes = form.fragment, form.lanes
    if frag is None:
        raise ValueError(f"{form.shape.key}: no fragment row: its maps are not derived")
    tpr = frag.threads_per_row
    if tpr <= 0 or lanes % tpr:
        raise Refuted(f"{frag.key}: {tpr} threads a row do not divide the {lanes} lanes",
                      {"threads_per_row": tpr, "lanes": lanes})
    g = lm.Geometry(tpr, lanes // tpr, form.elems_per_register, form.shape.registers_per_matrix)
    try:
        table = lm.fragment(form)
    except ValueError:
        return g
    for h in table:
        got = cell(g, form.trans, h.lane, h.register, h.element, _int_div, _int_rem)
        if got != (h.matrix, h.row, h.col):
            raise AssertionError(f"{form.name}: the formula gives {got} at (lane {h.lane}, "
                                 f"register {h.register}, element {h.element}), the oracle "
                                 f"{(h.matrix, h.row, h.col)}")
    return g


class _Point:
    """A symbolic (lane, register, element) of a form, its domain and its image."""

    def __init__(self, prover: Prover, form: lm.Form, g: lm.Geometry, name: str) -> None:
        enc = prover.encoder(WIDTH)
        self.lane, self.reg, self.e = (enc.var(f"{name}_{v}") for v in ("lane", "reg", "e"))
        self.domain = [z3.ULT(self.lane, form.lanes), z3.ULT(self.reg, form.registers),
                       z3.ULT(self.e, g.elems)]
        self.image = cell(g, form.trans, self.lane, self.reg, self.e, _bv_div, _bv_rem)
        self.order = [self.lane, self.reg, self.e]

    def at(self, model: z3.ModelRef) -> dict[str, int]:
        """The point in a model."""
        return {"lane": value(model, self.lane), "register": value(model, self.reg),
                "element": value(model, self.e)}


def _repro(form: lm.Form) -> str:
    return ('python -c "from ptxconf.oracle.ldmatrix import form, fragment; from '
            'ptxconf.oracle.spec import default_spec; print(fragment(form(default_spec(), '
            f"'{form.name}')))\"")


def _where(model: z3.ModelRef, image: tuple[Any, ...]) -> dict[str, int]:
    return dict(zip(("matrix", "row", "col"), (value(model, x) for x in image), strict=True))


def _say(coords: dict[str, Any]) -> str:
    """(lane 16, register 0, element 0), (matrix 0, row 8, col 0): a point in its own words."""
    return "(" + ", ".join(f"{k} {v}" for k, v in coords.items()) + ")"


def bijective(form: lm.Form) -> Claim:
    """The fragment is a bijection onto the form's matrices."""

    def body(prover: Prover) -> Proved:
        g = _geometry(form)
        rows, cols = form.stored_dims
        x, y = _Point(prover, form, g, "x"), _Point(prover, form, g, "y")
        prover.satisfiable(form.key, x.domain)
        m, r, c = x.image
        hit = prover.minimize([*x.domain, z3.Or(z3.UGE(m, form.matrices), z3.UGE(r, rows),
                                                z3.UGE(c, cols))], x.order)
        if hit is not None:
            at, img = x.at(hit), _where(hit, x.image)
            raise Refuted(f"{form.name}: {_say(at)} holds {_say(img)}, outside {form.matrices} "
                          f"x {rows}x{cols}", {"point": at, "element": img}, _repro(form))
        differ = z3.Or(x.lane != y.lane, x.reg != y.reg, x.e != y.e)
        same = z3.And([a == b for a, b in zip(x.image, y.image, strict=True)])
        hit = prover.minimize([*x.domain, *y.domain, differ, same], [*x.order, *y.order])
        if hit is not None:
            a, b, img = x.at(hit), y.at(hit), _where(hit, x.image)
            raise Refuted(f"{form.name}: {_say(a)} and {_say(b)} both hold {_say(img)}",
                          {"points": [a, b], "element": img}, _repro(form))
        size = form.lanes * form.registers * g.elems
        if size != form.matrices * rows * cols:
            raise Refuted(f"{form.name}: {size} (lane, register, element) for "
                          f"{form.matrices * rows * cols} elements: not onto",
                          {"domain": size, "elements": form.matrices * rows * cols})
        return Proved(f"{form.name}: (lane, register, element) -> (matrix, row, col) is a "
                      f"bijection from {form.lanes} x {form.registers} x {g.elems} onto "
                      f"{form.matrices} x {rows}x{cols}", {"points": size})

    return Claim("warp_fragment_bijective", form.key,
                 f"{form.name}: every (lane, register, element) holds one element of the "
                 f"{form.matrices} matrices and every element is held once", body)


def transpose(trans: lm.Form, plain: lm.Form) -> Claim:
    """.trans puts every (lane, register, element) at the transpose of the plain form's place."""

    def body(prover: Prover) -> Proved:
        gt, gp = _geometry(trans), _geometry(plain)
        x = _Point(prover, trans, gt, "x")
        prover.satisfiable(trans.key, x.domain)
        mp, rp, cp = cell(gp, False, x.lane, x.reg, x.e, _bv_div, _bv_rem)
        mt, rt, ct = x.image
        hit = prover.minimize([*x.domain, z3.Or(mt != mp, rt != cp, ct != rp)], x.order)
        if hit is not None:
            at = x.at(hit)
            got, plain_at = _where(hit, x.image), _where(hit, (mp, rp, cp))
            raise Refuted(f"{trans.name}: {_say(at)} holds {_say(got)}; {plain.name} puts it at "
                          f"{_say(plain_at)}, not its transpose",
                          {"point": at, "trans": got, "plain": plain_at}, _repro(trans))
        return Proved(f"{trans.name} holds at (matrix, col, row) what {plain.name} holds at "
                      f"(matrix, row, col), for all {trans.lanes * trans.registers * gt.elems} "
                      "points", {})

    return Claim("warp_trans_transpose", trans.key,
                 f"{trans.name} is the transpose of {plain.name}: (matrix, row, col) -> "
                 "(matrix, col, row)", body)


def inverse(store: lm.Form, load: lm.Form) -> Claim:
    """stmatrix writes each (lane, register, element) where ldmatrix reads it from."""

    def body(prover: Prover) -> Proved:
        gs, gl = _geometry(store), _geometry(load)
        st_rows, ld_rows = lm.row_suppliers(store), lm.row_suppliers(load)
        if st_rows != ld_rows:
            lane = min(k for k in {*st_rows, *ld_rows} if st_rows.get(k) != ld_rows.get(k))
            st, ld = (list(rows[lane]) if lane in rows else None for rows in (st_rows, ld_rows))
            raise Refuted(f"lane {lane} supplies (matrix, row) {st} to {store.name}, {ld} to "
                          f"{load.name}", {"lane": lane, "store": st, "load": ld})
        x = _Point(prover, store, gs, "x")
        prover.satisfiable(store.key, x.domain, z3.ULT(x.e, gl.elems))
        loaded = cell(gl, load.trans, x.lane, x.reg, x.e, _bv_div, _bv_rem)
        hit = prover.minimize([*x.domain, z3.Or([a != b for a, b in
                                                 zip(x.image, loaded, strict=True)])], x.order)
        if hit is not None:
            at = x.at(hit)
            raise Refuted(f"{store.name} stores {_say(at)} at {_say(_where(hit, x.image))}; "
                          f"{load.name} loads it from {_say(_where(hit, loaded))}",
                          {"point": at, "store": _where(hit, x.image),
                           "load": _where(hit, loaded)}, _repro(store))
        return Proved(f"{load.name} after {store.name} is the identity on all "
                      f"{store.lanes * store.registers * gs.elems} (lane, register, element); "
                      f"lanes 0-{len(st_rows) - 1} supply the same rows to both", {})

    return Claim("warp_store_inverts_load", f"{store.key}~{load.key}",
                 f"{store.name} stores every (lane, register, element) where {load.name} loads "
                 "it from: the load inverts the store", body)


def _same(a: lm.Form, b: lm.Form, trans: bool) -> bool:
    """The same shape, .num and type (and .trans as given for b)."""
    return ((a.shape.shape, a.addresses.num, a.type) == (b.shape.shape, b.addresses.num, b.type)
            and b.trans == trans)


def claims(spec: Spec) -> Iterator[Claim]:
    """Every derivable form's bijection; every .trans form's transpose of its plain sibling;
    every stmatrix form's inverse of the ldmatrix form of the same shape, .num, .trans, type."""
    forms = lm.forms(spec)
    for f in forms:
        yield bijective(f)
    for f in forms:
        plain = [p for p in forms if f.trans and p.shape == f.shape and _same(f, p, False)]
        if plain:
            yield transpose(f, plain[0])
    for f in forms:
        loads = [ld for ld in forms if f.shape.instruction == "stmatrix"
                 and ld.shape.instruction == "ldmatrix" and _same(f, ld, f.trans)]
        if loads:
            yield inverse(f, loads[0])
