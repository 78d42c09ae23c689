"""`ptxconf explain` in a terminal or a pipe (app/explain.py, oracle/explain/assumed.py): every
line fits the width, `--full` gives the whole read map, marks survive as symbols, the picture's
addresses are the absolute ones the text names, and explain says what it assumed and the verdict
had it assumed otherwise.

Expected values come from the oracle (`readmap.read_map`: the addresses the tensor core reads),
from spec/wgmma/base_offset.yaml (a 128B pattern repeats every 1024 B; a start 0x480 with the
field 0 is 128 B into it, as a tile based at 0x400 is, not one based at 0x480), and from the
width contract of app/terminal.py ($COLUMNS, else 120).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from ptxconf.oracle.descriptor import encode
from ptxconf.oracle.explain.assumed import descriptor_assumptions
from ptxconf.oracle.explain.diagnose import explain_descriptor
from ptxconf.oracle.explain.operand import resolve
from ptxconf.oracle.explain.readmap import Descriptor, read_map
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
#: CuTe's K_SW128 bf16 atom tiled to 128 x 64, as CUTLASS prints it (test_explain_printed.py
#: derives every such print from the spec).
CUTLASS_K_SW128 = "Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))"


@pytest.fixture(autouse=True)
def _no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """As when piped: no $COLUMNS, and stdout no terminal (120 columns)."""
    monkeypatch.delenv("COLUMNS", raising=False)


def cells(out: str) -> dict[tuple[int, int], str]:
    """Every (mn, k) cell of the pictures in `out` (one band or several)."""
    got: dict[tuple[int, int], str] = {}
    cols: list[int] = []
    for line in out.splitlines():
        words = line.split()
        if words and words[0] == "mn\\k":
            cols = [int(w) for w in words[1:] if w != ".."]
        elif cols and words and words[0].isdigit() and len(words) > len(cols) - 1:
            for j, w in zip(cols, words[1:], strict=False):
                got[(int(words[0]), j)] = w
        elif not (words and words[0].isdigit()):
            cols = [] if not line.startswith("(") else cols
    return got


def test_a_layout_fits_120_columns_piped_and_full_gives_every_cell(cli: Any) -> None:
    code, out, _ = cli("explain", "layout", CUTLASS_K_SW128, "--dtype", "f16")
    assert code == 0
    assert max(len(x) for x in out.splitlines()) <= 120
    summary = cells(out)
    assert 0 < len(summary) < 128 * 64
    assert "--full prints every cell" in out
    code, full, _ = cli("explain", "layout", CUTLASS_K_SW128, "--dtype", "f16", "--full")
    assert max(len(x) for x in full.splitlines()) <= 120
    op = resolve(SPEC, dtype="f16", major="K", mn=128, k=64)
    want = read_map(SPEC, op, Descriptor.of(SPEC, start_address=0, lbo=16, sbo=1024,
                                            swizzle="128B")).addresses
    got = cells(full)
    assert len(got) == 128 * 64
    assert all(got[(i, j)] == f"{int(want[i, j]):#x}" for i in range(128) for j in range(64))
    assert all(summary[c] == got[c] for c in summary)


def test_columns_narrows_every_line(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    _, out, _ = cli("explain", "descriptor", hex(encode(0x480, 16, 1024, "128B")), "--instr",
                    INSTR, "--operand", "A", "--full")
    long = [x for x in out.splitlines() if len(x) > 80]
    # only words longer than a line (evidence ids) may stick out, alone on their line
    assert all(len(x.split()) == 1 for x in long), long


def test_marks_survive_a_pipe_as_symbols_with_a_legend(cli: Any) -> None:
    """LBO/SBO swapped, K_SW128: the oracle's read map puts some elements at one address; those
    cells, and only those, carry '*', and the legend says what '*' means."""
    value = encode(0, 1024, 16, "128B")
    code, out, _ = cli("explain", "descriptor", hex(value), "--instr", INSTR, "--operand", "A")
    assert code == 1
    op = resolve(SPEC, instr=INSTR, operand="A")
    addr = read_map(SPEC, op, Descriptor.decode(SPEC, value)).addresses
    held = Counter(addr.ravel().tolist())
    got = cells(out)
    assert len(got) == 64 * 16
    assert any(held[int(a)] > 1 for a in addr.ravel())
    for (i, j), text in got.items():
        x = int(addr[i, j])
        assert text == f"{x:#x}" + ("*" if held[x] > 1 else "")
    assert "marks: * two elements read at one address" in out


def test_outside_the_allocation_is_marked_apart(cli: Any) -> None:
    value = encode(0, 16, 2048, "128B")  # SBO twice the packed one: 8 groups over 15 KiB
    code, out, _ = cli("explain", "descriptor", hex(value), "--instr", INSTR, "--operand", "A",
                       "--smem-bytes", "8192")
    assert code == 1
    op = resolve(SPEC, instr=INSTR, operand="A")
    addr = read_map(SPEC, op, Descriptor.decode(SPEC, value)).addresses
    for (i, j), text in cells(out).items():
        outside = int(addr[i, j]) + 2 > 8192
        assert text.endswith("!") == outside
    assert "! outside the allocation [0x0, 0x2000)" in out


def test_the_picture_holds_the_absolute_addresses_the_text_names(cli: Any) -> None:
    """Start 0x400: the allocation line's span and the picture are both absolute addresses."""
    value = encode(0x400, 16, 1024, "128B")
    _, out, _ = cli("explain", "descriptor", hex(value), "--instr", INSTR, "--operand", "A")
    op = resolve(SPEC, instr=INSTR, operand="A")
    addr = read_map(SPEC, op, Descriptor.decode(SPEC, value)).addresses
    got = cells(out)
    assert got[(0, 0)] == f"{int(addr[0, 0]):#x}" == "0x400"
    low = min(int(t, 16) for t in got.values())
    assert f"reads [{low:#x}, " in out
    assert "absolute shared-memory addresses" in out


