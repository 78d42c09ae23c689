"""A descriptor decoded, the addresses the tensor core reads with it, and whether they make an
operand.

The read map is the oracle's (`canonical.smem_offsets`) under the readings silicon showed
(reports/evidence/h100): the swizzle XORs byte-address bits (swizzle_unit = bytes), MN-major
LBO steps along MN (mn_lbo_sbo_roles = as_documented), K-major swizzled LBO is ignored, and the
base-offset field moves the swizzle phase: the hardware swizzles start + offset - (field << 7)
(finding base-offset-field-moves-phase); with no swizzle the field changes nothing.

What the operand was *meant* to be is a canonical layout whose swizzle pattern starts at the
tile base: by default the start rounded down to a 128-byte row (a start inside a row is a K
slice of the tile, as CUTLASS advances descriptors by 32 B per k-block). That is the PTX ISA's
base-offset rule: with field = (start >> 7) & 7 the H100 restarts the pattern at that row.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ptxconf.oracle import banks, canonical
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.records import BaseOffsetRule, ByteOffsetDefinition, CanonicalLayout
from ptxconf.oracle.spec import Spec

from .operand import Operand

#: Descriptor fields as explain names them, in the order they are shown, and their spec ids.
FIELDS = ("start_address", "lbo", "sbo", "base_offset", "swizzle")
SPEC_FIELDS = {"start_address": "start_address", "lbo": "leading_byte_offset",
               "sbo": "stride_byte_offset", "base_offset": "base_offset",
               "swizzle": "layout_type"}
#: A tile's default base: the start rounded down to this many bytes (the swizzle's source bits
#: start at bit 7 in every mode: M + S = 4 + 3).
ROW_BYTES = 128


@dataclass(frozen=True)
class Descriptor:
    """A 64-bit wgmma descriptor and its fields (bytes; base_offset is the raw 3-bit field)."""

    value: int
    start_address: int
    lbo: int
    sbo: int
    base_offset: int
    swizzle: str
    unused_bits: int = 0

    @classmethod
    def decode(cls, spec: Spec, value: int) -> Descriptor:
        """Every field of a value (the spec's bit layout)."""
        f = descriptor_format(spec).decode(value)
        if f["swizzle"] is None:
            raise ValueError(f"descriptor {value:#x}: layout-type code {f['layout_type_code']} "
                             "selects no swizzle mode")
        return cls(value, int(str(f["start_address_bytes"])), int(str(f["lbo_bytes"])),
                   int(str(f["sbo_bytes"])), int(str(f["base_offset"])), str(f["swizzle"]),
                   int(str(f["unused_bits"]), 16))

    @classmethod
    def of(cls, spec: Spec, *, start_address: int, lbo: int, sbo: int, swizzle: str,
           base_offset: int = 0) -> Descriptor:
        """The descriptor of these fields (DescriptorError when one cannot be stored)."""
        value = descriptor_format(spec).encode(start_address_bytes=start_address, lbo_bytes=lbo,
                                               sbo_bytes=sbo, swizzle=swizzle,
                                               base_offset=base_offset)
        return cls(value, start_address, lbo, sbo, base_offset, swizzle)

    def with_fields(self, spec: Spec, **changes: Any) -> Descriptor:
        """The same descriptor with some fields changed (unused bits dropped)."""
        f = {n: getattr(self, n) for n in FIELDS} | changes
        return Descriptor.of(spec, **f)

    def changed(self, other: Descriptor) -> tuple[str, ...]:
        """The fields in which another descriptor differs from this one."""
        return tuple(n for n in FIELDS if getattr(self, n) != getattr(other, n))

    def text(self) -> str:
        """One line: value and fields."""
        return (f"{self.value:#018x} (start {self.start_address:#x}, LBO {self.lbo} B, SBO "
                f"{self.sbo} B, base_offset {self.base_offset}, {self.swizzle})")

    def bit_fields(self, spec: Spec) -> dict[str, dict[str, Any]]:
        """Each field's bits in the 64-bit value: [msb, lsb], the raw bits, the shift."""
        fmt = descriptor_format(spec)
        out = {}
        for name in FIELDS:
            f = fmt.field(SPEC_FIELDS[name])
            raw = (self.value >> f.lsb_bits) & ((1 << f.width_bits) - 1)
            out[name] = {"bits": [f.lsb_bits + f.width_bits - 1, f.lsb_bits], "raw": raw,
                         "shift": f.encode_shift_bits, "spec_id": f.id}
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"value": f"{self.value:#018x}", "start_address": self.start_address,
                "lbo": self.lbo, "sbo": self.sbo, "base_offset": self.base_offset,
                "swizzle": self.swizzle, "unused_bits": f"{self.unused_bits:#x}"}


