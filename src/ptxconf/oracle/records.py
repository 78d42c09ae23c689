"""Frozen record types for every spec kind: the schema of spec/*.yaml, written once.

One module (past 500 lines) on purpose: every table's fields in one place, in the order of the
spec's folders, with `RECORD_KINDS` at the end naming them for the loader and the lint."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

Major = Literal["K", "MN"]
SwizzleMode = Literal["none", "32B", "64B", "128B"]
SWIZZLE_MODES: tuple[SwizzleMode, ...] = ("none", "32B", "64B", "128B")

#: Unit suffixes a numeric key may carry.
UNIT_SUFFIXES: tuple[str, ...] = ("_bits", "_bytes", "_elems", "_u128")


#: Where a fact comes from when it is not the file's document: the assembler (the NVRTC
#: witness), silicon (the GPU evidence of reports/evidence/h100), a public document outside the
#: five seeds (named in the file's source), or the project's own derivation from other rows.
Provenance = Literal["assembler", "silicon-h100", "outside-seeds", "derived", "project"]


@dataclass(frozen=True)
class Source:
    """Where a file's facts come from.

    `columns` names the columns whose values the rows' cited text does not state, and where
    each comes from instead (a derivation, the assembler, silicon, a document outside the
    seeds); SPEC-CITE requires every other numeric column to be stated by the row's cite.
    `row_count` pins how many rows the source's table has: a file with fewer fails SPEC-ROWS.
    """

    document: str
    ptx_isa_version: str
    anchor: str
    section: str
    table: str | None = None
    columns: dict[str, str] | None = None
    row_count: int | None = None


@dataclass(frozen=True)
class Cite:
    """Where in the file's document a row is stated: an anchor (figure, table, section, line of
    code) and a short verbatim quote of the source's own text holding the row's numbers.
    `provenance` says where the row comes from when no sentence of the document states it."""

    anchor: str = ""
    text: str | None = None
    provenance: Provenance | None = None


@dataclass(frozen=True)
class Row:
    """Fields every row has; `file` and `line` locate it for error messages."""

    id: str
    file: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)
    source: Source | None = field(default=None, compare=False, repr=False)
    cite: Cite | None = field(default=None, compare=False, repr=False)

    KIND: ClassVar[str] = ""
    #: Numeric fields that are plain counts and so carry no unit suffix.
    UNITLESS: ClassVar[frozenset[str]] = frozenset()
    #: Fields that are provenance, not facts: no check needs to read them (SPEC-CITE reads
    #: `cite` while linting; conformance/test_facts.py exempts these from "read by a check",
    #: and ptxconf.app.mutants never perturbs them). The one place an exemption is declared: a
    #: kind adds a field here with the reason beside it.
    INFORMATIVE: ClassVar[frozenset[str]] = frozenset({"cite"})

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
    #: Float encodings: sign + exponent + mantissa (+ padding: tf32's zero low bits in its
    #: 32-bit container) = width; finite_only: the all-ones exponent still encodes finite
    #: numbers (OCP E4M3: no infinities, S.1111.111 is NaN). None for non-float kinds.
    exponent_bits: int | None = None
    mantissa_bits: int | None = None
    padding_bits: int | None = None
    finite_only: bool | None = None


@dataclass(frozen=True)
class Normalization(Row):
    """A statement of the width every element type is normalized to (T = 128 / width)."""

    KIND: ClassVar[str] = "normalization"
    normalized_bits: int = 0


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
    #: `text` is the definition as printed: its numbers are `after`, `unit` and `tile`.
    INFORMATIVE: ClassVar[frozenset[str]] = frozenset({"cite", "text"})
    offset: Literal["LBO", "SBO"] = "LBO"
    major: Major = "K"
    swizzles: tuple[SwizzleMode, ...] = ()
    used: bool = True
    steps_along: Major | None = None
    assumed_u128: int | None = None
    text: str = ""
    #: What the text counts before the offset applies, in its own words: "1" (first column to
    #: the second), "8", "swizzle-byte-size/16"; `unit` is its word for them (rows: along MN,
    #: columns: along K); `tile` the tile it names ("8x2"). None where the offset is unused.
    after: str | None = None
    unit: Literal["rows", "columns"] | None = None
    tile: str | None = None


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
    #: The shift the figure writes in "(LBO) >> 4 = 16".
    encode_shift_bits: int | None = None

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
    #: The section title's shape ("m64nNk16") and the last element index the table lists
    #: ("7" for a0..a7, "N/2 - 1" for d0..dW, W = N/2 - 1): `elements` is derived from it.
    shape: str | None = None
    last_index: str | None = None

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
class InstructionOperand(Row):
    """An immediate operand of wgmma.mma_async and the operand types whose syntax spells it."""

    KIND: ClassVar[str] = "instruction_operand"
    immediate: Literal["imm-trans", "imm-scale"] = "imm-trans"
    operand: Literal["A", "B"] = "A"
    types: tuple[str, ...] = ()

    def expected_id(self) -> str:
        """imm-trans-a, imm-scale-b, ..."""
        return f"{self.immediate}-{self.operand.lower()}"


@dataclass(frozen=True)
class OperandStorage(Row):
    """Where a wgmma multiplicand may live: registers and/or shared memory."""

    KIND: ClassVar[str] = "operand_storage"
    operand: Literal["A", "B"] = "A"
    registers: bool = False
    shared_memory: bool = True

    def expected_id(self) -> str:
        """The operand."""
        return self.operand


@dataclass(frozen=True)
class MajorConvention(Row):
    """What a document's word for an operand's orientation means: imm-trans-a = 1, BLAS
    "Transposed", CuTe's "T" in an atom name; `spelled` is the document's own spelling."""

    KIND: ClassVar[str] = "major_convention"
    convention: Literal["imm-trans", "blas", "cute-name"] = "blas"
    operand: Literal["A", "B"] = "A"
    transposed: bool = False
    major: Major = "K"
    spelled: str = ""


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
    #: The shape as the table prints it, MxNxK ("8x32x16").
    printed_shape: str | None = None

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
    #: The layout as the document's C++ spells it (`Layout<Shape <_8,_4>, Stride<_1,_8>>`);
    #: `layout` is the project's CuTe-notation transcription (cute.layout checks they agree).
    layout_cpp: str | None = None
    domain: tuple[int, ...] | None = None
    codomain_mn: tuple[int, ...] = ()
    domain_comment: str | None = None
    points: tuple[tuple[int, ...], ...] = ()
    #: Whether the document spells `atom`; False: the project named what the section describes
    #: by the document's naming scheme ("Operation struct's name"), the cite says what it says.
    atom_named: bool = True
    #: The C++ alias the document's traits give this layout (SM70_8x4_Col, SM70_QuadPair, ...).
    alias: str | None = None
    #: Other N the document says this pattern is repeated to ("N = [16,32,64,128,256]").
    variants_n_elems: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ModeStatement(Row):
    """A sentence about one mode of a CuTe layout: its size and stride (codomain steps).
    `mode` is the path into the layout: [0, 2] is thread sub-mode 2."""

    KIND: ClassVar[str] = "mode_statement"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"mode_size", "mode_stride"})
    layout: str = ""
    mode: tuple[int, ...] = ()
    mode_size: int | None = None
    mode_stride: int | None = None


@dataclass(frozen=True)
class OperationRegisters(Row):
    """An Operation struct's register alias: `DRegisters = float[8]` and what one holds."""

    KIND: ClassVar[str] = "operation_registers"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"values"})
    atom: str = ""
    operand: Literal["A", "B", "C", "D"] = "D"
    cpp_type: str = ""
    values: int = 0
    register_bits: int = 0

    def expected_id(self) -> str:
        """<atom>.<operand>Registers."""
        return f"{self.atom}.{self.operand}Registers"


