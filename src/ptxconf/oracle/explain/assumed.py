"""What `explain` assumed where the user said nothing, and the verdict had it assumed otherwise.

`explain descriptor` assumes where the tile starts (its swizzle pattern's anchor and its
allocation: the start rounded down to a 128-byte row, `readmap.default_tile_base`) and, for an
instruction's operand whose type has imm-trans, K-major (imm-trans = 0). `explain layout`
assumes the tile starts at 0, that a swizzle whose unit no print states acts on byte addresses,
and, without an instruction, that the tile is one operand. Each assumption names the option
that says otherwise and, where the other reasonable value changes the verdict, that value and
the verdict it gives (the tile base: the start rounded down to its swizzle repeat instead of a
128-byte row; the major: MN; the swizzle unit: elements).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ptxconf.oracle import facts
from ptxconf.oracle.spec import Spec

from .diagnose import Explanation, explain_descriptor
from .operand import ExplainError, Operand, resolve
from .printed import ASSUMED
from .readmap import ROW_BYTES, base_rule
from .synthesize import Refusal, Synthesis, synthesize


@dataclass(frozen=True)
class Otherwise:
    """Another value of an assumption (as the options that give it) and the verdict with it."""

    options: str
    why: str
    verdict: str

    def as_dict(self) -> dict[str, str]:
        """JSON-ready."""
        return {"options": self.options, "why": self.why, "verdict": self.verdict}


@dataclass(frozen=True)
class Assumption:
    """One thing assumed: what (a key), as said, the option that says otherwise, and the other
    values that change the verdict."""

    what: str
    said: str
    option: str
    otherwise: tuple[Otherwise, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"what": self.what, "said": self.said, "option": self.option,
                "otherwise": [o.as_dict() for o in self.otherwise]}


def descriptor_assumptions(spec: Spec, op: Operand, value: int, e: Explanation, *,
                           tile_base_given: bool, major_given: bool,
                           evidence_ids: Collection[str] = ()) -> tuple[Assumption, ...]:
    """What `explain descriptor` assumed for `e`, and the verdicts had it assumed otherwise."""
    out = []
    smem = e.context.smem_bytes
    rule = base_rule(spec, e.desc.swizzle)
    if not tile_base_given and (rule is not None or smem is not None):
        start, base = e.desc.start_address, e.context.tile_base
        alts = []
        if rule is not None and start - start % rule.repeat_bytes != base:
            alt = start - start % rule.repeat_bytes
            other = explain_descriptor(spec, op, value, tile_base=alt, smem_bytes=smem,
                                       evidence_ids=evidence_ids)
            if other.verdict != e.verdict:
                alts.append(Otherwise(f"--tile-base {alt:#x}", f"the start rounded down to the "
                                      f"{rule.repeat_bytes}-B repeat of the {e.desc.swizzle} "
                                      "swizzle", other.verdict))
        parts = " and ".join(x for x, on in (("swizzle pattern", rule is not None),
                                             ("allocation", smem is not None)) if on)
        out.append(Assumption("tile_base", f"the tile (its {parts}) starts at {base:#x}, the "
                              f"start rounded down to a {ROW_BYTES}-B row", "--tile-base",
                              tuple(alts)))
    if op.instr and op.name and not major_given and facts.takes_imm_trans(spec, op.dtype):
        alts = []
        try:
            mn = resolve(spec, instr=op.instr, operand=op.name, form=op.form, major="MN")
        except ExplainError:
            mn = None
        if mn is not None:
            other = explain_descriptor(spec, mn, value, tile_base=e.context.tile_base,
                                       smem_bytes=smem, evidence_ids=evidence_ids)
            if other.verdict != e.verdict:
                alts.append(Otherwise("--major MN", f"imm-trans-{op.name.lower()} = 1",
                                      other.verdict))
        out.append(Assumption("major", f"K-major, imm-trans-{op.name.lower()} = 0", "--major",
                              tuple(alts)))
    return tuple(out)


def _layout_verdict(got: Synthesis | Refusal) -> str:
    if isinstance(got, Synthesis):
        return f"descriptor {got.desc.value:#018x} reads it"
    return "no descriptor reads it"


def layout_assumptions(spec: Spec, text: str, op: Operand, got: Synthesis | Refusal, *,
                       majors: tuple[str, ...], start: int, start_given: bool,
                       instr_given: bool) -> tuple[Assumption, ...]:
    """What `explain layout` assumed for `got`, and the verdicts had it assumed otherwise."""
    ul = got.layout
    out = []
    if not start_given:
        out.append(Assumption("start", f"the tile starts at {start:#x}", "--start-address"))
    if ul.swizzle is not None and ul.unit_source == ASSUMED:
        alts = []
        try:
            other: Synthesis | Refusal | None = synthesize(
                spec, text, op, majors=majors, start=start, swizzle_unit="elements",
                suggest=False)
        except ValueError:  # ExplainError and NotationError among them
            other = None
        if other is not None and isinstance(other, Synthesis) != isinstance(got, Synthesis):
            alts.append(Otherwise("--swizzle-unit elements", "its swizzle on the element "
                                  "offsets as written", _layout_verdict(other)))
        out.append(Assumption("swizzle_unit", "its swizzle acts on byte addresses, as CuTe's "
                              "smem pointer swizzle does (the print has no smem_ptr flag or "
                              "pointer to say so)",
                              "--swizzle-unit", tuple(alts)))
    if not instr_given:
        out.append(Assumption("operand", f"one operand of the whole {ul.mn}x{ul.k} tile",
                              "--instr I --operand A|B"))
    return tuple(out)


__all__ = ["Assumption", "Otherwise", "descriptor_assumptions", "layout_assumptions"]
