"""The descriptor diagnosis of `ptxconf explain descriptor` (oracle/explain/diagnose.py): its JSON
contract (as_dict, check_dict), the search for a corrected descriptor and its alternatives (the
modes, strides and fields tried, in the spec's order; the rank), and what it finds wrong.

Expected values come from the documented semantics, worked by hand:

* diagnose.py's docstring: the search keeps the start and tries every swizzle mode, LBO and SBO
  among the user's two values, the mode's packed values (`interpret.compact_strides`) and the
  stride granule (16 B: the LBO field stores bytes >> 4, spec/wgmma/matrix_descriptor.yaml), the
  base-offset field as given and as the rule gives it for the tile base ((base >> 7) & 7 for a
  swizzle, 0 without); the search's size is the number of distinct descriptors it tried.
* the packed strides of a 64x16 bf16 K-major operand (spec/wgmma/canonical_layouts.yaml, T = 8):
  128B/64B/32B: SBO = 8 rows of 128/64/32 B, LBO unused (16 B); K_INTER: SBO 128 B (one 8x16-B
  core matrix), LBO 1024 B (the eight of them along MN).
* the read map's geometry (spec/wgmma/canonical_layouts.yaml, Swizzle<B,4,3> on byte addresses,
  the H100 base-offset reading; see conformance/test_explain_readmap.py).
* ptxconf explain --json (`Explanation.as_dict`, `check_dict`): the JSON contract, pinned whole.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
from case_outcomes import expect_named
from scratch_spec import descriptor_field_replaced, edited_spec

from ptxconf.oracle.descriptor import encode
from ptxconf.oracle.explain.diagnose import candidates, check_dict, explain_descriptor
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.readmap import Context, Descriptor, bank_report
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
A_K = Operand("bf16", "K", 64, 16, 16)
OPERAND_JSON = {"dtype": "bf16", "major": "K", "mn": 64, "k": 16, "bits": 16, "operand": None,
                "instr": None, "form": "SS", "imm_trans": 0}
READING = ("H100: swizzle on byte addresses; start + offset - (base_offset << 7) swizzled; "
           "MN-major LBO along MN; K-major swizzled LBO ignored")
LBO_WHY = "wgmma/leading_byte_offset:LBO.K.swizzled: not used, assumed to be 1"
NO_CONFLICT = {"core_matrices": 16, "worst_degree": 1, "conflicted": 0}


def _scratch(tmp_path: Path, old: str, new: str) -> Spec:
    """The bundled spec with one edit of wgmma/matrix_descriptor.yaml."""
    return edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml", old, new)


def _desc_json(value: int, start: int, lbo: int, sbo: int, base_offset: int,
               swizzle: str) -> dict[str, Any]:
    return {"value": f"{value:#018x}", "start_address": start, "lbo": lbo, "sbo": sbo,
            "base_offset": base_offset, "swizzle": swizzle, "unused_bits": "0x0"}


# --- the JSON of a valid descriptor, whole ----------------------------------------------------------


def test_as_dict_of_a_valid_descriptor_is_the_whole_contract() -> None:
    """A K-major 128B tile at 0x2300 with the rule's field 6 (0x2300 >> 7 & 7): the pattern
    starts at the tile, row r of each 8-row group XORs r into the 16-B chunk index; groups
    1024 B apart; 8 KiB in all. The search: 128B {16, 1024}^2, 64B and 32B {16, 1024, 512 or
    256}^2, none {16, 128, 1024}^2 x fields {6, 0} = 4 + 9 + 9 + 18 = 40 descriptors."""
    value = encode(0x2300, 16, 1024, "128B", 6)
    e = explain_descriptor(SPEC, A_K, value, smem_bytes=8192)
    offsets = [[1024 * (i // 8) + 128 * (i % 8) + ((2 * j) ^ ((i % 8) << 4)) for j in range(16)]
               for i in range(64)]
    fields = {
        "start_address": {"bits": [13, 0], "raw": 0x230, "shift": 4, "spec_id": "start_address"},
        "lbo": {"bits": [29, 16], "raw": 1, "shift": 4, "spec_id": "leading_byte_offset"},
        "sbo": {"bits": [45, 32], "raw": 64, "shift": 4, "spec_id": "stride_byte_offset"},
        "base_offset": {"bits": [51, 49], "raw": 6, "shift": 0, "spec_id": "base_offset"},
        "swizzle": {"bits": [63, 62], "raw": 1, "shift": 0, "spec_id": "layout_type"},
    }
    assert e.as_dict(SPEC) == {
        "descriptor": {**_desc_json(value, 0x2300, 16, 1024, 6, "128B"), "fields": fields},
        "operand": OPERAND_JSON,
        "tile_base": 0x2300, "smem_bytes": 8192,
        "reads": {"units": "bytes",
                  "layout_elems": "Swizzle<3,4,3> o ((8,8),(8,2)):((64,512),(1,8))",
                  "reading": READING, "offsets": offsets},
        "checks": {
            "injective": {"ok": True, "alias": None},
            "allocation": {"ok": True, "span": [0x2300, 0x2300 + 8192], "span_bytes": 8192,
                           "outside": 0, "given": True},
            "phase": {"ok": True, "hardware": 0, "tile": 0},
            "ignored_fields": [],
            "banks": {"ok": True, **NO_CONFLICT},
        },
        "banks": NO_CONFLICT, "verdict": "valid", "mistakes": [], "corrected": None,
        "alternatives": [], "searched": 40, "notes": [], "problems": []}
    assert list(e.as_dict(SPEC)) == ["descriptor", "operand", "tile_base", "smem_bytes", "reads",
                                     "checks", "banks", "verdict", "mistakes", "corrected",
                                     "alternatives", "searched", "notes", "problems"]
    assert e.verdict == "valid"
    assert e.codes == ()
    assert e.searched == 40


def test_as_dict_reads_the_bit_fields_of_the_spec_given(tmp_path: Path) -> None:
    """A spec whose base-offset field is bits 54-52."""
    spec = descriptor_field_replaced("base_offset", lsb_bits=52)
    value = 1 << 16 | 64 << 32 | 1 << 62   # start 0, LBO 16, SBO 1024, 128B
    d = explain_descriptor(spec, A_K, value | 2 << 52).as_dict(spec)["descriptor"]
    assert d["base_offset"] == 2
    assert d["fields"]["base_offset"] == {"bits": [54, 52], "raw": 2, "shift": 0,
                                          "spec_id": "base_offset"}


# --- the JSON of a mistaken descriptor: corrected and alternatives -------------------------------


def test_corrected_and_alternatives_carry_what_changed() -> None:
    """Rows 64 B apart (SBO 512) read as 128B: the mode 64B fixes it with the user's strides;
    SBO 1024 under 128B is as few changes, but brings a value the user did not type."""
    e = explain_descriptor(SPEC, A_K, encode(0, 16, 512, "128B"))
    d = e.as_dict(SPEC)
    assert d["verdict"] == "invalid"
    assert d["corrected"] == {**_desc_json(encode(0, 16, 512, "64B"), 0, 16, 512, 0, "64B"),
                              "changed": ["swizzle"]}
    assert d["alternatives"] == [
        {**_desc_json(encode(0, 16, 1024, "128B"), 0, 16, 1024, 0, "128B"), "changed": ["sbo"]}]


# --- check_dict ---------------------------------------------------------------------------------


def test_check_dict_of_an_aliased_map() -> None:
    """SBO 0: every 8-row group reads group 0's bytes; the first pair sharing address 0 is
    (0, 0) and (8, 0). Row 7 reads chunks 7 and 6 (0 and 1 XOR 7): the last byte read is
    896 + 112 + 14 + 2 = 1024."""
    e = explain_descriptor(SPEC, A_K, encode(0, 16, 0, "128B"))
    assert check_dict(SPEC, e) == {
        "injective": {"ok": False, "alias": {"first": [0, 0], "second": [8, 0], "address": 0}},
        "allocation": {"ok": True, "span": [0, 1024], "span_bytes": 1024, "outside": 0,
                       "given": False},
        "phase": {"ok": True, "hardware": 0, "tile": 0},
        "ignored_fields": [],
        "banks": {"ok": True, **NO_CONFLICT},
    }
    assert e.verdict == "invalid"


def test_check_dict_of_an_overrun_a_phase_and_an_ignored_field() -> None:
    """Start 0x100 (field 0, tile base 0x100), LBO 32 (ignored), SBO 2048, 8 KiB: the pattern
    starts 256 B into its repeat, the tile's at 0; row r of a group is the 128-B line
    0x100 + 128 r, its chunks XORed by (2 + r) & 7. Groups 4-7 start at 0x100 + 8192, past the
    allocation: 4 x 8 x 16 = 512 elements. Lowest byte: row 0, chunk 0 ^ 2 -> 0x100 + 32 = 288;
    highest: group 7 row 7, j = 7 (chunk 0 ^ 1) -> 256 + 14336 + 896 + 16 + 14 = 15518."""
    e = explain_descriptor(SPEC, A_K, encode(0x100, 32, 2048, "128B"), smem_bytes=8192)
    assert check_dict(SPEC, e) == {
        "injective": {"ok": True, "alias": None},
        "allocation": {"ok": False, "span": [288, 15520], "span_bytes": 15520 - 288,
                       "outside": 512, "given": True},
        "phase": {"ok": False, "hardware": 256, "tile": 0},
        "ignored_fields": [{"field": "lbo", "value": 32, "meant": 16, "why": LBO_WHY}],
        "banks": {"ok": True, **NO_CONFLICT},
    }
    assert '"meant": 16,' in json.dumps(check_dict(SPEC, e)["ignored_fields"])   # an int, as JSON
    assert e.verdict == "invalid"


def test_as_dict_problems_name_the_first_element_outside_and_the_phases() -> None:
    """The map above: the first element outside, in row order, is (32, 0) (group 4, row 0) at
    0x100 + 8192 = 0x2100, chunk 0 ^ ((0x2100 >> 7) & 7 = 2) -> 0x2120."""
    d = explain_descriptor(SPEC, A_K, encode(0x100, 32, 2048, "128B"), smem_bytes=8192).as_dict(SPEC)
    assert d["problems"] == [
        "512 of 1024 elements lie outside the allocation [0x100, 0x2100): the first, (mn 32, k 0), "
        "at 0x2120",
        "the 128B XOR pattern starts 256 B into its 1024-B repeat, the tile's (at 0x100) 0 B in: "
        "rows are read with another row's chunk order"]
    assert (d["tile_base"], d["smem_bytes"], d["verdict"]) == (0x100, 8192, "invalid")

def test_check_dict_banks_fail_above_degree_one() -> None:
    """The same explanation with rows 128 B apart unswizzled: degree 8 in every core matrix."""
    e = explain_descriptor(SPEC, A_K, encode(0, 16, 1024, "128B"))
    rows = np.arange(64)[:, None] * 128 + np.arange(16)[None, :] * 2
    bad = dataclasses.replace(e, banks=bank_report(SPEC, A_K, rows))
    banks = check_dict(SPEC, bad)["banks"]
    assert banks["ok"] is False
    assert (banks["worst_degree"], banks["conflicted"]) == (8, 16)
    assert check_dict(SPEC, e)["banks"] == {"ok": True, **NO_CONFLICT}
    # rows 0-3 and 4-7 of each core matrix 128 B apart: degree 2 is a conflict too
    two = (np.arange(64) % 4 * 16 + np.arange(64) // 4 * 128)[:, None] + np.arange(16)[None, :] * 2
    two_way = check_dict(SPEC, dataclasses.replace(e, banks=bank_report(SPEC, A_K, two)))["banks"]
    assert (two_way["ok"], two_way["worst_degree"]) == (False, 2)


def test_check_dict_banks_without_a_degree_are_ok() -> None:
    """No core matrix read, no degree: nothing conflicts (as bank_report's max(default=0))."""
    e = explain_descriptor(SPEC, A_K, encode(0, 16, 1024, "128B"))
    assert check_dict(SPEC, dataclasses.replace(e, banks={}))["banks"] == {"ok": True}


# --- explain_descriptor -----------------------------------------------------------------------


def test_bits_outside_every_field_are_noted() -> None:
    e = explain_descriptor(SPEC, A_K, encode(0, 16, 1024, "128B") | 1 << 14 | 1 << 47)
    note = ("bits 0x0000800000004000 are set outside every field of the wgmma descriptor "
            "(wgmma/matrix_descriptor.yaml): they are not read here")
    assert e.notes == (note,)
    assert e.as_dict(SPEC)["notes"] == [note]
    assert e.verdict == "valid"


def test_no_fix_counts_the_descriptors_searched() -> None:
    """8 KiB of operand in 1 KiB: nothing fits. Tile base 0: fields {0} in every mode, so
    4 + 9 + 9 + 9 = 31 descriptors."""
    e = explain_descriptor(SPEC, A_K, encode(0, 16, 1024, "128B"), smem_bytes=1024)
    assert e.searched == 31
    assert e.corrected is None
    assert e.alternatives == ()
    expect_named(e.diagnoses[0], "none of the 31 descriptors searched")


def test_an_explicit_tile_base_sets_the_wanted_phase() -> None:
    """Start 0x2300 with field 0: the pattern is anchored at 0x2000 (0x2300 - 0x300)."""
    value = encode(0x2300, 16, 1024, "128B")
    anchored = explain_descriptor(SPEC, A_K, value, tile_base=0x2000)
    assert anchored.context == Context(0x2000, None)
    assert anchored.verdict == "valid"
    default = explain_descriptor(SPEC, A_K, value)
    assert default.context == Context(0x2300, None)
    assert default.verdict == "invalid"
    assert default.corrected is not None
    assert default.corrected.desc.value == encode(0x2300, 16, 1024, "128B", 6)


def test_a_swap_that_spans_no_less_is_not_named() -> None:
    """K_INTER 16x16: two core matrices each way, so LBO 128 / SBO 256 and its swap both span
    512 B: the user's valid map is kept."""
    op = Operand("bf16", "K", 16, 16, 16)
    e = explain_descriptor(SPEC, op, encode(0, 128, 256, "none"))
    assert e.verdict == "valid"
    assert e.diagnoses == ()
    assert e.corrected is None


def test_equal_strides_are_no_swap() -> None:
    """LBO = SBO = 128 under K_INTER 64x16: the map aliases; whatever the fix, it is no swap."""
    e = explain_descriptor(SPEC, A_K, encode(0, 128, 128, "none"))
    assert e.verdict == "invalid"
    assert "EXPLAIN-LBO-SBO-SWAPPED" not in e.codes


# --- the search ---------------------------------------------------------------------------------


def test_the_search_uses_the_stride_granule_of_the_spec_given(tmp_path: Path) -> None:
    """A spec whose LBO field stores bytes >> 5: the granule is 32 B, so K_INTER's strides are
    the user's 64 and 1024, the packed 1024 and 128, and 32 (never the bundled spec's 16)."""
    spec = descriptor_field_replaced("leading_byte_offset", encode_shift_bits=5)
    user = Descriptor.of(spec, start_address=0, lbo=64, sbo=1024, swizzle="none")
    cands = candidates(spec, A_K, user, Context(0))
    assert {c.desc.sbo for c in cands if c.desc.swizzle == "none"} == {32, 64, 128, 1024}
    # and encoded with that spec: LBO 64 B is 64 >> 5 = 2 in bits 29-16, SBO 1024 B is 64
    own = next(c for c in cands if c.changed == ())
    assert own.desc.value == user.value == 2 << 16 | 64 << 32


def test_the_search_tries_the_modes_in_the_order_of_the_spec_given(tmp_path: Path) -> None:
    """A spec whose layout-type codes list 128B first: its candidates come mode by mode so."""
    spec = _scratch(tmp_path, "codes: {none: 0, 128B: 1, 64B: 2, 32B: 3}",
                    "codes: {128B: 1, none: 0, 64B: 2, 32B: 3}")
    user = Descriptor.of(spec, start_address=0, lbo=16, sbo=1024, swizzle="128B")
    modes = [c.desc.swizzle for c in candidates(spec, A_K, user, Context(0))]
    assert [m for i, m in enumerate(modes) if i == 0 or modes[i - 1] != m] == [
        "128B", "none", "64B", "32B"]


def test_candidates_are_each_distinct_descriptor_once() -> None:
    """User 128B LBO 16 SBO 1024 at tile base 0: 4 + 9 + 9 + 9 distinct descriptors, the user's
    own first."""
    user = Descriptor.decode(SPEC, encode(0, 16, 1024, "128B"))
    cands = candidates(SPEC, A_K, user, Context(0))
    assert len(cands) == 31
    assert len({c.desc.value for c in cands}) == 31
    by_mode = {sw: sorted((c.desc.lbo, c.desc.sbo) for c in cands if c.desc.swizzle == sw)
               for sw in ("128B", "64B", "32B", "none")}
    assert by_mode["128B"] == [(16, 16), (16, 1024), (1024, 16), (1024, 1024)]
    assert {s for _, s in by_mode["64B"]} == {16, 512, 1024}
    assert {s for _, s in by_mode["none"]} == {16, 128, 1024}


def _records(user: Descriptor) -> dict[tuple[str, int, int], tuple[Any, ...]]:
    return {(c.desc.swizzle, c.desc.lbo, c.desc.sbo): (c.changed, c.swapped, c.unpacked,
                                                       c.new_values)
            for c in candidates(SPEC, A_K, user, Context(0))}


def test_candidates_record_changes_swaps_unpacked_and_new_values() -> None:
    """User K_INTER LBO 128 / SBO 1024 (packed: LBO 1024, SBO 128). `unpacked` counts the
    stepped strides off the mode's packed values, `new_values` the stepped strides that are
    neither of the user's two; 128B takes no LBO step (packed SBO 1024), 64B packs SBO 512."""
    got = _records(Descriptor.decode(SPEC, encode(0, 128, 1024, "none")))
    assert got[("none", 128, 1024)] == ((), False, 2, 0)
    assert got[("none", 1024, 128)] == (("lbo", "sbo"), True, 0, 0)
    assert got[("none", 1024, 1024)] == (("lbo",), False, 1, 0)
    assert got[("none", 16, 128)] == (("lbo", "sbo"), False, 1, 1)
    assert got[("none", 128, 16)] == (("sbo",), False, 2, 1)
    assert got[("128B", 16, 1024)] == (("lbo", "swizzle"), False, 0, 0)
    assert got[("128B", 1024, 128)] == (("lbo", "sbo", "swizzle"), True, 1, 0)
    assert got[("64B", 16, 512)] == (("lbo", "sbo", "swizzle"), False, 0, 1)
    assert got[("64B", 128, 128)] == (("sbo", "swizzle"), False, 1, 0)


def test_equal_strides_swap_nothing() -> None:
    """User LBO = SBO = 128: exchanging them is no change, so no candidate is a swap."""
    got = _records(Descriptor.decode(SPEC, encode(0, 128, 128, "none")))
    assert got[("none", 128, 128)] == ((), False, 1, 0)
    assert got[("128B", 128, 128)] == (("swizzle",), False, 1, 0)
    assert not any(swapped for _, swapped, _, _ in got.values())


def test_a_single_valid_candidate_is_the_fix() -> None:
    """Start 0x20, tile base 0x10: every swizzled mode's pattern starts 32 - 128 f B into its
    repeat, the tile's 16 B: no field fixes the phase. Unswizzled, 2064 B from 0x10 hold the
    packed K_INTER tile from 0x20 exactly (LBO 1024, SBO 128: 0x20 + 2048 = 0x820); every other
    pair of {16, 128, 1024} aliases or overruns."""
    value = encode(0x20, 128, 1024, "none")
    user = Descriptor.decode(SPEC, value)
    cands = candidates(SPEC, A_K, user, Context(0x10, 2064))
    assert [c.desc.value for c in cands if c.analysis.valid] == [encode(0x20, 1024, 128, "none")]
    e = explain_descriptor(SPEC, A_K, value, tile_base=0x10, smem_bytes=2064)
    assert e.verdict == "invalid"
    assert e.corrected is not None
    assert e.corrected.desc.value == encode(0x20, 1024, 128, "none")


def test_at_most_three_alternatives_in_rank_order() -> None:
    """MN-major 64x8 bf16 (one K repeat: SBO steps nothing) at 0x80 as 32B with LBO 128 (a
    32B block is 16 MN x 8 K x 2 B = 256 B: blocks overlap) and field 0 (the pattern must start
    at 0x80: field 1). The fix swaps LBO/SBO and sets field 1: cost 2. Cost 2 as well, packed,
    valid: 32B LBO 256 field 1 (not a new mode: first); unswizzled with SBO 128 (the 8x8 core
    matrix; LBO steps nothing) as (128, 128) and as the swap (256, 128); 128B with field 1 (one
    64-element row: neither stride steps). The three first of those four."""
    op = Operand("bf16", "MN", 64, 8, 16)
    e = explain_descriptor(SPEC, op, encode(0x80, 128, 256, "32B"))
    assert e.corrected is not None
    assert e.corrected.desc.value == encode(0x80, 256, 128, "32B", 1)
    assert [(c.desc.swizzle, c.desc.lbo, c.desc.sbo, c.desc.base_offset, c.changed)
            for c in e.alternatives] == [
        ("32B", 256, 256, 1, ("lbo", "base_offset")),
        ("none", 128, 128, 0, ("sbo", "swizzle")),
        ("none", 256, 128, 0, ("lbo", "sbo", "swizzle"))]


def test_a_descriptor_the_spec_cannot_store_is_skipped_and_the_search_goes_on(
        tmp_path: Path) -> None:
    """A spec whose base-offset field stores value >> 1: the rule's field for tile base 0x80,
    (0x80 >> 7) & 7 = 1, cannot be stored; the user's 2 can, and is still tried after it."""
    spec = descriptor_field_replaced("base_offset", encode_shift_bits=1)
    user = Descriptor.of(spec, start_address=0x80, lbo=16, sbo=1024, swizzle="128B",
                         base_offset=2)
    cands = candidates(spec, A_K, user, Context(0x80))
    assert user.value in {c.desc.value for c in cands}
    assert {c.desc.base_offset for c in cands} == {0, 2}   # 0: the rule's field without a swizzle


def test_alternatives_tied_up_to_the_span_come_in_the_spec_given_modes_order(
        tmp_path: Path) -> None:
    """The case above under a spec listing 128B before none: the three reinterpretations tie on
    every key up to the span (1024 B each), so 128B's now comes before the unswizzled two."""
    spec = _scratch(tmp_path, "codes: {none: 0, 128B: 1, 64B: 2, 32B: 3}",
                    "codes: {128B: 1, none: 0, 64B: 2, 32B: 3}")
    op = Operand("bf16", "MN", 64, 8, 16)
    value = Descriptor.of(spec, start_address=0x80, lbo=128, sbo=256, swizzle="32B").value
    e = explain_descriptor(spec, op, value)
    assert [(c.desc.swizzle, c.desc.lbo, c.desc.sbo, c.desc.base_offset) for c in e.alternatives] == [
        ("32B", 256, 256, 1), ("128B", 128, 256, 1), ("none", 128, 128, 0)]
