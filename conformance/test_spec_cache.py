"""Spec files kept linted between runs (oracle/spec_cache.py): a command's second load of a tree
reads every file back instead of parsing and linting it, and builds the rows a fresh load
builds; an edited file is linted again; a file with a problem is never kept, so a load reports
the same `path:line: RULE - message` lines with or without the cache; an entry that is
tampered with, forged with values of another shape, or not a regular file is not used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ptxconf.core.trust import sign
from ptxconf.oracle import spec as spec_mod
from ptxconf.oracle import spec_cache
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, SpecErrors, load_spec, spec_sha256


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, root)
    return root


def _load(root: Path, kept: bool = True) -> spec_mod.Spec:
    spec_mod.forget_parsed_files()
    return load_spec(root, kept=kept)


@pytest.fixture(scope="module")
def kept_entries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder a cold load of the bundled spec filled (entries are keyed by a file's
    path in its tree and its bytes, so they answer any copy of it), made once a module."""
    folder = tmp_path_factory.mktemp("kept")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PTXCONF_CACHE_DIR", str(folder / "cache"))
        _load(shutil.copytree(DEFAULT_SPEC_DIR, folder / "spec"))
    return folder / "cache"


@pytest.fixture
def kept_tree(tree: Path, kept_entries: Path) -> Path:
    """`tree` whose cache holds every file's entry, as a load of it leaves the cache."""
    shutil.copytree(kept_entries, spec_cache.cache_dir().parent)
    return tree


def test_a_second_load_lints_nothing_and_builds_the_same_rows(tree: Path, linted: list[str]) -> None:
    cold = _load(tree)
    assert len(linted) == len(spec_mod.spec_files(tree))
    linted.clear()
    warm = _load(tree)
    assert linted == []
    assert warm.rows == cold.rows == _load(tree, kept=False).rows
    assert spec_sha256(warm) == spec_mod._tree_sha256(tree)


def test_an_edited_file_is_linted_again(kept_tree: Path, linted: list[str]) -> None:
    tree = kept_tree
    _load(tree)
    edited = tree / "wgmma" / "swizzle_atoms.yaml"
    edited.write_text(edited.read_text() + "# an edit that changes no row\n")
    linted.clear()
    _load(tree)
    assert linted == ["wgmma/swizzle_atoms.yaml"]


def test_a_file_with_a_problem_says_the_same_with_or_without_the_cache(kept_tree: Path) -> None:
    tree = kept_tree
    _load(tree)
    bad = tree / "wgmma" / "swizzle_atoms.yaml"
    bad.write_text(bad.read_text().replace("kind:", "kind: nonsense\nkindx:", 1))
    messages = []
    for kept in (True, True, False):
        with pytest.raises(SpecErrors) as err:
            _load(tree, kept)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == messages[2]
    assert "wgmma/swizzle_atoms.yaml:" in messages[0]
    assert len(list(spec_cache.cache_dir().iterdir())) == len(spec_mod.spec_files(tree))


def test_a_bad_file_fails_a_warm_command_as_a_cold_one(tree: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PTXCONF_CACHE_DIR": str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "ptxconf", "spec", "validate", "--spec-dir", str(tree),
           "--assembler", "off", "--checks", "off"]
    assert subprocess.run(cmd, capture_output=True, text=True, env=env).returncode == 0
    bad = tree / "wgmma" / "swizzle_atoms.yaml"
    bad.write_text(bad.read_text() + "rows_again: 1\n")
    runs = [subprocess.run(cmd + extra, capture_output=True, text=True, env=env)
            for extra in ([], [])]
    cold = subprocess.run(cmd, capture_output=True, text=True,
                          env={**env, "PTXCONF_CACHE_DIR": str(tmp_path / "fresh")})
    assert [r.returncode for r in runs] == [cold.returncode] * 2
    assert cold.returncode != 0
    assert runs[0].stderr == runs[1].stderr == cold.stderr
    assert runs[0].stdout == cold.stdout
    assert "wgmma/swizzle_atoms.yaml:" in cold.stderr + cold.stdout


def _entry(tree: Path, rel: str) -> Path:
    import hashlib

    digest = hashlib.sha256((tree / rel).read_bytes()).digest()
    return spec_cache.cache_dir() / f"{spec_cache._key(rel, digest)}.json"


@pytest.mark.parametrize("spoil", ["value", "shape", "lines", "symlink", "folder"])
def test_a_spoiled_entry_is_not_used(kept_tree: Path, linted: list[str],
                                     plant: Callable[[Path, str, str], None], spoil: str) -> None:
    tree = kept_tree
    cold = _load(tree)
    rel = "wgmma/swizzle_atoms.yaml"
    path = _entry(tree, rel)
    entry = json.loads(path.read_text())
    body = entry["body"]
    if spoil == "value":  # a row's value edited: the digest no longer matches
        row = body["data"]["rows"][0]
        row[next(iter(row))] = "forged"
    elif spoil == "shape":  # forged with a digest: a row of another type does not build
        body["data"]["rows"][0] = {"forged": True}
        entry["digest"] = sign(path.stem, spec_cache._body_bytes(body))
    elif spoil == "lines":
        body["lines"] = body["lines"][1:]
        entry["digest"] = sign(path.stem, spec_cache._body_bytes(body))
    plant(path, spoil, json.dumps(entry))
    linted.clear()
    warm = _load(tree)
    assert linted == [rel]
    assert warm.rows == cold.rows


def test_a_plain_load_neither_reads_nor_writes_the_cache(tree: Path, linted: list[str]) -> None:
    _load(tree, kept=False)
    assert not spec_cache.cache_dir().exists()
