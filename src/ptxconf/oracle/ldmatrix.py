"""ldmatrix and stmatrix: which lane supplies which row address, and which lane holds which
elements, derived from the rows of spec/warp/*.yaml for every shape, .num and .trans.

A warp-level matrix load (store) moves `matrices` matrices between shared memory and the
registers of a warp. Two maps describe one instruction form:

* the row addresses (the .num table): lane -> the address it supplies; address k is row
  k % 8 of matrix k // 8 ("Addresses addr0–addr7 correspond to the rows of the first matrix,
  addresses addr8–addr15 correspond to the rows of the second matrix, and so on");
* the fragments (Figures 104 and 107 and the sentences before them): (lane, register,
  element) -> (matrix, row, col) of a matrix *as stored*, row being the row whose address a
  lane supplied and col the element within its bytes. Thread 0 holds the first fragment and
  "so on" (row-major), a row is held by `threads_per_row` lanes, register i holds matrix i
  ("the elements of the second matrix are loaded in the next destination register"; a shape
  of two registers a matrix, 16x16, puts its second eight-row half in the second); with .trans
  the matrix is stored column-major: the stored row is the registers' column.

Everything is counted from the rows (lanes from `facts.warp_threads`, the register width from
the .num table, element widths from the shape table); a row set that does not tile is a
ValueError naming the row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptxconf.oracle import facts
from ptxconf.oracle.records import WarpMatrixAddresses, WarpMatrixFragment, WarpMatrixShape
from ptxconf.oracle.spec import Spec

#: The targets this harness checks (H100, H200): a shape from a later target is a row the oracle
#: reads but no GPU family here runs.
HARNESS_TARGET = "sm_90"

_RANGE = re.compile(r"(?P<pre>[a-z]*)(?P<lo>\d+)\s*[–-]\s*(?P=pre)(?P<hi>\d+)")
_DASHES = frozenset({"–", "-", "—"})
_TARGET = re.compile(r"sm_(?P<n>\d+)[a-z]?")
_SHAPE = re.compile(r"m(?P<m>\d+)n(?P<n>\d+)")
#: Qualifiers of a PTX spelling that name no part of a form.
_PLAIN = frozenset({"sync", "aligned", "shared", "shared::cta"})


def target_number(target: str) -> int:
    """sm_90 -> 90, sm_100a -> 100 (ValueError for another spelling)."""
    m = _TARGET.fullmatch(target)
    if m is None:
        raise ValueError(f"target {target!r}: expected sm_<number>[letter]")
    return int(m["n"])


def shape_dims(shape: str) -> tuple[int, int]:
    """m8n8 -> (8, 8)."""
    m = _SHAPE.fullmatch(shape)
    if m is None:
        raise ValueError(f"shape {shape!r}: expected m<rows>n<cols>")
    return int(m["m"]), int(m["n"])


def num_matrices(num: str) -> int:
    """x4 -> 4: "The values .x1, .x2 and .x4 for .num indicate one, two or four matrices"."""
    if not (num[:1] == "x" and num[1:].isdigit()):
        raise ValueError(f".num {num!r}: expected x<count>")
    return int(num[1:])


def cell_range(text: str) -> tuple[int, int] | None:
    """'0–7' -> (0, 7), 'addr8–addr15' -> (8, 15), '–' (no address) -> None."""
    if text.strip() in _DASHES:
        return None
    m = _RANGE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"cell {text!r}: expected <first>–<last> or –")
    return int(m["lo"]), int(m["hi"])


def lane_addresses(row: WarpMatrixAddresses) -> dict[int, int]:
    """lane -> the index k of the address it supplies (addr_k), from the row's cells: the
    lanes of a column supply the addresses of its cell in order; a '–' column none."""
    if len(row.thread_groups) != len(row.addresses):
        raise ValueError(f"{row.key}: {len(row.thread_groups)} thread groups, "
                         f"{len(row.addresses)} cells")
    out: dict[int, int] = {}
    for group, cell in zip(row.thread_groups, row.addresses, strict=True):
        lanes, addrs = cell_range(group), cell_range(cell)
        if lanes is None:
            raise ValueError(f"{row.key}: thread group {group!r} names no threads")
        if addrs is None:
            continue
        if addrs[1] - addrs[0] != lanes[1] - lanes[0]:
            raise ValueError(f"{row.key}: threads {group} supply {cell}: not one address each")
        out.update({lane: addrs[0] + i for i, lane in enumerate(range(lanes[0], lanes[1] + 1))})
    return out


@dataclass(frozen=True)
class Held:
    """One element a lane holds: register `register`, element `element` of it (low bits first),
    is element (row, col) of matrix `matrix` as stored in shared memory."""

    lane: int
    register: int
    element: int
    matrix: int
    row: int
    col: int


@dataclass(frozen=True)
class Form:
    """One instruction form: a shape, a .num, .trans or not, a type."""

    shape: WarpMatrixShape
    addresses: WarpMatrixAddresses
    fragment: WarpMatrixFragment | None
    trans: bool
    type: str
    lanes: int

    @property
    def name(self) -> str:
        """ldmatrix.m8n8.x4.trans.b16."""
        return ".".join([self.shape.instruction, self.shape.shape, self.addresses.num,
                         *(["trans"] if self.trans else []), self.type])

    @property
    def key(self) -> str:
        """The case key: the shape row's key with the form's .num, .trans and type."""
        return f"{self.shape.key}.{self.name.split('.', 2)[2]}"

    @property
    def ptx(self) -> str:
        """The instruction as the PTX ISA's syntax orders it."""
        qual = [self.shape.shape, self.addresses.num, *(["trans"] if self.trans else [])]
        return ".".join([self.shape.instruction, "sync", "aligned", *qual, "shared", self.type])

    @property
    def matrices(self) -> int:
        """The matrices the form moves."""
        return self.addresses.matrices

    @property
    def registers(self) -> int:
        """32-bit registers a lane holds: registers per matrix x matrices."""
        return self.shape.registers_per_matrix * self.addresses.matrices

    @property
    def elems_per_register(self) -> int:
        """Elements one register holds (register width / element width)."""
        return self.addresses.register_bits // self.shape.element_bits

    @property
    def stored_dims(self) -> tuple[int, int]:
        """(rows, cols) of one matrix as stored: m x n, or n x m with .trans."""
        m, n = self.shape.m_elems, self.shape.n_elems
        return (n, m) if self.trans else (m, n)


