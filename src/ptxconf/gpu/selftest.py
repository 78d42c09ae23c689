"""Layout-free self-checks of the probe machinery, and a campaign that records raw dumps.

`all_ones_case`: every element of A and B is 1 and the shared-memory regions are filled with
ones beyond anything a descriptor can reach, so D = K in every accumulator element whatever
the layout: a probe of any instruction form can be checked without the oracle. It shows that
the kernel runs, the operand lists are right, and every accumulator register comes back.

    python -m ptxconf.gpu.selftest --out DIR   # device, timings, per-variant results, dumps
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

from ptxconf.oracle.spec import Spec

from .variants import WgmmaVariant

#: Chosen (any in-range values serve): LBO and SBO of every all-ones case, and how many bytes
#: of ones back each operand (more than any of those layouts reaches at N <= 256).
ONES_LBO_BYTES = 128
ONES_SBO_BYTES = 256
ONES_A_BYTES = 4096
ONES_B_BYTES = 16384


def one_bits(spec: Spec, dtype: str) -> int:
    """The bit pattern of the value 1 in an element type (b1: the set bit)."""
    return value_bits(spec, dtype, 1)


def value_bits(spec: Spec, dtype: str, value: int) -> int:
    """The bit pattern of a small integer in an element type (ptxconf.oracle.interpret)."""
    from ptxconf.oracle.interpret import encode

    return int(encode(spec, dtype, [value])[0])


def fill_word(spec: Spec, dtype: str, pattern: int) -> int:
    """A register word holding `pattern` in every element slot of `dtype`."""
    from ptxconf.oracle.facts import register_bits

    bits = spec.element_bits(dtype)
    word = 0
    for slot in range(register_bits(spec) // bits):
        word |= pattern << (slot * bits)
    return word


def ones_bytes(spec: Spec, dtype: str, size: int) -> bytes:
    """`size` bytes in which every element of `dtype` is 1."""
    word = fill_word(spec, dtype, one_bits(spec, dtype))
    return np.full(size // 4, word, dtype=np.uint32).tobytes()


def descriptor_args(spec: Spec) -> dict[str, int]:
    """desc_start_shift / desc_start_lsb from the spec's start-address field."""
    from ptxconf.oracle.descriptor import descriptor_format

    f = descriptor_format(spec).field("start_address")
    return {"desc_start_shift": f.encode_shift_bits, "desc_start_lsb": f.lsb_bits}


def all_ones_launch(spec: Spec, v: WgmmaVariant) -> dict[str, Any]:
    """run_wgmma_dump keyword arguments (all but the variant) of a variant's all-ones case."""
    from ptxconf.oracle.descriptor import descriptor_format

    desc = descriptor_format(spec).encode(start_address_bytes=0, lbo_bytes=ONES_LBO_BYTES,
                                          sbo_bytes=ONES_SBO_BYTES, swizzle="none")
    a_regs = None
    if v.a_from_regs:
        a_regs = np.full((v.facts.warpgroup_threads, v.nreg_a),
                         fill_word(spec, v.atype, one_bits(spec, v.atype)), dtype=np.uint32)
    return {
        "a_smem": None if v.a_from_regs else ones_bytes(spec, v.atype, ONES_A_BYTES),
        "b_smem": ones_bytes(spec, v.btype, ONES_B_BYTES),
        "a_desc_rel": None if v.a_from_regs else desc,
        "b_desc_rel": desc,
        "a_regs": a_regs,
        **descriptor_args(spec),
    }


def all_ones_case(spec: Spec, v: WgmmaVariant) -> dict[str, Any]:
    """run_wgmma keyword arguments for the all-ones case of a variant."""
    return {"variant": v, **all_ones_launch(spec, v)}


