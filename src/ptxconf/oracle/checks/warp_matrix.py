"""ldmatrix / stmatrix rows against themselves (spec/warp/*.yaml): the PTX ISA's shape table,
.num table and fragment sentences add up, and every form the oracle derives is a bijection.

* `warp.shape`: the shape spells its m and n, each type its element width (a packed format,
  b6x16_p32, a row of n elements: 16 x 6 bits + 32 of padding = 16 bytes); one matrix fills
  registers_per_matrix registers of every lane (m x n x element bits = registers x register bits
  x lanes); the .num it takes are exactly those of the .num table whose registers, registers per
  matrix x matrices, are a vector the table gives ("1, 2, or 4 32-bit registers": so 16x16 takes
  only .x1 and .x2); its syntax lines spell it, its types and its .trans; a shape the harness's
  target has, has a fragment row, and the shapes past it share one target (the sections' Target
  ISA Notes give one list of architectures);
* `warp.addresses`: a .num row's count is its matrices and registers; its thread groups split
  the warp into groups of the eight addresses a matrix needs, the first `matrices` of them
  supplying addr0, addr1, ... in order, the others none; its registers are wgmma's width;
* `warp.addresses_agree`: stmatrix's .num table says what ldmatrix's says;
* `warp.fragment`: a row is row_bytes (n elements), which threads_per_row lanes' registers hold
  ("a group of four consecutive threads loads 16 bytes"), aligned to itself ("naturally
  aligned"), one address each;
* `warp.form`: each derivable form's fragment is a bijection from (lane, register, element) onto
  its matrices' elements, and each stored row has exactly one lane supplying its address.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import partial

from ptxconf.oracle import facts
from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle.canonical import BITS_PER_BYTE
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.records import WarpMatrixAddresses, WarpMatrixFragment, WarpMatrixShape
from ptxconf.oracle.spec import Spec

#: A type's element width: b16 -> 16, b8x16.b6x16_p32 -> 8 (its container, the first part).
_WIDTH = re.compile(r"[a-z]+(?P<bits>\d+)")
#: A packed format: b8x16 (16 8-bit elements), b6x16_p32 (16 6-bit elements, 32 bits padding).
_PACKED = re.compile(r"b(?P<bits>\d+)x(?P<count>\d+)(?:_p(?P<pad>\d+))?")
#: `.trans` spelled outside braces: the syntax line requires it.
_MANDATORY = re.compile(r"(?<!\{)\.trans(?!\})")


def cases(spec: Spec) -> Iterator[Case]:
    """One case per shape, .num row, fragment row and derivable form; one per .num both tables
    give."""
    for shape in spec.of(WarpMatrixShape):
        yield make_case("warp.shape", shape.key, partial(_shape, spec, shape))
    for row in spec.of(WarpMatrixAddresses):
        yield make_case("warp.addresses", row.key, partial(_addresses, spec, row))
    for st in spec.of(WarpMatrixAddresses):
        ld = lm.address_row(spec, "ldmatrix", st.num) if st.instruction == "stmatrix" else None
        if ld is not None:
            yield make_case("warp.addresses_agree", f"{st.key}~{ld.key}", partial(_agree, st, ld))
    for frag in spec.of(WarpMatrixFragment):
        yield make_case("warp.fragment", frag.key, partial(_fragment, spec, frag))
    for form in lm.forms(spec):
        yield make_case("warp.form", form.key, partial(_form, form))


def _register_bits(spec: Spec, instruction: str) -> int:
    """The register width of an instruction's .num table (one width, or FAIL)."""
    widths = {r.register_bits for r in spec.of(WarpMatrixAddresses) if r.instruction == instruction}
    if len(widths) != 1:
        raise fail(f"{instruction}'s .num table gives register widths {sorted(widths)}")
    return widths.pop()


