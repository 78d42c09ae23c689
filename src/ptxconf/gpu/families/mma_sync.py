"""gpu.mma_sync[<atom>]: the CuTe document's SM70 8x8x4 atoms, run on the device.

The warp's four quadpairs each compute their own 8x8x4 product. Random exact f16 operands go
into the lanes' registers where the atom's ThrID, ALayout and BLayout rows say (thread t of
quadpair q is lane ThrID(t) + q x the quadpair step; value v is 16-bit half v % 2 of register
v // 2), and D, read where the CLayout row says (f32: register v; f16: half v % 2 of register
v // 2), must equal the host matmul bit for bit in every quadpair: one case checks the thread
map and all three layouts at once. A layout that is wrong for the instruction gives a diff
table in (quadpair, m, n).
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome, fail
from ptxconf.oracle import facts, verdicts
from ptxconf.oracle import interpret as I
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.spec import Spec

from .. import plan as P
from ..mma_sync import MmaSyncVariant, mma_sync_variants
from ..session import GpuBody, Session, planned_family

PROVIDER = "gpu-mma_sync"
#: The atom's shape (m8n8k4) and its operand type.
M = N = 8
K = 4
OPERAND = "f16"


def _layout(text: str) -> Layout:
    """A plain CuTe layout from the spec's notation (ValueError for a swizzle or composition)."""
    lay = parse(text)
    if not isinstance(lay, Layout):
        raise ValueError(f"{text!r} is not a plain layout")
    return lay


def quadpair_lanes(spec: Spec, thr_id: str) -> np.ndarray:
    """int [quadpairs, threads]: the lane of each quadpair's logical thread. Quadpair 0 is the
    ThrID layout; the others are it moved by the first lane it leaves out, and together they
    must cover the warp once."""
    thr = _layout(thr_id)
    first = np.array([thr(t) for t in range(thr.size())])
    lanes = facts.warp_threads(spec)
    step = min(set(range(lanes)) - set(first.tolist()))
    out = np.stack([first + q * step for q in range(lanes // len(first))])
    if sorted(out.ravel().tolist()) != list(range(lanes)):
        raise ValueError(f"ThrID {thr_id}: its quadpairs do not cover the {lanes} lanes once")
    return out


def slots(layout_text: str, rows: int, values: int) -> np.ndarray:
    """int [threads, values, 2]: the (row, col) each (thread, value) holds, from a layout whose
    codomain is row + col x rows."""
    lay = _layout(layout_text)
    threads = lay.size() // values
    idx = np.array([[lay((t, v)) for v in range(values)] for t in range(threads)])
    return np.stack([idx % rows, idx // rows], axis=-1)


def pack(spec: Spec, vals: np.ndarray, lanes: np.ndarray, where: np.ndarray, nwords: int,
         dtype: str) -> np.ndarray:
    """uint32 [warp lanes, nwords]: each quadpair's matrix `vals[q]` of `dtype` values put into
    its lanes' words (value v at bits (v % per) x width of word v // per)."""
    bits = I.element_bits(spec, dtype)
    per = facts.register_bits(spec) // bits
    words = np.zeros((facts.warp_threads(spec), nwords), dtype=np.uint64)
    raw = I.encode(spec, dtype, vals)
    for q in range(lanes.shape[0]):
        for t in range(where.shape[0]):
            for v in range(where.shape[1]):
                r, c = where[t, v]
                words[lanes[q, t], v // per] |= np.uint64(int(raw[q, r, c])) << np.uint64(
                    (v % per) * bits)
    return words.astype(np.uint32)


def unpack(spec: Spec, words: np.ndarray, lanes: np.ndarray, where: np.ndarray,
           shape: tuple[int, int], dtype: str) -> np.ndarray:
    """uint64 [quadpairs, rows, cols]: the raw bits each quadpair's lanes hold per (row, col)."""
    bits = I.element_bits(spec, dtype)
    per = facts.register_bits(spec) // bits
    out = np.zeros((lanes.shape[0], *shape), dtype=np.uint64)
    mask = (1 << bits) - 1
    for q in range(lanes.shape[0]):
        for t in range(where.shape[0]):
            for v in range(where.shape[1]):
                r, c = where[t, v]
                out[q, r, c] = (int(words[lanes[q, t], v // per]) >> ((v % per) * bits)) & mask
    return out


def operands(spec: Spec, v: MmaSyncVariant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per quadpair: random exact A [M, K], B [N, K] and D = A Bᵀ (seeded by the atom)."""
    rng = np.random.default_rng(zlib.crc32(v.atom.encode()))
    lanes = facts.warp_threads(spec)
    quads = lanes // 8
    lo, hi = I.operand_range(spec, OPERAND, v.acc, K)
    a = rng.integers(lo, hi + 1, size=(quads, M, K))
    b = rng.integers(lo, hi + 1, size=(quads, N, K))
    return a, b, np.einsum("qmk,qnk->qmn", a, b)


def _body(v: MmaSyncVariant) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        lanes = quadpair_lanes(spec, v.thr_id)
        a_at, b_at = slots(v.a_layout, M, K), slots(v.b_layout, N, K)
        c_at = slots(v.c_layout, M, M * N // 8)
        a, b, want = operands(spec, v)
        zeros = np.zeros((facts.warp_threads(spec), v.nreg_d), dtype=np.uint32)
        res = sess.call("run_mma_sync", v, pack(spec, a, lanes, a_at, 2, OPERAND),
                        pack(spec, b, lanes, b_at, 2, OPERAND), zeros)
        if not res.ok:
            raise fail(f"{v.ptx_name}: the probe failed ({res.error_kind}): {res.error}",
                       code="gpu_fault", kernel=v.kernel_name)
        raw = unpack(spec, np.asarray(res.value), lanes, c_at, (M, N), v.acc)
        got = I.decode(spec, v.acc, raw.reshape(-1)).reshape(raw.shape)
        diff = I.diff_grid(f"D = A·Bᵀ of {v.atom}", want, got, axes=("quadpair", "m", "n"))
        fields: dict[str, Any] = {
            "kernel": v.kernel_name, "instruction": v.ptx_name,
            "layouts": {"ThrID": v.thr_id, "A": v.a_layout, "B": v.b_layout, "C": v.c_layout},
            "quadpair_lanes": lanes.tolist()}
        return verdicts.compared(
            diff, f"{v.ptx_name}: D bit-exact in all {lanes.shape[0]} quadpairs with A, B and C "
                  "placed by the atom's ThrID, ALayout, BLayout and CLayout", **fields)

    return body


def mma_sync_plan(spec: Spec) -> list[P.Planned]:
    """gpu.mma_sync[<atom>] for every SM70 atom the spec describes."""
    return [P.Planned(P.CHECK_MMA_SYNC, v.atom, (v,)) for v in mma_sync_variants(spec)]


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, mma_sync_plan, lambda p: _body(*p.args))
