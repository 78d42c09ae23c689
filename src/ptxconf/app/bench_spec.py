"""How long loading a large spec takes: figures for `ptxconf bench`, never a timed test.

`spec_load_figures()` builds, in a temporary folder, a synthetic but valid spec tree of each
size asked for -- the bundled spec/ plus copies of real rows under new ids (the CuTe MMA atom
layouts of `cute/mma_atoms.yaml`, a kind whose ids encode no facts and that no other row
references) spread over files under `synthetic/`, none past the loader's per-file limit
`MAX_FILE_BYTES` -- and times `load_spec` (parse, every lint rule, the cross-file rules, the
records) and `spec validate`'s checks (`ptxconf spec validate --assembler off --checks off`) on it. Every
figure is {"bytes", "files", "rows", "load_s", "validate_s"}: loading should grow linearly
with the bytes.

    python -m ptxconf.app.bench_spec [--sizes 262144,1048576] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ptxconf.app.cli_parser import build_parser
from ptxconf.app.validate import cmd_validate
from ptxconf.oracle.lint.base import MAX_FILE_BYTES
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, forget_parsed_files, load_spec, spec_files

#: The sizes measured by default (bytes of YAML in the whole tree).
DEFAULT_SIZES = (128 * 1024, 256 * 1024, 512 * 1024, 1024 * 1024)
#: The real file whose rows are copied: a kind with free-form ids that nothing references.
TEMPLATE = "cute/mma_atoms.yaml"
#: Each synthetic file stays well under the loader's per-file limit.
SYNTHETIC_FILE_BYTES = min(256 * 1024, MAX_FILE_BYTES // 2)

_ROW_START = re.compile(r"^  - id: ", re.MULTILINE)
_ID_LINE = re.compile(r"^(  - id: )([\"']?)([A-Za-z0-9_.-]+)([\"']?)")


def split_rows(text: str) -> tuple[str, list[str]]:
    """A spec file's text as (the header up to its first row, each row's block of lines)."""
    starts = [m.start() for m in _ROW_START.finditer(text)]
    if not starts:
        raise ValueError("no `  - id:` rows in the template")
    ends = [*starts[1:], len(text)]
    return text[:starts[0]], [text[a:b] for a, b in zip(starts, ends, strict=True)]


def renamed(block: str, suffix: str) -> str:
    """A row block with `suffix` appended to its id (quotes kept)."""
    out, n = _ID_LINE.subn(lambda m: f"{m[1]}{m[2]}{m[3]}{suffix}{m[4]}", block, count=1)
    if n != 1:
        raise ValueError(f"a row block without an id line: {block[:60]!r}")
    return out


def synthetic_files(header: str, blocks: Sequence[str], extra_bytes: int,
                    file_bytes: int = SYNTHETIC_FILE_BYTES) -> list[str]:
    """Texts of files that together hold about `extra_bytes` of copied rows (each under
    `file_bytes`); copy n of a row has the id suffix `.s<n>`."""
    files: list[str] = []
    parts: list[str] = []
    size, total, copy = len(header), 0, 0
    while total < extra_bytes:
        for block in blocks:
            row = renamed(block if block.endswith("\n") else block + "\n", f".s{copy}")
            if parts and size + len(row) > file_bytes:
                files.append(header + "".join(parts))
                parts, size = [], len(header)
            parts.append(row)
            size += len(row)
            total += len(row)
        copy += 1
    if parts:
        files.append(header + "".join(parts))
    return files


def tree_bytes(root: Path) -> int:
    """Bytes of YAML in a spec tree."""
    return sum(p.stat().st_size for p in spec_files(root))


def build_tree(dest: Path, size_bytes: int, source: Path = DEFAULT_SPEC_DIR) -> Path:
    """A valid spec tree of about `size_bytes` of YAML under `dest` (made): `source` copied,
    then synthetic files of copied rows. Returns its root."""
    root = dest / "spec"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__", "*.py", "*.pyc"))
    header, blocks = split_rows((source / TEMPLATE).read_text(encoding="utf-8"))
    extra = size_bytes - tree_bytes(root)
    if extra > 0:
        out = root / "synthetic"
        out.mkdir()
        for i, text in enumerate(synthetic_files(header, blocks, extra)):
            (out / f"mma_atoms_{i:03d}.yaml").write_text(text, encoding="utf-8")
    return root


def _seconds(fn: Callable[[], object], repeat: int) -> float:
    """Best-of-`repeat` wall time of fn."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _validate(root: Path) -> None:
    """`ptxconf spec validate --assembler off --checks off` on a tree (the reader and its rules;
    its output swallowed; the command's own function, as `ptxconf` dispatches it); raise unless
    it passed."""
    args = build_parser().parse_args(["spec", "validate", "--spec-dir", str(root), "--assembler",
                                      "off", "--checks", "off", "--json"])
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = cmd_validate(args)
    if code != 0:
        raise RuntimeError(f"spec validate refused the synthetic tree (exit {code}): "
                           f"{out.getvalue()[:200]}")


def figure(size_bytes: int, repeat: int = 1) -> dict[str, Any]:
    """Build a tree of about `size_bytes` and time loading and validating it."""
    with tempfile.TemporaryDirectory(prefix="ptxconf-bench-spec-") as tmp:
        root = build_tree(Path(tmp), size_bytes)
        spec = load_spec(root)  # a tree the loader refuses is a bug here, not a figure
        return {"bytes": tree_bytes(root), "files": len(spec_files(root)), "rows": len(spec.rows),
                "load_s": _seconds(lambda: _cold(load_spec, root), repeat),
                "validate_s": _seconds(lambda: _cold(_validate, root), repeat)}


def _cold(fn: Callable[[Path], object], root: Path) -> object:
    """fn(root) with nothing of the tree remembered from an earlier load (every file parsed)."""
    forget_parsed_files()
    return fn(root)


def spec_load_figures(sizes_bytes: Sequence[int] = DEFAULT_SIZES, repeat: int = 1
                      ) -> list[dict[str, Any]]:
    """One figure per size: {"bytes", "files", "rows", "load_s", "validate_s"} (best of
    `repeat` runs each)."""
    return [figure(size, repeat) for size in sizes_bytes]


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(s, 0) for s in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes in bytes, comma-separated, got {text!r}"
                                         ) from None
    if not sizes or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"expected positive sizes, got {text!r}")
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures: a table, or one JSON list with --json."""
    ap = argparse.ArgumentParser(prog="python -m ptxconf.app.bench_spec", description=__doc__.split(
        "\n\n")[0])
    ap.add_argument("--sizes", type=_sizes, default=DEFAULT_SIZES, help="bytes, comma-separated")
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    figures = spec_load_figures(args.sizes, args.repeat)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{'bytes':>9} {'files':>5} {'rows':>6} {'load s':>8} {'validate s':>10} {'us/KiB':>7}")
    for f in figures:
        per_kib = f["load_s"] / (f["bytes"] / 1024) * 1e6
        print(f"{f['bytes']:>9} {f['files']:>5} {f['rows']:>6} {f['load_s']:>8.3f} "
              f"{f['validate_s']:>10.3f} {per_kib:>7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
