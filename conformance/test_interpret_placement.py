"""The placement model of the probes (oracle/interpret.py): shared-memory offsets and strides,
placing bytes and reading them back, register fragments as tables, and the wmma storage helpers.
The encodings and the discovery coding are test_interpret.py's.

Expected values are worked by hand, never read from the code under test:

* the canonical layouts of spec/wgmma/canonical_layouts.yaml (T = 128 / element bits), e.g.
  K-major no-swizzle ``((8,m),(T,2k)):((1T,SBO),(1,LBO))``, K-major 32B
  ``((8,m),(T,2k)):((2T,SBO),(1,T))``, MN-major 32B ``((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))``,
  MN-major 128B ``((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))``, each composed with its
  Swizzle<B,4,3> (x ^ ((x >> 3) & (2**B - 1) << 4), period 2**(B+7)) on byte addresses; under the
  "elements" reading on element offsets, under "swapped" LBO and SBO trade roles (MN-major
  swizzled);
* the descriptor's LBO/SBO fields store value >> 4 (wgmma/matrix_descriptor.yaml), so the
  granule, and the value of an unused field, is 16 B;
* little-endian bytes, LSB-first bits for sub-byte elements, (thread, register, subelement,
  row, col) fragment tables with subelement s at register bits [s * bits, (s + 1) * bits);
* wmma storage (wmma/storage_rules.yaml): the stride is in elements, row-major (r, c) at
  r * ld + c, column-major at c * ld + r."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json

import numpy as np
import pytest
from case_outcomes import raises_naming
from scratch_spec import wide_registers

from ptxconf.gpu import operands
from ptxconf.gpu.variants import parse_wgmma
from ptxconf.oracle import facts, records
from ptxconf.oracle import interpret as I
from ptxconf.oracle.descriptor import DescriptorField
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
M16N8K16_F16 = "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16"


def _ints(a: np.ndarray) -> list:
    return np.asarray(a).tolist()


def _spec_where(pred, **changes: object) -> Spec:
    """The bundled spec with the fields of every row `pred` accepts changed."""
    return Spec(SPEC.root, tuple(dataclasses.replace(r, **changes) if pred(r) else r
                                 for r in SPEC.rows))


def _granule_spec(shift: int) -> Spec:
    """The bundled spec with the wgmma descriptor's LBO field storing value >> shift."""
    return _spec_where(lambda r: isinstance(r, DescriptorField) and r.id == "leading_byte_offset"
                       and r.file == "wgmma/matrix_descriptor.yaml", encode_shift_bits=shift)


# --- the operand layout and its CLI call -----------------------------------------------------


def _k_sw32_f16(i: int, j: int, base: int = 0) -> int:
    # K_SW32, T = 8, one repeat 8 x 16: element offset 16i + j, bytes 32i + 2j; Swizzle<1,4,3>
    # on the absolute byte address (base + b) flips bit 4 where bit 7 is set
    b = base + 32 * i + 2 * j
    return (b ^ ((b >> 3) & 0x10)) - base


def test_reproduce_is_a_cli_call_that_prints_the_offsets() -> None:
    lay = I.OperandLayout("f16", "K", "32B", 8, 16, 16, 256)
    assert lay.atom == "K_SW32"
    assert lay.reproduce() == ("ptxconf oracle smem-offsets --dtype f16 --major K --swizzle 32B "
                               "--mn 8 --k 16 --lbo 16 --sbo 256 --json")
    moved = dataclasses.replace(lay, base_offset_bytes=128)
    cmd = moved.reproduce()
    assert cmd == ("ptxconf oracle smem-offsets --dtype f16 --major K --swizzle 32B --mn 8 "
                   "--k 16 --lbo 16 --sbo 256 --base-offset 128 --json")
    from ptxconf.app.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(cmd.split()[1:]) == 0
    want = [[_k_sw32_f16(i, j, 128) for j in range(16)] for i in range(8)]
    assert json.loads(out.getvalue())["offsets"] == want


@pytest.mark.parametrize(("dtype", "units"), [("f16", "bytes"), ("e4m3", "bytes"), ("f64", "bytes"),
                                         ("b1", "bits"), ("s4", "bits"), ("u4", "bits")])
def test_address_units(dtype: str, units: str) -> None:
    assert I.address_units(SPEC, dtype) == units


