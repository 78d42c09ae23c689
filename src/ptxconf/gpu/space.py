"""The variant space: every instruction form the spec allows, enumerated from the spec alone.

* wgmma: every dense type row (spec/wgmma/instruction_types.yaml) x every N its register
  fragment row allows (`valid_n_for`) x `.satfinite` where the row has it x A from shared
  memory (SS) or registers (RS) x every imm-trans combination where the type spells them.
* wmma: every load/store probe of the default-stride table's shapes (`wmma_probe_variants`),
  from global and from shared memory.

`counts(spec)` is what `ptxconf plan` prints. Pure: no CuPy, no device.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from ptxconf.oracle.instructions import valid_n_for
from ptxconf.oracle.spec import Spec

from .variants import WgmmaVariant, WmmaVariant, instruction_types, wgmma_families, wmma_probe_variants

T = TypeVar("T")

#: Where a wmma probe's matrix lives.
WMMA_MEMORIES = ("global", "shared")
#: Instruction variants per compiled module: NVRTC's fixed cost (about 65 ms) is paid per
#: module; 32 kernels of mixed sizes compile in a few seconds on one core, and the modules
#: spread over every core.
KERNELS_PER_MODULE = 32
#: How far above the mean compile cost a module may go before it is closed (`modules`): more
#: modules of even cost against fewer of uneven cost; 1.2 gives about 51 modules.
MODULE_COST_SLACK = 1.2


def wgmma_variants(spec: Spec) -> tuple[WgmmaVariant, ...]:
    """Every valid wgmma instruction variant, by type row, then N, then form (made once per
    spec)."""
    return spec.memo(("space.wgmma_variants",), lambda: _wgmma_variants(spec))


def _wgmma_variants(spec: Spec) -> tuple[WgmmaVariant, ...]:
    out: list[WgmmaVariant] = []
    for row in instruction_types(spec):
        ns, _ = valid_n_for(spec, row)
        forms = [f for f in wgmma_families(spec)
                 if (f.k, f.dtype, f.atype, f.btype) == (row.k_elems, row.dtype, row.atype,
                                                          row.btype)]
        out += [f.with_n(n) for n in ns for f in forms]
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
    """The variants cut into modules of consecutive variants (space order keeps a type row's
    N values together, so the variants of a module share operands, placed images and
    fragment maps, and a lane that runs the module builds them once), each closed at `per`
    kernels or when its compile cost would pass MODULE_COST_SLACK times the mean cost of
    the fewest modules that could hold them (so that the modules compile in about the same
    time in parallel, and the heaviest kernels get modules of their own size)."""
    if not variants:
        return []
    weights = [compile_weight(v) for v in variants]
    fewest = -(-len(variants) // per)
    return bounded_runs(variants, weights, per,
                        max(sum(weights) / fewest * MODULE_COST_SLACK, max(weights)))


def bounded_runs(items: Sequence[T], costs: Sequence[float], most: int, budget: float
                 ) -> list[tuple[T, ...]]:
    """Items cut into runs of consecutive items, each closed at `most` items or before its
    summed cost would pass `budget` (an item costing more than the budget is a run alone)."""
    out: list[list[T]] = []
    total = 0.0
    for item, c in zip(items, costs, strict=True):
        if not out or len(out[-1]) == most or total + c > budget:
            out.append([])
            total = 0.0
        out[-1].append(item)
        total += c
    return [tuple(run) for run in out]


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


__all__ = ["KERNELS_PER_MODULE", "MODULE_COST_SLACK", "WMMA_MEMORIES", "WmmaProbe", "bounded_runs",
           "compile_weight", "counts",
           "modules",
           "operand_majors", "wgmma_variants", "wmma_probes"]
