"""Known findings: every spec discrepancy the checks, proofs and probes report, explained.

A DISCREPANCY whose case id is listed here, with exactly the observation listed, is a documented
finding: `ptxconf check` lists it and passes (it fails only under --strict). A discrepancy that is
not listed is new and unexplained and fails the run; so does a listed one whose observation has
changed (the numbers it shows are part of the finding), and a listed one that no longer occurs
fails the suite as stale. So a change to any number in spec/ fails `ptxconf check`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """Why the documents disagree, and the exact observation (the check's message) that shows it."""

    explanation: str
    observed: str



#: One finding, four instruction rows: the k32 .f16-accumulator pairings of e4m3/e5m2.
_K32_F16_VALID_N = Finding(
    explanation=(
        "PTX ISA 9.7.15.5.1.1.3 lists .f16 accumulators for m64nNk32 but its valid-N column "
        "is blank for them; the assembler accepts the f32 set (N = 8..256 step 8)."),
    observed=(
        'wgmma/register_fragments:k32.D.f16 lists no valid N (the PTX ISA\'s table is silent '
        'for .f16 accumulators at k32); the assembler (sm_90a) accepts N = '
        '8..256 step 8 for SS, RS'),
)


KNOWN_DISCREPANCIES: dict[str, Finding] = {
    'worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]': Finding(
        explanation=(
            'PTX ISA Figure 167 (K-major, 32B swizzle, tf32) uses k=2, so (T,2k):(1,T) spans '
            'four 16-byte chunks per row while rows are 2T elements (32 bytes) apart: row r '
            'chunk 2 is row r+1 chunk 0. The canonical K-major swizzled layouts hold only while '
            '2k*16 bytes fits the swizzle width (CUTLASS writes them with (T,2), i.e. k=1).'),
        observed=(
            "Figure 167's exact layout ((8,2),(4,4)):((8,64),(1,4)) maps (mn,k)=(1, 0) and (0, "
            '8) to element offset 8: not injective (its k=2 spans 4 16-byte chunks per row, '
            'wider than the 32B atom)'),
    ),
    'cutedsl.printed_atom[cutedsl/atoms_bf16:MN_INTER.bf16]': Finding(
        explanation=(
            "The CuTeDSL blog's list of M-major bf16 atoms prints the interleaved atom as "
            '(8,8):(8,1), the K-major one; its own make_smem_layout_atom builds (8,8):(1,8).'),
        observed=(
            'the blog prints Swizzle<0,4,3> o 0 o (8,8):(8,1); its make_smem_layout_atom builds '
            'Swizzle<0,4,3> o 0 o (8,8):(1,8) for MN-major bf16'),
    ),
    'cutedsl.tile_to_shape[cutedsl/worked_examples:tile.K_SW32.32x32.by_hand]': Finding(
        explanation=(
            "The blog's by-hand derivation writes ((8,16),(16,2)) for the first mode where its "
            'printed result (and tile_to_shape) have ((8,4),(16,2)): 32 rows / 8 = 4 repeats.'),
        observed=(
            'the blog prints Swizzle<1,4,3> o 0 o ((8,16),(16,2)):((16,128),(1,512)); '
            'tile_to_shape gives Swizzle<1,4,3> o 0 o ((8,4),(16,2)):((16,128),(1,512))'),
    ),
    'cutedsl.period[cutedsl/worked_examples:period.S143]': Finding(
        explanation=(
            "The blog reads Swizzle<1,4,3>'s period of 256 offset units as 256 bits = 32 B; 32 "
            'B is the row width of the 32B swizzle, its period on byte addresses is 256 B.'),
        observed=(
            "the blog reads Swizzle<1,4,3>'s period of 256 offset units as 256 bits = 32 B; on "
            'byte addresses (swizzle_unit=bytes, as the hardware swizzles) the pattern repeats '
            "every 256 B, on bf16 element offsets every 512 B; 32 B is the swizzle's row width "
            '(2^B x 2^M = 32 B)'),
    ),
    'cutedsl.period[cutedsl/worked_examples:period.S243]': Finding(
        explanation=(
            'As for Swizzle<1,4,3>: 64 B is the row width, the period is 512 B on byte '
            'addresses.'),
        observed=(
            "the blog reads Swizzle<2,4,3>'s period of 512 offset units as 512 bits = 64 B; on "
            'byte addresses (swizzle_unit=bytes, as the hardware swizzles) the pattern repeats '
            "every 512 B, on bf16 element offsets every 1024 B; 64 B is the swizzle's row width "
            '(2^B x 2^M = 64 B)'),
    ),
    'cutedsl.period[cutedsl/worked_examples:period.S343]': Finding(
        explanation=(
            'As for Swizzle<1,4,3>: 128 B is the row width, the period is 1024 B on byte '
            'addresses.'),
        observed=(
            "the blog reads Swizzle<3,4,3>'s period of 1024 offset units as 1024 bits = 128 B; "
            'on byte addresses (swizzle_unit=bytes, as the hardware swizzles) the pattern '
            "repeats every 1024 B, on bf16 element offsets every 2048 B; 128 B is the swizzle's "
            'row width (2^B x 2^M = 128 B)'),
    ),
    'cute.domain_comment[cute/mma_atoms:SM90_64xNx16.ALayout.SS]': Finding(
        explanation=(
            "CUTLASS's CuTe MMA-atom doc comments the SS ALayout as (T128,V64x8) -> (M64,K16), "
            "but the layout's value mode (64,16) holds 64x16 = 1024 values per thread."),
        observed=(
            "cute/mma_atoms:SM90_64xNx16.ALayout.SS: the comment '(T128,V64x8) -> (M64,K16)' "
            'says value shape (64, 8), the layout (128,(64,16)):(0,(1,64)) has value shape (64, '
            '16) (512 vs 1024 values per thread)'),
    ),
    'proof.layout_injective[wgmma/canonical_layouts:K_SW32]': Finding(
        explanation=(
            "The PTX ISA's canonical K-major 32B layout ((8,m),(T,2k)):((2T,SBO),(1,T)) puts "
            'row r 2 chunks (= 32 B, the swizzle row width) after row r-1 and chunk j of a row '
            '16*j B after its start, for any k; once 2k*16 B exceeds 32 B (k > 1) chunk 2 of '
            'row r is chunk 0 of row r+1, so the layout is not injective whatever SBO is. The '
            'document bounds neither k nor the K extent of one descriptor; CUTLASS writes these '
            'atoms with (T,2) chunks per instruction and advances the descriptor along K, which '
            'stays within the bound.'),
        observed=(
            'K_SW32 is not injective for every k: its core is injective iff k <= 1 (2k*16 B <= '
            '32 B, the swizzle row width) (f16, tf32, e4m3, b1); at k=2: K_SW32 f16 m=1 k=2 '
            'LBO=0x0 SBO=0x0: (mn 1, k 0: row 1, chunk 0) and (mn 0, k 16: row 0, chunk 2) both '
            'at 0x020; for m, k <= 3 (k within the bound), injective iff every repeat step '
            "avoids the core's difference set (the same in bytes for f16, tf32, e4m3, b1); at "
            'm=2, k=1: SBO not in (-256, 256) B'),
    ),
    'proof.layout_injective[wgmma/canonical_layouts:K_SW64]': Finding(
        explanation=(
            "The PTX ISA's canonical K-major 64B layout ((8,m),(T,2k)):((4T,SBO),(1,T)) puts "
            'row r 4 chunks (= 64 B, the swizzle row width) after row r-1 and chunk j of a row '
            '16*j B after its start, for any k; once 2k*16 B exceeds 64 B (k > 2) chunk 4 of '
            'row r is chunk 0 of row r+1, so the layout is not injective whatever SBO is. The '
            'document bounds neither k nor the K extent of one descriptor; CUTLASS writes these '
            'atoms with (T,2) chunks per instruction and advances the descriptor along K, which '
            'stays within the bound.'),
        observed=(
            'K_SW64 is not injective for every k: its core is injective iff k <= 2 (2k*16 B <= '
            '64 B, the swizzle row width) (f16, tf32, e4m3, b1); at k=3: K_SW64 f16 m=1 k=3 '
            'LBO=0x0 SBO=0x0: (mn 1, k 0: row 1, chunk 0) and (mn 0, k 32: row 0, chunk 4) both '
            'at 0x040; for m, k <= 3 (k within the bound), injective iff every repeat step '
            "avoids the core's difference set (the same in bytes for f16, tf32, e4m3, b1); at "
            'm=2, k=1: SBO not in (-32, 32) + 64j for |j| <= 7 B'),
    ),
    'proof.layout_injective[wgmma/canonical_layouts:K_SW128]': Finding(
        explanation=(
            "The PTX ISA's canonical K-major 128B layout ((8,m),(T,2k)):((8T,SBO),(1,T)) puts "
            'row r 8 chunks (= 128 B, the swizzle row width) after row r-1 and chunk j of a row '
            '16*j B after its start, for any k; once 2k*16 B exceeds 128 B (k > 4) chunk 8 of '
            'row r is chunk 0 of row r+1, so the layout is not injective whatever SBO is. The '
            'document bounds neither k nor the K extent of one descriptor; CUTLASS writes these '
            'atoms with (T,2) chunks per instruction and advances the descriptor along K, which '
            'stays within the bound.'),
        observed=(
            'K_SW128 is not injective for every k: its core is injective iff k <= 4 (2k*16 B <= '
            '128 B, the swizzle row width) (f16, tf32, e4m3, b1); at k=5: K_SW128 f16 m=1 k=5 '
            'LBO=0x0 SBO=0x0: (mn 1, k 0: row 1, chunk 0) and (mn 0, k 64: row 0, chunk 8) both '
            'at 0x090; for m, k <= 3 (k within the bound), injective iff every repeat step '
            "avoids the core's difference set (the same in bytes for f16, tf32, e4m3, b1); at "
            'm=2, k=1: SBO not in (-32, 32) + 128j for |j| <= 7 B'),
    ),
    'proof.example_injective[wgmma/worked_examples:fig167.K.32B.tf32]': Finding(
        explanation=(
            'PTX ISA Figure 167 (K-major, 32B swizzle, tf32) instantiates the canonical layout '
            'with k=2: (T,2k):(1,T) spans four 16-byte chunks per row while rows are 2T '
            'elements (32 B) apart, so (mn 0, k 8) -- row 0, chunk 2 -- and (mn 1, k 0) -- row '
            '1, chunk 0 -- are both at byte 0x20. The 32B K-major layout is injective only for '
            'k = 1 (see proof.layout_injective[wgmma/canonical_layouts:K_SW32]).'),
        observed=(
            'Figure 167 (K-major, 32B, tf32, k=2): (mn 0, k 8: row 0, chunk 2) and (mn 1, k 0: '
            'row 1, chunk 0) both at 0x020: Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4)) is '
            'not injective'),
    ),
    'gpu.hypothesis[base_offset]': Finding(
        explanation=(
            "The PTX ISA (Matrix Descriptor Format) gives the base-offset field's value, "
            "(start >> 7) & 7, for a start not aligned to the swizzle repeat, but not its effect; "
            "the oracle's documented reading takes the field as informative. On an H100 the "
            "hardware swizzles start + offset - (field << 7): with the field 0 the pattern follows "
            "absolute address bits, with the field per the rule it restarts at the 128-B row "
            "holding the start (reading field_moves_phase; reports/evidence/h100)."),
        observed=(
            "unaligned operand start (field 0: ['absolute']; field per rule, start on a 128-B "
            "row: ['relative']; field per rule, start inside a 128-B row: neither reading): the "
            "base-offset field is not only informative, it moves the swizzle phase; "
            "swizzle(start + offset - (field << 7)) fits every probe"),
    ),
    **{f"witness.valid_n[wgmma/instruction_types:k32.f16.{a}.{b}]": _K32_F16_VALID_N
       for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")},
}


def explain(case_id: str) -> Finding | None:
    """The known finding of a case id, or None."""
    return KNOWN_DISCREPANCIES.get(case_id)
