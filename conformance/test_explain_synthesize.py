"""CuTe layouts to wgmma descriptors (oracle/explain/synthesize.py): parsing a layout, its input
errors (asserted by code and the values they name; their wording is pinned by
messages_explain.py), and the descriptors synthesised for every swizzle mode and both majors;
its refusals are test_explain_synthesize_refusals.py's.

`synthesize` turns a CuTe shared-memory layout into the wgmma descriptor(s) that read it, or a
`Refusal` saying why none can. Every expected value below is worked by hand from:

* the module docstring: a layout (mn, k) -> element offset, optionally `Swizzle<B,M,S> o offset
  o outer`, is moved to bytes; the swizzle acts on byte addresses (or, with `--swizzle-unit
  elements`, on the element offsets as written: M moves down by log2 of an element's bytes);
  element (i, j) is at start + swizzle(offset + outer(i, j)); a tile of several operands gets one
  descriptor per block, each starting at start + offset + outer(block origin);
* spec/wgmma/canonical_layouts.yaml (T = 16 B of elements): K_INTER ((8,m),(T,2k)):((1T,SBO),
  (1,LBO)), K_SW32/64/128 ((8,m),(T,2k)):((2T|4T|8T,SBO),(1,T)), MN_INTER ((T,1,m),(8,k)):
  ((1,T,SBO),(1T,LBO)), MN_SW128 ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)); the hardware swizzles
  Swizzle<0|1|2|3,4,3> on bytes; a stride the template never steps is given the 16-B granule;
* spec/wgmma/matrix_descriptor.yaml: start >> 4 in bits 13-0, LBO >> 4 in 29-16, SBO >> 4 in
  45-32, the base-offset field in 51-49, the layout type in 63-62 (none 0, 128B 1, 64B 2, 32B 3);
  14-bit fields of 16-B units hold at most 2^18 - 16 bytes;
* spec/wgmma/base_offset.yaml: a swizzled tile's field is (start >> 7) & 7 and the start must sit
  on a 128-B row; spec/wgmma/swizzle_atoms.yaml: a K-major atom's rows are leading_u128 * 16 B;
* the JSON's keys, the public contract of `ptxconf explain layout --json` (the errors' wording:
  messages_explain.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from case_outcomes import BF16_K, BF16_MN, E4M3_K, README_LAYOUT
from case_outcomes import descriptor_block as _block
from case_outcomes import descriptor_value as _value
from case_outcomes import refused as _refuse
from case_outcomes import synthesized as _found
from scratch_spec import descriptor_field_replaced

from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.canonical import SmemQuery
from ptxconf.oracle.domain import DomainError, check_smem
from ptxconf.oracle.explain.operand import ExplainError, Operand
from ptxconf.oracle.explain.synthesize import (
    Refusal,
    UserLayout,
    _try,
    _with_swizzle,
    in_unit,
    parse_layout,
    synthesize,
)
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def _operand(op: Operand) -> dict[str, Any]:
    return {"dtype": op.dtype, "major": op.major, "mn": op.mn, "k": op.k, "bits": op.bits,
            "operand": None, "instr": None, "form": "SS", "imm_trans": int(op.major == "MN")}


def _error(text: str, op: Operand = BF16_K, **kw: Any) -> ExplainError:
    """The error synthesize raises; its text is `CODE - message`."""
    with pytest.raises(ExplainError) as err:
        synthesize(SPEC, text, op, **kw)
    assert str(err.value) == f"{err.value.code} - {err.value.message}"
    return err.value


def _names(err: ExplainError, code: str, *values: str) -> None:
    """The error has this code and its message names each value."""
    assert err.code == code
    missing = [v for v in values if v not in err.message]
    assert not missing, (err.message, missing)


# --- parse_layout and UserLayout ----------------------------------------------------------------


def test_a_bf16_layout_moves_to_bytes() -> None:
    """Strides double (2-B elements), the offset too; the swizzle stays on bytes."""
    ul = parse_layout(SPEC, "Swizzle<3,4,3> o 64 o ((8,8),64):((64,512),1)", "bf16")
    assert (ul.bits, ul.swizzle_unit, ul.offset, ul.mn, ul.k) == (16, "bytes", 128, 64, 64)
    assert str(ul.outer) == "((8,8),64):((128,1024),2)"
    assert ul.swizzle == Swizzle(3, 4, 3)
    assert ul.swizzle_text() == "Swizzle<3,4,3>"


def test_unswizzled_and_swizzled_addresses() -> None:
    """offset + outer(i, j), then the swizzle XORs bits 7-9 into bits 4-6; start is added last."""
    ul = parse_layout(SPEC, "Swizzle<3,4,3> o 64 o ((8,8),64):((64,512),1)", "bf16")
    raw = ul.unswizzled()
    assert raw.shape == (64, 64)
    # (i, j) -> 128 + 128 (i % 8) + 1024 (i // 8) + 2 j
    assert [int(raw[0, 0]), int(raw[1, 0]), int(raw[8, 0]), int(raw[0, 5]), int(raw[9, 3])] == [
        128, 256, 1152, 138, 1286]
    addr = ul.addresses(0x4000)
    # 128 = row 1 -> ^ 0x10 = 0x90; 256 = row 2 -> ^ 0x20 = 0x120; 1152 = 0x480 (row 1) -> 0x490;
    # 138 = 0x8a -> 0x9a; 1286 = 0x506 (row 2) -> 0x526
    assert [int(addr[0, 0]), int(addr[1, 0]), int(addr[8, 0]), int(addr[0, 5]),
            int(addr[9, 3])] == [0x4090, 0x4120, 0x4490, 0x409a, 0x4526]


def test_a_plain_layout_has_no_swizzle_and_no_offset() -> None:
    """A plain layout: offset 0, no swizzle (printed 'none'); (3, 5) at start + 3*32 + 5*2 B."""
    ul = parse_layout(SPEC, "(64,16):(16,1)", "bf16")
    assert (ul.offset, ul.swizzle, ul.swizzle_text()) == (0, None, "none")
    assert int(ul.addresses(0x100)[3, 5]) == 0x100 + 3 * 32 + 5 * 2


def test_a_zero_bit_swizzle_is_none() -> None:
    """Swizzle<0,4,3> is the identity: parsed as no swizzle, and printed 'none' when held."""
    ul = parse_layout(SPEC, "Swizzle<0,4,3> o 0 o (64,16):(16,1)", "bf16")
    assert ul.swizzle is None
    assert ul.swizzle_text() == "none"
    held = UserLayout("t", "bf16", 16, "bytes", ul.outer, 0, Swizzle(0, 4, 3))
    assert held.swizzle_text() == "none"


def test_elements_unit_moves_the_swizzle_base_up() -> None:
    """A bf16 Swizzle<3,4,3> read on element offsets is Swizzle<3,5,3> on bytes."""
    ul = parse_layout(SPEC, README_LAYOUT, "bf16", "elements")
    assert ul.swizzle_unit == "elements"
    assert ul.swizzle_text() == "Swizzle<3,5,3>"


def test_layout_parse_errors_are_pinned() -> None:
    """Each refusal of parse_layout: its code and its whole message."""
    with pytest.raises(ExplainError) as err:
        parse_layout(SPEC, "(64,16):(16,1)", "bf16", "words")
    _names(err.value, "EXPLAIN-LAYOUT", "bytes or elements", "'words'")
    with pytest.raises(ExplainError) as err:
        parse_layout(SPEC, "(64,16):(16,1)", "s4")
    _names(err.value, "EXPLAIN-SUB-BYTE", "s4 is 4-bit")
    with pytest.raises(ExplainError) as err:
        parse_layout(SPEC, "Swizzle<3,4,3>", "bf16")
    _names(err.value, "EXPLAIN-LAYOUT", "'Swizzle<3,4,3>'", "Swizzle<B,M,S> o 0 o (mn, k):(...)")
    with pytest.raises(ExplainError) as err:
        parse_layout(SPEC, "(4,4):(1,4) o 0 o (4,4):(4,1)", "bf16")
    _names(err.value, "EXPLAIN-LAYOUT", "'(4,4):(1,4) o 0 o (4,4):(4,1)'", "Swizzle<B,M,S> o offset o layout")
    with pytest.raises(ExplainError) as err:
        parse_layout(SPEC, "(64,16,2):(16,1,1024)", "bf16")
    _names(err.value, "EXPLAIN-LAYOUT", "'(64,16,2):(16,1,1024)'", "3 top-level mode(s)", "(mn, k) -> offset")


def test_in_unit_moves_m_by_log2_of_the_element_bytes() -> None:
    """bytes: as is; elements: M - log2(bytes per element) (fp8 0, bf16 1, tf32 2)."""
    swz = Swizzle(3, 4, 3)
    assert in_unit(SPEC, swz, "bf16", "bytes") == swz
    assert in_unit(SPEC, swz, "e4m3", "elements") == swz
    assert in_unit(SPEC, swz, "bf16", "elements") == Swizzle(3, 3, 3)
    assert in_unit(SPEC, swz, "tf32", "elements") == Swizzle(3, 2, 3)


def test_with_swizzle_rewrites_only_the_swizzle() -> None:
    """The outer layout as written; no swizzle drops the composition unless an offset needs it."""
    plain = parse_layout(SPEC, "(64,16):(16,1)", "bf16")
    assert _with_swizzle(plain, None) == "(64,16):(16,1)"
    assert _with_swizzle(plain, Swizzle(0, 4, 3)) == "(64,16):(16,1)"
    assert _with_swizzle(plain, Swizzle(1, 4, 3)) == "Swizzle<1,4,3> o 0 o (64,16):(16,1)"
    shifted = parse_layout(SPEC, "Swizzle<1,4,3> o 64 o (64,16):(16,1)", "bf16")
    assert _with_swizzle(shifted, None) == "Swizzle<0,4,3> o 64 o (64,16):(16,1)"
    assert _with_swizzle(shifted, Swizzle(3, 4, 3)) == "Swizzle<3,4,3> o 64 o (64,16):(16,1)"
    composed = parse_layout(SPEC, README_LAYOUT, "bf16")
    assert _with_swizzle(composed, None) == "((8,8),64):((64,512),1)"


# --- input errors of synthesize -----------------------------------------------------------------


def test_a_start_off_the_16_byte_granule_is_an_error() -> None:
    """A start below 0 or off the 16-B granule (the start-address field stores the address >> 4,
    spec/wgmma/matrix_descriptor.yaml) is EXPLAIN-LAYOUT; 0x10 itself is accepted."""
    _names(_error(README_LAYOUT, start=8), "EXPLAIN-LAYOUT", "--start-address 0x8", "16 B", ">> 4")
    _names(_error(README_LAYOUT, start=-16), "EXPLAIN-LAYOUT", "--start-address -0x10", "16 B", ">> 4")
    assert isinstance(synthesize(SPEC, README_LAYOUT, BF16_K, start=0x10), Refusal)  # 16 B: allowed


def test_the_start_granule_is_the_start_fields_own(tmp_path: Path) -> None:
    """With the start-address field storing the address >> 5 (and LBO/SBO still >> 4), 0x10 is
    off the 32-B granule and 0x20 is on it: the start's granule is its own field's."""
    other = descriptor_field_replaced("start_address", encode_shift_bits=5)
    with pytest.raises(ExplainError) as err:
        synthesize(other, README_LAYOUT, BF16_K, start=0x10)
    _names(err.value, "EXPLAIN-LAYOUT", "--start-address 0x10", "32 B", ">> 5")
    assert isinstance(synthesize(other, README_LAYOUT, BF16_K, start=0x20), Refusal)


@pytest.mark.parametrize(("text", "covers"), [
    ("(32,16):(16,1)", "32x16"),     # fewer rows than the operand
    ("(64,8):(8,1)", "64x8"),        # fewer k than the operand (rows a multiple)
    ("(96,16):(16,1)", "96x16"),     # more rows, not a multiple
    ("(64,24):(24,1)", "64x24"),     # more k, not a multiple
])
def test_a_tile_not_a_whole_number_of_operands_is_an_error(text: str, covers: str) -> None:
    """Too few rows or k, or a remainder of either, is EXPLAIN-LAYOUT-SHAPE, said in full."""
    _names(_error(text), "EXPLAIN-LAYOUT-SHAPE", f"covers {covers} (mn x k)", "64x16")


# --- synthesis: every swizzle mode, both majors, the JSON -----------------------------------------


def test_a_tile_of_four_blocks_at_a_row_start_is_the_whole_json() -> None:
    """128 x 32 K-major 128B bf16 at 0x80: rows 128 B, 8-row groups 1024 B (SBO), LBO unused (16);
    blocks (0,0) (0,16) (64,0) (64,16) start at 0x80 + 0, 32, 8192, 8224; field (0x80 >> 7) & 7 = 1."""
    text = "Swizzle<3,4,3> o 0 o ((8,16),32):((64,512),1)"
    got = _found(text, start=0x80)
    blocks = [_block((0, 0), 0x80, 16, 1024, "128B", 1), _block((0, 16), 0xa0, 16, 1024, "128B", 1),
              _block((64, 0), 0x2080, 16, 1024, "128B", 1),
              _block((64, 16), 0x20a0, 16, 1024, "128B", 1)]
    assert got.as_dict() == {
        "ok": True, "layout": text, "dtype": "bf16", "swizzle_unit": "bytes",
        "swizzle_on_bytes": "Swizzle<3,4,3>", "tile": [128, 32], "operand": _operand(BF16_K),
        "major": "K", "imm_trans": 0, "swizzle": "128B", "lbo": 16, "sbo": 1024, "base_offset": 1,
        "start_address": 0x80, "descriptor": _value(0x80, 16, 1024, "128B", 1), "blocks": blocks,
        "steps": {"k_block": 32, "mn_block": 8192}, "checked_elements": 4 * 64 * 16,
        "also_reads": [], "proof": "proof.synthesis_equivalent[wgmma/canonical_layouts:K_SW128]"}
    assert _value(0x80, 16, 1024, "128B", 1) == "0x4002004000010008"


@pytest.mark.parametrize(("text", "swizzle", "lbo", "sbo", "atom"), [
    # K_INTER: rows 16 B, 8-row groups 128 B (SBO), the second 8 k at 1024 B (LBO)
    ("((8,8),(8,2)):((8,64),(1,512))", "none", 1024, 128, "K_INTER"),
    # K_SW32: rows 32 B, groups 256 B; K_SW64: rows 64 B, groups 512 B
    ("Swizzle<1,4,3> o 0 o (64,16):(16,1)", "32B", 16, 256, "K_SW32"),
    ("Swizzle<2,4,3> o 0 o ((8,8),16):((32,256),1)", "64B", 16, 512, "K_SW64"),
])
def test_each_k_major_swizzle_mode(text: str, swizzle: str, lbo: int, sbo: int, atom: str) -> None:
    """One block of each remaining K-major mode: its strides, value, block and proof id."""
    d = _found(text).as_dict()
    assert (d["swizzle"], d["lbo"], d["sbo"], d["major"]) == (swizzle, lbo, sbo, "K")
    assert d["descriptor"] == _value(0, lbo, sbo, swizzle)
    assert d["blocks"] == [_block((0, 0), 0, lbo, sbo, swizzle)]
    assert d["steps"] == {"k_block": None, "mn_block": None}
    assert d["proof"] == f"proof.synthesis_equivalent[wgmma/canonical_layouts:{atom}]"


def test_an_mn_major_128b_tile_solves_lbo_along_mn() -> None:
    """MN_SW128 for 128 x 16: 64 mn contiguous (128 B), k rows 128 B, 8 k at 1024 B (SBO), the
    second 64 mn at 4096 B (LBO); only with MN among the majors, and imm-trans 1."""
    op = Operand("bf16", "K", 128, 16, 16)
    text = "Swizzle<3,4,3> o 0 o ((64,2),(8,2)):((1,2048),(64,512))"
    got = _found(text, op, majors=("K", "MN"))
    mn = Operand("bf16", "MN", 128, 16, 16)
    assert got.as_dict() == {
        "ok": True, "layout": text, "dtype": "bf16", "swizzle_unit": "bytes",
        "swizzle_on_bytes": "Swizzle<3,4,3>", "tile": [128, 16], "operand": _operand(mn),
        "major": "MN", "imm_trans": 1, "swizzle": "128B", "lbo": 4096, "sbo": 1024,
        "base_offset": 0, "start_address": 0, "descriptor": "0x4000004001000000",
        "blocks": [_block((0, 0), 0, 4096, 1024, "128B")],
        "steps": {"k_block": None, "mn_block": None}, "checked_elements": 128 * 16,
        "also_reads": [], "proof": "proof.synthesis_equivalent[wgmma/canonical_layouts:MN_SW128]"}
    assert _value(0, 4096, 1024, "128B") == "0x4000004001000000"


def test_mn_major_interleaved_tile() -> None:
    """MN_INTER: 8 mn contiguous (16 B), k rows 16 B, 8-mn chunks at 128 B (SBO), 8-k groups at
    1024 B (LBO); with only K-major tried nothing reads it."""
    text = "((8,8),(8,2)):((1,64),(8,512))"
    got = _found(text, BF16_MN)
    assert (got.operand.major, got.desc.swizzle, got.desc.lbo, got.desc.sbo) == ("MN", "none", 1024, 128)
    assert got.as_dict()["descriptor"] == _value(0, 1024, 128, "none")
    assert isinstance(synthesize(SPEC, text, BF16_K), Refusal)


def test_mn_blocks_and_k_blocks_step_from_the_first() -> None:
    """An MN-major 64 x 32 tile at 0x400: the k-block (16 k = 2 groups of 1024 B) starts 2048 B on."""
    text = "Swizzle<3,4,3> o 0 o (64,(8,4)):(1,(64,512))"
    got = _found(text, BF16_MN, start=0x400)
    assert [b.origin for b in got.blocks] == [(0, 0), (0, 16)]
    assert [b.desc.start_address for b in got.blocks] == [0x400, 0xc00]
    assert got.block_steps() == {"k_block": 2048, "mn_block": None}
    assert got.desc.base_offset == (0x400 >> 7) & 7 == 0


def test_an_mn_major_fp8_tile_is_refused_with_the_domain_major_rule() -> None:
    """e4m3 has no imm-trans (wgmma/instruction_operands, imm-trans-a): a 128 x 32 MN_SW128 tile
    (128 mn bytes, k rows 128 B, 8-k groups 1024 B) breaks DOMAIN-MAJOR, the rule `oracle
    smem-offsets` names, whatever majors are asked; no closest K-major layout, no suggestions."""
    op = Operand("e4m3", "K", 128, 32, 8)
    text = "Swizzle<3,4,3> o 0 o (128,(16,2)):(1,(128,2048))"
    for majors in (("K",), ("K", "MN")):
        got = _refuse(text, op, majors=majors)
        assert got.rule == "DOMAIN-MAJOR"
        assert got.closest is None
        assert got.suggestions == ()
        (reason,) = got.reasons
        with pytest.raises(DomainError) as oracle:  # the oracle's own refusal, word for word
            check_smem(SPEC, SmemQuery("e4m3", "MN", "128B", 128, 32, 16, 1024))
        assert reason.startswith(str(oracle.value))
        assert "MN-major 128B" in reason
    # not vacuous: an MN-major try of the same tile reads it
    ul = parse_layout(SPEC, text, "e4m3")
    assert _try(SPEC, ul, replace(op, major="MN"), "128B", 0, [(0, 0)]).why is None


def test_a_k_major_fp8_tile_is_not_refused_for_its_major() -> None:
    """A K-major e4m3 tile (rows of 32 e4m3 = 32 B along k, the 32B swizzle): read K-major."""
    got = _found("Swizzle<1,4,3> o 0 o (128,32):(32,1)", Operand("e4m3", "K", 128, 32, 8))
    assert (got.operand.major, got.desc.swizzle, got.desc.sbo) == ("K", "32B", 8 * 32)


def test_the_elements_reading_of_a_bf16_swizzle_is_synthesised() -> None:
    """Swizzle<3,3,3> on bf16 elements is Swizzle<3,4,3> on bytes: the README descriptor."""
    got = _found("Swizzle<3,3,3> o 0 o ((8,8),64):((64,512),1)", swizzle_unit="elements")
    d = got.as_dict()
    assert (d["swizzle_unit"], d["swizzle_on_bytes"], d["descriptor"]) == (
        "elements", "Swizzle<3,4,3>", _value(0, 16, 1024, "128B"))
    assert d["steps"] == {"k_block": 32, "mn_block": None}
    assert len(d["blocks"]) == 4


def test_an_unswizzled_tile_may_start_inside_a_row() -> None:
    """K_INTER has no base-offset rule: a start 16 B into a row is read (field 0)."""
    got = _found("((8,8),(8,2)):((8,64),(1,512))", start=0x10)
    assert got.as_dict()["blocks"] == [_block((0, 0), 0x10, 1024, 128, "none")]


def test_the_order_of_majors_does_not_matter() -> None:
    """MN is skipped for e4m3 wherever it stands; the K-major 128B tile after it is still tried."""
    text = "Swizzle<3,4,3> o 0 o ((8,8),128):((128,1024),1)"
    got = _found(text, E4M3_K, majors=("MN", "K"))
    assert (got.operand.major, got.desc.swizzle, got.desc.sbo) == ("K", "128B", 1024)
    assert got.as_dict()["descriptor"] == _value(0, 16, 1024, "128B")


def test_a_swizzle_that_never_fires_on_the_tile_is_read_without_one() -> None:
    """Swizzle<1,4,3> XORs bit 7 into bit 4; with rows 16 B, 8-row groups 256 B and the second 8 k
    at 4096 B no address has bit 7 set, so K_INTER (LBO 4096, SBO 256) reads it: the result names
    the layout's swizzle on bytes and the descriptor's none."""
    text = "Swizzle<1,4,3> o 0 o ((8,8),(8,2)):((8,128),(1,2048))"
    d = _found(text).as_dict()
    assert (d["swizzle_on_bytes"], d["swizzle"], d["lbo"], d["sbo"]) == (
        "Swizzle<1,4,3>", "none", 4096, 256)
    assert d["descriptor"] == _value(0, 4096, 256, "none")
    assert d["also_reads"] == []
