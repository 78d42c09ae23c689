"""A copy of the bundled spec with one edit, for tests that need a spec other than the bundled one
(a field stored with another shift, a row's valid N cut, ...): the edit must match exactly once.
Also a fake ptxconf checkout (a pyproject.toml and a spec/ copy) for the tests of which spec a
command chooses (ptxconf.oracle.locate)."""

from __future__ import annotations

import atexit
import dataclasses
import functools
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ptxconf.oracle.lint import RawDocument, SpecError
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, Spec, default_spec, lint_file, load_spec

#: The blank valid-N cell of the k32 .f16 accumulator (the finding k32-f16-valid-n-blank of
#: spec/findings.yaml), and the same cell filled with the f32 row's N (8..256 step 8, which the
#: assembler accepts): (file, old, new) for `replace_once`.
K32_F16_VALID_N = ("wgmma/register_fragments.yaml", 'elements: "N/2", figure: 153, valid_n: null,',
                   'elements: "N/2", figure: 153, valid_n: [{step_elems: 8, i_min: 1, i_max: 32}],')

#: The name of the finding that cell is, and one of its cases (an assembler-witness case).
K32_F16_FINDING = "k32-f16-valid-n-blank"
K32_F16_CASE = "witness.valid_n[wgmma/instruction_types:k32.f16.e4m3.e4m3]"

#: A CPU case of the bundled spec that is a known finding (cutedsl-period-s143: the blog states
#: Swizzle<1,4,3>'s period as 32 B; it is 256 B on byte addresses), and the edit of its row that
#: states the byte period instead (the case then passes): (file, old, new) for `replace_once`.
S143_FINDING = "cutedsl-period-s143"
S143_CASE = "cutedsl.period[cutedsl/worked_examples:period.S143]"
S143_FIXED = ("cutedsl/worked_examples.yaml", "period_units: 256, stated_period_bytes: 32,",
              "period_units: 256, stated_period_bytes: 256,")


def copy_spec(dest: Path) -> Path:
    """The bundled spec tree copied to `dest` (its findings.yaml with it; its *.md notes left
    out), returned: written from the files as this process first read them (`_spec_files`),
    the tree is not walked, stat'ed and read again for each of the suite's ~200 copies."""
    for rel, data in _spec_files().items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return dest


@functools.cache
def _spec_files() -> dict[str, bytes]:
    """The bundled spec's files but its *.md notes, by path relative to the tree, as read once."""
    return {p.relative_to(DEFAULT_SPEC_DIR).as_posix(): p.read_bytes()
            for p in sorted(DEFAULT_SPEC_DIR.rglob("*")) if p.is_file() and p.suffix != ".md"}


def replace_once(path: Path, old: str, new: str) -> int:
    """Replace `old` (there exactly once) by `new` in a file; the 1-based line it was on."""
    text = path.read_text()
    assert text.count(old) == 1, f"{path}: {old!r} appears {text.count(old)} times"
    path.write_text(text.replace(old, new))
    return text[: text.index(old)].count("\n") + 1


def edited_spec(tmp_path: Path, file: str, old: str, new: str,
                also: Sequence[tuple[str, str]] = ()) -> Spec:
    """The bundled spec copied under tmp_path with `old` replaced by `new` in spec/`file` (and
    each further (old, new) of `also`, in order; each old must be there exactly once), loaded."""
    root = copy_spec(tmp_path / "spec")
    for before, after in ((old, new), *also):
        replace_once(root / file, before, after)
    return load_spec(root)


def scratch_folder() -> Path:
    """A folder for code outside a test (no tmp_path), removed when the process ends."""
    path = Path(tempfile.mkdtemp(prefix="ptxconf-scratch-"))
    atexit.register(shutil.rmtree, path, True)
    return path


def edited_scratch_spec(file: str, old: str, new: str,
                        also: Sequence[tuple[str, str]] = ()) -> Spec:
    """`edited_spec` in a scratch folder of its own (for the message examples, which run
    outside a test)."""
    return edited_spec(scratch_folder(), file, old, new, also)


def without_finding(findings: Path, name: str, dest: Path | None = None) -> Path:
    """A findings file with the entry `name` removed (written over `findings`, or to `dest`),
    by editing its text: the entry runs from its `- name:` line to the next entry's."""
    lines = findings.read_text().splitlines(keepends=True)
    start = lines.index(f"- name: {name}\n")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("- name: ")), len(lines))
    out = findings if dest is None else dest
    out.write_text("".join(lines[:start] + lines[end:]))
    return out


def fake_checkout(folder: Path, project: str = "ptxconf") -> Path:
    """`folder` laid out as the checkout of a project: a pyproject.toml whose [project] is named
    `project`, and spec/ a copy of the bundled spec. Returns `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(f'[project]\nname = "{project}"\nversion = "0.1.0"\n')
    copy_spec(folder / "spec")
    return folder


def replaced_row(spec: Spec, key: str, **changes: object) -> Spec:
    """`spec` with one row's fields changed in memory, past the load-time rules (a check that a
    loader rule such as SPEC-FACT refuses first is reached only this way)."""
    rows = tuple(dataclasses.replace(r, **changes) if r.key == key else r for r in spec.rows)
    if rows == spec.rows:
        raise KeyError(f"no row {key!r} (or nothing changed)")
    return Spec(spec.root, rows, spec.findings)


def descriptor_field_replaced(row_id: str, table: str = "wgmma/matrix_descriptor",
                              **changes: object) -> Spec:
    """The bundled spec with one field row of a descriptor table (the PTX ISA's by default)
    changed in memory: SPEC-QUOTE refuses, at load, a bit range or code that the row's own
    quote or the other table contradicts, so a test of what follows from another format
    reaches it only this way."""
    from ptxconf.oracle.spec import default_spec

    return replaced_row(default_spec(), f"{table}:{row_id}", **changes)


def wide_registers(spec: Spec) -> Spec:
    """`spec` with 64-bit registers, in memory: every register-fragment row holds twice the
    elements per register."""
    from ptxconf.oracle.records import RegisterFragment

    return Spec(spec.root, tuple(dataclasses.replace(r, elems_per_register=2 * r.elems_per_register)
                                 if isinstance(r, RegisterFragment) else r for r in spec.rows))


def raw_document(folder: Path, text: str, name: str = "t.yaml") -> RawDocument:
    """`text` written to folder/`name` and parsed as a spec file (its name in errors: `name`)."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return RawDocument.parse(path, name)


def lint_text(folder: Path, text: str | bytes, rule: str | None = None) -> list[SpecError]:
    """The linter's reports on a spec file folder/s.yaml holding `text` (those of `rule` only, if
    given); each must name that file."""
    path = folder / "s.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    _doc, errors = lint_file(path, folder)
    for e in errors:
        assert e.path == str(path), str(e)
    return [e for e in errors if rule is None or e.rule == rule]


def default_row_replaced(kind: str, row_id: str, **changes: object) -> Spec:
    """The bundled spec with one row (of the records class named `kind`, by id) changed in
    memory, past the load-time rules (replaced_row)."""
    from ptxconf.oracle import records

    spec = default_spec()
    return replaced_row(spec, spec.get(getattr(records, kind), row_id).key, **changes)
