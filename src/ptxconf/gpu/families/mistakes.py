"""gpu.mistake[<name>]: the explain gallery on silicon, one case per classic mistake.

Each case takes a mistaken descriptor of operand A (bf16, f32 accumulators, the middle-N
end-to-end kernel), asks `ptxconf.oracle.explain` what is wrong with it and which descriptor
was meant, places random exact operands where the *corrected* descriptor reads them (the tile
the user wrote), and runs the wgmma probe twice: with the mistaken descriptor and with the
corrected one (k-block by k-block where the operand spans two instructions' K, D summed). It
passes when silicon does exactly what explain says: the corrected descriptor gives the host
matmul bit for bit, and the mistaken one gives a wrong product, or, where explain says the
mistaken field is ignored (the read maps are equal), the same right product. Both diffs'
counts are in the fields.

The misaligned-start cases rest on the H100's reading of the base-offset field (finding
base-offset-field-moves-phase): a device that ignores the field fails them.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptxconf.core.cases import Case, Outcome, fail, passed
from ptxconf.core.context import RunContext
from ptxconf.oracle import interpret as I
from ptxconf.oracle.explain.diagnose import explain_descriptor
from ptxconf.oracle.explain.operand import Operand, resolve
from ptxconf.oracle.explain.readmap import Descriptor, linear, read_map
from ptxconf.oracle.records import InstructionType
from ptxconf.oracle.spec import Spec

from .. import plan as P
from ..operands import GUARD_BYTES, acc_values, check_starts, d_matrix, desc, image, launch, layout, round_up
from ..session import GpuBody, Session, gpu_case
from ..variants import WgmmaVariant, isa_facts

PROVIDER = "gpu-mistakes"
CHECK = "gpu.mistake"
#: The operand type of the gallery (an imm-trans type, so MN-major mistakes run too).
DTYPE = "bf16"
ACC = "f32"


@dataclass(frozen=True)
class Mistake:
    """A mistaken descriptor of operand A (start relative to a 1024-byte aligned region) and
    the code explain must name. k_blocks > 1: the operand spans that many instructions' K."""

    name: str
    code: str
    major: str
    swizzle: str
    lbo: int
    sbo: int
    start: int = 0
    base_offset: int = 0
    k_blocks: int = 1
    smem_bytes: int | None = None

    def descriptor(self, spec: Spec) -> Descriptor:
        """The mistaken descriptor."""
        return Descriptor.of(spec, start_address=self.start, lbo=self.lbo, sbo=self.sbo,
                             swizzle=self.swizzle, base_offset=self.base_offset)


#: One mistake a kind (explain's catalog), in bf16 A operands of m64nNk16.
GALLERY: tuple[Mistake, ...] = (
    Mistake("lbo_sbo_swapped", "EXPLAIN-LBO-SBO-SWAPPED", "K", "128B", 1024, 16),
    Mistake("mn_roles_swapped", "EXPLAIN-MN-ROLES-SWAPPED", "MN", "32B", 256, 512),
    Mistake("start_misaligned_32B", "EXPLAIN-START-MISALIGNED", "K", "32B", 16, 256, start=128),
    Mistake("start_misaligned_64B", "EXPLAIN-START-MISALIGNED", "K", "64B", 16, 512, start=128),
    Mistake("start_misaligned_128B", "EXPLAIN-START-MISALIGNED", "K", "128B", 16, 1024,
            start=256),
    Mistake("wrong_swizzle_mode", "EXPLAIN-SWIZZLE-MODE", "K", "128B", 16, 512,
            smem_bytes=4096),
    Mistake("k_beyond_swizzle_row", "EXPLAIN-K-BEYOND-ROW", "K", "32B", 16, 256, k_blocks=2),
    Mistake("ignored_lbo", "EXPLAIN-IGNORED-FIELD", "K", "128B", 1024, 1024),
    Mistake("ignored_base_offset", "EXPLAIN-IGNORED-FIELD", "K", "none", 1024, 128,
            base_offset=3),
    Mistake("overrun", "EXPLAIN-OVERRUN", "K", "128B", 16, 2048, smem_bytes=8192),
    Mistake("sbo_zero", "EXPLAIN-STRIDE-ZERO", "K", "128B", 16, 0),
)


def probe(spec: Spec, major: str) -> P.Probe:
    """The middle-N end-to-end probe of the bf16/f32 row (a compiled kernel of the plan)."""
    row = next(r for r in spec.of(InstructionType) if (r.atype, r.dtype) == (DTYPE, ACC))
    return P.make_probe(isa_facts(spec), row, P.n_values(spec, row)[1], major=major)


def operand(spec: Spec, m: Mistake, v: WgmmaVariant) -> Operand:
    """The operand explain is asked about: A of the instruction, or k_blocks of its K."""
    if m.k_blocks == 1:
        return resolve(spec, instr=v.ptx_name, operand="A", major=m.major)
    return resolve(spec, dtype=v.atype, major=m.major, mn=v.m, k=v.k * m.k_blocks)


def reproduce(m: Mistake, op: Operand, value: int) -> str:
    """The explain call that names this mistake."""
    cmd = f"ptxconf explain descriptor {value:#018x} {op.cli()}"
    return cmd + (f" --smem-bytes {m.smem_bytes}" if m.smem_bytes else "")


