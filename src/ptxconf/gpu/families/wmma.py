"""gpu.wmma.*: wmma fragment maps, store placement and the alignment rule.

* `gpu.wmma.load[<shape>.<type>.<matrix>[.<layout>][:<memory layout>]]`: an index-coded
  matrix loaded at the default stride and a padded one: every element must land in a fragment
  and the map must not depend on the stride. The map itself is officially unspecified: it is
  recorded as a device-tagged observation.
* `gpu.wmma.store[...]`: a fragment of index-coded words stored: each element lands where the
  load takes it from, and nothing outside the matrix is written.
* `gpu.wmma.align[<shape>.<type>.a.row:<pointer|stride>]`: a pointer or stride the rule
  forbids; the oracle's rule must reject it, and what silicon did is recorded (these may fault,
  so they run last).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome, fail, outcome, passed
from ptxconf.core.results import Status
from ptxconf.oracle import interpret as I
from ptxconf.oracle.records import WmmaAlignmentExample, WmmaDefaultStride
from ptxconf.oracle.spec import Spec
from ptxconf.oracle.wmma import check_alignment, matrix_shape

from .. import plan as P
from ..operands import round_up
from ..session import GpuBody, Session, planned_family
from ..variants import WmmaVariant

PROVIDER = "gpu-wmma"
#: Elements past a wmma matrix that are index-coded too, so a read beyond it is named.
WMMA_GUARD_ELEMS = 64
_BYTE = I.BITS_PER_BYTE


def _shape_row(spec: Spec, v: WmmaVariant) -> WmmaDefaultStride:
    return next(r for r in spec.of(WmmaDefaultStride)
                if (r.m_elems, r.n_elems, r.k_elems) == (v.m, v.n, v.k))


def _geometry(v: WmmaVariant) -> tuple[int, int]:

    return matrix_shape(v.m, v.n, v.k, v.matrix)


@dataclass(frozen=True)
class WmmaLoad:
    """A decoded wmma load: (row, col) per (lane, element), -1 where outside the matrix."""

    cells: np.ndarray  # int64 [lanes, elements, 2]
    index: np.ndarray  # int64 [lanes, elements]: element index from the pointer
    fragment_bytes: int
    num_elements: int


def _index_memory(spec: Spec, dtype: str, count: int, plan_: I.DigitPlan, j: int,
                  lead_bytes: int = 0) -> bytes:
    """Memory whose element slot i (from byte lead_bytes on) holds digit j of i."""
    bits = I.element_bits(spec, dtype)
    size = round_up(-(-count * bits // _BYTE), 16)
    return bytes(lead_bytes) + I.index_image(spec, dtype, size, plan_, j).tobytes()


def _load(sess: Session, v: WmmaVariant, ld: int, mem_layout: str,
          offset_bytes: int = 0, memory: str = "global") -> WmmaLoad | Any:
    """Index-coded load; returns the decoded map, or the failed ProbeResult."""
    spec = sess.spec
    rows, cols = _geometry(v)
    bits = I.element_bits(spec, v.dtype)
    count = I.wmma_span_elems(rows, cols, mem_layout, ld) + WMMA_GUARD_ELEMS
    plan_ = I.digit_plan(spec, v.dtype, count)
    digits = []
    frag_bytes = num = 0
    for j in range(plan_.digits):
        mem = _index_memory(spec, v.dtype, count, plan_, j, offset_bytes)
        kw: dict[str, Any] = {"ldm": ld, "offset_bytes": offset_bytes,
                              "use_smem": memory == "shared"}
        if v.matrix == "c":
            kw["col_major"] = mem_layout == "col"
        res = sess.call("run_wmma_load", v, mem, variants=[v], **kw)
        if not res.ok:
            return res
        d = res.value
        frag_bytes, num = d.fragment_bytes, d.num_elements
        raw = I.wmma_fragment_slots(d.words, num, frag_bytes, bits)
        digits.append(np.asarray(I.decode(spec, v.dtype, raw)))
    for x in digits:
        if x.dtype.kind == "f" and not np.all(np.isfinite(x) & (x == np.round(x))):
            raise fail(f"{v.kernel_name}: a fragment element is not an index digit",
                       code="silicon_disagrees")
    index = plan_.combine([x.astype(np.int64) for x in digits])
    lead, inner = (index // ld, index % ld)
    r, c = (lead, inner) if mem_layout == "row" else (inner, lead)
    inside = (r < rows) & (c < cols) & (index >= 0)
    cells = np.stack([np.where(inside, r, -1), np.where(inside, c, -1)], axis=-1)
    return WmmaLoad(cells, index, frag_bytes, num)


def _coverage(load: WmmaLoad, ld: int, rows: int, cols: int) -> tuple[list[str], list[int]]:
    """What is wrong with a load map at one stride, and [min, max] copies per element."""
    problems = []
    outside = np.argwhere(load.cells[..., 0] < 0)
    if len(outside):
        lane, e = (int(x) for x in outside[0])
        problems.append(f"ldm={ld}: {len(outside)} fragment elements hold no element of the "
                        f"matrix; first lane {lane} element {e} read element index "
                        f"{int(load.index[lane, e])}")
    covered = np.zeros((rows, cols), dtype=np.int64)
    ok = load.cells[..., 0] >= 0
    np.add.at(covered, (load.cells[..., 0][ok], load.cells[..., 1][ok]), 1)
    if covered.min() == 0:
        r, c = (int(x) for x in np.argwhere(covered == 0)[0])
        problems.append(f"ldm={ld}: {int((covered == 0).sum())} matrix elements are in no "
                        f"fragment; first ({r}, {c})")
    return problems, [int(covered.min()), int(covered.max())]


def _load_body(key: str, v: WmmaVariant, mem_layout: str, memory: str = "global") -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        rows, cols = _geometry(v)
        ld0 = _shape_row(spec, v).stride_elems(v.matrix, mem_layout)
        first = _load(sess, v, ld0, mem_layout, memory=memory)
        if not isinstance(first, WmmaLoad):
            raise fail(f"{v.kernel_name}: the load failed ({first.error_kind}): {first.error}",
                       code="gpu_fault")
        step = max(1, first.fragment_bytes * _BYTE // I.element_bits(spec, v.dtype))
        ld1 = ld0 + step
        second = _load(sess, v, ld1, mem_layout, memory=memory)
        if not isinstance(second, WmmaLoad):
            raise fail(f"{v.kernel_name} ldm={ld1}: the load failed ({second.error_kind}): "
                       f"{second.error}", code="gpu_fault")
        fields: dict[str, Any] = {
            "kernel": v.kernel_name, "matrix": f"{rows}x{cols} {mem_layout}-major",
            "memory": memory, "default_ldm_elems": ld0, "padded_ldm_elems": ld1,
            "fragment_bytes": first.fragment_bytes, "num_elements": first.num_elements,
            "map_fingerprint": I.fingerprint(first.cells), "map": I.map_lines(first.cells),
            "observation": "the wmma fragment map is officially unspecified: recorded, not "
                           "checked against a document"}
        problems = []
        for ld, load in ((ld0, first), (ld1, second)):
            found, copies = _coverage(load, ld, rows, cols)
            problems += found
            fields[f"copies_per_element_ldm{ld}"] = copies
        diff = I.diff_grid(f"fragment map at ldm={ld1} vs ldm={ld0}",
                           first.cells[..., 0] * cols + first.cells[..., 1],
                           second.cells[..., 0] * cols + second.cells[..., 1],
                           axes=("lane", "element"),
                           fmt=lambda c: f"({int(c) // cols},{int(c) % cols})")
        fields["stride_diff"] = diff.details()
        if not diff.ok:
            problems.append(f"the stride changed the fragment map: {diff.message()}")
        where = "from global memory"
        if memory != "global":
            glob = _load(sess, v, ld0, mem_layout)
            if not isinstance(glob, WmmaLoad):
                raise fail(f"{v.kernel_name}: the global-memory load failed: {glob.error}",
                           code="gpu_fault")
            same = I.diff_grid(f"fragment map from {memory} vs global memory",
                               glob.cells[..., 0] * cols + glob.cells[..., 1],
                               first.cells[..., 0] * cols + first.cells[..., 1],
                               axes=("lane", "element"),
                               fmt=lambda c: f"({int(c) // cols},{int(c) % cols})")
            fields["memory_diff"] = same.details()
            if not same.ok:
                problems.append(f"the {memory}-memory map differs: {same.message()}")
            where = f"from {memory} memory, the same map as from global memory"
        if problems:
            raise fail(f"{v.kernel_name}: " + "; ".join(problems), code="silicon_disagrees",
                       **fields)
        lo, hi = fields[f"copies_per_element_ldm{ld0}"]
        return passed(f"{rows}x{cols} {mem_layout}-major {where}, ldm {ld0} and {ld1}: every "
                      "element in "
                      f"a fragment ({lo}-{hi} copies), the same map for both strides, "
                      f"{first.num_elements} elements x {v.facts.warp_threads} lanes (map "
                      f"{fields['map_fingerprint']})", code="observed", **fields)

    return body


def _lane_fmt(num: int) -> Callable[[Any], str]:
    """A diff-table cell of a fragment code: lane.element (num elements per lane)."""
    def fmt(c: Any) -> str:
        return "none" if int(c) < 0 else f"lane{int(c) // num}.e{int(c) % num}"

    return fmt


def _store_body(key: str, v: WmmaVariant, mem_layout: str, memory: str = "global") -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        rows, cols = _geometry(v)
        lanes = v.facts.warp_threads
        ld0 = _shape_row(spec, v).stride_elems("c", mem_layout)
        load_v = replace(v, op="load")
        ref = _load(sess, load_v, ld0, mem_layout)
        if not isinstance(ref, WmmaLoad):
            raise fail(f"{load_v.kernel_name}: the reference load failed: {ref.error}",
                       code="gpu_fault")
        bits = I.element_bits(spec, v.dtype)
        num, fb = ref.num_elements, ref.fragment_bytes
        codes = np.arange(lanes * num, dtype=np.int64).reshape(lanes, num)
        words = I.wmma_fill_words(I.encode(spec, v.dtype, codes), fb, bits, -(-fb // 4))
        step = max(1, fb * _BYTE // bits)
        fields: dict[str, Any] = {"kernel": v.kernel_name, "reference_load": load_v.kernel_name,
                                  "matrix": f"{rows}x{cols} {mem_layout}-major", "memory": memory}
        problems = []
        for ld in (ld0, ld0 + step):
            span = I.wmma_span_elems(rows, cols, mem_layout, ld)
            size = round_up(-(-(span + WMMA_GUARD_ELEMS) * bits // _BYTE), 16)
            res = sess.call("run_wmma_store", v, words, b"\xff" * size, ldm=ld,
                            col_major=mem_layout == "col", use_smem=memory == "shared",
                            variants=[v])
            if not res.ok:
                raise fail(f"{v.kernel_name} ldm={ld}: the store failed ({res.error_kind}): "
                           f"{res.error}", code="gpu_fault", **fields)
            mem = np.frombuffer(res.value.memory, dtype=np.uint8)
            offs = I.wmma_element_offsets(rows, cols, mem_layout, ld, bits)
            got = I.decode(spec, v.dtype, I.gather(mem, offs, bits))
            got_codes = np.where(np.isfinite(got), got, -1).astype(np.int64)
            expected = np.full((rows, cols), -1, dtype=np.int64)
            cells = ref.cells
            lane, elem = np.nonzero(cells[..., 0] >= 0)
            expected[cells[lane, elem, 0], cells[lane, elem, 1]] = codes[lane, elem]
            diff = I.diff_grid(f"store placement at ldm={ld} vs the load map",
                               expected, got_codes, axes=("row", "col"), fmt=_lane_fmt(num))
            fields[f"ldm{ld}"] = diff.details()
            if not diff.ok:
                problems.append(diff.message())
            touched = np.ones(size, dtype=bool)
            for b in range(bits // _BYTE):
                touched[(offs + b).ravel()] = False
            if np.any(mem[touched] != 0xFF):
                first = int(np.argwhere(mem[touched] != 0xFF)[0][0])
                problems.append(f"ldm={ld}: the store wrote outside the matrix (byte "
                                f"{int(np.nonzero(touched)[0][first])})")
        if problems:
            raise fail(f"{v.kernel_name}: " + "; ".join(problems), code="silicon_disagrees",
                       **fields)
        return passed(f"{rows}x{cols} {mem_layout}-major, {memory} memory: store puts every "
                      "fragment element "
                      f"where the load takes it from, ldm {ld0} and {ld0 + step}, nothing "
                      "outside the matrix", **fields)

    return body


def _align_body(key: str, v: WmmaVariant, kind: str) -> GpuBody:
    """A pointer or stride the alignment rule forbids: the oracle's rule rejects it with a clear
    message (the harness never takes such a load as an answer); what silicon did with it
    (a fault, the right elements, or silently wrong ones) is recorded."""

    def body(sess: Session) -> Outcome:

        spec = sess.spec
        mem_layout = v.layout or "row"
        rows, cols = _geometry(v)
        ld0 = _shape_row(spec, v).stride_elems(v.matrix, mem_layout)
        bits = I.element_bits(spec, v.dtype)
        ref = _load(sess, v, ld0, mem_layout)
        if not isinstance(ref, WmmaLoad):
            raise fail(f"{v.kernel_name}: the aligned reference load failed: {ref.error}",
                       code="gpu_fault")
        fb = ref.fragment_bytes
        elem_bytes = max(1, bits // _BYTE)
        if kind == "pointer":
            offset, ld = (elem_bytes if elem_bytes < fb else fb // 2), ld0
        else:
            offset, ld = 0, ld0 + max(1, _BYTE // bits) if bits < _BYTE else ld0 + 1
        verdict = check_alignment(offset, ld, bits, fb, rows if mem_layout == "row" else cols)
        fields: dict[str, Any] = {"kernel": v.kernel_name, "fragment_bytes": fb,
                                  "pointer_offset_bytes": offset, "ldm_elems": ld,
                                  "rule": verdict.message, "rule_ok": verdict.ok}
        example = [r for r in spec.of(WmmaAlignmentExample)
                   if (r.shape, r.dtype, r.matrix, r.layout) == (v.shape, v.dtype, v.matrix,
                                                                   v.layout)]
        if example and example[0].fragment_bytes != fb:
            raise fail(f"{example[0].key} says the fragment is {example[0].fragment_bytes} B; "
                       f"the compiled fragment is {fb} B", **fields)
        if verdict.ok:
            raise outcome(Status.SKIP, "not_runnable", f"pointer +{offset} B, ldm {ld}: the rule "
                          f"allows it; with {fb}-B fragments of {bits}-bit elements no {kind} "
                          "breaks the rule", **fields)
        got = _load(sess, v, ld, mem_layout, offset_bytes=offset)
        head = f"the rule rejects it ({verdict.message})"
        if not isinstance(got, WmmaLoad):
            fields["silicon"] = f"{got.error_kind}: {got.error}"
            if got.error_kind not in ("cuda", "crash", "timeout"):
                raise fail(f"{v.kernel_name}: the probe failed outside CUDA: {got.error}",
                           code="gpu_fault", **fields)
            return passed(f"{head}; silicon: {got.error}", code="observed", **fields)
        wrong = int((got.cells != ref.cells).any(axis=-1).sum())
        fields["silicon"] = ("loaded the right elements" if not wrong else
                             f"loaded {wrong} of {ref.cells.shape[0] * ref.cells.shape[1]} "
                             "fragment elements from the wrong place, silently")
        fields["silicon_map"] = I.fingerprint(got.cells)
        if wrong:
            return passed(f"{head}; silicon: no error, {wrong} fragment elements silently wrong "
                          "(the rule is what stands between this input and a wrong answer)",
                          code="observed", **fields)
        return passed(f"{head}; silicon tolerated it and loaded the right elements (the rule is "
                      "stricter than this device)", code="observed", **fields)

    return body


_BODIES: dict[str, Callable[..., GpuBody]] = {
    P.CHECK_WMMA_LOAD: _load_body, P.CHECK_WMMA_STORE: _store_body,
    P.CHECK_WMMA_ALIGN: _align_body}


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, P.wmma_plan, lambda p: _BODIES[p.check](p.key, *p.args))