def base_rule(spec: Spec, swizzle: str) -> BaseOffsetRule | None:
    """The base-offset rule row of a swizzle mode (None: no swizzle)."""
    return next((r for r in spec.of(BaseOffsetRule) if r.swizzle == swizzle), None)


def rule_field(spec: Spec, swizzle: str, base: int) -> int:
    """The base-offset field the PTX ISA's rule gives for a tile at `base`: (base >> 7) & 7
    (0 without a swizzle, where the field is defined as unused)."""
    rule = base_rule(spec, swizzle)
    return 0 if rule is None else (base >> rule.address_shift_bits) & rule.mask


def hardware_phase(spec: Spec, desc: Descriptor) -> int | None:
    """Where in its repeat the tensor core's swizzle pattern starts for this descriptor, in
    bytes: (start - (field << 7)) mod repeat (H100); None without a swizzle."""
    rule = base_rule(spec, desc.swizzle)
    if rule is None:
        return None
    return (desc.start_address - (desc.base_offset << rule.address_shift_bits)) % rule.repeat_bytes


def wanted_phase(spec: Spec, desc: Descriptor, tile_base: int) -> int | None:
    """The phase a canonical layout whose pattern starts at `tile_base` has at the start."""
    rule = base_rule(spec, desc.swizzle)
    return None if rule is None else (desc.start_address - tile_base) % rule.repeat_bytes


def default_tile_base(start: int) -> int:
    """The start rounded down to a 128-byte row."""
    return start - start % ROW_BYTES


# --- the read map ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadMap:
    """Where the tensor core reads each element: absolute byte addresses [mn, k]."""

    operand: Operand
    desc: Descriptor
    addresses: np.ndarray
    layout: str

    def offsets(self) -> list[list[int]]:
        """Offsets from the descriptor start, as `ptxconf oracle smem-offsets` prints them."""
        offsets: list[list[int]] = (self.addresses - self.desc.start_address).tolist()
        return offsets


def query(spec: Spec, op: Operand, desc: Descriptor) -> canonical.SmemQuery:
    """The oracle query for a descriptor (H100 readings; the field only where it acts)."""
    rule = base_rule(spec, desc.swizzle)
    return canonical.SmemQuery(
        op.dtype, op.major, desc.swizzle, op.mn, op.k, desc.lbo, desc.sbo,
        base_offset_bytes=desc.start_address % rule.repeat_bytes if rule else 0,
        base_offset_field=desc.base_offset if rule else 0)


def read_map(spec: Spec, op: Operand, desc: Descriptor) -> ReadMap:
    """The oracle's answer for a descriptor: absolute byte addresses of every element."""
    q = query(spec, op, desc)
    layout, swz, _ = canonical.element_layout(spec, q)
    offs = canonical.smem_offsets_array(spec, q)
    return ReadMap(op, desc, desc.start_address + offs, f"{swz} o {layout}")


@dataclass(frozen=True)
class Linear:
    """A swizzle mode's canonical layout for an operand, split as the oracle instantiates it:
    unswizzled byte offset = base + lbo_steps * LBO + sbo_steps * SBO, then the swizzle."""

    swizzle: str
    base: np.ndarray
    lbo_steps: np.ndarray
    sbo_steps: np.ndarray
    swz: Swizzle

    def uses(self, name: str) -> bool:
        """Whether the operand takes a step of LBO or SBO at all."""
        return bool((self.lbo_steps if name == "lbo" else self.sbo_steps).any())

    def addresses(self, spec: Spec, desc: Descriptor) -> np.ndarray:
        """The same addresses `read_map` gives, computed in one pass (the search's fast path;
        conformance/test_explain.py checks it against the oracle)."""
        off: np.ndarray = self.base + self.lbo_steps * desc.lbo + self.sbo_steps * desc.sbo
        phase = hardware_phase(spec, desc)
        if phase is None:
            return desc.start_address + off
        x = phase + off
        swizzled: np.ndarray = x ^ ((x >> self.swz.shift) & self.swz.zzz_mask)
        return desc.start_address - phase + swizzled


