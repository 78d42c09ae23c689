"""Every message example's wording against its golden file (conformance/golden_messages.py): the
one test that fails when a message's words change; every other test asserts status, code and
fields."""

from __future__ import annotations

from collections import defaultdict

import pytest
from golden_messages import Example, golden_file, load_examples, read_golden, updating, write_golden

EXAMPLES = load_examples()
_produced: dict[str, dict[str, str]] = defaultdict(dict)
#: Each area's golden file as this process read it (the files change only while updating).
_golden: dict[str, dict[str, str]] = {}


@pytest.mark.parametrize("ex", [pytest.param(ex, id=ex.id, marks=[pytest.mark.xdist_group(ex.group)]
                                              if ex.group else []) for ex in EXAMPLES.values()])
def test_message_wording_is_the_golden_files(ex: Example) -> None:
    got = ex.produce()
    assert isinstance(got, str), f"{ex.id}: an example returns a non-empty message"
    assert got, f"{ex.id}: an example returns a non-empty message"
    if updating():
        _produced[ex.area][ex.label] = got
        golden = read_golden(ex.area)
        golden[ex.label] = got
        write_golden(ex.area, golden)
        return
    if ex.area not in _golden:
        _golden[ex.area] = read_golden(ex.area)
    golden = _golden[ex.area]
    assert ex.label in golden, (f"{ex.id}: no golden line in {golden_file(ex.area)}; run with "
                                "PTXCONF_UPDATE_GOLDEN=1 and review the diff")
    assert got == golden[ex.label]


def test_every_golden_line_has_its_example() -> None:
    """A golden line whose example is gone is stale."""
    areas = {ex.area for ex in EXAMPLES.values()}
    stale = [f"{area}:{label}" for area in sorted(areas) for label in read_golden(area)
             if f"{area}:{label}" not in EXAMPLES]
    assert stale == []


def test_the_golden_format_round_trips() -> None:
    from golden_messages import decode, encode

    for text in ["plain", "two\nlines", "a \\n literal", "tab\there", "trailing\\"]:
        assert decode(encode(text)) == text
