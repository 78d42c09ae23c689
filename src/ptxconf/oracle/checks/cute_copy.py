"""CuTe's ldmatrix / stmatrix copy atoms (spec/cute/copy_ops_*.yaml, copy_traits_*.yaml) against
the PTX ISA's rows (spec/warp/*.yaml): a second statement of the same maps, compared point by
point; where the two documents differ the case is a spec discrepancy.

* `cute.copy_op`: the struct's name (SM75_U16x8_LDSM_T: architecture, value width x count,
  LDSM/STSM, N/T) says what its asm string issues; that is a form of the PTX rows, of the
  target its architecture names; its register array is the form's registers, its shared-memory
  array one 16-byte row (uint128_t[1]); its traits are in the spec;
* `cute.copy_layouts`: the traits' ThrID is the warp; the register side (LDSM's DstLayout,
  STSM's SrcLayout; the RefLayout) maps (thread, value) to the bit the PTX fragment puts there,
  and the shared-memory side maps each address-supplying thread's 128 values to the bits of
  the row its address names (a thread the .num table leaves out repeats a row some supplying
  thread names: "addresses contained in lower threads can be copied to higher threads"). The
  bit space is the rows in the order of their addresses, `row_bits` each; STSM's layouts are
  LDSM's by name (`typename Copy_Traits<SM75_...>::DstLayout`), resolved here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

import numpy as np

from ptxconf.core.results import Status
from ptxconf.oracle import facts
from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.canonical import BITS_PER_BYTE, crd2idx_array
from ptxconf.oracle.checks.base import Case, discrepancy, expect_equal, fail, make_case
from ptxconf.oracle.checks.cute_names import cpp_layout
from ptxconf.oracle.records import CuteCopyOp, CuteCopyTraits
from ptxconf.oracle.spec import Spec

#: SM75_U16x8_LDSM_T -> 75, 16, 8, LDSM, T.
ATOM = re.compile(r"SM(?P<arch>\d+)_U(?P<bits>\d+)x(?P<count>\d+)_(?P<op>LDSM|STSM)_(?P<t>[NT])")
OPS = {"LDSM": "ldmatrix", "STSM": "stmatrix"}
#: `uint32_t[4]` -> 32, 4.
ARRAY = re.compile(r"uint(?P<bits>\d+)_t\[(?P<count>\d+)\]")
#: `typename Copy_Traits<SM75_U32x1_LDSM_N>::DstLayout`: another atom's layout by name.
NAMED = re.compile(r"typename\s+Copy_Traits<(?P<atom>\w+)>::(?P<which>SrcLayout|DstLayout)")
#: How many differing points a discrepancy's fields show.
SHOWN = 6
#: Where CuTe's statement and the PTX ISA's differ: the documents disagree.
DISAGREE = Status.DISCREPANCY


def cases(spec: Spec) -> Iterator[Case]:
    """One case per Operation struct, one per Copy_Traits."""
    for op in spec.of(CuteCopyOp):
        yield make_case("cute.copy_op", op.key, partial(_op, spec, op))
    for tr in spec.of(CuteCopyTraits):
        yield make_case("cute.copy_layouts", tr.key, partial(_layouts, spec, tr))


def _name(atom: str, key: str) -> re.Match[str]:
    m = ATOM.fullmatch(atom)
    if m is None:
        raise fail(f"{key}: {atom!r} does not read as SM<arch>_U<bits>x<count>_<LDSM|STSM>_<N|T>")
    return m


def _array(text: str, key: str) -> tuple[int, int]:
    m = ARRAY.fullmatch(text.replace(" ", ""))
    if m is None:
        raise fail(f"{key}: {text!r} does not read as uint<bits>_t[<count>]")
    return int(m["bits"]), int(m["count"])


def op_form(spec: Spec, op: CuteCopyOp) -> lm.Form:
    """The PTX form an Operation struct's asm string issues (FAIL where the rows have none)."""
    try:
        return lm.form(spec, op.ptx)
    except ValueError as exc:
        raise fail(f"{op.key}: {exc}") from None


def _op(spec: Spec, op: CuteCopyOp) -> str:
    """Name, asm string, target and register arrays agree with the PTX rows."""
    m = _name(op.id, op.key)
    form = op_form(spec, op)
    expect_equal("instruction, .trans", (OPS[m["op"]], m["t"] == "T"),
                 (form.shape.instruction, form.trans), source=f"{op.key} (its asm string)",
                 witness=f"the name {op.id}", status=DISAGREE)
    expect_equal("architecture", int(m["arch"]), lm.target_number(form.shape.target),
                 source=op.key, witness=f"{form.shape.key}'s target {form.shape.target}",
                 status=DISAGREE)
    bits = form.addresses.register_bits
    value_bits = bits if m["t"] == "N" else form.shape.element_bits
    expect_equal("value width", int(m["bits"]), value_bits, source=op.key,
                 witness="a register (N) or an element (T) of " + form.name, status=DISAGREE)
    expect_equal("bits a thread holds", int(m["bits"]) * int(m["count"]), form.registers * bits,
                 source=op.key, witness=f"{form.registers} {bits}-bit registers of {form.name}",
                 status=DISAGREE)
    regs, smem = ((op.d_registers, op.s_registers) if m["op"] == "LDSM"
                  else (op.s_registers, op.d_registers))
    expect_equal("register array (bits, count)", _array(regs, op.key), (bits, form.registers),
                 source=op.key, witness=form.name, status=DISAGREE)
    row_bytes = form.fragment.row_bytes if form.fragment else 0
    expect_equal("shared-memory array (bits, count)", _array(smem, op.key),
                 (row_bytes * BITS_PER_BYTE, 1), source=op.key,
                 witness=f"one {row_bytes}-byte row a thread ({form.shape.key})", status=DISAGREE)
    if not any(t.id == op.id for t in spec.of(CuteCopyTraits)):
        raise fail(f"{op.key}: no Copy_Traits row for {op.id} (spec/cute/copy_traits_*.yaml)")
    return f"{op.id} issues {form.name} ({form.shape.target}): {regs} registers, {smem} a row"


