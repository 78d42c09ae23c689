"""Options shared by several commands' parsers (cli_parser, show, explain)."""

from __future__ import annotations

import argparse
from pathlib import Path


def path_arg(text: str) -> Path:
    """A file or folder name (an empty one, or one with a NUL byte, names nothing)."""
    if not text or "\0" in text:
        why = " (a NUL byte)" if text else ""
        raise argparse.ArgumentTypeError(f"expected a path, got {text!r}{why}")
    return Path(text)


def int_arg(text: str) -> int:
    """An integer in decimal or 0x hex."""
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def spec_options(p: argparse.ArgumentParser) -> None:
    """--spec-dir and --findings, the same on every command that reads a spec."""
    p.add_argument("--spec-dir", type=path_arg, help="the spec tree (default: $PTXCONF_SPEC_DIR, "
                   "else the spec/ of the ptxconf checkout holding the current folder, else the "
                   "bundled copy)")
    p.add_argument("--findings", type=path_arg, help="the known findings (default: the spec "
                   "tree's findings.yaml)")


def operand_options(p: argparse.ArgumentParser) -> None:
    """The operand a descriptor or layout is for, the same on `show` and `explain`: an
    instruction and A/B (--instr, --operand, --form, --major), or --dtype/--major/--mn/--k."""
    p.add_argument("--instr", help="the wgmma instruction (append :RS or give --form RS for "
                   "the register-A form)")
    p.add_argument("--operand", choices=("A", "B"))
    p.add_argument("--form", choices=("SS", "RS"))
    p.add_argument("--dtype", help="element type (with --instr: its .atype/.btype)")
    p.add_argument("--major", choices=("K", "MN"),
                   help="with --instr: MN means imm-trans = 1 (default K)")
    p.add_argument("--mn", type=int_arg)
    p.add_argument("--k", type=int_arg)


def picture_options(p: argparse.ArgumentParser, *, colour: bool = True,
                    svg_help: str = "write the picture as SVG here") -> None:
    """How a picture is drawn, the same on every `show` and `explain` command that draws one
    (`colour`: it takes --color-by, a shared-memory picture)."""
    if colour:
        p.add_argument("--color-by", choices=("chunk", "bank"), default="chunk")
    p.add_argument("--svg", type=Path, help=svg_help)
    p.add_argument("--full", action="store_true", help="print every cell of the picture (its "
                   "columns wrapped to the terminal's width; by default a picture wider or "
                   "longer than the terminal is summarised)")
