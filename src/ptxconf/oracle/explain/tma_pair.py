"""`ptxconf explain tma`: does a TMA-written tile pair with a wgmma descriptor?

The box (its swizzle mode, element type, rows x cols, shared-memory base) is written as
ptxconf.oracle.tma models it; the descriptor is read as ptxconf.oracle.explain.readmap models
it (the H100's readings). Their composition says, for every operand element, which box element
wgmma finds at the address it reads. Where that is not the identity, the mistake is named
(the first that applies: the swizzle modes differ, the start is not the box's, the read's swizzle
phase is not the write's, the strides are not the box's packing), the nearest descriptor that
pairs is searched (start, mode, LBO/SBO, base-offset field: each the user's or the box's), and
so is the tensor-map swizzle that pairs with the descriptor as given.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from ptxconf.oracle import tma
from ptxconf.oracle.descriptor import DescriptorError
from ptxconf.oracle.records import CanonicalLayout, TmaSwizzleMode, atom_name
from ptxconf.oracle.spec import Spec

from .operand import ExplainError, Operand, resolve
from .readmap import Descriptor, base_rule, hardware_phase, linear, rule_field

#: The mistakes, by code: what each one is.
CODES: dict[str, str] = {
    "TMA-PAIR-MODE": "the descriptor reads another swizzle mode than the tensor map writes",
    "TMA-PAIR-START": "the descriptor starts elsewhere than the box",
    "TMA-PAIR-PHASE": "the read's swizzle pattern starts at another phase than the write's",
    "TMA-PAIR-STRIDE": "LBO or SBO is not the box's packing",
}


@dataclass(frozen=True)
class TmaExplanation:
    """The pairing of a box and a descriptor, the mistake named, the fixes found."""

    box: tma.Box
    operand: Operand
    desc: Descriptor
    pairing: tma.Pairing
    code: str | None
    message: str
    corrected: Descriptor | None
    tensor_maps: tuple[str, ...]
    evidence: tuple[str, ...]

    @property
    def verdict(self) -> str:
        """`pairs` or `mismatch`."""
        return "pairs" if self.pairing.identity else "mismatch"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        c = self.corrected
        return {"verdict": self.verdict, "box": self.box.as_dict(),
                "operand": self.operand.as_dict(), "descriptor": self.desc.as_dict(),
                "pairing": self.pairing.as_dict(), "code": self.code, "message": self.message,
                "corrected": None if c is None else {**c.as_dict(),
                                                     "changed": list(c.changed(self.desc))},
                "tensor_map_swizzle": list(self.tensor_maps), "evidence": list(self.evidence)}


def decode(spec: Spec, value: int) -> Descriptor:
    """A descriptor value's fields (ExplainError for a layout-type code no mode has)."""
    try:
        return Descriptor.decode(spec, value)
    except ValueError as e:
        raise ExplainError("EXPLAIN-DESCRIPTOR", str(e)) from None


def reads(spec: Spec, op: Operand, desc: Descriptor) -> np.ndarray:
    """The absolute addresses wgmma reads, [mn, k] (the read map's fast path)."""
    try:
        return linear(spec, op, desc.swizzle).addresses(spec, desc)
    except ValueError as e:
        raise ExplainError("DOMAIN-SHAPE", str(e)) from None


def explain_tma(spec: Spec, *, swizzle: str, dtype: str, rows: int, cols: int, base: int,
                major: str, value: int) -> TmaExplanation:
    """Pair a TMA box with a descriptor (TmaError / ExplainError for input neither allows)."""
    b = tma.box(spec, swizzle, dtype, rows, cols, base)
    mn, k = tma.operand_coords(b, major)
    op = resolve(spec, dtype=dtype, major=major, mn=mn, k=k)
    desc = decode(spec, value)
    p = tma.compose(spec, b, major, reads(spec, op, desc))
    code, message = (None, "wgmma reads every element where TMA put it") if p.identity \
        else _mistake(spec, b, major, desc, p)
    corrected = None if p.identity else _corrected(spec, b, op, desc)
    maps = () if p.identity else tuple(_tensor_maps(spec, b, op, desc))
    return TmaExplanation(b, op, desc, p, code, message, corrected, maps,
                          _evidence(spec, b, major, desc))


