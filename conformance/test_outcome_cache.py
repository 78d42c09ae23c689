"""Kept results (ptxconf.core.outcome_cache): a warm `check` takes the self-consistency and
assembler-witness results from the cache instead of computing them, with the same verdicts as
a run without it; the key covers the spec, ptxconf's code and the tools; an entry is read as
untrusted input (regular file, size cap, kept status, digest), and a case with a known finding
takes only a kept discrepancy, judged as a fresh one."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ptxconf.app.providers import Provider, provider
from ptxconf.app.run import KNOWN_DISCREPANCY, _provider_results
from ptxconf.app.run_options import RunOptions
from ptxconf.core import outcome_cache as OC
from ptxconf.core.cases import Case, case, passed
from ptxconf.core.context import RunContext
from ptxconf.core.outcome_cache import MAX_ENTRY_BYTES, OutcomeCache
from ptxconf.core.results import Result, Status
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
#: The worked examples' self-consistency cases (Figure 167's a known finding) and no proof:
#: a fraction of a second a run.
ONLY = "worked_example."
FINDING = "worked_example.injective[wgmma/worked_examples:fig167.K.32B.tf32]"

Cli = Callable[..., tuple[int, str, str]]


def _run(cli: Cli, report: Path, *more: str, exit_code: int = 0
         ) -> dict[str, tuple[str, str, str, bool]]:
    code, out, err = cli("check", "--gpu", "off", "--only", ONLY, "--report-dir", str(report),
                         "--quiet", *more)
    assert code == exit_code, err
    results = json.loads((report / "results.json").read_text())["results"]
    return {r["id"]: (r["status"], r["code"], r["message"], bool(r["fields"].get("cached")))
            for r in results if r["provider"] == "self-consistency"}


def _verdicts(run: dict[str, tuple[str, str, str, bool]]) -> dict[str, tuple[str, str, str]]:
    return {k: v[:3] for k, v in run.items()}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "outcomes"


def test_a_warm_check_takes_the_self_consistency_results_from_the_cache(
        tmp_path: Path, cache: Path, cli: Cli) -> None:
    cold = _run(cli, tmp_path / "cold")
    assert cold, "the selection has self-consistency cases"
    assert not any(v[3] for v in cold.values())
    warm = _run(cli, tmp_path / "warm")
    assert all(v[3] for v in warm.values()), "every self-consistency result came from the cache"
    fresh = _run(cli, tmp_path / "fresh", "--no-cache")
    assert not any(v[3] for v in fresh.values())
    assert _verdicts(warm) == _verdicts(fresh) == _verdicts(cold)
    assert warm[FINDING][:2] == ("discrepancy", "finding_known")
    meta = json.loads((tmp_path / "warm" / "results.json").read_text())["meta"]
    assert meta["from_cache"]["self-consistency"] == len(warm)


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.json"))


def _rewrite(path: Path, change: Callable[[dict[str, object]], None], resign: bool) -> None:
    """Edit a kept result; ``resign``: with the digest recomputed (a forger who knows the
    format)."""
    data = json.loads(path.read_text())
    change(data["result"])
    if resign:
        data["digest"] = OC.sign(path.stem, OC._canonical(data["result"]))
    path.write_text(json.dumps(data))


def _as_pass(r: dict[str, object]) -> None:
    r.update(status="pass", code="ok", message="forged")


@pytest.mark.parametrize(("name", "tamper", "why"), [
    ("edited", lambda p: _rewrite(p, _as_pass, False), "digest does not match"),
    ("a skip, digest recomputed", lambda p: _rewrite(p, lambda r: r.update(status="skip"), True),
     "never kept"),
    ("a body that raised, digest recomputed",
     lambda p: _rewrite(p, lambda r: r.update(status="fail", code="raised"), True), "never kept"),
    ("a FIFO", lambda p: (p.unlink(), os.mkfifo(p)), "not a regular file"),
    ("a symlink to /dev/zero", lambda p: (p.unlink(), p.symlink_to("/dev/zero")), "a symlink"),
    ("oversized", lambda p: p.write_bytes(b" " * (MAX_ENTRY_BYTES + 1)), "more than"),
])
def test_a_tampered_entry_is_not_used_and_the_case_runs(
        tmp_path: Path, cache: Path, cli: Cli, name: str, tamper: Callable[[Path], object],
        why: str) -> None:
    cold = _run(cli, tmp_path / "cold")
    for path in _entries(cache):
        tamper(path)
    code, out, err = cli("check", "--gpu", "off", "--only", ONLY, "--report-dir",
                         str(tmp_path / "again"))
    assert code == 0, err
    results = json.loads((tmp_path / "again" / "results.json").read_text())["results"]
    again = {r["id"]: r for r in results if r["provider"] == "self-consistency"}
    assert {k: (r["status"], r["code"], r["message"]) for k, r in again.items()} == _verdicts(cold)
    assert all(why in r["fields"]["cache_rejected"] for r in again.values()), name
    assert f"result cache: {len(again)} entries rejected and run again: " in out


def test_a_known_findings_case_takes_only_a_kept_discrepancy(tmp_path: Path, cache: Path,
                                                             cli: Cli) -> None:
    """A forged pass (digest valid) for Figure 167's known overlap is not used: the case runs
    and the finding stands; a kept discrepancy with changed fields is judged a changed
    finding, never a pass."""
    _run(cli, tmp_path / "cold")
    store = OutcomeCache(provider("self-consistency").cache_base(SPEC) or "")
    path = store.root / f"{store._key(FINDING)}.json"
    _rewrite(path, _as_pass, True)
    again = _run(cli, tmp_path / "again")
    assert again[FINDING][:2] == ("discrepancy", "finding_known")
    assert not again[FINDING][3]
    report = json.loads((tmp_path / "again" / "results.json").read_text())["results"]
    assert next(r for r in report if r["id"] == FINDING)["fields"]["cache_rejected"] == \
        KNOWN_DISCREPANCY
    _rewrite(path, lambda r: r["fields"].update(offset=9), True)  # type: ignore[union-attr]
    changed = _run(cli, tmp_path / "changed", exit_code=1)
    assert changed[FINDING][:2] == ("fail", "finding_changed")
    assert changed[FINDING][3], "a kept discrepancy is used, and judged"


def test_the_key_covers_the_spec_the_code_and_the_tools(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    result = Result("c[k]", "c", Status.PASS, "holds", {"n": 1}, provider="p")
    store = OutcomeCache("p\0spec-a\0tools-1", tmp_path)
    store.put(result)
    assert store.get("c[k]")[0] is not None
    assert OutcomeCache("p\0spec-b\0tools-1", tmp_path).get("c[k]") == (None, None)
    assert OutcomeCache("p\0spec-a\0tools-2", tmp_path).get("c[k]") == (None, None)
    monkeypatch.setattr(OC, "code_sha256", lambda: "another code")
    assert OutcomeCache("p\0spec-a\0tools-1", tmp_path).get("c[k]") == (None, None)
    witness = provider("assembler-witness")
    assert witness.cache_key is not None
    assert "nvrtc" in (witness.cache_base(SPEC) or "") or witness.problem() is not None


def test_only_decided_results_are_kept(tmp_path: Path) -> None:
    store = OutcomeCache("p", tmp_path)
    for i, (status, code) in enumerate([(Status.SKIP, "dependency_missing"),
                                        (Status.UNKNOWN, "proof_unknown"), (Status.FAIL, "raised")]):
        store.put(Result(f"c[{i}]", "c", status, "m", code=code, provider="p"))
    assert list(tmp_path.iterdir()) == []
    store.put(Result("c[d]", "c", Status.DISCREPANCY, "m", {"x": (1, 2)}, code="mismatch",
                     provider="p"))
    kept, why = store.get("c[d]")
    assert why is None
    assert kept is not None
    assert (kept.status, kept.code, kept.fields) == (Status.DISCREPANCY, "mismatch",
                                                     {"x": [1, 2], "cached": True})


#: How often the listed provider below was asked for its cases.
LISTED_CALLS: list[int] = []


def listed_cases(spec: object, ctx: object) -> Iterator[Case]:
    """Three cases of a provider whose results are kept (the test provider below)."""
    LISTED_CALLS.append(1)
    for key in ("a", "b", "c"):
        yield case("kept.fact", key, lambda key=key: passed(f"{key} holds"), "kept")


def no_tools(spec: object) -> str:
    return ""


def _kept_provider() -> Provider:
    return Provider("kept", "test_outcome_cache:listed_cases",
                    cache_key="test_outcome_cache:no_tools")


def _ids_of(prov: Provider, opts: RunOptions | None = None) -> list[tuple[str, str, bool]]:
    ctx = RunContext(gpu="off", proof_timeout_s=5.0)
    return [(r.id, r.status.value, bool(r.fields.get("cached")))
            for r in _provider_results(prov, SPEC, opts or RunOptions(gpu="off"), ctx)]


def test_a_warm_run_of_a_kept_provider_does_not_list_its_cases_again(cache: Path) -> None:
    LISTED_CALLS.clear()
    prov = _kept_provider()
    cold = _ids_of(prov)
    assert [c[:2] for c in cold] == [(f"kept.fact[{k}]", "pass") for k in "abc"]
    assert len(LISTED_CALLS) == 1
    warm = _ids_of(prov)
    assert len(LISTED_CALLS) == 1, "the warm run read the kept listing, not the provider"
    assert warm == [(i, s, True) for i, s, _ in cold]
    only = _ids_of(prov, RunOptions(gpu="off", only="[b]"))
    assert only == [("kept.fact[b]", "pass", True)]
    assert len(LISTED_CALLS) == 1


def test_a_listing_with_a_missing_or_forged_entry_falls_back_to_the_provider(cache: Path) -> None:
    LISTED_CALLS.clear()
    prov = _kept_provider()
    _ids_of(prov)
    store = OutcomeCache(prov.cache_base(SPEC) or "")
    (store.root / f"{store._key('kept.fact[b]')}.json").unlink()
    again = _ids_of(prov)
    assert len(LISTED_CALLS) == 2, "a listed case without its kept result: the provider runs"
    assert [(i, c) for i, _, c in again] == [("kept.fact[a]", True), ("kept.fact[b]", False),
                                             ("kept.fact[c]", True)]
    listing = store.root / f"{store._key(OC.LISTING)}.json"
    data = json.loads(listing.read_text())
    data["listing"] = ["kept.fact[a]"]  # a forger dropping cases without the key
    listing.write_text(json.dumps(data))
    ids, why = store.listing()
    assert ids is None
    assert "digest" in str(why)
    assert [i for i, _, _ in _ids_of(prov)] == [f"kept.fact[{k}]" for k in "abc"]
    assert len(LISTED_CALLS) == 3
