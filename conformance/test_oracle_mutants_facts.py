"""Checks of oracle/facts.py that mutation testing found missing (reports/mutation/README.md).

Expected values come from the documents the spec rows cite, worked by hand:

* CUTLASS's MMA-atom docs (cute/major_conventions.yaml): in SM70_8x8x4_F32F16F16F32_NT, "NT"
  means A is M-major (not transposed) and B is N-major (transposed); a letter the document does
  not define is the other major-ness (`cute_letter_major`'s contract), so A's T is K-major and
  B's N is K-major (CUTLASS's "TN" GEMM: both operands K-major);
* "128 threads (4 warps), which are collectively referred to as a warpgroup"
  (cute/thread_groups.yaml): a warp is 32 threads;
* the element-type table (wgmma/element_types.yaml) and the register-fragment table: every row's
  elements per register times the element width is one 32-bit register.

A spec whose row is changed in memory (as test_facts.py's `_with`) shows each refusal: the
message names the row and what is wrong with it.
"""

from __future__ import annotations

import dataclasses

import pytest

from ptxconf.oracle import facts, records
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()


def _with(spec: Spec, cls: type[records.Row], row_id: str, **changes: object) -> Spec:
    """The spec with one row's fields changed."""
    target = spec.get(cls, row_id)
    return Spec(spec.root, tuple(dataclasses.replace(r, **changes) if r is target else r
                                 for r in spec.rows))


# --- cute_letter_major ------------------------------------------------------------------------


@pytest.mark.parametrize("operand,letter,major", [
    ("A", "N", "MN"),   # "NT": A is M-major (not transposed)
    ("B", "T", "MN"),   # "NT": B is N-major (transposed)
    ("A", "T", "K"),    # the letter the document does not define for A: the other major-ness
    ("B", "N", "K"),
])
def test_cute_letter_major_reads_the_cute_name_rows(operand: str, letter: str, major: str) -> None:
    assert facts.cute_letter_major(SPEC, operand, letter) == major


def test_cute_letter_major_of_an_undefined_letter_is_the_other_of_a_k_major_row() -> None:
    """A spec whose A row states the T letter instead (T = K-major): its N is then MN-major."""
    spec = _with(SPEC, records.MajorConvention, "cute-name.A.N", spelled="T", major="K",
                 transposed=True)
    assert facts.cute_letter_major(spec, "A", "T") == "K"
    assert facts.cute_letter_major(spec, "A", "N") == "MN"
    assert facts.cute_letter_major(spec, "B", "N") == "K"   # B's row unchanged


def test_cute_letter_major_without_a_row_for_the_operand_is_refused() -> None:
    spec = Spec(SPEC.root, tuple(r for r in SPEC.rows
                                 if not (isinstance(r, records.MajorConvention)
                                         and r.convention == "cute-name" and r.operand == "B")))
    assert facts.cute_letter_major(spec, "A", "N") == "MN"
    with pytest.raises(ValueError, match=r"^no cute-name convention row for operand B$"):
        facts.cute_letter_major(spec, "B", "T")


# --- warps and threads --------------------------------------------------------------------------


def test_warp_threads_is_an_integer_count() -> None:
    threads = facts.warp_threads(SPEC)
    assert threads == 32 and type(threads) is int


def test_a_warpgroup_that_does_not_split_into_its_warps_is_refused() -> None:
    three = _with(SPEC, records.ThreadGroup, "warpgroup", parts=3)   # 128 threads over 3 warps
    with pytest.raises(ValueError, match=r"^a warpgroup of 128 threads does not split into 3 warps$"):
        facts.warp_threads(three)


@pytest.mark.parametrize("changes", [{"part": "quadpair"}, {"parts": None}])
def test_a_warpgroup_row_not_counted_in_warps_is_refused(changes: dict[str, object]) -> None:
    spec = _with(SPEC, records.ThreadGroup, "warpgroup", **changes)
    with pytest.raises(ValueError, match=r"^cute/thread_groups:warpgroup: expected the warpgroup "
                                         r"as a number of warps$"):
        facts.warps_per_warpgroup(spec)


# --- register width -----------------------------------------------------------------------------


def test_register_rows_that_disagree_on_the_register_width_are_refused() -> None:
    # A of m64nNk16: two 16-bit elements per register; four of them would make 64 bits
    spec = _with(SPEC, records.RegisterFragment, "k16.A.f16", elems_per_register=4)
    with pytest.raises(ValueError, match=r"^register-fragment rows imply register widths \[32, 64\]$"):
        facts.register_bits(spec)


# --- float formats -----------------------------------------------------------------------------


@pytest.mark.parametrize("changes", [{"exponent_bits": None}, {"mantissa_bits": None}])
def test_a_float_row_without_its_widths_is_refused(changes: dict[str, object]) -> None:
    spec = _with(SPEC, records.ElementType, "f16", **changes)
    with pytest.raises(ValueError, match=r"^wgmma/element_types:f16: a float type without "
                                         r"exponent_bits / mantissa_bits$"):
        facts.float_format(spec, "f16")
    assert facts.float_format(spec, "bf16") == facts.FloatFormat(8, 7, False)
