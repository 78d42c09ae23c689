"""Swizzle<B,M,S> of every spec row: bijective, an involution, periodic; and the base repeat.

Swizzles are encoded from the rows' raw B, M, S (not through the algebra's Swizzle, which
rejects overlapping masks), so a broken row is refuted with a counterexample instead of
failing to construct. The address space is the full 32-bit one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias

import z3

from ptxconf.oracle.proofs.encode import ADDRESS_BITS, Encoder
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.records import AtomSelection, BaseOffsetRule, CanonicalLayout, CuteDslExample
from ptxconf.oracle.spec import Spec


@dataclass(frozen=True)
class Raw:
    """A swizzle's B, M, S exactly as a row gives them."""

    bits: int
    base: int
    shift: int

    def __str__(self) -> str:
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"

    def apply(self, enc: Encoder, x: z3.BitVecRef) -> z3.BitVecRef:
        """The bit-vector swizzle."""
        return enc.swizzle(x, self.bits, self.base, self.shift)

    def at(self, x: int) -> int:
        """The swizzle of one int (for messages), as `Encoder.swizzle` (a negative S shifts left)."""
        mask = ((1 << self.bits) - 1) << self.base
        if self.shift < 0:
            return x ^ ((x & mask) << -self.shift)
        return x ^ ((x >> self.shift) & mask)

    @property
    def period_log2(self) -> int:
        """B+M+S: CuTe's period is 2^(B+M+S)."""
        return self.bits + self.base + self.shift


SwizzleRow: TypeAlias = CanonicalLayout | AtomSelection | CuteDslExample


def raw(row: SwizzleRow) -> Raw:
    """The swizzle a row names."""
    return Raw(int(row.swizzle_bits or 0), int(row.swizzle_base or 0), int(row.swizzle_shift or 0))


def swizzle_rows(spec: Spec) -> tuple[SwizzleRow, ...]:
    """Every row that names a swizzle: canonical layouts, CuTeDSL's atom selection, and the
    CuTeDSL worked examples that give B, M, S."""
    examples = tuple(r for r in spec.of(CuteDslExample) if r.swizzle_bits is not None)
    return (*spec.of(CanonicalLayout), *spec.of(AtomSelection), *examples)


def bijective(row: SwizzleRow) -> Claim:
    """x != y => swz(x) != swz(y), and swz(swz(x)) == x, on 32-bit addresses."""
    s = raw(row)

    def body(prover: Prover) -> Proved:
        enc = prover.encoder()
        x, y = enc.var("x"), enc.var("y")
        hit = prover.find(x != y, s.apply(enc, x) == s.apply(enc, y))
        if hit is not None:
            a, b = value(hit, x), value(hit, y)
            raise Refuted(f"{s} is not injective: {a:#x} and {b:#x} both map to {s.at(a):#x}",
                          {"x": hex(a), "y": hex(b), "image": hex(s.at(a))},
                          _repro(s, [a, b]))
        hit = prover.find(s.apply(enc, s.apply(enc, x)) != x)
        if hit is not None:
            a = value(hit, x)
            raise Refuted(f"{s} is not an involution: {a:#x} -> {s.at(a):#x} -> "
                          f"{s.at(s.at(a)):#x}", {"x": hex(a)}, _repro(s, [a, s.at(a)]))
        return Proved(f"{s} is a bijection and an involution of the {ADDRESS_BITS}-bit "
                      f"address space")

    return Claim("swizzle_bijective", row.key,
                 f"{s} is a bijection and an involution on {ADDRESS_BITS}-bit addresses", body)


