"""The hypotheses' readings (oracle/hypotheses.py): the oracle takes the chosen reading as an
argument, None meaning the documented one (what the text most plainly says, or what CUTLASS
does); a reading a hypothesis does not list is refused, naming the hypothesis and the readings it
has."""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming

from ptxconf.oracle import hypotheses


@pytest.mark.parametrize(("h", "documented"), [
    (hypotheses.SWIZZLE_UNIT, "bytes"),                # CUTLASS's smem_ptr swizzle acts on bytes
    (hypotheses.MN_LBO_SBO_ROLES, "as_documented"),    # the canonical layouts' LBO/SBO tables
    (hypotheses.K_SWIZZLED_LBO, "ignored"),            # "not used, assumed to be 1"
    (hypotheses.BASE_OFFSET, "absolute"),              # spec/findings.yaml: documented: absolute
    (hypotheses.A_REGISTER_LAYOUT, "a_regs_like_d16"),  # its one reading
], ids=lambda v: v.name if isinstance(v, hypotheses.Hypothesis) else None)
def test_no_chosen_reading_is_the_documented_one(h: hypotheses.Hypothesis, documented: str) -> None:
    assert hypotheses.reading(h, None) == documented


def test_a_chosen_reading_is_taken_as_given() -> None:
    assert hypotheses.reading(hypotheses.BASE_OFFSET, "relative") == "relative"
    assert hypotheses.reading(hypotheses.SWIZZLE_UNIT, "elements") == "elements"


def test_an_unknown_reading_is_refused_naming_the_readings() -> None:
    with raises_naming(ValueError, "swizzle_unit:", "'words'", "['bytes', 'elements']"):
        hypotheses.reading(hypotheses.SWIZZLE_UNIT, "words")
