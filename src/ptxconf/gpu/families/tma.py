"""gpu.tma_write[<mode row>.<element bytes>B]: TMA writes every box where the oracle says.

For one swizzling mode and element size, every copy of `ptxconf.gpu.tma.writes` (every inner
width the driver allows, a destination on the repeat and one 128-byte line past it) runs once:
cuTensorMapEncodeTiled with the spec's CUtensorMapSwizzle value (its name in cuda-bindings must
be the row's id), one cp.async.bulk.tensor.2d into a window filled with FILL_BYTE, the window
dumped. The dump is compared, byte for byte, with the window the oracle predicts at the
window's absolute address under each reading of hypotheses.TMA_SWIZZLE_BASE (the box
row-major; the mode's swizzle on the absolute byte address, documented, or restarted at the
destination); bytes the copy should not touch must still hold FILL_BYTE. A swizzled mode's case
passes when silicon follows the documented reading alone (the copies one line past the repeat
tell them apart), is a discrepancy when it follows the other, a failure when neither; without a
swizzle the two are one map. The case key is the proof's (proof.tma_box_bijective[<same key>]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ptxconf.core.cases import Outcome, fail, passed
from ptxconf.oracle import hypotheses, verdicts
from ptxconf.oracle.records import TmaSwizzleMode
from ptxconf.oracle.spec import Spec
from ptxconf.oracle.tma import swizzle_of

from .. import plan as P
from ..session import GpuBody, Session, planned_family
from ..tma import FILL_BYTE, TmaWrite, largest_repeat, predicted_window, sizes, tensor_bytes, writes

PROVIDER = "gpu-tma"
#: Mismatching bytes listed in a failing case's fields, per copy.
SHOWN = 8


def _body(key: str, copies: tuple[TmaWrite, ...]) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        repeat = largest_repeat(spec)
        hyp = hypotheses.TMA_SWIZZLE_BASE
        readings: dict[str, str] = {}
        bad: list[dict[str, Any]] = []
        seen: dict[str, Any] = {}
        for w in copies:
            data = tensor_bytes(w)
            size = w.window_bytes(repeat)
            res = sess.call("run_tma_write", w, data, size, FILL_BYTE)
            if not res.ok:
                raise fail(f"{w.label}: the probe failed ({res.error_kind}): {res.error}",
                           code="gpu_fault", copy=w.label)
            dump = res.value
            if dump.enumerator != w.enumerator:
                raise fail(f"{w.enumerator}: the spec's value {w.code} is "
                           f"{dump.enumerator} in cuda-bindings", code="mismatch",
                           spec_id=w.enumerator, code_value=w.code, bindings=dump.enumerator)
            got = np.asarray(dump.window, dtype=np.uint8)
            seen = {"launch": dump.launch, "window_address": hex(dump.window_address)}
            for reading in hyp.readings:
                want = predicted_window(spec, w, dump.window_address, data, size, reading)
                verdicts.merge(readings, {reading: verdicts.agreement(want, got)})
                wrong = np.flatnonzero(got != want)
                if reading == hyp.documented and wrong.size:
                    bad.append({"copy": w.label, "bytes_wrong": int(wrong.size),
                                "first": [{"offset": hex(int(i)), "expected": int(want[i]),
                                           "got": int(got[i])} for i in wrong[:SHOWN]]})
        fields = {"copies": len(copies), "mode": copies[0].swizzle,
                  "elem_bytes": copies[0].elem_bytes, "wrong": bad or None, **seen}
        widths = sorted({c.inner_bytes for c in copies})
        what = f"{key}: {len(copies)} copies (inner {widths} B, on the repeat and one line past it)"
        if swizzle_of(spec, copies[0].swizzle).bits:
            return verdicts.hypothesis_verdict(hyp.name, hyp.documented, readings, what, **fields)
        if bad:  # no swizzle: the readings are one map
            raise fail(f"{what}: {len(bad)} differ from the oracle; first {bad[0]['copy']}: "
                       f"{bad[0]['bytes_wrong']} bytes", code="silicon_disagrees", **fields)
        return passed(f"{what}: every byte lands where the oracle puts it", **fields)

    return body


def tma_plan(spec: Spec) -> list[P.Planned]:
    """gpu.tma_write[<mode row>.<bytes>B] for every mode and whole-byte element size."""
    out = []
    for row in spec.of(TmaSwizzleMode):
        for e, dtype in sizes(spec):
            key = f"{row.key}.{e}B"
            out.append(P.Planned(P.CHECK_TMA, key, (key, writes(spec, row, e, dtype))))
    return out


#: The family's (check, key) pairs and its cases (`session.planned_family`).
case_keys, cases = planned_family(PROVIDER, tma_plan, lambda p: _body(*p.args))
