"""Instruction variants: the records a probe kernel is generated from.

A `WgmmaVariant` names one `wgmma.mma_async` instruction (shape, types, A in registers or in
shared memory, the transpose immediates, `.satfinite`). A `WmmaVariant` names one wmma
load or store probe. Facts about element widths, thread counts, register width, M and which
types spell imm-scale/imm-trans come from the spec through `ptxconf.oracle.facts`, gathered
once per spec into an `IsaFacts` that every variant carries (`isa_facts(spec)`): the spec is
passed in, never read behind the caller's back. What lives here is PTX *syntax* only: which
operands an instruction form spells out, so that the host can write its operand list.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ptxconf.oracle import facts, records
from ptxconf.oracle.spec import Spec

# PTX syntax of wgmma.mma_async: the bit-op suffix of the single-bit form (PTX ISA 9.7.15.5.2).
_B1_SUFFIX = ".and.popc"

_WGMMA_NAME = re.compile(
    r"^wgmma\.mma_async\.sync\.aligned"
    r"\.m(?P<m>\d+)n(?P<n>\d+)k(?P<k>\d+)"
    r"\.(?P<dtype>\w+?)\.(?P<atype>\w+?)\.(?P<btype>\w+?)"
    r"(?P<satfinite>\.satfinite)?(?P<b1op>\.and\.popc)?$"
)


@dataclass(frozen=True)
class IsaFacts:
    """What spelling and launching a probe needs from the spec (`ptxconf.oracle.facts`).

    Small and picklable: it travels with every variant into the probe worker.
    """

    element_bits: tuple[tuple[str, int], ...]
    scale_types: frozenset[str]
    trans_types: frozenset[str]
    warpgroup_threads: int
    warp_threads: int
    register_bits: int
    wgmma_m: int

    def bits(self, dtype: str) -> int:
        """Width in bits of an element type (KeyError if the spec has no such type)."""
        return self.widths[dtype]

    @functools.cached_property
    def widths(self) -> Mapping[str, int]:
        """Element type -> width in bits."""
        return dict(self.element_bits)


def isa_facts(spec: Spec) -> IsaFacts:
    """The facts of a spec that variants need, each from `ptxconf.oracle.facts` (made once a
    spec: every variant parsed from a name asks)."""
    return spec.memo(("variants.isa_facts",), lambda: _isa_facts(spec))


def _isa_facts(spec: Spec) -> IsaFacts:
    types = facts.element_types(spec)
    return IsaFacts(
        element_bits=tuple((t, spec.element_bits(t)) for t in types),
        scale_types=frozenset(t for t in types if facts.takes_imm_scale(spec, t)),
        trans_types=frozenset(t for t in types if facts.takes_imm_trans(spec, t)),
        warpgroup_threads=facts.warpgroup_threads(spec),
        warp_threads=facts.warp_threads(spec),
        register_bits=facts.register_bits(spec),
        wgmma_m=facts.wgmma_m(spec))


def instruction_types(spec: Spec) -> tuple[records.InstructionType, ...]:
    """The dense wgmma type combinations (spec/wgmma/instruction_types.yaml)."""
    return spec.of(records.InstructionType)


def wmma_shapes(spec: Spec) -> tuple[records.WmmaDefaultStride, ...]:
    """The wmma shapes of the default-stride table (spec/wmma/default_strides.yaml)."""
    return spec.of(records.WmmaDefaultStride)


def _registers(rows: int, cols: int, bits: int, threads: int, register_bits: int) -> int:
    """Registers per thread holding a rows x cols matrix of `bits`-wide elements."""
    total_bits = rows * cols * bits
    return -(-total_bits // (threads * register_bits))


@dataclass(frozen=True, kw_only=True)
class WgmmaVariant:
    """One wgmma.mma_async instruction form, as a probe kernel issues it.

    `isa`: the spec's facts (`isa_facts(spec)`); `m` 0 means the spec's wgmma M.
    """

    m: int = 0
    n: int
    k: int
    dtype: str
    atype: str
    btype: str
    a_from_regs: bool = False
    trans_a: int = 0
    trans_b: int = 0
    satfinite: bool = False
    isa: IsaFacts | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.isa is None:
            raise ValueError("a wgmma variant needs the spec's facts: isa=isa_facts(spec)")
        if self.m == 0:
            object.__setattr__(self, "m", self.facts.wgmma_m)
        for name in ("dtype", "atype", "btype"):
            if getattr(self, name) not in self.facts.widths:
                raise ValueError(f"{name}={getattr(self, name)!r}: not a type in element_types")
        for name in ("trans_a", "trans_b"):
            if getattr(self, name) not in (0, 1):
                raise ValueError(f"{name}={getattr(self, name)!r}: expected 0 or 1")
        if (self.trans_a or self.trans_b) and not self.takes_trans:
            raise ValueError(f"{self.ptx_name}: .{self.atype} spells no imm-trans operands")
        if self.a_from_regs and self.trans_a:
            raise ValueError(f"{self.ptx_name}: A from registers spells no imm-trans-a")
        if self.m <= 0 or self.n <= 0 or self.k <= 0:
            raise ValueError(f"m, n, k must be positive, got {self.m}, {self.n}, {self.k}")

    @property
    def facts(self) -> IsaFacts:
        """The spec's facts this variant was built with."""
        assert self.isa is not None  # set in __post_init__
        return self.isa

    @property
    def ptx_name(self) -> str:
        """The instruction with its modifiers, as written in PTX."""
        name = (f"wgmma.mma_async.sync.aligned.m{self.m}n{self.n}k{self.k}"
                f".{self.dtype}.{self.atype}.{self.btype}")
        if self.satfinite:
            name += ".satfinite"
        if self.atype == "b1":
            name += _B1_SUFFIX
        return name

    @property
    def takes_trans(self) -> bool:
        """Whether this type spells imm-trans-a/b (MN-major operands possible)."""
        return self.atype in self.facts.trans_types

    @property
    def takes_scale(self) -> bool:
        """Whether this type spells imm-scale-a/b."""
        return self.atype in self.facts.scale_types

    @property
    def form(self) -> str:
        """'rs' when A comes from registers, 'ss' when both operands are in shared memory."""
        return "rs" if self.a_from_regs else "ss"

    def _registers(self, rows: int, cols: int, dtype: str) -> int:
        f = self.facts
        return _registers(rows, cols, f.bits(dtype), f.warpgroup_threads, f.register_bits)

    @property
    def nreg_d(self) -> int:
        """Accumulator registers per thread."""
        return self._registers(self.m, self.n, self.dtype)

    @property
    def nreg_a(self) -> int:
        """A registers per thread (0 when A is in shared memory)."""
        return self._registers(self.m, self.k, self.atype) if self.a_from_regs else 0

    @property
    def kernel_name(self) -> str:
        """A C identifier naming this variant's probe kernel."""
        name = f"wgmma_m{self.m}n{self.n}k{self.k}_{self.dtype}_{self.atype}_{self.btype}"
        name += f"_{self.form}"
        if self.takes_trans:
            name += f"_t{self.trans_a}{self.trans_b}"
        if self.satfinite:
            name += "_satfinite"
        return name

    @property
    def family(self) -> tuple[str, str, str, str, bool]:
        """What the valid-N set may depend on: (dtype, atype, btype, form, satfinite)."""
        return (self.dtype, self.atype, self.btype, self.form, self.satfinite)

    def with_n(self, n: int) -> WgmmaVariant:
        """The same instruction form with another N: `replace(self, n=n)`, with only the check
        N takes (every other field passed __post_init__ already) and no other work (a witness
        sweep makes some 10,000; replace took four times as long)."""
        if n <= 0:
            raise ValueError(f"m, n, k must be positive, got {self.m}, {n}, {self.k}")
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        object.__setattr__(other, "n", n)
        return other

    def operand_text(self, d: list[str], a: str | list[str], b_desc: str, scale_d: str) -> str:
        """The operand list after the instruction name, given the operands' PTX spellings.

        `a` is the A descriptor (SS form) or the A registers (RS form); imm-scale-a/b are 1.
        """
        parts = ["{" + ", ".join(d) + "}"]
        parts.append("{" + ", ".join(a) + "}" if isinstance(a, list) else a)
        parts += [b_desc, scale_d]
        if self.takes_scale:
            parts += ["1", "1"]
        if self.takes_trans:
            if not self.a_from_regs:
                parts.append(str(self.trans_a))
            parts.append(str(self.trans_b))
        return ", ".join(parts)


