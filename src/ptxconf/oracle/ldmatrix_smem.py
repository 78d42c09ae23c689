"""What an ldmatrix (stmatrix) over a shared-memory tile reads (writes): a form's maps
(ptxconf.oracle.ldmatrix) composed with the tile's layout.

A tile is (row, col) -> byte address, the elements of a row in order: a CuTe layout as CUTLASS
prints it ((row, col) -> element offset, its swizzle on byte addresses as `explain layout`
reads it: ptxconf.oracle.explain.printed.parse_layout), or a canonical wgmma layout by name
(K_SW128, MN_INTER, ...: spec/wgmma/canonical_layouts.yaml, packed densely:
ptxconf.oracle.banks.tile_offsets_bytes). An MN-major canonical tile is read along MN, where its
16-byte rows run: its rows are k, its columns mn.

The matrices sit in the tile's blocks of one stored matrix (stored rows x cols), column by
column: matrix m in block (m % blocks down, m // blocks down), so that .x4 over a 16x16 tile
takes the order of mma's A fragment (rows 0-7, then 8-15, of columns 0-7, then of 8-15). Lane l
supplies the byte address of the first element of its stored row; the instruction moves
`row_bytes` from there, element c at address + c x element bytes. Where that byte holds the
tile's element (row, col) the instruction moves what the tile means; where not (a swizzle that
splits a 16-byte row, a column-major tile), it moves another element, or bytes outside the tile.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxconf.oracle import banks, canonical
from ptxconf.oracle.ldmatrix import Form, Held, fragment, row_suppliers
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec

#: The largest tile a composition reads (rows x cols).
MAX_TILE_ELEMS = 1 << 16
#: The lanes a problem line names.
SHOWN = 4


@dataclass(frozen=True)
class Tile:
    """A shared-memory tile: (row, col) -> byte address from the tile's start."""

    name: str
    dtype: str
    element_bits: int
    axes: tuple[str, str]
    addresses: tuple[tuple[int, ...], ...]

    @property
    def dims(self) -> tuple[int, int]:
        """(rows, cols)."""
        return len(self.addresses), len(self.addresses[0]) if self.addresses else 0


def tile(spec: Spec, text: str, dtype: str, *, start_bytes: int = 0) -> Tile:
    """A canonical layout's name (K_SW128) or a CuTe layout, as a tile of `dtype` elements at
    `start_bytes`; ValueError (an explain error) for a layout that is not (row, col) -> offset."""
    if any(r.id == text for r in spec.of(CanonicalLayout)):
        return _canonical(spec, spec.get(CanonicalLayout, text), dtype, start_bytes)
    from ptxconf.oracle.explain.printed import parse_layout

    user = parse_layout(spec, text, dtype)
    if user.mn * user.k > MAX_TILE_ELEMS:
        raise ValueError(f"{text!r}: {user.mn}x{user.k} elements; at most {MAX_TILE_ELEMS}")
    table = user.addresses(start_bytes)
    return Tile(text, dtype, user.bits, ("row", "col"),
                tuple(tuple(int(a) for a in row) for row in table))


