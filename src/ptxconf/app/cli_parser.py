"""The `ptxconf` command line's parser: every subcommand and option, and the argument types
that refuse bad values in one line. `ptxconf.app.cli` runs the commands."""

from __future__ import annotations

import argparse
import functools
import math
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from ptxconf.app.options import int_arg, path_arg, spec_options


class _SpecValues:
    """The values of --dtype / --swizzle: any string parses, and is checked against the spec
    that --spec-dir names once it is loaded (ptxconf.oracle.domain); --help lists the bundled
    spec's, loaded only then."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str)

    def __iter__(self) -> Iterator[str]:
        from ptxconf.oracle import domain
        from ptxconf.oracle.spec import default_spec

        return iter(getattr(domain, self.what)(default_spec()))


DTYPES = _SpecValues("element_types")
SWIZZLES = _SpecValues("swizzle_modes")
DESCRIPTOR_SWIZZLES = _SpecValues("descriptor_swizzles")



def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero (NaN or infinity never reach Z3)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _fraction(text: str) -> float:
    """--verify-cache: a fraction above 0 and at most 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 1):
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], got {text!r}")
    return value


def cache_options(p: argparse.ArgumentParser, what: str) -> None:
    """--no-cache, --verify-cache and --verify-seed (check and prove take the same)."""
    p.add_argument("--no-cache", action="store_true",
                   help=f"{what} again (ignore the caches)")
    p.add_argument("--verify-cache", type=_fraction, metavar="FRACTION",
                   help="prove this fraction of the cached proof outcomes again (drawn at "
                        "random; 1: all) and report every entry a fresh proof disagrees with")
    p.add_argument("--verify-seed", type=_count, metavar="N",
                   help="the draw of --verify-cache (default: a fresh one, printed)")


#: What `ptxconf --help` says of the tool.
DESCRIPTION = ("The `ptxconf` command line. Names and JSON keys are a stable contract (see "
               "README).")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error: the problem and where the usage is."""

    def error(self, message: str) -> NoReturn:
        """Print `prog: error: message (see prog --help)` and exit 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")



def _gpus_arg(text: str) -> str:
    """--gpus: 'all' or a positive count."""
    if text != "all" and not (text.isdigit() and int(text) > 0):
        raise argparse.ArgumentTypeError(f"expected 'all' or a positive count, got {text!r}")
    return text


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a count (0 or more), got {text!r}")
    return int(text)


#: The most proof workers a run starts (each is a Python process with Z3: ~60 MB).
MAX_PROOF_WORKERS = 64


def _workers(text: str) -> int:
    count = _count(text)
    if count > MAX_PROOF_WORKERS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_PROOF_WORKERS} workers, got {text!r}")
    return count


def _positive_int(text: str) -> int:
    if not (text.isdigit() and int(text) > 0):
        raise argparse.ArgumentTypeError(f"expected a positive count, got {text!r}")
    return int(text)


