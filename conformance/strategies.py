"""Hypothesis strategies for the whole suite (keep them all here) and the settings profiles.

Profiles: ``ci`` (default: 20 examples, and `budget(n)` a quarter of a test's own count, so the
default run stays fast on two cores), ``slow`` (200; tox -e slow) and ``dev`` (400); pick one
with the ``HYPOTHESIS_PROFILE`` environment variable.
Layouts are kept small (size <= 64 by default) so that brute-force checks stay cheap.
"""

from __future__ import annotations

import os

from hypothesis import settings
from hypothesis import strategies as st

from ptxconf.oracle.algebra.int_tuple import IntTuple, flatten, unflatten
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle

settings.register_profile("ci", max_examples=20, deadline=None)
settings.register_profile("slow", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=400, deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)


def budget(examples: int) -> int:
    """A test's own example count (where it asks for more than the profile's): as asked under
    the `slow` (tox -e slow) and `dev` profiles, a quarter of it (at least the profile's) under
    `ci`, the default run's small budget."""
    if PROFILE != "ci":
        return examples
    return max(settings().max_examples, examples // 4)

#: Any character a str holds and UTF-8 encodes (every code point but the surrogates): the
#: alphabet of `st.text()`'s default, drawn from Unicode's category table. The default
#: (`characters(codec="utf-8")`) has hypothesis encode each of the 1.1 million code points on a
#: checkout with no .hypothesis/ folder yet, as on a fresh CI machine: about 2.6 CPU seconds.
UNICODE = st.characters(exclude_categories=("Cs",))

POW2_LEAVES = (1, 2, 4, 8)
ANY_LEAVES = (1, 2, 3, 4, 6, 8)


def profiles(max_rank: int = 3, max_depth: int = 2) -> st.SearchStrategy[IntTuple]:
    """Nesting profiles: IntTuples whose leaves are all 0 (placeholders)."""
    if max_depth == 0:
        return st.just(0)
    nested = st.lists(profiles(max_rank, max_depth - 1), min_size=1, max_size=max_rank)
    return st.one_of(st.just(0), nested.map(tuple))


def int_tuples(
    leaves: st.SearchStrategy[int] | None = None, max_rank: int = 3, max_depth: int = 2
) -> st.SearchStrategy[IntTuple]:
    """Arbitrary IntTuples (leaves 0..16 by default)."""
    leaf = leaves if leaves is not None else st.integers(0, 16)
    return profiles(max_rank, max_depth).flatmap(
        lambda p: st.tuples(*(leaf for _ in flatten(p))).map(lambda v: unflatten(v, p))
    )


@st.composite
def shapes(
    draw: st.DrawFn,
    max_size: int = 64,
    max_rank: int = 3,
    max_depth: int = 2,
    pow2: bool = False,
) -> IntTuple:
    """Shapes (positive leaves) of size at most ``max_size``; powers of two only if ``pow2``."""
    profile = draw(profiles(max_rank, max_depth))
    choices = POW2_LEAVES if pow2 else ANY_LEAVES
    budget, leaves = max_size, []
    for _ in flatten(profile):
        leaf = draw(st.sampled_from([c for c in choices if c <= budget]))
        leaves.append(leaf)
        budget //= leaf
    return unflatten(leaves, profile)


def _strides(pow2: bool, allow_zero: bool) -> st.SearchStrategy[int]:
    """One stride: small, or a power of two; zero allowed if ``allow_zero``."""
    powers = st.sampled_from((1, 2, 4, 8, 16, 32, 64, 128))
    small = powers if pow2 else st.one_of(st.integers(1, 24), powers)
    return st.one_of(st.just(0), small) if allow_zero else small


@st.composite
def layouts(
    draw: st.DrawFn,
    max_size: int = 64,
    max_rank: int = 3,
    max_depth: int = 2,
    pow2: bool = False,
    allow_zero: bool = True,
) -> Layout:
    """Layouts with nested modes, random (possibly zero, possibly repeated) strides."""
    shape = draw(shapes(max_size, max_rank, max_depth, pow2))
    stride = draw(st.tuples(*(_strides(pow2, allow_zero) for _ in flatten(shape))))
    return Layout(shape, unflatten(stride, shape))


@st.composite
def compact_layouts(
    draw: st.DrawFn,
    max_size: int = 64,
    max_rank: int = 3,
    max_depth: int = 2,
    pow2: bool = False,
    gaps: bool = False,
) -> Layout:
    """Injective layouts: the flat modes stacked in a random order, contiguously.

    With ``gaps``, each mode's stride is additionally multiplied by 1 or 2 times the previous
    extent (still injective and complementable, but no longer compact).
    """
    shape = draw(shapes(max_size, max_rank, max_depth, pow2))
    flat = flatten(shape)
    order = draw(st.permutations(range(len(flat))))
    strides, extent = [0] * len(flat), 1
    for i in order:
        extent *= draw(st.sampled_from((1, 2))) if gaps else 1
        strides[i] = extent
        extent *= flat[i]
    return Layout(shape, unflatten(strides, shape))


def divisors(n: int) -> list[int]:
    """The positive divisors of n, ascending."""
    return [d for d in range(1, n + 1) if n % d == 0]


def swizzles() -> st.SearchStrategy[Swizzle]:
    """Swizzles: the usual B 0..3, M 0..4, S 3..6, plus random valid (S >= B) ones."""
    typical = st.builds(Swizzle, st.integers(0, 3), st.integers(0, 4), st.integers(3, 6))
    other = st.integers(0, 5).flatmap(
        lambda b: st.builds(Swizzle, st.just(b), st.integers(0, 6), st.integers(b, 8))
    )
    return st.one_of(typical, other)


@st.composite
def composed_layouts(draw: st.DrawFn, max_size: int = 64) -> ComposedLayout:
    """Swizzle o offset o layout, with or without a printed offset."""
    swizzle = draw(swizzles())
    offset = draw(st.one_of(st.just(0), st.integers(0, swizzle.period())))
    show = draw(st.booleans()) if offset == 0 else True
    return ComposedLayout(swizzle, offset, draw(layouts(max_size)), show)


@st.composite
def coordinates(draw: st.DrawFn, shape: IntTuple) -> IntTuple:
    """A coordinate congruent with ``shape`` and inside it."""
    leaves = [draw(st.integers(0, s - 1)) for s in flatten(shape)]
    return unflatten(leaves, shape)


@st.composite
def warp_requests(draw: st.DrawFn, max_bytes: int = 4096) -> tuple[int, list[int]]:
    """(access_bytes, addresses): one warp-wide shared-memory request, every address aligned.

    1..32 threads, access widths 1..16 bytes, addresses below ``max_bytes`` (bank analysis).
    """
    access = draw(st.sampled_from((1, 2, 4, 8, 16)))
    slots = st.integers(0, max_bytes // access - 1).map(lambda i: i * access)
    return access, draw(st.lists(slots, min_size=1, max_size=32))
