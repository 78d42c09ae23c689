"""Frozen record types for every spec kind: the schema of spec/*.yaml, written once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

Major = Literal["K", "MN"]
SwizzleMode = Literal["none", "32B", "64B", "128B"]
SWIZZLE_MODES: tuple[SwizzleMode, ...] = ("none", "32B", "64B", "128B")

#: Unit suffixes a numeric key may carry.
UNIT_SUFFIXES: tuple[str, ...] = ("_bits", "_bytes", "_elems", "_u128")


@dataclass(frozen=True)
class Source:
    """Where a file's facts come from."""

    document: str
    ptx_isa_version: str
    anchor: str
    section: str
    table: str | None = None


@dataclass(frozen=True)
class Row:
    """Fields every row has; `file` and `line` locate it for error messages."""

    id: str
    file: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)
    source: Source | None = field(default=None, compare=False, repr=False)

    KIND: ClassVar[str] = ""
    #: Numeric fields that are plain counts and so carry no unit suffix.
    UNITLESS: ClassVar[frozenset[str]] = frozenset()

    @property
    def key(self) -> str:
        """The spec-wide key `<file stem>:<id>`, e.g. `wgmma/swizzle_atoms:K_SW128`."""
        stem = self.file[:-5] if self.file.endswith(".yaml") else self.file
        return f"{stem}:{self.id}"

    def expected_id(self) -> str | None:
        """The id this row's fields imply, or None when the id encodes no facts."""
        return None


@dataclass(frozen=True)
class ElementType(Row):
    """An element type and its width."""

    KIND: ClassVar[str] = "element_type"
    width_bits: int = 0
    kind: Literal["float", "signed", "unsigned", "bits"] = "float"


@dataclass(frozen=True)
class SwizzleAtom(Row):
    """Table 38: the swizzle-atom shape for a swizzle mode and major-ness."""

    KIND: ClassVar[str] = "swizzle_atom"
    swizzle: SwizzleMode = "none"
    major: Major = "K"
    printed_shape: str = ""
    leading_u128: int = 0
    strided_elems: int = 0

    def expected_id(self) -> str:
        """MN_SW128, K_INTER, ..."""
        return atom_name(self.major, self.swizzle)


@dataclass(frozen=True)
class SwizzleAtomExample(Row):
    """The tf32 sentence under Table 38: an atom's shape in elements."""

    KIND: ClassVar[str] = "swizzle_atom_example"
    atom: str = ""
    dtype: str = ""
    leading_elems: int = 0
    strided_elems: int = 0

    def expected_id(self) -> str:
        """<atom>.<dtype>."""
        return f"{self.atom}.{self.dtype}"


@dataclass(frozen=True)
class CanonicalLayout(Row):
    """A canonical layout template in CuTe notation (elements) and its swizzle."""

    KIND: ClassVar[str] = "canonical_layout"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"swizzle_bits", "swizzle_base", "swizzle_shift"})
    major: Major = "K"
    swizzle: SwizzleMode = "none"
    layout: str = ""
    swizzle_bits: int = 0
    swizzle_base: int = 0
    swizzle_shift: int = 0

    def expected_id(self) -> str:
        """MN_SW32, K_INTER, ..."""
        return atom_name(self.major, self.swizzle)


@dataclass(frozen=True)
class ByteOffsetDefinition(Row):
    """A row of the LBO or SBO definition table."""

    KIND: ClassVar[str] = "byte_offset_definition"
    offset: Literal["LBO", "SBO"] = "LBO"
    major: Major = "K"
    swizzles: tuple[SwizzleMode, ...] = ()
    used: bool = True
    steps_along: Major | None = None
    assumed_u128: int | None = None
    text: str = ""


@dataclass(frozen=True)
class WorkedExample(Row):
    """One of Figures 166-170: an exact layout, its canonical template and parameters."""

    KIND: ClassVar[str] = "worked_example"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"figure", "m", "k"})
    figure: int = 0
    major: Major = "K"
    swizzle: SwizzleMode = "none"
    dtype: str = ""
    exact_layout: str = ""
    canonical_layout: str = ""
    t_elems: int = 0
    m: int = 0
    k: int = 0
    lbo_elems: int | None = None
    sbo_elems: int | None = None
    lbo_u128: int = 0
    sbo_u128: int = 0
    lbo_assumed: bool = False

    def expected_id(self) -> str:
        """fig<N>.<major>.<swizzle>.<dtype>."""
        return f"fig{self.figure}.{self.major}.{self.swizzle}.{self.dtype}"


