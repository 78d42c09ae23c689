"""Z3 bit-vector encodings: Swizzle<B,M,S>, layouts walked from the algebra, descriptor fields.

Every encoding lives in the z3.Context of the proof that builds it (one fresh context a proof).
Layout addresses are *bit* addresses (element offset times element width), so one encoding
serves 1-, 8-, 16- and 32-bit elements alike. A layout form is derived from the algebra, never
written by hand: the spec's CuTe text is parsed with its names bound, composed with its swizzle,
converted to bit offsets by `UnitLayout.to_bits` under a named swizzle-unit reading, and its
shape:stride walked leaf by leaf. Symbolic parameters (m, k, LBO, SBO) are recovered by
instantiating the template at neighbouring values: every leaf's shape and stride must be an
affine function of them, which is checked at an independent point. `IntEncoder` writes the
same forms in linear integer arithmetic (no swizzle, no wrap-around) for the injectivity
conditions, where bit-blasted products of symbolic LBO/SBO are too slow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
from ptxconf.oracle.algebra.unit_layout import Unit, UnitLayout
from ptxconf.oracle.proofs.solver import z3
from ptxconf.oracle.records import DescriptorField

#: Width of address bit-vectors: a 32-bit shared-memory byte address space (the descriptor
#: addresses 18 bits of it) and, for layouts, bit addresses of operands far below 2^29 bytes.
ADDRESS_BITS = 32
#: Width of a descriptor.
DESCRIPTOR_BITS = 64
#: The swizzle-unit readings (ptxconf.oracle.hypotheses.SWIZZLE_UNIT) as algebra units.
READING_UNITS = {"bytes": Unit.BYTES, "elements": Unit.ELEMS}
#: Names a canonical-layout template may use; T is bound per element width.
SHAPE_SYMBOLS = ("m", "k")
STRIDE_SYMBOLS = ("LBO", "SBO")
#: An independent point at which every derived affine form is checked against the parser.
_CHECK_POINT = {"m": 3, "k": 5, "LBO": 7, "SBO": 11}

Env = Mapping[str, "z3.BitVecRef | int"]


@dataclass(frozen=True)
class Affine:
    """const + sum(coef * symbol): a leaf's shape or stride as a function of the template names."""

    const: int
    coefs: tuple[tuple[str, int], ...] = ()

    def at(self, env: Mapping[str, int]) -> int:
        """The value for concrete symbols."""
        return self.const + sum(c * env[s] for s, c in self.coefs)

    @property
    def symbols(self) -> frozenset[str]:
        """The names this form depends on."""
        return frozenset(s for s, _ in self.coefs)

    def __str__(self) -> str:
        """E.g. ``2k``, ``SBO``, ``8+LBO``."""
        terms = [f"{'' if c == 1 else c}{s}" for s, c in self.coefs]
        if self.const or not terms:
            terms.insert(0, str(self.const))
        return "+".join(terms)


@dataclass(frozen=True)
class Leaf:
    """One leaf of a layout: its top-level mode, its shape and its stride (bits a unit)."""

    mode: int
    shape: Affine
    stride: Affine


@dataclass(frozen=True)
class BitForm:
    """A (composed) layout in bit offsets, leaves affine in the template's symbols.

    ``swizzle`` acts on bit addresses (already moved to the reading's unit); None for a plain
    layout. ``stride`` symbols count elements (LBO, SBO as the templates write them).
    """

    text: str
    leaves: tuple[Leaf, ...]
    rank: int
    elem_bits: int
    swizzle: Swizzle | None
    reading: str

    def core(self) -> tuple[int, ...]:
        """Indices of the leaves whose stride is a constant."""
        return tuple(i for i, lf in enumerate(self.leaves) if not lf.stride.symbols)

    def repeats(self) -> tuple[int, ...]:
        """Indices of the leaves whose stride depends on LBO or SBO."""
        return tuple(i for i, lf in enumerate(self.leaves) if lf.stride.symbols)

    def symbols(self) -> frozenset[str]:
        """Every template name the form depends on."""
        out: frozenset[str] = frozenset()
        for lf in self.leaves:
            out |= lf.shape.symbols | lf.stride.symbols
        return out

    def shapes_at(self, env: Mapping[str, int]) -> tuple[int, ...]:
        """Concrete leaf shapes."""
        return tuple(lf.shape.at(env) for lf in self.leaves)

    def mode_coords(self, values: tuple[int, ...], env: Mapping[str, int]) -> tuple[int, ...]:
        """Leaf coordinates -> one colexicographic index per top-level mode (e.g. (mn, k))."""
        out = []
        for mode in range(self.rank):
            idx, scale = 0, 1
            for i, lf in enumerate(self.leaves):
                if lf.mode == mode:
                    idx += values[i] * scale
                    scale *= lf.shape.at(env)
            out.append(idx)
        return tuple(out)

    def leaf_coords(self, mode_coords: tuple[int, ...], env: Mapping[str, int]) -> tuple[int, ...]:
        """The inverse of mode_coords."""
        out = [0] * len(self.leaves)
        for mode in range(self.rank):
            rest = mode_coords[mode]
            for i, lf in enumerate(self.leaves):
                if lf.mode == mode:
                    rest, out[i] = divmod(rest, lf.shape.at(env))
        return tuple(out)

    def unswizzled(self) -> BitForm:
        """The same outer layout with no swizzle."""
        return BitForm(self.text, self.leaves, self.rank, self.elem_bits, None, self.reading)