# --- what explain assumed ------------------------------------------------------------------------


def _json(cli: Any, *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = cli(*argv, "--json")
    return code, json.loads(out)


def test_explain_descriptor_names_the_tile_base_it_assumed_and_the_other_verdict(cli: Any) -> None:
    value = hex(encode(0x480, 16, 1024, "128B"))
    code, out = _json(cli, "explain", "descriptor", value, "--instr", INSTR, "--operand", "A")
    assert (code, out["verdict"], out["tile_base"]) == (1, "invalid", 0x480)
    base = next(a for a in out["assumed"] if a["what"] == "tile_base")
    assert base["option"] == "--tile-base"
    assert "0x480" in base["said"]
    assert [(o["options"], o["verdict"]) for o in base["otherwise"]] == [("--tile-base 0x400",
                                                                          "valid")]
    # the other verdict is the one explain gives with that option
    code, other = _json(cli, "explain", "descriptor", value, "--instr", INSTR, "--operand", "A",
                        "--tile-base", "0x400")
    assert (code, other["verdict"]) == (0, "valid")
    assert all(a["what"] != "tile_base" for a in other["assumed"])
    _, text, _ = cli("explain", "descriptor", value, "--instr", INSTR, "--operand", "A",
                     "--no-grid")
    assert "assumed: the tile (its swizzle pattern) starts at 0x480" in text
    assert "--tile-base says otherwise" in text
    assert "with --tile-base 0x400 (" in text


def test_the_major_is_an_assumption_only_where_none_is_given(cli: Any) -> None:
    value = hex(encode(0, 16, 1024, "128B"))
    _, out = _json(cli, "explain", "descriptor", value, "--instr", INSTR, "--operand", "B")
    assert [a["what"] for a in out["assumed"]] == ["tile_base", "major"]
    _, out = _json(cli, "explain", "descriptor", value, "--instr", INSTR, "--operand", "B",
                   "--major", "K")
    assert [a["what"] for a in out["assumed"]] == ["tile_base"]


def test_explain_layout_names_its_assumptions_and_the_other_unit(cli: Any) -> None:
    """README's layout read on bytes is 128B; read on bf16 offsets it is Swizzle<3,5,3> on bytes,
    no hardware mode: that reading's verdict is the other one."""
    layout = "Swizzle<3,4,3> o 0 o ((8,8),64):((64,512),1)"
    code, out = _json(cli, "explain", "layout", layout, "--dtype", "bf16")
    assert code == 0
    said = {a["what"]: a for a in out["assumed"]}
    assert set(said) == {"start", "swizzle_unit", "operand"}
    assert said["swizzle_unit"]["otherwise"] == [{
        "options": "--swizzle-unit elements", "verdict": "no descriptor reads it",
        "why": "its swizzle on the element offsets as written"}]
    code, printed = _json(cli, "explain", "layout", CUTLASS_K_SW128, "--dtype", "bf16",
                          "--instr", INSTR, "--operand", "A", "--start-address", "0")
    assert code == 0
    assert printed["assumed"] == []  # the print says the unit; start and operand were given


def test_a_tile_base_that_changes_nothing_is_no_assumption() -> None:
    """Without a swizzle the pattern has no anchor, and without --smem-bytes no allocation: the
    tile base is not used, so nothing is assumed about it; with --smem-bytes it bounds the
    allocation and is."""
    op = resolve(SPEC, dtype="bf16", major="K", mn=64, k=16)
    value = encode(0x80, 1024, 128, "none")
    for smem, said in ((None, []), (8192, ["tile_base"])):
        e = explain_descriptor(SPEC, op, value, smem_bytes=smem)
        got = descriptor_assumptions(SPEC, op, value, e, tile_base_given=False, major_given=True)
        assert [a.what for a in got] == said
    assert got[0].said.startswith("the tile (its allocation) starts at 0x80")


def test_the_major_assumed_is_k_and_mn_is_named_where_it_changes_the_verdict() -> None:
    """imm-trans-b = 0 is K-major (the PTX ISA's wgmma operand B). A 128B descriptor of LBO 4096
    and SBO 1024 read MN-major is the canonical MN_SW128 layout (8 K rows 1024 B apart): valid;
    read K-major it sets LBO, which a K-major swizzled layout does not use
    (wgmma/leading_byte_offset:LBO.K.swizzled, "not used, assumed to be 1"): suspect."""
    value = encode(0, 4096, 1024, "128B")
    op = resolve(SPEC, instr=INSTR, operand="B")
    e = explain_descriptor(SPEC, op, value)
    (major,) = (a for a in descriptor_assumptions(SPEC, op, value, e, tile_base_given=True,
                                                  major_given=False))
    assert (major.what, major.said, major.option) == ("major", "K-major, imm-trans-b = 0",
                                                      "--major")
    mn = explain_descriptor(SPEC, resolve(SPEC, instr=INSTR, operand="B", major="MN"), value)
    assert (e.verdict, mn.verdict) == ("suspect", "valid")
    assert [(o.options, o.why, o.verdict) for o in major.otherwise] == [
        ("--major MN", "imm-trans-b = 1", "valid")]


def test_a_layout_no_descriptor_reads_is_drawn_with_its_aliases_marked(cli: Any) -> None:
    """The layout issue 27 quotes: row i at 64 (i % 8) + i // 8 f16 elements, every column at
    stride 0: every cell shares its address with the 63 others of its row, all marked; the
    summary fits 120 columns and --full gives all 128 x 64 cells."""
    layout = "((8,16),(64,1)):((64,1),(0,1024))"
    code, out, _ = cli("explain", "layout", layout, "--dtype", "f16")
    assert code == 1
    assert max(len(x) for x in out.splitlines()) <= 120
    assert "marks: * two elements at one address" in out
    _, full, _ = cli("explain", "layout", layout, "--dtype", "f16", "--full")
    assert max(len(x) for x in full.splitlines()) <= 120
    want = {(i, j): f"{2 * (64 * (i % 8) + i // 8):#x}*" for i in range(128) for j in range(64)}
    assert cells(full) == want
