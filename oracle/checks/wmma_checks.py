"""wmma checks: default strides are the leading dimension; the alignment example adds up."""

from __future__ import annotations

from collections.abc import Iterator

from ptxconf.oracle.checks import Case, expect_equal, fail, make_case
from ptxconf.oracle.records import WmmaAlignmentExample, WmmaDefaultStride, WmmaRule
from ptxconf.oracle.spec import Spec
from ptxconf.oracle.wmma import default_stride_elems


def cases(spec: Spec) -> Iterator[Case]:
    """One case per default-stride row and per alignment example."""
    for row in spec.of(WmmaDefaultStride):
        yield make_case("wmma.default_stride", row.key, lambda row=row: _strides(row))
    for ex in spec.of(WmmaAlignmentExample):
        yield make_case("wmma.alignment_example", ex.key, lambda ex=ex: _example(spec, ex))


def _strides(row: WmmaDefaultStride) -> str:
    """Each of the six columns equals the leading-dimension size the shape implies."""
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
    expect_equal("register bits", ex.register_bits, lanes * width, source=ex.key,
                 witness=f"{ex.register_type} of {width}-bit elements")
    expect_equal("fragment bytes", ex.fragment_bytes, ex.fragment_registers * ex.register_bits // 8,
                 source=ex.key, witness="registers x register bits / 8")
    expect_equal("stride element bytes", ex.stride_elem_bytes, width // 8, source=ex.key,
                 witness=f"{ex.dtype} width")
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
