"""Every size a user controls is capped before work starts: past the cap a command refuses in
one line on stderr with exit 2, never a traceback, a MemoryError or minutes of work (layout text
length and depth, layout elements, thread ranges, worker counts, byte counts and descriptor
values)."""

from __future__ import annotations

import pytest

from ptxconf.app.cli import main

INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"
DEEP = "(" * 40 + "1" + ")" * 40
LONG = "(" + ",".join(["1"] * 6000) + ")"


@pytest.mark.parametrize(("argv", "said"), [
    (["explain", "layout", DEEP, "--dtype", "f16"], "nested deeper than 32 levels at column 33"),
    (["explain", "layout", LONG, "--dtype", "f16"], "characters; a layout is at most 10000"),
    (["explain", "layout", "(65536,65536):(1,65536)", "--dtype", "f16"],
     "EXPLAIN-LAYOUT - '(65536,65536):(1,65536)' has 4294967296 elements; explain reads at most 1048576"),
    (["show", "fragment", "--instr", INSTR, "--operand", "D", "--threads", "7-0"],
     "'7-0': a range runs low to high"),
    (["show", "fragment", "--instr", INSTR, "--operand", "D", "--threads", "0-999999999"],
     "names more than 1024 threads"),
    (["show", "fragment", "--instr", INSTR, "--operand", "D", "--threads", "-3"],
     "expected threads like 0-7 or 0,1,32"),
    (["check", "--gpu", "off", "--proof-workers", "100000"], "expected at most 64 workers"),
    (["prove", "--proof-workers", "65"], "expected at most 64 workers"),
    (["explain", "descriptor", "0x4000004000010000", "--dtype", "f16", "--smem-bytes", "-1"],
     "expected bytes from 0 to 2**32 - 1"),
    (["explain", "descriptor", "0x10000000000000000", "--dtype", "f16"],
     "expected a 64-bit descriptor"),
])
def test_an_input_past_its_cap_is_one_line_and_exit_2(argv: list[str], said: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's refusal of an option's value
        code = int(stop.code or 0)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert said in err, err
    assert "Traceback" not in err


def test_the_caps_leave_room_for_every_real_input(capsys: pytest.CaptureFixture[str]) -> None:
    """The widest operand (256 x 256) and a warpgroup's 128 threads pass their caps."""
    assert main(["explain", "layout", "(256,256):(256,1)", "--dtype", "f16"]) in (0, 1)
    assert main(["show", "fragment", "--instr", INSTR, "--operand", "D", "--threads", "0-127"]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err
