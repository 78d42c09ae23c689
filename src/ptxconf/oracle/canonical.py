"""Canonical wgmma shared-memory layouts, instantiated from the spec's CuTe templates.

Every layout here is *derived*: the template string of spec/wgmma/canonical_layouts.yaml is
parsed with T, m, k, LBO and SBO bound, and composed with the row's Swizzle<B,M,S>. Offsets
count elements until the last step, which converts to bytes (bits for b1) under a named
reading of the swizzle unit (ptxconf.oracle.hypotheses.SWIZZLE_UNIT).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING, Any

from ptxconf.oracle import hypotheses
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.records import BaseOffsetRule, CanonicalLayout, atom_name
from ptxconf.oracle.spec import Spec

if TYPE_CHECKING:
    import numpy as np

#: The width every element type is normalized to.
NORMALIZED_BITS = 128
BITS_PER_BYTE = 8


def canonical_row(spec: Spec, major: str, swizzle: str) -> CanonicalLayout:
    """The canonical-layout row for a major-ness and swizzle mode."""
    return spec.get(CanonicalLayout, atom_name(major, swizzle))


def row_swizzle(row: CanonicalLayout) -> Swizzle:
    """The Swizzle<B,M,S> the row composes its layout with."""
    return Swizzle(row.swizzle_bits, row.swizzle_base, row.swizzle_shift)


def t_elems(spec: Spec, dtype: str) -> int:
    """T = 128 / element width: elements per 128-bit normalized element."""
    bits = spec.element_bits(dtype)
    if NORMALIZED_BITS % bits:
        raise ValueError(f"{dtype}: {bits}-bit elements do not divide 128 bits")
    return NORMALIZED_BITS // bits


@functools.lru_cache(maxsize=1 << 16)
def _bound(template: str, t: int, m: int, k: int, lbo_elems: int, sbo_elems: int) -> Any:
    """A template parsed with its names bound (layouts are immutable: cached)."""
    return parse(template, {"T": t, "m": m, "k": k, "LBO": lbo_elems, "SBO": sbo_elems})


def instantiate(row: CanonicalLayout, t: int, m: int, k: int, lbo_elems: int,
                sbo_elems: int) -> Layout:
    """The row's template with every name bound: a plain layout in elements (no swizzle)."""
    layout = _bound(row.layout, t, m, k, lbo_elems, sbo_elems)
    if not isinstance(layout, Layout):
        raise ValueError(f"{row.key}: template {row.layout!r} is not a plain layout")
    return layout


def repeat_extents(row: CanonicalLayout, t: int) -> tuple[int, int]:
    """(MN, K) extent in elements of one repeat (m = k = 1) of the template."""
    one = instantiate(row, t, 1, 1, 0, 0)
    return one[0].size(), one[1].size()


def repeats_for(row: CanonicalLayout, t: int, mn: int, k: int) -> tuple[int, int]:
    """The template's m and k for an operand of mn x k elements; ValueError if it does not tile."""
    per_mn, per_k = repeat_extents(row, t)
    if mn <= 0 or k <= 0 or mn % per_mn or k % per_k:
        raise ValueError(f"{row.id}: an operand of {mn}x{k} elements does not tile into repeats of "
                         f"{per_mn}x{per_k} (T={t})")
    return mn // per_mn, k // per_k