def test_offsets_follow_the_documented_and_the_other_readings() -> None:
    lay = I.OperandLayout("f16", "K", "32B", 8, 16, 16, 256)
    documented = I.offsets(SPEC, lay)
    assert _ints(documented) == [[_k_sw32_f16(i, j) for j in range(16)] for i in range(8)]
    # read-only: the array is cached with the spec
    assert not documented.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        documented[0, 0] = 1
    # the start 128 B into the 256-B swizzle repeat: rows 0-3 now have bit 7 set
    moved = I.offsets(SPEC, dataclasses.replace(lay, base_offset_bytes=128))
    assert _ints(moved) == [[_k_sw32_f16(i, j, 128) for j in range(16)] for i in range(8)]
    # "elements": Swizzle<1,4,3> on element offsets 16i + j < 128 never sees bit 7
    elements = I.offsets(SPEC, dataclasses.replace(lay, swizzle_unit="elements"))
    assert _ints(elements) == [[32 * i + 2 * j for j in range(16)] for i in range(8)]


def _mn_sw32_f16(i: int, j: int, k_step_bytes: int) -> int:
    # MN_SW32, T = 8, repeat 16 x 8: element (i, j) at i + 16 (j % 8) elements, the next 8 K at
    # one K step; Swizzle<1,4,3> on bytes flips bit 4 where bit 7 (j % 8 >= 4) is set
    b = 2 * i + 32 * (j % 8) + k_step_bytes * (j // 8)
    return b ^ ((b >> 3) & 0x10)


def test_offsets_with_the_swapped_lbo_sbo_roles() -> None:
    lay = I.OperandLayout("f16", "MN", "32B", 16, 16, 1024, 512)
    assert _ints(I.offsets(SPEC, lay)) == [[_mn_sw32_f16(i, j, 512) for j in range(16)]
                                           for i in range(16)]
    swapped = I.offsets(SPEC, dataclasses.replace(lay, mn_lbo_sbo_roles="swapped"))
    assert _ints(swapped) == [[_mn_sw32_f16(i, j, 1024) for j in range(16)] for i in range(16)]


# --- strides ---------------------------------------------------------------------------------


def test_stride_granule_is_the_fields_shift() -> None:
    assert I.stride_granule_bytes(SPEC) == 16       # (LBO) >> 4
    assert I.stride_granule_bytes(_granule_spec(5)) == 32


@pytest.mark.parametrize(("major", "swizzle", "mn", "k", "steps", "compact", "separated"), [
    # K none: m = mn/8 SBO steps, 2k = k/8 LBO steps; a repeat's one core matrix is 128 B
    ("K", "none", 64, 32, (4, 8, 128), (1024, 128), (128, 1024)),
    ("K", "none", 8, 32, (4, 1, 128), (128, 16), (128, 512)),
    ("K", "none", 16, 16, (2, 2, 128), (256, 128), (128, 256)),
    # K 128B: no LBO in the template (16 B, "assumed 1"); 8 rows of 128 B: SBO 1024
    ("K", "128B", 64, 16, (1, 8, 1024), (16, 1024), (1024, 8192)),
    # MN 128B: 64 x 8 repeats, LBO along MN (2), SBO along K (2), a repeat 1024 B
    ("MN", "128B", 128, 16, (2, 2, 1024), (2048, 1024), (1024, 2048)),
])
def test_stride_steps_and_the_strides_made_from_them(major: str, swizzle: str, mn: int, k: int,
                                                     steps: tuple, compact: tuple,
                                                     separated: tuple) -> None:
    assert I.stride_steps(SPEC, "f16", major, swizzle, mn, k) == steps
    assert I.compact_strides(SPEC, "f16", major, swizzle, mn, k) == compact
    assert I.separated_strides(SPEC, "f16", major, swizzle, mn, k) == separated


def test_strides_follow_the_spec_granule() -> None:
    # LBO >> 8: a 256-B granule, above the 128-B period of the no-swizzle atom
    g = _granule_spec(8)
    assert I.stride_steps(g, "f16", "K", "none", 64, 32) == (4, 8, 256)
    assert I.compact_strides(g, "f16", "K", "128B", 64, 16) == (256, 1024)
    assert I.separated_strides(g, "f16", "K", "none", 8, 32) == (256, 1024)


def test_offsets_injective() -> None:
    assert I.offsets_injective(np.array([[-16, 0], [16, 32]]))   # a swizzle can go below 0
    assert not I.offsets_injective(np.array([[-16, 0], [16, -16]]))
    assert not I.offsets_injective(np.array([0, 16, 16]))
    assert not I.offsets_injective(np.array([5, 5]))
    assert I.offsets_injective(np.array([7]))
    assert I.offsets_injective(np.zeros((0, 4), dtype=np.int64))


def test_footprint_bytes() -> None:
    assert I.footprint_bytes(np.zeros((0, 4), dtype=np.int64), 16) == 0
    assert I.footprint_bytes(np.array([[0]]), 16) == 2
    assert I.footprint_bytes(np.array([[6]]), 64) == 14
    assert I.footprint_bytes(np.array([[6]]), 4) == 1      # bits 6..9 start in byte 0
    assert I.footprint_bytes(np.array([[8, 17]]), 1) == 3


# --- placing and gathering -------------------------------------------------------------------


def test_place_multi_byte_elements_little_endian() -> None:
    raw = np.array([0x1234, 0xABCD], dtype=np.int64)   # e.g. values drawn as int64
    out = I.place(raw, np.array([0, 4]), 16)
    assert out.dtype == np.uint8
    assert list(out) == [0x34, 0x12, 0, 0, 0xCD, 0xAB]
    assert list(I.place(raw, np.array([0, 4]), 16, size_bytes=8)) == \
        [0x34, 0x12, 0, 0, 0xCD, 0xAB, 0, 0]
    image = np.full(8, 0xEE, dtype=np.uint8)
    got = I.place([0xBEEF], np.array([2]), 16, image=image)
    assert list(got) == [0xEE, 0xEE, 0xEF, 0xBE, 0xEE, 0xEE, 0xEE, 0xEE]
    assert list(image) == [0xEE] * 8                 # the image given is not written
    f64 = I.place(np.array([0x1122334455667788], dtype=np.uint64), np.array([0]), 64)
    assert list(f64) == [0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]


def test_place_sub_byte_elements_lsb_first_keeping_their_neighbours() -> None:
    ones = np.full(1, 0xFF, dtype=np.uint8)
    assert list(I.place([0], np.array([0]), 1, image=ones)) == [0xFE]
    assert list(I.place([0], np.array([3]), 1, image=ones)) == [0xF7]
    assert list(I.place([0], np.array([4]), 4, image=ones)) == [0x0F]
    assert list(I.place([0x5], np.array([0]), 4, image=ones)) == [0xF5]
    # bits above the element's width are not placed
    assert list(I.place([3], np.array([5]), 1, size_bytes=1)) == [0x20]
    assert list(I.place([0x1F], np.array([4]), 4, size_bytes=1)) == [0xF0]
    assert list(I.place(np.array([1, 1, 0, 1]), np.array([0, 1, 2, 9]), 1)) == [0x03, 0x02]
    assert list(I.place(np.array([1, 2, 3]), np.array([0, 4, 8]), 4)) == [0x21, 0x03]


def test_offsets_of_a_narrow_integer_type_are_widened() -> None:
    offs = np.array([255], dtype=np.uint8)
    out = I.place(np.array([0xBEEF], dtype=np.uint64), offs, 16)
    assert len(out) == 257
    assert (int(out[255]), int(out[256]), int(out[0])) == (0xEF, 0xBE, 0)
    assert _ints(I.gather(out, offs, 16)) == [0xBEEF]


def test_gather_reads_bytes_bytearrays_and_arrays() -> None:
    mem = bytes([0x34, 0x12, 0xCD, 0xAB, 0xA5])
    for image in (mem, bytearray(mem), np.frombuffer(mem, dtype=np.uint8)):
        got = I.gather(image, np.array([[2, 0]]), 16)
        assert got.dtype == np.uint64
        assert _ints(got) == [[0xABCD, 0x1234]]
    b1 = I.gather(mem, np.array([32, 33, 34, 37]), 1)      # 0xA5 = 1010 0101, LSB first
    assert b1.dtype == np.uint64
    assert _ints(b1) == [1, 0, 1, 1]
    s4 = I.gather(mem, np.array([0, 4, 8, 12]), 4)
    assert s4.dtype == np.uint64
    assert _ints(s4) == [4, 3, 2, 1]


# --- register fragments ----------------------------------------------------------------------

#: A hand-made table: (thread, register, subelement, row, col) of a 2 x 3 matrix of 16-bit
#: elements in 2 threads x 2 registers.
TABLE = np.array([(0, 0, 0, 0, 0), (0, 0, 1, 0, 1), (1, 0, 0, 1, 0), (1, 0, 1, 1, 1),
                  (0, 1, 0, 0, 2), (0, 1, 1, 1, 2)], dtype=np.int64)
MATRIX = [[0x1111, 0x2222, 0x3333], [0x4444, 0x5555, 0x6666]]
WORDS = [[0x22221111, 0x66663333], [0x55554444, 0]]


def test_fragment_table_is_the_ptx_figure_and_comes_from_the_spec_given() -> None:
    # wgmma D, .f16 accumulator (PTX ISA figure 149): thread 0 holds d0 = (0,0),(0,1) and
    # d1 = (8,0),(8,1); thread 1 (0,2),(0,3); thread 4 row 1; thread 32 (warp 1) row 16
    rows = {tuple(r) for r in _ints(I.fragment_table(SPEC, M16N8K16_F16, "D"))}
    assert {(0, 0, 0, 0, 0), (0, 0, 1, 0, 1), (0, 1, 0, 8, 0), (0, 1, 1, 8, 1), (1, 0, 0, 0, 2),
            (4, 0, 0, 1, 0), (32, 0, 0, 16, 0)} <= rows
    assert len(rows) == 64 * 8
    # without the .f16-accumulator type row, that instruction is not one the spec knows
    no_f16 = Spec(SPEC.root, tuple(r for r in SPEC.rows if not (
        isinstance(r, records.InstructionType) and (r.dtype, r.atype) == ("f16", "f16"))))
    with pytest.raises(ValueError, match=r"accumulates in \.f32, not \.f16"):
        I.fragment_table(no_f16, M16N8K16_F16, "D")


def test_regs_from_matrix_and_back() -> None:
    regs = I.regs_from_matrix(MATRIX, TABLE, 2, 2, 16)      # raw given as Python ints
    assert regs.dtype == np.uint32
    assert _ints(regs) == WORDS
    # bits above the element's width are dropped
    wide_raw = [[0x11111, 0x2222, 0x3333], [0x4444, 0x5555, 0x6666]]
    assert _ints(I.regs_from_matrix(np.array(wide_raw), TABLE, 2, 2, 16)) == WORDS
    back = I.matrix_from_regs(np.array(WORDS, dtype=np.uint32), TABLE, (2, 3), 16)
    assert back.dtype == np.uint64
    assert _ints(back) == MATRIX


def test_register_slots() -> None:
    slots = I.register_slots(WORDS, 16)                      # words given as Python ints
    assert slots.dtype == np.uint64
    assert slots.shape == (2, 2, 2)
    assert _ints(slots) == [[[0x1111, 0x2222], [0x3333, 0x6666]], [[0x4444, 0x5555], [0, 0]]]
    assert _ints(I.register_slots([[0x44332211]], 8)) == [[[0x11, 0x22, 0x33, 0x44]]]
    assert _ints(I.register_slots([[0x87654321]], 4, SPEC)) == [[[1, 2, 3, 4, 5, 6, 7, 8]]]
    with raises_naming(ValueError, "3-bit", "32-bit"):
        I.register_slots([[0]], 3)


def test_register_slots_and_matrices_follow_the_specs_register_width() -> None:
    wide = wide_registers(SPEC)
    word = np.array([[0x0000000200000001]], dtype=np.uint64)
    assert _ints(I.register_slots(word, 64, wide)) == [[[0x0000000200000001]]]
    assert _ints(I.register_slots(word, 32, wide)) == [[[1, 2]]]
    two = np.array([(0, 0, 0, 0, 0), (0, 0, 1, 0, 1)], dtype=np.int64)
    got = I.matrix_from_regs(word, two, (1, 2), 32, wide)
    assert got.dtype == np.uint64
    assert _ints(got) == [[1, 2]]


# --- wmma ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("layout", "bits", "ld", "want"), [
    ("row", 16, 4, [[0, 2, 4], [8, 10, 12]]),         # r * 4 + c elements, 2 bytes each
    ("col", 16, 4, [[0, 8, 16], [2, 10, 18]]),        # c * 4 + r
    ("row", 8, 5, [[0, 1, 2], [5, 6, 7]]),
    ("col", 1, 128, [[0, 128, 256], [1, 129, 257]]),  # bits
    ("row", 4, 8, [[0, 4, 8], [32, 36, 40]]),         # bits
    ("col", 64, 2, [[0, 16, 32], [8, 24, 40]]),
])
def test_wmma_element_offsets(layout: str, bits: int, ld: int, want: list) -> None:
    got = I.wmma_element_offsets(2, 3, layout, ld, bits)
    assert got.dtype == np.int64
    assert _ints(got) == want