def _shape(spec: Spec, shape: WarpMatrixShape) -> str:
    """Dimensions, type widths, registers, the .num it takes, the target's fragment row."""
    try:
        dims, target = lm.shape_dims(shape.shape), lm.target_number(shape.target)
    except ValueError as exc:
        raise fail(f"{shape.key}: {exc}") from None
    expect_equal("(m, n)", (shape.m_elems, shape.n_elems), dims, source=shape.key,
                 witness=f"the shape {shape.shape}")
    row_bits = shape.n_elems * shape.element_bits
    for field in ("types", "nums"):
        values = list(getattr(shape, field))
        if len(set(values)) != len(values):
            raise fail(f"{shape.key}: {field} {values} lists one twice", listed=values)
    for t in shape.types:
        m = _WIDTH.match(t)
        expect_equal(f"element width of .{t}", shape.element_bits, int(m["bits"]) if m else None,
                     source=shape.key, witness=f"the type name .{t}")
        for part in _PACKED.finditer(t):  # b6x16_p32: 16 6-bit elements, 32 bits of padding
            bits, count, pad = int(part["bits"]), int(part["count"]), int(part["pad"] or 0)
            expect_equal(f"bits of a row as .{part[0]}", row_bits, bits * count + pad,
                         source=shape.key, witness=f"{count} {bits}-bit elements + {pad} padding")
            expect_equal(f"elements of a row as .{part[0]}", shape.n_elems, count,
                         source=shape.key, witness=f"the type name .{part[0]}")
    bits, lanes = _register_bits(spec, shape.instruction), facts.warp_threads(spec)
    expect_equal("bits of one matrix", shape.m_elems * shape.n_elems * shape.element_bits,
                 shape.registers_per_matrix * bits * lanes, source=shape.key,
                 witness=f"{shape.registers_per_matrix} {bits}-bit registers x {lanes} lanes")
    table = [r for r in spec.of(WarpMatrixAddresses) if r.instruction == shape.instruction]
    vectors = sorted({r.registers for r in table})
    fits = [r.num for r in table if shape.registers_per_matrix * r.matrices in vectors]
    expect_equal(".num", list(shape.nums), fits, source=shape.key,
                 witness=f"the .num rows whose registers ({shape.registers_per_matrix} a matrix) "
                         f"are a vector of {vectors}")
    _syntax(shape)
    derived = any(f.id == shape.id for f in spec.of(WarpMatrixFragment))
    harness = lm.target_number(lm.HARNESS_TARGET)
    later = sorted({s.target for s in spec.of(WarpMatrixShape)
                    if lm.target_number(s.target) > harness})
    if target > harness and len(later) > 1:
        raise fail(f"{shape.key}: the shapes past {lm.HARNESS_TARGET} name targets {later}; the "
                   "sections' Target ISA Notes give them one list of architectures",
                   targets=later)
    if target <= harness and not derived:
        raise fail(f"{shape.key}: {shape.target} is at or before {lm.HARNESS_TARGET}, but no "
                   "fragment row derives its maps (spec/warp/matrix_fragments.yaml)")
    forms = [f for f in lm.forms(spec, shape.instruction, derivable=False) if f.shape == shape]
    return (f"{shape.shape}: {shape.m_elems}x{shape.n_elems} x {shape.element_bits} bits = "
            f"{shape.registers_per_matrix} register(s) x {lanes} lanes; .num {', '.join(fits)}; "
            f"{len(forms)} forms, {shape.target}"
            + ("" if derived else f" (maps not derived: later than {lm.HARNESS_TARGET})"))


def _syntax(shape: WarpMatrixShape) -> None:
    """The syntax lines spell the shape (by name or as `.shape`), a line for each kind of type
    (`.type`; a packed format, `.dst_fmt.src_fmt`), and the row's .trans: mandatory where a line
    spells `.trans`, none where no line has it; `{.trans}` is optional, or mandatory by the
    text ("for 16x16 matrices, .trans is mandatory")."""
    lines = list(shape.syntax)
    if not lines or any(not line.startswith(f"{shape.instruction}.") or
                        (f".{shape.shape}." not in line and ".shape." not in line)
                        for line in lines):
        raise fail(f"{shape.key}: syntax {lines} does not spell {shape.instruction} .{shape.shape}",
                   syntax=lines)
    for t in shape.types:
        spelling = ".dst_fmt.src_fmt" if _PACKED.search(t) else ".type"
        if not any(spelling in line for line in lines):
            raise fail(f"{shape.key}: no syntax line spells .{t} ({spelling})", syntax=lines)
    if any(_MANDATORY.search(line) for line in lines):
        allowed = ["mandatory"]
    elif any("{.trans}" in line for line in lines):
        allowed = ["optional", "mandatory"]
    else:
        allowed = ["none"]
    if shape.trans not in allowed:
        raise fail(f"{shape.key}: .trans {shape.trans}, where its syntax {lines} allows "
                   f"{' or '.join(allowed)}", trans=shape.trans, allowed=allowed)


def _addresses(spec: Spec, row: WarpMatrixAddresses) -> str:
    """Count, registers, width, the thread groups and the addresses they supply."""
    try:
        count = lm.num_matrices(row.num)
        groups = [lm.cell_range(g) for g in row.thread_groups]
        supplied = lm.lane_addresses(row)
    except ValueError as exc:
        raise fail(f"{row.key}: {exc}") from None
    expect_equal("matrices", row.matrices, count, source=row.key, witness=f".{row.num}")
    expect_equal("registers", row.registers, row.matrices, source=row.key,
                 witness="one register a matrix (\"1, 2, or 4 32-bit registers as per .num\")")
    expect_equal("register width", row.register_bits, facts.register_bits(spec), source=row.key,
                 witness="wgmma's fragment registers (wgmma/register_fragments)")
    lanes = facts.warp_threads(spec)
    cover = [lane for g in groups if g is not None for lane in range(g[0], g[1] + 1)]
    if cover != list(range(lanes)):
        raise fail(f"{row.key}: thread groups {list(row.thread_groups)} are not the {lanes} "
                   "lanes of a warp in order", thread_groups=list(row.thread_groups))
    sizes = {g[1] - g[0] + 1 for g in groups if g is not None}
    expect_equal("threads a group", {row.addresses_per_matrix}, sizes, source=row.key,
                 witness="the thread groups (the table's columns)")
    want = {lane: lane for lane in range(row.matrices * row.addresses_per_matrix)}
    if supplied != want:
        last = len(want) - 1
        raise fail(f"{row.key}: the cells give {_spans(supplied)}, where {row.matrices} "
                   f"matrices of {row.addresses_per_matrix} rows take addr0-addr{last} from "
                   f"threads 0-{last} in order",
                   supplied=sorted(supplied.items())[:8])
    return (f".{row.num}: threads 0-{len(supplied) - 1} supply addr0-addr{len(supplied) - 1} "
            f"({row.matrices} x {row.addresses_per_matrix} rows), {row.registers} x "
            f"{row.register_bits}-bit registers")