def _canonical(spec: Spec, row: CanonicalLayout, dtype: str, start_bytes: int) -> Tile:
    """The canonical tile of one repeat, at least 16 x 16 (mn, k), packed densely."""
    t = canonical.t_elems(spec, dtype)
    per_mn, per_k = canonical.repeat_extents(row, t)
    mn, k = (-(-16 // per_mn) * per_mn, -(-16 // per_k) * per_k)
    q = banks.TileQuery(row.major, row.swizzle, dtype, mn, k, base_offset_bytes=start_bytes)
    offs = banks.tile_offsets_bytes(spec, q)
    table = [[start_bytes + o for o in r] for r in offs]
    if row.major == "MN":
        return Tile(row.id, dtype, spec.element_bits(dtype), ("k", "mn"),
                    tuple(tuple(table[i][j] for i in range(mn)) for j in range(k)))
    return Tile(row.id, dtype, spec.element_bits(dtype), ("mn", "k"), tuple(map(tuple, table)))


@dataclass(frozen=True)
class RowAddress:
    """The address one lane supplies: the stored row (matrix, row) it names, where that row
    starts in the tile, and whether the address is aligned and its bytes are the tile's row."""

    lane: int
    matrix: int
    row: int
    tile_row: int
    tile_col: int
    address_bytes: int
    aligned: bool
    whole_row: bool


@dataclass(frozen=True)
class Moved:
    """One element moved: the lane's (register, element), the byte it is read from or written
    to, the tile element the layout puts there (`meant`) and the one at that byte (`found`,
    None outside the tile)."""

    held: Held
    address_bytes: int
    meant: tuple[int, int]
    found: tuple[int, int] | None

    @property
    def ok(self) -> bool:
        """The instruction moves the element the tile means."""
        return self.found == self.meant


@dataclass(frozen=True)
class TileAccess:
    """A form over a tile: the matrices' origins, each lane's row address, each element moved,
    and the bank conflicts of the row reads (phases of eight 16-byte rows)."""

    form: Form
    tile: Tile
    origins: tuple[tuple[int, int], ...]
    rows: tuple[RowAddress, ...]
    moved: tuple[Moved, ...]
    bank_degree: int

    def problems(self) -> list[str]:
        """What is wrong, one line a kind (empty: the form moves the tile as laid out)."""
        out = []
        ax0, ax1 = self.tile.axes
        odd = [r for r in self.rows if not r.aligned]
        if odd:
            out.append(f"{len(odd)} row addresses are not {self.row_align}-byte aligned: "
                       + ", ".join(f"T{r.lane} {r.address_bytes:#x}" for r in odd[:SHOWN])
                       + (", ..." if len(odd) > SHOWN else ""))
        split = [r for r in self.rows if not r.whole_row]
        if split:
            out.append(f"{len(split)} row addresses do not start {self.row_bytes} bytes of one "
                       f"tile row: " + ", ".join(f"T{r.lane} ({ax0} {r.tile_row}, {ax1} "
                                                 f"{r.tile_col}) at {r.address_bytes:#x}"
                                                 for r in split[:SHOWN])
                       + (", ..." if len(split) > SHOWN else ""))
        wrong = [m for m in self.moved if not m.ok]
        if wrong:
            m = wrong[0]
            out.append(f"{len(wrong)} of {len(self.moved)} elements are not the tile's: T"
                       f"{m.held.lane} r{m.held.register}[{m.held.element}] moves "
                       f"{_coord(self.tile, m.found)} for {_coord(self.tile, m.meant)}")
        if self.bank_degree > 1:
            out.append(f"bank conflicts: {self.bank_degree}-way (eight {self.row_bytes}-byte "
                       "rows a phase)")
        return out

    @property
    def row_bytes(self) -> int:
        """Bytes of one stored row."""
        return self.form.stored_dims[1] * self.form.shape.element_bits // canonical.BITS_PER_BYTE

    @property
    def row_align(self) -> int:
        """The alignment of a row address (the fragment row's)."""
        return self.form.fragment.alignment_bytes if self.form.fragment else self.row_bytes


def _coord(t: Tile, c: tuple[int, int] | None) -> str:
    return "bytes outside the tile" if c is None else f"({t.axes[0]} {c[0]}, {t.axes[1]} {c[1]})"


def origins(form: Form, t: Tile) -> tuple[tuple[int, int], ...]:
    """Each matrix's (row, col) origin in the tile: blocks of one stored matrix, column by
    column; ValueError where the tile does not hold them."""
    rows, cols = form.stored_dims
    down, across = t.dims[0] // rows, t.dims[1] // cols
    if down * across < form.matrices:
        raise ValueError(f"the {t.dims[0]}x{t.dims[1]} tile holds {down * across} block(s) of "
                         f"{rows}x{cols}; {form.name} moves {form.matrices} matrices")
    return tuple((rows * (m % down), cols * (m // down)) for m in range(form.matrices))


def access(spec: Spec, form: Form, t: Tile) -> TileAccess:
    """The form over the tile."""
    bits = form.shape.element_bits
    if t.element_bits != bits:
        raise ValueError(f"{t.dtype} is {t.element_bits}-bit; {form.name} moves {bits}-bit elements")
    elem_bytes = bits // canonical.BITS_PER_BYTE
    where = origins(form, t)
    at = {a: (i, j) for i, row in enumerate(t.addresses) for j, a in enumerate(row)}
    cols = form.stored_dims[1]
    starts: dict[tuple[int, int], int] = {}
    rows = []
    for lane, (m, r) in sorted(row_suppliers(form).items()):
        i, j = where[m][0] + r, where[m][1]
        a = t.addresses[i][j]
        starts[(m, r)] = a
        whole = all(t.addresses[i][j + c] == a + c * elem_bytes for c in range(cols))
        align = form.fragment.alignment_bytes if form.fragment else cols * elem_bytes
        rows.append(RowAddress(lane, m, r, i, j, a, a % align == 0, whole))
    moved = []
    for h in fragment(form):
        a = starts[(h.matrix, h.row)] + h.col * elem_bytes
        meant = (where[h.matrix][0] + h.row, where[h.matrix][1] + h.col)
        moved.append(Moved(h, a, meant, at.get(a)))
    lanes: list[int | None] = [None] * form.lanes
    for ra in rows:
        lanes[ra.lane] = ra.address_bytes - ra.address_bytes % (cols * elem_bytes)
    degree = banks.analyze(lanes, cols * elem_bytes, spec).degree if cols * elem_bytes in \
        banks.ACCESS_BYTES else 0
    return TileAccess(form, t, where, tuple(rows), tuple(moved), degree)


__all__ = ["MAX_TILE_ELEMS", "SHOWN", "Moved", "RowAddress", "Tile", "TileAccess", "access", "origins",
           "tile"]
