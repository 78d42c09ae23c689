"""How a GPU probe is judged: readings compared, grouped and turned into outcomes (pure, no GPU).

A probe runs one input placed as each *reading* of an ambiguous rule says (see
`ptxconf.oracle.hypotheses`) and asks whether silicon's answer agrees with each. The readings
that agree decide the outcome: the documented reading alone is a PASS; the documented one
among others is UNKNOWN (the input did not distinguish them); another reading alone is a spec
DISCREPANCY (silicon follows the document's other reading); none is a FAIL. Everything here
takes the probes' answers as plain data and returns outcomes of the case model
(`ptxconf.core.cases`); running the probes is `ptxconf.gpu`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome, passed
from ptxconf.core.results import Status
from ptxconf.oracle.interpret import Diff

#: What a reading's outcome says when silicon's answer is the one the reading predicts.
AGREES = "agrees"
#: A model of the base-offset field fitted by the probes (not one of the oracle's readings):
#: the swizzle acts on the address minus (field << address_shift_bits).
FIELD_MODEL = "absolute_minus_field"
FIELD_MODEL_TEXT = "swizzle(start + offset - (field << 7))"
#: How the base-offset probes are grouped, by (field set per the rule, start on a 128-B row):
#: the readings are judged per group (these names are the keys of the outcome's fields).
FIELD_ZERO = "field 0"
FIELD_ON_ROW = "field per rule, start on a 128-B row"
FIELD_IN_ROW = "field per rule, start inside a 128-B row"
BASE_OFFSET_GROUPS: dict[tuple[bool, bool], str] = {
    (False, True): FIELD_ZERO, (False, False): FIELD_ZERO,
    (True, True): FIELD_ON_ROW, (True, False): FIELD_IN_ROW}


def agreement(expected: np.ndarray, got: np.ndarray) -> str:
    """'agrees', or 'disagrees (n/size elements)'."""
    bad = int((np.asarray(got) != np.asarray(expected)).sum())
    return AGREES if bad == 0 else f"disagrees ({bad}/{np.asarray(expected).size} elements)"


def agreeing(readings: Mapping[str, str]) -> list[str]:
    """The readings silicon agreed with, sorted."""
    return sorted(r for r, o in readings.items() if o == AGREES)


def merge(into: dict[str, str], readings: Mapping[str, str]) -> None:
    """Fold one probe's readings into a running total: a reading agrees overall only where it
    agreed every time (its first disagreement is kept)."""
    for r, o in readings.items():
        if into.get(r, AGREES) == AGREES:
            into[r] = o


def base_offset_group(field_set: bool, on_row: bool) -> str:
    """The group of a base-offset probe (`BASE_OFFSET_GROUPS`)."""
    return BASE_OFFSET_GROUPS[(field_set, on_row)]


def _fail(message: str, code: str = "silicon_disagrees", **fields: Any) -> Outcome:
    return Outcome(Status.FAIL, code, message, fields)


def compared(diff: Diff, ok_message: str, fail_message: str | None = None, **fields: Any) -> Outcome:
    """PASS when silicon's map or product equals the oracle's (the diff is clean), else FAIL
    with the diff table in the fields."""
    fields = {**fields, "diff": diff.details()}
    if diff.ok:
        return passed(ok_message, **fields)
    return _fail(fail_message or diff.message(), **fields)


def hypothesis_verdict(name: str, documented: str, readings: Mapping[str, str], what: str,
                       **fields: Any) -> Outcome:
    """PASS when silicon follows the documented reading (alone where the input
    distinguishes); DISCREPANCY when only other readings match; UNKNOWN when the input does
    not tell the documented reading from others; FAIL when none matches."""
    agree = agreeing(readings)
    fields = {**fields, "readings": dict(readings), "silicon_followed": agree or None,
              "documented": documented, "hypothesis": name}
    if agree == [documented]:
        return passed(f"{what}: silicon follows the documented reading '{documented}'", **fields)
    if documented in agree:
        return Outcome(Status.UNKNOWN, "undecided", f"{what}: the input does not distinguish: "
                       f"readings {agree} all agree with silicon", fields)
    if agree:
        return Outcome(Status.DISCREPANCY, "silicon_disagrees", f"{what}: silicon follows "
                       f"{agree}, not the documented reading '{documented}'", fields)
    return _fail(f"{what}: silicon follows no reading of {name}: {dict(readings)}", **fields)


def observation(what: str, readings: Mapping[str, str], **fields: Any) -> Outcome:
    """An observation (what silicon did, recorded): PASS naming the readings silicon
    followed, FAIL when it followed none."""
    agree = agreeing(readings)
    fields = {**fields, "readings": dict(readings), "silicon_followed": agree or None}
    if not agree:
        return _fail(f"{what}: silicon follows no reading: {dict(readings)}", **fields)
    return passed(f"{what}: silicon follows {agree}", code="observed", **fields)


def unused_field_verdict(tried: Mapping[str, str], ok_message: str, changed_message: str,
                         **fields: Any) -> Outcome:
    """A field documented as unused, varied: PASS ('ignored') when D never changed, else a
    DISCREPANCY ('used') naming the values that changed it (appended to changed_message)."""
    changed = {k: o for k, o in tried.items() if o != AGREES}
    fields = {**fields, "silicon_followed": "used" if changed else "ignored"}
    if changed:
        return Outcome(Status.DISCREPANCY, "silicon_disagrees", f"{changed_message}: {changed}",
                       fields)
    return passed(ok_message, **fields)


def field_use_readings(changed_runs: int) -> dict[str, str]:
    """The readings 'ignored' / 'used' of a field after `changed_runs` runs changed D."""
    return {"ignored": AGREES if not changed_runs else f"disagrees ({changed_runs} runs)",
            "used": AGREES if changed_runs else "disagrees (D never changed)"}


def base_offset_verdict(name: str, documented: str, official: tuple[str, ...],
                        groups: Mapping[str, Mapping[str, str]], **fields: Any) -> Outcome:
    """Unaligned operand starts judged per group (field 0, field per the rule on / inside a
    128-B row). `official`: the hypothesis's own readings; `FIELD_MODEL` is the fitted model.

    PASS when the documented reading fits every group (alone); UNKNOWN when it fits but not
    alone; a DISCREPANCY when it does not but FIELD_MODEL fits every group; else FAIL."""
    followed = {g: agreeing(out) for g, out in groups.items()}
    fields = {**fields, "readings": {g: dict(o) for g, o in groups.items()},
              "silicon_followed": followed, "documented": documented, "hypothesis": name,
              "model": f"{FIELD_MODEL}: {FIELD_MODEL_TEXT}"}
    ours = {g: [r for r in agree if r in official] for g, agree in followed.items()}
    if all(documented in agree for agree in ours.values()):
        if any(len(agree) > 1 for agree in ours.values()):
            return Outcome(Status.UNKNOWN, "undecided", "unaligned operand start: the probes "
                           f"do not distinguish: {ours}", fields)
        return passed("unaligned operand start: silicon follows the documented reading "
                      f"'{documented}' with the base-offset field 0 and set per the rule", **fields)
    text = "; ".join(f"{g}: {ours[g] or 'neither reading'}" for g in ours)
    if all(FIELD_MODEL in agree for agree in followed.values()):
        return Outcome(Status.DISCREPANCY, "silicon_disagrees",
                       f"unaligned operand start ({text}): the base-offset field is not only "
                       f"informative, it moves the swizzle phase; {FIELD_MODEL_TEXT} fits every probe",
                       fields)
    return _fail(f"unaligned operand start ({text}): no reading, and not {FIELD_MODEL_TEXT}, "
                 "fits every probe", **fields)


def single_reading_verdict(name: str, documented: str, per_probe: Mapping[str, str], what: str,
                           **fields: Any) -> Outcome:
    """A hypothesis with one reading (register A): PASS when every probe agrees with it,
    FAIL naming the probes that do not."""
    bad = sorted(p for p, o in per_probe.items() if o != AGREES)
    readings = {documented: AGREES if not bad else f"disagrees ({len(bad)} types)"}
    fields = {**fields, "probes": dict(per_probe), "readings": readings, "hypothesis": name,
              "silicon_followed": documented if not bad else None}
    if bad:
        return _fail(f"{what}: silicon does not follow {name} for {bad}", **fields)
    return passed(f"{what}: silicon follows {name} for every A fragment type "
                  f"({len(per_probe)} probes)", **fields)


__all__ = ["AGREES", "BASE_OFFSET_GROUPS", "FIELD_IN_ROW", "FIELD_MODEL", "FIELD_MODEL_TEXT",
           "FIELD_ON_ROW", "FIELD_ZERO", "agreeing", "agreement", "base_offset_group",
           "base_offset_verdict", "compared", "field_use_readings", "hypothesis_verdict", "merge",
           "observation", "single_reading_verdict", "unused_field_verdict"]