def _walk(layout: Layout) -> tuple[list[tuple[int, int, int]], int]:
    """(mode, shape, stride) for every leaf, and the number of top-level modes."""
    modes = layout.modes() if layout.rank() > 1 else (layout,)
    leaves: list[tuple[int, int, int]] = []
    for i, mode in enumerate(modes):
        leaves.extend((i, s, d) for s, d in zip(flatten(mode.shape), flatten(mode.stride),
                                                 strict=True))
    return leaves, len(modes)


def _to_bits(parsed: object, elem_bits: int, reading: str,
             swizzle: Swizzle | None) -> tuple[Layout, Swizzle | None]:
    """Compose with ``swizzle`` (if any) and convert to bit offsets through the algebra."""
    if isinstance(parsed, ComposedLayout):
        if swizzle is not None:
            raise ValueError(f"{parsed} already carries a swizzle")
        composed: Layout | ComposedLayout = parsed
    elif isinstance(parsed, Layout):
        composed = parsed if swizzle is None else ComposedLayout(swizzle, 0, parsed, False)
    else:
        raise ValueError(f"expected a layout, got {parsed}")
    if isinstance(composed, Layout):
        plain = UnitLayout(composed, Unit.ELEMS, elem_bits).to_bits().layout
        assert isinstance(plain, Layout)
        return plain, None
    if not isinstance(composed.inner, Swizzle) or composed.offset:
        raise ValueError(f"{composed}: only Swizzle o 0 o layout is encoded")
    unit = READING_UNITS[reading]
    conv = UnitLayout(composed, Unit.ELEMS, elem_bits).to_bits(unit).layout
    assert isinstance(conv, ComposedLayout) and isinstance(conv.inner, Swizzle)
    return conv.outer, conv.inner


def bit_form(text: str, elem_bits: int, *, t: int | None = None, swizzle: Swizzle | None = None,
             reading: str = "bytes") -> BitForm:
    """The bit-offset form of a CuTe text: a template (names bound per T) or a concrete layout."""
    names = {"T": t} if t is not None else {}
    names |= {s: (1 if s in SHAPE_SYMBOLS else 0) for s in SHAPE_SYMBOLS + STRIDE_SYMBOLS}

    def leaves_at(env: Mapping[str, int]) -> tuple[list[tuple[int, int, int]], int,
                                                     Swizzle | None]:
        layout, swz = _to_bits(parse(text, {**names, **env}), elem_bits, reading, swizzle)
        walked, rank = _walk(layout)
        return walked, rank, swz

    base, rank, swz = leaves_at({})
    deltas = {}
    for sym in SHAPE_SYMBOLS + STRIDE_SYMBOLS:
        bumped, _, _ = leaves_at({sym: names[sym] + 1})
        if len(bumped) != len(base):
            raise ValueError(f"{text}: the leaf structure changes with {sym}")
        deltas[sym] = [(b[1] - a[1], b[2] - a[2]) for a, b in zip(base, bumped, strict=True)]
    leaves: list[Leaf] = []
    for i, (mode, shape, stride) in enumerate(base):
        s_coefs = tuple((s, deltas[s][i][0]) for s in SHAPE_SYMBOLS + STRIDE_SYMBOLS
                        if deltas[s][i][0])
        d_coefs = tuple((s, deltas[s][i][1]) for s in SHAPE_SYMBOLS + STRIDE_SYMBOLS
                        if deltas[s][i][1])
        s_const = shape - sum(c * names[s] for s, c in s_coefs)
        d_const = stride - sum(c * names[s] for s, c in d_coefs)
        leaves.append(Leaf(mode, Affine(s_const, s_coefs), Affine(d_const, d_coefs)))
    form = BitForm(text, tuple(leaves), rank, elem_bits, swz, reading)
    check, _, _ = leaves_at(_CHECK_POINT)
    env = {**names, **_CHECK_POINT}
    got = [(lf.mode, lf.shape.at(env), lf.stride.at(env)) for lf in form.leaves]
    if got != check:
        raise ValueError(f"{text}: shapes and strides are not affine in {sorted(deltas)}")
    return form


