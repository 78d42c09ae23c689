"""gpu.mma_sync[<atom>]: CuTe's mma.sync atoms (SM70 8x8x4, SM80 16x8xK, SM89 FP8), on the device.

A warp is split into the atom's thread groups: the SM70 ThrID names a quadpair (the warp's
four quadpairs each compute their own 8x8x4 product), an SM80 ThrID the whole warp. Random
exact operands go into the lanes' registers where the atom's ThrID, ALayout, BLayout and
CLayout rows say (thread t of group g is lane ThrID(t) + g x the group step; value v is
element v % per of register v // per, per = register bits / element bits, low to high), and
D, read where the CLayout row says, must equal the host's A·Bᵀ + C bit for bit in every group:
one case checks the thread map and all three layouts at once. A layout that is wrong for the
instruction gives a diff table in (group, m, n).
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome, fail
from ptxconf.oracle import facts, verdicts
from ptxconf.oracle import interpret as I
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import NotationError, parse
from ptxconf.oracle.spec import Spec

from .. import plan as P
from ..mma_sync import MmaSyncVariant, mma_sync_variants
from ..session import GpuBody, Session, planned_family

PROVIDER = "gpu-mma_sync"


def _layout(text: str) -> Layout:
    """A plain CuTe layout from the spec's notation (ValueError for a swizzle, a composition
    or text that does not parse)."""
    try:
        lay = parse(text)
    except NotationError as exc:
        raise ValueError(f"{text!r} does not parse: {exc}") from None
    if not isinstance(lay, Layout):
        raise ValueError(f"{text!r} is not a plain layout")
    return lay


def group_lanes(spec: Spec, thr_id: str) -> np.ndarray:
    """int [groups, threads]: the lane of each thread group's logical thread. Group 0 is the
    ThrID layout; the others are it moved by the first lane it leaves out, and together they
    must cover the warp once."""
    thr = _layout(thr_id)
    first = np.array([thr(t) for t in range(thr.size())])
    lanes = facts.warp_threads(spec)
    left = set(range(lanes)) - set(first.tolist())
    step = min(left) if left else lanes
    out = np.stack([first + g * step for g in range(lanes // len(first))])
    if sorted(out.ravel().tolist()) != list(range(lanes)):
        raise ValueError(f"ThrID {thr_id}: its thread groups do not cover the {lanes} lanes once")
    return out


def slots(layout_text: str, rows: int) -> np.ndarray:
    """int [threads, values, 2]: the (row, col) each (thread, value) of a (thread, value)
    layout holds, its codomain being row + col x rows."""
    lay = _layout(layout_text)
    thr, val = lay[0], lay[1]
    idx = np.array([[thr(t) + val(v) for v in range(val.size())] for t in range(thr.size())])
    return np.stack([idx % rows, idx // rows], axis=-1)


def pack(spec: Spec, vals: np.ndarray, lanes: np.ndarray, where: np.ndarray, nwords: int,
         dtype: str) -> np.ndarray:
    """uint32 [warp lanes, nwords]: each group's matrix `vals[g]` of `dtype` values put into
    its lanes' words (value v at bits (v % per) x width of word v // per)."""
    bits = I.element_bits(spec, dtype)
    per = facts.register_bits(spec) // bits
    words = np.zeros((facts.warp_threads(spec), nwords), dtype=np.uint64)
    raw = I.encode(spec, dtype, vals)
    for g in range(lanes.shape[0]):
        for t in range(where.shape[0]):
            for v in range(where.shape[1]):
                r, c = where[t, v]
                words[lanes[g, t], v // per] |= np.uint64(int(raw[g, r, c])) << np.uint64(
                    (v % per) * bits)
    return words.astype(np.uint32)