@dataclass(frozen=True)
class DescriptorField(Row):
    """A bit field of the 64-bit wgmma matrix descriptor."""

    KIND: ClassVar[str] = "descriptor_field"
    lsb_bits: int = 0
    width_bits: int = 0
    encode_shift_bits: int = 0
    address_bits: int | None = None
    codes: dict[str, int] | None = None


@dataclass(frozen=True)
class BaseOffsetRule(Row):
    """The descriptor's base-offset rule for one swizzle mode."""

    KIND: ClassVar[str] = "base_offset_rule"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"mask"})
    swizzle: SwizzleMode = "128B"
    repeat_bytes: int = 0
    address_shift_bits: int = 0
    mask: int = 0

    def expected_id(self) -> str:
        """base_offset.<swizzle>."""
        return f"base_offset.{self.swizzle}"


@dataclass(frozen=True)
class AlignmentRule(Row):
    """A start-address alignment rule."""

    KIND: ClassVar[str] = "alignment_rule"
    applies_to: str = ""
    alignment_bytes: int = 0


@dataclass(frozen=True)
class ValidN:
    """N = step_elems * i for i in [i_min, i_max]."""

    UNITLESS: ClassVar[frozenset[str]] = frozenset({"i_min", "i_max"})
    step_elems: int = 0
    i_min: int = 0
    i_max: int = 0

    def values(self) -> tuple[int, ...]:
        """The N values this range lists."""
        return tuple(self.step_elems * i for i in range(self.i_min, self.i_max + 1))


@dataclass(frozen=True)
class RegisterFragment(Row):
    """A wgmma register-fragment table row: registers and elements per thread."""

    KIND: ClassVar[str] = "register_fragment"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"figure", "elems_per_register"})
    k_elems: int = 0
    operand: Literal["A", "D"] = "A"
    types: tuple[str, ...] = ()
    registers: str = ""
    register_type: str = ""
    elems_per_register: int = 0
    elements: str = ""
    figure: int = 0
    valid_n: tuple[ValidN, ...] | None = None

    def expected_id(self) -> str:
        """k<K>.<operand>.<first type>."""
        return f"k{self.k_elems}.{self.operand}.{self.types[0] if self.types else ''}"

    def registers_for(self, n: int) -> int:
        """Registers per thread for N columns."""
        return count_expr(self.registers, n)

    def elements_for(self, n: int) -> int:
        """Elements per thread for N columns."""
        return count_expr(self.elements, n)

    def valid_n_values(self) -> tuple[int, ...] | None:
        """The sorted valid N values, or None where the table is silent."""
        if self.valid_n is None:
            return None
        return tuple(sorted({n for r in self.valid_n for n in r.values()}))


@dataclass(frozen=True)
class InstructionType(Row):
    """A wgmma .dtype.atype.btype combination for one K."""

    KIND: ClassVar[str] = "instruction_type"
    k_elems: int = 0
    dtype: str = ""
    atype: str = ""
    btype: str = ""
    k_major_only: bool = True
    satfinite: bool = False
    fragment_a: str = ""
    fragment_d: str = ""

    def expected_id(self) -> str:
        """k<K>.<dtype>.<atype>.<btype>."""
        return f"k{self.k_elems}.{self.dtype}.{self.atype}.{self.btype}"


@dataclass(frozen=True)
class WmmaDefaultStride(Row):
    """A row of the wmma default-stride table."""

    KIND: ClassVar[str] = "wmma_default_stride"
    m_elems: int = 0
    n_elems: int = 0
    k_elems: int = 0
    a_row_elems: int = 0
    a_col_elems: int = 0
    b_row_elems: int = 0
    b_col_elems: int = 0
    c_row_elems: int = 0
    c_col_elems: int = 0
    types: tuple[str, ...] = ()

    def expected_id(self) -> str:
        """m<M>n<N>k<K>."""
        return f"m{self.m_elems}n{self.n_elems}k{self.k_elems}"

    def stride_elems(self, matrix: str, layout: str) -> int:
        """The default stride of matrix a/b/c in layout row/col."""
        return int(getattr(self, f"{matrix}_{layout}_elems"))


@dataclass(frozen=True)
class WmmaRule(Row):
    """A wmma storage rule."""

    KIND: ClassVar[str] = "wmma_rule"
    rule: str = ""
    stride_unit: str | None = None
    aligned_to: str | None = None

    def expected_id(self) -> str:
        """The rule name."""
        return self.rule


