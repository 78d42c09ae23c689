"""The spec reader's one-pass composer (oracle/lint/base.py `_compose`) reads exactly what
`yaml.safe_load` reads: checked against PyYAML's own loader (an independent implementation) on
YAML shapes a spec author may write and on hypothesis-drawn documents, and each bundled row is
found on its own line. (test_bench_spec.py compares every bundled file and the tricky scalars
with safe_load; what the reader refuses is test_lint_base.py's.)"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import budget

from ptxconf.oracle.lint.base import RawDocument, SpecError
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, load_spec, spec_files

BUNDLED = spec_files(DEFAULT_SPEC_DIR)

#: YAML a spec author may write: block and flow styles, every scalar style, explicit tags
#: (on scalars and collections), the non-specific tag `!`, empty values, comments, a document
#: marker, keys that look like other types but are quoted.
SHAPES = {
    "block": "a: 1\nb:\n  - x\n  - {c: 2.5, d: [true, null, ~]}\n",
    "flow": "{a: [1, [2, [3]]], b: {c: {d: e}}}\n",
    "scalars": "a: 'single'\nb: \"dq\\tesc\"\nc: |\n  lit\n  eral\nd: >\n  fol\n  ded\ne: 0x1F\nf: 1e3\n",
    "tags": "a: !!str 12\nb: !!int '7'\nc: !!float 1\nd: ! 5\ne: !!set {x, y}\nf: !!omap [p: 1]\n",
    "non-specific collection": "a: ! [1, 2]\nb: ! {c: 3}\n",
    "empty values": "a:\nb: []\nc: {}\nd: ''\n",
    "comments and marker": "%YAML 1.1\n--- # doc\na: 1 # one\n# gap\nb: 2\n...\n",
    "quoted look-alikes": "'yes': 1\n'1': 2\n'null': 3\n'2024-01-01': 4\n",
    "timestamps and binary": "a: 2024-01-01\nb: !!binary aGk=\n",
    "scalar document": "just text\n",
    "empty document": "",
}


def _ours(tmp_path: Path, text: str) -> object:
    """What the spec reader builds from `text` (its whole top-level value)."""
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        return RawDocument.parse(path, "s.yaml").data
    except SpecError as err:  # a non-mapping top level is refused after it is built
        if "a spec file is a mapping" not in err.message:
            raise
        return "<not a mapping>"


def _theirs(text: str) -> object:
    value = yaml.safe_load(text)
    return value if isinstance(value, dict) else "<not a mapping>"


@pytest.mark.parametrize("path", BUNDLED, ids=[p.relative_to(DEFAULT_SPEC_DIR).as_posix()
                                               for p in BUNDLED])
def test_every_bundled_row_is_found_on_its_line(path: Path) -> None:
    doc = RawDocument.parse(path, path.name)
    assert doc.rows, "every bundled file has rows"
    lines = path.read_text(encoding="utf-8").splitlines()
    for row in doc.rows:  # the line of a row's id key holds `id: <its id>`
        assert f"id: {row.data['id']}" in lines[row.line_of("id") - 1].replace('"', "")


@pytest.mark.parametrize("name", list(SHAPES))
def test_yaml_shapes_read_as_safe_load_reads_them(tmp_path: Path, name: str) -> None:
    assert _ours(tmp_path, SHAPES[name]) == _theirs(SHAPES[name])


_KEYS = st.text("abcdefgh_", min_size=1, max_size=4)
_SCALARS = st.one_of(st.integers(-10**6, 10**6), st.booleans(), st.none(),
                     st.floats(allow_nan=False, allow_infinity=False, width=32),
                     st.text("abc xyz:#-'\"[]{},&*!|>%@`0123456789.", max_size=12))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(_KEYS, inner, max_size=4), max_leaves=20)


@settings(max_examples=budget(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=5),
       flow=st.sampled_from([None, True, False]))
def test_drawn_documents_read_as_safe_load_reads_them(tmp_path: Path, value: dict,
                                                      flow: bool | None) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, sort_keys=False)
    got = _ours(tmp_path, text)
    assert got == _theirs(text) == json.loads(json.dumps(value))


@pytest.mark.parametrize("collector_on", [True, False], ids=["collector-on", "collector-off"])
def test_loading_leaves_the_garbage_collector_as_it_found_it(collector_on: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if collector_on else gc.disable)()
        load_spec()
        assert gc.isenabled() is collector_on
        with pytest.raises(Exception):  # noqa: B017, PT011 - a failed load restores it too
            load_spec(DEFAULT_SPEC_DIR / "no-such-folder")
        assert gc.isenabled() is collector_on
    finally:
        (gc.enable if was else gc.disable)()
