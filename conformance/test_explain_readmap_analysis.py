"""What the read map of a descriptor says about the operand (oracle/explain/readmap.py): the
analysis of a map (its errors in order, the first alias, the bounds, the phases, the suspect
fields), the core-matrix reads and the bank report; the descriptor's fields, phases and the
addresses themselves are test_explain_readmap.py's.

Expected values come from the documented semantics, worked by hand (see test_explain_readmap.py's
docstring: the descriptor's bit layout of spec/wgmma/matrix_descriptor.yaml, the canonical
layouts and the H100 base-offset reading).
"""

from __future__ import annotations

import numpy as np
import pytest

from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.readmap import (
    Analysis,
    Context,
    Descriptor,
    Suspect,
    _first_alias,
    analyse,
    bank_report,
    core_matrix_reads,
    read_map,
    suspects,
)
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
ROW, COL = np.meshgrid(np.arange(64), np.arange(16), indexing="ij")   # element (mn, k) of A_K
A_K = Operand("bf16", "K", 64, 16, 16)     # operand A of an m64nNk16 bf16 wgmma, K-major
A_MN = Operand("bf16", "MN", 64, 16, 16)
B_MN_128 = Operand("bf16", "MN", 128, 16, 16)   # two MN repeats of the 64-element 128B row


def _desc(start: int, swizzle: str, field: int = 0, lbo: int = 16, sbo: int = 1024) -> Descriptor:
    return Descriptor.of(SPEC, start_address=start, lbo=lbo, sbo=sbo, swizzle=swizzle,
                         base_offset=field)


# --- is it an operand? ----------------------------------------------------------------------------


def _analysis(**kw: object) -> Analysis:
    base: dict[str, object] = dict(injective=True, alias=None, span=(0x100, 0x180), outside=0,
                                   first_outside=None, hw_phase=0x80, want_phase=0x80)
    return Analysis(**(base | kw))  # type: ignore[arg-type]


def test_analysis_errors_in_order() -> None:
    ok = _analysis()
    assert ok.phase_ok
    assert ok.errors == ()
    assert ok.valid
    assert ok.span_bytes == 0x80
    bad = _analysis(injective=False, outside=3, want_phase=0)
    assert not bad.phase_ok
    assert bad.errors == ("alias", "overrun", "phase")
    assert not bad.valid
    assert _analysis(outside=1).errors == ("overrun",)
    assert _analysis(injective=False).errors == ("alias",)
    assert _analysis(hw_phase=None, want_phase=None).valid


def test_first_alias_is_the_lowest_shared_address() -> None:
    assert _first_alias(np.array([[9, 7], [9, 7]])) == ((0, 1), (1, 1), 7)
    # three columns: flat 1 and 5 both read 1 -> (0, 1) and (1, 2)
    assert _first_alias(np.array([[5, 1, 2], [3, 4, 1]])) == ((0, 1), (1, 2), 1)
    # three elements at one address: the first two of them
    assert _first_alias(np.array([[6, 6], [6, 2]])) == ((0, 0), (0, 1), 6)
    assert _first_alias(np.array([[0, 4, 4, 0]])) == ((0, 0), (0, 3), 0)
    assert _first_alias(np.array([[0, 2], [4, 6]])) is None


def test_first_alias_is_the_first_pair_in_row_order_in_a_large_map() -> None:
    """SBO 0's shape: 64 x 16 elements, each 8-row group reading addresses 0..127 again; the
    first two elements at address 0 are (0, 0) and (8, 0), whatever the sort's size."""
    addrs = np.tile(np.arange(128), 8).reshape(64, 16)
    assert _first_alias(addrs) == ((0, 0), (8, 0), 0)


