"""The ldmatrix / stmatrix examples (spec/warp/ldmatrix_examples.yaml, stmatrix_examples.yaml)
against the sections' own rows: each example's code and the comment above it say what the
shape table, the .num table and the syntax say (`warp.example`).

* the instruction is a form of the rows (a shape whose .trans is mandatory spelled without it is
  not), and the row's id is that form;
* its register vector is the declared `.reg .b32 d<N>` (or one `d`), N the form's registers, of
  the .num table's register width; the address register is 32 or 64 bits;
* the comment's count and shape ("Load two 8x8 matrices") are the form's; an element width it
  states ("of 6-bit elements") is one the type names (.b8x16.b6x16_p32: 8, 6); "transpose" or
  "column-major" where the form has .trans; "N-bit addressing" the address register's width;
  "generic addressing" where the instruction names no state space ("If no state space is
  provided, generic addressing is used").

A disagreement is the section contradicting itself: a spec discrepancy. `warp.examples_cover`:
every instruction of the shape tables has example rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from ptxconf.oracle import facts
from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle.checks.base import Case, discrepancy, fail, make_case
from ptxconf.oracle.records import WarpMatrixExample, WarpMatrixFragment, WarpMatrixShape
from ptxconf.oracle.spec import Spec

_COUNT = re.compile(r"\b(?P<n>a single|one|two|four) (?P<m>\d+)x(?P<k>\d+) matri", re.I)
COUNTS = {"a single": 1, "one": 1, "two": 2, "four": 4}
_ELEMENT_BITS = re.compile(r"of (?P<bits>\d+)-bit elements")
_ADDRESSING = re.compile(r"using (?:(?P<bits>\d+)-bit|(?P<generic>generic)) addressing")
_TRANS = re.compile(r"transpose|column-major")
#: `.reg .b32 d<4>;` or `.reg .b64 addr;`.
_REG = re.compile(r"\.reg \.b(?P<bits>\d+) (?P<name>\w+)(?:<(?P<n>\d+)>)?;")
_VECTOR = re.compile(r"\{(?P<names>[^}]*)\}")
_ADDRESS = re.compile(r"\[(?P<name>\w+)\]")
_WIDTHS = re.compile(r"b(?P<bits>\d+)")
ADDRESS_BITS = (32, 64)


def cases(spec: Spec) -> Iterator[Case]:
    """One case per example."""
    for ex in spec.of(WarpMatrixExample):
        yield make_case("warp.example", ex.key, partial(_example, spec, ex))
    for instruction in dict.fromkeys(s.instruction for s in spec.of(WarpMatrixShape)):
        yield make_case("warp.examples_cover", f"{WarpMatrixExample.KIND}:{instruction}",
                        partial(_cover, spec, instruction))


def _cover(spec: Spec, instruction: str) -> str:
    """Every instruction of the shape tables has its section's examples (a file of them deleted
    whole leaves the kind, and its findings, without a trace otherwise)."""
    mine = [e.id for e in spec.of(WarpMatrixExample) if e.id.split(".")[0] == instruction]
    if not mine:
        raise fail(f"no {instruction} example rows (spec/warp/{instruction}_examples.yaml): its "
                   "section's examples are rows")
    return f"{len(mine)} {instruction} examples"


def _form(spec: Spec, ex: WarpMatrixExample, opcode: str) -> tuple[lm.Form, str | None]:
    """The form the instruction spells, and None; or, for one its section does not allow (a
    .trans a shape forbids or requires), the form it would be and why it is not one (FAIL where
    the rows have no such shape or .num at all)."""
    try:
        return lm.form(spec, opcode), None
    except ValueError:
        pass
    try:
        head, shape, num, trans, kind = lm.parse_ptx(opcode)
    except ValueError as exc:
        raise fail(f"{ex.key}: {exc}") from None
    rows = [s for s in spec.of(WarpMatrixShape) if (s.instruction, s.shape) == (head, shape)]
    addr = lm.address_row(spec, head, num)
    if not rows or addr is None or num not in rows[0].nums or kind not in rows[0].types:
        raise fail(f"{ex.key}: {opcode}: no {head} rows give .{shape} .{num} .{kind}")
    frag = next((f for f in spec.of(WarpMatrixFragment) if f.id == rows[0].id), None)
    return (lm.Form(rows[0], addr, frag, trans, kind, facts.warp_threads(spec)),
            f"{rows[0].key} takes .trans {rows[0].trans}")


def _registers(ex: WarpMatrixExample, line: str) -> tuple[dict[str, tuple[int, list[str]]], list[str]]:
    """The declared registers (name -> (bits, the names it declares)) and the vector's names."""
    declared = {}
    for decl in ex.code:
        m = _REG.fullmatch(decl.strip())
        if m is None:
            continue
        n = m["n"]
        names = [f"{m['name']}{i}" for i in range(int(n))] if n else [m["name"]]
        declared[m["name"]] = (int(m["bits"]), names)
    vector = _VECTOR.search(line)
    if vector is None:
        raise fail(f"{ex.key}: {line!r} has no register vector {{...}}")
    return declared, [x.strip() for x in vector["names"].split(",")]


