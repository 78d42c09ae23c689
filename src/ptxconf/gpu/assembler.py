"""The assembler as a witness: which wgmma forms do NVRTC and ptxas accept for sm_90a (no GPU).

Many variants are spelled in one witness kernel, each on a PTX line of its own with registers
tagged `w<i>`, so one compile answers for all of them: an assembler error names a PTX line,
the line names the variant. When an error names no variant the batch is bisected.
`witness_valid_n` sweeps N for each instruction family; `ptxconf.gpu.witness` turns the sweep
into cases and `ptxconf.app.spec_assembler` into `spec validate`'s assembler stage.

The assembler's verdicts on a witness kernel can be kept on disk (`verdict_folder`), keyed
like a compiled module (`kcache.module_key`: the kernel's source, the options, the NVRTC and
driver versions), so that a warm rerun asks the assembler nothing.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import time
import zlib
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ptxconf.core.atomic import write_atomic

from .build import (
    ARCH_OPTIONS,
    CompileResult,
    _asm_string,
    _generated_header,
    kernel_text,
    nvrtc_compile,
    nvrtc_version,
)
from .kcache import Module, cache_dir, module_key
from .variants import IsaFacts, WgmmaVariant

_TAG = re.compile(r"\bw(\d+)d0\b")
_ERROR_LINE = re.compile(r"line (\d+);")
_ABORT_SUMMARY = "Ptx assembly aborted due to errors"  # ptxas's closing line: names no line


#: Where a witness block's tag goes: its text is made once per form (`_block_text`) with this
#: mark in place of `w<i>`, then each block is one replace (the sweep spells some 10,000 forms,
#: again for every spec a process loads: building each block's register lists anew cost about
#: 35 us a block, a third of a second a sweep).
_MARK = "\0"


def witness_block(v: WgmmaVariant, tag: int) -> str:
    """One asm statement that spells `v` with registers of its own, on one PTX line."""
    return _block_text(v).replace(_MARK, f"w{tag}")


def _block_text(v: WgmmaVariant) -> str:
    """`witness_block`'s text with _MARK where the tag goes (the register lists from
    `_registers`), made once a form and spec facts: the sweeps of the specs a process loads
    spell the same forms again (about 10 us a block)."""
    return _form_text(v, v.facts)


@functools.lru_cache(maxsize=1 << 15)
def _form_text(v: WgmmaVariant, isa: IsaFacts) -> str:
    """`_block_text` of a form under these facts (the text reads nothing else: `v` stands for
    every variant equal to it, which shares its fields and, as `isa`, its facts)."""
    regs = f".reg .b32 {_MARK}d<{v.nreg_d}>; .reg .pred {_MARK}p; "
    a: str | list[str] = "%0"
    if v.a_from_regs:
        regs += f".reg .b32 {_MARK}a<{v.nreg_a}>; "
        a = [_registers("a", v.nreg_a)]
    # each list is one item already joined: operand_text's braces and commas come out the same
    ptx = (f"{{ {regs}setp.ne.b32 {_MARK}p, %2, 0; "
           f"{v.ptx_name} {v.operand_text([_registers('d', v.nreg_d)], a, '%1', f'{_MARK}p')}; }}")
    return f'  asm volatile({_asm_string(ptx)} :: "l"(a_desc), "l"(b_desc), "r"(scale_d));\n'


@functools.cache
def _registers(kind: str, count: int) -> str:
    """`<mark>d0, <mark>d1, ...`: a block's `count` registers of one kind, comma-separated."""
    return ", ".join(f"{_MARK}{kind}{i}" for i in range(count))


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


def verdict_folder(use_cache: bool) -> Path | None:
    """Where witness verdicts are kept: beside the compiled modules (`kcache.cache_dir`), or
    None (`--no-cache`: the assembler is asked again)."""
    if not use_cache:
        return None

    return cache_dir() / "witness"


def _verdict_path(folder: Path | None, source: str) -> Path | None:
    if folder is None:
        return None

    return folder / f"{module_key(Module('', source, tuple(ARCH_OPTIONS)))}.json"


def _kept(path: Path | None, count: int) -> list[tuple[bool, str]] | None:
    """The verdicts kept for a witness kernel of `count` variants, or None (none, or unreadable:
    then the assembler is asked)."""
    if path is None or not path.is_file():
        return None
    try:
        got = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if (not isinstance(got, list) or len(got) != count
            or not all(isinstance(g, list) and len(g) == 2 for g in got)):
        return None
    return [(bool(ok), str(log)) for ok, log in got]


def _keep(path: Path | None, verdicts: list[tuple[bool, str]]) -> None:
    """Write verdicts whole or not at all (`core.atomic.write_atomic`: no temporary file is left on
    a full disk); a cache that cannot be written is only a slower next run."""
    if path is None:
        return

    with contextlib.suppress(OSError):
        write_atomic(path, json.dumps(verdicts))


@dataclass
class Asked:
    """What a witness sweep asked: its witness kernels, those the cache answered, and the
    assembler runs the rest took (a kernel with errors naming no variant is bisected)."""

    kernels: int = 0
    from_cache: int = 0
    compiles: int = 0


