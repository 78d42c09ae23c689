"""The assembler as a witness: which wgmma forms do NVRTC and ptxas accept for sm_90a (no GPU).

Many variants are spelled in one witness kernel, each on a PTX line of its own with registers
tagged `w<i>`, so one compile answers for all of them: an assembler error names a PTX line,
the line names the variant. When an error names no variant the batch is bisected.
`witness_valid_n` sweeps N for each instruction family; `ptxconf.gpu.witness` turns the sweep
into cases and `ptxconf.spec_assembler` into `spec validate`'s assembler stage.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .build import (
    ARCH_OPTIONS,
    CompileResult,
    _asm_string,
    _generated_header,
    kernel_text,
    nvrtc_compile,
    nvrtc_version,
)
from .variants import WgmmaVariant

_TAG = re.compile(r"\bw(\d+)d0\b")
_ERROR_LINE = re.compile(r"line (\d+);")
_ABORT_SUMMARY = "Ptx assembly aborted due to errors"  # ptxas's closing line: names no line


def witness_block(v: WgmmaVariant, tag: int) -> str:
    """One asm statement that spells `v` with registers of its own, on one PTX line."""
    regs = f".reg .b32 w{tag}d<{v.nreg_d}>; .reg .pred w{tag}p; "
    d = [f"w{tag}d{i}" for i in range(v.nreg_d)]
    a: str | list[str] = "%0"
    if v.a_from_regs:
        regs += f".reg .b32 w{tag}a<{v.nreg_a}>; "
        a = [f"w{tag}a{i}" for i in range(v.nreg_a)]
    ptx = (f"{{ {regs}setp.ne.b32 w{tag}p, %2, 0; "
           f"{v.ptx_name} {v.operand_text(d, a, '%1', f'w{tag}p')}; }}")
    return f'  asm volatile({_asm_string(ptx)} :: "l"(a_desc), "l"(b_desc), "r"(scale_d));\n'


def witness_source(variants: Sequence[WgmmaVariant]) -> str:
    """One kernel spelling every variant; the i-th variant's registers are tagged w<i>."""
    body = "".join(witness_block(v, i) for i, v in enumerate(variants))
    return (_generated_header("wgmma_witness.cu", len(variants))
            + kernel_text("wgmma_witness.cu")
            + "\nWGMMA_WITNESS_KERNEL(wgmma_witness) {\n" + body + "}\n")


def _blame(result: CompileResult, count: int) -> dict[int, list[str]] | None:
    """Map each assembler error line to the variant tagged on that PTX line.

    None when some error names no variant (then the caller bisects).
    """
    if result.ptx is None:
        return None
    ptx_lines = result.ptx.splitlines()
    blamed: dict[int, list[str]] = {}
    for line in result.log.splitlines():
        if _ABORT_SUMMARY in line or not re.search(r"\berror\b|\bfatal\b", line):
            continue
        m = _ERROR_LINE.search(line)
        if m is None or not 0 < int(m[1]) <= len(ptx_lines):
            return None
        tag = _TAG.search(ptx_lines[int(m[1]) - 1])
        if tag is None or int(tag[1]) >= count:
            return None
        blamed.setdefault(int(tag[1]), []).append(line.strip())
    return blamed or None


def _check_batch(variants: list[WgmmaVariant]) -> list[tuple[bool, str]]:
    """(accepted, log) per variant, from as few compiles as the errors allow."""
    if not variants:
        return []
    result = nvrtc_compile(witness_source(variants), ARCH_OPTIONS, name="wgmma_witness.cu",
                           want_ptx=True, cache=False)
    if result.ok:
        return [(True, "")] * len(variants)
    blamed = _blame(result, len(variants))
    if blamed is None:
        if len(variants) == 1:
            return [(False, result.log)]
        half = len(variants) // 2
        return _check_batch(variants[:half]) + _check_batch(variants[half:])
    rest = [i for i in range(len(variants)) if i not in blamed]
    rest_results = iter(_check_batch([variants[i] for i in rest]))
    return [(False, "\n".join(blamed[i])) if i in blamed else next(rest_results)
            for i in range(len(variants))]


def compile_check_many(variants: Sequence[WgmmaVariant], *, batch: int = 1024,
                       threads: int = 1) -> list[tuple[bool, str]]:
    """Whether NVRTC/ptxas accept each instruction variant, with the assembler's words.

    A variant counts as accepted only when a module holding it compiled without error; a
    rejected one carries the assembler errors that name its line. Measured on 2 cores:
    batches of ~1024 variants are fastest, and threads gain nothing (NVRTC serializes).
    """
    variants = list(variants)
    chunks = [variants[i:i + batch] for i in range(0, len(variants), batch)]
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        parts = list(pool.map(_check_batch, chunks))
    return [r for part in parts for r in part]


def compile_check(variant: WgmmaVariant) -> tuple[bool, str]:
    """Whether NVRTC/ptxas accept one instruction variant for sm_90a, and the log."""
    return compile_check_many([variant])[0]


@dataclass(frozen=True)
class WitnessSweep:
    """The assembler's valid-N sets per instruction family, and what the sweep cost."""

    accepted_n: dict[tuple[str, str, str, str, bool], tuple[int, ...]]
    rejections: dict[tuple[str, str, str, str, bool], dict[int, str]]
    candidates: int
    seconds: float
    nvrtc: tuple[int, int]


def witness_valid_n(families: Sequence[WgmmaVariant],
                    n_values: Iterable[int] = range(1, 257), *, batch: int = 1024,
                    threads: int = 1) -> WitnessSweep:
    """Ask the assembler which N each instruction family accepts (e.g. every spec row, SS and
    RS, with and without .satfinite: `variants.wgmma_families(spec, all_trans=False)`)."""
    fams = list(families)
    ns = list(n_values)
    cands = [f.with_n(n) for f in fams for n in ns]
    start = time.perf_counter()
    results = compile_check_many(cands, batch=batch, threads=threads)
    seconds = time.perf_counter() - start
    accepted: dict[Any, list[int]] = {f.family: [] for f in fams}
    rejected: dict[Any, dict[int, str]] = {f.family: {} for f in fams}
    for v, (ok, log) in zip(cands, results, strict=True):
        if ok:
            accepted[v.family].append(v.n)
        else:
            rejected[v.family][v.n] = log
    return WitnessSweep({k: tuple(sorted(v)) for k, v in accepted.items()}, rejected,
                        len(cands), seconds, nvrtc_version())


__all__ = ["WitnessSweep", "compile_check", "compile_check_many", "witness_block", "witness_source",
           "witness_valid_n"]
