"""Naming the mistakes: the candidate the search ranks first, set against the user's
descriptor, says which fields change; `Namer` turns that into diagnoses with words, the rule,
the spec rows and the evidence (`catalog`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ptxconf.oracle.records import ByteOffsetDefinition, SwizzleAtom, atom_name
from ptxconf.oracle.spec import Spec

from . import catalog
from .operand import Operand
from .readmap import Analysis, Context, Descriptor, base_rule, linear

CHUNK_BYTES = 16


@dataclass(frozen=True)
class Candidate:
    """A descriptor the search tried, what it changes and what its map is.

    `unpacked`: how many of its stepped strides differ from the packed values of its mode;
    `new_values`: how many of its stepped stride values are none of the user's two (a swap
    brings none: the user typed the right numbers into the wrong fields)."""

    desc: Descriptor
    changed: tuple[str, ...]
    analysis: Analysis
    unpacked: int
    swapped: bool = False
    new_values: int = 0

    @property
    def cost(self) -> int:
        """How many fields differ from the user's; LBO and SBO exchanged count as one."""
        return len(self.changed) - int(self.swapped)

    def rank(self, order: tuple[str, ...]) -> tuple[Any, ...]:
        """Smaller is better: valid; no ignored field set; a new swizzle mode only with the
        strides packed for it (the strides describe the tile in memory, the mode is one field);
        fewest changes; fewest new values; the user's mode; the smallest span."""
        a = self.analysis
        reinterpreted = "swizzle" in self.changed
        return (not a.valid, len(a.suspects), self.unpacked if reinterpreted else 0, self.cost,
                self.new_values, reinterpreted, a.span_bytes, order.index(self.desc.swizzle),
                self.desc.lbo, self.desc.sbo, self.desc.base_offset)


@dataclass(frozen=True)
class Diagnosis:
    """One named mistake: what, why (rule, spec rows, evidence) and the fix."""

    code: str
    severity: str
    message: str
    spec_rows: tuple[str, ...]
    evidence: tuple[str, ...]
    fix: dict[str, tuple[int | str, int | str]]
    corrected: int | None

    @property
    def title(self) -> str:
        """The catalog's title."""
        return catalog.CATALOG[self.code].title

    @property
    def rule(self) -> str:
        """The catalog's rule."""
        return catalog.CATALOG[self.code].rule

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"code": self.code, "title": self.title, "severity": self.severity,
                "message": self.message, "rule": self.rule, "spec": list(self.spec_rows),
                "evidence": list(self.evidence),
                "fix": {k: {"from": a, "to": b} for k, (a, b) in self.fix.items()},
                "corrected": None if self.corrected is None else f"{self.corrected:#018x}"}


# --- words -------------------------------------------------------------------------------------


def _cell(c: tuple[int, int]) -> str:
    return f"(mn {c[0]}, k {c[1]})"


def problems(spec: Spec, op: Operand, d: Descriptor, a: Analysis, ctx: Context) -> list[str]:
    """Why a map is no operand, one sentence a problem."""
    out = []
    if a.alias is not None:
        p, q, addr = a.alias
        out.append(f"the map is not injective: {_cell(p)} and {_cell(q)} are both read at {addr:#x}")
    if a.outside and a.first_outside is not None and ctx.smem_bytes is not None:
        (c, addr) = a.first_outside
        out.append(f"{a.outside} of {op.mn * op.k} elements lie outside the allocation "
                   f"[{ctx.tile_base:#x}, {ctx.tile_base + ctx.smem_bytes:#x}): the first, "
                   f"{_cell(c)}, at {addr:#x}")
    if not a.phase_ok:
        rule = base_rule(spec, d.swizzle)
        assert rule is not None
        out.append(f"the {d.swizzle} XOR pattern starts {a.hw_phase} B into its "
                   f"{rule.repeat_bytes}-B repeat, the tile's (at {ctx.tile_base:#x}) "
                   f"{a.want_phase} B in: rows are read with another row's chunk order")
    return out


def _definition(spec: Spec, offset: str, op: Operand, swizzle: str) -> ByteOffsetDefinition | None:
    return next((r for r in spec.of(ByteOffsetDefinition) if r.offset == offset
                 and r.major == op.major and swizzle in r.swizzles), None)


def _role(spec: Spec, op: Operand, swizzle: str, offset: str) -> str:
    d = _definition(spec, offset, op, swizzle)
    if d is None:
        return offset
    return f"{offset} is \"{d.text}\" ({d.key})"


def _fix_text(fix: dict[str, tuple[int | str, int | str]]) -> str:
    def show(name: str, v: int | str) -> str:
        if name == "start_address" and isinstance(v, int):
            return f"{v:#x}"
        return f"{v} B" if name in ("lbo", "sbo") else str(v)

    return ", ".join(f"{n} {show(n, a)} -> {show(n, b)}" for n, (a, b) in fix.items())