class Encoder:
    """Bit-vector helpers bound to one proof's context."""

    def __init__(self, ctx: z3.Context, width: int = ADDRESS_BITS) -> None:
        """``width``: the default bit-vector width."""
        self.ctx = ctx
        self.width = width

    def var(self, name: str, width: int | None = None) -> z3.BitVecRef:
        """A fresh bit-vector variable."""
        return z3.BitVec(name, width or self.width, self.ctx)

    def val(self, value: int, width: int | None = None) -> z3.BitVecRef:
        """A bit-vector constant."""
        return z3.BitVecVal(value, width or self.width, self.ctx)

    def lift(self, value: z3.BitVecRef | int, width: int | None = None) -> z3.BitVecRef:
        """An int as a constant, a narrower bit-vector zero-extended."""
        w = width or self.width
        if isinstance(value, int):
            return self.val(value, w)
        if value.size() < w:
            return z3.ZeroExt(w - value.size(), value)
        return value

    def true(self) -> z3.BoolRef:
        """The constant True of this context."""
        return z3.BoolVal(True, self.ctx)

    def swizzle(self, x: z3.BitVecRef, bits: int, base: int, shift: int) -> z3.BitVecRef:
        """CuTe's Swizzle<B,M,S>(x) = x ^ shiftr(x & (((1 << B) - 1) << (M + max(0, S))), S), a
        logical shift right by S, left by -S where S < 0 (never a shift by a negative amount,
        which a bit-vector reads as a huge one)."""
        mask = self.val(((1 << bits) - 1) << base, x.size())
        if shift >= 0:
            return x ^ (z3.LShR(x, shift) & mask)
        return x ^ ((x & mask) << -shift)

    def swz(self, x: z3.BitVecRef, s: Swizzle | None) -> z3.BitVecRef:
        """Apply an algebra Swizzle (None: identity)."""
        return x if s is None else self.swizzle(x, s.bits, s.base, s.shift)

    def affine(self, a: Affine, env: Env) -> z3.BitVecRef:
        """An affine form over symbolic (or concrete) names."""
        out = self.val(a.const)
        for sym, coef in a.coefs:
            out = out + self.lift(env[sym]) * coef
        return out

    def coords(self, form: BitForm, prefix: str, env: Env,
               bounds: Mapping[str, int]) -> tuple[list[z3.BitVecRef], list[z3.BoolRef]]:
        """A variable a leaf, as narrow as its largest shape under ``bounds`` (the symbols' maxima),
        and the constraints keeping it inside its shape."""
        cs, dom = [], []
        for i, lf in enumerate(form.leaves):
            top = lf.shape.at({s: bounds[s] for s in lf.shape.symbols})
            c = self.var(f"{prefix}{i}", max(1, (top - 1).bit_length()))
            cs.append(c)
            dom.append(z3.ULT(self.lift(c), self.affine(lf.shape, env)))
        return cs, dom

    def offset(self, form: BitForm, coords: list[z3.BitVecRef], env: Env) -> z3.BitVecRef:
        """sum(coord * stride) in bits; symbolic strides by shift-and-add over the coordinate."""
        total = self.val(0)
        for c, lf in zip(coords, form.leaves, strict=True):
            wide = self.lift(c)
            if not lf.stride.symbols:
                total = total + wide * lf.stride.const
                continue
            stride = self.affine(lf.stride, env)
            for j in range(c.size()):
                bit = z3.Extract(j, j, c) == 1
                total = total + z3.If(bit, stride << j, self.val(0))
        return total

    def address(self, form: BitForm, coords: list[z3.BitVecRef], env: Env,
                start_bits: z3.BitVecRef | int = 0, *, relative: bool = False) -> z3.BitVecRef:
        """The swizzled bit address: swizzle(start + offset), or start + swizzle(offset)."""
        start = self.lift(start_bits)
        off = self.offset(form, coords, env)
        if relative:
            return start + self.swz(off, form.swizzle)
        return self.swz(start + off, form.swizzle)

    def address_at(self, form: BitForm, values: tuple[int, ...], env: Mapping[str, int],
                   start_bits: int = 0, *, relative: bool = False) -> int:
        """The encoding evaluated at concrete coordinates (to check it against the oracle)."""
        coords = [self.val(v, 16) for v in values]
        expr = self.address(form, coords, {s: int(v) for s, v in env.items()}, start_bits,
                            relative=relative)
        address: int = z3.simplify(expr).as_long()
        return address

    def is_pow2_multiple(self, x: z3.BitVecRef, log2: int | z3.BitVecRef) -> z3.BoolRef:
        """x is a multiple of 2**log2."""
        if isinstance(log2, int):
            return x & self.val((1 << log2) - 1, x.size()) == 0
        one = self.val(1, x.size())
        return x & ((one << self.lift(log2, x.size())) - 1) == 0