def period_block(row: SwizzleRow) -> Claim:
    """Each aligned 2^(B+M+S) block maps onto itself, and the swizzle commutes with +period."""
    s = raw(row)

    def body(prover: Prover) -> Proved:
        enc = prover.encoder()
        x = enc.var("x")
        p = s.period_log2
        hit = prover.find(z3.LShR(s.apply(enc, x), p) != z3.LShR(x, p))
        if hit is not None:
            a = value(hit, x)
            raise Refuted(f"{s} moves {a:#x} out of its {1 << p}-block: to {s.at(a):#x}",
                          {"x": hex(a), "image": hex(s.at(a)), "block": 1 << p},
                          _repro(s, [a]))
        shifted = s.apply(enc, x + (1 << p)) != s.apply(enc, x) + (1 << p)
        hit = prover.find(z3.ULT(x, (1 << ADDRESS_BITS) - (1 << p)), shifted)
        if hit is not None:
            a = value(hit, x)
            raise Refuted(f"{s}({a:#x} + {1 << p:#x}) != {s}({a:#x}) + {1 << p:#x}",
                          {"x": hex(a)}, _repro(s, [a, a + (1 << p)]))
        least = _least_period(prover, enc, s)
        stated = getattr(row, "period_units", None)
        if stated is not None and stated != 1 << least:
            raise Refuted(f"{row.id}: period_units={stated}, but the least power-of-two period "
                          f"of {s} is {1 << least} (proved)", {"period_units": stated,
                                                               "least_period": 1 << least})
        smallest = _smallest_block(prover, enc, s)
        return Proved(f"{s} maps every aligned {1 << p}-block (its period 2^(B+M+S)) onto "
                      f"itself and commutes with +{1 << p}; the least power-of-two period is "
                      f"{1 << least}, the smallest block it preserves {1 << smallest}",
                      {"period": 1 << p, "least_period": 1 << least,
                       "smallest_block": 1 << smallest})

    return Claim("swizzle_period_block", row.key,
                 f"{s} maps each aligned period block onto itself", body)


def _least_period(prover: Prover, enc: Encoder, s: Raw) -> int:
    """The least log2 q with swz(x + q) == swz(x) + q for every x."""
    x = enc.var("x")
    for q in range(s.period_log2 + 1):
        if prover.find(s.apply(enc, x + (1 << q)) != s.apply(enc, x) + (1 << q)) is None:
            return q
    return s.period_log2


def _smallest_block(prover: Prover, enc: Encoder, s: Raw) -> int:
    """The least log2 q such that every aligned q-block maps onto itself."""
    x = enc.var("x")
    for q in range(s.period_log2 + 1):
        if prover.find(z3.LShR(s.apply(enc, x), q) != z3.LShR(x, q)) is None:
            return q
    return s.period_log2


def _repro(s: Raw, xs: list[int]) -> str:
    """A pasteable line evaluating the swizzle: through the algebra when it accepts B, M, S."""
    args = "[" + ", ".join(hex(x) for x in xs) + "]"
    if s.shift >= s.bits:
        return (f'python -c "from ptxconf.oracle.algebra import Swizzle; '
                f's = Swizzle({s.bits}, {s.base}, {s.shift}); print([hex(s(x)) for x in {args}])"')
    mask = ((1 << s.bits) - 1) << s.base
    return f'python -c "print([hex(x ^ ((x >> {s.shift}) & {mask:#x})) for x in {args}])"'


