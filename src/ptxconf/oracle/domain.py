"""The oracle's domain is the hardware's: which questions `smem-offsets` and `descriptor encode`
answer, each refusal naming the rule it breaks.

A refusal is a `DomainError` (a ValueError): `RULE - expected X, got Y`, one line. An answer
that is defined but suspect is given with `DomainWarning`s (`warnings` in the JSON output).
Every number comes from the spec: the descriptor's field widths and granule
(spec/wgmma/matrix_descriptor.yaml), the start alignment (smem_alignment.yaml), the swizzle
repeat and base-offset field (base_offset.yaml), the swizzle-row width (swizzle_atoms.yaml), the
K and N an instruction reads (instruction_types.yaml, register_fragments.yaml), and what LBO /
SBO step along (the canonical templates and the LBO/SBO definition tables).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ptxconf.oracle import canonical, facts, hypotheses
from ptxconf.oracle.descriptor import DescriptorFormat, descriptor_format
from ptxconf.oracle.records import (
    AlignmentRule,
    BaseOffsetRule,
    ByteOffsetDefinition,
    CanonicalLayout,
    InstructionType,
    RegisterFragment,
    SwizzleAtom,
    atom_name,
)
from ptxconf.oracle.spec import Spec

#: Every rule code, and what it asks. Refusals unless marked "warning".
RULES: dict[str, str] = {
    "DOMAIN-DTYPE": "the element type is a row of the spec's element-types table",
    "DOMAIN-SWIZZLE": "the swizzle mode is one the spec defines",
    "DOMAIN-MAJOR": "MN-major only for element types wgmma takes imm-trans for",
    "DOMAIN-SHAPE": "mn and k positive, whole multiples of the N step and K an instruction reads",
    "DOMAIN-SIZE": "mn at most the largest M or N an instruction reads, the operand within the "
                   "descriptor's address range",
    "DOMAIN-K-INJECTIVE": "a K-major swizzled operand's K extent fits one swizzle row",
    "DOMAIN-LBO-RANGE": "LBO within 0 .. the 14-bit field's largest value",
    "DOMAIN-LBO-GRANULE": "LBO a multiple of the field's 16-byte granule",
    "DOMAIN-LBO-ZERO": "LBO > 0 where the operand takes an LBO step",
    "DOMAIN-SBO-RANGE": "SBO within 0 .. the 14-bit field's largest value",
    "DOMAIN-SBO-GRANULE": "SBO a multiple of the field's 16-byte granule",
    "DOMAIN-SBO-ZERO": "SBO > 0 where the operand takes an SBO step",
    "DOMAIN-START-RANGE": "the start address within the descriptor's address range",
    "DOMAIN-START-ALIGN": "the start address aligned as the PTX ISA requires",
    "DOMAIN-BASE-ALIGN": "the start modulo the swizzle repeat aligned as the start must be",
    "DOMAIN-BASE-RANGE": "the start modulo the swizzle repeat below the repeat",
    "DOMAIN-BASE-FIELD-RANGE": "the base-offset field within its bit width",
    "DOMAIN-LBO-IGNORED": "warning: LBO set where the spec says it is not used",
    "DOMAIN-ALIAS": "warning: the answer puts two elements at one address",
    "DOMAIN-NO-INSTRUCTION": "warning: no wgmma instruction in the spec reads this element type",
}


class DomainError(ValueError):
    """A question outside the hardware's domain: `RULE - expected X, got Y`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code} - {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class DomainWarning:
    """A defined but suspect answer, labelled."""

    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        """{"code", "message"}, as the JSON output carries it."""
        return {"code": self.code, "message": self.message}

    def __str__(self) -> str:
        return f"{self.code} - {self.message}"


# --- what the spec defines ----------------------------------------------------------------------


#: The spec's element types and the swizzle modes its canonical layouts are written for.
element_types = facts.element_types
swizzle_modes = facts.swizzle_modes


def descriptor_swizzles(spec: Spec) -> tuple[str, ...]:
    """The swizzle modes the descriptor's layout-type field encodes."""
    return tuple(descriptor_format(spec).field("layout_type").codes or {})


