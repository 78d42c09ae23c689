"""synthesize's refusals (oracle/explain/synthesize.py): why no descriptor reads a layout, the
closest try, and nearby layouts that are read; its parsing and synthesis are
test_explain_synthesize.py's.

A `Refusal` says why no descriptor reads a layout, the closest try, and nearby layouts that work.
Every expected value below is worked by hand from:

* the module's documented refusal: the layout is not injective (the first two elements, in
  row-major order, of the lowest address held twice); its swizzle on bytes is none of the
  hardware's (Swizzle<3,4,3> 128B, Swizzle<2,4,3> 64B, Swizzle<1,4,3> 32B, in the spec's
  layout-type order); no 8-row core matrix of 16 contiguous bytes (T elements) runs along k (K)
  or mn (MN); a K-major row pitch that is not 16 B unswizzled, or the atom's leading_u128 * 16 B
  swizzled (spec/wgmma/swizzle_atoms.yaml); the closest try (fewest mismatching elements of the
  first failing block, ties to the mode tried first), and a swizzled start inside a 128-B row;
* the canonical layouts of spec/wgmma/canonical_layouts.yaml: LBO and SBO are solved at the first
  element (row-major) that takes one step of the stride and none of the other; a stride the
  template never steps is the 16-B granule; the read map then XORs bits 7-9 (128B), 7-8 (64B) or
  7 (32B) of the byte offset into bits 4-6 (4-5, 4); mismatch counts are counted by hand below;
* the suggestions: the same outer layout with each hardware swizzle in the user's unit, then the
  same text in the other unit, each synthesised at the same start and kept only if it is read;
* spec/wgmma/matrix_descriptor.yaml (bit layout, layout-type codes) and base_offset.yaml, as
  in the other file; the wording and JSON keys, the contract of `ptxconf explain layout [--json]`.
"""

from __future__ import annotations

import pytest
from case_outcomes import BF16_K, BF16_MN, E4M3_K, README_LAYOUT
from case_outcomes import descriptor_block as _block
from case_outcomes import descriptor_value as _value
from case_outcomes import refused as _refuse
from case_outcomes import synthesized as _found
from scratch_spec import descriptor_field_replaced, replaced_row

from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.synthesize import Refusal, Synthesis, synthesize
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()

# --- refusals -----------------------------------------------------------------------------------


def test_rows_32_bytes_apart_without_a_swizzle_is_the_whole_refusal() -> None:
    """(i, j) at 32 i + 2 j. K_INTER (LBO 16, SBO 256) misreads rows 1-7 of each group (7*8*16 =
    896); K_SW32 (SBO 256) reads the unswizzled rows but flips bit 4 of rows 4-7 (4*8*16 = 512,
    the fewest; first (4, 0): 0x80 vs 0x90); 64B/128B agree on at most 64 elements. The 32B
    swizzle makes it a K_SW32 tile."""
    got = _refuse("(64,16):(16,1)")
    assert got.as_dict() == {
        "ok": False, "layout": "(64,16):(16,1)", "dtype": "bf16", "swizzle_unit": "bytes",
        "swizzle_on_bytes": "none", "tile": [64, 16],
        "reasons": ["without a swizzle a K-major core matrix is 8 rows of 16 B, 16 B apart (one "
                    "128-B block, K_INTER); the layout's rows are 32 B apart",
                    "closest: K-major 32B, LBO 16 B, SBO 256 B: 512 element(s) differ, the first "
                    "(mn 4, k 0): the layout puts it at 0x80, the tensor core reads 0x90"],
        "rule": None,
        "closest": {"major": "K", "swizzle": "32B", "descriptor": _value(0, 16, 256, "32B"),
                    "lbo": 16, "sbo": 256, "mismatches": 512,
                    "first": {"mn": 4, "k": 0, "layout": 0x80, "tensor_core": 0x90}},
        "suggestions": [{"layout": "Swizzle<1,4,3> o 0 o (64,16):(16,1)", "swizzle_unit": "bytes",
                         "why": "the same layout with the 32B swizzle",
                         "descriptor": _value(0, 16, 256, "32B"), "major": "K", "swizzle": "32B",
                         "lbo": 16, "sbo": 256}]}


