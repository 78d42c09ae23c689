"""Checks of oracle/verdicts.py that mutation testing found missing (reports/mutation/README.md).

Expected values come from the module's documented semantics (its docstrings: the documented
reading alone is a PASS; the documented one among others is UNKNOWN; another reading alone is a
DISCREPANCY; none is a FAIL; a reading agrees overall only where it agreed every time; the
base-offset groups and the fitted model `swizzle(start + offset - (field << 7))`), from the
outcome codes of `ptxconf.core.cases.CODES` and from hand-worked readings, never from the code under
test."""

from __future__ import annotations

import numpy as np
import pytest

from ptxconf.core.results import Status
from ptxconf.oracle import verdicts as V
from ptxconf.oracle.interpret import Diff

AGREES = "agrees"  # agreement(): "'agrees', or 'disagrees (n/size elements)'"


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


@pytest.mark.parametrize("field_set,on_row,group", [
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
    assert out.fields["diff"]["mismatches"] == 1 and out.fields["diff"]["first"] == [0, 1]
    own = V.compared(_dirty(), "D agrees")
    assert (own.status, own.code) == (Status.FAIL, "silicon_disagrees")
    assert own.message == "D: 1 of 64 differ; first (m 0, n 1): expected 1, got 2; last (m 0, n 1)"


# --- hypothesis_verdict ----------------------------------------------------------------------

ROLES = "mn_lbo_sbo_roles"


def test_the_documented_reading_alone_is_a_pass() -> None:
    readings = {"as_documented": AGREES, "swapped": "disagrees (5/64 elements)"}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles", probe="p")
    assert (out.status, out.code) == (Status.PASS, "ok")
    assert out.message == "MN roles: silicon follows the documented reading 'as_documented'"
    assert out.fields == {"probe": "p", "readings": readings, "silicon_followed": ["as_documented"],
                          "documented": "as_documented", "hypothesis": ROLES}


def test_the_documented_reading_among_others_is_unknown() -> None:
    readings = {"swapped": AGREES, "as_documented": AGREES}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles")
    assert (out.status, out.code) == (Status.UNKNOWN, "undecided")
    assert out.message == ("MN roles: the input does not distinguish: readings "
                           "['as_documented', 'swapped'] all agree with silicon")
    assert out.fields["silicon_followed"] == ["as_documented", "swapped"]


def test_another_reading_alone_is_a_discrepancy() -> None:
    readings = {"as_documented": "disagrees (5/64 elements)", "swapped": AGREES}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles")
    assert (out.status, out.code) == (Status.DISCREPANCY, "silicon_disagrees")
    assert out.message == ("MN roles: silicon follows ['swapped'], not the documented reading "
                           "'as_documented'")
    assert (out.fields["silicon_followed"], out.fields["documented"]) == (["swapped"], "as_documented")


def test_no_reading_is_a_fail_naming_every_reading() -> None:
    readings = {"as_documented": "disagrees (5/64 elements)", "swapped": "disagrees (7/64 elements)"}
    out = V.hypothesis_verdict(ROLES, "as_documented", readings, "MN roles")
    assert (out.status, out.code) == (Status.FAIL, "silicon_disagrees")
    assert out.message == (
        "MN roles: silicon follows no reading of mn_lbo_sbo_roles: {'as_documented': "
        "'disagrees (5/64 elements)', 'swapped': 'disagrees (7/64 elements)'}")
    assert out.fields["silicon_followed"] is None and out.fields["hypothesis"] == ROLES


# --- observation, unused fields, single readings ---------------------------------------------


def test_an_observation_names_what_silicon_followed() -> None:
    readings = {"relative": AGREES, "absolute": AGREES, "elements": "disagrees (1/8 elements)"}
    out = V.observation("start +256", readings, start=256)
    assert (out.status, out.code) == (Status.PASS, "observed")
    assert out.message == "start +256: silicon follows ['absolute', 'relative']"
    assert out.fields == {"start": 256, "readings": readings,
                          "silicon_followed": ["absolute", "relative"]}


def test_an_observation_of_no_reading_is_a_fail() -> None:
    readings = {"relative": "disagrees (2/8 elements)"}
    out = V.observation("start +256", readings)
    assert (out.status, out.code) == (Status.FAIL, "silicon_disagrees")
    assert out.message == "start +256: silicon follows no reading: {'relative': 'disagrees (2/8 elements)'}"
    assert out.fields["silicon_followed"] is None


def test_an_unused_field_that_never_changed_d_is_ignored() -> None:
    out = V.unused_field_verdict({"1": AGREES, "2": AGREES}, "bits 46-48 ignored", "bits used",
                                 field="reserved")
    assert (out.status, out.code, out.message) == (Status.PASS, "ok", "bits 46-48 ignored")
    assert out.fields == {"field": "reserved", "silicon_followed": "ignored"}


def test_an_unused_field_that_changed_d_is_a_discrepancy_naming_the_values() -> None:
    tried = {"1": AGREES, "2": "disagrees (4/64 elements)"}
    out = V.unused_field_verdict(tried, "bits ignored", "bits 46-48 change D")
    assert (out.status, out.code) == (Status.DISCREPANCY, "silicon_disagrees")
    assert out.message == "bits 46-48 change D: {'2': 'disagrees (4/64 elements)'}"
    assert out.fields == {"silicon_followed": "used"}


@pytest.mark.parametrize("changed,readings", [
    (0, {"ignored": AGREES, "used": "disagrees (D never changed)"}),
    (3, {"ignored": "disagrees (3 runs)", "used": AGREES}),
])
def test_field_use_readings_after_n_changed_runs(changed: int, readings: dict[str, str]) -> None:
    assert V.field_use_readings(changed) == readings


def test_a_single_reading_every_probe_follows_is_a_pass() -> None:
    per_probe = {"f16": AGREES, "tf32": AGREES}
    out = V.single_reading_verdict("a_regs_like_d16", "a_regs_like_d16", per_probe, "A registers",
                                   n=64)
    assert (out.status, out.code) == (Status.PASS, "ok")
    assert out.message == "A registers: silicon follows a_regs_like_d16 for every A fragment type (2 probes)"
    assert out.fields == {"n": 64, "probes": per_probe, "readings": {"a_regs_like_d16": AGREES},
                          "hypothesis": "a_regs_like_d16", "silicon_followed": "a_regs_like_d16"}


def test_a_single_reading_some_probe_breaks_is_a_fail_naming_those_probes() -> None:
    per_probe = {"tf32": "disagrees (3/64 elements)", "f16": AGREES, "e4m3": "disagrees (1/64 elements)"}
    out = V.single_reading_verdict("a_regs_like_d16", "d16", per_probe, "A registers")
    assert (out.status, out.code) == (Status.FAIL, "silicon_disagrees")
    assert out.message == "A registers: silicon does not follow a_regs_like_d16 for ['e4m3', 'tf32']"
    assert out.fields["readings"] == {"d16": "disagrees (2 types)"}
    assert out.fields["silicon_followed"] is None and out.fields["probes"] == per_probe


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
    assert (out.status, out.code) == (Status.PASS, "ok")
    assert out.message == ("unaligned operand start: silicon follows the documented reading "
                           "'absolute' with the base-offset field 0 and set per the rule")
    assert out.fields == {
        "probes": 3, "readings": groups,
        "silicon_followed": {F0: ["absolute", MODEL], ON: ["absolute"], IN: ["absolute"]},
        "documented": "absolute", "hypothesis": "base_offset",
        "model": "absolute_minus_field: swizzle(start + offset - (field << 7))"}


def test_base_offset_documented_among_others_in_one_group_is_unknown() -> None:
    groups = _groups(["absolute", "relative"], ["absolute"], ["absolute"])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert (out.status, out.code) == (Status.UNKNOWN, "undecided")
    assert out.message == ("unaligned operand start: the probes do not distinguish: "
                           f"{{'{F0}': ['absolute', 'relative'], '{ON}': ['absolute'], "
                           f"'{IN}': ['absolute']}}")
    assert out.fields["readings"] == groups and out.fields["documented"] == "absolute"


def test_base_offset_documented_missing_from_one_group_with_the_model_everywhere_is_a_discrepancy() -> None:
    groups = _groups(["absolute", MODEL], ["relative", MODEL], [MODEL])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert (out.status, out.code) == (Status.DISCREPANCY, "silicon_disagrees")
    assert out.message == (
        f"unaligned operand start ({F0}: ['absolute']; {ON}: ['relative']; {IN}: neither reading): "
        "the base-offset field is not only informative, it moves the swizzle phase; "
        "swizzle(start + offset - (field << 7)) fits every probe")


def test_base_offset_documented_missing_and_the_model_missing_from_one_group_is_a_fail() -> None:
    groups = _groups(["absolute", MODEL], ["relative", MODEL], [])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert (out.status, out.code) == (Status.FAIL, "silicon_disagrees")
    assert out.message == (
        f"unaligned operand start ({F0}: ['absolute']; {ON}: ['relative']; {IN}: neither reading): "
        "no reading, and not swizzle(start + offset - (field << 7)), fits every probe")
    assert out.fields["silicon_followed"] == {F0: ["absolute", MODEL], ON: [MODEL, "relative"], IN: []}


def test_base_offset_documented_in_every_group_but_one_is_not_a_pass() -> None:
    groups = _groups(["absolute"], ["absolute"], ["relative"])
    out = V.base_offset_verdict("base_offset", "absolute", OFFICIAL, groups)
    assert out.status is Status.FAIL
