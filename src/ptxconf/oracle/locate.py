"""Which spec a command uses, and how it names it.

`--spec-dir` > `$PTXCONF_SPEC_DIR` > the `spec/` of the ptxconf checkout that holds the current
directory (found upwards from it, as pytest finds its rootdir: the first folder with a
pyproject.toml of the project `ptxconf` and a spec/ beside it) > the bundled copy. Findings
travel with the spec: its tree's findings.yaml, unless `--findings FILE` names another.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: The bundled spec: src/ptxconf/spec/ in a checkout, ptxconf/spec/ in an installed package.
BUNDLED_SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"

#: The environment variable that names a spec tree.
SPEC_DIR_ENV = "PTXCONF_SPEC_DIR"

#: Where a chosen spec came from, strongest first.
ORIGINS = ("--spec-dir", SPEC_DIR_ENV, "checkout", "bundled")


@dataclass(frozen=True)
class SpecChoice:
    """A spec tree, why it was chosen, and the findings file named apart from it (or None)."""

    root: Path
    origin: str
    findings: Path | None = None


def project_checkout(start: Path) -> Path | None:
    """The ptxconf checkout holding `start` (the folder itself or a parent), or None."""
    for folder in (start, *start.parents):
        if _is_ptxconf_project(folder / "pyproject.toml") and (folder / "spec").is_dir():
            return folder
    return None


def _is_ptxconf_project(pyproject: Path) -> bool:
    """Whether a pyproject.toml declares the project ptxconf (an unreadable one does not)."""
    try:
        if not pyproject.is_file() or pyproject.stat().st_size > 1 << 20:
            return False
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    project = data.get("project")
    return isinstance(project, dict) and project.get("name") == "ptxconf"


def choose_spec(spec_dir: Path | str | None = None, findings: Path | str | None = None,
                cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> SpecChoice:
    """The spec a command uses (see the module's docstring)."""
    env = os.environ if environ is None else environ
    named = Path(findings) if findings is not None else None
    if spec_dir is not None:
        return SpecChoice(Path(spec_dir), "--spec-dir", named)
    if env.get(SPEC_DIR_ENV):
        return SpecChoice(Path(env[SPEC_DIR_ENV]), SPEC_DIR_ENV, named)
    checkout = project_checkout((cwd or Path.cwd()).absolute())
    if checkout is not None:
        return SpecChoice(checkout / "spec", "checkout", named)
    return SpecChoice(BUNDLED_SPEC_DIR, "bundled", named)


__all__ = ["BUNDLED_SPEC_DIR", "ORIGINS", "SPEC_DIR_ENV", "SpecChoice", "choose_spec", "project_checkout"]