def covering_repeats(row: CanonicalLayout, t: int, mn: int, k: int) -> tuple[int, int]:
    """The template's m and k whose layout covers an mn x k operand.

    Along MN a partial repeat is allowed (m rounds up): the operand is the restriction of the
    covering layout to its first mn rows, as the tensor core reads a B operand narrower than
    one MN-major swizzle row (N = 8 of a 64-element 128B row; H100 evidence:
    gpu.smem_map[...m64n8k16...:B:MN_SW128] and n136). Along K the template's repeat is at most
    one instruction's K, and narrower K-major operands are already the restriction of the full
    swizzle row (k = 1 of the template: the first 2T elements), so K must tile; ValueError if not.
    """
    per_mn, per_k = repeat_extents(row, t)
    if mn <= 0 or k <= 0 or k % per_k:
        raise ValueError(f"{row.id}: an operand of {mn}x{k} elements does not tile into repeats of "
                         f"{per_mn}x{per_k} (T={t}) along K")
    return -(-mn // per_mn), k // per_k


@dataclass(frozen=True)
class SmemQuery:
    """`ptxconf oracle smem-offsets`' arguments."""

    dtype: str
    major: str
    swizzle: str
    mn: int
    k: int
    lbo_bytes: int
    sbo_bytes: int
    base_offset_bytes: int = 0
    swizzle_unit: str = "bytes"
    mn_lbo_sbo_roles: str = "as_documented"
    base_offset_field: int = 0


def bytes_to_elems(value_bytes: int, bits: int, what: str) -> int:
    """A byte count in elements of `bits` bits (exact)."""
    total_bits = value_bytes * BITS_PER_BYTE
    if total_bits % bits:
        raise ValueError(f"{what}={value_bytes} bytes is not a whole number of {bits}-bit elements")
    return total_bits // bits


def element_layout(spec: Spec, q: SmemQuery) -> tuple[Layout, Swizzle, int]:
    """The operand's canonical layout in elements, its swizzle, and the element width.

    The layout covers whole MN repeats (`covering_repeats`); the operand is its first mn x k."""
    row = canonical_row(spec, q.major, q.swizzle)
    bits = spec.element_bits(q.dtype)
    t = t_elems(spec, q.dtype)
    m, k = covering_repeats(row, t, q.mn, q.k)
    lbo = bytes_to_elems(q.lbo_bytes, bits, "lbo")
    sbo = bytes_to_elems(q.sbo_bytes, bits, "sbo")
    roles = hypotheses.reading(hypotheses.MN_LBO_SBO_ROLES, q.mn_lbo_sbo_roles)
    if roles == "swapped" and q.major == "MN" and q.swizzle != "none":
        lbo, sbo = sbo, lbo
    return instantiate(row, t, m, k, lbo, sbo), row_swizzle(row), bits


def address_units(bits: int) -> str:
    """The unit smem offsets are reported in: bytes, or bits for sub-byte elements."""
    return "bytes" if bits % BITS_PER_BYTE == 0 else "bits"


def swizzled_offset(elem_offset: int, bits: int, swz: Swizzle, swizzle_unit: str,
                    base_offset_bytes: int = 0) -> int:
    """Element offset -> offset from the operand start in address units, swizzled per reading.

    Under the "bytes" reading the swizzle acts on the absolute byte address (start + offset),
    so a start that is not aligned to the swizzle's repeat (base_offset_bytes) shifts the
    pattern; under the "elements" reading it acts on the layout's element offset.
    """
    unit = hypotheses.reading(hypotheses.SWIZZLE_UNIT, swizzle_unit)
    if unit == "elements":
        base_elems = bytes_to_elems(base_offset_bytes, bits, "base offset")
        off_bits = (swz(base_elems + elem_offset) - base_elems) * bits
    else:
        off_bits = elem_offset * bits
        byte, bit = divmod(off_bits, BITS_PER_BYTE)
        off_bits = (swz(base_offset_bytes + byte) - base_offset_bytes) * BITS_PER_BYTE + bit
    return off_bits // BITS_PER_BYTE if bits % BITS_PER_BYTE == 0 else off_bits


def swizzle_phase_bytes(spec: Spec, q: SmemQuery) -> int:
    """Where in its repeat the swizzle pattern starts for this operand, in bytes.

    The start's offset within the repeat (base_offset_bytes), moved back by the descriptor's
    base-offset field (field << address_shift_bits): the H100 reading "field_moves_phase";
    with the field 0 it is the documented "absolute" reading.
    """
    if q.base_offset_field == 0 or q.swizzle == "none":
        return q.base_offset_bytes
    rule = next(r for r in spec.of(BaseOffsetRule) if r.swizzle == q.swizzle)
    if not 0 <= q.base_offset_field <= rule.mask:
        raise ValueError(f"base-offset field {q.base_offset_field}: expected 0..{rule.mask}")
    return (q.base_offset_bytes - (q.base_offset_field << rule.address_shift_bits)) \
        % rule.repeat_bytes


def smem_offsets(spec: Spec, q: SmemQuery) -> list[list[int]]:
    """offsets[i][j]: where the tensor core reads element (mn=i, k=j), from the descriptor start."""
    layout, swz, bits = element_layout(spec, q)
    phase = swizzle_phase_bytes(spec, q)
    # layout((i, j)) is its MN mode at i plus its K mode at j: each mode is evaluated once per
    # index, not once per element (the scalar walk of a coordinate was most of the time)
    along_mn, along_k = layout[0], layout[1]
    k_offsets = [along_k(j) for j in range(q.k)]
    return [[swizzled_offset(mn_offset + k_offset, bits, swz, q.swizzle_unit, phase)
             for k_offset in k_offsets] for mn_offset in (along_mn(i) for i in range(q.mn))]


def crd2idx_array(crd: Any, shape: Any, stride: Any) -> Any:
    """crd2idx over NumPy coordinate arrays (elementwise; nothing modified in place)."""
    if isinstance(crd, tuple):
        return sum(crd2idx_array(c, s, d) for c, s, d in zip(crd, shape, stride, strict=True))
    if isinstance(shape, tuple):
        result: Any = 0
        for s, d in zip(shape[:-1], stride[:-1], strict=True):
            size = prod(flatten(s))
            result = result + crd2idx_array(crd % size, s, d)
            crd = crd // size
        return result + crd2idx_array(crd, shape[-1], stride[-1])
    return crd * stride


def layout_values(layout: Layout, count: int) -> np.ndarray:
    """`layout(i)` for every index i in 0..count-1, as an int64 array (crd2idx_array: the
    same colexicographic split, the last mode taking what is left)."""
    import numpy as np  # here, not at the top: a warm run answered from the caches needs none

    return np.asarray(crd2idx_array(np.arange(count, dtype=np.int64), layout.shape, layout.stride),
                      dtype=np.int64)


def smem_offsets_array(spec: Spec, q: SmemQuery) -> np.ndarray:
    """`smem_offsets` as an int64 [mn, k] array, every element at once (NumPy): the same
    layout, swizzle and phase, evaluated elementwise. The scalar `smem_offsets` is the
    reference; conformance/test_canonical.py holds the two equal over every template."""
    import numpy as np

    layout, swz, bits = element_layout(spec, q)
    phase = swizzle_phase_bytes(spec, q)
    i, j = np.meshgrid(np.arange(q.mn, dtype=np.int64), np.arange(q.k, dtype=np.int64),
                       indexing="ij")
    elem = crd2idx_array((i, j), layout.shape, layout.stride)
    return np.asarray(swizzled_offset(elem, bits, swz, q.swizzle_unit, phase), dtype=np.int64)


def smem_offsets_query(spec: Spec, q: SmemQuery) -> dict[str, Any]:
    """The JSON answer of `ptxconf oracle smem-offsets`."""
    layout, swz, bits = element_layout(spec, q)
    return {
        "units": address_units(bits),
        "mn": q.mn,
        "k": q.k,
        "offsets": smem_offsets(spec, q),
        "layout_elems": f"{swz} o {layout}",
        "layout_covers": [layout[0].size(), layout[1].size()],
        "hypotheses": {"swizzle_unit": q.swizzle_unit, "mn_lbo_sbo_roles": q.mn_lbo_sbo_roles,
                       "base_offset": "absolute" if q.base_offset_field == 0
                       else "field_moves_phase"},
    }