def test_a_non_injective_layout_inside_a_row_is_the_whole_refusal() -> None:
    """(i, j) at 0x20 + 16 i + 2 j: (0, 8) and (1, 0) share 0x30 (the first pair by address, the
    lower flat index first); the swizzled modes cannot start inside a row (said once); K_INTER
    reads it exactly (LBO 16, SBO 128), so there is no closest."""
    got = _refuse("(64,16):(8,1)", start=0x20, suggest=False)
    assert got.as_dict() == {
        "ok": False, "layout": "(64,16):(8,1)", "dtype": "bf16", "swizzle_unit": "bytes",
        "swizzle_on_bytes": "none", "tile": [64, 16],
        "reasons": ["the layout is not injective: (mn 0, k 8) and (mn 1, k 0) are both at 0x30: "
                    "no operand puts two elements at one address",
                    "the start 0x20 is inside a 128-byte row: no base-offset field anchors a "
                    "swizzle pattern there"],
        "rule": None, "closest": None, "suggestions": []}


def test_the_first_duplicate_is_the_first_by_flat_index() -> None:
    """(i, j) at 2 j: address 0 holds (0, 0), (1, 0), (2, 0), ...: the first two in row-major order."""
    got = _refuse("(64,16):(0,1)", suggest=False)
    assert got.reasons[0] == ("the layout is not injective: (mn 0, k 0) and (mn 1, k 0) are both at "
                              "0x0: no operand puts two elements at one address")


def test_a_swizzle_no_mode_has_is_named_with_the_hardware_ones() -> None:
    """The README layout read on bf16 elements is Swizzle<3,5,3> on bytes; its two fixes: the
    128B swizzle in elements (Swizzle<3,3,3>), and the same text read on bytes."""
    got = _refuse(README_LAYOUT, swizzle_unit="elements")
    assert got.reasons[0] == ("its swizzle acts on byte addresses as Swizzle<3,5,3> (read on "
                              "elements); the tensor core's are Swizzle<3,4,3> (128B), "
                              "Swizzle<2,4,3> (64B), Swizzle<1,4,3> (32B)")
    fix = {"descriptor": _value(0, 16, 1024, "128B"), "major": "K", "swizzle": "128B", "lbo": 16,
           "sbo": 1024}
    assert list(got.suggestions) == [
        {"layout": "Swizzle<3,3,3> o 0 o ((8,8),64):((64,512),1)", "swizzle_unit": "elements",
         "why": "the same layout with the 128B swizzle", **fix},
        {"layout": README_LAYOUT, "swizzle_unit": "bytes",
         "why": "the same text with its swizzle read on bytes", **fix}]


def test_a_k_major_swizzle_with_the_wrong_row_pitch() -> None:
    """A 128B K-major atom is 8 rows of leading_u128 (8) * 16 = 128 B (1024 B); rows 64 B apart."""
    got = _refuse("Swizzle<3,4,3> o 0 o ((8,8),32):((32,256),1)")
    assert got.reasons[0] == ("a K-major 128B swizzle reads rows 128 B apart (8 rows = 1024 B); the "
                              "layout's rows are 64 B apart")
    got = _refuse("Swizzle<1,4,3> o 0 o ((8,8),64):((64,512),1)")
    assert got.reasons[0] == ("a K-major 32B swizzle reads rows 32 B apart (8 rows = 256 B); the "
                              "layout's rows are 128 B apart")


def test_no_k_major_core_matrix() -> None:
    """(i, j) at 2 i + 128 j: k is not contiguous; K-only says so, K/MN finds it MN-major."""
    got = _refuse("(64,16):(1,64)", suggest=False)
    assert got.reasons[0] == ("no K-major core matrix: wgmma reads 8 rows of 16 contiguous bytes (8 "
                              "bf16 elements) along k, and the layout's first such run is not "
                              "contiguous")
    both = _refuse("(64,16):(2,128)", majors=("K", "MN"), suggest=False)
    assert both.reasons[0] == ("no K/MN-major core matrix: wgmma reads 8 rows of 16 contiguous bytes "
                               "(8 bf16 elements) along k or mn, and the layout's first such run "
                               "is not contiguous")