@functools.lru_cache(maxsize=256)
def _linear(row: CanonicalLayout, t: int, op: Operand, swizzle: str) -> Linear:
    m, kk = canonical.covering_repeats(row, t, op.mn, op.k)
    per = op.bits // canonical.BITS_PER_BYTE

    def grid(lbo: int, sbo: int) -> np.ndarray:
        lay = canonical.instantiate(row, t, m, kk, lbo, sbo)
        rows = canonical.layout_values(lay[0], op.mn)  # lay[0](i) for each i, all at once
        cols = canonical.layout_values(lay[1], op.k)
        offsets: np.ndarray = rows[:, None] + cols[None, :]
        return offsets

    base = grid(0, 0)
    # LBO/SBO count elements in the template: one element of step is bits/8 bytes of field.
    lbo_steps = grid(1, 0) - base
    sbo_steps = grid(0, 1) - base
    return Linear(swizzle, base * per, lbo_steps, sbo_steps, canonical.row_swizzle(row))


def linear(spec: Spec, op: Operand, swizzle: str) -> Linear:
    """The operand's canonical layout in a swizzle mode, split for the search (cached by what
    it is made of: the mode's canonical row, T and the operand, so specs that share the row,
    as the loads of one tree do, share the split)."""
    row = canonical.canonical_row(spec, op.major, swizzle)
    return _linear(row, canonical.t_elems(spec, op.dtype), op, swizzle)


# --- is it an operand? -------------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """Where the user's tile is: its base (the swizzle pattern's anchor) and its allocation."""

    tile_base: int
    smem_bytes: int | None = None


@dataclass(frozen=True)
class Suspect:
    """A field set to a value the hardware does not use (the map is still what it is)."""

    field: str
    value: int
    meant: int
    why: str


@dataclass(frozen=True)
class Analysis:
    """Whether a read map is a valid operand, and where it is not."""

    injective: bool
    alias: tuple[tuple[int, int], tuple[int, int], int] | None
    span: tuple[int, int]
    outside: int
    first_outside: tuple[tuple[int, int], int] | None
    hw_phase: int | None
    want_phase: int | None
    suspects: tuple[Suspect, ...] = field(default_factory=tuple)

    @property
    def phase_ok(self) -> bool:
        """The swizzle pattern starts where the tile's does."""
        return self.hw_phase == self.want_phase

    @property
    def errors(self) -> tuple[str, ...]:
        """'alias', 'overrun', 'phase': why the map is no operand (empty: it is one)."""
        out = []
        if not self.injective:
            out.append("alias")
        if self.outside:
            out.append("overrun")
        if not self.phase_ok:
            out.append("phase")
        return tuple(out)

    @property
    def valid(self) -> bool:
        """Injective, inside the allocation, its pattern where the tile's is."""
        return not self.errors

    @property
    def span_bytes(self) -> int:
        """Bytes from the lowest to one past the highest byte read."""
        return self.span[1] - self.span[0]


def _first_alias(addresses: np.ndarray) -> tuple[tuple[int, int], tuple[int, int], int] | None:
    flat = addresses.ravel()
    order = np.argsort(flat, kind="stable")
    same = np.nonzero(flat[order][1:] == flat[order][:-1])[0]
    if not len(same):
        return None
    a, b = sorted((int(order[same[0]]), int(order[same[0] + 1])))
    k = addresses.shape[1]
    return (divmod(a, k), divmod(b, k), int(flat[a]))


