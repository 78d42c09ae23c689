"""Known findings (oracle/findings.py): how `judge` keys a discrepancy to a finding by case id and
fields, and what it makes of a new, known, changed or stale one (what judges a spec tree by its
own findings file is test_findings_travel.py's).

Expected values come from the documented semantics, worked by hand:

* oracle/findings.py and the head of spec/findings.yaml (the bundled spec's findings, which
  `judge` uses unless given others; its messages name that file by its path): a finding is keyed
  by case id and the fields of the outcome (dotted keys reach into nested fields; YAML lists and
  the outcome's tuples compare alike); a DISCREPANCY of a listed case whose fields hold every
  recorded value is known (it keeps its status, and its fields name the finding and its
  explanation), one of an unlisted case fails as `finding_new`, one whose fields changed as
  `finding_changed` (each changed key with its recorded value and the value now, None where the
  outcome lacks the key), and a listed case that passes fails as `finding_stale`; every other
  outcome is left as it is. The judged result's code is the finding's, so the case's own
  discrepancy code is kept in `discrepancy_code`; the report reads `finding` and `explanation`
  (src/ptxconf/app/report_html.py, src/ptxconf/app/report.py).
* the finding entries themselves (name, case, recorded fields, explanation), read off
  spec/findings.yaml.
"""

from __future__ import annotations

import pytest
from case_outcomes import expect_fields

from ptxconf.core.results import Result, Status
from ptxconf.oracle.findings import Finding, field_differences, judge
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR

#: The file the bundled spec's findings come from, as judge's messages name it.
FINDINGS_FILE = str(DEFAULT_SPEC_DIR / "findings.yaml")

# spec/findings.yaml, finding cutedsl-period-s143 (one case, three flat fields)
S143 = "cutedsl.period[cutedsl/worked_examples:period.S143]"
S143_FIELDS = {"stated_bytes": 32, "period_bytes_if_byte_offsets": 256, "row_width_bytes": 32}
S143_EXPLANATION = ("The blog reads Swizzle<1,4,3>'s period of 256 offset units as 256 bits = 32 B; "
                    "32 B is the row width of the 32B swizzle, its period on byte addresses is 256 B.")


def _result(case_id: str, status: Status, message: str, code: str, **fields: object) -> Result:
    return Result(case_id, case_id.split("[")[0], status, message, dict(fields), code=code)


def _disc(case_id: str, **fields: object) -> Result:
    return _result(case_id, Status.DISCREPANCY, "A says 1, B says 2", "documents_disagree", **fields)


# --- field_differences: what a finding records against what the outcome shows -------------------

# a hand-made finding: a list of pairs (as YAML writes a counterexample) and a nested mapping
PAIRS = Finding("hand-made", ("x.y[spec:z]",), {"points": [[1, 0], [0, 8]], "pair": {"a": 1}}, "why")


def test_tuples_and_lists_with_the_same_values_do_not_differ() -> None:
    assert field_differences(PAIRS, {"points": ((1, 0), (0, 8)), "pair": {"a": 1}}) == {}


def test_a_changed_element_of_a_nested_list_is_a_difference() -> None:
    diff = field_differences(PAIRS, {"points": ((1, 0), (0, 9)), "pair": {"a": 1}})
    assert diff == {"points": {"recorded": [[1, 0], [0, 8]], "now": [[1, 0], [0, 9]]}}
    assert type(diff["points"]["now"][1]) is list   # the value now, in the recorded (YAML) shape


def test_a_changed_value_of_a_nested_mapping_is_a_difference() -> None:
    diff = field_differences(PAIRS, {"points": [[1, 0], [0, 8]], "pair": {"a": 2}})
    assert diff == {"pair": {"recorded": {"a": 1}, "now": {"a": 2}}}


def test_a_changed_key_of_a_nested_mapping_is_a_difference() -> None:
    diff = field_differences(PAIRS, {"points": [[1, 0], [0, 8]], "pair": {"b": 1}})
    assert diff == {"pair": {"recorded": {"a": 1}, "now": {"b": 1}}}


def test_mapping_keys_compare_as_text() -> None:
    """YAML keys of a recorded mapping are strings; an outcome's int keys are the same keys."""
    finding = Finding("hand-made", ("x.y[spec:z]",), {"by_n": {"8": "SS", "16": "RS"}}, "why")
    assert field_differences(finding, {"by_n": {8: "SS", 16: "RS"}}) == {}
    assert field_differences(finding, {"by_n": {8: "SS", 24: "RS"}}) == {
        "by_n": {"recorded": {"8": "SS", "16": "RS"}, "now": {"8": "SS", "24": "RS"}}}


def test_a_recorded_field_the_outcome_lacks_is_now_none() -> None:
    assert field_differences(PAIRS, {"pair": {"a": 1}}) == {
        "points": {"recorded": [[1, 0], [0, 8]], "now": None}}
    assert field_differences(PAIRS, {}) == {
        "points": {"recorded": [[1, 0], [0, 8]], "now": None},
        "pair": {"recorded": {"a": 1}, "now": None}}