def test_an_mn_contiguous_layout_has_its_mn_core_matrix() -> None:
    """(i, j) at 2 i + 128 j without a swizzle: MN-contiguous rows (no core-matrix reason), but
    no MN mode reads 128-B k rows unswizzled; the 128B swizzle makes it MN_SW128 (SBO 1024)."""
    got = _refuse("(64,16):(1,64)", majors=("K", "MN"))
    assert got.reasons
    assert [r for r in got.reasons if "core matrix" in r] == []
    assert [s["layout"] for s in got.suggestions] == ["Swizzle<3,4,3> o 0 o (64,16):(1,64)"]
    assert (got.suggestions[0]["major"], got.suggestions[0]["sbo"]) == ("MN", 1024)


def test_an_fp8_tile_shorter_than_a_core_matrix_along_mn() -> None:
    """8 x 32 e4m3, 1 B along mn: 8 rows are fewer than the 16 an MN run needs."""
    op = Operand("e4m3", "K", 8, 32, 8)
    got = _refuse("(8,32):(1,8)", op, majors=("K", "MN"), suggest=False)
    assert got.reasons[0] == ("no K/MN-major core matrix: wgmma reads 8 rows of 16 contiguous bytes "
                              "(16 e4m3 elements) along k or mn, and the layout's first such run "
                              "is not contiguous")


def test_a_stride_no_field_holds_leaves_only_the_fallback_reason() -> None:
    """8-row groups 2^18 B apart: SBO does not fit 14 bits of 16 B in any mode, so no try has a
    descriptor, no closest, and the one reason is the fallback."""
    got = _refuse("Swizzle<3,4,3> o 0 o ((8,8),64):((64,131072),1)", suggest=False)
    assert got.reasons == ("no major-ness and swizzle mode reads it",)
    assert got.closest is None


def test_the_closest_counts_the_first_failing_block_only() -> None:
    """64 x 32, rows 64 B apart, no swizzle: K_SW64 (SBO 512) reads rows 0-1 of each group and
    swaps 16-B chunks of rows 2-7 (bits 7-8 into 4-5): 6*8*16 = 768 in block (0, 0), the fewest
    (K_INTER and K_SW32 agree on row 0 only, 896; K_SW128 on row 0 of even groups, 960); the
    second k-block is not counted. First (2, 0): 0x80 ^ 0x10."""
    got = _refuse("(64,32):(32,1)")
    assert got.as_dict() == {
        "ok": False, "layout": "(64,32):(32,1)", "dtype": "bf16", "swizzle_unit": "bytes",
        "swizzle_on_bytes": "none", "tile": [64, 32],
        "reasons": ["without a swizzle a K-major core matrix is 8 rows of 16 B, 16 B apart (one "
                    "128-B block, K_INTER); the layout's rows are 64 B apart",
                    "closest: K-major 64B, LBO 16 B, SBO 512 B: 768 element(s) differ, the first "
                    "(mn 2, k 0): the layout puts it at 0x80, the tensor core reads 0x90"],
        "rule": None,
        "closest": {"major": "K", "swizzle": "64B", "descriptor": _value(0, 16, 512, "64B"),
                    "lbo": 16, "sbo": 512, "mismatches": 768,
                    "first": {"mn": 2, "k": 0, "layout": 0x80, "tensor_core": 0x90}},
        "suggestions": [{"layout": "Swizzle<2,4,3> o 0 o (64,32):(32,1)", "swizzle_unit": "bytes",
                         "why": "the same layout with the 64B swizzle",
                         "descriptor": _value(0, 16, 512, "64B"), "major": "K", "swizzle": "64B",
                         "lbo": 16, "sbo": 512}]}


def test_the_first_mismatch_names_its_k() -> None:
    """k runs of 4 elements, 32 B apart: every mode reads (0, 1..3) at 2, 4, 6 B and (0, 4) at 8 B,
    where the layout has 32 B; so whichever mode is closest, its first mismatch is (0, 4)."""
    got = _refuse("(64,(4,4)):(64,(1,16))", suggest=False)
    assert got.closest is not None
    assert got.closest["first"] == {"mn": 0, "k": 4, "layout": 0x20, "tensor_core": 0x8}
    assert got.reasons[-1].endswith("the first (mn 0, k 4): the layout puts it at 0x20, the tensor "
                                    "core reads 0x8")