def base_alignment(spec: Spec, rule: BaseOffsetRule) -> Claim:
    """Find by proof the repeat R of a swizzle mode and compare it with the row's repeat_bytes.

    R is the least power of two such that swz(base + off) == base + swz(off) for all offsets
    and all bases that are multiples of R (byte addresses: the "bytes" reading); then every base
    that is not a multiple of R breaks the identity for some offset (a quantified query).
    """

    def body(prover: Prover) -> Proved:
        modes = sorted({raw(r) for r in spec.of(CanonicalLayout) if r.swizzle == rule.swizzle},
                       key=str)
        if not modes:
            raise Refuted(f"no canonical layout has swizzle mode {rule.swizzle}", {})
        facts: dict[str, dict[str, object]] = {}
        for s in modes:
            enc = prover.encoder()
            base, off = enc.var("base"), enc.var("off")
            breaks = s.apply(enc, base + off) != base + s.apply(enc, off)
            log2r, below = None, None
            for q in range(ADDRESS_BITS + 1):
                hit = prover.find(enc.is_pow2_multiple(base, q), breaks)
                if hit is None:
                    log2r = q
                    break
                below = (value(hit, base), value(hit, off))
            if log2r is None:
                raise Refuted(f"{s}: no power-of-two base alignment makes it translation-safe",
                              {})
            r = 1 << log2r
            exact = prover.find(z3.URem(base, r) != 0, z3.ForAll([off], z3.Not(breaks)))
            if exact is not None:
                b = value(exact, base)
                raise Refuted(f"{s}: base {b:#x} is not a multiple of {r} yet safe for every "
                              f"offset", {"base": hex(b)})
            facts[str(s)] = {"repeat_bytes": r, "fails_at": _fail_text(s, below)}
            if r != rule.repeat_bytes:
                cex = _mismatch(prover, s, rule.repeat_bytes)
                raise Refuted(f"{rule.id}: {s} on byte addresses repeats every {r} B "
                              f"(proved least; {facts[str(s)]['fails_at']}), the table says "
                              f"{rule.repeat_bytes} B{cex[0]}", cex[1],
                              _shift_repro(s, cex[1].get("base"), cex[1].get("offset"), below),
                              derived_repeat_bytes=r)
        first = facts[str(modes[0])]
        return Proved(f"{rule.swizzle}: swizzle(base + off) == base + swizzle(off) for every "
                      f"offset iff base is a multiple of {first['repeat_bytes']} B (least power of "
                      f"two, proved both ways; {first['fails_at']}) = repeat_bytes", facts)

    return Claim("base_alignment", rule.key,
                 f"the {rule.swizzle} swizzle is translation-safe exactly for bases that are "
                 f"multiples of repeat_bytes={rule.repeat_bytes} (bytes reading)", body)


def _shift_repro(s: Raw, base: object, offset: object,
                 below: tuple[int, int] | None) -> str:
    """A line printing swizzle(base + offset) and base + swizzle(offset)."""
    if isinstance(base, str) and isinstance(offset, str):
        b, o = int(base, 16), int(offset, 16)
    elif below is not None:
        b, o = below
    else:
        return ""
    mask = ((1 << s.bits) - 1) << s.base
    f = f"(lambda x: x ^ ((x >> {s.shift}) & {mask:#x}))"
    return f'python -c "s = {f}; b, o = {b:#x}, {o:#x}; print(hex(s(b + o)), hex(b + s(o)))"'


def _fail_text(s: Raw, below: tuple[int, int] | None) -> str:
    if below is None:
        return "every base works"
    b, o = below
    return (f"for a base of half that, {b:#x} + {o:#x}: swizzle gives {s.at(b + o):#x}, "
            f"base + swizzle(off) {b + s.at(o):#x}")


def _mismatch(prover: Prover, s: Raw, documented: int) -> tuple[str, dict[str, object]]:
    """A base that is a multiple of the documented repeat yet breaks the identity, if any."""
    enc = prover.encoder()
    base, off = enc.var("base"), enc.var("off")
    if documented <= 0 or documented & (documented - 1):
        return " (not a power of two)", {"repeat_bytes": documented}
    hit = prover.find(enc.is_pow2_multiple(base, documented.bit_length() - 1),
                      s.apply(enc, base + off) != base + s.apply(enc, off))
    if hit is None:
        return " (safe, but not the least)", {"repeat_bytes": documented}
    b, o = value(hit, base), value(hit, off)
    return (f": base {b:#x} (a multiple of {documented}) + offset {o:#x} gives {s.at(b + o):#x}, "
            f"not {b + s.at(o):#x}", {"base": hex(b), "offset": hex(o),
                                      "swizzled": hex(s.at(b + o)), "expected": hex(b + s.at(o))})


def claims(spec: Spec) -> Iterator[Claim]:
    """Bijectivity and period blocks of every swizzle row; the repeat of every base-offset row."""
    for row in swizzle_rows(spec):
        yield bijective(row)
        yield period_block(row)
    for rule in spec.of(BaseOffsetRule):
        yield base_alignment(spec, rule)