def _one_of(code: str, what: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise DomainError(code, f"expected {what} one of {', '.join(allowed)}, got {value!r}")


def _instructions(spec: Spec, dtype: str) -> tuple[InstructionType, ...]:
    return tuple(r for r in spec.of(InstructionType) if dtype in (r.atype, r.btype))


def _start_alignment(spec: Spec) -> int:
    """The operand start alignment in bytes (the strictest wgmma smem rule)."""
    rules = [r.alignment_bytes for r in spec.of(AlignmentRule)
             if r.applies_to.startswith("wgmma")]
    return max(rules) if rules else 1


def _field_max(fmt: DescriptorFormat, name: str) -> int:
    """The largest value (caller's units) the field stores, within its address range."""
    f = fmt.field(name)
    top = fmt.max_value(name)
    if f.address_bits is not None:
        top = min(top, (1 << f.address_bits) - (1 << f.encode_shift_bits))
    return top


def _check_stride(fmt: DescriptorFormat, name: str, field: str, value: int) -> None:
    """LBO / SBO: within the field, a multiple of its granule."""
    top = _field_max(fmt, field)
    f = fmt.field(field)
    if not 0 <= value <= top:
        raise DomainError(f"DOMAIN-{name}-RANGE",
                          f"expected {name} in 0..{top} bytes (the {f.width_bits}-bit "
                          f"{field} field stores value >> {f.encode_shift_bits}), got {value}")
    granule = 1 << f.encode_shift_bits
    if value % granule:
        raise DomainError(f"DOMAIN-{name}-GRANULE",
                          f"expected {name} a multiple of {granule} bytes (the field stores "
                          f"value >> {f.encode_shift_bits}), got {value}")


def _check_base_field(fmt: DescriptorFormat, value: int) -> None:
    f = fmt.field("base_offset")
    top = _field_max(fmt, "base_offset")
    if not 0 <= value <= top:
        raise DomainError("DOMAIN-BASE-FIELD-RANGE",
                          f"expected base-offset field in 0..{top} (its {f.width_bits}-bit "
                          f"width), got {value}")


# --- descriptor encode --------------------------------------------------------------------------


def check_descriptor(spec: Spec, *, start_address_bytes: int, lbo_bytes: int, sbo_bytes: int,
                     swizzle: str, base_offset: int) -> None:
    """Refuse what `descriptor encode` cannot store or the hardware never reads."""
    fmt = descriptor_format(spec)
    _one_of("DOMAIN-SWIZZLE", "swizzle", swizzle, descriptor_swizzles(spec))
    f = fmt.field("start_address")
    top = _field_max(fmt, "start_address")
    if not 0 <= start_address_bytes <= top:
        raise DomainError("DOMAIN-START-RANGE",
                          f"expected start address in 0..{top:#x} bytes, got {start_address_bytes:#x}")
    align = max(_start_alignment(spec), 1 << f.encode_shift_bits)
    if start_address_bytes % align:
        raise DomainError("DOMAIN-START-ALIGN",
                          f"expected a start address aligned to {align} bytes, got "
                          f"{start_address_bytes:#x}")
    _check_stride(fmt, "LBO", "leading_byte_offset", lbo_bytes)
    _check_stride(fmt, "SBO", "stride_byte_offset", sbo_bytes)
    _check_base_field(fmt, base_offset)


# --- smem-offsets -------------------------------------------------------------------------------


def _granules(spec: Spec, q: canonical.SmemQuery, per_k: int) -> tuple[int, int, str | None]:
    """(MN step, K step) the operand must be a multiple of, and what they come from (None:
    no instruction reads this type; the template's K repeat and the spec's N step are used)."""
    instrs = _instructions(spec, q.dtype)
    frags = {r.id: r for r in spec.of(RegisterFragment)}
    pool = instrs or spec.of(InstructionType)
    ns = [n for r in pool if r.fragment_d in frags
          for n in (frags[r.fragment_d].valid_n_values() or ())]
    mn_step = math.gcd(*ns) if ns else 1
    if not instrs:
        return mn_step, per_k, None
    k_step = math.lcm(math.gcd(*(r.k_elems for r in instrs)), per_k)
    return mn_step, k_step, instrs[0].id


def _steps(row: CanonicalLayout, t: int, q: canonical.SmemQuery) -> tuple[int, int]:
    """How many LBO and SBO steps reach the operand's last element (0: the field is unused)."""
    m, k = canonical.covering_repeats(row, t, q.mn, q.k)
    corner = (q.mn - 1, q.k - 1)
    base = canonical.instantiate(row, t, m, k, 0, 0)(corner)
    n_lbo = canonical.instantiate(row, t, m, k, 1, 0)(corner) - base
    n_sbo = canonical.instantiate(row, t, m, k, 0, 1)(corner) - base
    roles = hypotheses.reading(hypotheses.MN_LBO_SBO_ROLES, q.mn_lbo_sbo_roles)
    if roles == "swapped" and q.major == "MN" and q.swizzle != "none":
        n_lbo, n_sbo = n_sbo, n_lbo
    return n_lbo, n_sbo


def _definition(spec: Spec, offset: str, q: canonical.SmemQuery) -> ByteOffsetDefinition | None:
    for r in spec.of(ByteOffsetDefinition):
        if r.offset == offset and r.major == q.major and q.swizzle in r.swizzles:
            return r
    return None


def _check_size(spec: Spec, fmt: DescriptorFormat, q: canonical.SmemQuery, bits: int) -> None:
    """Bound the query by what one descriptor can describe: mn at most the largest M or N an
    instruction reads (register_fragments valid N, facts.wgmma_m), and mn x k elements within
    the start-address field's range (the shared memory a descriptor can address)."""
    ns = [n for r in spec.of(RegisterFragment) for n in (r.valid_n_values() or ())]
    mn_max = max([facts.wgmma_m(spec), *ns])
    if q.mn > mn_max:
        raise DomainError("DOMAIN-SIZE", f"expected mn <= {mn_max} (the largest M or N a wgmma "
                          f"instruction reads), got {q.mn}")
    span_bytes = _field_max(fmt, "start_address") + _start_alignment(spec)
    need_bits = q.mn * q.k * bits
    if need_bits > span_bytes * canonical.BITS_PER_BYTE:
        raise DomainError("DOMAIN-SIZE", f"expected mn x k within the {span_bytes} bytes a "
                          f"descriptor addresses, got {q.mn}x{q.k} {q.dtype} = "
                          f"{need_bits // canonical.BITS_PER_BYTE} bytes")


def check_major(spec: Spec, dtype: str, major: str) -> None:
    """DOMAIN-MAJOR: MN-major only for element types wgmma takes imm-trans for (DomainError)."""
    if major != "K" and not facts.takes_imm_trans(spec, dtype):
        raise DomainError("DOMAIN-MAJOR", f"expected K for {dtype} (wgmma takes no imm-trans "
                          f"for it: wgmma/instruction_operands, imm-trans-a), got {major}")


def check_smem(spec: Spec, q: canonical.SmemQuery) -> list[DomainWarning]:
    """Refuse a query outside the hardware's domain (DomainError, the first rule broken);
    return the warnings that do not depend on the offsets."""
    warnings: list[DomainWarning] = []
    _one_of("DOMAIN-DTYPE", "dtype", q.dtype, element_types(spec))
    _one_of("DOMAIN-SWIZZLE", "swizzle", q.swizzle, swizzle_modes(spec))
    majors = tuple(dict.fromkeys(r.major for r in spec.of(CanonicalLayout)
                                 if r.swizzle == q.swizzle))
    _one_of("DOMAIN-MAJOR", "major", q.major, majors)
    row = canonical.canonical_row(spec, q.major, q.swizzle)
    bits = spec.element_bits(q.dtype)
    t = canonical.t_elems(spec, q.dtype)
    check_major(spec, q.dtype, q.major)

    fmt = descriptor_format(spec)
    _check_stride(fmt, "LBO", "leading_byte_offset", q.lbo_bytes)
    _check_stride(fmt, "SBO", "stride_byte_offset", q.sbo_bytes)
    _check_base_field(fmt, q.base_offset_field)
    align = _start_alignment(spec)
    rule = next((r for r in spec.of(BaseOffsetRule) if r.swizzle == q.swizzle), None)
    top = rule.repeat_bytes - align if rule else _field_max(fmt, "start_address")
    where = f"the {q.swizzle} swizzle repeat" if rule else "the address range"
    if not 0 <= q.base_offset_bytes <= top:
        raise DomainError("DOMAIN-BASE-RANGE", f"expected base offset (start modulo {where}) "
                          f"in 0..{top} bytes, got {q.base_offset_bytes}")
    if q.base_offset_bytes % align:
        raise DomainError("DOMAIN-BASE-ALIGN", f"expected base offset a multiple of {align} "
                          f"bytes (operand starts are {align}-byte aligned), got "
                          f"{q.base_offset_bytes}")

    per_mn, per_k = canonical.repeat_extents(row, t)
    mn_step, k_step, source = _granules(spec, q, per_k)
    if source is None:
        warnings.append(DomainWarning("DOMAIN-NO-INSTRUCTION", (
            f"expected an element type some wgmma instruction reads, got {q.dtype}: answered "
            f"with K in steps of the template's repeat ({per_k})")))
    if q.mn <= 0 or q.mn % mn_step:
        raise DomainError("DOMAIN-SHAPE", f"expected mn a positive multiple of {mn_step} "
                          f"(the step of the valid-N tables), got {q.mn}")
    if q.k <= 0 or q.k % k_step:
        why = f"the K one instruction reads: {source}" if source else "the template's K repeat"
        raise DomainError("DOMAIN-SHAPE", f"expected k a positive multiple of {k_step} "
                          f"({why}), got {q.k}")
    _check_size(spec, fmt, q, bits)

    if q.major == "K" and q.swizzle != "none":
        atom = spec.get(SwizzleAtom, atom_name(q.major, q.swizzle))
        row_bits = atom.leading_u128 * canonical.NORMALIZED_BITS
        chunk = canonical.NORMALIZED_BITS // canonical.BITS_PER_BYTE
        if q.k * bits > row_bits:
            raise DomainError("DOMAIN-K-INJECTIVE", (
                f"expected k <= {row_bits // bits} (one {q.swizzle} swizzle row of "
                f"{atom.leading_u128} {chunk}-byte chunks; past it chunk {atom.leading_u128} of row r "
                f"is chunk 0 of row r+1: proof.layout_injective[{row.key}]), got {q.k}"))

    n_lbo, n_sbo = _steps(row, t, q)
    for name, value, steps in (("LBO", q.lbo_bytes, n_lbo), ("SBO", q.sbo_bytes, n_sbo)):
        if steps and value == 0:
            d = _definition(spec, name, q)
            what = f" ({d.text})" if d else ""
            raise DomainError(f"DOMAIN-{name}-ZERO", (
                f"expected {name} > 0: this {q.mn}x{q.k} {row.id} operand takes {steps} {name} "
                f"step(s){what}, got 0"))

    lbo_def = _definition(spec, "LBO", q)
    if lbo_def is not None and not lbo_def.used and lbo_def.assumed_u128 is not None:
        assumed = lbo_def.assumed_u128 * canonical.NORMALIZED_BITS // canonical.BITS_PER_BYTE
        if q.lbo_bytes != assumed and not n_lbo:
            warnings.append(DomainWarning("DOMAIN-LBO-IGNORED", (
                f"expected LBO {assumed} ({lbo_def.id}: {lbo_def.text}), got {q.lbo_bytes}: "
                f"answered as if ignored (k_swizzled_lbo=ignored, as H100 silicon did)")))
    return warnings


def alias_warning(offsets: list[list[int]], units: str) -> DomainWarning | None:
    """A warning naming two elements at one address, or None when the answer is injective."""
    seen: dict[int, tuple[int, int]] = {}
    first: tuple[tuple[int, int], tuple[int, int], int] | None = None
    for i, line in enumerate(offsets):
        for j, off in enumerate(line):
            if off in seen and first is None:
                first = (seen[off], (i, j), off)
            seen.setdefault(off, (i, j))
    if first is None:
        return None
    a, b, off = first
    total = sum(len(line) for line in offsets)
    return DomainWarning("DOMAIN-ALIAS", (
        f"expected {total} distinct addresses, got {len(seen)}: (mn {a[0]}, k {a[1]}) and "
        f"(mn {b[0]}, k {b[1]}) both at {off:#x} {units}"))


def smem_answer(spec: Spec, q: canonical.SmemQuery) -> dict[str, Any]:
    """`ptxconf oracle smem-offsets`' answer: refused (DomainError) or given with `warnings`."""
    warnings = check_smem(spec, q)
    out = canonical.smem_offsets_query(spec, q)
    alias = alias_warning(out["offsets"], out["units"])
    if alias is not None:
        warnings.append(alias)
    out["warnings"] = [w.as_dict() for w in warnings]
    return out