def unpack(spec: Spec, words: np.ndarray, lanes: np.ndarray, where: np.ndarray,
           shape: tuple[int, int], dtype: str) -> np.ndarray:
    """uint64 [groups, rows, cols]: the raw bits each group's lanes hold per (row, col)."""
    bits = I.element_bits(spec, dtype)
    per = facts.register_bits(spec) // bits
    out = np.zeros((lanes.shape[0], *shape), dtype=np.uint64)
    mask = (1 << bits) - 1
    for g in range(lanes.shape[0]):
        for t in range(where.shape[0]):
            for v in range(where.shape[1]):
                r, c = where[t, v]
                out[g, r, c] = (int(words[lanes[g, t], v // per]) >> ((v % per) * bits)) & mask
    return out


def operands(spec: Spec, v: MmaSyncVariant, groups: int) -> tuple[np.ndarray, ...]:
    """Per group: random exact A [M, K], B [N, K], C [M, N] and D = A·Bᵀ + C (seeded by the
    atom). C is one more product term: A and B are drawn for a K+1-deep sum
    (`interpret.operand_range`), |C| <= max|A| x max|B|, so every partial sum is exact."""
    rng = np.random.default_rng(zlib.crc32(v.atom.encode()))
    alo, ahi = I.operand_range(spec, v.atype, v.dtype, v.k + 1)
    blo, bhi = I.operand_range(spec, v.btype, v.dtype, v.k + 1)
    cmax = min(max(-alo, ahi) * max(-blo, bhi), I.value_range(spec, v.ctype)[1])
    a = rng.integers(alo, ahi + 1, size=(groups, v.m, v.k))
    b = rng.integers(blo, bhi + 1, size=(groups, v.n, v.k))
    c = rng.integers(-cmax if I.value_range(spec, v.ctype)[0] < 0 else 0, cmax + 1,
                     size=(groups, v.m, v.n))
    return a, b, c, np.einsum("gmk,gnk->gmn", a, b) + c


def placement(spec: Spec, v: MmaSyncVariant) -> tuple[np.ndarray, ...]:
    """(group lanes, A slots, B slots, C slots) of an atom (ValueError where a row is missing
    or does not read)."""
    missing = [r for r, text in (("ThrID", v.thr_id), ("ALayout", v.a_layout),
                                 ("BLayout", v.b_layout), ("CLayout", v.c_layout)) if not text]
    if missing:
        raise ValueError(f"{v.atom}: no {', '.join(missing)} row")
    return (group_lanes(spec, v.thr_id), slots(v.a_layout, v.m), slots(v.b_layout, v.n),
            slots(v.c_layout, v.m))


def _body(v: MmaSyncVariant) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        try:
            lanes, a_at, b_at, c_at = placement(spec, v)
        except ValueError as exc:
            raise fail(f"{v.ptx_name}: {exc}", code="malformed", atom=v.atom) from None
        a, b, c, want = operands(spec, v, lanes.shape[0])
        res = sess.call("run_mma_sync", v, pack(spec, a, lanes, a_at, v.a_words, v.atype),
                        pack(spec, b, lanes, b_at, v.b_words, v.btype),
                        pack(spec, c, lanes, c_at, v.c_words, v.ctype))
        if not res.ok:
            raise fail(f"{v.ptx_name}: the probe failed ({res.error_kind}): {res.error}",
                       code="gpu_fault", kernel=v.kernel_name)
        raw = unpack(spec, np.asarray(res.value), lanes, c_at, (v.m, v.n), v.dtype)
        got = I.decode(spec, v.dtype, raw.reshape(-1)).reshape(raw.shape)
        diff = I.diff_grid(f"D = A·Bᵀ + C of {v.atom}", want, got, axes=("group", "m", "n"))
        fields: dict[str, Any] = {
            "kernel": v.kernel_name, "instruction": v.ptx_name,
            "layouts": {"ThrID": v.thr_id, "A": v.a_layout, "B": v.b_layout, "C": v.c_layout},
            "registers": {"A": v.a_words, "B": v.b_words, "C": v.c_words},
            "group_lanes": lanes.tolist()}
        return verdicts.compared(
            diff, f"{v.ptx_name}: D bit-exact in all {lanes.shape[0]} thread group(s) with A, B "
                  "and C placed by the atom's ThrID, ALayout, BLayout and CLayout", **fields)

    return body


def mma_sync_plan(spec: Spec) -> list[P.Planned]:
    """gpu.mma_sync[<atom>] for every mma.sync atom the spec describes."""
    return [P.Planned(P.CHECK_MMA_SYNC, v.atom, (v,)) for v in mma_sync_variants(spec)]


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, mma_sync_plan, lambda p: _body(*p.args))
