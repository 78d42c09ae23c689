"""Shared-memory bank analysis: which 4-byte words of one warp-wide request share a bank.

Shared memory has 32 banks of 4-byte words; word w sits in bank w % 32. A warp's request is
served in phases of at most 128 bytes: 32 threads for 4-byte (or narrower) accesses, 16 for
8-byte, 8 for 16-byte. Within a phase, threads that read the same word share it (broadcast);
distinct words in one bank are served one after another. The *conflict degree* of a request
is the largest number of distinct words any bank must serve within one phase (1: conflict-free).

`core_matrix_column_accesses` turns a canonical wgmma layout (ptxconf.oracle.canonical) into the
eight 16-byte row reads of one core matrix, so a layout's bank behaviour is computed, never
copied from a picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ptxconf.oracle import canonical, facts
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec, default_spec

BANKS = 32
BANK_BYTES = 4
#: The bytes one phase serves: every bank once.
PHASE_BYTES = BANKS * BANK_BYTES
#: Access widths a thread can issue (ld/st.shared .b8 ... .v4.b32).
ACCESS_BYTES = (1, 2, 4, 8, 16)
#: A core matrix: 8 rows of 16 bytes (one 128-bit normalized element per row).
CORE_ROWS = 8
CORE_ROW_BYTES = canonical.NORMALIZED_BITS // canonical.BITS_PER_BYTE
#: The identity swizzle: what a canonical layout is without its swizzle.
NO_SWIZZLE = Swizzle(0, 4, 3)


def __getattr__(name: str) -> Any:
    """`WARP_THREADS`, for callers without a spec: the bundled spec's `facts.warp_threads`."""
    if name == "WARP_THREADS":
        return facts.warp_threads(default_spec())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def bank(addr_bytes: int) -> int:
    """The bank of a byte address."""
    return (addr_bytes // BANK_BYTES) % BANKS


def threads_per_phase(access_bytes: int, spec: Spec | None = None) -> int:
    """Threads served together: 128 bytes' worth, never more than a warp
    (`facts.warp_threads`)."""
    _check_width(access_bytes)
    return min(facts.warp_threads(spec or default_spec()), PHASE_BYTES // access_bytes)


def words(addr_bytes: int, access_bytes: int) -> range:
    """The 4-byte word indices one naturally aligned access touches."""
    first = addr_bytes // BANK_BYTES
    return range(first, first + max(1, access_bytes // BANK_BYTES))


def _check_width(access_bytes: int) -> None:
    if access_bytes not in ACCESS_BYTES:
        raise ValueError(f"access of {access_bytes} bytes: expected one of {ACCESS_BYTES}")


@dataclass(frozen=True)
class Phase:
    """One phase of a request: its threads and, per bank, the distinct words it must serve."""

    threads: tuple[int, ...]
    words_by_bank: dict[int, tuple[int, ...]]

    @property
    def degree(self) -> int:
        """The most distinct words one bank serves in this phase (0 if no thread is active)."""
        return max((len(w) for w in self.words_by_bank.values()), default=0)

    def worst_bank(self) -> int | None:
        """The lowest-numbered bank that reaches the degree."""
        worst = [b for b, w in sorted(self.words_by_bank.items()) if len(w) == self.degree]
        return worst[0] if worst else None


@dataclass(frozen=True)
class BankReport:
    """A warp-wide request split into phases; `degree` is the request's conflict degree."""

    addresses: tuple[int | None, ...]
    access_bytes: int
    phases: tuple[Phase, ...]

    @property
    def degree(self) -> int:
        """The conflict degree: the worst phase's degree (1: conflict-free)."""
        return max((p.degree for p in self.phases), default=0)

    def worst(self) -> str:
        """The worst phase and bank in words, with the threads and addresses that collide."""
        if self.degree == 0:
            return "no active thread"
        phase_no, phase = next((i, p) for i, p in enumerate(self.phases) if p.degree == self.degree)
        b = phase.worst_bank()
        hits = []
        for t in phase.threads:
            addr = self.addresses[t]
            if addr is not None and any(bank(w * BANK_BYTES) == b
                                        for w in words(addr, self.access_bytes)):
                hits.append(f"t{t}@{addr:#x}")
        return (f"phase {phase_no}, bank {b}: {self.degree} distinct words "
                f"({', '.join(hits)})")


def analyze(addresses_bytes: Sequence[int | None], access_bytes: int,
            spec: Spec | None = None) -> BankReport:
    """Split a warp's request (address per lane, None = inactive lane) into phases and banks."""
    _check_width(access_bytes)
    spec = spec or default_spec()
    warp_threads = facts.warp_threads(spec)
    if len(addresses_bytes) > warp_threads:
        raise ValueError(f"{len(addresses_bytes)} addresses: a warp has {warp_threads} threads")
    for t, a in enumerate(addresses_bytes):
        if a is not None and (a < 0 or a % access_bytes):
            raise ValueError(f"thread {t}: address {a:#x} is not a {access_bytes}-byte aligned "
                             "shared-memory address")
    per = threads_per_phase(access_bytes, spec)
    phases = []
    for start in range(0, len(addresses_bytes), per):
        threads = tuple(range(start, min(start + per, len(addresses_bytes))))
        by_bank: dict[int, set[int]] = {}
        for t in threads:
            a = addresses_bytes[t]
            if a is None:
                continue
            for w in words(a, access_bytes):
                by_bank.setdefault(w % BANKS, set()).add(w)
        phases.append(Phase(threads, {b: tuple(sorted(w)) for b, w in sorted(by_bank.items())}))
    return BankReport(tuple(addresses_bytes), access_bytes, tuple(phases))


def conflict_degree(addresses_bytes: Sequence[int | None], access_bytes: int) -> int:
    """The most distinct words (16-byte chunks, for 16-byte accesses) one bank serves in a phase."""
    return analyze(addresses_bytes, access_bytes).degree


def bank_table(addresses_bytes: Sequence[int | None], access_bytes: int) -> str:
    """A text picture of a request: per phase, a grid of banks (columns) by the distinct words
    each must serve (rows); a cell names the thread that reads that word (the first, if several
    share it). A tall column is a conflict.
    """
    rep = analyze(addresses_bytes, access_bytes)
    width = max(3, len(str(len(addresses_bytes))) + 2)
    out = [f"{access_bytes}-byte accesses, {threads_per_phase(access_bytes)} threads per phase; "
           f"conflict degree {rep.degree}" + (f" ({rep.worst()})" if rep.degree > 1 else "")]
    for i, ph in enumerate(rep.phases):
        first: dict[int, int] = {}
        for t in ph.threads:
            a = addresses_bytes[t]
            if a is not None:
                for w in words(a, access_bytes):
                    first.setdefault(w, t)
        out.append(f"phase {i}: threads {ph.threads[0]}-{ph.threads[-1]}, degree {ph.degree}")
        out.append("bank " + "".join(f"{b:>{width}}" for b in range(BANKS)))
        for level in range(ph.degree):
            cells = []
            for b in range(BANKS):
                ws = ph.words_by_bank.get(b, ())
                cells.append(f"t{first[ws[level]]}" if level < len(ws) else ".")
            out.append(f"w{level:<4}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(out)


# --- canonical wgmma layouts ---------------------------------------------------------------


def _param_modes(row: CanonicalLayout, t: int) -> dict[str, int]:
    """Which mode (0: MN, 1: K) each of LBO and SBO strides in the row's template."""
    marks = {"LBO": 1_000_003, "SBO": 2_000_003}
    layout = canonical.instantiate(row, t, 2, 2, marks["LBO"], marks["SBO"])
    found = {}
    for mode in (0, 1):
        for d in flatten(layout[mode].stride):
            for name, mark in marks.items():
                if abs(d) == mark:
                    found[name] = mode
    return found


def dense_lbo_sbo_bytes(spec: Spec, major: str, swizzle: str, dtype: str, mn: int,
                        k: int) -> tuple[int, int]:
    """(LBO, SBO) in bytes that pack an mn x k operand densely, atoms along MN first.

    An atom is 8 rows of the swizzle width (16 bytes for no swizzle: one core matrix). The
    template parameter that steps along MN gets one atom; the one along K gets the atoms of a
    whole MN column. A parameter the template does not use gets 16 bytes (one 128-bit unit).
    This is a packing the harness chooses, not a rule of the documents.
    """
    row = canonical.canonical_row(spec, major, swizzle)
    t = canonical.t_elems(spec, dtype)
    per_mn, _ = canonical.repeat_extents(row, t)
    atom_bytes = CORE_ROWS * CORE_ROW_BYTES * (1 << row.swizzle_bits)
    mn_atoms = mn // per_mn
    value = {0: atom_bytes, 1: mn_atoms * atom_bytes}
    modes = _param_modes(row, t)
    lbo = value[modes["LBO"]] if "LBO" in modes else CORE_ROW_BYTES
    sbo = value[modes["SBO"]] if "SBO" in modes else CORE_ROW_BYTES
    return lbo, sbo


@dataclass(frozen=True)
class TileQuery:
    """A canonical operand tile whose byte offsets a bank analysis reads."""

    major: str
    swizzle: str
    dtype: str
    mn: int
    k: int
    lbo_bytes: int | None = None
    sbo_bytes: int | None = None
    swizzled: bool = True
    swizzle_unit: str | None = None
    base_offset_bytes: int = 0


def tile_offsets_bytes(spec: Spec, q: TileQuery) -> list[list[int]]:
    """offsets[i][j]: byte offset of element (mn=i, k=j) of the canonical tile.

    With `swizzled=False` the row's swizzle is replaced by the identity: the same template
    without its swizzle, the counterfactual a bank analysis compares against. Sub-byte
    elements give the offset of the byte that holds them.
    """
    lbo, sbo = q.lbo_bytes, q.sbo_bytes
    if lbo is None or sbo is None:
        dense = dense_lbo_sbo_bytes(spec, q.major, q.swizzle, q.dtype, q.mn, q.k)
        lbo = dense[0] if lbo is None else lbo
        sbo = dense[1] if sbo is None else sbo
    sq = canonical.SmemQuery(q.dtype, q.major, q.swizzle, q.mn, q.k, lbo, sbo,
                             q.base_offset_bytes, q.swizzle_unit or "bytes")
    layout, swz, bits = canonical.element_layout(spec, sq)
    swz = swz if q.swizzled else NO_SWIZZLE
    # A canonical layout is ((MN...),(K...)): offset(i, j) = MN mode(i) + K mode(j), every
    # element at once (swizzled_offset takes arrays: smem_offsets_array's evaluation).
    import numpy as np  # here, not at the top: a warm run answered from the caches needs none

    elem = np.add.outer(canonical.layout_values(layout[0], q.mn),
                        canonical.layout_values(layout[1], q.k))
    offs = np.asarray(canonical.swizzled_offset(elem, bits, swz, sq.swizzle_unit,
                                                q.base_offset_bytes), dtype=np.int64)
    sub_byte = bits % canonical.BITS_PER_BYTE != 0
    out: list[list[int]] = (offs // canonical.BITS_PER_BYTE if sub_byte else offs).tolist()
    if not sub_byte:
        flat = [o for r in out for o in r]
        if len(set(flat)) != len(flat):
            raise ValueError(f"{q.major}-major {q.swizzle} {q.dtype} {q.mn}x{q.k} with LBO={lbo} "
                             f"SBO={sbo} bytes puts two elements at one address")
    return out


@dataclass(frozen=True)
class Tile:
    """A canonical tile's byte offsets, and the core matrices the tensor core reads from it."""

    query: TileQuery
    t_elems: int
    elem_bits: int
    offsets: tuple[tuple[int, ...], ...]

    def core_matrices(self) -> list[tuple[int, int]]:
        """Every (core_mn, core_k) of the tile."""
        q, t = self.query, self.t_elems
        n_mn, n_k = ((q.mn // CORE_ROWS, q.k // t) if q.major == "K"
                     else (q.mn // t, q.k // CORE_ROWS))
        return [(i, j) for i in range(n_mn) for j in range(n_k)]

    def core_matrix_reads(self, core_mn: int = 0, core_k: int = 0) -> tuple[int, ...]:
        """The eight 16-byte reads (start byte offsets) of core matrix (core_mn, core_k).

        A core matrix is 8 rows of 16 bytes: for K-major, 8 MN rows x T elements of K; for
        MN-major, 8 K rows x T elements of MN (T = 128 / element bits). Each read must be 16
        contiguous bytes; ValueError otherwise (the layout would not be made of core matrices).
        """
        q, t, bits = self.query, self.t_elems, self.elem_bits
        starts = []
        for r in range(CORE_ROWS):
            if q.major == "K":
                cells = [(CORE_ROWS * core_mn + r, t * core_k + e) for e in range(t)]
            else:
                cells = [(t * core_mn + e, CORE_ROWS * core_k + r) for e in range(t)]
            if not all(0 <= i < q.mn and 0 <= j < q.k for i, j in cells):
                raise ValueError(f"core matrix ({core_mn}, {core_k}) is outside the "
                                 f"{q.mn}x{q.k} tile")
            got = [self.offsets[i][j] for i, j in cells]
            want = [got[0] + e * bits // canonical.BITS_PER_BYTE for e in range(t)]
            if got != want or got[0] % CORE_ROW_BYTES:
                raise ValueError(f"{q.major}-major {q.swizzle} {q.dtype}: row {r} of core matrix "
                                 f"({core_mn}, {core_k}) is not one aligned 16-byte chunk: "
                                 f"{got[:4]}...")
            starts.append(got[0])
        return tuple(starts)

    def degree(self) -> tuple[int, tuple[int, int]]:
        """The worst conflict degree over every core matrix, and the first core matrix with it."""
        worst, where = 0, (0, 0)
        for cm in self.core_matrices():
            d = conflict_degree(self.core_matrix_reads(*cm), CORE_ROW_BYTES)
            if d > worst:
                worst, where = d, cm
        return worst, where


def tile(spec: Spec, q: TileQuery) -> Tile:
    """The canonical tile of a query, offsets computed once."""
    offs = tile_offsets_bytes(spec, q)
    return Tile(q, canonical.t_elems(spec, q.dtype), spec.element_bits(q.dtype),
                tuple(tuple(r) for r in offs))


def core_matrix_column_accesses(spec: Spec, q: TileQuery, core_mn: int = 0,
                                core_k: int = 0) -> tuple[int, ...]:
    """The tensor core's eight 16-byte reads of one core matrix of a canonical tile."""
    return tile(spec, q).core_matrix_reads(core_mn, core_k)


def row_major_layout(mn: int, k: int) -> Layout:
    """(mn, k) -> mn * k_extent + k: the plain row-major tile a picture without swizzle shows."""
    return Layout((mn, k), (k, 1))
