"""The refutations the proofs expect: each a real, explained finding about the documents.

A refuted claim whose id is listed here is a known spec discrepancy, reported with this text;
a refuted claim that is not listed is new and fails the suite, and a listed claim that is no
longer refuted is stale and fails it too (conformance/test_proofs.py). Pure data: importing it
needs no solver.
"""

from __future__ import annotations

_K_SWIZZLED = (
    "The PTX ISA's canonical K-major {mode} layout ((8,m),(T,2k)):(({w}T,SBO),(1,T)) puts row r "
    "{w} chunks (= {b} B, the swizzle row width) after row r-1 and chunk j of a row 16*j B after "
    "its start, for any k; once 2k*16 B exceeds {b} B (k > {kmax}) chunk {w} of row r is chunk 0 "
    "of row r+1, so the layout is not injective whatever SBO is. The document bounds neither k "
    "nor the K extent of one descriptor; CUTLASS writes these atoms with (T,2) chunks per "
    "instruction and advances the descriptor along K, which stays within the bound."
)

EXPECTED_FINDINGS: dict[str, str] = {
    "proof.layout_injective[wgmma/canonical_layouts:K_SW32]":
        _K_SWIZZLED.format(mode="32B", w=2, b=32, kmax=1),
    "proof.layout_injective[wgmma/canonical_layouts:K_SW64]":
        _K_SWIZZLED.format(mode="64B", w=4, b=64, kmax=2),
    "proof.layout_injective[wgmma/canonical_layouts:K_SW128]":
        _K_SWIZZLED.format(mode="128B", w=8, b=128, kmax=4),
    "proof.example_injective[wgmma/worked_examples:fig167.K.32B.tf32]":
        "PTX ISA Figure 167 (K-major, 32B swizzle, tf32) instantiates the canonical layout with "
        "k=2: (T,2k):(1,T) spans four 16-byte chunks per row while rows are 2T elements (32 B) "
        "apart, so (mn 0, k 8) -- row 0, chunk 2 -- and (mn 1, k 0) -- row 1, chunk 0 -- are "
        "both at byte 0x20. The 32B K-major layout is injective only for k = 1 (see "
        "proof.layout_injective[wgmma/canonical_layouts:K_SW32]).",
}


def explain(claim_id: str) -> str | None:
    """The explanation of an expected refutation, or None when the claim should be proved."""
    return EXPECTED_FINDINGS.get(claim_id)
