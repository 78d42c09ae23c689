"""`tox -e mutants`: perturb every normative value in spec/ and show `ptxconf check --gpu off` fails.

Four kinds of mutant, each on a scratch copy of spec/, then the CPU checks (`spec validate`
with its assembler stage where NVRTC is here, self-consistency, the proofs, the assembler
witness):

* numbers: each integer scalar, and each run of digits inside a non-id string (CuTe layouts,
  shapes), n -> n+1;
* enumerations: each string value of a key whose values form a domain in the spec (element
  types, swizzle modes, majors, operands, references to other rows) -> the next value of that
  domain; each boolean -> its negation;
* row deletions: each row removed;
* file deletions: each file removed.

A mutant is *killed* when the spec no longer loads or any case fails; a *survivor* is a value
nothing reads, a defect. Informative fields are exempt, declared with the record kinds
(`INFORMATIVE` in oracle/records.py: each row's cite, prose the checks do not read), and so are
row ids (names; SPEC-ID recomputes the ids that encode facts, and the fields that reference
rows are enumerated). Numbers include each file's pin of its row count (source.row_count).

    python -m ptxconf.mutants [--spec-dir DIR] [--only SUBSTRING]... [--kind KIND]... [-j N] [--json]

Mutants run in a pool of N processes (default: every CPU); each result line is printed in
mutant order, a progress line goes to stderr every PROGRESS_EVERY mutants, and the summary
gives the figures per kind. Exit 0 when every mutant is killed, 1 when any survives, 2 when the
unmutated spec already fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import yaml

from ptxconf.app.providers import REGISTRY, Provider
from ptxconf.app.spec_assembler import assembler_stage
from ptxconf.core.cases import execute
from ptxconf.core.context import RunContext
from ptxconf.oracle import records
from ptxconf.oracle.lint.rows import PIN
from ptxconf.oracle.locate import choose_spec
from ptxconf.oracle.spec import SpecErrors, identity_line, load_chosen, load_spec, spec_files

#: Row ids are names, not values: SPEC-ID recomputes the ids that encode facts, and the fields
#: that name other rows are enumerated where they reference them.
NAMES = frozenset({"id"})
DIGITS = re.compile(r"\d+")

#: Free-form strings (CuTe layouts, printed shapes, the mma.sync fragment formulas' `value` and
#: `where` expressions): their digits are mutated, one by one; they are not swapped for another
#: value of the key (that is no domain, just other layouts; two formulas of one key can be the
#: same map, `i >= 2` and `i == 2 || i == 3` over four elements).
FREE_FORM = frozenset({"layout", "exact_layout", "canonical_layout", "printed_shape", "result",
                       "domain_comment", "rule", "value", "where"})

#: A progress line (stderr) every this many mutants.
PROGRESS_EVERY = 10


def exempt_keys(kind: object) -> frozenset[str]:
    """The keys of a file's rows that no mutant touches: its record kind's informative fields
    (oracle/records.py) and row ids; an unknown kind exempts only ids (it fails to load)."""
    cls = records.RECORD_KINDS.get(str(kind))
    return NAMES | (cls.INFORMATIVE if cls is not None else frozenset())


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
    """Numbers, enumerations, row deletions, file deletions: every mutant of a spec tree (the
    tree parsed once for all of them)."""
    files = _texts(root)
    yield from mutants(root, files)
    yield from enum_mutants(root, files)
    yield from deletions(root, files)


#: libyaml's safe loader where PyYAML has it (as ptxconf.oracle.lint.base reads the spec): its
#: marks count characters as the pure-Python one's do, so each mutant's span is the same.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class SpecText:
    """One spec file as text and as a YAML node tree: its rows, its pin, its exempt keys."""

    rel: str
    text: str
    rows: yaml.SequenceNode | None
    pin: yaml.ScalarNode | None
    exempt: frozenset[str]

    @classmethod
    def read(cls, root: Path, path: Path) -> SpecText:
        """Parse a file of a spec tree (one that does not parse has no rows and no pin)."""
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=_LOADER)
        top = {str(k.value): v for k, v in node.value} if isinstance(node, yaml.MappingNode) else {}
        rows, source, kind = top.get("rows"), top.get("source"), top.get("kind")
        pin = ({str(k.value): v for k, v in source.value}.get(PIN)
               if isinstance(source, yaml.MappingNode) else None)
        return cls(path.relative_to(root).as_posix(), text,
                   rows if isinstance(rows, yaml.SequenceNode) else None,
                   pin if isinstance(pin, yaml.ScalarNode) else None,
                   exempt_keys(kind.value if isinstance(kind, yaml.ScalarNode) else None))


def _texts(root: Path) -> list[SpecText]:
    return [SpecText.read(root, p) for p in spec_files(root)]


def _scalars(node: yaml.Node, key: str, skip: frozenset[str]) -> Iterator[tuple[str, yaml.ScalarNode]]:
    """(the key it sits under, scalar) for each scalar of a node outside the `skip` keys."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if str(k.value) not in skip:
                yield from _scalars(v, str(k.value), skip)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            yield from _scalars(v, key, skip)
    elif isinstance(node, yaml.ScalarNode):
        yield key, node


