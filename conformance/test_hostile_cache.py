"""A proof cache planted with hostile entries never changes a verdict.

Every claim's entry is replaced by one hostile form (a forged entry with a valid digest and the
other proof status, a refutation whose points were moved, another claim's entry, a FIFO, a
symlink to /dev/zero, a folder, an oversized file, an undecided or a skip status); the run's
verdicts then equal a run with no cache, and every entry that changed what it states is
reported as rejected. The default run plants the forms over a few claims (the two kinds of
known-finding collisions and cheap proofs), rotating the forms so each claim meets several;
the slow run plants every form at every claim of the bundled spec.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("z3", reason="the proofs need z3-solver")

from ptxconf.core.cases import Case, execute
from ptxconf.oracle.proofs import cache as C
from ptxconf.oracle.proofs.cache import MAX_ENTRY_BYTES
from ptxconf.oracle.proofs.cases import proof_cases
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
TIMEOUT_S = 20.0
#: The default run's claims: both known-finding collisions, and proofs of each cheap kind.
FEW = ("proof.layout_injective[wgmma/canonical_layouts:K_SW32]",
       "proof.example_injective[wgmma/worked_examples:fig167.K.32B.tf32]",
       "proof.swizzle_bijective[wgmma/canonical_layouts:K_SW128]",
       "proof.example_injective[wgmma/worked_examples:fig168.MN.none.bf16]",
       "proof.base_alignment[wgmma/base_offset:base_offset.128B]",
       "proof.descriptor_roundtrip[cute/gmma_descriptor:leading_byte_offset]")

Entry = dict[str, Any]


def _write(path: Path, entry: Entry) -> None:
    """An entry as the cache writes one, digest and all (a forger who knows the format)."""
    body = {k: entry[k] for k in ("id", "statement", "proof_status", "message", "fields")}
    path.write_text(json.dumps({"version": C.CACHE_VERSION, **body,
                                "digest": C._digest(path.stem, body)}))


def _flipped(path: Path, entry: Entry, other: Entry) -> bool:
    status = "proved" if entry["proof_status"] == "refuted" else "refuted"
    _write(path, {**entry, "proof_status": status, "message": "forged",
                  "fields": {**other["fields"], "proof_status": status}})
    return True


def _moved(path: Path, entry: Entry, other: Entry) -> bool:
    cex = entry["fields"].get("counterexample")
    if entry["proof_status"] != "refuted" or not isinstance(cex, dict):
        return _flipped(path, entry, other)
    points = [{**cex["points"][0], "k": cex["points"][0]["k"] + 1}, cex["points"][1]]
    _write(path, {**entry, "fields": {**entry["fields"], "counterexample": {**cex, "points": points}}})
    return True


def _replaced(make: Callable[[Path], object]) -> Callable[[Path, Entry, Entry], bool]:
    def tamper(path: Path, entry: Entry, other: Entry) -> bool:
        path.unlink()
        make(path)
        return True
    return tamper


def _status(status: str) -> Callable[[Path, Entry, Entry], bool]:
    def tamper(path: Path, entry: Entry, other: Entry) -> bool:
        _write(path, {**entry, "proof_status": status,
                      "fields": {**entry["fields"], "proof_status": status}})
        return True
    return tamper


#: name -> tamper(path of the claim's entry, its entry, another claim's entry).
TAMPERS: dict[str, Callable[[Path, Entry, Entry], bool]] = {
    "the other status, forged": _flipped,
    "a refutation's points moved": _moved,
    "another claim's entry": lambda p, e, o: bool(_write(p, o)) or True,
    "a FIFO": _replaced(os.mkfifo),
    "a symlink to /dev/zero": _replaced(lambda p: p.symlink_to("/dev/zero")),
    "a folder": _replaced(Path.mkdir),
    "oversized": _replaced(lambda p: p.write_bytes(b" " * (MAX_ENTRY_BYTES + 1))),
    "unknown, forged": _status("unknown"),
    "skip, forged": _status("skip"),
}


def _verdicts(cases: list[Case]) -> dict[str, tuple[str, str, str]]:
    out = {}
    for c in cases:
        r = SPEC.findings.judge(execute(c))
        out[r.id] = (r.status.value, r.code, str(r.fields.get("proof_status")))
    return out


def _cases(ids: tuple[str, ...] | None) -> list[Case]:
    return [c for c in proof_cases(SPEC, timeout_s=TIMEOUT_S, cache=True)
            if ids is None or c.id in ids]


def _filled(root: Path, ids: tuple[str, ...] | None) -> dict[str, tuple[str, str, str]]:
    """Prove the claims into an empty cache at ``root``: the verdicts of a run without cache
    (nothing is read from an empty cache), and the entries to tamper with."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PTXCONF_CACHE_DIR", str(root))
        return _verdicts(_cases(ids))


def _planted_run(filled: Path, root: Path, ids: tuple[str, ...] | None, rotation: int,
                 monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, tuple[str, str, str]],
                                                          dict[str, str]]:
    """A copy of a filled cache with a hostile form planted at every entry (form i+rotation
    for the i-th), run again: (verdicts, rejection reason by id)."""
    shutil.copytree(filled, root)
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(root))
    monkeypatch.delenv(C.KEY_ENV, raising=False)
    paths = sorted((root / "proofs").glob("*.json"))
    entries = {p: json.loads(p.read_text()) for p in paths}
    names = list(TAMPERS)
    for i, path in enumerate(paths):
        TAMPERS[names[(i + rotation) % len(names)]](path, entries[path],
                                                    entries[paths[(i + 1) % len(paths)]])
    verdicts, rejected = {}, {}
    for c in _cases(ids):
        r = SPEC.findings.judge(execute(c))
        verdicts[r.id] = (r.status.value, r.code, str(r.fields.get("proof_status")))
        if r.fields.get("cache_rejected"):
            rejected[r.id] = r.fields["cache_rejected"]
    return verdicts, rejected


@pytest.fixture(scope="module")
def few(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[str, str, str]]]:
    root = tmp_path_factory.mktemp("filled-few")
    return root, _filled(root, FEW)


@pytest.mark.parametrize("rotation", [0, 3])  # six claims: forms 0-5, then 3-8
def test_hostile_entries_leave_every_verdict_as_a_run_without_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rotation: int,
        few: tuple[Path, dict[str, tuple[str, str, str]]]) -> None:
    filled, clean = few
    assert set(clean) == set(FEW)
    verdicts, rejected = _planted_run(filled, tmp_path / "cache", FEW, rotation, monkeypatch)
    assert verdicts == clean
    assert set(rejected) == set(FEW), "every planted entry is named"


@pytest.fixture(scope="module")
def every(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[str, str, str]]]:
    root = tmp_path_factory.mktemp("filled-all")
    return root, _filled(root, None)


@pytest.mark.slow  # the fast test above plants every form over FEW
@pytest.mark.parametrize("rotation", range(len(TAMPERS)))
def test_hostile_entries_at_every_claim_leave_every_verdict(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rotation: int,
        every: tuple[Path, dict[str, tuple[str, str, str]]]) -> None:
    filled, clean = every
    verdicts, rejected = _planted_run(filled, tmp_path / "cache", None, rotation, monkeypatch)
    assert verdicts == clean
    assert set(rejected) == set(clean)