@dataclass(frozen=True)
class ThreadGroup(Row):
    """A group of threads an MMA runs on: its size, the groups it is made of, its tile."""

    KIND: ClassVar[str] = "thread_group"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"threads", "parts"})
    threads: int = 0
    part: str | None = None
    parts: int | None = None
    tile: str | None = None


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
    #: get_smem_layout_atom's own constant for this mode (sw64_num_contiguous_bits = 512),
    #: None for the fallback; `strided_elems`: the 8 of make_layout((n, 8)).
    select_contiguous_bits: int | None = None
    strided_elems: int | None = None


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
        {"swizzle_bits", "swizzle_base", "swizzle_shift", "period_units", "pattern_repeat_atoms",
         "elems_per_bank_word"}
    )
    example: Literal["select", "swizzle", "tile_to_shape", "period", "precondition",
                     "bank"] = "select"
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
    element_width_bits: int | None = None
    #: The blog's bit pictures: offsets in binary, and the pattern a swizzle acts on with the
    #: flips it names ("0bxxxxxxxUVxXYxxxx", ["X<-U", "Y<-V"]: X flips where U is 1).
    plain_offset_binary: str | None = None
    swizzled_offset_binary: str | None = None
    bit_pattern: str | None = None
    flips: tuple[str, ...] | None = None
    period_binary: str | None = None
    pattern_bits: int | None = None
    #: tile_to_shape: the atom's shape as the text states it, the label it gives the atom's
    #: major-ness, each mode of the result as the text derives it, and the atoms after which
    #: the swizzle pattern repeats.
    atom_shape: tuple[int, ...] | None = None
    atom_label_major: Major | None = None
    mode_layouts: tuple[str, ...] | None = None
    pattern_repeat_atoms: int | None = None
    major_mode_multiple_elems: int | None = None
    bank_word_bits: int | None = None
    elems_per_bank_word: int | None = None


