"""Checks of oracle/banks.py that mutation testing found missing (reports/mutation/README.md).

Expected values come from the shared-memory model of the CUDA Programming Guide (32 banks of
4-byte words; a request served 128 bytes at a time: 32 threads for accesses of 4 bytes or less,
16 for 8-byte, 8 for 16-byte ones) and from hand-worked requests, never from the code under test."""

from __future__ import annotations

import pytest

from ptxconf.oracle import banks


@pytest.mark.parametrize("access,threads", [(1, 32), (2, 32), (4, 32), (8, 16), (16, 8)])
def test_threads_per_phase_of_each_width(access: int, threads: int) -> None:
    assert banks.threads_per_phase(access) == threads


@pytest.mark.parametrize("addr,access,words", [
    (0, 1, [0]), (3, 1, [0]), (4, 2, [1]), (8, 4, [2]), (8, 8, [2, 3]), (32, 16, [8, 9, 10, 11]),
])
def test_words_of_one_access(addr: int, access: int, words: list[int]) -> None:
    assert list(banks.words(addr, access)) == words
