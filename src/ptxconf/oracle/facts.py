"""Hardware facts the code needs, each read from a spec row (or derived from rows), never typed in.

One accessor per fact; every caller asks here, so a fact has one home and `--spec-dir` governs
it. Where a fact is derived, the docstring names the rows it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxconf.oracle import records
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.lint.derived import register_widths_bits
from ptxconf.oracle.spec import Spec

#: The SM90 accumulator atom (cute/mma_atoms): the 64x8 CLayout every M x N accumulator repeats.
D_ATOM_ROW = "SM90_64x8.CLayout"


def clayout(spec: Spec, row_id: str) -> tuple[records.CuteLayout, Layout]:
    """A CLayout row and its parsed (thread, value) layout (parsed once a spec)."""
    def make() -> tuple[records.CuteLayout, Layout]:
        row = spec.get(records.CuteLayout, row_id)
        layout = parse(row.layout)
        if not isinstance(layout, Layout) or layout.rank() != 2:
            raise ValueError(f"{row.key}: {row.layout!r} is not a rank-2 (thread, value) layout")
        return row, layout

    return spec.memo(("facts.clayout", row_id), make)


def warpgroup_threads(spec: Spec) -> int:
    """Threads of a warpgroup: the size of the SM90 CLayout's thread mode (cute/mma_atoms)."""
    return clayout(spec, D_ATOM_ROW)[1][0].size()


def warp_threads(spec: Spec) -> int:
    """Threads of a warp: a warpgroup's threads (cute/mma_atoms) over its warps
    (cute/thread_groups:warpgroup, "128 threads (4 warps)")."""
    threads, warps = warpgroup_threads(spec), warps_per_warpgroup(spec)
    if threads % warps:
        raise ValueError(f"a warpgroup of {threads} threads does not split into {warps} warps")
    return threads // warps


def warps_per_warpgroup(spec: Spec) -> int:
    """Warps of a warpgroup (cute/thread_groups.yaml, row warpgroup: "128 threads (4 warps)")."""
    row = spec.get(records.ThreadGroup, "warpgroup")
    if row.part != "warp" or row.parts is None:
        raise ValueError(f"{row.key}: expected the warpgroup as a number of warps")
    return row.parts


def register_bits(spec: Spec) -> int:
    """Width of one register of a fragment, in bits (elements per register x element width,
    from wgmma/register_fragments.yaml; every row must agree: SPEC-FACT, lint/derived.py)."""
    bits = {r.id: r.width_bits for r in spec.of(records.ElementType)}
    widths = {w for _, _, w in register_widths_bits(spec.of(records.RegisterFragment), bits)}
    if len(widths) != 1:
        raise ValueError(f"register-fragment rows imply register widths {sorted(widths)}")
    return widths.pop()


def wgmma_m(spec: Spec) -> int:
    """wgmma's M: the rows of the SM90 CLayout's codomain (cute/mma_atoms)."""
    return spec.get(records.CuteLayout, D_ATOM_ROW).codomain_mn[0]


def swizzle_modes(spec: Spec) -> tuple[str, ...]:
    """The swizzle modes, in the order of the canonical-layout table (wgmma/canonical_layouts)."""
    return tuple(dict.fromkeys(r.swizzle for r in spec.of(records.CanonicalLayout)))


def element_types(spec: Spec) -> tuple[str, ...]:
    """Every element type of wgmma/element_types.yaml."""
    return tuple(r.id for r in spec.of(records.ElementType))


@dataclass(frozen=True)
class FloatFormat:
    """A float element's encoding: exponent and mantissa widths, and whether the all-ones
    exponent still encodes finite numbers (OCP E4M3)."""

    exponent_bits: int
    mantissa_bits: int
    finite_only: bool = False


def float_format(spec: Spec, dtype: str) -> FloatFormat:
    """The encoding of a float element type: the row's exponent_bits, mantissa_bits and
    finite_only columns (wgmma/element_types.yaml; sources in its source.columns)."""
    row = spec.get(records.ElementType, dtype)
    if row.kind != "float":
        raise ValueError(f"{dtype} is a {row.kind} type, not a float")
    if row.exponent_bits is None or row.mantissa_bits is None:
        raise ValueError(f"{row.key}: a float type without exponent_bits / mantissa_bits")
    return FloatFormat(row.exponent_bits, row.mantissa_bits, bool(row.finite_only))


def _immediate_types(spec: Spec, row_id: str) -> tuple[str, ...]:
    return spec.get(records.InstructionOperand, row_id).types


def takes_imm_trans(spec: Spec, atype: str) -> bool:
    """Whether wgmma spells imm-trans-a/b for this operand type (MN-major operands possible):
    wgmma/instruction_operands.yaml, row imm-trans-a."""
    return atype in _immediate_types(spec, "imm-trans-a")


def takes_imm_scale(spec: Spec, atype: str) -> bool:
    """Whether wgmma spells imm-scale-a/b for this operand type:
    wgmma/instruction_operands.yaml, row imm-scale-a."""
    return atype in _immediate_types(spec, "imm-scale-a")


__all__ = ["FloatFormat", "element_types", "float_format", "register_bits", "swizzle_modes",
           "takes_imm_scale", "takes_imm_trans", "warp_threads", "warpgroup_threads",
           "warps_per_warpgroup", "wgmma_m"]


def cute_letter_major(spec: Spec, operand: str, letter: str) -> str:
    """The major-ness a CUTLASS atom-name letter ("N"/"T") means for operand A or B (the
    cute-name rows of cute/major_conventions); a letter the document does not define is the
    other major-ness of the one it does. ValueError when the spec has no row for the operand."""
    rows = [r for r in spec.of(records.MajorConvention)
            if r.convention == "cute-name" and r.operand == operand]
    for r in rows:
        if r.spelled == letter:
            return r.major
    for r in rows:
        return "K" if r.major == "MN" else "MN"
    raise ValueError(f"no cute-name convention row for operand {operand}")