def _block_start(spec: Spec, op: Operand, d: Descriptor, k0: int) -> int:
    """Bytes from the operand start to k-block k0's start: the unswizzled offset of (0, k0)."""
    lin = linear(spec, op, d.swizzle)
    return int(lin.base[0, k0] + lin.lbo_steps[0, k0] * d.lbo + lin.sbo_steps[0, k0] * d.sbo)


def _product(sess: Session, v: WgmmaVariant, op: Operand, d: Descriptor, a_img: bytes,
             b: np.ndarray, start: int) -> np.ndarray:
    """D = sum over k-blocks of one wgmma with the descriptor moved to the block (int64)."""
    spec = sess.spec
    total = np.zeros((v.m, v.n), dtype=np.int64)
    for kb in range(op.k // v.k):
        rel = d.with_fields(spec, start_address=_block_start(spec, op, d, kb * v.k))
        b_lay = layout(spec, v.btype, op.major, "none", v.n, v.k)
        b_img = image(spec, b[:, kb * v.k:(kb + 1) * v.k], b_lay)
        kw = launch(spec, v, a_img, b_img, rel.value, desc(spec, b_lay),
                    smem_a_offset_bytes=start, smem_b_offset_bytes=0)
        dump = sess.run_wgmma(v, [kw])[0]
        check_starts(dump, start, 0)
        total += acc_values(spec, v, d_matrix(spec, v, dump.regs))
    return total


def _body(m: Mistake) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec = sess.spec
        v = probe(spec, m.major).variant
        op = operand(spec, m, v)
        mistaken = m.descriptor(spec)
        e = explain_descriptor(spec, op, mistaken.value, smem_bytes=m.smem_bytes)
        cmd = reproduce(m, op, mistaken.value)
        if e.corrected is None or not e.codes or e.codes[0] != m.code:
            raise fail(f"explain names {list(e.codes)} for {mistaken.text()}, expected "
                       f"{m.code}", code="mismatch", explain=cmd)
        corrected = e.corrected.desc
        want_map = read_map(spec, op, corrected).addresses - m.start
        got_map = read_map(spec, op, mistaken).addresses - m.start
        if want_map.min() < 0 or got_map.min() < 0:
            raise fail(f"{m.name}: a read map reaches before the operand start", code="not_runnable")
        ignored = bool(np.array_equal(want_map, got_map))
        rng = np.random.default_rng(zlib.crc32(f"mistake.{m.name}".encode()))
        a = I.random_operand(spec, v.atype, (op.mn, op.k), rng, acc_dtype=v.dtype, k=op.k)
        b = I.random_operand(spec, v.btype, (v.n, op.k), rng, acc_dtype=v.dtype, k=op.k)
        want = I.matmul(a, b)
        bits = I.element_bits(spec, v.atype)
        reach = max(I.footprint_bytes(x, bits) for x in (want_map, got_map))
        a_img = I.place(I.encode(spec, v.atype, a), want_map, bits,
                        round_up(reach, 16) + GUARD_BYTES).tobytes()
        diffs = {}
        for what, d in (("mistaken", mistaken), ("corrected", corrected)):
            got = _product(sess, v, op, d, a_img, b, m.start)
            diffs[what] = I.diff_grid(f"D = A·Bᵀ ({what} descriptor {d.value:#018x})", want, got,
                                      axes=("m", "n"))
        mis, cor = diffs["mistaken"], diffs["corrected"]
        expect = "the same right product (the field is ignored)" if ignored else "a wrong product"
        fields: dict[str, Any] = {
            "mistake": m.code, "explain": cmd, "kernel": v.kernel_name, "predicted": expect,
            "mistaken": {"descriptor": f"{mistaken.value:#018x}", "mismatches": mis.mismatches,
                         "total": mis.total},
            "corrected": {"descriptor": f"{corrected.value:#018x}",
                          "mismatches": cor.mismatches, "total": cor.total},
            "start_offset_bytes": m.start, "k_blocks": op.k // v.k}
        if not cor.ok:
            fields["diff"] = cor.details()
            raise fail(f"{m.name}: the corrected descriptor {corrected.value:#018x} "
                       f"({m.code}'s fix) gives a wrong product: {cor.message()}",
                       code="silicon_disagrees", **fields)
        if mis.ok != ignored:
            fields["diff"] = mis.details()
            raise fail(f"{m.name}: explain predicted {expect} for the mistaken descriptor "
                       f"{mistaken.value:#018x}; silicon gave "
                       f"{'the right product' if mis.ok else mis.message()}",
                       code="silicon_disagrees", **fields)
        told = ("the same right product: the field is ignored, as explain says"
                if ignored else f"a wrong product ({mis.mismatches} of {mis.total} elements)")
        return passed(f"{m.code}: mistaken {mistaken.value:#018x} gives {told}; corrected "
                      f"{corrected.value:#018x} gives D bit-exact", **fields)

    return body


def case_keys(spec: Spec) -> Iterator[tuple[str, str]]:
    """(check, key) of every gallery case."""
    for m in GALLERY:
        yield CHECK, m.name


def cases(spec: Spec, ctx: RunContext) -> Iterator[Case]:
    """One case per gallery mistake."""
    for m in GALLERY:
        yield gpu_case(spec, ctx, PROVIDER, CHECK, m.name, _body(m))


__all__ = ["CHECK", "GALLERY", "PROVIDER", "Mistake", "case_keys", "cases", "operand", "probe"]
