"""ptxconf.oracle.algebra.table: a layout's offsets over its domain as one array equal the
layout evaluated index by index (its own `__call__`, the definition), for plain and composed
layouts, and `grid` puts coordinate (i, j) at cell (i, j)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import composed_layouts, layouts

from ptxconf.oracle.algebra import ComposedLayout, Layout
from ptxconf.oracle.algebra.table import grid, offsets


@given(layouts())
def test_offsets_equal_the_layout_called_at_every_index(lay: Layout) -> None:
    assert offsets(lay).tolist() == [lay(i) for i in range(lay.size())]


@given(composed_layouts())
def test_offsets_of_a_composed_layout_apply_its_offset_then_its_swizzle(lay: ComposedLayout) -> None:
    assert offsets(lay).tolist() == [lay(i) for i in range(lay.size())]


@given(st.integers(1, 9), st.integers(1, 9), st.integers(-3, 7), st.integers(-3, 7))
def test_grid_cell_i_j_is_the_offset_of_coordinate_i_j(rows: int, cols: int, d0: int, d1: int) -> None:
    lay = Layout((rows, cols), (d0, d1))
    g = grid(lay, rows, cols)
    assert g.shape == (rows, cols)
    assert all(int(g[i, j]) == lay((i, j)) for i in range(rows) for j in range(cols))


def test_indices_split_colexicographically_over_the_modes() -> None:
    # (2,3):(1,10): index i is coordinate (i % 2, i // 2)
    assert offsets(Layout((2, 3), (1, 10))).tolist() == [0, 1, 10, 11, 20, 21]



def test_an_inner_layout_past_its_size_gives_its_last_mode_the_rest() -> None:
    """CuTe's crd2idx of an index into a shape: each mode but the last takes index % its size,
    the last the quotient left over, unbounded. inner (2,2):(1,10) at 5 is coordinate (1, 2):
    1 + 2 x 10 = 21; at 6, (0, 3): 30; at 7, (1, 3): 31."""
    lay = ComposedLayout(Layout((2, 2), (1, 10)), 0, Layout(8, 1))
    assert offsets(lay).tolist() == [0, 1, 10, 11, 20, 21, 30, 31]
    assert offsets(lay).tolist() == [lay(i) for i in range(8)]


class _Reversed:
    """A composed layout of another kind than ComposedLayout: index i of n at n - 1 - i."""

    def __init__(self, n: int) -> None:
        self.outer = Layout(n, 1)

    def size(self) -> int:
        return self.outer.size()

    def __call__(self, i: int) -> int:
        return self.outer.size() - 1 - i


def test_another_kind_of_layout_is_called_at_every_index() -> None:
    assert offsets(_Reversed(4)).tolist() == [3, 2, 1, 0]  # type: ignore[arg-type]
