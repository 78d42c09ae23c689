"""wgmma register fragments: (thread, register, subelement) -> (row, col), for every family.

PTX ISA 9.7.15.5.1.1 gives the register and element counts as tables (spec/wgmma/
register_fragments.yaml) but the placement only as figures (148-155, images). So:

* D (accumulator) is *derived*: CuTe's SM90 64x8 CLayout (spec/cute/mma_atoms.yaml), a map
  (thread, value) -> m + 64 n, repeated N/8 times along N by a logical product; value v lands in
  register v // elems_per_register, subelement v % elems_per_register (elements low to high).
* A (register operand, the RS form) is a *hypothesis*, `a_regs_like_d16`: the 64 x K tile read
  as 64 x (K * bits / 16) halfword columns is laid out like an f16 accumulator of that width,
  two halfwords per 32-bit register, each halfword then split back into its elements (a tf32
  element spans the two halfwords of its register). Nothing in the documents states it; the
  PTX ISA's mma.sync m16n8k{8,16,32,256} A fragments, stacked over the four warps, are an
  independent witness (`mma_sync_a_witness`), as are CUTLASS's RS ALayout_64x{8,16,32} (outside
  the seeds); a GPU probe decides.

Every map is checked to be a bijection onto the M x (K or N) tile before it is returned.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import InitVar, dataclass, field, replace
from typing import Literal, overload

import numpy as np

from ptxconf.oracle import facts
from ptxconf.oracle.algebra.int_tuple import flatten
from ptxconf.oracle.algebra.layout import Layout, logical_product
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.facts import D_ATOM_ROW, clayout
from ptxconf.oracle.hypotheses import A_REGISTER_LAYOUT
from ptxconf.oracle.instructions import ResolvedInstr, resolve
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import Spec, default_spec

#: Bits of the halfword unit the A hypothesis works in (a register's width is
#: `facts.register_bits`, from the register-fragment tables).
HALF_BITS = 16
#: The CuTe row the accumulator map is derived from (checks.cute_atoms compares the product
#: with every other SM90 CLayout row).

FragmentStatus = Literal["derived", "hypothesis (unknown until probed)"]
STATUS_DERIVED: FragmentStatus = "derived"
STATUS_HYPOTHESIS: FragmentStatus = "hypothesis (unknown until probed)"
Operand = Literal["A", "D"]
#: (thread, register, subelement, row, col)
Entry = tuple[int, int, int, int, int]


class Entries(Sequence[Entry]):
    """A derived map's entries, made from its table at the first read: a check's probes and
    judges read only the table (`FragmentMap.table`), and the bundled spec's 328 maps hold
    about 2 million entries (3 s of a run's host work as tuples)."""

    __slots__ = ("_items", "_table")

    def __init__(self, table: np.ndarray) -> None:
        self._table = table
        self._items: tuple[Entry, ...] | None = None

    def _all(self) -> tuple[Entry, ...]:
        if self._items is None:
            self._items = tuple(map(tuple, self._table.tolist()))
        return self._items

    def __len__(self) -> int:
        return len(self._table)

    @overload
    def __getitem__(self, i: int) -> Entry: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Entry, ...]: ...

    def __getitem__(self, i: int | slice) -> Entry | tuple[Entry, ...]:
        return self._all()[i]

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Entries):
            return bool(np.array_equal(self._table, other._table))
        return isinstance(other, tuple) and self._all() == other

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple[type[Entries], tuple[np.ndarray]]:
        return Entries, (self._table,)



class FragmentMapError(RuntimeError):
    """A computed fragment map is not a bijection onto its tile: the oracle or spec is wrong."""


# --- the accumulator map, derived from the CuTe CLayout ------------------------------------


