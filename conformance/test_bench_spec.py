"""The spec load-time figures (`ptxconf.app.bench_spec`) and the fast loader they measure.

No timing is asserted (figures are for people): the figures have a sane shape, the synthetic
tree they time is a valid spec that grows with the size asked for, and the fast parse (libyaml,
memoized scalar resolution, direct construction) gives exactly what `yaml.safe_load` gives and
refuses what it refused.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from ptxconf.app.bench_spec import build_tree, renamed, spec_load_figures, split_rows, tree_bytes
from ptxconf.oracle.lint.base import MAX_DEPTH, MAX_FILE_BYTES, RawDocument
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, load_spec, spec_files


def test_figures_have_a_sane_shape() -> None:
    real = tree_bytes(DEFAULT_SPEC_DIR)
    small, larger = spec_load_figures((real + 20_000, real + 60_000))
    for f in (small, larger):
        assert set(f) == {"bytes", "files", "rows", "load_s", "validate_s"}, f
        assert all(isinstance(f[k], float) and f[k] > 0 for k in ("load_s", "validate_s")), f
    assert real + 20_000 <= small["bytes"] < real + 40_000, small
    assert larger["bytes"] > small["bytes"]
    assert larger["rows"] > small["rows"]
    assert small["rows"] > len(load_spec(DEFAULT_SPEC_DIR).rows)


def test_the_synthetic_tree_is_a_valid_spec_under_the_file_limit(tmp_path: Path) -> None:
    root = build_tree(tmp_path, 600_000)
    spec = load_spec(root)  # raises SpecErrors if any rule refuses it
    files = spec_files(root)
    synthetic = [p for p in files if p.parent.name == "synthetic"]
    assert len(synthetic) >= 2, "the rows are spread over several files"
    assert max(p.stat().st_size for p in files) < MAX_FILE_BYTES
    assert len({r.id for r in spec.rows if r.file.startswith("synthetic/")}) == sum(
        1 for r in spec.rows if r.file.startswith("synthetic/")), "copied ids are unique"


def test_a_row_block_is_renamed_once() -> None:
    header, blocks = split_rows("kind: x\nrows:\n  - id: a.b\n    n: 1\n  - id: \"c\"\n    id2: 3\n")
    assert header == "kind: x\nrows:\n"
    assert [renamed(b, ".s7") for b in blocks] == ["  - id: a.b.s7\n    n: 1\n",
                                                   "  - id: \"c.s7\"\n    id2: 3\n"]


@pytest.mark.parametrize("path", spec_files(DEFAULT_SPEC_DIR), ids=lambda p: p.name)
def test_the_fast_parse_equals_safe_load_on_every_spec_file(path: Path) -> None:
    doc = RawDocument.parse(path, path.name)
    assert doc.data == yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)


TRICKY = textwrap.dedent("""\
    kind: x
    ints: [0, 7, -3, 0x1F, 0o17, 017, 1_000, +5, 190:20:30]
    floats: [1.5, 1e3, .inf, -.Inf, .nan, 6.8523015e+5]
    bools: [yes, No, true, FALSE, on, off, y]
    nulls: [~, null, ""]
    strings: ["7", '0x10', "yes", 1.2.3, 2001-12-14x]
    when: [2001-12-14, 2001-12-14t21:59:43.10-05:00]
    bytes: !!binary aGVsbG8=
    set: !!set {a, b}
    pairs: !!omap [{a: 1}, {b: 2}]
    text: |
      two
      lines
    folded: >-
      one
      line
    nested: {a: [1, {b: [2, 3]}], c: d}
    """)


def test_the_fast_parse_equals_safe_load_on_tricky_scalars(tmp_path: Path) -> None:
    path = tmp_path / "tricky.yaml"
    path.write_text(TRICKY)
    data = RawDocument.parse(path, path.name).data
    expected = yaml.load(TRICKY, Loader=yaml.SafeLoader)
    nan = expected["floats"].pop(4)
    got_nan = data["floats"].pop(4)
    assert nan != nan  # NaN is not equal to itself
    assert got_nan != got_nan
    assert data == expected
    assert data["ints"][:3] == [0, 7, -3], data
    assert data["bools"][0] is True, data


def test_nesting_past_what_the_c_parser_survives_is_refused_not_a_crash(tmp_path: Path) -> None:
    """libyaml's composer recurses in C and overflows the stack on deep nesting (a segfault):
    the event check must refuse it first."""
    path = tmp_path / "deep.yaml"
    path.write_text("kind: x\ndeep: " + "[" * 400_000 + "]" * 400_000 + "\n")
    code = ("import sys; from pathlib import Path; from ptxconf.oracle.lint.base import "
            "RawDocument, SpecError\n"
            "try:\n    RawDocument.parse(Path(sys.argv[1]), 'deep.yaml')\n"
            "except SpecError as e:\n    print(e.rule, e.message)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    assert done.stdout.startswith("SPEC-SIZE")
    assert f"at most {MAX_DEPTH} deep" in done.stdout