def suspects(spec: Spec, op: Operand, desc: Descriptor) -> tuple[Suspect, ...]:
    """Fields set to a meaningful value where the hardware ignores them: the LBO of K-major
    swizzled layouts (LBO.K.swizzled: "not used, assumed to be 1"; H100: ignored) and the
    base-offset field without a swizzle (defined for swizzled layouts only; H100: ignored)."""
    out = []
    for d in spec.of(ByteOffsetDefinition):
        if (d.offset == "LBO" and d.major == op.major and desc.swizzle in d.swizzles
                and not d.used and d.assumed_u128 is not None):
            assumed = d.assumed_u128 * canonical.NORMALIZED_BITS // canonical.BITS_PER_BYTE
            if desc.lbo not in (0, assumed):
                out.append(Suspect("lbo", desc.lbo, assumed, f"{d.key}: {d.text}"))
    if base_rule(spec, desc.swizzle) is None and desc.base_offset:
        out.append(Suspect("base_offset", desc.base_offset, 0,
                           "the base-offset field is defined for swizzled layouts only "
                           "(wgmma/base_offset.yaml lists 32B, 64B, 128B)"))
    return tuple(out)


def analyse(spec: Spec, op: Operand, desc: Descriptor, addresses: np.ndarray,
            ctx: Context) -> Analysis:
    """Injective? Inside [tile_base, tile_base + smem_bytes)? Pattern anchored at the tile?"""
    size = op.elem_bytes
    lo, hi = int(addresses.min()), int(addresses.max()) + size
    outside, first = 0, None
    if ctx.smem_bytes is not None:
        bad = (addresses < ctx.tile_base) | (addresses + size > ctx.tile_base + ctx.smem_bytes)
        outside = int(bad.sum())
        if outside:
            i, j = (int(x) for x in np.argwhere(bad)[0])
            first = ((i, j), int(addresses[i, j]))
    alias = _first_alias(addresses)
    return Analysis(alias is None, alias, (lo, hi), outside, first, hardware_phase(spec, desc),
                    wanted_phase(spec, desc, ctx.tile_base), suspects(spec, op, desc))


# --- banks -------------------------------------------------------------------------------------


def core_matrix_reads(op: Operand, addresses: np.ndarray, t: int) -> dict[tuple[int, int], list[int]]:
    """The eight 16-byte reads of every core matrix (K-major: 8 MN rows x T elements of K;
    MN-major: 8 K rows x T elements of MN), where each read is one contiguous 16-byte chunk."""
    rows = banks.CORE_ROWS
    out = {}
    if op.major == "K":
        grid = [(i, j) for i in range(op.mn // rows) for j in range(op.k // t)]
    else:
        grid = [(i, j) for i in range(op.mn // t) for j in range(op.k // rows)]
    for i, j in grid:
        reads = []
        for r in range(rows):
            cells: Sequence[tuple[int, int]] = (
                [(rows * i + r, t * j + e) for e in range(t)] if op.major == "K"
                else [(t * i + e, rows * j + r) for e in range(t)])
            got = [int(addresses[c]) for c in cells]
            if got != [got[0] + e * op.elem_bytes for e in range(t)]:
                break
            reads.append(got[0])
        else:
            out[(i, j)] = reads
    return out


def bank_report(spec: Spec, op: Operand, addresses: np.ndarray) -> dict[str, Any]:
    """Per core matrix, the bank-conflict degree of its eight 16-byte row reads
    (`banks.analyze`: 16-byte accesses are served 8 threads a phase)."""
    t = canonical.t_elems(spec, op.dtype)
    reads = core_matrix_reads(op, addresses, t)
    degrees = {cm: banks.analyze(r, banks.CORE_ROW_BYTES, spec).degree for cm, r in reads.items()}
    worst = max(degrees.values(), default=0)
    at = next((cm for cm, d in degrees.items() if d == worst), None)
    out: dict[str, Any] = {"core_matrices": len(degrees), "worst_degree": worst,
                           "conflicted": sum(d > 1 for d in degrees.values())}
    if at is not None and worst > 1:
        out["worst_at"] = list(at)
        out["worst"] = banks.analyze(reads[at], banks.CORE_ROW_BYTES, spec).worst()
    return out


__all__ = ["FIELDS", "ROW_BYTES", "SPEC_FIELDS", "Analysis", "Context", "Descriptor", "Linear", "ReadMap",
           "Suspect", "analyse", "bank_report", "base_rule", "core_matrix_reads",
           "default_tile_base", "hardware_phase", "linear", "query", "read_map",
           "rule_field", "suspects", "wanted_phase"]