@pytest.mark.parametrize(("bits", "want"), [(16, [0, 2, 4]), (8, [0, 1, 2]), (4, [0, 4, 8]),
                                       (1, [0, 1, 2]), (64, [0, 8, 16])])
def test_slot_to_offset(bits: int, want: list) -> None:
    got = I.slot_to_offset(np.arange(3), bits)
    assert got.dtype == np.int64
    assert _ints(got) == want


def test_slot_to_offset_widens_narrow_slot_indices() -> None:
    got = I.slot_to_offset(np.array([200, 255], dtype=np.uint8), 16)
    assert got.dtype == np.int64
    assert _ints(got) == [400, 510]


def test_wmma_span_elems() -> None:
    assert I.wmma_span_elems(16, 8, "row", 12) == 15 * 12 + 8
    assert I.wmma_span_elems(16, 8, "col", 20) == 7 * 20 + 16
    assert I.wmma_span_elems(1, 8, "row", 12) == 8


def test_wmma_fragment_slots() -> None:
    # f16, 4 elements in 8 bytes; the words past the fragment are not read
    words = np.array([[0x00020001, 0x00040003, 0xFFFFFFFF, 0xFFFFFFFF],
                      [0xBEEFCAFE, 0x12345678, 0xFFFFFFFF, 0xFFFFFFFF]], dtype=np.uint32)
    got = I.wmma_fragment_slots(words, 4, 8, 16)
    assert got.dtype == np.uint64
    assert _ints(got) == [[1, 2, 3, 4], [0xCAFE, 0xBEEF, 0x5678, 0x1234]]
    f64 = I.wmma_fragment_slots(np.array([[0x55667788, 0x11223344]], dtype=np.uint32), 1, 8, 64)
    assert _ints(f64) == [[0x1122334455667788]]
    u8 = I.wmma_fragment_slots(np.array([[0x44332211]], dtype=np.uint32), 4, 4, 8)
    assert _ints(u8) == [[0x11, 0x22, 0x33, 0x44]]
    s4 = I.wmma_fragment_slots(np.array([[0x87654321], [0x00000F0E]], dtype=np.uint32), 8, 4, 4)
    assert s4.dtype == np.uint64
    assert _ints(s4) == [[1, 2, 3, 4, 5, 6, 7, 8], [0xE, 0, 0xF, 0, 0, 0, 0, 0]]
    b1 = I.wmma_fragment_slots(np.array([[0x1A5]], dtype=np.uint32), 8, 1, 1)
    assert b1.dtype == np.uint64
    assert _ints(b1) == [[1, 0, 1, 0, 0, 1, 0, 1]]


