"""Checks of oracle/domain.py that mutation testing found missing (reports/mutation/README.md).

Expected values come from the PTX ISA's descriptor and canonical-layout tables (as the spec
files cite them) and from the rule texts of `ptxconf oracle`'s documented refusal format
(`RULE - expected X, got Y`), never from the code under test."""

from __future__ import annotations

from ptxconf.oracle.domain import DomainError, DomainWarning


def test_refusal_and_warning_read_rule_dash_message() -> None:
    err = DomainError("DOMAIN-SHAPE", "expected mn a positive multiple of 8, got 12")
    assert str(err) == "DOMAIN-SHAPE - expected mn a positive multiple of 8, got 12"
    assert (err.code, err.message) == ("DOMAIN-SHAPE", "expected mn a positive multiple of 8, got 12")
    w = DomainWarning("DOMAIN-ALIAS", "expected 4 distinct addresses, got 3")
    assert str(w) == "DOMAIN-ALIAS - expected 4 distinct addresses, got 3"
    assert w.as_dict() == {"code": "DOMAIN-ALIAS", "message": "expected 4 distinct addresses, got 3"}