def all_ones_expected(spec: Spec, v: WgmmaVariant) -> np.ndarray:
    """uint32 [threads, nreg_d]: every accumulator element equal to K."""
    word = fill_word(spec, v.dtype, value_bits(spec, v.dtype, v.k))
    return np.full((v.facts.warpgroup_threads, v.nreg_d), word, dtype=np.uint32)


def check_all_ones(spec: Spec, v: WgmmaVariant, regs: np.ndarray) -> str | None:
    """None when the dump is all K; else where it is not, first and last."""
    expected = all_ones_expected(spec, v)
    if regs.shape != expected.shape:
        return f"{v.kernel_name}: {regs.shape} accumulator words, expected {expected.shape}"
    bad = np.argwhere(regs != expected)
    if len(bad) == 0:
        return None
    (t0, r0), (t1, r1) = bad[0], bad[-1]
    return (f"{v.kernel_name}: {len(bad)} of {regs.size} words differ from "
            f"{int(expected[0, 0]):#010x} (K={v.k}); first thread {t0} reg {r0} = "
            f"{int(regs[t0, r0]):#010x}, last thread {t1} reg {r1} = {int(regs[t1, r1]):#010x}")


# --- the campaign --------------------------------------------------------------------------


def _campaign(spec: Spec, out: str | None, wide: bool) -> dict[str, Any]:
    from . import runner
    from .variants import WmmaVariant, isa_facts, wgmma_families, wmma_probe_variants

    report: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S")}
    dumps: dict[str, np.ndarray] = {}
    with runner.ProbeRunner(timeout_s=60, start_timeout_s=180) as r:
        report["device"] = r.call("device.describe").value
        usable = r.call("device.usable_sm90a")
        report["usable_sm90a"] = usable.value if usable.ok else [False, usable.error]
        if not (usable.ok and usable.value[0]):
            return report

        families = wgmma_families(spec, n=8)
        batches = {"wgmma_n8": families}
        if wide:
            batches["wgmma_n256"] = [f.with_n(256) for f in wgmma_families(spec, all_trans=False)]
        compile_s: dict[str, Any] = {}
        for label, vs in batches.items():
            res = r.call("prepare_wgmma", vs, timeout_s=600)
            compile_s[label] = {"kernels": len(vs), "seconds": round(res.seconds, 3),
                                "ok": res.ok, "error": res.error}
        wm = wmma_probe_variants(spec)
        res = r.call("prepare_wmma", wm, timeout_s=600)
        compile_s["wmma"] = {"kernels": len(wm), "seconds": round(res.seconds, 3), "ok": res.ok,
                             "error": res.error}
        report["compile"] = compile_s

        first = r.call("run_wgmma_dump", **all_ones_case(spec, families[0]))
        if first.ok:
            report["smem_base_address"] = hex(first.value.smem_base_address)
        rows = []
        for vs in batches.values():
            for v in vs:
                res = r.call("run_wgmma", **all_ones_case(spec, v))
                problem = check_all_ones(spec, v, res.value) if res.ok else res.error
                rows.append({"variant": v.kernel_name, "ptx": v.ptx_name, "ok": problem is None,
                             "problem": problem, "seconds": round(res.seconds, 5)})
                if res.ok:
                    dumps[f"ones_{v.kernel_name}"] = res.value
        report["wgmma_all_ones"] = rows

        wrows = []
        for w in wm:
            rec = _wmma_raw(r, w)
            wrows.append({k: val for k, val in rec.items() if k != "dump"})
            if rec.get("dump") is not None:
                dumps[w.kernel_name] = rec["dump"]
        report["wmma_raw"] = wrows

        # What a misaligned wmma pointer does (the alignment rule), and that the run survives.
        probe = WmmaVariant(op="load", matrix="a", m=16, n=16, k=16, dtype="f16", layout="row",
                            isa=isa_facts(spec))
        faults = []
        for offset, smem in ((2, False), (16, False), (2, True), (16, True)):
            res = r.call("run_wmma_load", probe, bytes(4096), ldm=16, offset_bytes=offset,
                         use_smem=smem)
            faults.append({"offset_bytes": offset, "use_smem": smem, "ok": res.ok,
                           "error_kind": res.error_kind, "error": res.error})
        after = r.call("run_wmma_load", probe, bytes(4096), ldm=16)
        report["wmma_misaligned"] = {"cases": faults, "next_probe_ok": after.ok,
                                     "restarts": r.restarts}
    if out:
        import os

        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "selftest.json"), "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1, default=str)
        # numpy's stubs type **kwds as the allow_pickle flag's bool, not the arrays it saves
        np.savez_compressed(os.path.join(out, "selftest_dumps.npz"), **dumps)  # type: ignore[arg-type]
    return report


