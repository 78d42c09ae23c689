"""How silicon's readings become verdicts (oracle/verdicts.py): agreement, compared diffs, the
hypothesis, observation, unused-field, single-reading and base-offset verdicts, each asserted by
status, code and fields and by the values its message names (the wording: messages_oracle_judging.py's
verdicts.*).

Expected values come from the module's documented semantics (its docstrings: the documented
reading alone is a PASS; the documented one among others is UNKNOWN; another reading alone is a
DISCREPANCY; none is a FAIL; a reading agrees overall only where it agreed every time; the
base-offset groups and the fitted model `swizzle(start + offset - (field << 7))`), from the
outcome codes of `ptxconf.core.cases.CODES` and from hand-worked readings, never from the code under
test."""

from __future__ import annotations

import numpy as np
import pytest
from case_outcomes import expect_fields

from ptxconf.core.results import Status
from ptxconf.oracle import verdicts as V
from ptxconf.oracle.interpret import Diff

AGREES = "agrees"  # agreement(): "'agrees', or 'disagrees (n/size elements)'"


def _names(message: str, *values: str) -> bool:
    """The message names each of `values` (its wording: messages_oracle_judging.py's verdicts.*)."""
    missing = [v for v in values if v not in message]
    assert not missing, f"{message!r} does not name {missing}"
    return True


# --- agreement, agreeing, merge -------------------------------------------------------------


def test_agreement_of_equal_grids_is_agrees() -> None:
    assert V.agreement(np.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]])) == AGREES


def test_agreement_counts_the_differing_elements_of_the_whole_grid() -> None:
    expected = np.arange(6).reshape(2, 3)
    got = expected.copy()
    got[0, 1], got[1, 2] = 9, 9
    assert V.agreement(expected, got) == "disagrees (2/6 elements)"
    assert V.agreement([1, 2, 3, 4], [1, 2, 3, 0]) == "disagrees (1/4 elements)"


def test_agreeing_is_the_sorted_readings_that_agree() -> None:
    readings = {"relative": AGREES, "elements": "disagrees (3/8 elements)", "absolute": AGREES}
    assert V.agreeing(readings) == ["absolute", "relative"]
    assert V.agreeing({"bytes": "disagrees (1/8 elements)"}) == []


def test_merge_keeps_a_readings_first_disagreement() -> None:
    into: dict[str, str] = {}
    V.merge(into, {"bytes": AGREES, "elements": "disagrees (1/4 elements)"})
    assert into == {"bytes": AGREES, "elements": "disagrees (1/4 elements)"}
    V.merge(into, {"bytes": "disagrees (2/4 elements)", "elements": "disagrees (3/4 elements)"})
    assert into == {"bytes": "disagrees (2/4 elements)", "elements": "disagrees (1/4 elements)"}
    V.merge(into, {"bytes": AGREES, "elements": AGREES, "new": AGREES})
    assert into == {"bytes": "disagrees (2/4 elements)", "elements": "disagrees (1/4 elements)",
                    "new": AGREES}


@pytest.mark.parametrize(("field_set", "on_row", "group"), [
    (False, True, "field 0"), (False, False, "field 0"),
    (True, True, "field per rule, start on a 128-B row"),
    (True, False, "field per rule, start inside a 128-B row"),
])
def test_base_offset_group_of_each_probe(field_set: bool, on_row: bool, group: str) -> None:
    assert V.base_offset_group(field_set, on_row) == group


# --- compared ------------------------------------------------------------------------------


def test_compared_clean_diff_is_a_pass_with_the_diff_in_the_fields() -> None:
    clean = Diff("D", ("m", "n"), 64, 0, None, None)
    out = V.compared(clean, "D agrees", "D differs", tile="64x8")
    assert (out.status, out.code, out.message) == (Status.PASS, "ok", "D agrees")
    assert out.fields == {"tile": "64x8", "diff": {"what": "D", "axes": ["m", "n"], "total": 64,
                                                   "mismatches": 0}}


def _dirty() -> Diff:
    return Diff("D", ("m", "n"), 64, 1, (0, 1), (0, 1),
                samples=({"at": {"m": 0, "n": 1}, "expected": 1, "actual": 2},), window="w")