def test_a_present_scalar_that_changed_is_shown_as_it_is_now() -> None:
    finding = Finding("hand-made", ("x.y[spec:z]",), {"offset": 8}, "why")
    assert field_differences(finding, {"offset": 16}) == {"offset": {"recorded": 8, "now": 16}}
    assert field_differences(finding, {"offset": 8}) == {}


def test_the_base_offset_finding_matches_its_nested_lists_given_as_tuples() -> None:
    """spec/findings.yaml, base-offset-field-moves-phase: `silicon_followed` maps each probe
    group to the readings the silicon followed; a probe reports them as tuples."""
    cid = "gpu.hypothesis[base_offset]"
    followed = {"field 0": ("absolute", "absolute_minus_field"),
                "field per rule, start on a 128-B row": ("absolute_minus_field", "relative"),
                "field per rule, start inside a 128-B row": ("absolute_minus_field",)}
    ok = judge(_disc(cid, documented="absolute", silicon_followed=followed))
    assert (ok.status, ok.code, ok.fields["finding"]) == (Status.DISCREPANCY, "finding_known",
                                                           "base-offset-field-moves-phase")
    moved = {**followed, "field 0": ("relative",)}
    changed = judge(_disc(cid, documented="absolute", silicon_followed=moved))
    assert (changed.status, changed.code) == (Status.FAIL, "finding_changed")
    assert changed.fields["finding_changed"]["silicon_followed"]["now"]["field 0"] == ["relative"]


# --- judge: new, known, changed, stale, and everything else left alone ----------------------------


def test_a_new_discrepancy_names_the_findings_file_and_keeps_its_code() -> None:
    r = judge(_disc("x.y[spec:z]", printed="(8,8):(8,1)"))
    expect_fields(r, Status.FAIL, "finding_new", printed="(8,8):(8,1)", discrepancy_code="documents_disagree")
    assert FINDINGS_FILE in r.message
    assert r.message.endswith("A says 1, B says 2")


def test_a_known_discrepancy_carries_its_finding_and_explanation() -> None:
    r = judge(_disc(S143, **S143_FIELDS, extra="kept"))
    assert (r.status, r.code, r.message) == (Status.DISCREPANCY, "finding_known", "A says 1, B says 2")
    assert r.fields == {**S143_FIELDS, "extra": "kept", "finding": "cutedsl-period-s143",
                        "explanation": S143_EXPLANATION, "discrepancy_code": "documents_disagree"}


def test_a_changed_finding_lists_each_changed_field_recorded_and_now() -> None:
    r = judge(_disc(S143, **{**S143_FIELDS, "stated_bytes": 64, "row_width_bytes": 128}))
    assert (r.status, r.code) == (Status.FAIL, "finding_changed")
    for named in ("cutedsl-period-s143", "stated_bytes: recorded 32, now 64",
                  "row_width_bytes: recorded 32, now 128"):
        assert named in r.message
    assert r.fields["finding_changed"] == {"stated_bytes": {"recorded": 32, "now": 64},
                                           "row_width_bytes": {"recorded": 32, "now": 128}}


def test_a_changed_finding_shows_text_values_quoted_and_a_lost_field_as_none() -> None:
    cid = "cutedsl.printed_atom[cutedsl/atoms_bf16:MN_INTER.bf16]"   # cutedsl-mn-inter-printed-as-k
    r = judge(_disc(cid, printed="Swizzle<0,4,3> o 0 o (8,8):(8,1)"))
    assert (r.status, r.code) == (Status.FAIL, "finding_changed")
    assert r.fields["finding_changed"] == {"built": {"recorded": "Swizzle<0,4,3> o 0 o (8,8):(1,8)",
                                                     "now": None}}
    assert "cutedsl-mn-inter-printed-as-k" in r.message
    assert "built: recorded 'Swizzle<0,4,3> o 0 o (8,8):(1,8)', now None" in r.message


def test_a_listed_case_that_passes_is_stale() -> None:
    r = judge(_result(S143, Status.PASS, "the stated period is the byte period", "ok", stated_bytes=256))
    expect_fields(r, Status.FAIL, "finding_stale", stated_bytes=256, finding="cutedsl-period-s143")
    assert FINDINGS_FILE in r.message
    assert "the stated period is the byte period" in r.message


@pytest.mark.parametrize("status", [Status.SKIP, Status.UNKNOWN, Status.FAIL])
def test_a_listed_case_that_neither_passes_nor_disagrees_is_left_alone(status: Status) -> None:
    r = _result(S143, status, "the case did not run to a verdict", "raised", stated_bytes=32)
    assert judge(r) == r


def test_an_unlisted_case_that_passes_is_left_alone() -> None:
    r = _result("x.y[spec:z]", Status.PASS, "agree", "ok", printed="(8,8):(1,8)")
    assert judge(r) == r
