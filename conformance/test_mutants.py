"""The mutants tool covers every kind of normative value (numbers, enumerations, booleans, row
and file deletions, each file's row-count pin); a sample of each kind is killed here, in CI.
The full run is `tox -e mutants` (python -m ptxconf.app.mutants -j N); reports/mutants/README.md
has its figures."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ptxconf.app.mutants import (
    Mutant,
    all_mutants,
    by_kind,
    exempt_keys,
    killed_by,
    main,
    next_value,
    progress_line,
)
from ptxconf.oracle import records
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, spec_files

MUTANTS = list(all_mutants(DEFAULT_SPEC_DIR))


def _pick(kind: str, rel: str, contains: str = "") -> Mutant:
    return next(m for m in MUTANTS if m.kind == kind and m.rel == rel and contains in m.label)


def _pin(rel: str) -> Mutant:
    return next(m for m in MUTANTS if m.kind == "number" and m.rel == rel
                and "row_count" in (DEFAULT_SPEC_DIR / rel).read_text().splitlines()[m.line - 1])


SAMPLE = [
    _pick("enum", "wgmma/instruction_types.yaml", "f16 -> "),
    _pick("enum", "wgmma/instruction_types.yaml", "true -> false"),
    _pick("enum", "wgmma/canonical_layouts.yaml", "128B"),
    _pick("enum", "wgmma/register_fragments.yaml"),
    _pick("row", "wgmma/swizzle_atoms.yaml"),
    _pick("row", "wmma/default_strides.yaml"),
    _pick("row", "cute/mode_statements.yaml"),
    _pick("file", "wgmma/smem_alignment.yaml"),
    _pick("file", "wgmma/stride_byte_offset.yaml"),
    _pick("file", "cute/gmma_descriptor.yaml"),
    _pick("number", "wgmma/smem_alignment.yaml"),
    _pick("number", "wgmma/matrix_descriptor.yaml", ":18: 18 -> 19"),
    _pick("enum", "wgmma/element_types.yaml", "true -> false"),
    _pick("enum", "wgmma/element_types.yaml", "signed -> "),
    _pick("enum", "wgmma/register_fragments.yaml", 'f16x2 -> "f32"'),
    _pick("enum", "cutedsl/worked_examples.yaml", 'bf16 -> "f16"'),
    _pick("number", "cute/mode_statements.yaml", ":27: 4 -> 5"),
    _pick("number", "cute/mma_atoms.yaml", ": 127 -> 128"),
    _pick("enum", "cute/mma_atoms.yaml", "SM70_8x8x4_F16F16F16F16_NT -> "),
    _pin("cutedsl/worked_examples.yaml"),
]


def test_every_kind_and_every_file_has_mutants() -> None:
    kinds = Counter(m.kind for m in MUTANTS)
    assert set(kinds) == {"number", "enum", "row", "file"}, kinds
    files = {p.relative_to(DEFAULT_SPEC_DIR).as_posix() for p in spec_files(DEFAULT_SPEC_DIR)}
    assert {m.rel for m in MUTANTS if m.kind == "file"} == files
    assert kinds["row"] == sum(1 for m in MUTANTS if m.kind == "row") > 0


def test_every_files_pin_is_a_number_mutant() -> None:
    files = spec_files(DEFAULT_SPEC_DIR)
    assert files
    for path in files:
        rel = path.relative_to(DEFAULT_SPEC_DIR).as_posix()
        assert _pin(rel).new == str(int(_pin(rel).old) + 1), rel


def test_exemptions_are_the_record_kinds_informative_fields() -> None:
    """One declaration: a record kind's INFORMATIVE fields (and row ids) are never mutated."""
    assert exempt_keys("byte_offset_definition") == {"id", "cite", "text"}
    assert exempt_keys("swizzle_atom") == {"id", "cite"}
    cites = [m for m in MUTANTS if m.kind in ("number", "enum") and "cite:" in m.old]
    assert not cites
    text = [m for m in MUTANTS if m.rel == "wgmma/leading_byte_offset.yaml" and m.kind == "number"
            and "first column to the second" in m.old]
    assert not text
    assert all("cite" in cls.INFORMATIVE for cls in records.RECORD_KINDS.values())


def test_an_enumeration_skips_values_equal_but_for_white_space() -> None:
    """"(8, 16)" -> "(8,16)" would be an equivalent mutant, nothing could kill it."""
    assert next_value("(8, 16):(16,1)", {"(8, 16):(16,1)", "(8,16):(16,1)", "(8,64):(64,1)"}) \
        == "(8,64):(64,1)"
    assert next_value("b", {"a", "b"}) == "a"
    assert next_value("a", {"a", "a "}) is None


def test_progress_and_summary_figures() -> None:
    assert progress_line(10, 40, 1, 25.0) == \
        "mutants: 10/40, 1 survived, 25 s (2.5 s per mutant), about 75 s left"
    rows: list[dict[str, object]] = [{"kind": "row", "killed_by": "x"},
                                     {"kind": "row", "killed_by": None},
                                     {"kind": "file", "killed_by": "y"}]
    assert by_kind(rows) == {"row": {"mutants": 2, "killed": 1, "survived": 1},
                             "file": {"mutants": 1, "killed": 1, "survived": 0}}


def _sample_params() -> list[Any]:
    """The sample, the first mutant of each kind in the default run, the rest slow."""
    kinds: set[str] = set()
    out = []
    for m in SAMPLE:
        slow = m.kind in kinds
        kinds.add(m.kind)
        out.append(pytest.param(m, id=m.label, marks=[pytest.mark.slow(
            reason="a check run on a mutated spec copy (seconds each): the first mutant of "
                   "its kind runs by default")] * slow))
    return out


@pytest.mark.parametrize("mutant", _sample_params())
def test_a_sample_of_each_kind_is_killed(tmp_path: Path, mutant: Mutant) -> None:
    scratch = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, scratch)
    mutant.apply(scratch)
    assert killed_by(scratch) is not None, f"{mutant.label} survived: a value nothing checks"


@pytest.mark.slow(reason="ten mutants through a pool of two jobs (minutes on two cores): a "
                          "mutant killed is covered by test_a_sample_of_each_kind_is_killed, the "
                          "report's figures by test_progress_and_summary_figures")
def test_a_pool_of_jobs_runs_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--kind", "row", "--only", "wgmma/swizzle_atoms.yaml", "--only",
                 "wmma/storage_rules.yaml", "-j", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["survivors"] == 0
    assert out["jobs"] == 2
    assert out["kinds"] == {"row": {"mutants": 10, "killed": 10, "survived": 0}}
    assert all(r["killed_by"] == "spec validate: SPEC-ROWS" for r in out["mutants"])