def test_compared_dirty_diff_is_a_fail_with_its_message_or_the_given_one() -> None:
    out = V.compared(_dirty(), "D agrees", "D differs", tile="64x8")
    assert (out.status, out.code, out.message) == (Status.FAIL, "silicon_disagrees", "D differs")
    assert out.fields["tile"] == "64x8"
    assert out.fields["diff"]["mismatches"] == 1
    assert out.fields["diff"]["first"] == [0, 1]
    own = V.compared(_dirty(), "D agrees")
    assert (own.status, own.code) == (Status.FAIL, "silicon_disagrees")
    assert _names(own.message, "D:", "1 of 64", "(m 0, n 1)", "1", "2")


# --- hypothesis_verdict ----------------------------------------------------------------------

ROLES = "mn_lbo_sbo_roles"


def test_the_documented_reading_alone_is_a_pass() -> None:
    readings = {"as_documented": AGREES, "swapped": "disagrees (5/64 elements)"}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles", probe="p")
    expect_fields(out, Status.PASS, "ok", probe="p", readings=readings, silicon_followed=["as_documented"],
                  documented="as_documented", hypothesis=ROLES)
    assert _names(out.message, "MN roles:", "'as_documented'")


def test_the_documented_reading_among_others_is_unknown() -> None:
    readings = {"swapped": AGREES, "as_documented": AGREES}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles")
    expect_fields(out, Status.UNKNOWN, "undecided", readings=readings,
                  silicon_followed=["as_documented", "swapped"], documented="as_documented", hypothesis=ROLES)
    assert _names(out.message, "MN roles:", "['as_documented', 'swapped']")


def test_another_reading_alone_is_a_discrepancy() -> None:
    readings = {"as_documented": "disagrees (5/64 elements)", "swapped": AGREES}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles")
    expect_fields(out, Status.DISCREPANCY, "silicon_disagrees", readings=readings, silicon_followed=["swapped"],
                  documented="as_documented", hypothesis=ROLES)
    assert _names(out.message, "MN roles:", "['swapped']", "'as_documented'")


def test_no_reading_is_a_fail_naming_every_reading() -> None:
    readings = {"as_documented": "disagrees (5/64 elements)", "swapped": "disagrees (7/64 elements)"}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles")
    expect_fields(out, Status.FAIL, "silicon_disagrees", readings=readings, silicon_followed=None,
                  documented="as_documented", hypothesis=ROLES)
    assert _names(out.message, "MN roles:", ROLES, repr(readings))


# --- observation, unused fields, single readings ---------------------------------------------


def test_an_observation_names_what_silicon_followed() -> None:
    readings = {"relative": AGREES, "absolute": AGREES, "elements": "disagrees (1/8 elements)"}
    out = V.observation("start +256", readings, start=256)
    expect_fields(out, Status.PASS, "observed", start=256, readings=readings,
                  silicon_followed=["absolute", "relative"])
    assert _names(out.message, "start +256:", "['absolute', 'relative']")


def test_an_observation_of_no_reading_is_a_fail() -> None:
    readings = {"relative": "disagrees (2/8 elements)"}
    out = V.observation("start +256", readings)
    expect_fields(out, Status.FAIL, "silicon_disagrees", readings=readings, silicon_followed=None)
    assert _names(out.message, "start +256:", repr(readings))


def test_an_unused_field_that_never_changed_d_is_ignored() -> None:
    out = V.unused_field_verdict({"1": AGREES, "2": AGREES}, "bits 46-48 ignored", "bits used",
                                 field="reserved")
    assert (out.status, out.code, out.message) == (Status.PASS, "ok", "bits 46-48 ignored")
    assert out.fields == {"field": "reserved", "silicon_followed": "ignored"}


def test_an_unused_field_that_changed_d_is_a_discrepancy_naming_the_values() -> None:
    tried = {"1": AGREES, "2": "disagrees (4/64 elements)"}
    out = V.unused_field_verdict(tried, "bits ignored", "bits 46-48 change D")
    expect_fields(out, Status.DISCREPANCY, "silicon_disagrees", silicon_followed="used")
    assert out.message.startswith("bits 46-48 change D")
    assert "{'2': 'disagrees (4/64 elements)'}" in out.message
    assert "'1'" not in out.message


@pytest.mark.parametrize(("changed", "readings"), [
    (0, {"ignored": AGREES, "used": "disagrees (D never changed)"}),
    (3, {"ignored": "disagrees (3 runs)", "used": AGREES}),
])
def test_field_use_readings_after_n_changed_runs(changed: int, readings: dict[str, str]) -> None:
    assert V.field_use_readings(changed) == readings