def pack_field(enc: Encoder, f: DescriptorField, value: z3.BitVecRef) -> z3.BitVecRef:
    """A field as the descriptor stores it: ((value & address mask) >> shift), masked, placed."""
    v = enc.lift(value, DESCRIPTOR_BITS)
    if f.address_bits is not None:
        v = v & enc.val((1 << f.address_bits) - 1, DESCRIPTOR_BITS)
    v = z3.LShR(v, f.encode_shift_bits) & enc.val((1 << f.width_bits) - 1, DESCRIPTOR_BITS)
    return v << f.lsb_bits


def unpack_field(enc: Encoder, f: DescriptorField, desc: z3.BitVecRef) -> z3.BitVecRef:
    """A field read back from a descriptor, in the caller's units."""
    v = z3.LShR(desc, f.lsb_bits) & enc.val((1 << f.width_bits) - 1, DESCRIPTOR_BITS)
    return v << f.encode_shift_bits


class IntEncoder:
    """Linear-integer encodings of a bit form at concrete shapes: the outer layout, no wrap.

    Products of a coordinate with a symbolic stride are written as an If-chain over the
    coordinate's (few) values, so every query stays in linear integer arithmetic, where Z3
    decides layout injectivity in milliseconds (bit-blasted adders take minutes).
    """

    def __init__(self, ctx: z3.Context) -> None:
        """Bind to one proof's context."""
        self.ctx = ctx

    def var(self, name: str) -> z3.ArithRef:
        """A fresh integer variable."""
        return z3.Int(name, self.ctx)

    def val(self, value: int) -> z3.ArithRef:
        """An integer constant."""
        return z3.IntVal(value, self.ctx)

    def affine(self, a: Affine, env: Mapping[str, z3.ArithRef | int]) -> z3.ArithRef:
        """An affine form over integer symbols."""
        out = self.val(a.const)
        for sym, coef in a.coefs:
            out = out + env[sym] * coef
        return out

    def coords(self, form: BitForm, prefix: str,
               shapes: tuple[int, ...]) -> tuple[list[z3.ArithRef], list[z3.BoolRef]]:
        """One integer a leaf, within its concrete shape."""
        cs = [self.var(f"{prefix}{i}") for i in range(len(form.leaves))]
        return cs, [z3.And(c >= 0, c < s) for c, s in zip(cs, shapes, strict=True)]

    def offset(self, form: BitForm, coords: list[z3.ArithRef], shapes: tuple[int, ...],
               env: Mapping[str, z3.ArithRef | int]) -> z3.ArithRef:
        """sum(coord * stride) in bits."""
        total = self.val(0)
        for c, lf, s in zip(coords, form.leaves, shapes, strict=True):
            if not lf.stride.symbols:
                total = total + c * lf.stride.const
                continue
            stride = self.affine(lf.stride, env)
            for v in range(1, s):
                total = total + z3.If(c == v, stride * v, self.val(0))
        return total
