"""wmma element addressing: layout, stride (in elements) and the leading-dimension alignment rule."""

from __future__ import annotations

from dataclasses import dataclass

#: For each matrix, its (rows, cols) in terms of the shape's M, N, K.
MATRIX_DIMS = {"a": ("m", "k"), "b": ("k", "n"), "c": ("m", "n")}


def matrix_shape(m: int, n: int, k: int, matrix: str) -> tuple[int, int]:
    """(rows, cols) of matrix a (MxK), b (KxN) or c (MxN)."""
    dims = {"m": m, "n": n, "k": k}
    rows, cols = MATRIX_DIMS[matrix]
    return dims[rows], dims[cols]


def default_stride_elems(m: int, n: int, k: int, matrix: str, layout: str) -> int:
    """The default stride: the size of the leading dimension (a row's length when row-major)."""
    rows, cols = matrix_shape(m, n, k, matrix)
    if layout not in ("row", "col"):
        raise ValueError(f"layout {layout!r}: expected 'row' or 'col'")
    return cols if layout == "row" else rows


def element_offset_elems(row: int, col: int, layout: str, stride_elems: int) -> int:
    """Offset of element (row, col) from the base pointer, in elements."""
    return row * stride_elems + col if layout == "row" else col * stride_elems + row


def leading_starts_bytes(base_bytes: int, stride_elems: int, elem_bits: int, count: int) -> list[int]:
    """Byte address of the start of each row (row-major) or column (column-major)."""
    return [base_bytes + i * stride_elems * elem_bits // 8 for i in range(count)]


@dataclass(frozen=True)
class AlignmentVerdict:
    """Whether a pointer and stride satisfy the rule, and if not, the first offending start."""

    ok: bool
    message: str


def check_alignment(base_bytes: int, stride_elems: int, elem_bits: int, fragment_bytes: int,
                    count: int) -> AlignmentVerdict:
    """Apply the rule: every row/column start aligned to the fragment size in bytes."""
    for i, start in enumerate(leading_starts_bytes(base_bytes, stride_elems, elem_bits, count)):
        if start % fragment_bytes:
            return AlignmentVerdict(False, f"start of leading-dimension instance {i} at byte "
                                           f"{start:#x} is not a multiple of {fragment_bytes} "
                                           f"(p={base_bytes:#x}, stride={stride_elems} elems)")
    return AlignmentVerdict(True, "every start aligned")
