"""mma.sync operand fragments as the PTX ISA computes them (spec/warp/mma_fragments.yaml).

A row states, for one operand of one shape, the names a section defines first (`groupID =
%laneid >> 2`) and the row and col of element i of a lane, one case per formula line
(`groupID + 8` where `i >= 2`). `cells` evaluates them for every (lane, element) of a warp;
the same evaluator runs over Z3 bit-vectors (`formula`, with the proofs' `Ops`), so a proof is
about the map the checks and the probes read.

The expressions are C's, restricted to what the sections write: integers (decimal or 0x),
names, `+ - * & >> %`, comparisons (chained as in `0 <= i < 2`), `||` and `&&`.
Pure: no I/O, no z3 import.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from ptxconf.oracle import facts
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.records import FragmentPiece, MmaFragment
from ptxconf.oracle.spec import Spec

#: A shape as PTX spells it: m16n8k16.
SHAPE = re.compile(r"m(?P<m>\d+)n(?P<n>\d+)k(?P<k>\d+)")
#: A formula's element index and the lane's id (the sections' %laneid).
INDEX, LANE = "i", "laneid"
#: The case a formula line takes where no earlier line does.
OTHERWISE = "otherwise"
#: The operand's matrix as the ISA draws it: (rows, cols) as letters of M, N, K.
ISA_DIMS = {"A": ("m", "k"), "B": ("k", "n"), "C": ("m", "n")}
#: The same matrix in CuTe's orientation (cute/mma_atoms: A (m,k), B (n,k), C (m,n)).
CUTE_DIMS = {"A": ("m", "k"), "B": ("n", "k"), "C": ("m", "n")}
#: CuTe's layout role of each operand (C is "C or D").
ROLE = {"A": "ALayout", "B": "BLayout", "C": "CLayout"}

X = TypeVar("X")
B = TypeVar("B")


class FormulaError(ValueError):
    """A formula the evaluator cannot read, or a map that does not cover each element once."""


class Ops(Protocol[X, B]):
    """Arithmetic a formula is evaluated in: integers (numpy arrays) or Z3 bit-vectors."""

    def const(self, value: int) -> X: ...
    def binop(self, op: str, a: X, b: X) -> X: ...
    def compare(self, op: str, a: X, b: X) -> B: ...
    def both(self, a: B, b: B) -> B: ...
    def either(self, a: B, b: B) -> B: ...
    def negate(self, a: B) -> B: ...
    def select(self, cond: B, a: X, b: X) -> X: ...
    def true(self) -> B: ...


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitAnd: "&", ast.RShift: ">>",
           ast.Mod: "%", ast.FloorDiv: "/"}
_COMPARES = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
             ast.NotEq: "!="}


@functools.lru_cache(maxsize=512)
def parse_formula(text: str) -> ast.expr:
    """The expression tree of a formula in the sections' C-like spelling (FormulaError if it
    holds anything beyond integers, names, + - * & >> %, comparisons, || and &&)."""
    py = text.replace("%laneid", LANE).replace("||", " or ").replace("&&", " and ")
    try:
        tree = ast.parse(py.strip(), mode="eval").body
    except SyntaxError as exc:
        raise FormulaError(f"formula {text!r} does not parse: {exc.msg}") from None
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.BoolOp, ast.Compare, ast.BinOp, ast.Name, ast.Load, ast.Or,
                               ast.And)) or type(node) in _BINOPS or type(node) in _COMPARES
        if isinstance(node, ast.Constant):
            ok = isinstance(node.value, int) and not isinstance(node.value, bool)
        if not ok:
            raise FormulaError(f"formula {text!r}: {type(node).__name__} is not allowed")
    return tree


def evaluate(text: str, env: dict[str, Any], ops: Ops[X, B]) -> Any:
    """A formula's value (or truth) in `env`, computed with `ops`."""
    def walk(node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            assert isinstance(node.value, int)  # parse_formula lets only integers through
            return ops.const(node.value)
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise FormulaError(f"formula {text!r}: {node.id!r} is not defined "
                                   f"(known: {sorted(env)})")
            return env[node.id]
        if isinstance(node, ast.BinOp):
            return ops.binop(_BINOPS[type(node.op)], walk(node.left), walk(node.right))
        if isinstance(node, ast.BoolOp):
            values = [walk(v) for v in node.values]
            join = ops.either if isinstance(node.op, ast.Or) else ops.both
            return functools.reduce(join, values)
        assert isinstance(node, ast.Compare)
        left, out = walk(node.left), None
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = walk(right_node)
            cmp = ops.compare(_COMPARES[type(op)], left, right)
            out = cmp if out is None else ops.both(out, cmp)
            left = right
        return out

    return walk(parse_formula(text))


def conditions(pieces: Sequence[FragmentPiece], env: dict[str, Any], ops: Ops[X, B]) -> list[B]:
    """Where each line of a formula holds: its `where`, every element where it has none, and
    "otherwise" where no earlier line holds."""
    out: list[B] = []
    for p in pieces:
        if p.where is None:
            cond = ops.true()
        elif p.where.strip().lower() == OTHERWISE:
            cond = ops.true()
            for earlier in out:
                cond = ops.both(cond, ops.negate(earlier))
        else:
            cond = evaluate(p.where, env, ops)
        out.append(cond)
    return out


def formula(row: MmaFragment, lane: X, i: X, ops: Ops[X, B]) -> tuple[X, X]:
    """(row, col) of element `i` of lane `lane`: each formula's first line that holds (the
    lines of a well-formed row hold on disjoint elements: `cells` checks)."""
    env: dict[str, Any] = {LANE: lane, INDEX: i}
    for let in row.let:
        env[let.name] = evaluate(let.value, env, ops)

    def pick(pieces: Sequence[FragmentPiece]) -> X:
        if not pieces:
            raise FormulaError(f"{row.key}: a formula with no lines")
        conds = conditions(pieces, env, ops)
        out: X = evaluate(pieces[-1].value, env, ops)
        for p, cond in zip(pieces[-2::-1], conds[-2::-1], strict=True):
            out = ops.select(cond, evaluate(p.value, env, ops), out)
        return out

    return pick(row.row), pick(row.col)


class NumpyOps:
    """`Ops` over int64 numpy arrays (C's semantics for the non-negative values here)."""

    def const(self, value: int) -> np.ndarray:
        return np.int64(value)  # type: ignore[return-value]  # a numpy scalar broadcasts

    def binop(self, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        fns: dict[str, Callable[[Any, Any], np.ndarray]] = {
            "+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
            ">>": np.right_shift, "%": np.remainder, "/": np.floor_divide}
        return fns[op](a, b)

    def compare(self, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        fns: dict[str, Callable[[Any, Any], np.ndarray]] = {
            "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
            "==": np.equal, "!=": np.not_equal}
        return fns[op](a, b)

    def both(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(np.logical_and(a, b))

    def either(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(np.logical_or(a, b))

    def negate(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(np.logical_not(a))

    def select(self, cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(cond, a, b)

    def true(self) -> np.ndarray:
        return np.bool_(True)  # type: ignore[return-value]  # a numpy scalar broadcasts


NUMPY = NumpyOps()


# --- geometry ----------------------------------------------------------------------------------


def shape_mnk(shape: str) -> tuple[int, int, int]:
    """(M, N, K) of a shape as PTX spells it (m16n8k16); ValueError otherwise."""
    m = SHAPE.fullmatch(shape)
    if m is None:
        raise ValueError(f"shape {shape!r} does not read as m<M>n<N>k<K>")
    return int(m["m"]), int(m["n"]), int(m["k"])


def _dims(shape: str, letters: tuple[str, str]) -> tuple[int, int]:
    m, n, k = shape_mnk(shape)
    sizes = {"m": m, "n": n, "k": k}
    return sizes[letters[0]], sizes[letters[1]]


def isa_dims(row: MmaFragment) -> tuple[int, int]:
    """(rows, cols) of the operand's matrix as the ISA draws it (B: K x N)."""
    return _dims(row.shape, ISA_DIMS[row.operand])


def cute_dims(row: MmaFragment) -> tuple[int, int]:
    """(rows, cols) of the operand's matrix in CuTe's orientation (B: N x K)."""
    return _dims(row.shape, CUTE_DIMS[row.operand])


def elements(row: MmaFragment) -> int:
    """The elements a lane holds: a0 .. a<last_index>."""
    return row.last_index + 1


@dataclass(frozen=True)
class Cells:
    """(row, col) of every (lane, element) of a fragment: int64 [lanes, elements] arrays, or
    one symbolic (lane, element)'s expressions."""

    rows: Any
    cols: Any


def cells(spec: Spec, row: MmaFragment) -> Cells:
    """The ISA's (row, col) of every element of every lane of a warp (facts.warp_threads);
    FormulaError where a formula does not read or its lines do not take each element once."""
    def make() -> Cells:
        lanes = facts.warp_threads(spec)
        lane = np.arange(lanes, dtype=np.int64)[:, None] + np.zeros((1, elements(row)), np.int64)
        i = np.arange(elements(row), dtype=np.int64)[None, :] + np.zeros((lanes, 1), np.int64)
        env: dict[str, Any] = {LANE: lane, INDEX: i}
        for let in row.let:
            env[let.name] = evaluate(let.value, env, NUMPY)
        for name, pieces in (("row", row.row), ("col", row.col)):
            taken = np.zeros(lane.shape, dtype=np.int64)
            for cond in conditions(pieces, env, NUMPY):
                taken += np.broadcast_to(cond, lane.shape).astype(np.int64)
            bad = np.argwhere(taken != 1)
            if len(bad):
                ln, e = (int(x) for x in bad[0])
                raise FormulaError(f"{row.key}: {name} of lane {ln} element {e}: "
                                   f"{int(taken[ln, e])} lines of the formula hold there "
                                   f"(expected exactly one)")
        r, c = formula(row, lane, i, NUMPY)
        return Cells(np.broadcast_to(r, lane.shape).copy(), np.broadcast_to(c, lane.shape).copy())

    return spec.memo(("mma_fragments.cells", row.key), make)


def bijection_problem(row: MmaFragment, got: Cells) -> str | None:
    """Why the (lane, element) -> (row, col) map is not a bijection onto the operand's matrix,
    in the map's own coordinates; None where it is."""
    rows, cols = isa_dims(row)
    outside = np.argwhere((got.rows < 0) | (got.rows >= rows) | (got.cols < 0) | (got.cols >= cols))
    if len(outside):
        ln, e = (int(x) for x in outside[0])
        return (f"lane {ln} element {e} holds (row {int(got.rows[ln, e])}, col "
                f"{int(got.cols[ln, e])}), outside the {rows}x{cols} matrix")
    flat = (got.rows * cols + got.cols).ravel()
    seen: dict[int, tuple[int, int]] = {}
    per = got.rows.shape[1]
    for n, idx in enumerate(flat.tolist()):
        if idx in seen:
            (l0, e0), (l1, e1) = seen[idx], divmod(n, per)
            return (f"lane {l0} element {e0} and lane {l1} element {e1} both hold (row "
                    f"{idx // cols}, col {idx % cols})")
        seen[idx] = divmod(n, per)
    if len(seen) != rows * cols:
        return f"{len(seen)} (lane, element) for the {rows * cols} elements of {rows}x{cols}"
    return None


def cute_index(row: MmaFragment, got: Cells, ops: Ops[Any, Any] = NUMPY) -> Any:
    """The column-major index CuTe's layouts map to (row + col x rows in CuTe's orientation:
    B's (k, n) read as (n, k)) of the ISA's cells."""
    rows_c, _ = cute_dims(row)
    r, c = (got.cols, got.rows) if row.operand == "B" else (got.rows, got.cols)
    return ops.binop("+", r, ops.binop("*", c, ops.const(rows_c)))


def layout_index(layout: Layout, coords: Sequence[X], ops: Ops[X, Any]) -> X:
    """layout(c0, c1, ...) with one flat coordinate per top-level mode ((thread, value) of a TV
    layout; (thread,) of a ThrID), each mode's leaves unpacked from it by division and
    remainder: ints, arrays or bit-vectors alike."""
    modes = layout.modes()
    if len(modes) != len(coords):
        raise ValueError(f"{layout}: {len(modes)} modes, {len(coords)} coordinates")
    out = ops.const(0)
    for mode, coord in zip(modes, coords, strict=True):
        step = 1
        for s, d in zip(flatten(mode.shape), flatten(mode.stride), strict=True):
            leaf = ops.binop("%", ops.binop("/", coord, ops.const(step)), ops.const(int(s)))
            out = ops.binop("+", out, ops.binop("*", leaf, ops.const(int(d))))
            step *= int(s)
    return out


__all__ = ["CUTE_DIMS", "Cells", "FormulaError", "ISA_DIMS", "NUMPY", "ROLE", "NumpyOps", "Ops",
           "bijection_problem", "cells", "conditions", "cute_dims", "cute_index", "elements",
           "evaluate", "formula", "isa_dims", "layout_index", "parse_formula", "shape_mnk"]
