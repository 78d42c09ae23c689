"""CuTe's mma.sync atoms as probes: what to run, from the spec.

An `MmaSyncVariant` is one atom the probe runs: its shape, value types (D, A, B, C), ThrID and
A, B, C thread-value layouts, and the 32-bit registers a lane passes for each operand (the
operand's elements x their width over the atom's threads x the register width). Two kinds of
row give them:

* SM70 (spec/cute/mma_atoms.yaml, the CuTe document's 8x8x4 atoms): each A/B letter pair that
  has both an ALayout and a BLayout row, with each accumulator that has a CLayout row (the
  types are the CLayout row's atom name's);
* SM80 and later (spec/cute/mma_traits_sm*.yaml): each MMA_Traits row, with the layouts of the
  struct it names (spec/cute/mma_layouts_sm*.yaml). A type pair added there is a variant.

The PTX spelling follows from the name's A/B letters: the spec's `cute-name` major conventions
say which major each letter means, and PTX's `.row`/`.col` for A (M x K) and B (K x N) name
which index is contiguous: A K-major is `.row`, B K-major is `.col`.

Pure: no CuPy, no device. The kernel source is `source(variants)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxconf.oracle import facts
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import NotationError, parse
from ptxconf.oracle.checks.cute_names import ATOM_NAME, TYPE_ORDER, type_tokens
from ptxconf.oracle.checks.mma_fragments import traits_layouts
from ptxconf.oracle.records import CuteLayout, CuteMmaTraits
from ptxconf.oracle.spec import Spec

#: The CuTe document's atoms whose layouts are crossed into variants (no traits rows name them).
SM70_PREFIX = "SM70_8x8x4"
#: The C and D operands of a kernel: the asm constraint and C type of an accumulator register.
ACC_FLOAT = ("f", "float")
ACC_BITS = ("r", "unsigned")


@dataclass(frozen=True)
class MmaSyncVariant:
    """One mma.sync atom: the rows it comes from, read into what the probe needs."""

    atom: str
    m: int
    n: int
    k: int
    dtype: str
    atype: str
    btype: str
    ctype: str
    letters: str
    thr_id: str
    a_layout: str
    b_layout: str
    c_layout: str
    a_qualifier: str
    b_qualifier: str
    #: 32-bit registers a lane passes for A, B and C (D as C).
    a_words: int
    b_words: int
    c_words: int

    @property
    def ptx_name(self) -> str:
        """The instruction as written in PTX."""
        return (f"mma.sync.aligned.m{self.m}n{self.n}k{self.k}.{self.a_qualifier}."
                f"{self.b_qualifier}.{self.dtype}.{self.atype}.{self.btype}.{self.ctype}")

    @property
    def kernel_name(self) -> str:
        """A C identifier naming this probe kernel."""
        return f"mma_sync_{self.atom.lower()}"

    @property
    def nreg_d(self) -> int:
        """Accumulator registers per lane."""
        return self.c_words


def qualifier(spec: Spec, operand: str, letter: str) -> str:
    """PTX's .row/.col for an operand of mma.sync: A (M x K) K-major is .row, B (K x N)
    K-major is .col."""
    k_major = facts.cute_letter_major(spec, operand, letter) == "K"
    return ("row" if k_major else "col") if operand == "A" else ("col" if k_major else "row")


def threads_of(thr_id: str) -> int:
    """The logical threads of a ThrID layout (0 where it does not parse: the probe says so)."""
    try:
        lay = parse(thr_id)
    except NotationError:
        return 0
    return lay.size() if isinstance(lay, Layout) else 0


def register_words(spec: Spec, rows: int, cols: int, dtype: str, thr_id: str) -> int:
    """32-bit registers a lane passes for a rows x cols operand of `dtype`, shared by the
    atom's threads (rounded up: a layout that does not fill them fails on the device)."""
    threads = max(threads_of(thr_id), 1)
    per_lane_bits = rows * cols * spec.element_bits(dtype)
    reg = facts.register_bits(spec) * threads
    return -(-per_lane_bits // reg)


def variant(spec: Spec, atom: str, types: tuple[str, ...], layouts: dict[str, str]) -> MmaSyncVariant:
    """The variant of one atom: its name (shape and A/B letters), its value types (D, A, B, C)
    and its layouts by role ("" for a role the spec has no row for)."""
    name = ATOM_NAME.match(atom)
    if name is None or len(types) != len(TYPE_ORDER):
        raise ValueError(f"{atom}: not an SM<arch>_<M>x<N>x<K>_<D><A><B><C>_<AB> atom with four "
                         f"value types (got {types})")
    m, n, k = int(name["m"]), int(name["n"]), int(name["k"])
    d, a, b, c = types
    letters = atom.rsplit("_", 1)[-1]
    thr = layouts.get("ThrID", "")
    return MmaSyncVariant(
        atom, m, n, k, d, a, b, c, letters, thr, layouts.get("ALayout", ""),
        layouts.get("BLayout", ""), layouts.get("CLayout", ""),
        qualifier(spec, "A", letters[0]), qualifier(spec, "B", letters[1]),
        register_words(spec, m, k, a, thr), register_words(spec, n, k, b, thr),
        register_words(spec, m, n, c, thr))


def _sm70_variants(spec: Spec) -> list[MmaSyncVariant]:
    """Each SM70 8x8x4 A/B letter pair with both layouts, with each CLayout's accumulator."""
    rows = [r for r in spec.of(CuteLayout) if r.atom.startswith(SM70_PREFIX)]
    thr = next((r for r in rows if r.role == "ThrID"), None)
    if thr is None:
        return []
    out = []
    for a in (r for r in rows if r.role == "ALayout"):
        letters = a.atom.rsplit("_", 1)[-1]
        b = next((r for r in rows if r.role == "BLayout" and r.atom.endswith(f"_{letters}")),
                 None)
        if b is None:
            continue
        for c in (r for r in rows if r.role == "CLayout"):
            tokens = type_tokens(c.atom)
            if len(tokens) != len(TYPE_ORDER):
                continue
            atom = f"{SM70_PREFIX}_{''.join(tokens)}_{letters}"
            out.append(variant(spec, atom, tuple(t.lower() for t in tokens),
                               {"ThrID": thr.layout, "ALayout": a.layout, "BLayout": b.layout,
                                "CLayout": c.layout}))
    return out


def mma_sync_variants(spec: Spec) -> tuple[MmaSyncVariant, ...]:
    """Every atom the spec describes: the SM70 document's, then each MMA_Traits row's."""
    out = _sm70_variants(spec)
    for traits in spec.of(CuteMmaTraits):
        have = traits_layouts(spec, traits)
        try:
            out.append(variant(spec, traits.id, traits.val_types,
                               {role: r.layout for role, r in have.items()}))
        except (ValueError, KeyError):
            continue  # cute.mma_traits fails for the row: its name or types do not read
    return tuple(out)


def _operands(v: MmaSyncVariant) -> tuple[str, str]:
    """The asm constraint and C type of the accumulator registers."""
    return ACC_FLOAT if v.dtype == "f32" else ACC_BITS


def stanza(v: MmaSyncVariant) -> str:
    """One probe kernel: each lane loads its A, B and C words, issues the instruction, stores D
    (a register count of each operand per lane, words in lane order)."""
    na, nb, nd = v.a_words, v.b_words, v.c_words
    c_kind, c_type = _operands(v)

    def group(start: int, count: int) -> str:
        return "{" + ", ".join(f"%{start + i}" for i in range(count)) + "}"

    outs = ", ".join(f'"={c_kind}"(d[{i}])' for i in range(nd))
    ins = ", ".join([f'"r"(a[{i}])' for i in range(na)] + [f'"r"(b[{i}])' for i in range(nb)]
                    + [f'"{c_kind}"(c[{i}])' for i in range(nd)])
    return (
        f'extern "C" __global__ void {v.kernel_name}(const unsigned* __restrict__ a_in,\n'
        "    const unsigned* __restrict__ b_in, const unsigned* __restrict__ c_in,\n"
        "    unsigned* __restrict__ d_out) {\n"
        "  const unsigned lane = threadIdx.x;\n"
        f"  unsigned a[{na}], b[{nb}];\n"
        f"  for (int i = 0; i < {na}; ++i) a[i] = a_in[lane * {na} + i];\n"
        f"  for (int i = 0; i < {nb}; ++i) b[i] = b_in[lane * {nb} + i];\n"
        f"  {c_type} c[{nd}], d[{nd}];\n"
        f"  for (int i = 0; i < {nd}; ++i) {{ unsigned w = c_in[lane * {nd} + i]; "
        f"c[i] = *reinterpret_cast<{c_type}*>(&w); }}\n"
        f'  asm volatile("{v.ptx_name} {group(0, nd)}, {group(nd, na)}, {group(nd + na, nb)}, '
        f'{group(nd + na + nb, nd)};"\n'
        f"      : {outs}\n      : {ins});\n"
        f"  for (int i = 0; i < {nd}; ++i) d_out[lane * {nd} + i] = "
        "*reinterpret_cast<unsigned*>(&d[i]);\n"
        "}\n")


def source(variants: tuple[MmaSyncVariant, ...]) -> str:
    """A module with one probe kernel per atom."""
    return ("// Generated by ptxconf.gpu.mma_sync from the spec's CuTe mma.sync atom rows. "
            "Do not edit.\n" + "".join(stanza(v) for v in variants))


__all__ = ["MmaSyncVariant", "mma_sync_variants", "qualifier", "register_words", "source",
           "stanza", "variant"]