def test_analyse_bounds_are_inclusive_of_the_last_byte() -> None:
    """bf16 elements in [0x100, 0x140): one at 0x13e ends at 0x140 (inside), 0x140 and 0xfe are
    outside; the first outside in row order is (0, 2)."""
    op = Operand("bf16", "K", 2, 3, 16)
    d = _desc(0x100, "none", lbo=1024, sbo=128)
    inside = np.array([[0x100, 0x13E, 0x102], [0x104, 0x106, 0x108]])
    a = analyse(SPEC, op, d, inside, Context(0x100, 0x40))
    assert (a.outside, a.first_outside, a.span, a.injective, a.alias) == (0, None, (0x100, 0x140),
                                                                           True, None)
    out = np.array([[0x100, 0x13E, 0x140], [0xFE, 0x106, 0x108]])
    a = analyse(SPEC, op, d, out, Context(0x100, 0x40))
    assert (a.outside, a.first_outside, a.span) == (2, ((0, 2), 0x140), (0xFE, 0x142))
    assert a.errors == ("overrun",)
    # no allocation given: nothing is outside
    a = analyse(SPEC, op, d, out, Context(0x100))
    assert (a.outside, a.first_outside) == (0, None)


def test_analyse_of_an_aliased_map() -> None:
    op = Operand("bf16", "K", 2, 3, 16)
    d = _desc(0x100, "none", lbo=1024, sbo=128)
    a = analyse(SPEC, op, d, np.array([[0x100, 0x102, 0x104], [0x106, 0x102, 0x108]]),
                Context(0x100, 0x40))
    assert not a.injective
    assert a.alias == ((0, 1), (1, 1), 0x102)
    assert a.errors == ("alias",)


def test_analyse_phases_are_the_descriptors_and_the_tiles() -> None:
    d = _desc(0x2300, "128B")
    addrs = read_map(SPEC, A_K, d).addresses
    a = analyse(SPEC, A_K, d, addrs, Context(0x2000))
    assert (a.hw_phase, a.want_phase, a.valid) == (0x300, 0x300, True)
    a = analyse(SPEC, A_K, d, addrs, Context(0x2300))
    assert (a.hw_phase, a.want_phase, a.errors) == (0x300, 0, ("phase",))


LBO_WHY = "wgmma/leading_byte_offset:LBO.K.swizzled: not used, assumed to be 1"
FIELD_WHY = ("the base-offset field is defined for swizzled layouts only "
             "(wgmma/base_offset.yaml lists 32B, 64B, 128B)")


@pytest.mark.parametrize("swizzle", ["32B", "64B", "128B"])
def test_k_major_swizzled_lbo_other_than_0_or_16_is_suspect(swizzle: str) -> None:
    got = suspects(SPEC, A_K, _desc(0, swizzle, lbo=32))
    assert got == (Suspect("lbo", 32, 16, LBO_WHY),)
    assert type(got[0].meant) is int
    assert suspects(SPEC, A_K, _desc(0, swizzle, lbo=16)) == ()
    assert suspects(SPEC, A_K, _desc(0, swizzle, lbo=0)) == ()
    assert suspects(SPEC, A_MN, _desc(0, swizzle, lbo=32)) == ()   # MN-major: LBO used


def test_the_base_offset_field_without_a_swizzle_is_suspect() -> None:
    d = _desc(0, "none", 3, lbo=1024, sbo=128)
    assert suspects(SPEC, A_K, d) == (Suspect("base_offset", 3, 0, FIELD_WHY),)
    assert suspects(SPEC, A_K, _desc(0, "none", lbo=1024, sbo=128)) == ()
    assert suspects(SPEC, A_K, _desc(0x180, "128B", 3)) == ()
    a = analyse(SPEC, A_K, d, read_map(SPEC, A_K, d).addresses, Context(0))
    assert a.suspects == (Suspect("base_offset", 3, 0, FIELD_WHY),)
    assert a.valid


# --- core matrices and banks ----------------------------------------------------------------------


def test_core_matrix_reads_of_a_k_major_operand() -> None:
    """K-major: a core matrix is 8 MN rows x 8 bf16 of K; its reads are the rows' first bytes."""
    op = Operand("bf16", "K", 8, 16, 16)
    i, j = np.meshgrid(np.arange(8), np.arange(16), indexing="ij")
    got = core_matrix_reads(op, 128 * i + 2 * j, 8)
    assert got == {(0, 0): [128 * r for r in range(8)], (0, 1): [128 * r + 16 for r in range(8)]}