def test_wmma_fill_words() -> None:
    raw = [[0x0102, 0xA0B0, 3, 4], [5, 6, 7, 0xFFFF]]             # Python ints
    words = I.wmma_fill_words(raw, 8, 16, 2)
    assert words.dtype == np.uint32
    assert words.shape == (2, 2)
    assert _ints(words) == [[0xA0B00102, 0x00040003], [0x00060005, 0xFFFF0007]]
    assert _ints(I.wmma_fill_words(raw, 8, 16, 3)) == [[0xA0B00102, 0x00040003, 0],
                                                       [0x00060005, 0xFFFF0007, 0]]
    assert _ints(I.wmma_fill_words([[1, 2, 3, 4]], 4, 8, 1)) == [[0x04030201]]
    assert _ints(I.wmma_fill_words([[0x1122334455667788]], 8, 64, 2)) == \
        [[0x55667788, 0x11223344]]
    # storage wider than the element: 4 elements in 16 bytes, one every 4 bytes
    assert _ints(I.wmma_fill_words([[0x0102, 0x0304, 0x0506, 0x0708]], 16, 16, 4)) == \
        [[0x0102, 0x0304, 0x0506, 0x0708]]
    # the inverse of wmma_fragment_slots where the elements fill the fragment
    back = I.wmma_fragment_slots(words, 4, 8, 16)
    assert _ints(back) == raw