def _enumerated(f: SpecText) -> Iterator[tuple[str, yaml.ScalarNode]]:
    """The scalars of a file's rows that enumeration may change."""
    yield from _scalars(f.rows, "", f.exempt | FREE_FORM) if f.rows is not None else ()


def enum_mutants(root: Path, files: list[SpecText] | None = None) -> Iterator[Mutant]:
    """Each enumerated string -> the next value of its key's domain; each boolean negated."""
    files = _texts(root) if files is None else files
    domains: dict[str, set[str]] = {}
    for f in files:
        for key, n in _enumerated(f):
            if n.tag.endswith(":str"):
                domains.setdefault(key, set()).add(n.value)
    for f in files:
        for key, n in _enumerated(f):
            start, end, line = n.start_mark.index, n.end_mark.index, n.start_mark.line + 1
            if n.tag.endswith(":bool"):
                new = "false" if n.value.lower() in ("true", "yes", "on") else "true"
                yield Mutant(f.rel, line, start, end, f.text[start:end], new, "enum")
            elif n.tag.endswith(":str"):
                nxt = next_value(n.value, domains.get(key, set()))
                if nxt is not None:
                    yield Mutant(f.rel, line, start, end, f.text[start:end], json.dumps(nxt),
                                 "enum")


def next_value(value: str, domain: set[str]) -> str | None:
    """The next value of a sorted domain (cyclically) that differs from `value` in more than
    white space ("(8, 16)" and "(8,16)" are one value: no mutant); None if there is none."""
    ordered = sorted(domain)
    at = ordered.index(value)
    same = "".join(value.split())
    for step in range(1, len(ordered)):
        candidate = ordered[(at + step) % len(ordered)]
        if "".join(candidate.split()) != same:
            return candidate
    return None


def deletions(root: Path, files: list[SpecText] | None = None) -> Iterator[Mutant]:
    """Each row removed, then each file removed."""
    files = _texts(root) if files is None else files
    for f in files:
        for row in f.rows.value if f.rows is not None else ():
            start = f.text.rfind("-", 0, row.start_mark.index)
            yield Mutant(f.rel, row.start_mark.line + 1, start, row.end_mark.index,
                         f.text[start:row.end_mark.index], "", "row")
    for f in files:
        yield Mutant(f.rel, 1, 0, 0, "", "", "file")


def mutants(root: Path, files: list[SpecText] | None = None) -> Iterator[Mutant]:
    """Every integer scalar and every digit run in a normative string, in file order; then each
    file's pin of its row count."""
    files = _texts(root) if files is None else files
    for f in files:
        for key, n in _scalars(f.rows, "", f.exempt) if f.rows is not None else ():
            yield from _number_mutants(f, key, n)
    for f in files:
        if f.pin is not None:
            yield from _number_mutants(f, PIN, f.pin)


def _number_mutants(f: SpecText, key: str, node: yaml.ScalarNode) -> Iterator[Mutant]:
    """n -> n+1 for an integer, and for each digit run of a string."""
    start, end = node.start_mark.index, node.end_mark.index
    line = node.start_mark.line + 1
    raw = f.text[start:end]
    if node.tag.endswith(":int"):
        yield Mutant(f.rel, line, start, end, raw, str(int(node.value) + 1))
    elif node.tag.endswith(":str"):
        for m in DIGITS.finditer(raw):
            yield Mutant(f.rel, line, start, end, raw,
                         raw[:m.start()] + str(int(m.group()) + 1) + raw[m.end():])


#: CPU providers cheapest first, so that a killed mutant stops early (the proofs last).
PROVIDER_ORDER = ("spec-lint", "self-consistency", "assembler-witness", "proofs")


def _cpu_providers() -> list[Provider]:
    """The providers the mutants run: no GPU, dependency here, cheapest first."""
    found = [p for p in REGISTRY if not p.gpu and p.problem() is None]
    return sorted(found, key=lambda p: PROVIDER_ORDER.index(p.name)
                  if p.name in PROVIDER_ORDER else len(PROVIDER_ORDER))


def killed_by(spec_dir: Path) -> str | None:
    """The first thing that fails on this spec directory, or None if everything passes: `spec
    validate` (the linter, then, where NVRTC is here, the assembler on the instruction forms
    the rows name: last, as it is the slowest) and every case of the CPU providers."""
    try:
        spec = load_spec(spec_dir)
    except SpecErrors as errs:
        return f"spec validate: {errs.errors[0].rule}"
    ctx = RunContext(gpu="off")
    try:
        for prov in _cpu_providers():
            for case in prov.load(spec, ctx):
                result = spec.findings.judge(execute(case))
                if result.status.failing:
                    return f"{case.id} ({result.code})"
    finally:
        ctx.close()
    stage = assembler_stage(spec)
    return f"spec validate: {stage.errors[0].rule}" if stage.errors else None


