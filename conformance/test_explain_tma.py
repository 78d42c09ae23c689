"""`ptxconf explain tma` (app/explain_tma.py): the command's text, JSON, picture, exit status
and one-line errors. The judgement itself is test_explain_tma_pair.py's."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ptxconf.app.explain_tma import box_arg
from ptxconf.oracle import tma
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
Cli = Callable[..., tuple[int, str, str]]


def encode(start: int, lbo: int, sbo: int, swizzle: str, field: int = 0) -> str:
    return hex(descriptor_format(SPEC).encode(start_address_bytes=start, lbo_bytes=lbo,
                                              sbo_bytes=sbo, swizzle=swizzle, base_offset=field))


def _packed(mode: str, cols: int) -> tuple[int, int]:
    return tma.packed_offsets(SPEC, tma.box(SPEC, mode, "bf16", 64, cols, 0), "K", mode)


def test_a_pairing_box_exits_0_and_draws_the_identity(cli: Cli) -> None:
    rc, out, _ = cli("explain", "tma", "--swizzle", "128B", "--dtype", "bf16", "--box", "64x64",
                     "--descriptor", encode(0, *_packed("128B", 64), "128B"))
    assert rc == 0
    assert "verdict: pairs" in out
    assert "assumed: the box is at 0x0" in out
    assert "mn\\k" in out
    assert "*" not in out.split("mn\\k", 1)[1].split("cells:")[0]


def test_a_mismatch_exits_1_names_the_mistake_and_the_fix(cli: Cli) -> None:
    fixed = encode(0x400, *_packed("64B", 32), "64B")
    rc, out, _ = cli("explain", "tma", "--swizzle", "64B", "--dtype", "bf16", "--box", "64x32",
                     "--base", "0x400", "--descriptor", encode(0x400, *_packed("128B", 64), "128B"),
                     "--no-grid")
    assert rc == 1
    assert "mistake TMA-PAIR-MODE:" in out
    assert "(mn 1, k 0) is read at" in out
    assert f"corrected descriptor: {int(fixed, 16):#018x}" in out
    assert "ptxconf explain tma --swizzle 64B --dtype bf16 --box 64x32 --base 0x400" in out
    assert "mn\\k" not in out


def test_json_is_one_object_with_the_verdict_and_the_svg(cli: Cli, tmp_path: Path) -> None:
    svg = tmp_path / "pair.svg"
    rc, out, _ = cli("explain", "tma", "--swizzle", "128B", "--dtype", "bf16", "--box", "64x64",
                     "--base", "0x480", "--descriptor",
                     encode(0x480, *_packed("128B", 64), "128B", field=1), "--json", "--svg",
                     str(svg))
    got = json.loads(out)
    assert rc == 1
    assert (got["verdict"], got["code"], got["assumed"]) == ("mismatch", "TMA-PAIR-PHASE", [])
    assert got["corrected"]["changed"] == ["base_offset"]
    assert got["svg"] == str(svg)
    assert "<svg" in svg.read_text(encoding="utf-8")[:200]


def test_an_mn_major_box_is_read_with_mn_along_its_rows(cli: Cli) -> None:
    box = tma.box(SPEC, "128B", "bf16", 16, 64, 0)
    lbo, sbo = tma.packed_offsets(SPEC, box, "MN", "128B")
    rc, out, _ = cli("explain", "tma", "--swizzle", "128B", "--dtype", "bf16", "--box", "16x64",
                     "--major", "MN", "--descriptor", encode(0, lbo, sbo, "128B"), "--no-grid")
    assert rc == 0, out
    assert "mn = cols, k = rows" in out


@pytest.mark.parametrize(("argv", "first"), [
    (["--swizzle", "96B", "--box", "64x64"], "ptxconf: error: TMA-SWIZZLE - "),
    (["--swizzle", "128B", "--box", "64x72"], "ptxconf: error: TMA-BOX-SPAN - "),
    (["--swizzle", "128B", "--box", "64x64", "--base", "0x408"],
     "ptxconf: error: TMA-SMEM-ALIGN - "),
    (["--swizzle", "128B", "--box", "60x64"], "ptxconf: error: DOMAIN-SHAPE - "),
], ids=["mode", "span", "align", "shape"])
def test_bad_input_is_one_line_and_exit_2(cli: Cli, argv: list[str], first: str) -> None:
    rc, out, err = cli("explain", "tma", "--dtype", "bf16", *argv, "--descriptor",
                       encode(0, 16, 1024, "128B"), spec_line=False)
    assert rc == 2
    assert err.startswith(first)
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_box_that_is_not_rows_by_cols_is_a_usage_line(capsys: pytest.CaptureFixture[str]) -> None:
    from ptxconf.app.cli import main

    with pytest.raises(SystemExit) as info:
        main(["explain", "tma", "--swizzle", "128B", "--dtype", "bf16", "--box", "64",
              "--descriptor", "0x0"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith("ptxconf explain tma: error: argument --box: expected ROWSxCOLS")
    assert len(err.strip().splitlines()) == 1


def test_box_arg_reads_rows_by_cols() -> None:
    assert box_arg("64x128") == (64, 128)
    assert box_arg("16X8") == (16, 8)
    for bad in ("64", "x", "0x8", "-1x8", "8x8x8"):
        with pytest.raises(argparse.ArgumentTypeError):
            box_arg(bad)
