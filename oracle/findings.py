"""Known findings: every spec discrepancy the checks and proofs report, with its explanation.

A DISCREPANCY whose case id is listed here is a documented finding: `ptxconf check` lists it
and passes (fails only under --strict). A discrepancy that is NOT listed is new, unexplained,
and fails the run; a listed one that no longer occurs is stale and fails the suite. So a change
to any number in spec/ that breaks agreement between two documents fails `ptxconf check`.
"""

from __future__ import annotations

KNOWN_DISCREPANCIES: dict[str, str] = {
    "worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]":
        "PTX ISA Figure 167 (K-major, 32B swizzle, tf32) uses k=2, so (T,2k):(1,T) spans four "
        "16-byte chunks per row while rows are 2T elements (32 bytes) apart: row r chunk 2 is row "
        "r+1 chunk 0. The canonical K-major swizzled layouts hold only while 2k*16 bytes fits the "
        "swizzle width (CUTLASS writes them with (T,2), i.e. k=1).",
    "cutedsl.printed_atom[cutedsl/atoms_bf16:MN_INTER.bf16]":
        "The CuTeDSL blog's list of M-major bf16 atoms prints the interleaved atom as "
        "(8,8):(8,1), the K-major one; its own make_smem_layout_atom builds (8,8):(1,8).",
    "cutedsl.tile_to_shape[cutedsl/worked_examples:tile.K_SW32.32x32.by_hand]":
        "The blog's by-hand derivation writes ((8,16),(16,2)) for the first mode where its "
        "printed result (and tile_to_shape) have ((8,4),(16,2)): 32 rows / 8 = 4 repeats.",
    "cutedsl.period[cutedsl/worked_examples:period.S143]":
        "The blog reads Swizzle<1,4,3>'s period of 256 offset units as 256 bits = 32 B; 32 B is "
        "the row width of the 32B swizzle, its period on byte addresses is 256 B.",
    "cutedsl.period[cutedsl/worked_examples:period.S243]":
        "As for Swizzle<1,4,3>: 64 B is the row width, the period is 512 B on byte addresses.",
    "cutedsl.period[cutedsl/worked_examples:period.S343]":
        "As for Swizzle<1,4,3>: 128 B is the row width, the period is 1024 B on byte addresses.",
}


def explain(case_id: str) -> str | None:
    """The explanation of a known finding, or None when the case id is not a known finding."""
    return KNOWN_DISCREPANCIES.get(case_id)