#: How a shape of ldmatrix / stmatrix takes `.trans`: allowed, required, or not spelled.
TransRule = Literal["optional", "mandatory", "none"]
WarpInstruction = Literal["ldmatrix", "stmatrix"]


@dataclass(frozen=True)
class WarpMatrixShape(Row):
    """A shape of the warp-level matrix load or store (ldmatrix, stmatrix): the m x n matrices
    it moves, their element size, the types, .num and .trans it takes, its first target."""

    KIND: ClassVar[str] = "warp_matrix_shape"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"registers_per_matrix"})
    instruction: WarpInstruction = "ldmatrix"
    shape: str = ""
    m_elems: int = 0
    n_elems: int = 0
    element_bits: int = 0
    types: tuple[str, ...] = ()
    nums: tuple[str, ...] = ()
    trans: TransRule = "optional"
    #: The 32-bit registers one matrix takes in each thread ("two destination registers r0 and
    #: r1" for 16x16).
    registers_per_matrix: int = 0
    target: str = ""
    #: The syntax lines that spell the shape, as printed (`.shape`, or the shape by name).
    syntax: tuple[str, ...] = ()

    def expected_id(self) -> str:
        """<instruction>.<shape>."""
        return f"{self.instruction}.{self.shape}"


@dataclass(frozen=True)
class WarpMatrixAddresses(Row):
    """A row of the .num table of ldmatrix / stmatrix: the thread groups (the table's columns)
    and the row addresses each supplies, the matrices and registers of the .num."""

    KIND: ClassVar[str] = "warp_matrix_addresses"
    UNITLESS: ClassVar[frozenset[str]] = frozenset(
        {"matrices", "registers", "addresses_per_matrix"})
    instruction: WarpInstruction = "ldmatrix"
    num: str = ""
    matrices: int = 0
    registers: int = 0
    register_bits: int = 0
    addresses_per_matrix: int = 0
    thread_groups: tuple[str, ...] = ()
    addresses: tuple[str, ...] = ()

    def expected_id(self) -> str:
        """<instruction>.<num>."""
        return f"{self.instruction}.{self.num}"


@dataclass(frozen=True)
class WarpMatrixFragment(Row):
    """How a warp holds one matrix of a shape (its id is the shape row's): the threads that
    hold one row, the bytes of a row and the alignment of a row address, and what .trans
    means (ldmatrix's Figure 104, stmatrix's Figure 107 and the sentences around them)."""

    KIND: ClassVar[str] = "warp_matrix_fragment"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"threads_per_row"})
    threads_per_row: int = 0
    row_bytes: int = 0
    alignment_bytes: int = 0
    trans_format: Literal["column-major"] = "column-major"