def resolve(spec: Spec, tr: CuteCopyTraits, which: str, seen: tuple[str, ...] = ()) -> Layout:
    """A traits row's SrcLayout or DstLayout as a layout: its C++, or the layout it names."""
    text = tr.src_layout if which == "SrcLayout" else tr.dst_layout
    named = NAMED.fullmatch(text.strip())
    if named is None:
        return cpp_layout(text, f"{tr.key} {which}")
    if tr.id in seen or not any(r.id == named["atom"] for r in spec.of(CuteCopyTraits)):
        raise fail(f"{tr.key}: {which} names {named['atom']}::{named['which']}, which the spec's "
                   "Copy_Traits rows do not give")
    return resolve(spec, spec.get(CuteCopyTraits, named["atom"]), named["which"], (*seen, tr.id))


def _layouts(spec: Spec, tr: CuteCopyTraits) -> str:
    """ThrID, RefLayout, and both sides point by point against the PTX maps."""
    m = _name(tr.id, tr.key)
    form = op_form(spec, spec.get(CuteCopyOp, tr.id))
    lanes = facts.warp_threads(spec)
    thr = cpp_layout(tr.thr_id, f"{tr.key} ThrID")
    expect_equal("ThrID", [thr(i) for i in range(thr.size())], list(range(lanes)), source=tr.key,
                 witness=f"the {lanes} lanes of a warp")
    reg_side, mem_side = ("DstLayout", "SrcLayout") if m["op"] == "LDSM" else ("SrcLayout",
                                                                              "DstLayout")
    expect_equal("RefLayout", tr.ref_layout.strip(), reg_side, source=tr.key,
                 witness=f"the register side of {m['op']}")
    try:
        held = lm.fragment(form)
        suppliers = lm.row_suppliers(form)
    except ValueError as exc:
        raise fail(f"{tr.key}: {exc}") from None
    regs, mem = resolve(spec, tr, reg_side), resolve(spec, tr, mem_side)
    bits = form.shape.element_bits
    row_bits = form.stored_dims[1] * bits
    per = form.addresses.addresses_per_matrix
    reg_bits = form.addresses.register_bits
    want = {(h.lane, h.register * reg_bits + h.element * bits + b):
            ((h.matrix * per + h.row) * row_bits + h.col * bits + b)
            for h in held for b in range(bits)}
    _compare(tr, reg_side, regs, want, (lanes, form.registers * reg_bits))
    rows = {lane: (mm * per + r) * row_bits for lane, (mm, r) in suppliers.items()}
    starts = set(rows.values())
    mem_want = {}
    for lane in range(lanes):
        start = rows.get(lane)
        if start is None:  # an unused address: CuTe repeats some supplied row
            start = _layout_at(mem, lane, 0)
            start = start if start in starts else -1
        mem_want.update({(lane, v): start + v for v in range(row_bits)})
    _compare(tr, mem_side, mem, mem_want, (lanes, row_bits))
    return (f"{tr.id}: {reg_side} (registers) and {mem_side} (rows) agree with {form.name} on "
            f"{len(want)} + {len(mem_want)} (thread, value) points")


def _layout_at(layout: Layout, t: int, v: int) -> int | None:
    try:
        return int(layout(t, v))
    except (IndexError, ValueError, TypeError):
        return None


def _compare(tr: CuteCopyTraits, which: str, layout: Layout, want: dict[tuple[int, int], int],
             domain: tuple[int, int]) -> None:
    """The layout's (thread, value) domain and every point against the PTX's bit."""
    if layout.rank() != 2 or (layout[0].size(), layout[1].size()) != domain:
        sizes = (layout[0].size(), layout[1].size()) if layout.rank() == 2 else layout.rank()
        raise discrepancy(f"{tr.key}: {which} {layout} has (threads, values) {sizes}; the PTX "
                          f"form has {domain}", layout=str(layout), derived=list(domain))
    # every (thread, value) of the domain at once (crd2idx_array: what layout(t, v) gives)
    t_idx, v_idx = np.meshgrid(np.arange(domain[0]), np.arange(domain[1]), indexing="ij")
    grid = crd2idx_array((t_idx, v_idx), layout.shape, layout.stride).tolist()
    wrong = [(t, v, grid[t][v], bit) for (t, v), bit in sorted(want.items()) if grid[t][v] != bit]
    if wrong:
        shown = "; ".join(f"(T{t}, V{v}) -> bit {got}, PTX {bit}" for t, v, got, bit in wrong[:3])
        raise discrepancy(f"{tr.key}: {which} {layout} differs from the PTX ISA's map at "
                          f"{len(wrong)} of {len(want)} points: {shown}", layout=str(layout),
                          points=[list(w) for w in wrong[:SHOWN]], differing=len(wrong))