def _wmma_raw(r: Any, v: Any) -> dict[str, Any]:
    """Load from / store to an index-coded image; the raw words and memory, uninterpreted."""
    bits = v.facts.bits(v.dtype)
    lanes = v.facts.warp_threads
    rows, cols = {"a": (v.m, v.k), "b": (v.k, v.n), "c": (v.m, v.n)}[v.matrix]
    nbytes = rows * cols * bits // 8
    ldm = cols if v.layout in ("row", None) else rows  # elements, as wmma counts the stride
    if v.op == "load":
        # Element e of the image, in memory order, holds e + 1 (truncated to its width); a
        # sub-byte image holds byte index + 1 in each byte.
        width = bits if bits >= 8 else 8
        count = nbytes * 8 // width
        codes = (np.arange(count, dtype=np.uint64) + 1) & ((1 << width) - 1)
        image = codes.astype(f"<u{width // 8}").tobytes()
        kw: dict[str, Any] = {"ldm": ldm}
        if v.matrix == "c":
            kw["col_major"] = False
        res = r.call("run_wmma_load", v, image + bytes(256), **kw)
    else:
        words = (np.arange(lanes * 8, dtype=np.uint32).reshape(lanes, 8) + 1)
        res = r.call("run_wmma_store", v, words, b"\xff" * (nbytes + 256), ldm=ldm,
                     col_major=False)
    rec: dict[str, Any] = {"variant": v.kernel_name, "ok": res.ok, "error": res.error,
                           "seconds": round(res.seconds, 5)}
    if res.ok:
        d = res.value
        rec.update(fragment_bytes=d.fragment_bytes, num_elements=d.num_elements,
                   pointer_address=d.pointer_address)
        rec["dump"] = d.words if v.op == "load" else np.frombuffer(d.memory, dtype=np.uint8)
    return rec


def main(argv: list[str] | None = None) -> int:
    """Run the campaign; print a one-line summary per section."""
    ap = argparse.ArgumentParser(prog="python -m ptxconf.gpu.selftest")
    ap.add_argument("--out", help="folder for selftest.json and selftest_dumps.npz")
    ap.add_argument("--no-wide", action="store_true", help="skip the N=256 variants")
    ap.add_argument("--spec-dir", help="the spec directory (default: the bundled spec)")
    args = ap.parse_args(argv)
    from ptxconf.oracle.spec import load_spec

    report = _campaign(load_spec(args.spec_dir), args.out, wide=not args.no_wide)
    print(json.dumps({k: v for k, v in report.items()
                      if k not in ("wgmma_all_ones", "wmma_raw")}, indent=1, default=str))
    ones = report.get("wgmma_all_ones", [])
    bad = [r for r in ones if not r["ok"]]
    print(f"wgmma all-ones: {len(ones) - len(bad)} of {len(ones)} variants give D = K")
    for r in bad[:20]:
        print("  ", r["variant"], r["problem"])
    wm = report.get("wmma_raw", [])
    print(f"wmma raw: {sum(1 for r in wm if r['ok'])} of {len(wm)} probes ran")
    for r in [r for r in wm if not r["ok"]][:20]:
        print("  ", r["variant"], r["error"])
    return 0 if ones and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