def test_wmma_slots_of_storage_wider_than_the_element() -> None:
    # 4 f16 elements in a 16-byte fragment: one every 4 bytes, the upper halves unread
    words = np.array([[0xAAAA0102, 0xBBBB0304, 0xCCCC0506, 0xDDDD0708]], dtype=np.uint32)
    assert _ints(I.wmma_fragment_slots(words, 4, 16, 16)) == [[0x0102, 0x0304, 0x0506, 0x0708]]
    # and fill_words is its inverse there
    filled = I.wmma_fill_words([[0x0102, 0x0304, 0x0506, 0x0708]], 16, 16, 4)
    assert _ints(I.wmma_fragment_slots(filled, 4, 16, 16)) == [[0x0102, 0x0304, 0x0506, 0x0708]]
    assert I.wmma_slot_bits(16, 4, 16) == 32
    assert I.wmma_slot_bits(8, 4, 16) == 16
    assert I.wmma_slot_bits(4, 8, 4) == 4


def test_wmma_elements_that_do_not_fit_the_fragment_are_refused() -> None:
    # 4 elements of 32 bits cannot be held by 8 bytes: neither direction guesses a width
    with raises_naming(ValueError, "4 elements", "32 bits", "8-byte"):
        I.wmma_fragment_slots(np.zeros((1, 2), dtype=np.uint32), 4, 8, 32)
    with raises_naming(ValueError, "4 elements", "32 bits", "8-byte"):
        I.wmma_fill_words([[1, 2, 3, 4]], 8, 32, 2)
    assert I.wmma_slot_bits(16, 4, 32) == 32, "exactly full is accepted"