def _mistake(spec: Spec, b: tma.Box, major: str, d: Descriptor,
             p: tma.Pairing) -> tuple[str, str]:
    moved = len(p.moved())
    total = p.read.size
    head = f"{moved} of {total} elements are read where TMA did not put them"
    if d.swizzle != b.swizzle:
        return "TMA-PAIR-MODE", (f"the tensor map writes the {b.swizzle} swizzle, the descriptor "
                                 f"reads {d.swizzle}: {head}")
    if d.start_address != b.base:
        return "TMA-PAIR-START", (f"the descriptor starts at {d.start_address:#x}, the box at "
                                  f"{b.base:#x}: {head}")
    read_phase = hardware_phase(spec, d)
    write_phase = tma.phase_bytes(spec, b.swizzle, b.base)
    if read_phase is not None and read_phase != write_phase:
        rule = base_rule(spec, d.swizzle)
        assert rule is not None
        return "TMA-PAIR-PHASE", (
            f"TMA swizzles the absolute address: the box at {b.base:#x} starts {write_phase} B "
            f"into its {rule.repeat_bytes}-B repeat; the base-offset field {d.base_offset} moves "
            f"wgmma's read by {d.base_offset << rule.address_shift_bits} B (the H100 reading), "
            f"so its pattern starts {read_phase} B in: {head}")
    lbo, sbo = tma.packed_offsets(spec, b, major, d.swizzle)
    return "TMA-PAIR-STRIDE", (f"LBO {d.lbo} B and SBO {d.sbo} B are not the box's packing "
                               f"(rows {b.pitch_bytes} B apart; the {atom_name(major, d.swizzle)} "
                               f"layout of this box has LBO {lbo} B, SBO {sbo} B): {head}")


def _candidates(spec: Spec, b: tma.Box, op: Operand, d: Descriptor) -> Iterator[Descriptor]:
    """Nearby descriptors: each field the user's or the box's."""
    for start, mode, field in product((d.start_address, b.base), (d.swizzle, b.swizzle),
                                      (d.base_offset, 0)):
        packed = tma.packed_offsets(spec, b, op.major, mode)
        for lbo, sbo in ((d.lbo, d.sbo), packed, (d.sbo, d.lbo), (d.lbo, packed[1])):
            try:
                yield Descriptor.of(spec, start_address=start, lbo=lbo, sbo=sbo, swizzle=mode,
                                    base_offset=field if mode != "none" else 0)
            except DescriptorError:
                continue


def _corrected(spec: Spec, b: tma.Box, op: Operand, d: Descriptor) -> Descriptor | None:
    """The descriptor that pairs and changes the fewest fields (None: no nearby one does)."""
    best: Descriptor | None = None
    for c in _candidates(spec, b, op, d):
        if best is not None and len(c.changed(d)) >= len(best.changed(d)):
            continue
        try:
            if tma.compose(spec, b, op.major, reads(spec, op, c)).identity:
                best = c
        except ExplainError:
            continue
    return best


def _tensor_maps(spec: Spec, b: tma.Box, op: Operand, d: Descriptor) -> Iterator[str]:
    """The CUtensorMapSwizzle enumerators whose box pairs with the descriptor as given."""
    read = reads(spec, op, d)
    for row in spec.of(TmaSwizzleMode):
        try:
            other = tma.box(spec, row.swizzle, b.dtype, b.rows, b.cols, b.base)
        except tma.TmaError:
            continue
        if tma.compose(spec, other, op.major, read).identity:
            yield tma.enum_row(spec, row.swizzle).id


def _evidence(spec: Spec, b: tma.Box, major: str, d: Descriptor) -> tuple[str, ...]:
    """The proof cases of the box's bijection and, where one covers it, this pairing's cell
    (a K-major reader, a box one cell's tile is: the rule's field or 0), its proof and its
    silicon case (gpu.tma_pairing: a real TMA copy read by wgmma)."""
    out = [f"proof.tma_box_bijective[{tma.mode_row(spec, b.swizzle).key}.{b.elem_bytes}B]"]
    field_rule = 0 if base_rule(spec, d.swizzle) is None else rule_field(spec, d.swizzle, b.base)
    cls = tma.base_class(spec, b.base, d.swizzle, d.base_offset)
    if (major == "K" and cls is not None and tma.writable(spec, b.swizzle, d.swizzle)
            and (cls != tma.OFF_RULE or d.base_offset == field_rule)):
        reader = spec.get(CanonicalLayout, atom_name("K", d.swizzle))
        cell = f"{tma.mode_row(spec, b.swizzle).key}~{reader.key}.{cls}"
        out += [f"proof.tma_pairing[{cell}]", f"gpu.tma_pairing[{cell}]"]
    return tuple(out)


__all__ = ["CODES", "TmaExplanation", "decode", "explain_tma", "reads"]