@dataclass(frozen=True)
class WmmaAlignmentExample(Row):
    """The worked example of the wmma alignment rule."""

    KIND: ClassVar[str] = "wmma_alignment_example"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"fragment_registers"})
    matrix: Literal["a", "b", "c", "d"] = "a"
    layout: Literal["row", "col"] = "row"
    shape: str = ""
    dtype: str = ""
    fragment_registers: int = 0
    register_type: str = ""
    register_bits: int = 0
    fragment_bytes: int = 0
    stride_elem_bytes: int = 0
    pointer_multiple_bytes: int = 0
    stride_multiple_bytes: int = 0

    def expected_id(self) -> str:
        """The instruction the example uses."""
        return f"wmma.load.{self.matrix}.sync.aligned.{self.layout}.{self.shape}.{self.dtype}"


@dataclass(frozen=True)
class CuteLayout(Row):
    """A CuTe MMA-atom layout: (thread, value) -> column-major matrix index."""

    KIND: ClassVar[str] = "cute_layout"
    atom: str = ""
    role: Literal["ThrID", "ALayout", "BLayout", "CLayout"] = "CLayout"
    layout: str = ""
    domain: tuple[int, ...] | None = None
    codomain_mn: tuple[int, ...] = ()
    domain_comment: str | None = None
    points: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class AtomSelection(Row):
    """CuTeDSL's atom choice: swizzle mode by contiguous bits of the major mode."""

    KIND: ClassVar[str] = "atom_selection"
    UNITLESS: ClassVar[frozenset[str]] = frozenset(
        {"swizzle_bits", "swizzle_base", "swizzle_shift", "try_order"}
    )
    swizzle: SwizzleMode = "none"
    contiguous_bits: int = 0
    swizzle_bits: int = 0
    swizzle_base: int = 0
    swizzle_shift: int = 0
    try_order: int = 0


@dataclass(frozen=True)
class PrintedAtom(Row):
    """An atom layout as a document prints it."""

    KIND: ClassVar[str] = "printed_atom"
    major: Major = "K"
    swizzle: SwizzleMode = "none"
    dtype: str = ""
    layout: str = ""

    def expected_id(self) -> str:
        """<atom name>.<dtype>."""
        return f"{atom_name(self.major, self.swizzle)}.{self.dtype}"


@dataclass(frozen=True)
class CuteDslExample(Row):
    """A worked example of the CuTeDSL swizzle blog."""

    KIND: ClassVar[str] = "cutedsl_example"
    UNITLESS: ClassVar[frozenset[str]] = frozenset(
        {"swizzle_bits", "swizzle_base", "swizzle_shift", "period_units"}
    )
    example: Literal["select", "swizzle", "tile_to_shape", "period"] = "select"
    dtype: str | None = None
    major: Major | None = None
    layout: str | None = None
    major_mode_size_elems: int | None = None
    major_mode_size_bits: int | None = None
    chosen: str | None = None
    swizzle_bits: int | None = None
    swizzle_base: int | None = None
    swizzle_shift: int | None = None
    coord: tuple[int, ...] | None = None
    plain_offset_elems: int | None = None
    swizzled_offset_elems: int | None = None
    atom: str | None = None
    target_shape: tuple[int, ...] | None = None
    order: tuple[int, ...] | None = None
    result: str | None = None
    atom_repeats: tuple[int, ...] | None = None
    period_units: int | None = None
    stated_period_bytes: int | None = None


def count_expr(expr: str, n: int) -> int:
    """Evaluate a count the tables write as "8", "N", "N/2" or "N/4"; ValueError if not whole."""
    text = expr.replace(" ", "")
    if text.isdigit():
        return int(text)
    if text == "N":
        return n
    if text.startswith("N/") and text[2:].isdigit() and int(text[2:]) > 0:
        q, r = divmod(n, int(text[2:]))
        if r:
            raise ValueError(f"{expr} is not whole for N={n}")
        return q
    raise ValueError(f"count {expr!r}: expected an integer, 'N' or 'N/<integer>'")


def atom_name(major: str, swizzle: str) -> str:
    """CuTe's atom name for a major-ness and swizzle mode: K_SW128, MN_INTER, ..."""
    return f"{major}_{'INTER' if swizzle == 'none' else 'SW' + swizzle[:-1]}"


RECORD_KINDS: dict[str, type[Row]] = {
    cls.KIND: cls
    for cls in (
        ElementType, SwizzleAtom, SwizzleAtomExample, CanonicalLayout, ByteOffsetDefinition,
        WorkedExample, DescriptorField, BaseOffsetRule, AlignmentRule, RegisterFragment,
        InstructionType, WmmaDefaultStride, WmmaRule, WmmaAlignmentExample, CuteLayout,
        AtomSelection, PrintedAtom, CuteDslExample,
    )
}