def _spans(supplied: dict[int, int]) -> str:
    """lane -> address as 'threads a-b: addr c-d' runs."""
    runs: list[list[int]] = []
    for lane, k in sorted(supplied.items()):
        if runs and lane == runs[-1][1] + 1 and k == runs[-1][3] + 1:
            runs[-1][1], runs[-1][3] = lane, k
        else:
            runs.append([lane, lane, k, k])
    return "; ".join(f"threads {a}-{b}: addr{c}-addr{d}" for a, b, c, d in runs) or "nothing"


def _agree(st: WarpMatrixAddresses, ld: WarpMatrixAddresses) -> str:
    """stmatrix's .num row says what ldmatrix's does."""
    mine = (st.matrices, st.registers, st.register_bits, lm.lane_addresses(st))
    theirs = (ld.matrices, ld.registers, ld.register_bits, lm.lane_addresses(ld))
    if mine != theirs:
        raise discrepancy(f".{st.num}: {st.key} gives {st.matrices} matrices, {_spans(mine[3])}; "
                          f"{ld.key} {ld.matrices}, {_spans(theirs[3])}",
                          stmatrix=_spans(mine[3]), ldmatrix=_spans(theirs[3]))
    return f".{st.num}: stmatrix's row says what ldmatrix's does ({_spans(mine[3])})"


def _fragment(spec: Spec, frag: WarpMatrixFragment) -> str:
    """A row's bytes, the lanes that hold it, its alignment, one address a row."""
    shape = spec.get(WarpMatrixShape, frag.id)
    bits = _register_bits(spec, shape.instruction)
    expect_equal("row_bytes", frag.row_bytes,
                 shape.n_elems * shape.element_bits // BITS_PER_BYTE, source=frag.key,
                 witness=f"{shape.n_elems} {shape.element_bits}-bit elements of {shape.key}")
    expect_equal("bits a row", frag.row_bytes * BITS_PER_BYTE, frag.threads_per_row * bits,
                 source=frag.key, witness=f"{frag.threads_per_row} lanes' {bits}-bit registers")
    expect_equal("alignment_bytes", frag.alignment_bytes, frag.row_bytes, source=frag.key,
                 witness="a row's bytes (\"naturally aligned accordingly\")")
    forms = [f for f in lm.forms(spec, shape.instruction) if f.shape == shape]
    for f in forms:
        expect_equal(f"addresses a matrix ({f.name})", f.addresses.addresses_per_matrix,
                     f.stored_dims[0], source=f.addresses.key,
                     witness=f"the stored rows of {shape.key} (one address a row)")
    return (f"{shape.shape}: a row is {frag.row_bytes} bytes = {frag.threads_per_row} lanes x "
            f"{bits} bits, {frag.alignment_bytes}-byte aligned, one address each in "
            f"{len(forms)} forms")


def _form(form: lm.Form) -> str:
    """The fragment is a bijection onto the matrices; each stored row has one supplier."""
    try:
        held = lm.fragment(form)
        suppliers = lm.row_suppliers(form)
    except ValueError as exc:
        raise fail(f"{form.name}: {exc}") from None
    rows, cols = form.stored_dims
    target = {(m, r, c) for m in range(form.matrices) for r in range(rows) for c in range(cols)}
    got = Counter((h.matrix, h.row, h.col) for h in held)
    twice = sorted(k for k, n in got.items() if n > 1)
    if twice or set(got) != target:
        raise fail(f"{form.name}: not a bijection onto {form.matrices} x {rows}x{cols}: "
                   f"{len(twice)} elements held twice, {len(target - set(got))} never",
                   twice=twice[:4], missed=sorted(target - set(got))[:4],
                   outside=sorted(set(got) - target)[:4])
    by_row = Counter(suppliers.values())
    rowset = {(m, r) for m in range(form.matrices) for r in range(rows)}
    if set(by_row) != rowset or any(n != 1 for n in by_row.values()):
        raise fail(f"{form.name}: the lanes supply rows {sorted(by_row)[:6]}..., not each of "
                   f"{form.matrices} x {rows} rows once", supplied=sorted(by_row.items())[:8])
    return (f"{form.ptx}: {form.lanes} lanes x {form.registers} registers x "
            f"{form.elems_per_register} elements <-> {form.matrices} x {rows}x{cols}; lanes "
            f"0-{len(suppliers) - 1} supply the {len(suppliers)} row addresses")
