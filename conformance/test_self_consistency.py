"""The case model's own rules: unique ids, the findings file, and how a discrepancy is judged.

Every case's verdict is in conformance/test_cases.py; here, what holds the verdicts together.
"""

from __future__ import annotations

import pytest

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import CODES, Outcome
from ptxconf.core.context import RunContext
from ptxconf.core.results import Result, Status
from ptxconf.oracle.checks import all_cases
from ptxconf.oracle.findings import explain, judge, known_findings
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def _all_ids() -> set[str]:
    ids: set[str] = set()
    for prov in REGISTRY:
        listed = prov.case_ids(SPEC)
        if listed is None:
            if prov.problem() is not None:
                pytest.skip(f"{prov.name} cannot list its cases here: {prov.problem()}")
            listed = [c.id for c in prov.load(SPEC, RunContext(gpu="off"))]
        ids |= set(listed)
    return ids


def test_every_known_finding_names_a_case() -> None:
    ids = _all_ids()
    missing = sorted(set(known_findings()) - ids)
    assert not missing, f"findings without a case: {missing}"


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in all_cases(SPEC)]
    assert len(ids) == len(set(ids))


def _disc(case_id: str, **fields: object) -> Result:
    return Result(case_id, case_id.split("[")[0], Status.DISCREPANCY, "A says 1, B says 2",
                  dict(fields), code="documents_disagree")


def test_new_discrepancy_fails_the_run() -> None:
    r = judge(_disc("x.y[spec:z]"))
    assert (r.status, r.code) == (Status.FAIL, "finding_new")


def test_known_finding_is_matched_on_fields_not_text() -> None:
    cid = "cutedsl.printed_atom[cutedsl/atoms_bf16:MN_INTER.bf16]"
    known = explain(cid)
    assert known is not None
    ok = judge(_disc(cid, **known.fields))
    assert (ok.status, ok.code) == (Status.DISCREPANCY, "finding_known")
    assert ok.fields["finding"] == known.name
    changed = judge(_disc(cid, **{**known.fields, "printed": "something else"}))
    assert (changed.status, changed.code) == (Status.FAIL, "finding_changed")
    assert set(changed.fields["finding_changed"]) == {"printed"}


def test_dotted_finding_fields_reach_nested_fields() -> None:
    cid = "proof.layout_injective[wgmma/canonical_layouts:K_SW32]"
    known = explain(cid)
    assert known is not None
    assert any("." in k for k in known.fields)
    nested: dict[str, dict[str, object]] = {}
    for key, value in known.fields.items():
        head, _, tail = key.partition(".")
        nested.setdefault(head, {})[tail] = value
    assert judge(_disc(cid, **nested)).code == "finding_known"
    assert judge(_disc(cid)).code == "finding_changed"


def test_a_finding_that_no_longer_happens_is_stale() -> None:
    cid = next(iter(known_findings()))
    r = judge(Result(cid, cid.split("[")[0], Status.PASS, "ok"))
    assert (r.status, r.code) == (Status.FAIL, "finding_stale")


def test_outcome_codes_are_catalogued() -> None:
    with pytest.raises(ValueError, match="not in ptxconf.core.cases.CODES"):
        Outcome(Status.FAIL, "no_such_code", "x")
    assert all(CODES.values())


def test_a_provider_that_cannot_load_is_a_failing_row_not_a_silence(monkeypatch) -> None:
    from ptxconf.app import run
    from ptxconf.app.providers import Provider

    broken = Provider("broken", "ptxconf.no_such_module:cases")
    monkeypatch.setattr(run, "providers", lambda opts: (broken,))
    results = run.run_all(SPEC, run.RunOptions(gpu="off"), on_result=lambda r: None)
    assert [(r.id, r.status, r.code) for r in results] == [("broken[*]", Status.FAIL, "raised")]
    assert "ModuleNotFoundError" in results[0].message


def test_a_missing_dependency_skips_each_case_by_id(monkeypatch) -> None:
    from ptxconf.app import run
    from ptxconf.app.providers import Provider, Requirement

    absent = Requirement("nothing", lambda: "not installed here")
    prov = Provider("witness-like", "ptxconf.gpu.witness:provider_cases", (absent,),
                    ids="ptxconf.gpu.witness:case_keys")
    monkeypatch.setattr(run, "providers", lambda opts: (prov,))
    results = run.run_all(SPEC, run.RunOptions(gpu="off"), on_result=lambda r: None)
    from ptxconf.gpu.witness import case_keys

    assert [r.id for r in results] == [f"{c}[{k}]" for c, k in case_keys(SPEC)]
    assert {(r.status, r.code) for r in results} == {(Status.SKIP, "dependency_missing")}
    assert all("nothing: not installed here" in r.message for r in results)
