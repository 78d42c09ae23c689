"""gpu.tma_pairing[<cell>]: wgmma reads what TMA wrote, on silicon, as the pairing proofs say.

One case a cell of ptxconf.oracle.proofs.tma_writes (a TMA write mode W, a wgmma K-major
canonical reader R, a class of destination; the same keys, `cells` here enumerates them
without z3). Two launches, the data round-tripping through global memory between them:

1. run_tma_write: one cp.async.bulk.tensor copy of a 64-row bf16 box (inner width R's row,
   seeded random exact values) with mode W into a window filled with zero bytes, at the
   destination offset of the class (on the largest repeat, or one 128-byte line past it); the
   raw window comes back (its first byte's address is on a 1024-byte boundary).
2. run_wgmma_batch: that window, byte for byte (and 1024 zero bytes after it), becomes A's
   region of a wgmma m64n8k16 bf16 probe: the image's first byte is also on a 1024-byte
   boundary, so every byte sits at the same address modulo the largest repeat as TMA put it
   (checked from both dumps' addresses) and the swizzles see the same phase. A's descriptor is
   R's: start = the box's offset (plus 32 B a K step of 16 elements, one launch a step), LBO/SBO
   from tma.packed_offsets, base-offset field per the class.

Judged: D of every step equals the oracle's prediction, A as placed: the element at each
address of wgmma's read map (ptxconf.oracle.explain.readmap) in the window the oracle predicts
(ptxconf.oracle.tma.write_addresses; bytes TMA did not write read 0) times B. For an identity
cell that is the plain product of the box's columns; for another it is the product of the
permuted operand tma.compose states. Fields: the cell, both maps' summaries, the window's
agreement with the oracle, and on a mismatch the first differing D entries.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome, fail, passed
from ptxconf.oracle import interpret as I
from ptxconf.oracle import tma
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.readmap import Descriptor, read_map, rule_field
from ptxconf.oracle.facts import wgmma_m
from ptxconf.oracle.records import InstructionType, TmaSwizzleMode
from ptxconf.oracle.spec import Spec
from ptxconf.oracle.tma import Cell as PairCell
from ptxconf.oracle.tma import cells

from .. import plan as P
from ..operands import acc_values, d_matrix, desc, desc_args, image, layout
from ..session import GpuBody, Session, planned_family
from ..tma import TmaWrite, largest_repeat
from ..variants import isa_facts

PROVIDER = "gpu-tma_pairing"
CHECK = P.CHECK_TMA_PAIRING
#: The operand type the cells are written in (the proofs' tile is bf16-sized).
DTYPE = "bf16"
#: What the window holds where TMA writes nothing (a zero element is read as 0).
FILL = 0
#: Zero bytes after the window in A's region (a read past it must not reach B's region).
GUARD_BYTES = 1024
#: Mismatching D entries listed in a failing case.
SHOWN = 8




def _line(spec: Spec) -> int:
    return max(m.line_bytes or 0 for m in spec.of(TmaSwizzleMode))


def dst_offset(spec: Spec, cell: PairCell) -> int:
    """The box's offset into the window (the window is on the largest repeat): the repeat, or
    one base-offset line past it (the proofs' representative bases)."""
    repeat = largest_repeat(spec)
    return repeat if cell.base_class == tma.ALIGNED else repeat + _line(spec)


def field(spec: Spec, cell: PairCell, base: int) -> int:
    """The descriptor's base-offset field for the class: the PTX ISA's rule or 0."""
    return rule_field(spec, cell.read.swizzle, base) if cell.base_class == tma.OFF_RULE else 0


def the_write(spec: Spec, cell: PairCell) -> TmaWrite:
    """The copy: wgmma's M rows, R's row of bf16 columns, mode W, at the class's offset."""
    cols = tma.read_pitch(spec, "K", cell.read.swizzle) // tma.element_bytes(spec, DTYPE)
    b = tma.box(spec, cell.write.swizzle, DTYPE, wgmma_m(spec), cols, dst_offset(spec, cell))
    enum = tma.enum_row(spec, cell.write.swizzle)
    return TmaWrite(cell.write.swizzle, enum.code, enum.id, DTYPE, b.elem_bytes, b.rows, b.cols,
                    b.base, b.pitch_bytes)


def probe(spec: Spec) -> P.Probe:
    """The reader: the bf16, f32-accumulator wgmma at its smallest N, K-major."""
    row = next(r for r in spec.of(InstructionType) if (r.dtype, r.atype) == ("f32", DTYPE))
    return P.make_probe(isa_facts(spec), row, P.n_values(spec, row)[0], major="K")


def operands(spec: Spec, cell: PairCell, w: TmaWrite) -> tuple[np.ndarray, np.ndarray]:
    """(the box's values [rows, cols], B's values [N, K]): seeded exact values."""
    v = probe(spec).variant
    rng = np.random.default_rng(zlib.crc32(cell.key.encode()))
    box = I.random_operand(spec, DTYPE, (w.rows, w.cols), rng, acc_dtype=v.dtype, k=v.k)
    b = I.random_operand(spec, v.btype, (v.n, v.k), rng, acc_dtype=v.dtype, k=v.k)
    return box, b


def tensor(spec: Spec, box: np.ndarray, w: TmaWrite) -> np.ndarray:
    """uint8 [rows, inner bytes]: the box's raw little-endian bytes (the global tensor)."""
    raw = I.encode(spec, DTYPE, box).astype(f"<u{w.elem_bytes}")
    return np.ascontiguousarray(raw).view(np.uint8).reshape(w.rows, w.inner_bytes)


def steps(spec: Spec, w: TmaWrite) -> int:
    """wgmma K steps over the box's columns (at least one)."""
    return max(1, w.cols // probe(spec).variant.k)


def descriptor(spec: Spec, cell: PairCell, w: TmaWrite, start: int, step: int) -> Descriptor:
    """R's descriptor for K step `step` of a box at address `start`."""
    b = tma.box(spec, w.swizzle, w.dtype, w.rows, w.cols, start)
    lbo, sbo = tma.packed_offsets(spec, b, "K", cell.read.swizzle)
    k_bytes = probe(spec).variant.k * w.elem_bytes
    return Descriptor.of(spec, start_address=start + step * k_bytes, lbo=lbo, sbo=sbo,
                         swizzle=cell.read.swizzle, base_offset=field(spec, cell, start))


def predict(spec: Spec, cell: PairCell, w: TmaWrite, window: np.ndarray, window_address: int,
            smem_address: int, step: int) -> tuple[np.ndarray, np.ndarray, tma.Pairing]:
    """(A's values as wgmma reads them, the read addresses in TMA's frame, the composition) for
    one K step, with the window (the oracle's) at `window_address` for TMA and at
    `smem_address` for wgmma."""
    v = probe(spec).variant
    op = Operand(DTYPE, "K", v.m, v.k, 8 * w.elem_bytes)
    rm = read_map(spec, op, descriptor(spec, cell, w, smem_address + w.dst_offset, step))
    at = rm.addresses - smem_address
    if int(at.min()) < 0 or int(at.max()) + w.elem_bytes > len(window):
        raise ValueError(f"{cell.key}: wgmma reads [{int(at.min()):#x}, {int(at.max()):#x}] of a "
                         f"{len(window)}-B window")
    raw = I.gather(np.ascontiguousarray(window, dtype=np.uint8), at, 8 * w.elem_bytes)
    b = tma.box(spec, w.swizzle, w.dtype, w.rows, w.cols, window_address + w.dst_offset)
    return I.decode(spec, DTYPE, raw), at + window_address, tma.compose(spec, b, "K",
                                                                       at + window_address)


def oracle_window(spec: Spec, w: TmaWrite, data: np.ndarray, size: int,
                  window_address: int) -> np.ndarray:
    """The window after the copy per the oracle, FILL where nothing is written."""
    from ..tma import predicted_window

    return predicted_window(spec, w, window_address, data, size, fill=FILL)


def identity(p: tma.Pairing, cols: int, step: int) -> bool:
    """Whether K step `step` reads every box element it covers where TMA put it (operand column
    j is box column step * K + j; columns past the box are not the box's)."""
    k = p.read.shape[1]
    want = p.expected()
    want[..., 1] += step * k
    inside = want[..., 1] < cols
    return bool((p.found[inside] == want[inside]).all())


def summary(p: tma.Pairing, cols: int, step: int, limit: int = 4) -> dict[str, Any]:
    """One K step's composition: identity or not, and the first elements read elsewhere (the
    box element found there, None where TMA wrote none)."""
    k = p.read.shape[1]
    moved = []
    for (i, j), a in np.ndenumerate(p.read):
        col = step * k + j
        f = (int(p.found[i, j, 0]), int(p.found[i, j, 1]))
        if col < cols and f != (i, col):
            moved.append({"mn": i, "k": col, "address": hex(int(a)),
                          "holds": None if f[0] < 0 else {"mn": f[0], "k": f[1]}})
    return {"step": step, "identity": not moved, "moved_count": len(moved),
            "moved": moved[:limit]}


def _body(cell: PairCell) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        w = the_write(spec, cell)
        box, bvals = operands(spec, cell, w)
        data = tensor(spec, box, w)
        size = w.window_bytes(largest_repeat(spec))
        res = sess.call("run_tma_write", w, data, size, FILL)
        if not res.ok:
            raise fail(f"{w.label}: the TMA probe failed ({res.error_kind}): {res.error}",
                       code="gpu_fault", copy=w.label)
        dump = res.value
        got_window = np.asarray(dump.window, dtype=np.uint8)
        want_window = oracle_window(spec, w, data, size, dump.window_address)
        window_wrong = int((got_window != want_window).sum())
        pr = probe(spec)
        v = pr.variant
        b_lay = layout(spec, v.btype, "K", "none", v.n, v.k)
        a_img = got_window.tobytes() + bytes(GUARD_BYTES)
        kws = []
        for j in range(steps(spec, w)):
            d = descriptor(spec, cell, w, w.dst_offset, j)
            kws.append({"a_smem": a_img, "b_smem": image(spec, bvals, b_lay),
                        "a_desc_rel": d.value, "b_desc_rel": desc(spec, b_lay),
                        **desc_args(spec)})
        dumps = sess.run_wgmma(v, kws)
        phase = largest_repeat(spec)
        base = dumps[0].smem_base_address
        fields: dict[str, Any] = {
            "cell": cell.key, "write": cell.write.swizzle, "reader": cell.read.id,
            "base_class": cell.base_class, "box": w.label, "instruction": v.ptx_name,
            "tma_window_address": hex(dump.window_address), "wgmma_smem_address": hex(base),
            "window_bytes_wrong": window_wrong, "chain": "two launches, via global memory"}
        if (base - dump.window_address) % phase:
            raise fail(f"{cell.key}: the TMA window ({dump.window_address:#x}) and the wgmma "
                       f"image ({base:#x}) differ modulo {phase} B: the swizzle phases differ",
                       code="gpu_fault", **fields)
        maps, wrong = [], []
        identity = True
        for j, dd in enumerate(dumps):
            a_eff, _, pairing = predict(spec, cell, w, want_window, dump.window_address, base, j)
            maps.append(summary(pairing, w.cols, j))
            identity = identity and maps[-1]["identity"]
            want = I.matmul(a_eff.astype(np.int64), bvals.astype(np.int64))
            got = acc_values(spec, v, d_matrix(spec, v, dd.regs))
            for m, n in zip(*np.nonzero(got != want), strict=True):
                wrong.append({"step": j, "m": int(m), "n": int(n), "expected": int(want[m, n]),
                              "got": float(got[m, n])})
        fields |= {"identity": identity, "steps": len(dumps), "read_maps": maps,
                   "descriptor": descriptor(spec, cell, w, base + w.dst_offset, 0).text()}
        what = "identity" if identity else "a stated permutation"
        if wrong:
            raise fail(f"{cell.key}: {len(wrong)} D entries differ from the oracle's prediction "
                       f"({what}); first: step {wrong[0]['step']} D[{wrong[0]['m']}, "
                       f"{wrong[0]['n']}] = {wrong[0]['got']}, expected {wrong[0]['expected']}",
                       code="silicon_disagrees", wrong=wrong[:SHOWN], **fields)
        return passed(f"{cell.key}: wgmma reads the TMA-written box as the oracle says ({what}; "
                      f"{len(dumps)} K steps, D bit-exact)", **fields)

    return body


def pairing_plan(spec: Spec) -> list[P.Planned]:
    """gpu.tma_pairing[<cell>] for every cell the proofs have; args: the cell and the probe."""
    return [P.Planned(CHECK, c.key, (c, probe(spec))) for c in cells(spec)]


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, pairing_plan, lambda p: _body(p.args[0]))
