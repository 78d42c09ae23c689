"""An answer's digest (`ptxconf.gpu.digest`): equal answers digest alike in any process, and
any two different answers differ, down to one bit of one array, a type or an order."""

from __future__ import annotations

import enum
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import numpy as np
import pytest
from emulator import SPEC

from ptxconf.gpu.digest import answer_digest, answer_parts
from ptxconf.gpu.probes import WmmaDump
from ptxconf.gpu.variants import wmma_probe_variants


def _d(value: object) -> str:
    return answer_digest(True, None, None, value)


def test_an_answer_digest_leaves_out_what_varies_and_what_echoes_the_call() -> None:
    v, w = wmma_probe_variants(SPEC)[:2]
    words = np.arange(64, dtype=np.uint32).reshape(32, 2)
    one = WmmaDump(v, words, b"\x01" * 8, 16, 8, 0x1000, False)
    other_pointer = WmmaDump(v, words, b"\x01" * 8, 16, 8, 0x7F00, False)
    other_variant = WmmaDump(w, words, b"\x01" * 8, 16, 8, 0x1000, False)
    other_words = WmmaDump(v, words + 1, b"\x01" * 8, 16, 8, 0x1000, False)
    digest = _d([one])
    assert _d([other_pointer]) == digest
    assert _d([other_variant]) == digest
    assert _d([other_words]) != digest
    assert answer_digest(False, "cuda", "x", None) != answer_digest(False, "cuda", "y", None)
    assert set(answer_parts([other_words])) == set(answer_parts([one]))
    assert {k for k, d in answer_parts([one]).items()
            if d != answer_parts([other_words])[k]} == {"[0].words"}


class _Colour(enum.Enum):
    RED = 1
    ONE = "1"


@dataclass(frozen=True)
class _Pair:
    a: object
    b: object


#: Pairs of answers that a careless encoding would confuse: each pair must digest apart.
_APART = {
    "one bit of a large array": (np.zeros(4096, np.uint32),
                                 np.where(np.arange(4096) == 4000, 1, 0).astype(np.uint32)),
    "a dtype": (np.zeros(4, np.uint32), np.zeros(4, np.int32)),
    "a shape": (np.zeros((2, 8), np.uint32), np.zeros((8, 2), np.uint32)),
    "an array and its transpose, same shape": (np.arange(6, dtype=np.uint8).reshape(2, 3),
                                   np.arange(6, dtype=np.uint8).reshape(3, 2).T),
    "a list and a tuple": ([1, 2], (1, 2)),
    "where a list ends": ([[1], [2, 3]], [[1, 2], [3]]),
    "where a string ends": (("ab", "c"), ("a", "bc")),
    "bytes and a string": (b"ab", "ab"),
    "an int and a string": (1, "1"),
    "an int and a bool": (1, True),
    "an int and a float": (1, 1.0),
    "0.0 and -0.0": (0.0, -0.0),
    "an enum and its value": (_Colour.RED, 1),
    "two enum members": (_Colour.RED, _Colour.ONE),
    "a dataclass and its fields": (_Pair(1, 2), (1, 2)),
    "a dataclass's fields swapped": (_Pair(1, 2), _Pair(2, 1)),
    "a dict's pairing": ({1: 2, 3: 4}, {1: 4, 3: 2}),
    "None and an empty string": (None, ""),
    "a set and a list": ({1, 2}, [1, 2]),
    "a NumPy scalar's type": (np.uint32(1), np.int32(1)),
    "raw bytes spanning the inline limit": (b"x" * 5000 + b"y", b"x" * 5001),
    "an empty array's shape": (np.zeros((0, 3), np.uint32), np.zeros((3, 0), np.uint32)),
}


@pytest.mark.parametrize("what", list(_APART))
def test_different_answers_digest_apart(what: str) -> None:
    first, second = _APART[what]
    assert _d(first) != _d(second)


def test_an_array_digests_as_its_values_whatever_view_holds_them() -> None:
    big = np.arange(3 * 128 * 8, dtype=np.uint32).reshape(3, 128, 8)
    assert _d(big[1]) == _d(big[1].copy())
    assert _d(np.asfortranarray(big[2])) == _d(big[2].copy())


def test_an_answer_digest_is_the_same_in_a_process_of_another_hash_seed() -> None:
    code = textwrap.dedent("""
        import numpy as np
        from ptxconf.gpu.digest import answer_digest
        answer = {"regs": np.arange(12, dtype=np.uint32), "names": ("a", "b"), "n": 3,
                  "f": 0.5, "s": {"x", "y", "z", ("w", 1)}}
        print(answer_digest(True, None, None, answer))
    """)
    answer = {"regs": np.arange(12, dtype=np.uint32), "names": ("a", "b"), "n": 3, "f": 0.5,
              "s": {"x", "y", "z", ("w", 1)}}
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip()
            for seed in ("1", "12345")}
    assert seen == {_d(answer)}
