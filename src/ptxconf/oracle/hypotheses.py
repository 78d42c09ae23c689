"""Competing readings of ambiguous rules, each named, until a proof or a probe decides.

A hypothesis has one *documented* reading (what the text most plainly says, or what CUTLASS
does) and alternatives. The oracle takes the chosen reading as an argument everywhere a rule
is ambiguous; nothing picks one silently. The GPU probes record which reading the silicon
followed as evidence (reports/evidence/<device>/).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hypothesis:
    """A named ambiguity and its readings; `documented` is the default reading."""

    name: str
    question: str
    readings: dict[str, str]
    documented: str


SWIZZLE_UNIT = Hypothesis(
    name="swizzle_unit",
    question="Does Swizzle<B,4,3> of a canonical layout act on byte addresses or on the "
             "element offsets the layout is written in?",
    readings={
        "bytes": "the swizzle XORs bits of the shared-memory byte address (CUTLASS smem_ptr "
                 "swizzle; Table 38's atoms are 16-byte chunks within 2^B*16-byte rows)",
        "elements": "the swizzle XORs bits of the element offset of the canonical layout, as "
                    "the CuTe notation of the PTX ISA and the CuTeDSL blog read literally",
    },
    documented="bytes",
)

MN_LBO_SBO_ROLES = Hypothesis(
    name="mn_lbo_sbo_roles",
    question="For MN-major swizzled layouts, does LBO step along MN and SBO along K "
             "(canonical layouts, LBO/SBO tables), or the other way round?",
    readings={"as_documented": "LBO steps along MN, SBO along K",
              "swapped": "SBO steps along MN, LBO along K"},
    documented="as_documented",
)

K_SWIZZLED_LBO = Hypothesis(
    name="k_swizzled_lbo",
    question="For K-major swizzled layouts the LBO table says 'not used, assumed to be 1': is "
             "the field ignored by the hardware?",
    readings={"ignored": "any LBO value gives the same result",
              "used": "the LBO field changes which addresses are read"},
    documented="ignored",
)

BASE_OFFSET = Hypothesis(
    name="base_offset",
    question="When the operand start is not aligned to the swizzle repeat, does the swizzle "
             "act on the absolute address (base offset field only informative), on the "
             "address relative to the start, or on the address moved by the base-offset field?",
    readings={"absolute": "swizzle(start + offset): the pattern follows absolute address bits",
              "relative": "start + swizzle(offset): the pattern restarts at the operand start",
              "field_moves_phase": "swizzle(start + offset - (field << 7)): the descriptor's "
                                   "base-offset field moves the swizzle phase (fitted to every "
                                   "H100 probe; reports/evidence/h100)"},
    documented="absolute",
)

A_REGISTER_LAYOUT = Hypothesis(
    name="a_regs_like_d16",
    question="Where does each element of a wgmma register A fragment (RS form) sit in the "
             "64 x K tile? Figures 148/150/152/154 are images; no text or CuTe row states it.",
    readings={
        "a_regs_like_d16": "the 64 x K tile, read as 64 x (K*bits/16) halfword columns, follows "
                           "the f16-accumulator map of that width (2 halfwords per register), "
                           "each halfword holding 16/bits consecutive K elements (a tf32 element "
                           "spans both halfwords of its register)",
    },
    documented="a_regs_like_d16",
)

TMA_SWIZZLE_BASE = Hypothesis(
    name="tma_swizzle_base",
    question="Does a tensor copy (TMA) swizzle the absolute shared-memory address, so that a "
             "destination off the pattern's repeat starts the pattern at its phase, or does the "
             "pattern restart at the destination?",
    readings={"absolute": "swizzle(dst + offset): PTX ISA 5.5.7 gives the pattern tables for a "
                          "start on the repeat and a 'swizzle base offset' (dstMem / 128) % N "
                          "for any other start",
              "relative": "dst + swizzle(offset): the pattern restarts at the destination"},
    documented="absolute",
)

ALL: tuple[Hypothesis, ...] = (SWIZZLE_UNIT, MN_LBO_SBO_ROLES, K_SWIZZLED_LBO, BASE_OFFSET,
                              A_REGISTER_LAYOUT, TMA_SWIZZLE_BASE)


def reading(h: Hypothesis, chosen: str | None) -> str:
    """Validate a chosen reading (None: the documented one)."""
    value = h.documented if chosen is None else chosen
    if value not in h.readings:
        raise ValueError(f"{h.name}: unknown reading {value!r} (expected one of {sorted(h.readings)})")
    return value
