"""What the GPU cases run: the plan, built from the spec alone (pure: no CuPy, no device).

The plan names every instruction form a case probes (`Probe`), the kernels of the run in a few
compile batches (`Plan`), and for each case family the list of its cases (`Planned`: the
case id's check and key, and the pure data its body needs). Case ids are stable: they key
reports, known findings and the committed evidence (reports/evidence/<device>/results.json).
How a case runs is `ptxconf.gpu.session` and `ptxconf.gpu.families`; how it is judged is
`ptxconf.oracle.verdicts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptxconf.oracle import facts
from ptxconf.oracle.instructions import valid_n_for
from ptxconf.oracle.records import BaseOffsetRule, InstructionType, atom_name
from ptxconf.oracle.spec import Spec

from . import space
from .variants import IsaFacts, WgmmaVariant, WmmaVariant, isa_facts, wmma_probe_variants

CHECK_DEVICE = "gpu.device"
CHECK_COMPILE = "gpu.compile"
CHECK_VARIANT = "gpu.variant"
CHECK_MMA_SYNC = "gpu.mma_sync"
#: The warp-level matrix load and store, one check per instruction (`ptxconf.gpu.ldmatrix`).
CHECK_LDMATRIX = "gpu.ldmatrix"
CHECK_STMATRIX = "gpu.stmatrix"
WARP_MATRIX_CHECKS = {"ldmatrix": CHECK_LDMATRIX, "stmatrix": CHECK_STMATRIX}
CHECK_TMA = "gpu.tma_write"
#: wgmma reading a TMA-written box (ptxconf.gpu.families.tma_pairing; its wgmma kernel is in a
#: compile batch, the TMA kernel compiles in the probe worker).
CHECK_TMA_PAIRING = "gpu.tma_pairing"
CHECK_SMEM_MAP = "gpu.smem_map"
CHECK_START = "gpu.address.start"
CHECK_UNUSED_LBO = "gpu.address.unused_lbo"
CHECK_UNUSED_BASE = "gpu.address.unused_base_offset"
CHECK_HYPOTHESIS = "gpu.hypothesis"
CHECK_WMMA_LOAD = "gpu.wmma.load"
CHECK_WMMA_STORE = "gpu.wmma.store"
CHECK_WMMA_ALIGN = "gpu.wmma.align"

#: The device key of `gpu.device[...]`: the architecture every probe is compiled for.
DEVICE_KEY = "sm_90a"
#: Start offsets (bytes) of the base-address sweep below each swizzle repeat: inside a 16-byte
#: chunk row (the XOR's target bits) and whole 128-byte rows (its source bits).
START_OFFSETS_BYTES = (16, 32, 64)
ROW_STEP_BYTES = 128
#: A start off both grids (one row and one chunk in): the base-offset readings all differ.
MIXED_OFFSET_BYTES = ROW_STEP_BYTES + START_OFFSETS_BYTES[0]
#: LBO values (bytes) tried where the document says LBO is "not used, assumed to be 1":
#: 16 is the assumed 1; 0, a large and the largest encodable value are the probes.
UNUSED_LBO_BYTES = (16, 0, 4096, 262128)
#: The compile batch of the wmma probes (the wgmma batches are `wgmma:<index>`).
WMMA_BATCH = "wmma"


def swizzled_modes(spec: Spec) -> tuple[str, ...]:
    """The swizzle modes other than 'none', narrowest first (ptxconf.oracle.facts)."""
    return tuple(sw for sw in facts.swizzle_modes(spec) if sw != "none")


def n_values(spec: Spec, row: InstructionType) -> tuple[int, int, int]:
    """The smallest, a middle and the largest valid N of a type row (spec valid_n)."""

    ns, _ = valid_n_for(spec, row)
    return ns[0], ns[len(ns) // 2], ns[-1]


@dataclass(frozen=True)
class Probe:
    """One wgmma instruction form with its operands' major-ness, and the kernel's variant
    (imm-trans = 1 for MN-major shared-memory operands)."""

    row: InstructionType
    n: int
    satfinite: bool
    rs: bool
    major: str
    variant: WgmmaVariant = field(compare=False, repr=False)

    @property
    def form(self) -> str:
        """'RS' (A in registers) or 'SS'."""
        return "RS" if self.rs else "SS"


def make_probe(isa: IsaFacts, row: InstructionType, n: int, *, satfinite: bool = False,
               rs: bool = False, major: str = "K") -> Probe:
    """The probe of a type row at N, with its variant."""
    mn = int(major == "MN")
    v = WgmmaVariant(n=n, k=row.k_elems, dtype=row.dtype, atype=row.atype, btype=row.btype,
                     a_from_regs=rs, trans_a=0 if rs else mn, trans_b=mn, satfinite=satfinite,
                     isa=isa)
    return Probe(row, n, satfinite, rs, major, v)


def majors(spec: Spec, row: InstructionType) -> tuple[str, ...]:
    """K-major for every type; MN-major where the instruction transposes (imm-trans types)."""
    return ("K", "MN") if facts.takes_imm_trans(spec, row.atype) else ("K",)


@dataclass(frozen=True)
class Plan:
    """Every kernel the run needs, in compile batches (one module each)."""

    wgmma_batches: dict[str, tuple[WgmmaVariant, ...]]
    wmma: tuple[WmmaVariant, ...]

    def batch_of(self) -> dict[Any, str]:
        """Variant -> batch key."""
        out: dict[Any, str] = {v: key for key, vs in self.wgmma_batches.items() for v in vs}
        out.update(dict.fromkeys(self.wmma, WMMA_BATCH))
        return out

    def batch(self, key: str) -> tuple[WgmmaVariant, ...] | tuple[WmmaVariant, ...]:
        """The variants of one batch."""
        return self.wmma if key == WMMA_BATCH else self.wgmma_batches[key]

    @property
    def keys(self) -> tuple[str, ...]:
        """Every batch key, in compile order."""
        return (*self.wgmma_batches, WMMA_BATCH)


def plan(spec: Spec) -> Plan:
    """The kernels of every case: the whole variant space (`ptxconf.gpu.space`), one kernel per
    instruction variant, cut into modules of `space.KERNELS_PER_MODULE`; then the wmma
    module. Made once per spec."""
    return spec.memo(("plan.plan",), lambda: _plan(spec))


def _plan(spec: Spec) -> Plan:
    batches = {f"wgmma:{i:02d}": mod
               for i, mod in enumerate(space.modules(space.wgmma_variants(spec)))}
    return Plan(batches, tuple(wmma_probe_variants(spec)))


@dataclass(frozen=True)
class Planned:
    """One planned case: its id (`check[key]`) and the pure data its body needs."""

    check: str
    key: str
    args: tuple[Any, ...] = ()
    #: Its probe may fault on purpose (a misaligned access); each fault costs a worker restart.
    may_fault: bool = False

    @property
    def id(self) -> str:
        """The case id."""
        return f"{self.check}[{self.key}]"


#: Checks whose kernels are not in the plan's compile batches: the device itself, and the
#: mma.sync atoms, the ldmatrix/stmatrix forms and the TMA write probe (compiled in the probe
#: worker, `ptxconf.gpu.mma_sync`, `ptxconf.gpu.ldmatrix`, `ptxconf.gpu.tma`).
_NO_BATCH_CHECKS = (CHECK_DEVICE, CHECK_MMA_SYNC, CHECK_LDMATRIX, CHECK_STMATRIX, CHECK_TMA)


def batch_index(spec: Spec) -> dict[Any, str]:
    """Variant -> the key of the compile batch it lives in, for the spec's plan (made once per
    spec; read only)."""
    return spec.memo(("plan.batch_of",), lambda: plan(spec).batch_of())


def modules_of(spec: Spec, planned: Planned) -> frozenset[str] | None:
    """The compile batches a planned case's kernels live in, read from its args (variants,
    probes, and the lists and tuples that hold them; `gpu.compile[<batch>]` names its own);
    None where its args name no kernel of the plan (then it may need any batch)."""
    if planned.check in _NO_BATCH_CHECKS:
        return frozenset()
    if planned.check == CHECK_COMPILE:
        return frozenset(planned.args[:1])
    batch_of = batch_index(spec)
    found: set[str] = set()
    todo: list[Any] = list(planned.args)
    while todo:
        x = todo.pop()
        if isinstance(x, Probe):
            x = x.variant
        if isinstance(x, WgmmaVariant | WmmaVariant):
            if x not in batch_of:
                return None
            found.add(batch_of[x])
        elif isinstance(x, tuple | list):
            todo += x
    return frozenset(found) if found else None


def _f16_row(spec: Spec) -> InstructionType:
    """The f16-operand, f32-accumulator row: the form the address and hypothesis probes use."""
    return next(r for r in spec.of(InstructionType) if (r.dtype, r.atype) == ("f32", "f16"))


def base_offset_rule(spec: Spec, swizzle: str) -> BaseOffsetRule:
    """The base-offset rule row of a swizzle mode."""
    return next(r for r in spec.of(BaseOffsetRule) if r.swizzle == swizzle)


def base_offset_field(rule: BaseOffsetRule, start: int) -> int:
    """The base-offset field the rule gives for an operand start: (start >> shift) & mask."""
    return (start >> rule.address_shift_bits) & rule.mask


# --- each family's cases -----------------------------------------------------------------------


def device_plan(spec: Spec) -> list[Planned]:
    """gpu.device[sm_90a], then gpu.compile[<batch>] for every compile batch."""
    return [Planned(CHECK_DEVICE, DEVICE_KEY),
            *(Planned(CHECK_COMPILE, key, (key,)) for key in plan(spec).keys)]


def discovery_plan(spec: Spec) -> list[Planned]:
    """The shared-memory address maps of A (largest N) and B (each N) per major-ness and
    swizzle. (Every variant's accumulator and register-A maps are `gpu.variant` cases.)"""
    isa = isa_facts(spec)
    out: list[Planned] = []
    for row in spec.of(InstructionType):
        ns = n_values(spec, row)
        for major in majors(spec, row):
            for sw in facts.swizzle_modes(spec):
                name = atom_name(major, sw)
                pa = make_probe(isa, row, ns[-1], major=major)
                out.append(Planned(CHECK_SMEM_MAP, f"{pa.variant.ptx_name}:A:{name}", (pa, "A", sw)))
                for n in ns:
                    pb = make_probe(isa, row, n, major=major)
                    out.append(Planned(CHECK_SMEM_MAP, f"{pb.variant.ptx_name}:B:{name}",
                                       (pb, "B", sw)))
    return out


def address_plan(spec: Spec) -> list[Planned]:
    """Unaligned operand starts (field 0 and per the rule), the unused LBO of K-major swizzled
    layouts, and the base-offset field of unswizzled layouts."""
    isa = isa_facts(spec)
    f16 = _f16_row(spec)
    mid = n_values(spec, f16)[1]
    out: list[Planned] = []
    for major in majors(spec, f16):
        p = make_probe(isa, f16, mid, major=major)
        for sw in swizzled_modes(spec):
            rule = base_offset_rule(spec, sw)
            offsets = sorted({*START_OFFSETS_BYTES, MIXED_OFFSET_BYTES,
                              *range(ROW_STEP_BYTES, rule.repeat_bytes, ROW_STEP_BYTES)})
            for off in offsets:
                for with_field in (False, True):
                    value = base_offset_field(rule, off) if with_field else 0
                    if with_field and value == 0:
                        continue
                    key = f"{p.variant.ptx_name}:{atom_name(major, sw)}:+{off}:base_offset={value}"
                    out.append(Planned(CHECK_START, key, (p, sw, off, with_field)))
    for row in spec.of(InstructionType):
        p = make_probe(isa, row, n_values(spec, row)[1])
        for sw in swizzled_modes(spec):
            out.append(Planned(CHECK_UNUSED_LBO, f"{p.variant.ptx_name}:{atom_name('K', sw)}", (p, sw)))
    for major in majors(spec, f16):
        p = make_probe(isa, f16, mid, major=major)
        out.append(Planned(CHECK_UNUSED_BASE, f"{p.variant.ptx_name}:{atom_name(major, 'none')}", (p,)))
    return out


def hypothesis_probes(spec: Spec) -> dict[str, list[Any]]:
    """The probes of each hypothesis: (probe, swizzle) pairs, or probes (register A)."""
    isa = isa_facts(spec)
    rows = {r.atype: r for r in spec.of(InstructionType)}
    f16, tf32 = _f16_row(spec), rows["tf32"]
    swizzled = swizzled_modes(spec)
    widest = swizzled[-1]

    def at(row: InstructionType, role: int, **kw: Any) -> Probe:
        return make_probe(isa, row, n_values(spec, row)[role], **kw)

    unit = [(at(f16, 1, major=m), sw) for m in ("K", "MN") for sw in swizzled]
    unit += [(at(tf32, 1), sw) for sw in swizzled]
    roles = [(at(f16, 2, major="MN"), sw) for sw in swizzled]
    klbo = [(at(r, 1), widest) for r in (f16, tf32, rows["e4m3"], rows["s8"], rows["b1"])]
    base = [(at(f16, 1, major=m), widest) for m in ("K", "MN")]
    seen_a: dict[str, Probe] = {}
    for r in spec.of(InstructionType):
        seen_a.setdefault(r.fragment_a, at(r, 2, rs=True))
    return {"swizzle_unit": unit, "mn_lbo_sbo_roles": roles, "k_swizzled_lbo": klbo,
            "base_offset": base, "a_regs_like_d16": list(seen_a.values())}


def hypothesis_plan(spec: Spec) -> list[Planned]:
    """gpu.hypothesis[<name>] for each hypothesis the probes settle."""
    return [Planned(CHECK_HYPOTHESIS, name, (probes,))
            for name, probes in hypothesis_probes(spec).items()]


def wmma_key(v: WmmaVariant, mem_layout: str | None = None) -> str:
    """shape.dtype.matrix[.layout][:memory layout]."""
    key = f"{v.shape}.{v.dtype}.{v.matrix}"
    if v.layout:
        key += f".{v.layout}"
    if mem_layout:
        key += f":{mem_layout}"
    return key


def wmma_plan(spec: Spec) -> list[Planned]:
    """Loads (a/b in their compiled layout, the accumulator both ways) and stores, from global
    memory and then from shared memory (`<key>@shared`), and last the alignment cases (these
    may fault, and each fault costs a worker restart)."""
    wm = plan(spec).wmma
    out: list[Planned] = []
    for memory in space.WMMA_MEMORIES:
        tail = "" if memory == "global" else f"@{memory}"
        for v in wm:
            if v.op == "load" and v.matrix != "c":
                out.append(Planned(CHECK_WMMA_LOAD, wmma_key(v) + tail,
                                   (v, v.layout or "row", memory)))
            elif v.op == "load":
                out += [Planned(CHECK_WMMA_LOAD, wmma_key(v, ml) + tail, (v, ml, memory))
                        for ml in ("row", "col")]
        for v in wm:
            if v.op == "store":
                out += [Planned(CHECK_WMMA_STORE, wmma_key(v, ml) + tail, (v, ml, memory))
                        for ml in ("row", "col")]
    seen: set[str] = set()
    for v in wm:
        if v.op == "load" and v.matrix == "a" and v.layout == "row" and v.shape not in seen:
            seen.add(v.shape)
            out += [Planned(CHECK_WMMA_ALIGN, f"{wmma_key(v)}:{kind}", (v, kind), may_fault=True)
                    for kind in ("pointer", "stride")]
    return out


def may_fault_ids(spec: Spec) -> frozenset[str]:
    """The ids of the planned cases whose probes may fault on purpose (made once per spec)."""
    return spec.memo(("plan.may_fault_ids",),
                     lambda: frozenset(p.id for p in wmma_plan(spec) if p.may_fault))


__all__ = ["Plan", "Planned", "Probe", "address_plan", "base_offset_field", "base_offset_rule",
           "batch_index",
           "device_plan", "discovery_plan", "hypothesis_plan",
           "hypothesis_probes", "make_probe", "majors", "may_fault_ids", "modules_of", "n_values", "plan",
           "swizzled_modes",
           "wmma_key", "wmma_plan"]
