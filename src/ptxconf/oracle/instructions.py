"""wgmma instruction names: parsed, checked against the spec's instruction-type and
register-fragment rows, and the valid N of each type.

A name is `wgmma.mma_async.sync.aligned.m<M>n<N>k<K>[.satfinite].<dtype>.<atype>.<btype>`
(PTX ISA 9.7.15.5.2); its type row is `k<K>.<dtype>.<atype>.<btype>` of
spec/wgmma/instruction_types.yaml, its fragment rows those that row names, and its valid N those
of spec/wgmma/register_fragments.yaml. M is the CLayout's (facts.wgmma_m).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ptxconf.oracle import facts
from ptxconf.oracle.lint.derived import valid_n_sources
from ptxconf.oracle.records import InstructionType, RegisterFragment
from ptxconf.oracle.spec import Spec, default_spec

#: The single-bit form's operation suffix (the only one wgmma has).
B1_OP = "and.popc"


@dataclass(frozen=True)
class WgmmaInstr:
    """A parsed `wgmma.mma_async.sync.aligned...` name (syntax only, not yet checked)."""

    name: str
    m: int
    n: int
    k: int
    dtype: str
    atype: str
    btype: str
    satfinite: bool
    bitop: str | None

    @property
    def type_id(self) -> str:
        """The instruction-type row id this name asks for: k<K>.<dtype>.<atype>.<btype>."""
        return f"k{self.k}.{self.dtype}.{self.atype}.{self.btype}"


_NAME = re.compile(
    r"wgmma\.mma_async\.sync\.aligned"
    r"\.m(?P<m>[1-9][0-9]*)n(?P<n>[1-9][0-9]*)k(?P<k>[1-9][0-9]*)"
    r"(?P<sat_early>\.satfinite)?"
    r"\.(?P<dtype>[a-z][a-z0-9]*)\.(?P<atype>[a-z][a-z0-9]*)\.(?P<btype>[a-z][a-z0-9]*)"
    r"(?P<sat_late>\.satfinite)?(?P<bitop>\.and\.popc)?"
)
_FORM = ("wgmma.mma_async.sync.aligned.m64n<N>k<K>[.satfinite].<dtype>.<atype>.<btype>"
         "[.satfinite] (b1: ...s32.b1.b1.and.popc)")


def parse_instr(name: str) -> WgmmaInstr:
    """Split an instruction name into its fields; ValueError (one line) if it is malformed.

    `.satfinite` is accepted after the shape (the PTX ISA's syntax block) or after the types
    (the PTX ISA's own example and CUTLASS), since the document uses both.
    """
    text = name.strip()
    m = _NAME.fullmatch(text)
    if m is None:
        raise ValueError(f"malformed wgmma instruction {name!r}: expected {_FORM}")
    if m["sat_early"] and m["sat_late"]:
        raise ValueError(f"{name}: .satfinite given twice")
    return WgmmaInstr(name=text, m=int(m["m"]), n=int(m["n"]), k=int(m["k"]), dtype=m["dtype"],
                      atype=m["atype"], btype=m["btype"],
                      satfinite=bool(m["sat_early"] or m["sat_late"]),
                      bitop=B1_OP if m["bitop"] else None)


def instruction_name(itype: InstructionType, n: int, spec: Spec | None = None,
                     satfinite: bool = False) -> str:
    """The PTX name of an instruction-type row at N (`.satfinite` after the types, as CUTLASS)."""
    m = facts.wgmma_m(spec or default_spec())
    name = (f"wgmma.mma_async.sync.aligned.m{m}n{n}k{itype.k_elems}"
            f".{itype.dtype}.{itype.atype}.{itype.btype}")
    if satfinite:
        name += ".satfinite"
    if itype.atype == "b1":
        name += f".{B1_OP}"
    return name


@dataclass(frozen=True)
class ResolvedInstr:
    """An instruction name checked against the spec: its type row, fragment rows and valid N."""

    instr: WgmmaInstr
    itype: InstructionType
    frag_a: RegisterFragment
    frag_d: RegisterFragment
    valid_n: tuple[int, ...]
    valid_n_from: str


def resolve(name: str, spec: Spec | None = None) -> ResolvedInstr:
    """Parse `name` and look up its spec rows; ValueError (one line) for any unknown part."""
    spec = spec or default_spec()
    ins = parse_instr(name)
    m_rows = facts.wgmma_m(spec)
    if ins.m != m_rows:
        raise ValueError(f"{ins.name}: wgmma has M={m_rows}, got m{ins.m}")
    itype = _instruction_type(spec, ins)
    if ins.atype == "b1" and ins.bitop is None:
        raise ValueError(f"{ins.name}: the b1 form ends in .{B1_OP}")
    if ins.atype != "b1" and ins.bitop is not None:
        raise ValueError(f"{ins.name}: .{B1_OP} belongs to the b1 form only")
    if ins.satfinite and not itype.satfinite:
        raise ValueError(f"{ins.name}: .satfinite does not exist for {itype.id}")
    frag_a = spec.get(RegisterFragment, itype.fragment_a)
    frag_d = spec.get(RegisterFragment, itype.fragment_d)
    valid_n, valid_from = valid_n_for(spec, itype)
    if ins.n not in valid_n:
        raise ValueError(f"{ins.name}: N={ins.n} is not a valid N for {itype.id} "
                         f"(valid: {n_ranges(valid_n)}, from {valid_from})")
    return ResolvedInstr(ins, itype, frag_a, frag_d, valid_n, valid_from)


def _instruction_type(spec: Spec, ins: WgmmaInstr) -> InstructionType:
    """The instruction-type row of a name, with a message that says what is allowed instead."""
    rows = spec.of(InstructionType)
    for row in rows:
        if (row.k_elems, row.dtype, row.atype, row.btype) == (ins.k, ins.dtype, ins.atype,
                                                              ins.btype):
            return row
    same_ab = [r for r in rows if (r.atype, r.btype) == (ins.atype, ins.btype)]
    if not same_ab:
        raise ValueError(f"{ins.name}: no wgmma type combination .{ins.atype}.{ins.btype}")
    ks = sorted({r.k_elems for r in same_ab})
    if ins.k not in ks:
        raise ValueError(f"{ins.name}: .{ins.atype}.{ins.btype} runs at k{'/k'.join(map(str, ks))}"
                         f", not k{ins.k}")
    dtypes = sorted({r.dtype for r in same_ab if r.k_elems == ins.k})
    raise ValueError(f"{ins.name}: .{ins.atype}.{ins.btype} accumulates in "
                     f"{'/'.join('.' + d for d in dtypes)}, not .{ins.dtype}")


def valid_n_for(spec: Spec, itype: InstructionType) -> tuple[tuple[int, ...], str]:
    """The valid N of an instruction type and the row they come from.

    Where its accumulator row states none (k32.D.f16: the table's valid-N cell sits in the f32
    row), the N of the sibling rows with the same K, A and B types and another accumulator
    (`lint.derived.valid_n_sources`; SPEC-FACT refuses a spec where there are none).
    """
    frag = spec.get(RegisterFragment, itype.fragment_d)
    frags = {f.id: f for f in spec.of(RegisterFragment)}
    sources = valid_n_sources(itype, spec.of(InstructionType), frags)
    if not sources:
        raise ValueError(f"{itype.id}: no register-fragment row states a valid N")
    values = tuple(sorted({n for s in sources for n in s.valid_n_values() or ()}))
    if sources == (frag,):
        return values, frag.key
    return values, f"{frag.key} states none; taken from {', '.join(s.id for s in sources)}"


def n_ranges(ns: Iterable[int]) -> str:
    """A sorted N set summarized as runs: "8..32 step 8, 48..256 step 16" ("none" if empty)."""
    ns = sorted(ns)
    if not ns:
        return "none"
    parts, i = [], 0
    while i < len(ns):
        j = i
        if i + 1 < len(ns):
            step = ns[i + 1] - ns[i]
            while j + 1 < len(ns) and ns[j + 1] - ns[j] == step:
                j += 1
        if j - i >= 2:
            parts.append(f"{ns[i]}..{ns[j]} step {ns[i + 1] - ns[i]}")
            i = j + 1
        else:
            parts.append(str(ns[i]))
            i += 1
    return ", ".join(parts)
