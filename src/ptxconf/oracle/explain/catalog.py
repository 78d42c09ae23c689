"""The classic descriptor mistakes: a stable code each, the rule it breaks, the spec rows that
state the rule (file:line) and the evidence behind it (case ids of the registry: proofs and
silicon).

Evidence ids are looked up among the case ids the caller's providers list (`known_ids`: the
GPU families' ids need no GPU to list; the oracle does not know the providers); the proof ids
are built from the rows they are generated from (conformance/test_explain.py checks each one
against the proofs' claims).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from ptxconf.oracle.records import (
    BaseOffsetRule,
    ByteOffsetDefinition,
    CanonicalLayout,
    DescriptorField,
    Row,
    SwizzleAtom,
    atom_name,
)
from ptxconf.oracle.spec import Spec

from .operand import Operand


@dataclass(frozen=True)
class Entry:
    """One kind of mistake."""

    code: str
    title: str
    rule: str


CATALOG: dict[str, Entry] = {e.code: e for e in (
    Entry("EXPLAIN-LBO-SBO-SWAPPED", "LBO and SBO swapped",
          "K-major: SBO is the byte offset from one 8-row group to the next along M/N; LBO is the "
          "offset between the two core matrices along K without a swizzle, and is not used by "
          "swizzled layouts. MN-major without a swizzle: SBO steps along MN, LBO along K."),
    Entry("EXPLAIN-MN-ROLES-SWAPPED", "MN-major LBO/SBO roles swapped",
          "MN-major swizzled layouts invert the K-major roles: LBO steps from one swizzle-width "
          "group of MN to the next, SBO from one 8-row group of K to the next (silicon agrees: "
          "mn_lbo_sbo_roles = as_documented)."),
    Entry("EXPLAIN-START-MISALIGNED", "start not aligned to the swizzle repeat",
          "A swizzled operand whose start is not on its swizzle repeat (256/512/1024 B for "
          "32B/64B/128B) needs the base-offset field (start >> 7) & 7: on an H100 the hardware "
          "swizzles start + offset - (field << 7), so with the field 0 the XOR pattern follows "
          "the absolute address, and with the field per the rule it restarts at the start's "
          "128-byte row."),
    Entry("EXPLAIN-BASE-OFFSET-PHASE", "base-offset field moves an aligned tile's pattern",
          "On an H100 the base-offset field is not informative: it moves the swizzle phase by "
          "field << 7 bytes. A tile whose pattern starts on the swizzle repeat needs field 0."),
    Entry("EXPLAIN-SWIZZLE-MODE", "wrong swizzle mode for the tile",
          "The layout-type field must name the swizzle the tile was written with: an 8-row "
          "group of a K-major NB-swizzled tile is 8 rows of N bytes (SBO = 8N for a packed tile)."),
    Entry("EXPLAIN-K-BEYOND-ROW", "K extent beyond one swizzle row",
          "A K-major swizzled operand's K extent must fit one swizzle row (2k x 16 B <= the "
          "swizzle width, proved): past it chunk c of row r is chunk 0 of row r + 1."),
    Entry("EXPLAIN-IGNORED-FIELD", "a field the hardware ignores set to a meaningful value",
          "K-major swizzled layouts do not use LBO ('not used, assumed to be 1'; an H100 gives "
          "the same D for any LBO); the base-offset field is defined for swizzled layouts only "
          "(an H100 ignores it without a swizzle). A value there is a stride or a phase that "
          "was meant to do something and does nothing."),
    Entry("EXPLAIN-OVERRUN", "the operand overruns its allocation",
          "Every byte the tensor core reads must lie in the tile's allocation; a read past it "
          "takes another buffer's data (or faults: an H100 raised cudaErrorIllegalAddress past "
          "the dynamic shared memory)."),
    Entry("EXPLAIN-STRIDE-ZERO", "LBO or SBO zero where the operand takes a step",
          "An operand that spans two 8-row groups (or two K core matrices) takes an SBO (or "
          "LBO) step: 0 puts both groups at one address."),
    Entry("EXPLAIN-STRIDE", "LBO or SBO wrong for the tile",
          "LBO and SBO are the byte distances between the tile's repeats; a packed tile of "
          "this shape has the values the fix gives (ptxconf.oracle.interpret.compact_strides)."),
    Entry("EXPLAIN-NO-FIX", "no nearby descriptor reads this operand",
          "None of the descriptors searched (same start; every swizzle mode; LBO/SBO among "
          "yours, swapped, and the packed values; base-offset field 0 or per the rule) reads "
          "the operand injectively, inside the allocation, with its pattern at the tile base."),
)}


def spec_ref(spec: Spec, row: Row) -> str:
    """`spec/<file>:<line> (<key>)`: where a row is written."""
    return f"{spec.root.name}/{row.file}:{row.line} ({row.key})"


def _offset_def(spec: Spec, offset: str, major: str, swizzle: str) -> ByteOffsetDefinition | None:
    return next((r for r in spec.of(ByteOffsetDefinition) if r.offset == offset
                 and r.major == major and swizzle in r.swizzles), None)


def rows_for(spec: Spec, code: str, op: Operand, swizzle: str,
             other_swizzle: str | None = None, ignored: str | None = None,
             fields: tuple[str, ...] = ("lbo", "sbo")) -> list[Row]:
    """The spec rows that state a mistake's rule for this operand (swizzle: the user's mode;
    other_swizzle: the mode of the fix, where it differs; ignored: the ignored field; fields:
    the fields the fix changes)."""
    canon = spec.get(CanonicalLayout, atom_name(op.major, swizzle))
    field_row = {f.id: f for f in spec.in_file(DescriptorField, "wgmma/matrix_descriptor.yaml")}
    out: list[Row | None] = []
    if code in ("EXPLAIN-LBO-SBO-SWAPPED", "EXPLAIN-MN-ROLES-SWAPPED", "EXPLAIN-STRIDE-ZERO",
                "EXPLAIN-STRIDE", "EXPLAIN-OVERRUN"):
        out += [_offset_def(spec, name.upper(), op.major, swizzle) for name in ("lbo", "sbo")
                if name in fields]
        out.append(canon)
    elif code in ("EXPLAIN-START-MISALIGNED", "EXPLAIN-BASE-OFFSET-PHASE"):
        out += [r for r in spec.of(BaseOffsetRule) if r.swizzle == swizzle]
        out += [field_row.get("base_offset")]
    elif code == "EXPLAIN-SWIZZLE-MODE":
        out += [field_row.get("layout_type"), canon]
        if other_swizzle:
            out.append(spec.get(CanonicalLayout, atom_name(op.major, other_swizzle)))
        out.append(_offset_def(spec, "SBO", op.major, swizzle))
    elif code == "EXPLAIN-K-BEYOND-ROW":
        out += [spec.get(SwizzleAtom, atom_name(op.major, swizzle)), canon]
    elif code == "EXPLAIN-IGNORED-FIELD":
        if ignored == "base_offset":
            out += [field_row.get("base_offset"), *spec.of(BaseOffsetRule)]
        else:
            out += [_offset_def(spec, "LBO", op.major, swizzle)]
    else:
        out.append(canon)
    seen: dict[str, Row] = {}
    for r in out:
        if r is not None:
            seen.setdefault(r.key, r)
    return list(seen.values())


# --- evidence ------------------------------------------------------------------------------------


def proof_id(claim: str, row: Row, suffix: str = "") -> str:
    """A proof case id as the proofs name it: proof.<claim>[<row key><suffix>]."""
    return f"proof.{claim}[{row.key}{suffix}]"


def pick(ids: Iterable[str], prefix: str, *needles: str, prefer: tuple[str, ...] = ()) -> str | None:
    """The first id that starts with `prefix` and holds every needle; ids holding more of
    `prefer` (in order) first."""
    found = [i for i in ids if i.startswith(prefix) and all(n in i for n in needles)]
    if not found:
        return None
    return max(found, key=lambda i: [p in i for p in prefer])


#: The GPU gallery case (ptxconf.gpu.families.mistakes) that shows each mistake on silicon;
#: {swizzle} is the user's mode.
GALLERY: dict[str, str] = {
    "EXPLAIN-LBO-SBO-SWAPPED": "lbo_sbo_swapped",
    "EXPLAIN-MN-ROLES-SWAPPED": "mn_roles_swapped",
    "EXPLAIN-START-MISALIGNED": "start_misaligned_{swizzle}",
    "EXPLAIN-SWIZZLE-MODE": "wrong_swizzle_mode",
    "EXPLAIN-K-BEYOND-ROW": "k_beyond_swizzle_row",
    "EXPLAIN-OVERRUN": "overrun",
    "EXPLAIN-STRIDE-ZERO": "sbo_zero",
}


def evidence(spec: Spec, code: str, op: Operand, swizzle: str, *, fix_swizzle: str | None = None,
             start: int = 0, field_value: int = 0, ignored: str | None = None,
             known_ids: Collection[str] = ()) -> list[str]:
    """The case ids behind a mistake's rule, most direct first; last the GPU gallery case
    that shows the mistake and its fix: proof ids always, GPU case ids where `known_ids` (the
    ids the caller's providers list: ptxconf.app.providers.gpu_case_ids) holds them."""
    ids = known_ids
    canon = spec.get(CanonicalLayout, atom_name(op.major, swizzle))
    fix_canon = spec.get(CanonicalLayout, atom_name(op.major, fix_swizzle or swizzle))
    operand = op.name or "A"
    prefer = tuple(x for x in (f":{operand}:", f".{op.dtype}.", op.instr) if x)
    out: list[str | None] = []

    def smem_map(atom: str) -> str | None:
        return pick(ids, "gpu.smem_map[", f":{atom}]", prefer=prefer)

    if code in ("EXPLAIN-LBO-SBO-SWAPPED", "EXPLAIN-STRIDE-ZERO", "EXPLAIN-STRIDE",
                "EXPLAIN-OVERRUN"):
        out += [proof_id("layout_injective", canon), smem_map(canon.id)]
        if code == "EXPLAIN-LBO-SBO-SWAPPED" and op.major == "K" and swizzle != "none":
            out.append(pick(ids, "gpu.address.unused_lbo[", f":{canon.id}]", prefer=prefer))
    elif code == "EXPLAIN-MN-ROLES-SWAPPED":
        out += ["gpu.hypothesis[mn_lbo_sbo_roles]", proof_id("layout_injective", canon),
                proof_id("distinguish_mn_lbo_sbo_roles", canon, ".f16"), smem_map(canon.id)]
    elif code in ("EXPLAIN-START-MISALIGNED", "EXPLAIN-BASE-OFFSET-PHASE"):
        rule = next(r for r in spec.of(BaseOffsetRule) if r.swizzle == swizzle)
        offset = start % rule.repeat_bytes
        out += ["gpu.hypothesis[base_offset]",
                pick(ids, "gpu.address.start[", f":{canon.id}:+{offset}:base_offset={field_value}]"),
                pick(ids, "gpu.address.start[", f":{canon.id}:+{offset}:"),
                proof_id("base_alignment", rule)]
    elif code in ("EXPLAIN-SWIZZLE-MODE", "EXPLAIN-K-BEYOND-ROW"):
        out += [proof_id("layout_injective", canon), smem_map(fix_canon.id)]
    elif code == "EXPLAIN-IGNORED-FIELD":
        if ignored == "base_offset":
            out += [pick(ids, "gpu.address.unused_base_offset[", f":{canon.id}]")]
        else:
            out += ["gpu.hypothesis[k_swizzled_lbo]",
                    pick(ids, "gpu.address.unused_lbo[", f":{canon.id}]", prefer=prefer)]
    else:
        out.append(proof_id("layout_injective", canon))
    gallery = GALLERY.get(code)
    if code == "EXPLAIN-IGNORED-FIELD":
        gallery = "ignored_base_offset" if ignored == "base_offset" else "ignored_lbo"
    if gallery:
        out.append(f"gpu.mistake[{gallery.format(swizzle=swizzle)}]")
    got = list(dict.fromkeys(x for x in out if x))
    return [i for i in got if i.startswith("proof.") or i in ids]


def entry(code: str) -> Entry:
    """A catalog entry by code."""
    return CATALOG[code]


def as_dict(code: str) -> dict[str, Any]:
    """JSON-ready."""
    e = CATALOG[code]
    return {"code": e.code, "title": e.title, "rule": e.rule}


__all__ = ["CATALOG", "GALLERY", "Entry", "as_dict", "entry", "evidence", "pick", "proof_id",
           "rows_for", "spec_ref"]
