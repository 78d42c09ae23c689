"""wmma load/store addressing (oracle/wmma.py): matrix shapes, default strides, element offsets,
the leading-dimension starts and their alignment.

Expected values come from the PTX ISA's wmma storage section (9.7.14.4.2, as spec/wmma/ cites
it: A is MxK, B is KxN, C is MxN; the default stride is the leading dimension, the table row
`| 8x32x16 | 16 | 8 | 32 | 16 | 32 | 8 |`; every row / column start aligned to the fragment's
bytes, the worked example `wmma.load.a...m16n16k16.f16`: 32 bytes, p and 2*s multiples of 32)
and from hand-worked addresses, never from the code under test."""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming

from ptxconf.oracle import wmma as W


@pytest.mark.parametrize(("matrix", "shape"), [("a", (8, 16)), ("b", (16, 32)), ("c", (8, 32))])
def test_matrix_shape_of_m8n32k16(matrix: str, shape: tuple[int, int]) -> None:
    assert W.matrix_shape(8, 32, 16, matrix) == shape


@pytest.mark.parametrize(("matrix", "layout", "stride"), [
    ("a", "row", 16), ("a", "col", 8), ("b", "row", 32), ("b", "col", 16),
    ("c", "row", 32), ("c", "col", 8)])
def test_default_stride_is_the_tables_m8n32k16_row(matrix: str, layout: str, stride: int) -> None:
    assert W.default_stride_elems(8, 32, 16, matrix, layout) == stride


def test_default_stride_refuses_a_layout_that_is_neither_row_nor_col() -> None:
    with raises_naming(ValueError, "'ROW'"):
        W.default_stride_elems(16, 16, 16, "a", "ROW")


@pytest.mark.parametrize(("layout", "offset"), [("row", 2 * 40 + 3), ("col", 3 * 40 + 2)])
def test_element_offset_walks_the_leading_dimension(layout: str, offset: int) -> None:
    assert W.element_offset_elems(2, 3, layout, 40) == offset


def test_leading_starts_are_whole_bytes_one_stride_apart() -> None:
    starts = W.leading_starts_bytes(0x100, 16, 16, 3)  # f16, stride 16 elements: 32 bytes
    assert starts == [0x100, 0x120, 0x140]
    assert all(type(s) is int for s in starts)
    # a sub-byte type: 4-bit elements, stride 24 elements = 12 bytes
    assert W.leading_starts_bytes(0, 24, 4, 3) == [0, 12, 24]


def test_the_ptx_example_aligned_pointer_and_stride_pass() -> None:
    # m16n16k16 f16 A: a fragment of 32 bytes; p = 0x40 and s = 16 (2*s = 32) are multiples of 32
    verdict = W.check_alignment(0x40, 16, 16, 32, 16)
    assert verdict == W.AlignmentVerdict(True, "every start aligned")


def test_a_misaligned_pointer_is_named_at_instance_0() -> None:
    verdict = W.check_alignment(0x10, 16, 16, 32, 16)
    assert not verdict.ok
    for named in ("instance 0", "byte 0x10", "32", "p=0x10", "stride=16"):
        assert named in verdict.message


def test_a_misaligned_start_is_a_verdict_of_false_not_merely_falsy() -> None:
    # the probe records `ok` as the case's rule_ok field (gpu/families/wmma.py): false, a bool
    assert W.check_alignment(0x10, 16, 16, 32, 16).ok is False
    assert W.check_alignment(0x20, 8, 16, 32, 16).ok is False


def test_a_misaligned_stride_is_named_at_the_first_start_it_breaks() -> None:
    # s = 8 f16 elements is 16 bytes: the second row starts at byte 0x30
    verdict = W.check_alignment(0x20, 8, 16, 32, 16)
    assert not verdict.ok
    for named in ("instance 1", "byte 0x30", "32", "p=0x20", "stride=8"):
        assert named in verdict.message
    # one row only: its start is the pointer, aligned
    assert W.check_alignment(0x20, 8, 16, 32, 1).ok