@dataclass(frozen=True)
class WarpMatrixExample(Row):
    """An example of the ldmatrix / stmatrix sections as printed: its comment (without `//`) and
    its code lines (the `.reg` declarations and the instruction). Its id is the form the
    instruction spells (ldmatrix.m16n16.x1.trans.b8)."""

    KIND: ClassVar[str] = "warp_matrix_example"
    comment: str = ""
    code: tuple[str, ...] = ()


@dataclass(frozen=True)
class CuteCopyOp(Row):
    """A CuTe copy Operation struct (cute/arch/copy_sm75.hpp, copy_sm90.hpp): the PTX it
    issues and its register arrays, as the header spells them."""

    KIND: ClassVar[str] = "cute_copy_op"
    ptx: str = ""
    s_registers: str = ""
    d_registers: str = ""


@dataclass(frozen=True)
class CuteCopyTraits(Row):
    """A CuTe Copy_Traits specialization (cute/atom/copy_traits_sm75.hpp, _sm90.hpp): the right
    side of each `using` as the header spells it (a C++ Layout, or another atom's layout by
    name: `typename Copy_Traits<SM75_U32x1_LDSM_N>::DstLayout`)."""

    KIND: ClassVar[str] = "cute_copy_traits"
    thr_id: str = ""
    src_layout: str = ""
    dst_layout: str = ""
    ref_layout: str = ""


@dataclass(frozen=True)
class TmaSwizzleMode(Row):
    """A tensor-copy (TMA) swizzling mode of the PTX ISA (5.5.7): the cell its pattern moves, the
    pattern table as printed (one string a shared-memory line: the cell at each position), the
    start alignment the table assumes, and the base-offset formula (dstMem / line) % modulus."""

    KIND: ClassVar[str] = "tma_swizzle_mode"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"base_offset_modulus"})
    swizzle: SwizzleMode = "none"
    cell_bytes: int | None = None
    pattern: tuple[str, ...] = ()
    repeat_bytes: int | None = None
    line_bytes: int | None = None
    base_offset_modulus: int | None = None

    def expected_id(self) -> str:
        """The mode: none, 32B, 64B, 128B."""
        return self.swizzle


@dataclass(frozen=True)
class TensorMapSwizzle(Row):
    """A CUtensorMapSwizzle enumerator of the CUDA driver API (its id): the swizzle mode, the
    enumerator's value, the chunk and span its comment names, and the largest inner box
    dimension cuTensorMapEncodeTiled accepts with it."""

    KIND: ClassVar[str] = "tensor_map_swizzle"
    UNITLESS: ClassVar[frozenset[str]] = frozenset({"code"})
    swizzle: SwizzleMode = "none"
    code: int = 0
    chunk_bytes: int | None = None
    span_bytes: int | None = None
    max_inner_box_bytes: int | None = None

    def expected_id(self) -> str:
        """CU_TENSOR_MAP_SWIZZLE_<NONE|32B|64B|128B>."""
        return f"CU_TENSOR_MAP_SWIZZLE_{'NONE' if self.swizzle == 'none' else self.swizzle}"


@dataclass(frozen=True)
class TmaRequirement(Row):
    """A requirement on a TMA copy's parameters (cuTensorMapEncodeTiled's list, the PTX ISA's
    bounding box): a largest count, a byte multiple or a byte alignment."""

    KIND: ClassVar[str] = "tma_requirement"
    #: `parameter` is the document's name of what the row constrains, as printed: the checks
    #: find rows by id, so the name is the row's label, not a fact they read.
    INFORMATIVE: ClassVar[frozenset[str]] = frozenset({"cite", "parameter"})
    parameter: str = ""
    max_elems: int | None = None
    multiple_bytes: int | None = None
    alignment_bytes: int | None = None


@dataclass(frozen=True)
class CuteTmaSwizzle(Row):
    """CuTe's get_tma_swizzle_bits / to_CUtensorMapSwizzle (cute/atom/copy_traits_sm90_tma_swizzle
    .hpp, cute/arch/copy_sm90_desc.hpp): the Swizzle<B,M,S> a layout must carry for a
    TMA::SmemSwizzleBits enumerator (its id), the enumerator's value, and the CUtensorMapSwizzle
    it becomes."""

    KIND: ClassVar[str] = "cute_tma_swizzle"
    UNITLESS: ClassVar[frozenset[str]] = frozenset(
        {"swizzle_bits", "swizzle_base", "swizzle_shift", "value"})
    swizzle_bits: int = 0
    swizzle_base: int = 0
    swizzle_shift: int = 0
    value: int = 0
    tensor_map_swizzle: str = ""


