"""The read map of a descriptor (oracle/explain/readmap.py): the descriptor's fields (decode,
encode, the JSON contract), the base-offset rule and the phases, the byte address of every
element as the H100 reads it, and the search's split of a layout
(the analysis of a map, the core-matrix reads and the bank report are
test_explain_readmap_analysis.py's).

Expected values come from the documented semantics, worked by hand:

* spec/wgmma/matrix_descriptor.yaml: start address bits 13-0, LBO bits 29-16, SBO bits 45-32 (each
  stores (bytes & 0x3ffff) >> 4), base offset bits 51-49 (raw), layout type bits 63-62 (none 0,
  128B 1, 64B 2, 32B 3); every other bit is unused.
* spec/wgmma/base_offset.yaml: the 128B/64B/32B swizzles repeat every 1024/512/256 B and their
  base-offset field is (address >> 7) & 7; no row for the unswizzled mode.
* spec/wgmma/canonical_layouts.yaml: K-major ((8,m),(T,2k)) with rows 16 B (none, stride T),
  32 B (2T), 64 B (4T), 128 B (8T) apart, SBO the 8-row step; K_INTER's LBO steps across core
  matrices along K; MN-major swizzled ((T,r,m),(8,k)) with LBO the MN step past r*T elements and
  SBO the 8-column step along K. T = 8 for bf16 (2-byte elements). Swizzle<B,4,3>
  (CuTe: x ^ ((x >> 3) & (((1 << B) - 1) << 4))) XORs byte-address bits 7.. into bits 4...
* readmap.py's docstring (the H100 readings): the swizzle acts on byte addresses, the hardware
  swizzles start + offset - (field << 7) and adds (field << 7) back; no swizzle: the field
  changes nothing; spec/wgmma/leading_byte_offset.yaml: K-major swizzled LBO "not used, assumed to
  be 1" (1 x 128 bits = 16 B).
* oracle/banks.py: a core matrix's eight 16-byte row reads are one 8-thread phase; 4-byte banks,
  32 of them: eight reads with the same address mod 128 are eight distinct words in one bank.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from case_outcomes import raises_naming
from scratch_spec import descriptor_field_replaced, edited_spec

from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.readmap import (
    Descriptor,
    base_rule,
    default_tile_base,
    hardware_phase,
    linear,
    query,
    read_map,
    rule_field,
    wanted_phase,
)
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
A_K = Operand("bf16", "K", 64, 16, 16)     # operand A of an m64nNk16 bf16 wgmma, K-major
A_MN = Operand("bf16", "MN", 64, 16, 16)
B_MN_128 = Operand("bf16", "MN", 128, 16, 16)   # two MN repeats of the 64-element 128B row
MODES = {"none": 0, "32B": 1, "64B": 2, "128B": 3}   # swizzle mode -> B of Swizzle<B,4,3>
ROW, COL = np.meshgrid(np.arange(64), np.arange(16), indexing="ij")   # element (mn, k) of A_K


def _swz(b: int, x: np.ndarray) -> np.ndarray:
    """CuTe's Swizzle<b,4,3> on byte addresses: bits [7, 7+b) XORed into bits [4, 4+b)."""
    return x ^ ((x >> 3) & (((1 << b) - 1) << 4))


def _scratch(tmp_path: Path, old: str, new: str) -> Spec:
    """The bundled spec with one edit of wgmma/matrix_descriptor.yaml."""
    return edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml", old, new)


# --- the descriptor: decode, encode, text, JSON ----------------------------------------------------

# start 0x2300 -> (0x2300 >> 4) = 0x230; LBO 16 -> 1; SBO 1024 -> 64; base offset 6; 128B -> 1;
# and bit 14, between the start address (13-0) and LBO (29-16): in no field.
VALUE = 0x230 | 1 << 16 | 64 << 32 | 6 << 49 | 1 << 62 | 1 << 14
VALUE_HEX = "0x400c004000014230"


def test_decode_reads_every_field_and_the_unused_bits() -> None:
    assert f"{VALUE:#018x}" == VALUE_HEX
    assert Descriptor.decode(SPEC, VALUE) == Descriptor(VALUE, 0x2300, 16, 1024, 6, "128B", 1 << 14)


def test_decode_maps_each_layout_type_code_to_its_mode() -> None:
    got = {code: Descriptor.decode(SPEC, code << 62).swizzle for code in range(4)}
    assert got == {0: "none", 1: "128B", 2: "64B", 3: "32B"}


def test_a_layout_type_code_the_spec_does_not_define_is_refused(tmp_path: Path) -> None:
    """A spec whose layout-type field lists no 32B code: code 3 selects nothing."""
    spec = descriptor_field_replaced("layout_type", codes={"none": 0, "128B": 1, "64B": 2})
    with raises_naming(ValueError, "descriptor 0xc000000000000000", "layout-type code 3"):
        Descriptor.decode(spec, 3 << 62)


