"""Integer sets as sorted runs of a fixed step: a layout's image and its difference set."""

from __future__ import annotations

from collections.abc import Iterable

Interval = tuple[int, int]  # inclusive, every multiple of the step in between belongs


def runs(values: Iterable[int], step: int) -> list[Interval]:
    """Sorted runs lo, lo+step, ..., hi of a set of multiples of ``step``."""
    out: list[list[int]] = []
    for v in sorted(set(values)):
        if out and v == out[-1][1] + step:
            out[-1][1] = v
        else:
            out.append([v, v])
    return [(lo, hi) for lo, hi in out]


def merge(intervals: Iterable[Interval], step: int) -> list[Interval]:
    """Union of runs, adjacent ones (``step`` apart) joined."""
    out: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + step:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def differences(image: list[Interval], step: int) -> list[Interval]:
    """{a - b : a, b in the image}: exact on multiples of ``step``."""
    return merge(((a[0] - b[1], a[1] - b[0]) for a in image for b in image), step)


def describe(diff: list[Interval], step_bits: int, unit_bits: int = 8) -> str:
    """The open ranges (bytes) a difference set forbids, e.g. ``(-32, 32) + 128j for |j| <= 7``.

    A run [lo, hi] of multiples of ``step_bits`` forbids the open range (lo - step, hi + step).
    """
    opened = [((lo - step_bits) / unit_bits, (hi + step_bits) / unit_bits) for lo, hi in diff]
    texts = [f"({_num(a)}, {_num(b)})" for a, b in opened]
    if len(opened) == 1:
        return texts[0]
    widths = {round(b - a, 6) for a, b in opened}
    gaps = {round(opened[i + 1][0] - opened[i][0], 6) for i in range(len(opened) - 1)}
    mid = len(opened) // 2
    centred = len(opened) % 2 and opened[mid][0] == -opened[mid][1]
    if len(widths) == 1 and len(gaps) == 1 and centred:
        pitch = gaps.pop()
        return f"{texts[mid]} + {_num(pitch)}j for |j| <= {mid}"
    return " u ".join(texts)


def _num(x: float) -> str:
    """An integer-valued float without its '.0'."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