def test_core_matrix_reads_of_an_mn_major_operand() -> None:
    """MN-major: a core matrix is 8 K rows x 8 bf16 of MN."""
    op = Operand("bf16", "MN", 16, 8, 16)
    i, j = np.meshgrid(np.arange(16), np.arange(8), indexing="ij")
    got = core_matrix_reads(op, 2 * i + 128 * j, 8)
    assert got == {(0, 0): [128 * r for r in range(8)], (1, 0): [16 + 128 * r for r in range(8)]}


def test_core_matrix_grids_of_8_bit_elements() -> None:
    """e4m3 (T = 16): K-major 8 x 32 is 1 x 2 core matrices (8 MN rows x 16 of K), MN-major
    32 x 8 is 2 x 1 (8 K rows x 16 of MN); the grid follows the major-ness."""
    i, j = np.meshgrid(np.arange(8), np.arange(32), indexing="ij")
    got = core_matrix_reads(Operand("e4m3", "K", 8, 32, 8), 128 * i + j, 16)
    assert got == {(0, 0): [128 * r for r in range(8)], (0, 1): [128 * r + 16 for r in range(8)]}
    i, j = np.meshgrid(np.arange(32), np.arange(8), indexing="ij")
    got = core_matrix_reads(Operand("e4m3", "MN", 32, 8, 8), i + 128 * j, 16)
    assert got == {(0, 0): [128 * r for r in range(8)], (1, 0): [16 + 128 * r for r in range(8)]}


def test_a_core_matrix_whose_row_is_not_one_chunk_is_left_out() -> None:
    op = Operand("bf16", "K", 8, 16, 16)
    i, j = np.meshgrid(np.arange(8), np.arange(16), indexing="ij")
    addrs = 128 * i + 2 * j
    addrs[7, 3] = 4096   # the last row of core matrix (0, 0) broken
    assert list(core_matrix_reads(op, addrs, 8)) == [(0, 1)]
    addrs[0, 9] = 4098   # the first row of (0, 1)
    assert core_matrix_reads(op, addrs, 8) == {}


def test_bank_report_names_the_first_worst_core_matrix() -> None:
    """Rows 128 B apart: eight reads of one address mod 128 share four banks (degree 8); the
    first eight rows swizzled (128B) are conflict-free, so the worst is core matrix (1, 0)."""
    addrs = 128 * ROW + 2 * COL
    addrs[:8] = 128 * ROW[:8] + (2 * COL[:8] ^ (ROW[:8] << 4))
    rep = bank_report(SPEC, A_K, addrs)
    hits = ", ".join(f"t{r}@{1024 + 128 * r:#x}" for r in range(8))
    assert rep == {"core_matrices": 16, "worst_degree": 8, "conflicted": 14, "worst_at": [1, 0],
                   "worst": f"phase 0, bank 0: 8 distinct words ({hits})"}


def test_bank_report_of_a_conflict_free_operand_has_no_worst() -> None:
    rep = bank_report(SPEC, A_K, read_map(SPEC, A_K, _desc(0, "64B", sbo=512)).addresses)
    assert rep == {"core_matrices": 16, "worst_degree": 1, "conflicted": 0}
    assert bank_report(SPEC, A_K, np.zeros((64, 16), dtype=np.int64)) == {
        "core_matrices": 0, "worst_degree": 0, "conflicted": 0}


def test_bank_report_of_a_two_way_conflict() -> None:
    """One core matrix whose rows 0-3 and 4-7 are 16 B apart, the halves 128 B apart: rows r and
    r + 4 share banks, degree 2; bank 0 is rows 0 (0x0) and 4 (0x80)."""
    op = Operand("bf16", "K", 8, 8, 16)
    i, j = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    rep = bank_report(SPEC, op, 16 * (i % 4) + 128 * (i // 4) + 2 * j)
    assert rep == {"core_matrices": 1, "worst_degree": 2, "conflicted": 1, "worst_at": [0, 0],
                   "worst": "phase 0, bank 0: 2 distinct words (t0@0x0, t4@0x80)"}