class Namer:
    """Builds the diagnoses of one user descriptor against the best candidate."""

    def __init__(self, spec: Spec, op: Operand, user: Descriptor, ua: Analysis,
                 best: Candidate, ctx: Context, known_ids: Collection[str] = ()) -> None:
        self.spec, self.op, self.user, self.ua, self.best, self.ctx = spec, op, user, ua, best, ctx
        self.known_ids = known_ids
        self.severity = "suspect" if ua.valid else "error"
        self.problem = "; ".join(problems(spec, op, user, ua, ctx))

    def make(self, code: str, message: str, fields: tuple[str, ...], *,
             ignored: str | None = None) -> Diagnosis:
        b = self.best.desc
        fix = {n: (getattr(self.user, n), getattr(b, n)) for n in fields}
        other = b.swizzle if b.swizzle != self.user.swizzle else None
        rows = catalog.rows_for(self.spec, code, self.op, self.user.swizzle, other, ignored,
                                fields)
        ev = catalog.evidence(self.spec, code, self.op, self.user.swizzle, fix_swizzle=other,
                              start=self.user.start_address, field_value=b.base_offset,
                              ignored=ignored, known_ids=self.known_ids)
        return Diagnosis(code, self.severity, message, tuple(catalog.spec_ref(self.spec, r)
                                                            for r in rows),
                         tuple(ev), fix, b.value)

    def with_problem(self, text: str) -> str:
        return f"{text}: {self.problem}" if self.problem else text

    def swapped(self) -> Diagnosis:
        u, b, sw = self.user, self.best.desc, self.user.swizzle
        fields = ("lbo", "sbo")
        if self.op.major == "MN" and sw != "none":
            text = (f"for an MN-major {sw} layout LBO steps along MN and SBO along K, the K-major "
                    f"roles inverted ({_role(self.spec, self.op, sw, 'LBO')}; "
                    f"{_role(self.spec, self.op, sw, 'SBO')}); with LBO {u.lbo} B and SBO "
                    f"{u.sbo} B")
            return self.make("EXPLAIN-MN-ROLES-SWAPPED", self.with_problem(text) +
                             f". Swap them: LBO {b.lbo} B (MN groups), SBO {b.sbo} B (K groups)",
                             fields)
        text = (f"LBO {u.lbo} B and SBO {u.sbo} B are the other way round: "
                f"{_role(self.spec, self.op, sw, 'SBO')}, and "
                f"{_role(self.spec, self.op, sw, 'LBO')}")
        if not self.ua.valid:
            text = self.with_problem(text)
        else:
            text += (f"; as given the tile spans {self.ua.span_bytes} B, swapped "
                     f"{self.best.analysis.span_bytes} B")
        return self.make("EXPLAIN-LBO-SBO-SWAPPED", text + f". Swap them: LBO {b.lbo} B, SBO "
                         f"{b.sbo} B", fields)

    def swizzle(self) -> Diagnosis:
        u, b = self.user, self.best.desc
        fields = tuple(n for n in self.best.changed)
        if self.op.major == "K" and u.swizzle != "none":
            atom = self.spec.get(SwizzleAtom, atom_name("K", u.swizzle))
            width = atom.leading_u128 * CHUNK_BYTES
            extent = self.op.k * self.op.elem_bytes
            if extent > width:
                text = (f"the operand's K extent, {self.op.k} x {self.op.elem_bytes} B = {extent} "
                        f"B, is wider than one {u.swizzle} swizzle row ({width} B: {atom.key}, "
                        f"{atom.leading_u128} 16-byte chunks): past it chunk {atom.leading_u128} "
                        f"of row r is chunk 0 of row r + 1 (proved bound)")
                return self.make("EXPLAIN-K-BEYOND-ROW", self.with_problem(text) +
                                 f". A {b.swizzle} row holds it: {_fix_text(self.fix(fields))}",
                                 fields)
        text = f"the descriptor says {u.swizzle}, but its strides describe a {b.swizzle} tile"
        if self.op.major == "K" and b.swizzle != "none" and u.sbo == b.sbo:
            row = b.sbo // 8
            text += (f" (SBO {u.sbo} B = 8 rows of {row} B: an 8-row group of a K-major "
                     f"{b.swizzle} tile)")
        return self.make("EXPLAIN-SWIZZLE-MODE", self.with_problem(text) +
                         f". Fix: {_fix_text(self.fix(fields))}", fields)

    def fix(self, fields: tuple[str, ...]) -> dict[str, tuple[int | str, int | str]]:
        return {n: (getattr(self.user, n), getattr(self.best.desc, n)) for n in fields}

    def base_offset(self) -> Diagnosis:
        u, b = self.user, self.best.desc
        rule = base_rule(self.spec, u.swizzle)
        if rule is None:
            text = (f"base-offset field {u.base_offset}: without a swizzle the field is not used "
                    "(an H100 gives the same D for every value); set it to 0")
            return self.make("EXPLAIN-IGNORED-FIELD", text, ("base_offset",),
                             ignored="base_offset")
        r = rule.repeat_bytes
        tb = self.ctx.tile_base
        if u.start_address % r:
            text = (f"the start {u.start_address:#x} is {u.start_address % r} B into a {r}-B "
                    f"repeat of the {u.swizzle} swizzle and the base-offset field is "
                    f"{u.base_offset}: the H100 swizzles start + offset - (field << 7), so")
            text = f"{text} {self.problem}" if self.problem else text
            text += (f". Set the base-offset field to (tile base >> 7) & 7 = ({tb:#x} >> 7) & 7 "
                     f"= {b.base_offset}: the pattern then restarts at the tile's 128-B row (or "
                     f"place the tile on a {r}-B boundary, field 0)")
            return self.make("EXPLAIN-START-MISALIGNED", text, ("base_offset",))
        text = (f"the start {u.start_address:#x} is on the {r}-B repeat but the base-offset "
                f"field is {u.base_offset}: the H100 moves the pattern by {u.base_offset} x 128 B")
        return self.make("EXPLAIN-BASE-OFFSET-PHASE", self.with_problem(text) +
                         f". Set it to {b.base_offset}", ("base_offset",))

    def stride(self, name: str) -> Diagnosis:
        u, b = self.user, self.best.desc
        old, new = getattr(u, name), getattr(b, name)
        label = name.upper()
        lin = linear(self.spec, self.op, u.swizzle)
        if any(s.field == name for s in self.ua.suspects):
            d = _definition(self.spec, label, self.op, u.swizzle)
            quote = f" ({d.key}: \"{d.text}\")" if d else ""
            text = (f"{label} {old} B: a {self.op.major}-major {u.swizzle} layout does not use "
                    f"{label}{quote}; an H100 gives the same D for any {label}. A K-major "
                    f"swizzled operand takes no step along K (its K extent is one swizzle row), "
                    f"so a stride meant there does nothing. Set {label} to {new} B (the assumed 1)")
            return self.make("EXPLAIN-IGNORED-FIELD", text, (name,), ignored=name)
        if old == 0:
            steps = int((lin.lbo_steps if name == "lbo" else lin.sbo_steps).max())
            text = (f"{label} 0, but this {self.op.mn}x{self.op.k} operand takes {steps} "
                    f"{label} step(s): {_role(self.spec, self.op, u.swizzle, label)}")
            return self.make("EXPLAIN-STRIDE-ZERO", self.with_problem(text) +
                             f". Set {label} to {new} B (a packed tile's)", (name,))
        if "overrun" in self.ua.errors and "overrun" not in self.best.analysis.errors:
            text = (f"{label} {old} B spreads the tile over {self.ua.span_bytes} B")
            return self.make("EXPLAIN-OVERRUN", self.with_problem(text) +
                             f". A packed tile has {label} {new} B ({self.best.analysis.span_bytes}"
                             " B)", (name,))
        text = f"{label} {old} B: {_role(self.spec, self.op, u.swizzle, label)}"
        return self.make("EXPLAIN-STRIDE", self.with_problem(text) +
                         f". A packed tile has {label} {new} B", (name,))

    def all(self) -> list[Diagnosis]:
        ch = self.best.changed
        if "swizzle" in ch:
            return [self.swizzle()]
        out = []
        if "base_offset" in ch:
            out.append(self.base_offset())
        if self.best.swapped:
            out.append(self.swapped())
        else:
            out += [self.stride(n) for n in ("lbo", "sbo") if n in ch]
        return out


def no_fix(spec: Spec, op: Operand, user: Descriptor, ua: Analysis, ctx: Context,
           searched: int, known_ids: Collection[str] = ()) -> Diagnosis:
    text = "; ".join(problems(spec, op, user, ua, ctx))
    code = "EXPLAIN-OVERRUN" if ua.outside and ua.span_bytes > (ctx.smem_bytes or 0) else "EXPLAIN-NO-FIX"
    rows = catalog.rows_for(spec, code, op, user.swizzle)
    ev = catalog.evidence(spec, code, op, user.swizzle, known_ids=known_ids)
    return Diagnosis(code, "error", f"{text}; none of the {searched} descriptors searched reads "
                     "the operand validly", tuple(catalog.spec_ref(spec, r) for r in rows),
                     tuple(ev), {}, None)


__all__ = ["Candidate", "Diagnosis", "Namer", "no_fix", "problems"]
