"""The mutants tool covers every kind of normative value (numbers, enumerations, booleans, row
and file deletions); a sample of each kind is killed here, in CI. The full run is
`tox -e mutants` (python -m ptxconf.mutants), which takes hours on 2 cores."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from ptxconf.mutants import Mutant, all_mutants, killed_by
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, spec_files

MUTANTS = list(all_mutants(DEFAULT_SPEC_DIR))


def _pick(kind: str, rel: str, contains: str = "") -> Mutant:
    return next(m for m in MUTANTS if m.kind == kind and m.rel == rel and contains in m.label)


SAMPLE = [
    _pick("enum", "wgmma/instruction_types.yaml", "f16 -> "),
    _pick("enum", "wgmma/instruction_types.yaml", "true -> false"),
    _pick("enum", "wgmma/canonical_layouts.yaml", "128B"),
    _pick("enum", "wgmma/register_fragments.yaml"),
    _pick("row", "wgmma/swizzle_atoms.yaml"),
    _pick("row", "wmma/default_strides.yaml"),
    _pick("file", "wgmma/smem_alignment.yaml"),
    _pick("number", "wgmma/smem_alignment.yaml"),
]


def test_every_kind_and_every_file_has_mutants() -> None:
    kinds = Counter(m.kind for m in MUTANTS)
    assert set(kinds) == {"number", "enum", "row", "file"}, kinds
    files = {p.relative_to(DEFAULT_SPEC_DIR).as_posix() for p in spec_files(DEFAULT_SPEC_DIR)}
    assert {m.rel for m in MUTANTS if m.kind == "file"} == files
    assert kinds["row"] == sum(1 for m in MUTANTS if m.kind == "row") > 0


@pytest.mark.slow
@pytest.mark.parametrize("mutant", SAMPLE, ids=[m.label for m in SAMPLE])
def test_a_sample_of_each_kind_is_killed(tmp_path: Path, mutant: Mutant) -> None:
    scratch = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, scratch)
    mutant.apply(scratch)
    assert killed_by(scratch) is not None, f"{mutant.label} survived: a value nothing checks"
