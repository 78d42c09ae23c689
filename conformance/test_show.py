"""`ptxconf show` (app/show.py): a descriptor drawn for the operand options `explain` takes, a
fragment as the tile it covers (`--by thread`, CuTe's print_layout of a (thread, value) layout),
every picture fitted to the terminal (`--full` for every cell).

Expected values come from the oracle's read map (`readmap.read_map`) and, for the accumulator,
from the PTX ISA's figure of the wgmma D fragment (independent of the CuTe layout the oracle
derives it from): thread t of the warpgroup (warp w = t / 32, lane l = t % 32) holds in register
i the f32 element at row 16 w + l / 4 + 8 ((i / 2) % 2), column 2 (l % 4) + i % 2 + 8 (i / 4);
with one element a register, its value index is i.
"""

from __future__ import annotations

from typing import Any

import pytest

from ptxconf.oracle.descriptor import encode
from ptxconf.oracle.explain.operand import resolve
from ptxconf.oracle.explain.readmap import Descriptor, read_map
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"


@pytest.fixture(autouse=True)
def _no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)


def grid(out: str, corner: str) -> dict[tuple[int, int], str]:
    """The cells of every band of the picture whose corner label is `corner`."""
    got: dict[tuple[int, int], str] = {}
    cols: list[int] = []
    for line in out.splitlines():
        words = line.split()
        if words and words[0] == corner:
            cols = [int(w) for w in words[1:] if w != ".."]
        elif cols and words and words[0].isdigit():
            for j, w in zip(cols, words[1:], strict=False):
                got[(int(words[0]), j)] = w
    return got


def _d_owner(n: int) -> dict[tuple[int, int], str]:
    """The PTX ISA's D fragment of an f32 accumulator, M64 x n: (row, col) -> T<t>V<i>."""
    out = {}
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            row = 16 * w + lane // 4 + 8 * ((i // 2) % 2)
            col = 2 * (lane % 4) + i % 2 + 8 * (i // 4)
            out[(row, col)] = f"T{t}V{i}"
    return out


def test_show_descriptor_takes_explains_operand_options(cli: Any) -> None:
    """--instr/--operand as explain takes them: the absolute addresses of the oracle's read map."""
    value = encode(0x480, 16, 1024, "128B", 1)
    code, out, _ = cli("show", "descriptor", hex(value), "--instr", INSTR, "--operand", "B")
    assert code == 0
    op = resolve(SPEC, instr=INSTR, operand="B")
    addr = read_map(SPEC, op, Descriptor.decode(SPEC, value)).addresses
    got = grid(out, "mn\\k")
    assert len(got) == 64 * 16
    assert all(got[(i, j)] == f"{int(addr[i, j]):#x}" for i in range(64) for j in range(16))
    # the same picture explain draws for the same operand
    _, explained, _ = cli("explain", "descriptor", hex(value), "--instr", INSTR, "--operand", "B")
    assert grid(explained, "mn\\k") == got


def test_show_descriptor_refuses_half_an_operand_in_one_line(cli: Any) -> None:
    code, out, err = cli("show", "descriptor", "0x4000004000010000", "--instr", INSTR)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "EXPLAIN-OPERAND" in err
    assert "descriptor 0x4000004000010000" in out  # the fields came first


def test_fragment_by_thread_is_the_tile_by_owner(cli: Any) -> None:
    code, out, _ = cli("show", "fragment", "--instr",
                       "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16", "--operand", "D",
                       "--by", "thread")
    assert code == 0
    assert grid(out, "m\\n") == _d_owner(16)


def test_fragment_by_thread_blanks_threads_not_asked_for(cli: Any) -> None:
    _, out, _ = cli("show", "fragment", "--instr", "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16",
                    "--operand", "D", "--by", "thread", "--threads", "0-3")
    want = {c: (v if int(v[1:v.index("V")]) < 4 else ".") for c, v in _d_owner(16).items()}
    assert grid(out, "m\\n") == want


def test_a_wide_fragment_is_summarised_and_full_shows_every_owner(cli: Any) -> None:
    instr = "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"
    _, out, _ = cli("show", "fragment", "--instr", instr, "--operand", "D", "--by", "thread")
    assert max(len(x) for x in out.splitlines()) <= 120
    assert "--full prints every cell" in out
    _, full, _ = cli("show", "fragment", "--instr", instr, "--operand", "D", "--by", "thread",
                     "--full")
    assert max(len(x) for x in full.splitlines()) <= 120
    assert grid(full, "m\\n") == _d_owner(256)


def test_fragment_by_register_is_unchanged_by_default(cli: Any) -> None:
    _, out, _ = cli("show", "fragment", "--instr", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
                    "--operand", "D", "--threads", "0")
    rows = [x.split() for x in out.splitlines() if x.split()[:1] == ["T0"]]
    # thread 0, registers 0-3: (0,0) (0,1) (8,0) (8,1) by the PTX ISA's figure
    assert rows == [["T0", "0,0", "0,1", "8,0", "8,1"]]
