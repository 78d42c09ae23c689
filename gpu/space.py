"""The variant space: every instruction form the spec allows, enumerated from the spec alone.

* wgmma: every dense type row (spec/wgmma/instruction_types.yaml) x every N its register
  fragment row allows (`valid_n_for`) x `.satfinite` where the row has it x A from shared
  memory (SS) or registers (RS) x every imm-trans combination where the type spells them.
* wmma: every load/store probe of the default-stride table's shapes (`wmma_probe_variants`),
  from global and from shared memory.

`counts(spec)` is what `ptxconf plan` prints. Pure: no CuPy, no device.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ptxconf.oracle.fragments import valid_n_for
from ptxconf.oracle.spec import Spec

from .variants import WgmmaVariant, WmmaVariant, instruction_types, wgmma_families, wmma_probe_variants

#: Where a wmma probe's matrix lives.
WMMA_MEMORIES = ("global", "shared")
#: Instruction variants per compiled module: NVRTC's fixed cost (about 65 ms) is paid per
#: module; 32 kernels of mixed sizes compile in a few seconds on one core, and the modules
#: spread over every core.
KERNELS_PER_MODULE = 32


def wgmma_variants(spec: Spec) -> tuple[WgmmaVariant, ...]:
    """Every valid wgmma instruction variant, by type row, then N, then form."""
    out: list[WgmmaVariant] = []
    for row in instruction_types(spec):
        ns, _ = valid_n_for(spec, row)
        forms = [f for f in wgmma_families(spec)
                 if (f.k, f.dtype, f.atype, f.btype) == (row.k_elems, row.dtype, row.atype,
                                                          row.btype)]
        out += [replace(f, n=n) for n in ns for f in forms]
    return tuple(out)


def operand_majors(v: WgmmaVariant) -> tuple[str | None, str]:
    """(A, B) major-ness the variant's transpose immediates give (A None: in registers)."""
    a = None if v.a_from_regs else ("MN" if v.trans_a else "K")
    return a, "MN" if v.trans_b else "K"


def compile_weight(v: WgmmaVariant) -> int:
    """A kernel's relative compile cost: its accumulator and A registers (ptxas's time grows
    with them; an N=256 f32 kernel takes the longest)."""
    return v.nreg_d + v.nreg_a


def modules(variants: tuple[WgmmaVariant, ...], per: int = KERNELS_PER_MODULE
            ) -> list[tuple[WgmmaVariant, ...]]:
    """The variants cut into as few modules of at most `per` kernels as hold them, balanced
    by compile cost (heaviest first, each to the lightest module with room), so that the
    modules compile in about the same time in parallel; each module in space order."""
    count = -(-len(variants) // per)
    load = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    order = sorted(range(len(variants)), key=lambda i: -compile_weight(variants[i]))
    for i in order:
        m = min((j for j in range(count) if len(members[j]) < per), key=lambda j: load[j])
        members[m].append(i)
        load[m] += compile_weight(variants[i])
    return [tuple(variants[i] for i in sorted(ms)) for ms in members]


@dataclass(frozen=True)
class WmmaProbe:
    """One wmma probe and where its matrix lives."""

    variant: WmmaVariant
    memory: str


def wmma_probes(spec: Spec) -> tuple[WmmaProbe, ...]:
    """Every wmma load/store probe, from global and from shared memory."""
    return tuple(WmmaProbe(v, mem) for v in wmma_probe_variants(spec) for mem in WMMA_MEMORIES)


def counts(spec: Spec) -> dict[str, int]:
    """How many variants the space holds, by kind."""
    wg = wgmma_variants(spec)
    wm = wmma_probe_variants(spec)
    return {"wgmma variants": len(wg), "wgmma SS": sum(not v.a_from_regs for v in wg),
            "wgmma RS": sum(v.a_from_regs for v in wg),
            "wgmma .satfinite": sum(v.satfinite for v in wg),
            "wgmma modules": len(modules(wg)), "wmma probe kernels": len(wm),
            "wmma probes (x global/shared)": len(wm) * len(WMMA_MEMORIES)}


__all__ = ["KERNELS_PER_MODULE", "WMMA_MEMORIES", "WmmaProbe", "compile_weight", "counts",
           "modules",
           "operand_majors", "wgmma_variants", "wmma_probes"]
