"""A copy of the bundled spec with one edit, for tests that need a spec other than the bundled one
(a field stored with another shift, a row's valid N cut, ...): the edit must match exactly once."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, Spec, load_spec


def edited_spec(tmp_path: Path, file: str, old: str, new: str,
                also: Sequence[tuple[str, str]] = ()) -> Spec:
    """The bundled spec copied under tmp_path with `old` replaced by `new` in spec/`file` (and
    each further (old, new) of `also`, in order; each old must be there exactly once), loaded."""
    root = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, root, ignore=shutil.ignore_patterns("*.md"))
    path = root / file
    text = path.read_text()
    for before, after in ((old, new), *also):
        assert text.count(before) == 1, f"{file}: {before!r} appears {text.count(before)} times"
        text = text.replace(before, after)
    path.write_text(text)
    return load_spec(root)
