"""gpu.ldmatrix[<form>] and gpu.stmatrix[<form>]: the warp-level matrix load and store, run on
the device, one case per form the harness target runs (`ptxconf.gpu.ldmatrix`) and placement.

* `<form>` (m8n8.x4.trans.b16): the matrices' stored rows at scattered rows of shared memory
  (an order drawn from the form's name, as many spare rows as stored ones), each element a
  value of its own (its matrix, row and column);
* `<form>:<layout>` (K_SW32 ... MN_SW128): the matrices as blocks of a swizzled canonical tile
  (`ptxconf.oracle.ldmatrix_smem`: the tile of spec/wgmma/canonical_layouts.yaml, K-major for a
  form without .trans and MN-major for one with it, as CuTe's LDSM_N and LDSM_T read them), each
  tile element a value of its own, the row addresses those the tile gives each stored row.

Every other element of the image holds a filler of its own, and the lanes the .num table gives
no address point at spare rows: were their addresses used, a filler would show. A load must
leave in each lane's registers the element at the byte the oracle's fragment map
(`ptxconf.oracle.ldmatrix.fragment`) and the lane's row address name; a store must write each
register element there and nothing else. Bit for bit, with a diff table in (lane, value) or
(smem row, element) otherwise.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome, fail
from ptxconf.oracle import interpret as I
from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle import ldmatrix_smem as ls
from ptxconf.oracle import verdicts
from ptxconf.oracle.canonical import BITS_PER_BYTE
from ptxconf.oracle.records import CuteCopyOp, ElementType, atom_name
from ptxconf.oracle.spec import Spec

from .. import plan as P
from ..ldmatrix import WarpMatrixVariant, probe_forms, variant, variants
from ..session import GpuBody, Session, planned_family

PROVIDER = "gpu-ldmatrix"
#: Shared memory is compared in rows of this many bytes (a stored row of m8n8 .b16).
SMEM_ROW_BYTES = 16
#: Spare rows after a tile, for the lanes that supply no address.
SPARE_ROWS = 8
#: A load's register words before the instruction (every one is overwritten).
UNWRITTEN = 0xFFFFFFFF


@dataclass
class Placement:
    """One probe's data: each lane's row address, the image before the instruction (element
    values; a load's holds the matrices, a store's only fillers: the top bit set over the
    element's index), each element a lane holds with its byte address and its value, and a
    label per matrix value."""

    lane_offsets: np.ndarray
    image: np.ndarray
    cells: list[tuple[lm.Held, int, int]]
    labels: dict[int, str]
    fields: dict[str, Any]


def _element_bytes(form: lm.Form) -> int:
    return form.shape.element_bits // BITS_PER_BYTE


def _place(form: lm.Form, starts: dict[tuple[int, int], int], spare: list[int], size_bytes: int,
           content: dict[int, tuple[int, str]], cells: list[tuple[lm.Held, int, int]],
           fields: dict[str, Any]) -> Placement:
    """The image (fillers, then `content`: byte address -> (value, label), for a load) and the
    lane table (suppliers at their rows' starts, the others at spare rows)."""
    eb, bits = _element_bytes(form), form.shape.element_bits
    slots = size_bytes // eb
    filler = 1 << (bits - 1)
    if slots > filler or any(v >= filler for v, _ in content.values()):
        raise ValueError(f"{form.name}: {slots} elements do not get values of their own in "
                         f"{bits} bits beside their fillers")
    image = filler | np.arange(slots, dtype=np.uint64)
    if _loads(form):
        for a, (v, _) in content.items():
            image[a // eb] = v
    suppliers = lm.row_suppliers(form)
    offsets = np.array([starts[suppliers[lane]] if lane in suppliers else
                        spare[lane % len(spare)] for lane in range(form.lanes)], dtype=np.uint32)
    fields["decoy_lanes"] = [lane for lane in range(form.lanes) if lane not in suppliers]
    fields["row_addresses"] = {f"T{lane}": f"{int(offsets[lane]):#x}" for lane in sorted(suppliers)}
    return Placement(offsets, image, cells, dict(content.values()), fields)


def _loads(form: lm.Form) -> bool:
    return variant(form).loads


def scattered(form: lm.Form) -> Placement:
    """The stored rows at scattered rows of an image twice their number; element (m, r, c)
    holds (m x rows + r) x cols + c."""
    rows, cols = form.stored_dims
    eb = _element_bytes(form)
    stride = max(cols * eb, form.fragment.alignment_bytes if form.fragment else 0)
    stored = [(m, r) for m in range(form.matrices) for r in range(rows)]
    order = np.random.default_rng(zlib.crc32(form.name.encode())).permutation(2 * len(stored))
    starts = {mr: int(order[i]) * stride for i, mr in enumerate(stored)}
    spare = sorted(int(s) * stride for s in order[len(stored):])

    def value(m: int, r: int, c: int) -> int:
        return (m * rows + r) * cols + c

    content = {starts[(m, r)] + c * eb: (value(m, r, c), f"m{m}({r},{c})")
               for m, r in stored for c in range(cols)}
    cells = [(h, starts[(h.matrix, h.row)] + h.col * eb, value(h.matrix, h.row, h.col))
             for h in lm.fragment(form)]
    return _place(form, starts, spare, 2 * len(stored) * stride, content, cells, {})


def tile_dtype(spec: Spec, form: lm.Form) -> str:
    """The first element type (wgmma/element_types.yaml) as wide as the form's elements."""
    found = [r.id for r in spec.of(ElementType) if r.width_bits == form.shape.element_bits]
    if not found:
        raise ValueError(f"{form.name}: no element type is {form.shape.element_bits}-bit")
    return found[0]


def tiled(spec: Spec, form: lm.Form, layout: str) -> Placement:
    """The matrices as blocks of a canonical tile; tile element (i, j) holds i x cols + j."""
    dtype = tile_dtype(spec, form)
    t = ls.tile(spec, layout, dtype)
    acc = ls.access(spec, form, t)
    eb, cols = _element_bytes(form), t.dims[1]
    ax0, ax1 = t.axes
    content = {a: (i * cols + j, f"({ax0} {i}, {ax1} {j})") for i, row in enumerate(t.addresses)
               for j, a in enumerate(row)}
    end = -(-(max(content) + eb) // SMEM_ROW_BYTES) * SMEM_ROW_BYTES
    spare = [end + k * SMEM_ROW_BYTES for k in range(SPARE_ROWS)]
    starts = {(r.matrix, r.row): r.address_bytes for r in acc.rows}
    cells = [(mv.held, mv.address_bytes, mv.meant[0] * cols + mv.meant[1]) for mv in acc.moved]
    fields = {"tile": t.name, "dtype": dtype, "tile_problems": acc.problems(),
              "bank_conflict_degree": acc.bank_degree}
    return _place(form, starts, spare, end + SPARE_ROWS * SMEM_ROW_BYTES, content, cells, fields)


def _bytes(form: lm.Form, slots: np.ndarray) -> bytes:
    return np.asarray(slots, dtype=f"<u{_element_bytes(form)}").tobytes()


def elements(form: lm.Form, words: np.ndarray) -> np.ndarray:
    """uint64 [lanes, registers x elements]: each register's elements, low bits first."""
    bits, per = form.shape.element_bits, form.elems_per_register
    w = np.asarray(words, dtype=np.uint64)[:, :, None] >> (np.arange(per, dtype=np.uint64) * bits)
    return (w & np.uint64((1 << bits) - 1)).reshape(len(words), -1)


def registers(form: lm.Form, p: Placement) -> np.ndarray:
    """uint32 [lanes, registers]: each held element's value where the fragment map puts it."""
    words = np.zeros((form.lanes, form.registers), dtype=np.uint64)
    for h, _, v in p.cells:
        words[h.lane, h.register] |= np.uint64(v) << np.uint64(h.element * form.shape.element_bits)
    return words.astype(np.uint32)


def expected(form: lm.Form, p: Placement) -> np.ndarray:
    """A load: the value at each held element's byte, [lanes, values]; a store: the image with
    each held element's value written at its byte, [smem rows, elements]."""
    eb = _element_bytes(form)
    if _loads(form):
        out = np.zeros((form.lanes, form.registers * form.elems_per_register), dtype=np.uint64)
        for h, a, _ in p.cells:
            out[h.lane, h.register * form.elems_per_register + h.element] = p.image[a // eb]
        return out
    img = p.image.copy()
    for _, a, v in p.cells:
        img[a // eb] = v
    return img.reshape(-1, SMEM_ROW_BYTES // eb)


def got(form: lm.Form, words: np.ndarray, image: bytes) -> np.ndarray:
    """What the device returned, in the shape `expected` has."""
    if _loads(form):
        return elements(form, words)
    eb = _element_bytes(form)
    return np.frombuffer(image, dtype=f"<u{eb}").astype(np.uint64).reshape(-1, SMEM_ROW_BYTES // eb)


def _labeller(form: lm.Form, p: Placement) -> Callable[[Any], str]:
    """A diff cell's text: the element a value is, a filler's address, or the raw value."""
    eb, filler = _element_bytes(form), 1 << (form.shape.element_bits - 1)

    def label(x: Any) -> str:
        v = int(x)
        if v in p.labels:
            return p.labels[v]
        return f"filler@{(v ^ filler) * eb:#x}" if v & filler and v ^ filler < len(p.image) \
            else f"{v:#x}"

    return label


def _show(form: lm.Form, fields: dict[str, Any]) -> str:
    """The `ptxconf show` line drawing this form (over its tile)."""
    cmd = (f"ptxconf show {form.shape.instruction} --num {form.addresses.num}"
           f"{' --trans' if form.trans else ''} --shape {form.shape.shape} --type {form.type}")
    return cmd + (f" --smem-layout {fields['tile']} --dtype {fields['dtype']}"
                  if "tile" in fields else "")


def cute_atoms(spec: Spec, form: lm.Form) -> list[str]:
    """The CuTe copy Operations (spec/cute/copy_ops_*.yaml) whose asm issues this form."""
    want = (form.shape.instruction, form.shape.shape, form.addresses.num, form.trans, form.type)
    return [op.id for op in spec.of(CuteCopyOp) if lm.parse_ptx(op.ptx) == want]


def _body(form: lm.Form, layout: str | None) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        v: WarpMatrixVariant = variant(form)
        p = scattered(form) if layout is None else tiled(spec, form, layout)
        regs = (np.full((form.lanes, form.registers), UNWRITTEN, dtype=np.uint32) if v.loads
                else registers(form, p))
        res = sess.call("run_warp_matrix", v, variants(spec), _bytes(form, p.image),
                        p.lane_offsets, regs)
        if not res.ok:
            raise fail(f"{form.ptx}: the probe failed ({res.error_kind}): {res.error}",
                       code="gpu_fault", kernel=v.kernel_name)
        words, image = res.value
        fmt = _labeller(form, p)
        what = (f"registers after {form.ptx}" if v.loads else f"shared memory after {form.ptx}")
        axes = ("lane", "value") if v.loads else ("smem_row", "element")
        diff = I.diff_grid(what, expected(form, p), got(form, words, image), axes=axes, fmt=fmt)
        fields: dict[str, Any] = {
            "kernel": v.kernel_name, "instruction": form.ptx,
            "spec_rows": [form.shape.key, form.addresses.key,
                          *([form.fragment.key] if form.fragment else [])],
            "cute_atoms": cute_atoms(spec, form), "show": _show(form, p.fields), **p.fields,
            "axes": (f"value v: register v // {form.elems_per_register}, element v % "
                     f"{form.elems_per_register} (low bits first)") if v.loads else
                    f"smem_row: {SMEM_ROW_BYTES} bytes of the image, from its start"}
        if not diff.ok:
            fields["raw"] = sess.raw(registers=np.asarray(words),
                                     image=np.frombuffer(image, dtype=np.uint8))
        where = f"the {layout} tile" if layout else "scattered rows"
        matrices = f"{form.matrices} {'matrix' if form.matrices == 1 else 'matrices'}"
        return verdicts.compared(
            diff, f"{form.ptx}: every element of {matrices} in {where} "
                  f"{'loaded' if v.loads else 'stored'} where the fragment map says", **fields)

    return body


def ldmatrix_plan(spec: Spec) -> list[P.Planned]:
    """Every form at scattered rows, then over each swizzled canonical tile of its major-ness
    (MN-major with .trans, K-major without)."""
    out: list[P.Planned] = []
    for form in probe_forms(spec):
        check = P.WARP_MATRIX_CHECKS[form.shape.instruction]
        key = form.name.split(".", 1)[1]
        out.append(P.Planned(check, key, (form, None)))
        for sw in P.swizzled_modes(spec):
            layout = atom_name("MN" if form.trans else "K", sw)
            out.append(P.Planned(check, f"{key}:{layout}", (form, layout)))
    return out


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, ldmatrix_plan, lambda p: _body(*p.args))
