"""`ptxconf bench`: figures for the costs that matter, measured in one run (ratios) and printed.

Never a timed test: these numbers are read by people. Absolute GPU times only mean something
on the GPU machine; on a CPU machine the GPU rows say why they are absent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from ptxconf.oracle.spec import Spec, load_spec


def _time(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best-of-n wall time of fn, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measurements(spec: Spec) -> list[dict[str, Any]]:
    """Each row: what, seconds, and a note."""
    from ptxconf.oracle.canonical import SmemQuery, smem_offsets
    from ptxconf.oracle.checks import all_cases

    rows: list[dict[str, Any]] = []
    rows.append({"what": "load + lint spec/", "seconds": _time(lambda: load_spec(spec.root))})
    cases = list(all_cases(spec))
    rows.append({"what": f"self-consistency ({len(cases)} cases)",
                 "seconds": _time(lambda: [c.run() for c in cases], repeat=1)})
    q = SmemQuery("bf16", "K", "128B", 64, 64, 16, 1024)
    rows.append({"what": "smem_offsets 64x64 bf16 K_SW128",
                 "seconds": _time(lambda: smem_offsets(spec, q))})
    try:
        from ptxconf.oracle.proofs.cases import proof_cases
    except ImportError:
        rows.append({"what": "proofs", "seconds": None, "note": "proofs module absent"})
    else:
        pcs = list(proof_cases(spec, timeout_s=60))
        rows.append({"what": f"proofs ({len(pcs)} claims)",
                     "seconds": _time(lambda: [c.run() for c in pcs], repeat=1)})
    try:
        from ptxconf.gpu.witness import witness_available, witness_cases
    except ImportError:
        rows.append({"what": "assembler witness", "seconds": None, "note": "gpu.witness absent"})
    else:
        ok, why = witness_available()
        if ok:
            wcs = list(witness_cases(spec))
            rows.append({"what": f"assembler witness ({len(wcs)} cases, NVRTC)",
                         "seconds": _time(lambda: [c.run() for c in wcs], repeat=1)})
        else:
            rows.append({"what": "assembler witness", "seconds": None, "note": why})
    return rows


def run_bench(spec: Spec, as_json: bool = False) -> int:
    """Print the table (or JSON)."""
    rows = measurements(spec)
    if as_json:
        print(json.dumps({"bench": rows}))
        return 0
    for r in rows:
        secs = "-" if r["seconds"] is None else f"{r['seconds'] * 1e3:10.1f} ms"
        print(f"{r['what']:50} {secs:>14}  {r.get('note', '')}")
    return 0
