"""`tox -e mutants`: perturb every number in spec/ and show that `ptxconf check --gpu off` fails.

For each integer scalar, and each run of digits inside a non-id string (CuTe layouts, shapes),
a scratch copy of spec/ gets that one number changed (n -> n+1) and the CPU checks run on it:
self-consistency first, then the proofs, then the assembler witness. A mutant is *killed* when
the spec no longer loads or any case fails; a *survivor* is a number nothing reads, a defect.

    python -m ptxconf.mutants [--spec-dir DIR] [--only SUBSTRING] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from ptxconf.cases import execute
from ptxconf.oracle.findings import judge
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, SpecErrors, load_spec, spec_files
from ptxconf.providers import REGISTRY, RunContext

#: String fields whose digits are not facts (ids are recomputed by SPEC-ID and mutated as ints
#: of their own fields; prose and provenance are not normative).
SKIP_STRING_KEYS = {"id", "text", "document", "ptx_isa_version", "anchor", "section", "table",
                    "domain_comment", "register_type"}
DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Mutant:
    """One number changed at one place of one file."""

    rel: str
    line: int
    start: int
    end: int
    old: str
    new: str

    @property
    def label(self) -> str:
        """Where and what."""
        return f"{self.rel}:{self.line}: {self.old} -> {self.new}"


def mutants(root: Path) -> Iterator[Mutant]:
    """Every integer scalar and every digit run in a normative string, in file order."""
    for path in spec_files(root):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if not isinstance(node, yaml.MappingNode):
            continue
        rows = next((v for k, v in node.value if k.value == "rows"), None)
        if rows is None:
            continue
        yield from _walk(rows, rel, text, key="")


def _walk(node: yaml.Node, rel: str, text: str, key: str) -> Iterator[Mutant]:
    """Depth-first over a node; `key` is the mapping key the node sits under."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            yield from _walk(v, rel, text, key=str(k.value))
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            yield from _walk(v, rel, text, key=key)
    elif isinstance(node, yaml.ScalarNode):
        start, end = node.start_mark.index, node.end_mark.index
        line = node.start_mark.line + 1
        if node.tag.endswith(":int"):
            value = int(node.value)
            yield Mutant(rel, line, start, end, text[start:end], str(value + 1))
        elif node.tag.endswith(":str") and key not in SKIP_STRING_KEYS:
            raw = text[start:end]
            for m in DIGITS.finditer(raw):
                new = raw[:m.start()] + str(int(m.group()) + 1) + raw[m.end():]
                yield Mutant(rel, line, start, end, raw, new)


def killed_by(spec_dir: Path) -> str | None:
    """The first thing that fails on this spec directory, or None if everything passes."""
    try:
        spec = load_spec(spec_dir)
    except SpecErrors as errs:
        return f"spec validate: {errs.errors[0].rule}"
    ctx = RunContext(gpu="off")
    for prov in REGISTRY:
        if prov.gpu or prov.problem() is not None:
            continue
        for case in prov.load(spec, ctx):
            result = judge(execute(case))
            if result.status.failing:
                return f"{case.id} ({result.code})"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run every mutant; print killers and survivors; exit 1 when any survives."""
    p = argparse.ArgumentParser(prog="python -m ptxconf.mutants")
    p.add_argument("--spec-dir", type=Path, default=DEFAULT_SPEC_DIR)
    p.add_argument("--only", help="only mutants whose label contains this text")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if killed_by(args.spec_dir) is not None:
        print("the unmutated spec already fails; fix that first", file=sys.stderr)
        return 2
    rows = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "spec"
        for mut in mutants(args.spec_dir):
            if args.only and args.only not in mut.label:
                continue
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.copytree(args.spec_dir, scratch)
            target = scratch / mut.rel
            text = target.read_text(encoding="utf-8")
            target.write_text(text[:mut.start] + mut.new + text[mut.end:], encoding="utf-8")
            killer = killed_by(scratch)
            rows.append({"mutant": mut.label, "killed_by": killer})
            if not args.json:
                print(f"{'killed' if killer else 'SURVIVED':8} {mut.label}  [{killer or '-'}]",
                      flush=True)
    survivors = [r for r in rows if r["killed_by"] is None]
    seconds = round(time.perf_counter() - start, 1)
    if args.json:
        print(json.dumps({"mutants": rows, "survivors": len(survivors), "seconds": seconds}))
    else:
        print(f"{len(rows)} mutants, {len(rows) - len(survivors)} killed, "
              f"{len(survivors)} survived, {seconds} s")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