@dataclass(frozen=True)
class CuteMmaTraits(Row):
    """A CuTe MMA_Traits specialization of an SM80+ mma.sync atom (cute/atom/mma_traits_sm80.hpp,
    _sm89.hpp): its value types D, A, B, C (`using ValTypeD = float; ...`, as element types)
    and the struct whose traits give its ThrID and layouts (itself, or the one it derives
    from: `: MMA_Traits<SM80_16x8x8_F16F16F16F16_TN>`). Its id is the Operation struct."""

    KIND: ClassVar[str] = "cute_mma_traits"
    val_type_d: str = ""
    val_type_a: str = ""
    val_type_b: str = ""
    val_type_c: str = ""
    layouts_of: str = ""

    @property
    def val_types(self) -> tuple[str, str, str, str]:
        """(D, A, B, C), the order of the name's types."""
        return self.val_type_d, self.val_type_a, self.val_type_b, self.val_type_c


@dataclass(frozen=True)
class FragmentName:
    """A name a fragment formula defines before it uses it (`groupID = %laneid >> 2`)."""

    name: str = ""
    value: str = ""


@dataclass(frozen=True)
class FragmentPiece:
    """One case of a row or col formula: `value` for the elements where `where` holds (None:
    every element; "otherwise": those no earlier case takes), as C-like expressions over the
    element index `i` and the names."""

    value: str = ""
    where: str | None = None


@dataclass(frozen=True)
class MmaFragment(Row):
    """How a warp holds one operand of mma.sync (PTX ISA 9.7.14.5, "Matrix Fragments for
    mma.m16n8k16"): the registers, the elements each holds (low to high), and the row and
    col of element i of a lane as the section computes them. operand C is "C or D"; B's row
    is its K index, as the ISA draws B (K x N)."""

    KIND: ClassVar[str] = "mma_fragment"
    UNITLESS: ClassVar[frozenset[str]] = frozenset(
        {"registers", "elems_per_register", "last_index"})
    shape: str = ""
    operand: Literal["A", "B", "C"] = "A"
    types: tuple[str, ...] = ()
    registers: int = 0
    register_type: str = ""
    elems_per_register: int = 0
    #: The last element the table lists (a0, a1, ..., a7 -> 7).
    last_index: int = 0
    let: tuple[FragmentName, ...] = ()
    row: tuple[FragmentPiece, ...] = ()
    col: tuple[FragmentPiece, ...] = ()

    def expected_id(self) -> str:
        """<shape>.<operand>.<first type>."""
        return f"{self.shape}.{self.operand}.{self.types[0] if self.types else ''}"


def _decimal(text: str) -> bool:
    """ASCII digits only ("²" and "٣" are digits to str.isdigit, not to the tables)."""
    return text.isascii() and text.isdigit()


def count_expr(expr: str, n: int) -> int:
    """Evaluate a count the tables write as "8", "N", "N/2" or "N/4"; ValueError if not whole."""
    text = expr.replace(" ", "")
    if _decimal(text):
        return int(text)
    if text == "N":
        return n
    if text.startswith("N/") and _decimal(text[2:]) and int(text[2:]) > 0:
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
        ElementType, Normalization, SwizzleAtom, SwizzleAtomExample, CanonicalLayout,
        ByteOffsetDefinition, WorkedExample, DescriptorField, BaseOffsetRule, AlignmentRule,
        RegisterFragment, InstructionType, InstructionOperand, OperandStorage, MajorConvention,
        WmmaDefaultStride, WmmaRule, WmmaAlignmentExample, CuteLayout, ModeStatement,
        OperationRegisters, ThreadGroup, AtomSelection, PrintedAtom, CuteDslExample,
        WarpMatrixShape, WarpMatrixAddresses, WarpMatrixFragment, WarpMatrixExample, CuteCopyOp,
        CuteCopyTraits, TmaSwizzleMode, TensorMapSwizzle, TmaRequirement, CuteTmaSwizzle,
        CuteMmaTraits, MmaFragment,
    )
}