def run_mutant(spec_dir: Path, mut: Mutant) -> tuple[Mutant, str | None, float]:
    """Make one mutant on a scratch copy of the spec: (the mutant, its killer, seconds)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ptxconf-mutant-") as tmp:
        scratch = Path(tmp) / "spec"
        shutil.copytree(spec_dir, scratch)
        mut.apply(scratch)
        killer = killed_by(scratch)
    return mut, killer, time.perf_counter() - start


def _results(spec_dir: Path, todo: list[Mutant], jobs: int
             ) -> Iterator[tuple[Mutant, str | None, float]]:
    """Each mutant's result, in mutant order: in this process for one job, else in a pool."""
    if jobs <= 1:
        yield from (run_mutant(spec_dir, m) for m in todo)
        return
    from ptxconf.oracle.proofs.pool import context

    # never a plain fork of this process: a thread of the caller (a test runner's, a compile
    # pool's) could hold a lock the forked child then waits on forever
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context()) as pool:
        yield from pool.map(run_mutant, [spec_dir] * len(todo), todo)


def selected(spec_dir: Path, only: list[str] | None, kinds: list[str] | None) -> list[Mutant]:
    """The mutants whose label contains one of `only` and whose kind is one of `kinds` (None:
    all)."""
    return [m for m in all_mutants(spec_dir)
            if (not only or any(o in m.label for o in only)) and (not kinds or m.kind in kinds)]


def progress_line(done: int, total: int, survived: int, elapsed: float) -> str:
    """`mutants: 40/202, 2 survived, 61 s (1.5 s per mutant), about 245 s left`."""
    per = elapsed / done if done else 0.0
    return (f"mutants: {done}/{total}, {survived} survived, {elapsed:.0f} s ({per:.1f} s per "
            f"mutant), about {per * (total - done):.0f} s left")


def by_kind(rows: list[dict[str, object]]) -> dict[str, dict[str, int]]:
    """{kind: {mutants, killed, survived}} in the order kinds first appear."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        k = out.setdefault(str(r["kind"]), {"mutants": 0, "killed": 0, "survived": 0})
        k["mutants"] += 1
        k["killed" if r["killed_by"] else "survived"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every mutant; print killers and survivors; exit 1 when any survives."""
    p = argparse.ArgumentParser(prog="python -m ptxconf.mutants")
    p.add_argument("--spec-dir", type=Path, help="the spec tree to mutate (default: as every "
                   "ptxconf command chooses it: $PTXCONF_SPEC_DIR, the checkout's spec/, the bundled copy)")
    p.add_argument("--only", action="append",
                   help="only mutants whose label contains this text (repeat: any of them)")
    p.add_argument("--kind", choices=("number", "enum", "row", "file"), action="append",
                   help="only mutants of these kinds (default: all)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="mutants run at once, each in its own process (default: every CPU)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs: expected at least 1")
    choice = choose_spec(args.spec_dir)
    args.spec_dir = choice.root
    try:
        print(identity_line(load_chosen(choice)), file=sys.stderr, flush=True)
    except SpecErrors as errs:
        print("\n".join(str(e) for e in errs.errors), file=sys.stderr)
        return 2
    if killed_by(args.spec_dir) is not None:
        print("the unmutated spec already fails; fix that first", file=sys.stderr)
        return 2
    todo = selected(args.spec_dir, args.only, args.kind)
    rows: list[dict[str, object]] = []
    start = time.perf_counter()
    for mut, killer, seconds in _results(args.spec_dir, todo, args.jobs):
        rows.append({"mutant": mut.label, "kind": mut.kind, "killed_by": killer,
                     "seconds": round(seconds, 2)})
        if not args.json:
            print(f"{'killed' if killer else 'SURVIVED':8} {mut.label}  [{killer or '-'}]",
                  flush=True)
        if len(rows) % PROGRESS_EVERY == 0 or len(rows) == len(todo):
            print(progress_line(len(rows), len(todo), sum(not r["killed_by"] for r in rows),
                                time.perf_counter() - start), file=sys.stderr, flush=True)
    survivors = [r for r in rows if r["killed_by"] is None]
    seconds = round(time.perf_counter() - start, 1)
    kinds = by_kind(rows)
    if args.json:
        print(json.dumps({"mutants": rows, "survivors": len(survivors), "seconds": seconds,
                          "jobs": args.jobs, "kinds": kinds}))
    else:
        for kind, n in kinds.items():
            print(f"  {kind}: {n['mutants']} mutants, {n['killed']} killed, "
                  f"{n['survived']} survived")
        print(f"{len(rows)} mutants, {len(rows) - len(survivors)} killed, "
              f"{len(survivors)} survived, {seconds} s")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