def test_text_is_the_value_and_the_fields() -> None:
    assert Descriptor.decode(SPEC, VALUE).text() == (
        f"{VALUE_HEX} (start 0x2300, LBO 16 B, SBO 1024 B, base_offset 6, 128B)")


def test_as_dict_is_the_json_contract() -> None:
    d = Descriptor.decode(SPEC, VALUE).as_dict()
    assert d == {"value": VALUE_HEX, "start_address": 0x2300, "lbo": 16, "sbo": 1024,
                 "base_offset": 6, "swizzle": "128B", "unused_bits": "0x4000"}
    assert list(d) == ["value", "start_address", "lbo", "sbo", "base_offset", "swizzle",
                       "unused_bits"]


def test_bit_fields_give_each_fields_bits_raw_value_and_shift() -> None:
    got = Descriptor.decode(SPEC, VALUE).bit_fields(SPEC)
    assert got == {
        "start_address": {"bits": [13, 0], "raw": 0x230, "shift": 4, "spec_id": "start_address"},
        "lbo": {"bits": [29, 16], "raw": 1, "shift": 4, "spec_id": "leading_byte_offset"},
        "sbo": {"bits": [45, 32], "raw": 64, "shift": 4, "spec_id": "stride_byte_offset"},
        "base_offset": {"bits": [51, 49], "raw": 6, "shift": 0, "spec_id": "base_offset"},
        "swizzle": {"bits": [63, 62], "raw": 1, "shift": 0, "spec_id": "layout_type"},
    }
    assert list(got) == ["start_address", "lbo", "sbo", "base_offset", "swizzle"]


def test_bit_fields_and_decode_follow_the_spec_given(tmp_path: Path) -> None:
    """A spec that moves the base-offset field to bits 54-52: its format, not the bundled one."""
    spec = descriptor_field_replaced("base_offset", lsb_bits=52)
    d = Descriptor.of(spec, start_address=0, lbo=16, sbo=1024, swizzle="128B", base_offset=6)
    assert d.value == 1 << 16 | 64 << 32 | 6 << 52 | 1 << 62
    assert Descriptor.decode(spec, d.value) == Descriptor(d.value, 0, 16, 1024, 6, "128B", 0)
    assert d.bit_fields(spec)["base_offset"] == {"bits": [54, 52], "raw": 6, "shift": 0,
                                                 "spec_id": "base_offset"}
    assert d.with_fields(spec, base_offset=3).value == 1 << 16 | 64 << 32 | 3 << 52 | 1 << 62


def test_of_encodes_the_fields() -> None:
    d = Descriptor.of(SPEC, start_address=0x2300, lbo=16, sbo=1024, swizzle="128B", base_offset=6)
    assert d == Descriptor(VALUE - (1 << 14), 0x2300, 16, 1024, 6, "128B", 0)


def test_of_without_a_base_offset_stores_field_0() -> None:
    d = Descriptor.of(SPEC, start_address=0x400, lbo=16, sbo=1024, swizzle="128B")
    assert d.base_offset == 0
    assert d.value == 0x40 | 1 << 16 | 64 << 32 | 1 << 62


def test_with_fields_changes_only_those_and_drops_unused_bits() -> None:
    d = Descriptor.decode(SPEC, VALUE).with_fields(SPEC, sbo=512, swizzle="64B")
    # SBO 512 -> 32 in bits 45-32; 64B is code 2 in bits 63-62; bit 14 dropped
    assert d == Descriptor(0x230 | 1 << 16 | 32 << 32 | 6 << 49 | 2 << 62, 0x2300, 16, 512, 6,
                           "64B", 0)


def test_changed_names_the_differing_fields_in_field_order() -> None:
    d = Descriptor.decode(SPEC, VALUE)
    assert d.changed(d) == ()
    assert d.changed(d.with_fields(SPEC)) == ()   # the unused bits are no field
    assert d.changed(d.with_fields(SPEC, swizzle="64B", lbo=32, start_address=0)) == (
        "start_address", "lbo", "swizzle")
    assert d.changed(d.with_fields(SPEC, base_offset=0, sbo=16)) == ("sbo", "base_offset")


# --- the base-offset rule and the phases -------------------------------------------------------


def test_base_rule_is_the_modes_row() -> None:
    got = {sw: (r.repeat_bytes, r.address_shift_bits, r.mask)
           for sw in ("32B", "64B", "128B") if (r := base_rule(SPEC, sw)) is not None}
    assert got == {"32B": (256, 7, 7), "64B": (512, 7, 7), "128B": (1024, 7, 7)}
    assert base_rule(SPEC, "none") is None