def trans_options(shape: WarpMatrixShape) -> tuple[bool, ...]:
    """The .trans a shape takes: both where optional, only .trans where mandatory, none."""
    return {"optional": (False, True), "mandatory": (True,), "none": (False,)}[shape.trans]


def forms(spec: Spec, instruction: str | None = None, *, derivable: bool = True) -> tuple[Form, ...]:
    """Every form of the shape rows (of one instruction), in row order: each .num with a row of
    its instruction's .num table, each .trans, each type; with `derivable`, only the shapes
    with a fragment row (the shapes whose maps the oracle derives)."""
    frags = {f.id: f for f in spec.of(WarpMatrixFragment)}
    lanes = facts.warp_threads(spec)
    out: list[Form] = []
    for shape in spec.of(WarpMatrixShape):
        if instruction is not None and shape.instruction != instruction:
            continue
        frag = frags.get(shape.id)
        if derivable and frag is None:
            continue
        for num in shape.nums:
            addr = address_row(spec, shape.instruction, num)
            if addr is None:
                continue
            out.extend(Form(shape, addr, frag, trans, t, lanes)
                       for trans in trans_options(shape) for t in shape.types)
    return tuple(out)


def address_row(spec: Spec, instruction: str, num: str) -> WarpMatrixAddresses | None:
    """The .num table row of an instruction, or None."""
    rows = [r for r in spec.of(WarpMatrixAddresses) if (r.instruction, r.num) == (instruction, num)]
    return rows[0] if len(rows) == 1 else None


def parse_ptx(text: str) -> tuple[str, str, str, bool, str]:
    """(instruction, shape, num, trans, type) of a PTX spelling, qualifiers in any order
    (CuTe writes ldmatrix.sync.aligned.x1.m8n8.shared.b16, the PTX ISA .m8n8.x1)."""
    head, *quals = text.strip().rstrip(";").split(".")
    shape = [q for q in quals if _SHAPE.fullmatch(q)]
    num = [q for q in quals if re.fullmatch(r"x\d+", q)]
    rest = [q for q in quals if q not in _PLAIN and q not in shape and q not in num
            and q != "trans"]
    if len(shape) != 1 or len(num) != 1 or not rest:
        raise ValueError(f"{text!r}: expected <instruction>...<shape>.<num>[.trans]...<type>")
    return head, shape[0], num[0], "trans" in quals, ".".join(rest)


