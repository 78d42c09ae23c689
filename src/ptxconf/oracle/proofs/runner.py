"""`prove(claim, timeout_s=...)`: one claim, one fresh z3.Context, three-valued, never prints.

A claim body talks to Z3 only through a `Prover`, which gives every query what is left of the
claim's time budget (``solver.set("timeout", ms)``) and turns an ``unknown`` answer into
`Unknown` carrying Z3's ``reason_unknown()``. The body returns `Proved` or raises `Refuted`
(counterexample in the layout's own coordinates, plus a pasteable oracle call).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ptxconf.oracle.proofs.encode import Encoder
from ptxconf.oracle.proofs.solver import z3

ProofStatus = Literal["proved", "refuted", "unknown"]


class Unknown(Exception):
    """Z3 answered unknown (or the claim's time ran out): the reason, verbatim."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Refuted(Exception):
    """The claim is false: why, the counterexample, and a one-line call that reproduces it."""

    def __init__(self, reason: str, counterexample: dict[str, Any], reproduce: str = "",
                 **details: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.counterexample = counterexample
        self.reproduce = reproduce
        self.details = details


@dataclass(frozen=True)
class Proved:
    """What a body returns when every query came back as it should: a summary and the facts."""

    reason: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    """A statement about one spec row; ``documented``: a refutation contradicts a document."""

    name: str
    key: str
    statement: str
    body: Callable[[Prover], Proved]
    documented: bool = True
    #: Evaluates a refutation's counterexample concretely: None when it is one, else why not.
    #: A cached refutation is used only where the claim has one and it passes.
    recheck: Callable[[dict[str, Any]], str | None] | None = None

    @property
    def id(self) -> str:
        """The test id, e.g. ``proof.swizzle_bijective[wgmma/canonical_layouts:K_SW128]``."""
        return f"proof.{self.name}[{self.key}]"


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one claim."""

    status: ProofStatus
    claim: str
    key: str
    statement: str
    reason: str
    counterexample: dict[str, Any] | None
    reproduce: str
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The claim's test id."""
        return f"proof.{self.claim}[{self.key}]"

    def fields(self) -> dict[str, Any]:
        """The fields of the claim's case (and of its proof cache entry): status, statement,
        counterexample, the reproduce line and the proof's facts."""
        line = self.reproduce or None
        # a `ptxconf ...` line (synthesis: `ptxconf explain layout`) is a command; others Python
        where = "reproduce" if line is not None and line.startswith("ptxconf ") else "reproduce_python"
        return {"proof_status": self.status, "statement": self.statement,
                "counterexample": self.counterexample, where: line, "facts": self.details}


class Prover:
    """Queries against one context under one deadline."""

    def __init__(self, ctx: z3.Context, timeout_s: float) -> None:
        """Start the clock."""
        self.ctx = ctx
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        self.queries = 0

    def encoder(self, width: int | None = None) -> Encoder:
        """An encoder in this proof's context."""
        return Encoder(self.ctx) if width is None else Encoder(self.ctx, width)

    def _solver(self) -> z3.Solver:
        left_ms = int((self.deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            raise Unknown(f"timeout: the claim's {self.timeout_s:g} s budget is spent")
        s = z3.Solver(ctx=self.ctx)
        s.set("timeout", left_ms)
        # Z3's own Ctrl-C handler would swallow SIGINT (the run went on); leave it to Python.
        s.set("ctrl_c", False)
        return s

    def find(self, *constraints: z3.BoolRef | Iterable[z3.BoolRef]) -> z3.ModelRef | None:
        """A model of the constraints, or None when there is none (unsat)."""
        s = self._solver()
        for c in constraints:
            if isinstance(c, z3.BoolRef):
                s.add(c)
            else:
                s.add(*c)
        self.queries += 1
        answer = s.check()
        if answer == z3.sat:
            return s.model()
        if answer == z3.unsat:
            return None
        raise Unknown(s.reason_unknown() or "unknown")

    def satisfiable(self, what: str, *constraints: z3.BoolRef | Iterable[z3.BoolRef]) -> None:
        """Guard against a vacuous proof: the hypotheses alone must have a model."""
        if self.find(*constraints) is None:
            raise AssertionError(f"vacuous proof: {what} cannot be met")

    def minimize(self, constraints: Sequence[z3.BoolRef],
                 objectives: Sequence[z3.BitVecRef | z3.ArithRef]) -> z3.ModelRef | None:
        """The model lexicographically smallest in ``objectives`` (bit-vectors unsigned,
        integers non-negative), or None.

        Each objective is narrowed by galloping up from 0 (small optima cost few queries), then
        bisection, over sat/unsat answers only; then pinned before the next. Exact.
        """
        model = self.find(constraints)
        if model is None:
            return None
        pinned: list[z3.BoolRef] = list(constraints)
        for obj in objectives:
            hi = model.eval(obj, model_completion=True).as_long()
            lo, step = 0, 0
            while lo < hi:
                mid = min(lo + step, hi - 1) if step < hi - lo else (lo + hi) // 2
                below = z3.ULE(obj, mid) if z3.is_bv(obj) else obj <= mid
                found = self.find(pinned, below)
                if found is None:
                    lo, step = mid + 1, 2 * step + 1
                else:
                    model = found
                    hi, step = found.eval(obj, model_completion=True).as_long(), hi
            pinned.append(obj == hi)
        return model


def value(model: z3.ModelRef, expr: z3.ExprRef) -> int:
    """A bit-vector's value in a model (unconstrained ones are 0)."""
    n: int = model.eval(expr, model_completion=True).as_long()
    return n


def signed(model: z3.ModelRef, expr: z3.BitVecRef) -> int:
    """A bit-vector's value in a model, read as two's complement."""
    v = value(model, expr)
    return v - (1 << expr.size()) if v >> (expr.size() - 1) else v


def prove(claim: Claim, *, timeout_s: float) -> ProofResult:
    """Run one claim in a fresh context: proved, refuted (with a counterexample) or unknown."""
    start = time.perf_counter()
    prover = Prover(z3.Context(), timeout_s)

    def result(status: ProofStatus, reason: str, cex: dict[str, Any] | None = None,
               reproduce: str = "", details: dict[str, Any] | None = None) -> ProofResult:
        facts = {"queries": prover.queries, **(details or {})}
        return ProofResult(status, claim.name, claim.key, claim.statement, reason, cex, reproduce,
                           time.perf_counter() - start, facts)

    try:
        proved = claim.body(prover)
    except Refuted as r:
        return result("refuted", r.reason, r.counterexample, r.reproduce, r.details)
    except Unknown as u:
        return result("unknown", f"unknown: {u.reason}", details={"reason_unknown": u.reason})
    except z3.Z3Exception as e:
        return result("unknown", f"unknown: z3 raised {e}", details={"reason_unknown": str(e)})
    return result("proved", proved.reason, details=proved.details)