def test_mn_only_for_fp8_tries_nothing_and_says_why() -> None:
    """No MN-major for e4m3 and K not asked: no try at all, so any tile is judged on its runs only
    (an 8 x 4 tile is shorter than a 16-element run either way)."""
    got = _refuse("(8,4):(4,1)", E4M3_K, majors=("MN",), suggest=False)
    assert got.as_dict()["reasons"] == [
        "no MN-major core matrix: wgmma reads 8 rows of 16 contiguous bytes (16 e4m3 elements) "
        "along mn, and the layout's first such run is not contiguous"]
    assert got.as_dict()["tile"] == [8, 4]
    assert got.closest is None


def test_a_bytes_reading_gets_the_elements_reading_suggested() -> None:
    """Swizzle<3,3,3> read on bytes is no hardware swizzle; the 128B one on bytes and the same text
    read on bf16 elements (Swizzle<3,4,3> on bytes) both give the README descriptor."""
    text = "Swizzle<3,3,3> o 0 o ((8,8),64):((64,512),1)"
    got = _refuse(text)
    assert got.reasons[0] == ("its swizzle acts on byte addresses as Swizzle<3,3,3> (read on "
                              "bytes); the tensor core's are Swizzle<3,4,3> (128B), Swizzle<2,4,3> "
                              "(64B), Swizzle<1,4,3> (32B)")
    fix = {"descriptor": _value(0, 16, 1024, "128B"), "major": "K", "swizzle": "128B", "lbo": 16,
           "sbo": 1024}
    assert list(got.suggestions) == [
        {"layout": README_LAYOUT, "swizzle_unit": "bytes",
         "why": "the same layout with the 128B swizzle", **fix},
        {"layout": text, "swizzle_unit": "elements",
         "why": "the same text with its swizzle read on elements", **fix}]


def test_k_major_row_checks_only_when_k_major_is_asked() -> None:
    """K-major row pitches (16 B unswizzled, the atom's width swizzled) are not judged for MN only."""
    plain = _refuse("(64,16):(16,1)", BF16_MN, suggest=False)
    swizzled = _refuse("Swizzle<3,4,3> o 0 o ((8,8),32):((32,256),1)", BF16_MN, suggest=False)
    both = plain.reasons + swizzled.reasons
    assert plain.reasons[0].startswith("no MN-major core matrix")
    assert len(both) >= 2
    assert [r for r in both if "K-major" in r or "apart" in r] == []


def test_no_k_run_no_row_pitch_reason() -> None:
    """(i, j) at 2 i + 128 j, K only: the rows are 2 B apart, but without a K run no row is judged."""
    got = _refuse("(64,16):(1,64)", suggest=False)
    assert got.reasons[0].startswith("no K-major core matrix")
    assert [r for r in got.reasons if "apart" in r] == []


def test_an_mn_tile_exactly_one_core_matrix_long() -> None:
    """bf16 MN-major 8 x 16: 8 rows make a 16-B MN run (T = 8), so no core-matrix reason; k rows
    32 B apart without a swizzle are no MN mode's."""
    op = Operand("bf16", "MN", 8, 16, 16)
    got = _refuse("(8,16):(1,16)", op, suggest=False)
    assert got.reasons
    assert [r for r in got.reasons if "core matrix" in r] == []
    # and 16 B apart, with the second 8 k at 128 B, is MN_INTER (LBO 128)
    found = _found("(8,16):(1,8)", op)
    assert found.as_dict()["blocks"] == [_block((0, 0), 0, 128, 16, "none")]


# --- what the reasons and choices are measured from ---------------------------------------------


def test_the_row_pitch_is_measured_from_row_0_not_from_0() -> None:
    """With a composed offset (64 bf16 = 128 B) the rows are still 32 B (64 B) apart: the pitch is
    raw(1, 0) - raw(0, 0), the offset cancels."""
    plain = _refuse("Swizzle<0,4,3> o 64 o (64,16):(16,1)", suggest=False)
    assert plain.reasons[0] == ("without a swizzle a K-major core matrix is 8 rows of 16 B, 16 B "
                                "apart (one 128-B block, K_INTER); the layout's rows are 32 B apart")
    swizzled = _refuse("Swizzle<3,4,3> o 64 o ((8,8),32):((32,256),1)", suggest=False)
    assert swizzled.reasons[0] == ("a K-major 128B swizzle reads rows 128 B apart (8 rows = 1024 B); "
                                   "the layout's rows are 64 B apart")