def parse_wgmma(spec: Spec, name: str, *, a_from_regs: bool = False, trans_a: int = 0,
                trans_b: int = 0) -> WgmmaVariant:
    """The variant a PTX instruction name spells, with the spec's facts.

    E.g. `wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16`. The operand form (A from
    registers) and the transpose immediates are not part of the name.
    """
    match = _WGMMA_NAME.match(name.strip())
    if match is None:
        raise ValueError(f"not a dense wgmma.mma_async instruction name: {name!r}")
    atype = match["atype"]
    if (atype == "b1") != (match["b1op"] is not None):
        raise ValueError(f"{name!r}: the {_B1_SUFFIX} suffix goes with .b1 operands only")
    variant = WgmmaVariant(
        m=int(match["m"]), n=int(match["n"]), k=int(match["k"]), dtype=match["dtype"],
        atype=atype, btype=match["btype"], a_from_regs=a_from_regs, trans_a=trans_a,
        trans_b=trans_b, satfinite=match["satfinite"] is not None, isa=isa_facts(spec))
    if variant.ptx_name != name.strip():
        raise ValueError(f"{name!r} does not round-trip (got {variant.ptx_name!r})")
    return variant


def wgmma_families(spec: Spec, n: int = 8, *, all_trans: bool = True) -> list[WgmmaVariant]:
    """Every instruction form of the spec's type table at one N.

    Per spec row: SS and RS forms; with and without .satfinite where the row has it; every
    imm-trans combination where the type spells them (only the first when `all_trans` is off).
    """
    isa = isa_facts(spec)
    out: list[WgmmaVariant] = []
    for row in instruction_types(spec):
        base = WgmmaVariant(n=n, k=row.k_elems, dtype=row.dtype, atype=row.atype,
                            btype=row.btype, isa=isa)
        sat_options = (False, True) if row.satfinite else (False,)
        for a_from_regs in (False, True):
            for sat in sat_options:
                v = replace(base, a_from_regs=a_from_regs, satfinite=sat)
                if not v.takes_trans or not all_trans:
                    out.append(v)
                    continue
                for ta in ((0,) if a_from_regs else (0, 1)):
                    for tb in (0, 1):
                        out.append(replace(v, trans_a=ta, trans_b=tb))
    return out


