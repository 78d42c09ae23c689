"""Bad input never crashes the tool: command lines built by hypothesis from the commands'
own words and values that are wrong in every way. Each ends with exit 0, 1 or 2; a refusal is
one line on stderr; no traceback ever. (check and prove, with selections of few cases, are
fuzzed in test_cli_fuzz_run.py; bench is not fuzzed.)"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import budget

from ptxconf.app.cli import main

COMMANDS = [["spec", "validate", "--assembler", "off"], ["spec", "list"],
             ["oracle", "smem-offsets"], ["oracle", "descriptor", "encode"],
             ["oracle", "descriptor", "decode"], ["oracle", "fragment"],
             ["show", "smem-offsets"], ["show", "fragment"], ["show", "descriptor"],
             ["explain", "descriptor"], ["explain", "layout"], ["report"]]
OPTIONS = ["--dtype", "--major", "--swizzle", "--mn", "--k", "--lbo", "--sbo", "--base-offset",
           "--base-offset-field", "--start-address", "--instr", "--operand", "--json",
           "--spec-dir", "--svg", "--threads", "--smem-bytes", "--color-by", "--no-grid"]
VALUES = ["f16", "bf16", "tf32", "e4m3", "s8", "b1", "f64", "zz", "K", "MN", "X", "none", "32B",
          "128B", "16B", "0", "1", "8", "16", "64", "-16", "7", "1024", "0x4000004000010000",
          "99999999999999999999", "1e3", "", " ", "A", "B", "D", "0-7", "x-y",
          "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
          "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16", "Swizzle<3,4,3> o 0 o (8,64):(64,1)",
          "((8,8),64):((64,512),1)", "/nonexistent/dir", "((", "Swizzle<9,9,9> o (1,1):(0,0)"]

#: A refusal is argparse's or ptxconf's "...: error: ..." line, or a spec file's
#: "path:line: RULE - message" (a --spec-dir that is not a spec tree, say).
REFUSAL = re.compile(r"(^|\s)error: |^\S.*:\d+: [A-Z][A-Z0-9-]+ - \S")

ARGV = st.tuples(st.sampled_from(COMMANDS),
                 st.lists(st.sampled_from(OPTIONS + VALUES), max_size=12)).map(
    lambda t: [*t[0], *t[1]])


@settings(max_examples=budget(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=ARGV)
def test_any_command_line_ends_cleanly(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        code = exc.code if isinstance(exc.code, int) else 2
    err = capsys.readouterr().err
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:
        assert err.count("\n") == 1, (argv, err)
        assert REFUSAL.search(err), (argv, err)


@pytest.mark.parametrize(("line", "refusal"), [
    ("ptxconf: error: EXPLAIN-LAYOUT - --start-address 0x8: expected a multiple of 16 B\n", True),
    ("usage: ptxconf [-h]\nptxconf: error: argument command: invalid choice: 'x'\n", True),
    ("f16:0: SPEC-SOURCE - spec directory not found\n", True),
    ("spec/wgmma/x.yaml:12: SPEC-YAML - malformed YAML: cannot read 'abc'\n", True),
    ("something went wrong\n", False),
    ("ValueError: bad\n", False),
])
def test_a_refusal_line_is_recognised(line: str, refusal: bool) -> None:
    assert bool(REFUSAL.search(line)) is refusal