@functools.cache
def build_parser() -> argparse.ArgumentParser:
    """Every subcommand and option (built once a process: parsing leaves the parser as it was,
    and a process that runs several commands, as the tests do, would build it each time)."""
    from ptxconf import __version__

    p = _Parser(prog="ptxconf", description=DESCRIPTION)
    p.add_argument("--version", action="version", version=f"ptxconf {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    spec = sub.add_parser("spec", help="validate or list the spec").add_subparsers(
        dest="spec_cmd", required=True)
    v = spec.add_parser("validate", help="lint every spec file")
    spec_options(v)
    v.add_argument("--json", action="store_true",
                   help="print {ok, files, rows, problems: [{path, line, rule, message}]}")
    v.add_argument("--assembler", choices=("auto", "on", "off"), default="auto",
                   help="compile the instruction rows with NVRTC (auto: where NVRTC is here)")
    v.add_argument("--checks", choices=("on", "off"), default="on",
                   help="run the self-consistency cases check runs on the spec alone (default on)")
    ls = spec.add_parser("list", help="list every spec row")
    spec_options(ls)
    ls.add_argument("--json", action="store_true")

    oracle = sub.add_parser("oracle", help="query the oracle").add_subparsers(
        dest="oracle_cmd", required=True)
    so = oracle.add_parser("smem-offsets", help="where the tensor core reads each element")
    spec_options(so)
    so.add_argument("--dtype", choices=DTYPES, metavar="DTYPE", required=True,
                    help="a spec element type (bundled: %(choices)s)")
    so.add_argument("--major", choices=("K", "MN"), required=True)
    so.add_argument("--swizzle", choices=SWIZZLES, metavar="SWIZZLE", required=True,
                    help="a spec swizzle mode (bundled: %(choices)s)")
    so.add_argument("--mn", type=int_arg, required=True)
    so.add_argument("--k", type=int_arg, required=True)
    so.add_argument("--lbo", type=int_arg, required=True, help="leading byte offset, bytes")
    so.add_argument("--sbo", type=int_arg, required=True, help="stride byte offset, bytes")
    so.add_argument("--base-offset", type=int_arg, default=0,
                    help="operand start address modulo the swizzle repeat, bytes")
    so.add_argument("--base-offset-field", type=int_arg, default=0,
                    help="the descriptor's 3-bit base-offset field (moves the swizzle phase)")
    so.add_argument("--swizzle-unit", choices=("bytes", "elements"), default="bytes",
                    help="hypothesis: the unit the swizzle acts on (default: bytes)")
    so.add_argument("--json", action="store_true")

    desc = oracle.add_parser("descriptor", help="wgmma matrix descriptors").add_subparsers(
        dest="desc_cmd", required=True)
    enc = desc.add_parser("encode")
    spec_options(enc)
    enc.add_argument("--start-address", type=int_arg, required=True, help="bytes")
    enc.add_argument("--lbo", type=int_arg, required=True, help="bytes")
    enc.add_argument("--sbo", type=int_arg, required=True, help="bytes")
    enc.add_argument("--swizzle", choices=DESCRIPTOR_SWIZZLES, metavar="SWIZZLE", required=True,
                     help="a layout-type code of the spec's descriptor (bundled: %(choices)s)")
    enc.add_argument("--base-offset", type=int_arg, default=0)
    enc.add_argument("--json", action="store_true")
    dec = desc.add_parser("decode")
    dec.add_argument("value", type=int_arg)
    spec_options(dec)
    dec.add_argument("--json", action="store_true")

    fr = oracle.add_parser("fragment", help="(thread, register) -> (row, col) of a wgmma operand")
    spec_options(fr)
    fr.add_argument("--instr", required=True)
    fr.add_argument("--operand", choices=("A", "D"), required=True)
    fr.add_argument("--json", action="store_true")

    ck = sub.add_parser("check", help="run every check and write a report")
    spec_options(ck)
    ck.add_argument("--gpu", choices=("auto", "on", "off"), default="auto")
    ck.add_argument("--report-dir", type=path_arg)
    ck.add_argument("--strict", action="store_true", help="spec discrepancies fail the run")
    ck.add_argument("--only", help="run only cases whose id contains this text")
    ck.add_argument("--timeout-s", type=_seconds, default=20.0, help="per-proof timeout")
    ck.add_argument("--quiet", action="store_true")
    ck.add_argument("--json", action="store_true", help="print the run's summary as one JSON object")
    ck.add_argument("--annotations", choices=("github",),
                    help="also print each failure and spec discrepancy as a CI annotation at its "
                         "spec row (github: ::error/::warning workflow commands)")
    cache_options(ck, "prove every claim and compile every kernel")
    ck.add_argument("--gpus", default="1", type=_gpus_arg,
                    help="GPU cases over this many visible GPUs, or 'all' (default 1)")
    ck.add_argument("--proof-workers", type=_workers, metavar="N",
                    help="processes proving the Z3 claims (default: one per core, at "
                         "most 4; 0: in the run's own process)")
    ck.add_argument("--workers-per-gpu", type=_positive_int, metavar="K",
                    help="probe workers (processes) per GPU (default: every core but four, at most "
                         "16, split over the GPUs)")
    ck.add_argument("--resume", type=path_arg, metavar="RUN_DIR",
                    help="finish an interrupted run: keep its completed results, run the rest, "
                         "write the whole set there")

    pr = sub.add_parser("prove", help="run the Z3 proofs")
    spec_options(pr)
    pr.add_argument("--timeout-s", type=_seconds, default=20.0)
    pr.add_argument("--only")
    pr.add_argument("--json", action="store_true")
    cache_options(pr, "prove every claim")
    pr.add_argument("--proof-workers", type=_workers, metavar="N",
                    help="processes proving the claims (default: one per core, at most "
                         "4; 0: in this process)")

    from ptxconf.app.show import add_parser as add_show_parser

    add_show_parser(sub)
    from ptxconf.app.explain import add_parser as add_explain_parser

    add_explain_parser(sub)

    rp = sub.add_parser("report", help="re-render a run's reports from its results.json; "
                        "`report merge RUN_DIR... -o OUT`: several devices' runs as one matrix",
                        usage="ptxconf report RESULTS_JSON [--out-dir DIR]\n"
                              "       ptxconf report merge RUN_DIR [RUN_DIR ...] -o OUT [--expect FILE]")
    rp.add_argument("results", nargs="+", help="a results.json, or `merge` and run folders")
    rp.add_argument("--out-dir", "-o", type=path_arg)
    rp.add_argument("--expect", type=path_arg, action="append", default=[],
                    help="merge: a per-device expectation file (YAML), repeatable")

    bn = sub.add_parser("bench", help="measure check cold and warm, against a naive baseline "
                        "(prints figures; see ptxconf.app.bench)")
    spec_options(bn)
    bn.add_argument("--json", action="store_true")
    bn.add_argument("--out", type=Path, help="also write the figures there as JSON")
    bn.add_argument("--naive-sample", type=_positive_int, default=24, metavar="N",
                    help="variants the naive baseline is measured on (default 24)")
    bn.add_argument("--scaling", action="store_true",
                    help="also warm checks over 1 and 2 probe workers on one GPU, and over 1 and "
                         "2 GPUs where two are visible")
    return p


__all__ = ["DESCRIPTOR_SWIZZLES", "DTYPES", "SWIZZLES", "build_parser"]