@pytest.mark.parametrize(("swizzle", "base", "field"), [
    ("128B", 0x2300, 6),   # 0x2300 >> 7 = 0x46, & 7 = 6
    ("128B", 0x400, 0),    # 8 & 7
    ("64B", 0x180, 3),
    ("32B", 0x80, 1),
    ("none", 0x380, 0),    # the field is defined for swizzled layouts only
])
def test_rule_field_is_address_bits_9_to_7(swizzle: str, base: int, field: int) -> None:
    assert rule_field(SPEC, swizzle, base) == field


def _desc(start: int, swizzle: str, field: int = 0, lbo: int = 16, sbo: int = 1024) -> Descriptor:
    return Descriptor.of(SPEC, start_address=start, lbo=lbo, sbo=sbo, swizzle=swizzle,
                         base_offset=field)


@pytest.mark.parametrize(("start", "swizzle", "field", "phase"), [
    (0x2300, "128B", 0, 0x300),   # 0x2300 mod 1024
    (0x2300, "128B", 6, 0),       # 0x2300 - 0x300 = 0x2000, a 1024-B boundary
    (0x100, "128B", 5, 640),      # 0x100 - 0x280 = -384, mod 1024 = 640
    (0x180, "64B", 0, 384),       # 0x180 mod 512
    (0x180, "64B", 1, 256),       # 0x180 - 0x80
    (0x2380, "32B", 0, 128),      # 0x2380 mod 256
    (0x2380, "32B", 1, 0),
])
def test_hardware_phase_is_start_less_the_field_mod_the_repeat(start: int, swizzle: str,
                                                             field: int, phase: int) -> None:
    assert hardware_phase(SPEC, _desc(start, swizzle, field)) == phase


def test_no_swizzle_has_no_phase() -> None:
    d = _desc(0x2300, "none", 5, lbo=1024, sbo=128)
    assert hardware_phase(SPEC, d) is None
    assert wanted_phase(SPEC, d, 0x2000) is None


@pytest.mark.parametrize(("start", "swizzle", "tile", "phase"), [
    (0x2300, "128B", 0x2000, 0x300),
    (0x2300, "128B", 0x2380, 896),    # -128 mod 1024
    (0x2300, "64B", 0x2000, 0x100),   # 0x300 mod 512
    (0x2300, "32B", 0x2280, 128),
])
def test_wanted_phase_is_start_less_the_tile_base_mod_the_repeat(start: int, swizzle: str,
                                                                 tile: int, phase: int) -> None:
    assert wanted_phase(SPEC, _desc(start, swizzle), tile) == phase


@pytest.mark.parametrize(("start", "base"), [(0x2345, 0x2300), (0x80, 0x80), (0x7F, 0), (0, 0)])
def test_default_tile_base_is_the_start_rounded_down_to_128(start: int, base: int) -> None:
    assert default_tile_base(start) == base


# --- the read map ---------------------------------------------------------------------------------