# --- round trips through the placement and the register maps -----------------------------------

@pytest.mark.parametrize("dtype", ["f16", "e4m3", "b1", "tf32"])
@pytest.mark.parametrize(("major", "swizzle"), [("K", "none"), ("K", "128B"), ("K", "32B")])
def test_place_gather_round_trip(dtype: str, major: str, swizzle: str) -> None:
    lay = operands.layout(SPEC, dtype, major, swizzle, 64, 256 // I.element_bits(SPEC, dtype))
    offs = I.offsets(SPEC, lay)
    assert I.offsets_injective(offs), lay
    rng = np.random.default_rng(1)
    lo, hi = I.value_range(SPEC, dtype)
    vals = rng.integers(max(lo, -8), min(hi, 8) + 1, size=offs.shape)
    raw = I.encode(SPEC, dtype, vals)
    img = I.place(raw, offs, I.element_bits(SPEC, dtype))
    assert np.array_equal(I.gather(img, offs, I.element_bits(SPEC, dtype)), raw)


def test_compact_strides_pack_the_operand() -> None:
    """The compact LBO/SBO leave no gap: footprint == elements x width (K-major none)."""
    for dtype in ("f16", "e4m3", "tf32", "b1"):
        k = 256 // I.element_bits(SPEC, dtype)
        lay = operands.layout(SPEC, dtype, "K", "none", 64, k)
        offs = I.offsets(SPEC, lay)
        assert I.footprint_bytes(offs, I.element_bits(SPEC, dtype)) == 64 * 32, lay


@pytest.mark.parametrize("name", [
    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16",
    "wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16",
    "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8",
    "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32",
    "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc",
])
def test_fragments_round_trip(name: str) -> None:
    """Matrix -> registers by the oracle's map -> matrix, for D and register A."""
    v = parse_wgmma(SPEC, name, a_from_regs=True)
    rng = np.random.default_rng(2)
    for operand, dtype, shape, nreg in (("D", v.dtype, (v.m, v.n), v.nreg_d),
                                        ("A", v.atype, (v.m, v.k), v.nreg_a)):
        bits = I.element_bits(SPEC, dtype)
        raw = rng.integers(0, 1 << min(bits, 16), size=shape).astype(np.uint64)
        table = I.fragment_table(SPEC, name, operand)
        regs = I.regs_from_matrix(raw, table, facts.warpgroup_threads(SPEC), nreg, bits)
        assert np.array_equal(I.matrix_from_regs(regs, table, shape, bits), raw), operand