def _check_batch(variants: list[WgmmaVariant], folder: Path | None = None,
                 asked: Asked | None = None) -> list[tuple[bool, str]]:
    """(accepted, log) per variant, from as few compiles as the errors allow (none where the
    verdicts on this very kernel are kept in `folder`)."""
    if not variants:
        return []
    asked = asked if asked is not None else Asked()
    source = witness_source(variants)
    path = _verdict_path(folder, source)
    kept = _kept(path, len(variants))
    if kept is not None:
        asked.from_cache += 1
        return kept
    asked.compiles += 1
    result = nvrtc_compile(source, ARCH_OPTIONS, name="wgmma_witness.cu", want_ptx=True)
    if result.ok:
        out = [(True, "")] * len(variants)
    elif (blamed := _blame(result, len(variants))) is None:
        if len(variants) == 1:
            out = [(False, result.log)]
        else:
            half = len(variants) // 2
            out = _check_batch(variants[:half], None, asked) + _check_batch(variants[half:], None, asked)
    else:
        rest = [i for i in range(len(variants)) if i not in blamed]
        rest_results = iter(_check_batch([variants[i] for i in rest], None, asked))
        out = [(False, "\n".join(blamed[i])) if i in blamed else next(rest_results)
               for i in range(len(variants))]
    _keep(path, out)
    return out


def compile_check_many(variants: Sequence[WgmmaVariant], *, batch: int = 1024,
                       threads: int = 1, folder: Path | None = None,
                       asked: Asked | None = None) -> list[tuple[bool, str]]:
    """Whether NVRTC/ptxas accept each instruction variant, with the assembler's words.

    A variant counts as accepted only when a module holding it compiled without error; a
    rejected one carries the assembler errors that name its line. Measured on 2 cores:
    batches of ~1024 variants are fastest, and threads gain nothing (NVRTC serializes).
    `folder`: where verdicts are kept (`verdict_folder`); `asked` counts compiles and kept
    answers.
    """
    variants = list(variants)
    asked = asked if asked is not None else Asked()
    chunks = [variants[i:i + batch] for i in range(0, len(variants), batch)]
    asked.kernels += len(chunks)
    if threads <= 1:  # here: a signal stops the sweep after the compile under way
        parts = [_check_batch(c, folder, asked) for c in chunks]
    else:
        pool = ThreadPoolExecutor(max_workers=threads)
        try:
            parts = list(pool.map(lambda c: _check_batch(c, folder, asked), chunks))
        except BaseException:  # a signal: the compiles not yet started never start
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
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


#: How many N values one block of the valid-N sweep asks (witness_valid_n): every N wgmma has
#: (8..256) lies in the first block.
N_BLOCK = 256


def family_kernels(families: Sequence[WgmmaVariant], per_kernel: int) -> list[list[WgmmaVariant]]:
    """The families split into runs, one witness kernel each: a run ends before a family whose
    checksum is a multiple of `per_kernel` (so `per_kernel` families a kernel on average) or once
    it holds twice that. Where a run ends depends on the families near it, not on how many came
    before: an added, dropped or edited row changes the kernel that holds it, and a few after it
    only where a run was cut at twice the mean (over the bundled spec's rows: 1.6 kernels an
    edit, at most 4 of 9); every other kernel, and its kept verdicts, stays as it was."""
    runs: list[list[WgmmaVariant]] = []
    for f in families:
        if not runs or (runs[-1] and (len(runs[-1]) >= 2 * per_kernel
                                      or zlib.crc32(repr(f.family).encode()) % per_kernel == 0)):
            runs.append([])
        runs[-1].append(f)
    return runs


def witness_valid_n(families: Sequence[WgmmaVariant],
                    n_values: Iterable[int] = range(1, 257), *, batch: int = 1024,
                    threads: int = 1, folder: Path | None = None,
                    asked: Asked | None = None) -> WitnessSweep:
    """Ask the assembler which N each instruction family accepts (e.g. every spec row, SS and
    RS, with and without .satfinite: `variants.wgmma_families(spec, all_trans=False)`), about
    `batch` variants a witness kernel."""
    fams = list(families)
    ns = list(n_values)
    # Asked in blocks of N_BLOCK N values, each block's witness kernels of their own (a range
    # that grows past a block, an edited row listing N = 272, adds kernels and leaves those of
    # the blocks before it as they were), each block's families in runs (family_kernels).
    kernels = [[f.with_n(n) for f in run for n in ns[lo:lo + N_BLOCK]]
               for lo in range(0, len(ns), N_BLOCK)
               for run in family_kernels(fams, max(1, batch // len(ns[lo:lo + N_BLOCK])))]
    cands = [v for kernel in kernels for v in kernel]
    start = time.perf_counter()
    results = [r for kernel in kernels for r in compile_check_many(
        kernel, batch=len(kernel), threads=threads, folder=folder, asked=asked)]
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


__all__ = ["Asked", "WitnessSweep", "compile_check", "compile_check_many", "family_kernels",
           "witness_block", "witness_source", "verdict_folder", "witness_valid_n"]
