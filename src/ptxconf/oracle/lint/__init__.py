"""The spec linter: tiny rule classes with stable ids, output `path:line: RULE - message`."""

from ptxconf.oracle.lint.base import RawDocument, Rule, SpecError
from ptxconf.oracle.lint.cite import CiteRule
from ptxconf.oracle.lint.ids import IdRule
from ptxconf.oracle.lint.quote import QuoteRule
from ptxconf.oracle.lint.rows import RowsRule
from ptxconf.oracle.lint.schema import SchemaRule
from ptxconf.oracle.lint.source import SourceRule
from ptxconf.oracle.lint.units import UnitsRule

#: Every rule, in the order it runs. SPEC-YAML is raised by the parser itself.
RULES: tuple[Rule, ...] = (SourceRule(), RowsRule(), UnitsRule(), SchemaRule(), IdRule(),
                           CiteRule(), QuoteRule())

__all__ = ["RULES", "RawDocument", "Rule", "SpecError"]