def form(spec: Spec, text: str) -> Form:
    """The form a name or PTX spelling names (ldmatrix.m8n8.x4.trans.b16), among every shape
    row (derivable or not); ValueError naming the forms there are."""
    want = parse_ptx(text)
    every = forms(spec, derivable=False)
    for f in every:
        if (f.shape.instruction, f.shape.shape, f.addresses.num, f.trans, f.type) == want:
            return f
    raise ValueError(f"{text!r} is no form of the spec's rows; forms: "
                     + ", ".join(f.name for f in every))


@dataclass(frozen=True)
class Geometry:
    """How a form's lanes tile one matrix: `threads_per_row` lanes hold a row, each register
    `elems` elements of it; a register covers `groups` rows (lanes / threads_per_row), and
    `per_matrix` registers cover the matrix."""

    threads_per_row: int
    groups: int
    elems: int
    per_matrix: int


def geometry(form: Form) -> Geometry:
    """The form's tiling from its rows, or ValueError naming the row that does not tile: a row
    is threads_per_row lanes x elements per register, a matrix's m rows are lanes /
    threads_per_row rows a register x registers_per_matrix."""
    shape, frag = form.shape, form.fragment
    if frag is None:
        raise ValueError(f"{shape.key}: no fragment row (spec/warp/matrix_fragments.yaml): its "
                         f"maps are not derived (target {shape.target})")
    if frag.trans_format != "column-major":
        raise ValueError(f"{frag.key}: .trans as {frag.trans_format!r}: the oracle reads column-major")
    elems = form.elems_per_register
    if elems * shape.element_bits != form.addresses.register_bits:
        raise ValueError(f"{shape.key}: {form.addresses.register_bits}-bit registers do not hold "
                         f"whole {shape.element_bits}-bit elements")
    tpr = frag.threads_per_row
    if tpr <= 0 or form.lanes % tpr or tpr * elems != shape.n_elems:
        raise ValueError(f"{frag.key}: {tpr} threads a row x {elems} elements a register do not "
                         f"make the {shape.n_elems} columns of {shape.shape} over {form.lanes} lanes")
    groups = form.lanes // tpr
    if groups * shape.registers_per_matrix != shape.m_elems:
        raise ValueError(f"{shape.key}: {groups} rows a register x {shape.registers_per_matrix} "
                         f"registers a matrix are not its {shape.m_elems} rows")
    return Geometry(tpr, groups, elems, shape.registers_per_matrix)


def fragment(form: Form) -> tuple[Held, ...]:
    """Every element a warp holds, by lane, register, element: (matrix, row, col) as stored."""
    g = geometry(form)
    out = []
    for lane in range(form.lanes):
        for reg in range(form.registers):
            matrix, half = divmod(reg, g.per_matrix)
            for e in range(g.elems):
                row = lane // g.threads_per_row + g.groups * half
                col = (lane % g.threads_per_row) * g.elems + e
                if form.trans:
                    row, col = col, row
                out.append(Held(lane, reg, e, matrix, row, col))
    return tuple(out)


def row_suppliers(form: Form) -> dict[int, tuple[int, int]]:
    """lane -> (matrix, stored row) whose start address it supplies; the lanes the .num table
    leaves out are absent. ValueError where an address names a matrix the form does not move."""
    per = form.addresses.addresses_per_matrix
    out = {lane: divmod(k, per) for lane, k in lane_addresses(form.addresses).items()}
    bad = sorted(lane for lane, (m, _) in out.items() if not 0 <= m < form.matrices)
    if bad:
        raise ValueError(f"{form.addresses.key}: lanes {bad} supply addresses past the "
                         f"{form.matrices} matrices of {form.addresses.num}")
    return out


__all__ = ["HARNESS_TARGET", "Form", "Geometry", "Held", "address_row", "cell_range", "form", "forms",
           "fragment", "geometry", "lane_addresses", "num_matrices", "parse_ptx", "row_suppliers",
           "shape_dims", "target_number", "trans_options"]