def _example(spec: Spec, ex: WarpMatrixExample) -> str:
    """Code and comment against the rows."""
    line = next((c for c in ex.code if c.split(".", 1)[0] in ("ldmatrix", "stmatrix")), None)
    if line is None:
        raise fail(f"{ex.key}: no ldmatrix / stmatrix line in {list(ex.code)}")
    opcode = line.split()[0]
    form, not_allowed = _form(spec, ex, opcode)
    if form.name != ex.id:
        raise fail(f"{ex.key}: the id names {ex.id}, the instruction spells {form.name}")
    declared, vector = _registers(ex, line)
    regs = next(((bits, names) for bits, names in declared.values() if names == vector), None)
    said: dict[str, tuple[object, object, str]] = {}
    if not_allowed is not None:
        said["trans"] = (form.trans, form.shape.trans,
                         f"{opcode} is no form of its section: {not_allowed}")
    if regs is None or len(vector) != form.registers or regs[0] != form.addresses.register_bits:
        said["registers"] = (vector, form.registers,
                             f"{{{', '.join(vector)}}} of {list(declared)}, where the form has "
                             f"{form.registers} {form.addresses.register_bits}-bit registers")
    address = _ADDRESS.search(line)
    addr_bits = declared.get(address["name"], (0, []))[0] if address else 0
    if addr_bits not in ADDRESS_BITS:
        said["address_bits"] = (addr_bits, list(ADDRESS_BITS),
                                f"a {addr_bits}-bit address register, not 32 or 64 bits")
    count = _COUNT.search(ex.comment)
    if count is None:
        raise fail(f"{ex.key}: the comment {ex.comment!r} names no count of m x n matrices")
    stated = [COUNTS[count["n"].lower()], int(count["m"]), int(count["k"])]
    shape = form.shape
    rows = [form.matrices, shape.m_elems, shape.n_elems]
    if stated != rows:
        said["matrices"] = (stated, rows, f"{stated[0]} {stated[1]}x{stated[2]} in the comment, "
                                          f"{rows[0]} {rows[1]}x{rows[2]} by the form")
    widths = sorted({int(w) for w in _WIDTHS.findall(form.type)})
    bits = _ELEMENT_BITS.search(ex.comment)
    if bits is not None and int(bits["bits"]) not in widths:
        said["element_bits"] = (int(bits["bits"]), widths,
                                f"{bits['bits']}-bit elements in the comment, .{form.type} holds "
                                f"{' or '.join(map(str, widths))}-bit ones")
    if _TRANS.search(ex.comment) and not form.trans:
        said["transposed"] = (True, False, "transposed in the comment, no .trans in the instruction")
    addressing = _ADDRESSING.search(ex.comment)
    shared = any(q.startswith("shared") for q in opcode.split(".")[1:])
    if addressing is not None and addressing["generic"] and shared:
        said["generic_addressing"] = (True, "shared", "generic addressing in the comment, a "
                                      "state space (.shared) in the instruction (\"If no state "
                                      "space is provided, generic addressing is used\")")
    if addressing is not None and addressing["bits"] and int(addressing["bits"]) != addr_bits:
        said["addressing_bits"] = (int(addressing["bits"]), addr_bits,
                                   f"{addressing['bits']}-bit addressing in the comment, a "
                                   f"{addr_bits}-bit address register in the code")
    if said:
        fields: dict[str, Any] = {k: [a, b] for k, (a, b, _) in said.items()}
        fields["disagree"] = sorted(said)  # pins what else agrees: a finding names every key
        raise discrepancy(f"{ex.key}: the example contradicts its section: "
                          + "; ".join(text for _, _, text in said.values()), **fields)
    return (f"{opcode}: {form.matrices} {shape.m_elems}x{shape.n_elems} matrices in "
            f"{{{', '.join(vector)}}}, as the comment says")
