"""The CuTe document's SM70 `mma.sync` 8x8x4 atoms as probes: what to run, from the spec.

The spec's `cute/mma_atoms` rows hold each SM70 atom's thread map (ThrID: the quadpair's lanes)
and its A, B and C thread-value layouts. An `MmaSyncVariant` is one atom the probe runs: its A/B
letters (NT, TN: the spec's A and B layout rows of that name) and its accumulator type (the
CLayout rows: f32, f16). The PTX spelling follows from the letters: the spec's `cute-name`
major conventions say which major each letter means, and PTX's `.row`/`.col` for A (M x K)
and B (K x N) name which index is contiguous: A K-major is `.row`, B K-major is `.col`.

Pure: no CuPy, no device. The kernel source is `source(variants)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxconf.oracle import facts
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import Spec

ARCH = "SM70"
#: The accumulator registers per lane: 8 f32 values, or 8 f16 values packed two to a register.
ACC_REGISTERS = {"f32": 8, "f16": 4}


@dataclass(frozen=True)
class MmaSyncVariant:
    """One SM70 8x8x4 atom: A/B letters and accumulator type, with the spec rows it uses."""

    letters: str
    acc: str
    thr_id: str
    a_layout: str
    b_layout: str
    c_layout: str
    a_qualifier: str
    b_qualifier: str

    @property
    def atom(self) -> str:
        """The CUTLASS struct name, by the document's naming scheme."""
        d = self.acc.upper()
        return f"{ARCH}_8x8x4_{d}F16F16{d}_{self.letters}"

    @property
    def ptx_name(self) -> str:
        """The instruction as written in PTX."""
        return (f"mma.sync.aligned.m8n8k4.{self.a_qualifier}.{self.b_qualifier}"
                f".{self.acc}.f16.f16.{self.acc}")

    @property
    def kernel_name(self) -> str:
        """A C identifier naming this probe kernel."""
        return f"mma_sync_m8n8k4_{self.letters}_{self.acc}"

    @property
    def nreg_d(self) -> int:
        """Accumulator registers per lane."""
        return ACC_REGISTERS[self.acc]


def qualifier(spec: Spec, operand: str, letter: str) -> str:
    """PTX's .row/.col for an operand of mma.sync: A (M x K) K-major is .row, B (K x N)
    K-major is .col."""
    k_major = facts.cute_letter_major(spec, operand, letter) == "K"
    return ("row" if k_major else "col") if operand == "A" else ("col" if k_major else "row")


def mma_sync_variants(spec: Spec) -> tuple[MmaSyncVariant, ...]:
    """Every SM70 8x8x4 atom the spec's layouts describe: each A/B letter pair that has both
    an ALayout and a BLayout row, with each accumulator that has a CLayout row."""
    rows = [r for r in spec.of(CuteLayout) if r.atom.startswith(f"{ARCH}_8x8x4")]
    thr = next((r for r in rows if r.role == "ThrID"), None)
    if thr is None:
        return ()
    out = []
    for a in (r for r in rows if r.role == "ALayout"):
        letters = a.atom.rsplit("_", 1)[-1]
        b = next((r for r in rows if r.role == "BLayout" and r.atom.endswith(f"_{letters}")),
                 None)
        if b is None:
            continue
        for c in (r for r in rows if r.role == "CLayout"):
            acc = c.id.rsplit(".", 1)[-1]
            if acc not in ACC_REGISTERS:
                continue
            out.append(MmaSyncVariant(letters, acc, thr.layout, a.layout, b.layout, c.layout,
                                      qualifier(spec, "A", letters[0]),
                                      qualifier(spec, "B", letters[1])))
    return tuple(out)


def stanza(v: MmaSyncVariant) -> str:
    """One probe kernel: each lane loads its A, B and C words, issues the instruction, stores D."""
    nd = v.nreg_d
    c_kind, c_type = ("f", "float") if v.acc == "f32" else ("r", "unsigned")
    d_ops = ", ".join(f"%{i}" for i in range(nd))
    c_ops = ", ".join(f"%{nd + 4 + i}" for i in range(nd))
    outs = ", ".join(f'"={c_kind}"(d[{i}])' for i in range(nd))
    ins = ", ".join(['"r"(a[0])', '"r"(a[1])', '"r"(b[0])', '"r"(b[1])']
                    + [f'"{c_kind}"(c[{i}])' for i in range(nd)])
    return (
        f'extern "C" __global__ void {v.kernel_name}(const unsigned* __restrict__ a_in,\n'
        "    const unsigned* __restrict__ b_in, const unsigned* __restrict__ c_in,\n"
        "    unsigned* __restrict__ d_out) {\n"
        "  const unsigned lane = threadIdx.x;\n"
        "  const unsigned a[2] = {a_in[lane * 2], a_in[lane * 2 + 1]};\n"
        "  const unsigned b[2] = {b_in[lane * 2], b_in[lane * 2 + 1]};\n"
        f"  {c_type} c[{nd}], d[{nd}];\n"
        f"  for (int i = 0; i < {nd}; ++i) {{ unsigned w = c_in[lane * {nd} + i]; "
        f"c[i] = *reinterpret_cast<{c_type}*>(&w); }}\n"
        f'  asm volatile("{v.ptx_name} {{{d_ops}}}, {{%{nd}, %{nd + 1}}}, '
        f'{{%{nd + 2}, %{nd + 3}}}, {{{c_ops}}};"\n'
        f"      : {outs}\n      : {ins});\n"
        f"  for (int i = 0; i < {nd}; ++i) d_out[lane * {nd} + i] = "
        "*reinterpret_cast<unsigned*>(&d[i]);\n"
        "}\n")


def source(variants: tuple[MmaSyncVariant, ...]) -> str:
    """A module with one probe kernel per atom."""
    return ("// Generated by ptxconf.gpu.mma_sync from the spec's SM70 atom rows. Do not edit.\n"
            + "".join(stanza(v) for v in variants))


__all__ = ["MmaSyncVariant", "mma_sync_variants", "qualifier", "source", "stanza"]