def d_layout(spec: Spec, n: int) -> Layout:
    """(thread, value) -> m + M n for an M x N accumulator: the 64x8 atom repeated N/8 times.

    The repeat is CuTe's logical_product of the atom with (N/8):1, whose second mode steps by the
    atom's whole codomain (M x 8); its value mode is appended to the atom's value mode.
    """
    row, atom = clayout(spec, D_ATOM_ROW)
    atom_cols = row.codomain_mn[1]
    if n <= 0 or n % atom_cols:
        raise ValueError(f"N={n} is not a multiple of the {row.id} atom's {atom_cols} columns")
    prod = _plain(logical_product(atom, Layout(n // atom_cols, 1)))
    thr, val, rep = prod[0][0], prod[0][1], prod[1]
    return Layout((thr.shape, _flat_tuple(val.shape) + (rep.shape,)),
                  (thr.stride, _flat_tuple(val.stride) + (rep.stride,)))


def _plain(x: object) -> Layout:
    """Narrow an algebra result to a plain Layout (TypeError otherwise)."""
    if not isinstance(x, Layout):
        raise TypeError(f"expected a plain layout, got {x!r}")
    return x


def _flat_tuple(t: object) -> tuple[int, ...]:
    """A mode's shape or stride as a flat tuple."""
    return tuple(flatten(t))  # type: ignore[arg-type]  # a Layout's mode: an int tuple


@functools.lru_cache(maxsize=64)
def _tv_table(layout_text: str) -> tuple[tuple[int, ...], ...]:
    """table[t][v] = layout(t, v) = thread mode(t) + value mode(v), cached by the notation."""
    layout = _plain(parse(layout_text))
    thr, val = layout[0], layout[1]
    offsets = [val(v) for v in range(val.size())]
    bases = [thr(t) for t in range(thr.size())]
    return tuple(tuple(b + o for o in offsets) for b in bases)


def _tv_rows(layout: Layout) -> tuple[tuple[int, ...], ...]:
    """The (thread, value) -> index table of a rank-2 layout."""
    if layout.rank() != 2:
        raise ValueError(f"{layout} is not a rank-2 (thread, value) layout")
    return _tv_table(str(layout))


def _cells(layout: Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thread, value, index) of every cell of a rank-2 (thread, value) layout's table, each
    an int64 [threads, values] array."""
    tv = np.array(_tv_rows(layout), dtype=np.int64)
    grid = np.indices(tv.shape)
    return grid[0], grid[1], tv


# --- the register A map: the a_regs_like_d16 hypothesis ------------------------------------


def a_halfword_layout(spec: Spec, k: int, bits: int) -> Layout:
    """Under a_regs_like_d16: (thread, halfword) -> m + M h over the 64 x (K*bits/16) halves."""
    if (k * bits) % HALF_BITS:
        raise ValueError(f"K={k} of {bits}-bit elements is not a whole number of halfwords")
    return d_layout(spec, k * bits // HALF_BITS)


# --- the result record ---------------------------------------------------------------------


@dataclass(frozen=True)
class FragmentMap:
    """One operand's fragment map with its provenance; `entries` sorted by (t, reg, sub)."""

    instr: str
    operand: Operand
    rows: int
    cols: int
    threads: int
    registers: int
    elems_per_register: int
    #: sorted by (thread, register, subelement); `Entries` where derived (made at the first read)
    entries: Sequence[Entry]
    #: The (thread, value) layout the entries come from, in CuTe notation, and its unit.
    layout: str
    layout_unit: str
    status: FragmentStatus
    derived_from: tuple[str, ...]
    hypothesis: str | None
    instruction_type: str
    fragment: str
    valid_n_from: str
    #: `entries` as a read-only int64 [entries, 5] array (the form the probes and checks read).
    table: np.ndarray = field(init=False, compare=False, repr=False)
    #: The table where the builder has it already (else it is made from `entries`); not copied
    #: by dataclasses.replace, so a map with other entries never keeps a stale table.
    given_table: InitVar[np.ndarray | None] = None

    def __post_init__(self, given_table: np.ndarray | None) -> None:
        """Set `table`: the one given, or one made from `entries`."""
        if given_table is None:
            given_table = np.array(self.entries, dtype=np.int64).reshape(-1, 5)
            given_table.setflags(write=False)
        object.__setattr__(self, "table", given_table)

    @property
    def provenance(self) -> dict[str, object]:
        """The JSON-ready provenance block: one status for every entry of this map."""
        return {"status": self.status, "derived_from": list(self.derived_from),
                "hypothesis": self.hypothesis, "layout": self.layout,
                "layout_unit": self.layout_unit, "instruction_type": self.instruction_type,
                "fragment": self.fragment, "valid_n_from": self.valid_n_from}

    def position(self, thread: int, register: int, subelement: int = 0) -> tuple[int, int]:
        """(row, col) of one register subelement."""
        return self.by_register[(thread, register, subelement)]

    def owner(self, row: int, col: int) -> tuple[int, int, int]:
        """(thread, register, subelement) holding element (row, col)."""
        return self.by_position[(row, col)]

    @functools.cached_property
    def by_register(self) -> dict[tuple[int, int, int], tuple[int, int]]:
        """(thread, register, subelement) -> (row, col)."""
        return {(t, r, s): (i, j) for t, r, s, i, j in self.entries}

    @functools.cached_property
    def by_position(self) -> dict[tuple[int, int], tuple[int, int, int]]:
        """(row, col) -> (thread, register, subelement)."""
        return {(i, j): (t, r, s) for t, r, s, i, j in self.entries}


def _map_key(res: ResolvedInstr, operand: str, spec: Spec) -> tuple[object, ...]:
    """What an operand's map depends on: the fragment row, N, K and the element width, not the
    rest of the name (instructions that share it share one map, built and checked once)."""
    if operand == "D":
        return ("D", res.frag_d.key, res.instr.n, res.itype.dtype)
    return ("A", res.frag_a.key, res.instr.n, res.itype.k_elems, spec.element_bits(res.itype.atype))


def _resolved(instr: str, operand: str, spec: Spec) -> ResolvedInstr:
    if operand not in ("A", "D"):
        raise ValueError(f"operand {operand!r}: only A (register form) and D live in registers "
                         "(B is always in shared memory)")
    return resolve(instr, spec)


def fragment_map(instr: str, operand: str, spec: Spec | None = None) -> FragmentMap:
    """The fragment map of one operand ("A": register form, "D") of a wgmma instruction."""
    spec = spec or default_spec()
    res = _resolved(instr, operand, spec)

    def build() -> FragmentMap:
        fmap = (_d_map if operand == "D" else _a_map)(spec, res)
        check_bijection(fmap)
        return fmap

    fmap = spec.memo(("fragment_map", *_map_key(res, operand, spec)), build)
    if fmap.instr == res.instr.name:
        return fmap
    return replace(fmap, instr=res.instr.name, instruction_type=res.itype.key,
                   valid_n_from=res.valid_n_from, given_table=fmap.table)


def fragment_array(instr: str, operand: str, spec: Spec | None = None) -> np.ndarray:
    """The map's entries as a read-only int64 [entries, 5] array (thread, register,
    subelement, row, col), made once per shared map."""
    return fragment_map(instr, operand, spec).table


def _table(columns: list[np.ndarray]) -> tuple[Entries, np.ndarray]:
    """(entries, table) of five equally shaped columns (thread, register, subelement, row,
    col), sorted by (thread, register, subelement, row, col); the table read-only, the entries
    made from it when first read."""
    cols = [np.asarray(c).ravel() for c in columns]
    if any(c.dtype.kind not in "iu" for c in cols):
        raise TypeError(f"a fragment table holds whole numbers, got {[c.dtype.name for c in cols]}")
    order = np.lexsort(cols[::-1])
    table = np.stack([c[order] for c in cols], axis=1).astype(np.int64).reshape(-1, 5)
    table.setflags(write=False)
    return Entries(table), table


def fragment_entries(instr: str, operand: str, spec: Spec | None = None) -> list[Entry]:
    """(thread, register, subelement, row, col) for every register subelement of the operand."""
    return list(fragment_map(instr, operand, spec).entries)


def _d_map(spec: Spec, res: ResolvedInstr) -> FragmentMap:
    """Accumulator: value v of the CLayout -> register v // epr, subelement v % epr."""
    frag, n = res.frag_d, res.instr.n
    layout = d_layout(spec, n)
    m_rows = facts.wgmma_m(spec)
    epr = frag.elems_per_register
    t, v, tv = _cells(layout)  # tv[thread, value]: the element index
    entries, table = _table([t, v // epr, v % epr, tv % m_rows, tv // m_rows])
    derived = [f"cute/mma_atoms:{D_ATOM_ROW} {spec.get(CuteLayout, D_ATOM_ROW).layout}",
               f"logical_product with ({n // _atom_cols(spec)}):1 -> {layout}",
               f"{frag.key}: {frag.elems_per_register} element(s) per register, low to high"]
    if res.itype.dtype not in ("f16", "f32"):
        derived.append(f"{res.itype.dtype} accumulator: same CLayout assumed (the CuTe text shows "
                       "f16 and calls f32 a trivial extension; seed 001 gives only counts)")
    return FragmentMap(instr=res.instr.name, operand="D", rows=m_rows, cols=n,
                       threads=layout[0].size(), registers=frag.registers_for(n),
                       elems_per_register=epr, entries=entries, layout=str(layout),
                       layout_unit="elements", status=STATUS_DERIVED, derived_from=tuple(derived),
                       hypothesis=None, instruction_type=res.itype.key, fragment=frag.key,
                       valid_n_from=res.valid_n_from, given_table=table)


def _atom_cols(spec: Spec) -> int:
    return spec.get(CuteLayout, D_ATOM_ROW).codomain_mn[1]


def _a_map(spec: Spec, res: ResolvedInstr) -> FragmentMap:
    """Register A under a_regs_like_d16: halfword map of width K*bits/16, expanded to elements."""
    frag, k = res.frag_a, res.itype.k_elems
    bits = spec.element_bits(res.itype.atype)
    layout = a_halfword_layout(spec, k, bits)
    m_rows = facts.wgmma_m(spec)
    register_bits = facts.register_bits(spec)
    halves_per_reg = register_bits // HALF_BITS
    epr = frag.elems_per_register
    if epr * bits != register_bits:
        raise ValueError(f"{frag.key}: {epr} x {bits}-bit elements do not fill a "
                         f"{register_bits}-bit register")
    t, v, tv = _cells(layout)  # tv[thread, value]: the halfword index
    row, hcol = tv % m_rows, tv // m_rows
    reg, half = v // halves_per_reg, v % halves_per_reg
    if bits <= HALF_BITS:  # each halfword holds HALF_BITS / bits elements, low to high
        per_half = HALF_BITS // bits
        j = np.arange(per_half)

        def each(x: np.ndarray) -> np.ndarray:
            return np.broadcast_to(x[..., None], (*x.shape, per_half))

        entries, table = _table([each(t), each(reg), half[..., None] * per_half + j, each(row),
                                 hcol[..., None] * per_half + j])
    else:  # an element spans halves_per_elem halfwords of one register, in order
        halves_per_elem = bits // HALF_BITS
        bad = hcol % halves_per_elem != half % halves_per_elem
        if bad.any():
            ft, fv = (int(x) for x in np.unravel_index(int(np.argmax(bad)), bad.shape))
            raise FragmentMapError(
                f"{res.instr.name}: thread {ft} register {int(reg[ft, fv])} half "
                f"{int(half[ft, fv])} lands on halfword column {int(hcol[ft, fv])}, which is not "
                f"half {int(half[ft, fv])} of a {bits}-bit element")
        first = half % halves_per_elem == 0
        entries, table = _table([t[first], reg[first], half[first] // halves_per_elem,
                                 row[first], hcol[first] // halves_per_elem])
    derived = [f"hypothesis {A_REGISTER_LAYOUT.name}: {A_REGISTER_LAYOUT.readings['a_regs_like_d16']}",
               f"halfword map = D map for N={k * bits // HALF_BITS}: {layout}",
               f"{frag.key}: {epr} element(s) of {bits} bits per register, low to high",
               "witness: PTX ISA mma.sync A fragments stacked over 4 warps (mma_sync_a_witness)"]
    return FragmentMap(instr=res.instr.name, operand="A", rows=m_rows, cols=k,
                       threads=layout[0].size(), registers=frag.registers_for(res.instr.n),
                       elems_per_register=epr, entries=entries, layout=str(layout),
                       layout_unit=f"{HALF_BITS}-bit halves", status=STATUS_HYPOTHESIS,
                       derived_from=tuple(derived), hypothesis=A_REGISTER_LAYOUT.name,
                       instruction_type=res.itype.key, fragment=frag.key,
                       valid_n_from=res.valid_n_from, given_table=table)


def check_bijection(fmap: FragmentMap) -> None:
    """Raise FragmentMapError unless the entries cover the tile once and the registers once.
    Checked over all entries at once; where that finds a fault, `_first_fault` names it."""
    e = fmap.table
    want = fmap.rows * fmap.cols
    slots = fmap.threads * fmap.registers * fmap.elems_per_register
    lo = e.min(axis=0) if len(e) else np.zeros(5, dtype=np.int64)
    hi = e.max(axis=0) if len(e) else np.full(5, -1, dtype=np.int64)
    limits = (fmap.threads, fmap.registers, fmap.elems_per_register, fmap.rows, fmap.cols)
    inside = bool((lo >= 0).all()) and all(int(h) < lim for h, lim in zip(hi, limits, strict=True))
    if inside:
        reg = (e[:, 0] * fmap.registers + e[:, 1]) * fmap.elems_per_register + e[:, 2]
        pos = e[:, 3] * fmap.cols + e[:, 4]
        once = (len(e) == want == slots and int(np.bincount(reg, minlength=1).max()) <= 1
                and int(np.bincount(pos, minlength=1).max()) <= 1)
        if once:
            return
    _first_fault(fmap)


def _first_fault(fmap: FragmentMap) -> None:
    """Raise FragmentMapError naming the first entry that breaks the bijection."""
    where = f"{fmap.instr} {fmap.operand}"
    seen_reg: dict[tuple[int, int, int], tuple[int, int]] = {}
    seen_pos: dict[tuple[int, int], tuple[int, int, int]] = {}
    for t, r, s, i, j in fmap.entries:
        if not (0 <= t < fmap.threads and 0 <= r < fmap.registers
                and 0 <= s < fmap.elems_per_register):
            raise FragmentMapError(f"{where}: (thread {t}, register {r}, sub {s}) is outside "
                                   f"{fmap.threads} threads x {fmap.registers} registers x "
                                   f"{fmap.elems_per_register}")
        if not (0 <= i < fmap.rows and 0 <= j < fmap.cols):
            raise FragmentMapError(f"{where}: thread {t} register {r} sub {s} -> ({i}, {j}) is "
                                   f"outside the {fmap.rows}x{fmap.cols} tile")
        if (t, r, s) in seen_reg:
            raise FragmentMapError(f"{where}: thread {t} register {r} sub {s} holds both "
                                   f"{seen_reg[(t, r, s)]} and ({i}, {j})")
        if (i, j) in seen_pos:
            raise FragmentMapError(f"{where}: element ({i}, {j}) is held by {seen_pos[(i, j)]} "
                                   f"and by (thread {t}, register {r}, sub {s})")
        seen_reg[(t, r, s)] = (i, j)
        seen_pos[(i, j)] = (t, r, s)
    want = fmap.rows * fmap.cols
    slots = fmap.threads * fmap.registers * fmap.elems_per_register
    if len(seen_pos) != want or slots != want:
        raise FragmentMapError(f"{where}: {len(seen_pos)} entries for a {fmap.rows}x{fmap.cols} "
                               f"tile ({want} elements) in {slots} register slots")


# --- an independent witness for the A hypothesis -------------------------------------------

#: PTX ISA 9.7.14.5 (mma.sync), the A fragments of m16n8k8 (.tf32), m16n8k16 (.f16/.bf16),
#: m16n8k32 (8-bit) and m16n8k256 (.b1), as the ISA writes them for element a_i of a lane:
#: row = groupID (+8 for the odd 32-bit register of each pair), col = threadID_in_group * e
#: + i % e (+ K/2 for the second pair), e = elements per 32-bit register. They are public facts
#: of the ISA outside the seeds, used only to cross-check the a_regs_like_d16 hypothesis.
MMA_SYNC_M = 16
LANES_PER_GROUP = 4


def mma_sync_a_witness(k: int, bits: int, warps: int | None = None, *,
                       spec: Spec | None = None) -> dict[tuple[int, int, int], tuple[int, int]]:
    """(thread, register, sub) -> (row, col): mma.m16n8k<K> A fragments stacked over `warps`
    (default: the warps of a warpgroup); register and warp widths from the spec's facts."""
    spec = spec or default_spec()
    warp_threads = facts.warp_threads(spec)
    warps = facts.warps_per_warpgroup(spec) if warps is None else warps
    e = facts.register_bits(spec) // bits
    out = {}
    for t in range(warps * warp_threads):
        warp, lane = divmod(t, warp_threads)
        group, tig = divmod(lane, LANES_PER_GROUP)
        for i in range(4 * e):
            reg, sub = divmod(i, e)
            row = group + (MMA_SYNC_M // 2) * (reg % 2)
            col = tig * e + sub + (k // 2) * (reg // 2)
            out[(t, reg, sub)] = (MMA_SYNC_M * warp + row, col)
    return out
