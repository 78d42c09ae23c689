"""Load spec/*.yaml, lint it, and return frozen records: the only door from YAML to the oracle."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ptxconf.oracle import records, spec_cache
from ptxconf.oracle.findings import (
    FINDINGS_NAME,
    Findings,
    forget_findings,
    load_findings,
    spec_findings,
)
from ptxconf.oracle.lint import RULES, RawDocument, SpecError
from ptxconf.oracle.lint.base import RawRow
from ptxconf.oracle.lint.derived import derived_errors
from ptxconf.oracle.lint.quote import table_errors
from ptxconf.oracle.lint.refs import cross_file_errors
from ptxconf.oracle.lint.schema import built_row
from ptxconf.oracle.locate import BUNDLED_SPEC_DIR, SpecChoice

#: The bundled spec (which spec a command uses: ptxconf.oracle.locate).
DEFAULT_SPEC_DIR = BUNDLED_SPEC_DIR

R = TypeVar("R", bound=records.Row)
T = TypeVar("T")


class SpecErrors(Exception):
    """Every problem found in a spec directory, each `path:line: RULE - message`."""

    def __init__(self, errors: list[SpecError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


@dataclass(frozen=True)
class Spec:
    """All records of a spec directory, grouped by kind and keyed by `<file stem>:<id>`."""

    root: Path
    rows: tuple[records.Row, ...]
    #: The known findings that judge this spec's discrepancies (its tree's findings.yaml, or
    #: the file --findings names).
    findings: Findings = field(default_factory=Findings, compare=False)
    #: Why this tree was chosen (ptxconf.oracle.locate.ORIGINS), or "given" by a caller.
    origin: str = field(default="given", compare=False)
    #: Rows by kind and by (kind, id), filled on first use (the rows never change).
    _index: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def of(self, cls: type[R]) -> tuple[R, ...]:
        """Every record of one kind, in file and row order."""
        if cls not in self._index:
            self._index[cls] = tuple(r for r in self.rows if type(r) is cls)
        rows: tuple[R, ...] = self._index[cls]
        return rows

    def memo(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """A value derived from this spec alone, made once (the rows never change)."""
        key = ("memo", *key)
        if key not in self._index:
            self._index[key] = make()
        value: T = self._index[key]
        return value

    def in_file(self, cls: type[R], rel: str) -> tuple[R, ...]:
        """Every record of one kind from one file (relative path, e.g. 'wgmma/x.yaml')."""
        return tuple(r for r in self.of(cls) if r.file == rel)

    def get(self, cls: type[R], row_id: str) -> R:
        """The one record of a kind with this id (KeyError if none or several)."""
        key = (cls, row_id)
        if key not in self._index:
            self._index[key] = [r for r in self.of(cls) if r.id == row_id]
        found: list[R] = self._index[key]
        if len(found) != 1:
            raise KeyError(f"{cls.KIND} {row_id!r}: {len(found)} rows")
        return found[0]

    def element_bits(self, dtype: str) -> int:
        """The width in bits of an element type."""
        return self.get(records.ElementType, dtype).width_bits

    def __iter__(self) -> Iterator[records.Row]:
        return iter(self.rows)


def key_location(spec: Spec, key: str) -> tuple[str, int]:
    """Where a case key points in a spec tree: (file relative to the spec root, line). A row
    (`<file stem>:<id>`) at its line; a file (its stem, alone or before a colon) at line 1; a
    kind (`<kind>:...`) at line 1 of the first file holding it; else ('', 1). (The spec's rows
    are indexed once: every result of a report asks.)"""
    rows, stems, kinds = spec.memo(("key_location",), lambda: _key_index(spec))
    if key in rows:
        return rows[key]
    head = key.split(":", 1)[0]
    return stems.get(head) or kinds.get(head) or ("", 1)


def _key_index(spec: Spec) -> tuple[dict[str, tuple[str, int]], dict[str, tuple[str, int]],
                                     dict[str, tuple[str, int]]]:
    """Row key -> (file, line); file stem and kind name -> (first file holding it, 1)."""
    rows: dict[str, tuple[str, int]] = {}
    stems: dict[str, tuple[str, int]] = {}
    kinds: dict[str, tuple[str, int]] = {}
    for row in spec.rows:
        rows.setdefault(row.key, (row.file, row.line))
        stems.setdefault(row.file[:-5], (row.file, 1))
        kinds.setdefault(row.KIND, (row.file, 1))
    return rows, stems, kinds


def spec_sha256(spec: Spec) -> str:
    """sha256 over the spec's YAML files (relative path and bytes): what a report or a cached
    proof names its spec by (a loaded spec's, of the bytes its rows were read from, made as
    it loaded)."""
    return spec.memo(("sha256",), lambda: _tree_sha256(Path(spec.root)))


def _tree_sha256(root: Path) -> str:
    h = hashlib.sha256()
    for path in spec_files(root):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def spec_files(root: Path) -> list[Path]:
    """The YAML files of a spec directory that hold rows, sorted (hidden files and folders
    passed over, and the tree's findings file)."""
    return _walk(root)[0]


def _passed_over(parts: tuple[str, ...]) -> bool:
    """Whether a file, by its path's parts below the spec root, is one no spec tree holds:
    hidden (a name starting with '.', or inside a hidden folder such as .git/) or compiled
    Python (__pycache__)."""
    return any(part.startswith(".") or part == "__pycache__" for part in parts)


def lint_file(path: Path, root: Path) -> tuple[RawDocument | None, list[SpecError]]:
    """Parse one file and run every rule on it."""
    try:
        doc = RawDocument.parse(path, path.relative_to(root).as_posix())
    except SpecError as err:
        return None, [err]
    errors: list[SpecError] = []
    for rule in RULES:
        errors.extend(rule.check(doc))
    return doc, errors


def load_spec(root: Path | str | None = None, findings: Path | str | None = None,
              origin: str = "given", kept: bool = False) -> Spec:
    """Load and validate every file under `root` (default: the bundled spec/) and its known
    findings (`findings`, default the tree's own findings.yaml); raise SpecErrors. With `kept`,
    a file that passed every rule before with these very bytes is read back from the cache
    folder instead of parsed and linted again (ptxconf.oracle.spec_cache)."""
    with _collector_paused():
        spec, sha256 = _load_spec(root, kept)
    try:
        known = spec_findings(spec.root) if findings is None else load_findings(Path(findings))
    except SpecError as err:
        raise SpecErrors([err]) from None
    loaded = dataclasses.replace(spec, findings=known, origin=origin)
    loaded.memo(("sha256",), lambda: sha256)  # of the bytes the rows were read from
    return loaded


def load_chosen(choice: SpecChoice, kept: bool = False) -> Spec:
    """The spec a command chose (ptxconf.oracle.locate.choose_spec), loaded (`kept`: as
    `load_spec` says)."""
    return load_spec(choice.root, choice.findings, choice.origin, kept)


def identity(spec: Spec) -> dict[str, str]:
    """How a command names the spec it used: path, why it was chosen, hash, findings file."""
    return {"root": str(spec.root), "origin": spec.origin, "sha256": spec_sha256(spec),
            "findings": spec.findings.path}


def identity_line(spec: Spec, ident: dict[str, str] | None = None) -> str:
    """The first line of a command's text output: which spec it used (`ident`: its `identity`,
    where the caller has it already; the hash reads every spec file)."""
    ident = identity(spec) if ident is None else ident
    own = Path(ident["root"]) / FINDINGS_NAME
    where = f"its {FINDINGS_NAME}" if Path(ident["findings"]) == own else ident["findings"]
    return (f"spec: {ident['root']} ({ident['origin']}, sha256 {ident['sha256'][:12]}; "
            f"{len(spec.findings.by_case)} known findings in {where})")


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a spec loads: parsing makes ~100k short-lived
    objects per MB and none in cycles, so its passes only cost time (more, the larger the heap
    of the process that loads it)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _load_spec(root: Path | str | None, kept: bool) -> tuple[Spec, str]:
    """load_spec's work: the spec, and the sha256 of its files (`spec_sha256`)."""
    root = Path(root) if root is not None else DEFAULT_SPEC_DIR
    if not root.is_dir():
        raise SpecErrors([SpecError(str(root), 0, "SPEC-SOURCE", "spec directory not found")])
    files, strays = _walk(root)
    if not files:
        raise SpecErrors([SpecError(str(root), 0, "SPEC-SOURCE", "no *.yaml files found")])
    if strays:
        raise SpecErrors([SpecError(str(p), 1, "SPEC-SOURCE", "only *.yaml spec files (and *.md "
                                    "notes) belong in a spec tree; this one would be ignored")
                          for p in strays])
    errors: list[SpecError] = []
    rows: list[records.Row] = []
    tree = hashlib.sha256()
    keys: list[tuple[str, bytes] | None] = []
    parts: list[tuple[records.Row, ...]] = []
    for path in files:
        built, errs = _file_rows(path, root, kept, tree, keys)
        errors.extend(errs)
        rows.extend(built)
        parts.append(built)
    if not errors and not _verified_before(keys, parts):
        errors = cross_file_errors(str(root), rows) + _missing_kinds(root, rows)
        if not errors:
            errors = derived_errors(str(root), rows) + table_errors(str(root), rows)
        if not errors:
            _remember_verified(keys, parts)
    if errors:
        raise SpecErrors(errors)
    return Spec(root, tuple(rows)), tree.hexdigest()


def _walk(root: Path) -> tuple[list[Path], list[Path]]:
    """(the YAML files that hold rows, the files a spec tree may not hold: neither *.yaml nor
    *.md), sorted, from one walk of the tree; hidden ones passed over (`_passed_over`), and
    the tree's findings file is no rows' file."""
    files: list[Path] = []
    strays: list[Path] = []
    top = len(root.parts)  # every path rglob yields starts with root's parts
    for p in sorted(root.rglob("*")):
        rel = p.parts[top:]
        if _passed_over(rel) or not p.is_file():
            continue
        if p.suffix not in (".yaml", ".md"):
            strays.append(p)
        if p.name.endswith(".yaml") and rel != (FINDINGS_NAME,):
            files.append(p)
    return files, strays


#: The trees whose records passed the cross-file, derived and table rules, by the key of each
#: file (`_PARSED`'s: relative path and sha256), with the very record tuples they were checked
#: on: those rules read only the records, so a load that builds the same records (the same
#: objects, from `_PARSED`) skips them. In-process commands and tests load one tree many times.
#: At most VERIFIED_TREES entries, least recently used dropped first.
_VERIFIED: OrderedDict[tuple[tuple[str, bytes] | None, ...], tuple[tuple[records.Row, ...], ...]] = (
    OrderedDict())
VERIFIED_TREES = 64


def _verified_before(keys: list[tuple[str, bytes] | None],
                     parts: list[tuple[records.Row, ...]]) -> bool:
    """Whether these very records (file by file) passed every whole-tree rule before."""
    with _PARSED_LOCK:
        seen = _VERIFIED.get(tuple(keys))
        if seen is None or len(seen) != len(parts) or any(
                a is not b for a, b in zip(seen, parts, strict=True)):
            return False
        _VERIFIED.move_to_end(tuple(keys))
        return True


def _remember_verified(keys: list[tuple[str, bytes] | None],
                       parts: list[tuple[records.Row, ...]]) -> None:
    if None in keys:
        return
    with _PARSED_LOCK:
        _VERIFIED[tuple(keys)] = tuple(parts)
        while len(_VERIFIED) > VERIFIED_TREES:
            _VERIFIED.popitem(last=False)


#: The records of files that passed every rule, by (path relative to the spec root, sha256 of
#: the bytes): a process that loads many trees sharing files (the mutants tool and the test
#: suite's edited copies change one file of the tree; in-process commands reload the same
#: tree) parses and lints each distinct file once. A file's rules read only its text and its
#: relative path; the cross-file and derived rules still run on every load. At most
#: PARSED_FILES entries, least recently used dropped first.
_PARSED: OrderedDict[tuple[str, bytes], tuple[records.Row, ...]] = OrderedDict()
PARSED_FILES = 512
_PARSED_LOCK = threading.Lock()


def forget_parsed_files() -> None:
    """Empty the parsed-file memory, and what it let a load skip (`ptxconf bench` times a cold
    parse so)."""
    with _PARSED_LOCK:
        _PARSED.clear()
        _VERIFIED.clear()
    forget_findings()


def _file_rows(path: Path, root: Path, kept: bool = False, tree: Any = None,
               keys: list[tuple[str, bytes] | None] | None = None
               ) -> tuple[tuple[records.Row, ...], list[SpecError]]:
    """One file's records, or its errors (none then): from memory where this very text at this
    relative path was loaded before, else (`kept`) from the cache folder where it passed every
    rule before, else parsed and linted (lint_file). `tree`: a sha256 the file's relative path
    and bytes are added to (`spec_sha256`); `keys`: a list the file's key (relative path and
    sha256; None where it cannot be read) is appended to."""
    rel = path.relative_to(root).as_posix()
    try:
        raw = path.read_bytes()
        key: tuple[str, bytes] | None = (rel, hashlib.sha256(raw).digest())
        if tree is not None:
            tree.update(rel.encode() + b"\0" + raw)
    except OSError:  # lint_file says why it cannot be read
        key = None
    if keys is not None:
        keys.append(key)
    known = None
    if key is not None:
        with _PARSED_LOCK:
            known = _PARSED.get(key)
            if known is not None:
                _PARSED.move_to_end(key)
    if known is None and kept and key is not None:
        known = _kept_rows(path, rel, key[1])
    if known is not None:
        _remember(key, known)
        return known, []
    doc, errs = lint_file(path, root)
    if doc is None or errs:
        return (), errs
    built = tuple(_records(doc))
    if kept and key is not None:
        spec_cache.put(rel, key[1], doc.data, [row.line for row in doc.rows])
    _remember(key, built)
    return built, []


def _remember(key: tuple[str, bytes] | None, built: tuple[records.Row, ...]) -> None:
    if key is not None:
        with _PARSED_LOCK:
            _PARSED[key] = built
            while len(_PARSED) > PARSED_FILES:
                _PARSED.popitem(last=False)


def _kept_rows(path: Path, rel: str, digest: bytes) -> tuple[records.Row, ...] | None:
    """A file's records from its kept parse (ptxconf.oracle.spec_cache), built by the same
    schema code as a fresh load's; None where none is kept or it does not build."""
    got = spec_cache.get(rel, digest)
    if got is None:
        return None
    data, lines = got
    rows = [RawRow(item, line) for item, line in zip(data["rows"], lines, strict=True)]
    doc = RawDocument(str(path), rel, data, {}, rows)
    try:
        return tuple(_records(doc))
    except Exception:  # noqa: BLE001 - an entry that does not build is linted instead
        return None


def _missing_kinds(root: Path, rows: list[records.Row]) -> list[SpecError]:
    """Every kind of the schema has rows: a spec tree missing a table is refused, not run with
    its checks silently gone."""
    present = {r.KIND for r in rows}
    return [SpecError(str(root), 0, "SPEC-SOURCE", f"no rows of kind {kind!r}: the schema "
                      f"(oracle/records.py) needs a file of this kind")
            for kind in records.RECORD_KINDS if kind not in present]


def _records(doc: RawDocument) -> Iterator[records.Row]:
    """Build the frozen records of a file that passed every rule."""
    cls = records.RECORD_KINDS[doc.data["kind"]]
    source = records.Source(**doc.data["source"])
    for row in doc.rows:
        yield cls(**built_row(cls, row), file=doc.rel, line=row.line, source=source)


_DEFAULT: Spec | None = None


def default_spec() -> Spec:
    """The bundled spec, loaded once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_spec()
    return _DEFAULT
