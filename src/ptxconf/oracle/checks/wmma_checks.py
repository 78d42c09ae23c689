"""wmma checks: default strides are the leading dimension; the alignment example adds up."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.oracle import canonical
from ptxconf.oracle.checks.base import Case, expect_equal, fail, make_case
from ptxconf.oracle.records import WmmaAlignmentExample, WmmaDefaultStride, WmmaRule
from ptxconf.oracle.spec import Spec
from ptxconf.oracle.wmma import default_stride_elems


def cases(spec: Spec) -> Iterator[Case]:
    """One case per default-stride row and per alignment example."""
    for row in spec.of(WmmaDefaultStride):
        yield make_case("wmma.default_stride", row.key, partial(_strides, row))
    for ex in spec.of(WmmaAlignmentExample):
        yield make_case("wmma.alignment_example", ex.key, partial(_example, spec, ex))


def _strides(row: WmmaDefaultStride) -> str:
    """The shape as printed (MxNxK) is the row's; each of the six columns equals the
    leading-dimension size the shape implies."""
    printed = f"{row.m_elems}x{row.n_elems}x{row.k_elems}"
    expect_equal("printed shape (MxNxK)", row.printed_shape, printed, source=row.key,
                 witness="m_elems, n_elems, k_elems")
    bad = []
    for matrix in ("a", "b", "c"):
        for layout in ("row", "col"):
            documented = row.stride_elems(matrix, layout)
            derived = default_stride_elems(row.m_elems, row.n_elems, row.k_elems, matrix, layout)
            if documented != derived:
                bad.append(f"{matrix.upper()} ({layout}): table {documented}, leading dim {derived}")
    if bad:
        raise fail(f"{row.id}: " + "; ".join(bad), mismatches=bad)
    return "6 default strides equal the leading dimension"


def _example(spec: Spec, ex: WmmaAlignmentExample) -> str:
    """Fragment bytes, stride bytes and required multiples follow from the rule and types."""
    rules = {r.rule: r for r in spec.of(WmmaRule)}
    width = spec.element_bits(ex.dtype)
    lanes = 2 if ex.register_type.endswith("x2") else 1
    register_bits = lanes * width  # the example states no width: .f16x2 is two .f16
    expect_equal("fragment bytes", ex.fragment_bytes,
                 ex.fragment_registers * register_bits // canonical.BITS_PER_BYTE, source=ex.key,
                 witness=f"{ex.fragment_registers} {ex.register_type} registers of "
                         f"{register_bits} bits")
    unit = rules.get("stride_unit")
    if unit is None or unit.stride_unit not in ("elems", "bytes"):
        raise fail("no stride_unit rule saying whether the stride counts elements or bytes")
    per_unit = width // canonical.BITS_PER_BYTE if unit.stride_unit == "elems" else 1
    expect_equal("stride element bytes", ex.stride_elem_bytes, per_unit, source=ex.key,
                 witness=f"{unit.key}: the stride counts {unit.stride_unit} ({ex.dtype})")
    rule = rules.get("leading_dimension_alignment")
    if rule is None or rule.aligned_to != "fragment_bytes":
        raise fail("no leading_dimension_alignment rule aligned to fragment_bytes")
    expect_equal("pointer multiple", ex.pointer_multiple_bytes, ex.fragment_bytes, source=ex.key,
                 witness=rule.key)
    expect_equal("stride multiple", ex.stride_multiple_bytes, ex.fragment_bytes, source=ex.key,
                 witness=rule.key)
    shapes = {r.id: r for r in spec.of(WmmaDefaultStride)}
    if ex.shape not in shapes or ex.dtype not in shapes[ex.shape].types:
        raise fail(f"{ex.shape}.{ex.dtype} is not a shape/type of the default-stride table")
    return (f"p % {ex.pointer_multiple_bytes} == 0 and "
            f"{ex.stride_elem_bytes}*s % {ex.stride_multiple_bytes} == 0")