# --- wmma ----------------------------------------------------------------------------------

# Operand types of each wmma shape beyond what the default-stride table's `types` column lists:
# the CUDA C++ wmma API (mma.h) offers these element types on the f16 shapes too.
_WMMA_EXTRA_TYPES_BY_K16 = ("bf16", "s8", "u8")
# Accumulator types per operand type (CUDA C++ wmma API).
_WMMA_ACCUMULATORS = {
    "f16": ("f16", "f32"), "bf16": ("f32",), "s8": ("s32",), "u8": ("s32",),
    "tf32": ("f32",), "f64": ("f64",), "s4": ("s32",), "u4": ("s32",), "b1": ("s32",),
}
# Sub-byte operands come only as row-major A and column-major B (CUDA C++ wmma API).
_WMMA_SUBBYTE = frozenset({"s4", "u4", "b1"})


@dataclass(frozen=True, kw_only=True)
class WmmaVariant:
    """One wmma probe: load a fragment (op='load') or store an accumulator (op='store').

    matrix: 'a', 'b' or 'c' (accumulator); dtype: the fragment's element type. layout:
    'row'/'col' for a and b (compile-time in wmma); None for the accumulator, whose memory
    layout is a run-time argument. isa: the spec's facts (`isa_facts(spec)`; see WgmmaVariant).
    """

    op: str
    matrix: str
    m: int
    n: int
    k: int
    dtype: str
    layout: str | None = None
    isa: IsaFacts | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.isa is None:
            raise ValueError("a wmma variant needs the spec's facts: isa=isa_facts(spec)")
        if self.op not in ("load", "store"):
            raise ValueError(f"op={self.op!r}: expected 'load' or 'store'")
        if self.matrix not in ("a", "b", "c"):
            raise ValueError(f"matrix={self.matrix!r}: expected 'a', 'b' or 'c'")
        if self.op == "store" and self.matrix != "c":
            raise ValueError("wmma stores the accumulator only")
        if (self.matrix == "c") != (self.layout is None):
            raise ValueError("layout is 'row'/'col' for a and b, None for the accumulator")
        if self.layout not in (None, "row", "col"):
            raise ValueError(f"layout={self.layout!r}: expected 'row' or 'col'")
        if self.dtype not in self.facts.widths:
            raise ValueError(f"dtype={self.dtype!r}: not a type in element_types")

    @property
    def facts(self) -> IsaFacts:
        """The spec's facts this probe was built with."""
        assert self.isa is not None  # set in __post_init__
        return self.isa

    @property
    def shape(self) -> str:
        """m16n16k16 and so on."""
        return f"m{self.m}n{self.n}k{self.k}"

    @property
    def kernel_name(self) -> str:
        """A C identifier naming this probe kernel."""
        name = f"wmma_{self.op}_{self.matrix}_{self.shape}_{self.dtype}"
        return name + (f"_{self.layout}" if self.layout else "")


def wmma_probe_variants(spec: Spec) -> list[WmmaVariant]:
    """Every load/store probe over the shapes of the spec's wmma default-stride table."""
    isa = isa_facts(spec)
    out: list[WmmaVariant] = []
    seen: set[WmmaVariant] = set()

    def add(v: WmmaVariant) -> None:
        if v not in seen:
            seen.add(v)
            out.append(v)

    for row in wmma_shapes(spec):
        m, n, k = row.m_elems, row.n_elems, row.k_elems
        types = list(row.types)
        if "f16" in types:
            types += list(_WMMA_EXTRA_TYPES_BY_K16)
        for t in types:
            for matrix in ("a", "b"):
                layouts: tuple[str, ...] = ("row", "col")
                if t in _WMMA_SUBBYTE:
                    layouts = ("row",) if matrix == "a" else ("col",)
                for layout in layouts:
                    add(WmmaVariant(op="load", matrix=matrix, m=m, n=n, k=k, dtype=t,
                                    layout=layout, isa=isa))
            for acc in _WMMA_ACCUMULATORS[t]:
                add(WmmaVariant(op="load", matrix="c", m=m, n=n, k=k, dtype=acc, isa=isa))
                add(WmmaVariant(op="store", matrix="c", m=m, n=n, k=k, dtype=acc, isa=isa))
    return out