def _k_major(swizzle: str, start: int, field: int, sbo: int) -> np.ndarray:
    """A_K's addresses: rows (16 << B) B apart, 8-row groups SBO apart, j at 2j; the hardware
    swizzles start + offset - (field << 7) and adds (field << 7) back."""
    b = MODES[swizzle]
    off = sbo * (ROW // 8) + (16 << b) * (ROW % 8) + 2 * COL
    return _swz(b, start + off - (field << 7)) + (field << 7)


@pytest.mark.parametrize(("swizzle", "start", "field"), [
    ("128B", 0x2300, 6), ("128B", 0x2300, 0), ("128B", 0x2000, 2), ("128B", 0x100, 5),
    ("64B", 0x2180, 3), ("64B", 0x2180, 0), ("32B", 0x2080, 1), ("32B", 0x2080, 0),
])
def test_k_major_swizzled_read_map(swizzle: str, start: int, field: int) -> None:
    sbo = 8 * (16 << MODES[swizzle])   # packed: eight rows
    d = _desc(start, swizzle, field, sbo=sbo)
    want = _k_major(swizzle, start, field, sbo)
    rm = read_map(SPEC, A_K, d)
    assert rm.operand == A_K
    assert rm.desc == d
    assert np.array_equal(rm.addresses, want)
    assert rm.offsets() == (want - start).tolist()
    assert np.array_equal(linear(SPEC, A_K, swizzle).addresses(SPEC, d), want)


def test_k_major_128b_read_map_in_words() -> None:
    """Start 0x2300 with the rule's field 6: the pattern starts at the row, row r XORs r."""
    rm = read_map(SPEC, A_K, _desc(0x2300, "128B", 6))
    assert rm.offsets()[1][:9] == [144, 146, 148, 150, 152, 154, 156, 158, 128]   # 128 + (2j ^ 16)
    assert rm.offsets()[8][0] == 1024
    assert rm.layout == "Swizzle<3,4,3> o ((8,8),(8,2)):((64,512),(1,8))"


def test_query_passes_the_start_in_its_repeat_and_the_field_only_where_it_acts() -> None:
    q = query(SPEC, A_K, _desc(0x2300, "128B", 6))
    assert (q.dtype, q.major, q.swizzle, q.mn, q.k, q.lbo_bytes, q.sbo_bytes) == (
        "bf16", "K", "128B", 64, 16, 16, 1024)
    assert (q.base_offset_bytes, q.base_offset_field) == (0x300, 6)
    assert (q.swizzle_unit, q.mn_lbo_sbo_roles) == ("bytes", "as_documented")
    none = query(SPEC, A_K, _desc(0x2300, "none", 5, lbo=1024, sbo=128))
    assert (none.base_offset_bytes, none.base_offset_field) == (0, 0)


def test_unswizzled_read_map_ignores_the_base_offset_field() -> None:
    """K_INTER: rows 16 B apart, 8-row groups SBO apart, 8-element core matrices LBO apart."""
    want = 0x2310 + 128 * (ROW // 8) + 16 * (ROW % 8) + 2 * (COL % 8) + 1024 * (COL // 8)
    for field in (0, 5):
        d = _desc(0x2310, "none", field, lbo=1024, sbo=128)
        rm = read_map(SPEC, A_K, d)
        assert np.array_equal(rm.addresses, want), field
        assert np.array_equal(linear(SPEC, A_K, "none").addresses(SPEC, d), want), field
        assert rm.layout == "Swizzle<0,4,3> o ((8,8),(8,2)):((8,64),(1,512))"


def test_mn_major_read_map_steps_lbo_along_mn() -> None:
    """MN_SW128: 64 elements (128 B) along MN a row, LBO the next 64, K rows 128 B apart, SBO
    the next 8 K rows; the swizzle XORs the K row (address bits 9-7) into bits 6-4."""
    i, j = np.meshgrid(np.arange(128), np.arange(16), indexing="ij")
    off = 2 * (i % 64) + 8192 * (i // 64) + 128 * (j % 8) + 1024 * (j // 8)
    want = 0x4000 + _swz(3, off)
    d = _desc(0x4000, "128B", lbo=8192, sbo=1024)
    rm = read_map(SPEC, B_MN_128, d)
    assert np.array_equal(rm.addresses, want)
    assert rm.offsets()[0][1] == 128 + 16
    assert rm.offsets()[64][0] == 8192
    assert np.array_equal(linear(SPEC, B_MN_128, "128B").addresses(SPEC, d), want)


# --- the search's split of a layout -------------------------------------------------------------


def test_linear_of_k_interleaved_steps_both_strides() -> None:
    lin = linear(SPEC, A_K, "none")
    assert lin.swizzle == "none"
    assert lin.swz == Swizzle(0, 4, 3)
    assert np.array_equal(lin.base, 16 * (ROW % 8) + 2 * (COL % 8))
    assert np.array_equal(lin.lbo_steps, COL // 8)
    assert np.array_equal(lin.sbo_steps, ROW // 8)
    assert lin.uses("lbo")
    assert lin.uses("sbo")


def test_linear_of_k_128b_takes_no_lbo_step() -> None:
    lin = linear(SPEC, A_K, "128B")
    assert lin.swizzle == "128B"
    assert lin.swz == Swizzle(3, 4, 3)
    assert np.array_equal(lin.base, 128 * (ROW % 8) + 2 * COL)
    assert not lin.lbo_steps.any()
    assert np.array_equal(lin.sbo_steps, ROW // 8)
    assert not lin.uses("lbo")
    assert lin.uses("sbo")


def test_linear_of_mn_128b_steps_lbo_only_past_one_row() -> None:
    """64 MN elements fill the 128B row: A_MN (mn 64) takes no LBO step, mn 128 takes one."""
    one = linear(SPEC, A_MN, "128B")
    assert not one.uses("lbo")
    assert one.uses("sbo")
    assert np.array_equal(one.base, 2 * ROW + 128 * (COL % 8))
    assert np.array_equal(one.sbo_steps, COL // 8)
    two = linear(SPEC, B_MN_128, "128B")
    assert two.uses("lbo")
    assert np.array_equal(two.lbo_steps, np.repeat(np.arange(2), 64)[:, None] + 0 * np.arange(16))


def test_linear_is_cached_per_spec_operand_and_mode() -> None:
    assert linear(SPEC, A_K, "64B") is linear(SPEC, A_K, "64B")
    assert linear(SPEC, A_K, "64B") is not linear(SPEC, A_K, "32B")
    # another load of the same tree (an in-process command's): the same rows, the same split
    assert linear(Spec(SPEC.root, SPEC.rows), A_K, "64B") is linear(SPEC, A_K, "64B")
