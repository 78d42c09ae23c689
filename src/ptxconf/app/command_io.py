"""What every command shares: the spec it reads (named in its first line), how it answers (text,
or one JSON object that also names the spec), and the one-line usage error."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ptxconf.oracle.locate import choose_spec
from ptxconf.oracle.spec import Spec, identity, identity_line, load_chosen


class UsageError(Exception):
    """Bad input that is not a spec problem: printed as one line, exit 2."""


def command_spec(args: argparse.Namespace) -> Spec:
    """The spec the command uses (ptxconf.oracle.locate), named in the first line of its text
    output and in its JSON; the files it linted before read back (ptxconf.oracle.spec_cache)
    unless the command says --no-cache."""
    spec = load_chosen(choose_spec(getattr(args, "spec_dir", None), getattr(args, "findings", None)),
                       kept=not getattr(args, "no_cache", False))
    args.spec_identity = identity(spec)
    if not getattr(args, "json", False):
        print(identity_line(spec, args.spec_identity), flush=True)
    return spec


def emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    """A command's answer: text, or with --json one object that also names the spec used."""
    if not getattr(args, "json", False):
        print(text)
        return
    if isinstance(payload, dict) and getattr(args, "spec_identity", None):
        payload = {**payload, "spec": args.spec_identity}
    print(json.dumps(payload))


__all__ = ["UsageError", "command_spec", "emit"]