def test_a_single_reading_every_probe_follows_is_a_pass() -> None:
    per_probe = {"f16": AGREES, "tf32": AGREES}
    out = V.single_reading_verdict("a_regs_like_d16", "a_regs_like_d16", per_probe, "A registers",
                                   n=64)
    expect_fields(out, Status.PASS, "ok", n=64, probes=per_probe, readings={"a_regs_like_d16": AGREES},
                  hypothesis="a_regs_like_d16", silicon_followed="a_regs_like_d16")
    assert _names(out.message, "A registers:", "a_regs_like_d16", "2 probes")


def test_a_single_reading_some_probe_breaks_is_a_fail_naming_those_probes() -> None:
    per_probe = {"tf32": "disagrees (3/64 elements)", "f16": AGREES, "e4m3": "disagrees (1/64 elements)"}
    out = V.single_reading_verdict("a_regs_like_d16", "d16", per_probe, "A registers")
    expect_fields(out, Status.FAIL, "silicon_disagrees", probes=per_probe,
                  readings={"d16": "disagrees (2 types)"}, hypothesis="a_regs_like_d16", silicon_followed=None)
    assert _names(out.message, "A registers:", "a_regs_like_d16", "['e4m3', 'tf32']")


# --- base_offset_verdict ---------------------------------------------------------------------

OFFICIAL = ("absolute", "relative")
F0, ON, IN = ("field 0", "field per rule, start on a 128-B row",
              "field per rule, start inside a 128-B row")
MODEL = "absolute_minus_field"


def _groups(f0: list[str], on: list[str], inside: list[str]) -> dict[str, dict[str, str]]:
    names = [*OFFICIAL, MODEL]
    return {g: {r: AGREES if r in agree else "disagrees (1/8 elements)" for r in names}
            for g, agree in ((F0, f0), (ON, on), (IN, inside))}


def test_base_offset_documented_alone_in_every_group_is_a_pass() -> None:
    # the fitted model agreeing too (field 0: it is the absolute reading) does not count
    groups = _groups([*OFFICIAL[:1], MODEL], ["absolute"], ["absolute"])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups, probes=3)
    expect_fields(out, Status.PASS, "ok", probes=3, readings=groups,
                  silicon_followed={F0: ["absolute", MODEL], ON: ["absolute"], IN: ["absolute"]},
                  documented="absolute", hypothesis="base_offset",
                  model="absolute_minus_field: swizzle(start + offset - (field << 7))")
    assert _names(out.message, "'absolute'")


def test_base_offset_documented_among_others_in_one_group_is_unknown() -> None:
    groups = _groups(["absolute", "relative"], ["absolute"], ["absolute"])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert (out.status, out.code) == (Status.UNKNOWN, "undecided")
    assert _names(out.message, repr({F0: ["absolute", "relative"], ON: ["absolute"], IN: ["absolute"]}))
    assert out.fields["readings"] == groups
    assert out.fields["documented"] == "absolute"


def test_base_offset_documented_missing_from_one_group_with_the_model_everywhere_is_a_discrepancy() -> None:
    groups = _groups(["absolute", MODEL], ["relative", MODEL], [MODEL])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert (out.status, out.code) == (Status.DISCREPANCY, "silicon_disagrees")
    assert out.fields["silicon_followed"] == {F0: ["absolute", MODEL], ON: [MODEL, "relative"], IN: [MODEL]}
    assert _names(out.message, f"{F0}: ['absolute']", f"{ON}: ['relative']", f"{IN}:",
                  "swizzle(start + offset - (field << 7))")
    assert "not swizzle" not in out.message


def test_base_offset_documented_missing_and_the_model_missing_from_one_group_is_a_fail() -> None:
    groups = _groups(["absolute", MODEL], ["relative", MODEL], [])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert (out.status, out.code) == (Status.FAIL, "silicon_disagrees")
    assert _names(out.message, f"{F0}: ['absolute']", f"{ON}: ['relative']", f"{IN}:",
                  "not swizzle(start + offset - (field << 7))")
    assert out.fields["silicon_followed"] == {F0: ["absolute", MODEL], ON: [MODEL, "relative"], IN: []}


def test_base_offset_documented_in_every_group_but_one_is_not_a_pass() -> None:
    groups = _groups(["absolute"], ["absolute"], ["relative"])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert out.status is Status.FAIL
