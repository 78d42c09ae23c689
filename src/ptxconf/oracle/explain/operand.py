"""Which shared-memory operand a user means: from an instruction and A/B, or from flags.

An instruction gives everything: the element type (its .atype or .btype), the extents (A is
M x K with M = `facts.wgmma_m`, B is N x K, N and K from the name) and the major-ness (K, as
imm-trans = 0 selects, unless the user says MN). Without one, --dtype, --major, --mn and --k
name the operand. Refusals are `ExplainError`s: `CODE - message`, one line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ptxconf.oracle import canonical, facts
from ptxconf.oracle.banks import CORE_ROWS
from ptxconf.oracle.canonical import BITS_PER_BYTE
from ptxconf.oracle.domain import DomainError, check_major
from ptxconf.oracle.instructions import resolve as resolve_instr
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec

#: The operand forms of an instruction: SS (A and B in shared memory), RS (A in registers).
FORMS = ("SS", "RS")


class ExplainError(ValueError):
    """A question explain does not answer: `CODE - message`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code} - {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Operand:
    """A wgmma shared-memory operand: mn x k elements of dtype, K- or MN-major."""

    dtype: str
    major: str
    mn: int
    k: int
    bits: int
    name: str | None = None
    instr: str | None = None
    form: str = "SS"

    @property
    def elem_bytes(self) -> int:
        """Bytes one element takes."""
        return self.bits // BITS_PER_BYTE

    @property
    def imm_trans(self) -> int:
        """The imm-trans immediate that selects this major-ness (1: MN-major)."""
        return int(self.major == "MN")

    def describe(self) -> str:
        """One line: what the operand is and where it comes from."""
        what = f"{self.mn}x{self.k} {self.dtype}, {self.major}-major"
        if self.instr and self.name:
            return (f"operand {self.name} of {self.instr} ({what}, imm-trans-{self.name.lower()} "
                    f"= {self.imm_trans})")
        return what

    def cli(self) -> str:
        """The flags that name this operand on the command line."""
        if self.instr and self.name:
            text = f"--instr {self.instr} --operand {self.name}"
            return text + (" --major MN" if self.major == "MN" else "")
        return f"--dtype {self.dtype} --major {self.major} --mn {self.mn} --k {self.k}"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"dtype": self.dtype, "major": self.major, "mn": self.mn, "k": self.k,
                "bits": self.bits, "operand": self.name, "instr": self.instr, "form": self.form,
                "imm_trans": self.imm_trans}


def _split_form(instr: str, form: str | None) -> tuple[str, str]:
    """`name` or `name:RS` (as the GPU case ids spell it), and the form."""
    text = instr.strip()
    head, sep, tail = text.rpartition(":")
    if sep and tail.upper() in FORMS:
        if form and form.upper() != tail.upper():
            raise ExplainError("EXPLAIN-OPERAND", f"--form {form} disagrees with {text!r}")
        return head, tail.upper()
    return text, (form or "SS").upper()


def _template_k_step(spec: Spec, major: str, dtype: str) -> int:
    """The K extent of one repeat of the major-ness's templates (every swizzle mode's lcm)."""
    t = canonical.t_elems(spec, dtype)
    steps = [canonical.repeat_extents(r, t)[1] for r in _rows(spec, major)]
    return math.lcm(*steps)


def _rows(spec: Spec, major: str) -> list[Any]:

    return [r for r in spec.of(CanonicalLayout) if r.major == major]


def resolve(spec: Spec, *, instr: str | None = None, operand: str | None = None,
            form: str | None = None, dtype: str | None = None, major: str | None = None,
            mn: int | None = None, k: int | None = None) -> Operand:
    """The operand an instruction and A/B name, or --dtype/--major/--mn/--k (ExplainError)."""
    name = instr_name = None
    frm = "SS"
    if instr:

        text, frm = _split_form(instr, form)
        if frm not in FORMS:
            raise ExplainError("EXPLAIN-OPERAND", f"expected form SS or RS, got {frm}")
        if operand not in ("A", "B"):
            raise ExplainError("EXPLAIN-OPERAND", "--instr needs --operand A or B")
        if mn is not None or k is not None:
            raise ExplainError("EXPLAIN-OPERAND", "--mn/--k come from the instruction: give "
                               "--instr or --dtype/--major/--mn/--k, not both")
        if operand == "A" and frm == "RS":
            raise ExplainError("EXPLAIN-RS-OPERAND", (
                f"operand A of {text} in the RS form is in registers (ptxconf oracle fragment "
                "--operand A): no shared-memory descriptor reads it"))
        res = resolve_instr(text, spec)
        own = res.itype.atype if operand == "A" else res.itype.btype
        if dtype is not None and dtype != own:
            raise ExplainError("EXPLAIN-OPERAND", f"--dtype {dtype}: operand {operand} of {text} "
                               f"is .{own}")
        dtype = own
        mn = facts.wgmma_m(spec) if operand == "A" else res.instr.n
        k = res.instr.k
        major = major or "K"
        name, instr_name = operand, text
    missing = [f"--{n}" for n, v in (("dtype", dtype), ("major", major), ("mn", mn), ("k", k))
               if v is None]
    if missing:
        raise ExplainError("EXPLAIN-OPERAND", f"give --instr and --operand, or {', '.join(missing)}")
    assert dtype is not None and major is not None and mn is not None and k is not None
    if dtype not in facts.element_types(spec):
        raise ExplainError("DOMAIN-DTYPE", f"expected dtype one of "
                           f"{', '.join(facts.element_types(spec))}, got {dtype!r}")
    bits = spec.element_bits(dtype)
    if bits % BITS_PER_BYTE:
        raise ExplainError("EXPLAIN-SUB-BYTE", (
            f"{dtype} is {bits}-bit: its shared-memory offsets count bits, and explain works in "
            "bytes (ptxconf oracle smem-offsets answers it)"))
    if major not in ("K", "MN"):
        raise ExplainError("DOMAIN-MAJOR", f"expected major K or MN, got {major!r}")
    try:
        check_major(spec, dtype, major)
    except DomainError as e:
        raise ExplainError(e.code, e.message) from None
    if mn <= 0 or mn % CORE_ROWS:
        raise ExplainError("DOMAIN-SHAPE", f"expected mn a positive multiple of {CORE_ROWS}, "
                           f"got {mn}")
    step = _template_k_step(spec, major, dtype)
    if k <= 0 or k % step:
        raise ExplainError("DOMAIN-SHAPE", f"expected k a positive multiple of {step} "
                           f"({major}-major repeats of {dtype}), got {k}")
    return Operand(dtype, major, mn, k, bits, name, instr_name, frm)


__all__ = ["FORMS", "ExplainError", "Operand", "resolve"]
