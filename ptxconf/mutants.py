"""`tox -e mutants`: perturb every normative value in spec/ and show `ptxconf check --gpu off` fails.

Four kinds of mutant, each on a scratch copy of spec/, then the CPU checks (self-consistency,
the proofs, the assembler witness):

* numbers: each integer scalar, and each run of digits inside a non-id string (CuTe layouts,
  shapes), n -> n+1;
* enumerations: each string value of a key whose values form a domain in the spec (element
  types, swizzle modes, majors, operands, references to other rows) -> the next value of that
  domain; each boolean -> its negation;
* row deletions: each row removed;
* file deletions: each file removed.

A mutant is *killed* when the spec no longer loads or any case fails; a *survivor* is a value
nothing reads, a defect. Informative keys (prose, citations, provenance) are exempt.

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


#: Keys whose string values are prose, citations or layouts, never an enumeration.
NOT_ENUMERATIONS = SKIP_STRING_KEYS | {"cite", "provenance", "layout", "exact_layout",
                                       "canonical_layout", "printed_shape", "result", "printed",
                                       "comment", "quote", "note", "rule", "valid_n"}


@dataclass(frozen=True)
class Mutant:
    """One value changed (or one row or file removed) at one place of one file."""

    rel: str
    line: int
    start: int
    end: int
    old: str
    new: str
    kind: str = "number"

    @property
    def label(self) -> str:
        """Where and what."""
        if self.kind == "file":
            return f"{self.rel}: delete the file"
        if self.kind == "row":
            return f"{self.rel}:{self.line}: delete the row"
        return f"{self.rel}:{self.line}: {self.old} -> {self.new}"

    def apply(self, root: Path) -> None:
        """Make this mutant in a spec tree."""
        target = root / self.rel
        if self.kind == "file":
            target.unlink()
            return
        text = target.read_text(encoding="utf-8")
        target.write_text(text[:self.start] + self.new + text[self.end:], encoding="utf-8")


def all_mutants(root: Path) -> Iterator[Mutant]:
    """Numbers, enumerations, row deletions, file deletions: every mutant of a spec tree."""
    yield from mutants(root)
    yield from enum_mutants(root)
    yield from deletions(root)


def _rows_node(text: str) -> yaml.SequenceNode | None:
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(node, yaml.MappingNode):
        return None
    rows = next((v for k, v in node.value if k.value == "rows"), None)
    return rows if isinstance(rows, yaml.SequenceNode) else None


def _scalars(node: yaml.Node, key: str) -> Iterator[tuple[str, yaml.ScalarNode]]:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if str(k.value) not in NOT_ENUMERATIONS:
                yield from _scalars(v, str(k.value))
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            yield from _scalars(v, key)
    elif isinstance(node, yaml.ScalarNode):
        yield key, node


def enum_mutants(root: Path) -> Iterator[Mutant]:
    """Each enumerated string -> the next value of its key's domain; each boolean negated."""
    files = [(p.relative_to(root).as_posix(), p.read_text(encoding="utf-8")) for p in spec_files(root)]
    domains: dict[str, set[str]] = {}
    for _, text in files:
        rows = _rows_node(text)
        for key, n in _scalars(rows, "") if rows is not None else ():
            if n.tag.endswith(":str"):
                domains.setdefault(key, set()).add(n.value)
    for rel, text in files:
        rows = _rows_node(text)
        for key, n in _scalars(rows, "") if rows is not None else ():
            start, end, line = n.start_mark.index, n.end_mark.index, n.start_mark.line + 1
            if n.tag.endswith(":bool"):
                new = "false" if n.value.lower() in ("true", "yes", "on") else "true"
                yield Mutant(rel, line, start, end, text[start:end], new, "enum")
            elif n.tag.endswith(":str") and len(domains.get(key, ())) > 1:
                ordered = sorted(domains[key])
                new = ordered[(ordered.index(n.value) + 1) % len(ordered)]
                yield Mutant(rel, line, start, end, text[start:end], json.dumps(new), "enum")


def deletions(root: Path) -> Iterator[Mutant]:
    """Each row removed, then each file removed."""
    for path in spec_files(root):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        rows = _rows_node(text)
        for row in rows.value if rows is not None else ():
            start = text.rfind("-", 0, row.start_mark.index)
            yield Mutant(rel, row.start_mark.line + 1, start, row.end_mark.index,
                         text[start:row.end_mark.index], "", "row")
    for path in spec_files(root):
        yield Mutant(path.relative_to(root).as_posix(), 1, 0, 0, "", "", "file")


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
    p.add_argument("--kind", choices=("number", "enum", "row", "file"), action="append",
                   help="only mutants of these kinds (default: all)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if killed_by(args.spec_dir) is not None:
        print("the unmutated spec already fails; fix that first", file=sys.stderr)
        return 2
    rows = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "spec"
        for mut in all_mutants(args.spec_dir):
            if (args.only and args.only not in mut.label) or (args.kind and mut.kind not in args.kind):
                continue
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.copytree(args.spec_dir, scratch)
            mut.apply(scratch)
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