def test_strides_are_solved_where_the_other_stride_and_k_take_no_step() -> None:
    """(i, j) at 128 i + 4 j: k is not contiguous. Every mode solves SBO 1024 at (8, 0) and
    K_INTER LBO 32 at (0, 8). K_INTER agrees where 16 r + 2 l = 128 r + 4 l (r = l = 0: 2 per
    group, 1008 differ); K_SW128 where 2 j ^ 16 r = 4 j ((0, 0) and (3, 8): 1008 differ, tried
    after none); K_SW64 and K_SW32 at (0, 0) of each group only (1016)."""
    got = _refuse("(64,16):(64,2)", suggest=False)
    assert got.as_dict()["closest"] == {
        "major": "K", "swizzle": "none", "descriptor": _value(0, 32, 1024, "none"), "lbo": 32,
        "sbo": 1024, "mismatches": 1008, "first": {"mn": 0, "k": 1, "layout": 4, "tensor_core": 2}}
    assert got.reasons == (
        "no K-major core matrix: wgmma reads 8 rows of 16 contiguous bytes (8 bf16 elements) along "
        "k, and the layout's first such run is not contiguous",
        "closest: K-major none, LBO 32 B, SBO 1024 B: 1008 element(s) differ, the first (mn 0, k 1): "
        "the layout puts it at 0x4, the tensor core reads 0x2")


def test_suggestions_are_synthesised_at_the_given_start() -> None:
    """At 0x480 the K_SW32 suggestion starts there, with field (0x480 >> 7) & 7 = 1."""
    got = _refuse("(64,16):(16,1)", start=0x480)
    assert [(s["layout"], s["descriptor"]) for s in got.suggestions] == [
        ("Swizzle<1,4,3> o 0 o (64,16):(16,1)", _value(0x480, 16, 256, "32B", 1))]


# --- the descriptor format comes from the spec explain is given (--spec-dir) ---------------------

@pytest.fixture(scope="module")
def other_format() -> Spec:
    """The bundled spec with the layout-type codes listed 32B, 128B, none, 64B (64B = 3, 32B = 2)
    and the LBO field storing value >> 5 (a 32-B granule), in memory (SPEC-QUOTE refuses a
    format its quotes and CUTLASS's table contradict at load)."""
    spec = descriptor_field_replaced("layout_type", codes={"32B": 2, "128B": 1, "none": 0, "64B": 3})
    return replaced_row(spec, "wgmma/matrix_descriptor:leading_byte_offset", encode_shift_bits=5)


def test_the_layout_type_code_and_granule_are_the_specs(other_format: Spec) -> None:
    """64B is code 3 (bits 63-62 = 0b11); the unused LBO is the 32-B granule (field 32 >> 5 = 1);
    SBO 512 >> 4 = 0x20 in bits 45-32."""
    got = synthesize(other_format, "Swizzle<2,4,3> o 0 o ((8,8),16):((32,256),1)", BF16_K)
    assert isinstance(got, Synthesis)
    assert (got.desc.swizzle, got.desc.lbo, got.desc.sbo) == ("64B", 32, 512)
    assert got.as_dict()["descriptor"] == "0xc000002000010000"


def test_the_hardware_swizzles_are_listed_in_the_specs_order(other_format: Spec) -> None:
    """The refusal names the hardware swizzles in the layout-type order of the spec given."""
    got = synthesize(other_format, "Swizzle<3,3,3> o 0 o ((8,8),64):((64,512),1)", BF16_K)
    assert isinstance(got, Refusal)
    assert got.reasons[0] == ("its swizzle acts on byte addresses as Swizzle<3,3,3> (read on bytes); "
                              "the tensor core's are Swizzle<1,4,3> (32B), Swizzle<3,4,3> (128B), "
                              "Swizzle<2,4,3> (64B)")


def test_a_tie_for_closest_goes_to_the_mode_tried_first(other_format: Spec) -> None:
    """(i, j) at 128 i + 4 j: K_INTER and K_SW128 both misread 1008 elements (see above); with 128B
    listed before none, 128B is tried first and is the closest (LBO: the 32-B granule)."""
    got = synthesize(other_format, "(64,16):(64,2)", BF16_K, suggest=False)
    assert isinstance(got, Refusal)
    assert got.closest is not None
    assert {k: got.closest[k] for k in ("swizzle", "lbo", "sbo", "mismatches")} == {
        "swizzle": "128B", "lbo": 32, "sbo": 1024, "mismatches": 1008}
