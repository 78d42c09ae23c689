"""The spec linter, driven by fixture files that state their expected errors."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ptxconf.oracle.spec import SpecErrors, lint_file, load_spec

FIXTURES = Path(__file__).parent / "fixtures" / "lint"
EXPECT = re.compile(r"^# expect: (\d+) (SPEC-[A-Z]+)$", re.M)


def expected(path: Path) -> set[tuple[int, str]]:
    """The (line, rule) pairs a fixture's header says the linter reports."""
    return {(int(line), rule) for line, rule in EXPECT.findall(path.read_text())}


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("*.yaml")), ids=lambda p: p.stem)
def test_fixture_reports_exactly_its_expected_errors(fixture: Path, tmp_path: Path) -> None:
    target = tmp_path / fixture.name
    shutil.copy(fixture, target)
    _doc, errors = lint_file(target, tmp_path)
    got = {(e.line, e.rule) for e in errors}
    assert got == expected(fixture), "\n".join(str(e) for e in errors)
    for e in errors:
        assert str(e).startswith(f"{target}:{e.line}: {e.rule} - ")
        assert "\n" not in str(e)


def test_clean_fixture_states_no_errors() -> None:
    assert expected(FIXTURES / "clean.yaml") == set()


def test_bundled_spec_is_clean(spec) -> None:
    assert len(spec.rows) > 100


def test_broken_spec_dir_raises_all_errors_not_an_empty_spec(tmp_path: Path) -> None:
    for name in ("duplicate_id.yaml", "units_mismatch.yaml", "clean.yaml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    with pytest.raises(SpecErrors) as info:
        load_spec(tmp_path)
    assert {e.rule for e in info.value.errors} == {"SPEC-ID", "SPEC-UNITS"}


def test_error_names_file_row_field_expected_and_got(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "wrong_type.yaml", tmp_path / "w.yaml")
    _doc, errors = lint_file(tmp_path / "w.yaml", tmp_path)
    text = "\n".join(str(e) for e in errors)
    assert "row K_SW128: major: expected one of ['K', 'MN'], got 'KM'" in text
    assert "leading_u128: expected an integer, got '8'" in text
