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
