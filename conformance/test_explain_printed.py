"""A CuTe layout as CUTLASS or CuTe DSL prints it, read by explain (oracle/explain/printed.py):
every GMMA layout CUTLASS prints is synthesised, the print's element width is checked against the
operand's type, the print decides where its swizzle acts, and an MN-major layout of a type wgmma
reads K-major only names the oracle's DOMAIN-MAJOR rule.

Expected values come from:

* CuTe's GMMA layout atoms (cute/atom/mma_traits_sm90_gmma.hpp): `Layout_{K,MN}_{INTER,SW32,
  SW64,SW128}_Atom<T>` is `Sw<B,4,3> o smem_ptr[Tb](unset) o` the swizzle atom of the PTX ISA's
  Table 38 in elements of T (K-major: 8 rows of leading_u128 x 16 B, (8, n):(n, 1); MN-major
  (n, 8):(1, n)), B the canonical layout's swizzle bits; CUTLASS tiles it with `tile_to_shape`
  (blocked_product, ptxconf.oracle.algebra.layout) and prints static integers as `_8`;
* the spec: spec/wgmma/swizzle_atoms.yaml, canonical_layouts.yaml, element_types.yaml (widths);
  CuTe DSL's printed bf16 atoms (spec/cutedsl/atoms_bf16.yaml) cross-check the derivation;
* the same layout printed without pointers (`Swizzle<B,4,3> o 0 o L`, read on bytes: the reading
  test_explain_synthesize.py establishes), whose descriptor the printed form must give.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from case_outcomes import BF16_K

from ptxconf.oracle import canonical
from ptxconf.oracle.algebra.layout import Layout, tile_to_shape
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle
from ptxconf.oracle.canonical import SmemQuery
from ptxconf.oracle.domain import DomainError, check_smem
from ptxconf.oracle.explain.operand import ExplainError, Operand
from ptxconf.oracle.explain.printed import ASSUMED, GIVEN, parse_layout, printed_dtype
from ptxconf.oracle.explain.synthesize import Refusal, Synthesis, synthesize
from ptxconf.oracle.records import PrintedAtom, SwizzleAtom, atom_name
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
#: The shapes (mn, k) CUTLASS's sm90 collectives tile the atoms to (BLK_M/N x BLK_K).
TILES = ((64, 64), (128, 64))


def gmma_atom(atom: SwizzleAtom, dtype: str) -> ComposedLayout:
    """CuTe's Layout_<major>_<swizzle>_Atom<dtype>, derived from the spec (module docstring)."""
    n = atom.leading_u128 * canonical.t_elems(SPEC, dtype)
    lines = atom.strided_elems
    outer = Layout((lines, n), (n, 1)) if atom.major == "K" else Layout((n, lines), (1, n))
    row = canonical.canonical_row(SPEC, atom.major, atom.swizzle)
    return ComposedLayout(canonical.row_swizzle(row), 0, outer)


def tiled(atom_id: str, dtype: str, shape: tuple[int, int]) -> tuple[Swizzle, Layout]:
    """The atom's swizzle and its layout tiled to `shape` (CUTLASS's tile_to_shape)."""
    (atom,) = [a for a in SPEC.of(SwizzleAtom) if a.id == atom_id]
    composed = gmma_atom(atom, dtype)
    outer = tile_to_shape(composed.outer, shape)
    assert isinstance(composed.inner, Swizzle)
    assert isinstance(outer, Layout)
    return composed.inner, outer


def cpp_print(swz: Swizzle, bits: int, layout: Layout) -> str:
    """How CUTLASS prints a GMMA smem layout: Sw<B,M,S> o smem_ptr[Nb](unset) o (_8,...):(...)."""
    static = re.sub(r"(-?\d+)", r"_\1", str(layout))
    return f"Sw<{swz.bits},{swz.base},{swz.shift}> o smem_ptr[{bits}b](unset) o {static}"


ATOMS = sorted(SPEC.of(SwizzleAtom), key=lambda a: a.id)


def test_the_derived_atoms_are_cute_dsls_printed_bf16_atoms() -> None:
    """Cross-check: the blog's printed bf16 atoms, but the MN_INTER one its finding names."""
    printed = {a.id: parse(a.layout) for a in SPEC.of(PrintedAtom)}
    mn_inter = SPEC.findings.explain("cutedsl.printed_atom[cutedsl/atoms_bf16:MN_INTER.bf16]")
    assert mn_inter is not None
    assert mn_inter.name == "cutedsl-mn-inter-printed-as-k"
    for atom in ATOMS:
        if atom.id != "MN_INTER":
            assert gmma_atom(atom, "bf16") == printed[f"{atom.id}.bf16"]


@pytest.mark.parametrize("tile", TILES, ids=[f"{m}x{k}" for m, k in TILES])
@pytest.mark.parametrize("atom", ATOMS, ids=[a.id for a in ATOMS])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_every_gmma_layout_cutlass_prints_is_synthesised(atom: SwizzleAtom, tile: tuple[int, int],
                                                         dtype: str) -> None:
    """Each block of the tile is read by a descriptor of the atom's major-ness and swizzle, the
    same one the pointer-less print gets."""
    swz, outer = tiled(atom.id, dtype, tile)
    bits = SPEC.element_bits(dtype)
    text = cpp_print(swz, bits, outer)
    op = Operand(dtype, "K", 64, 16, bits)  # A of m64nNk16: the tile is read in 64 x 16 blocks
    got = synthesize(SPEC, text, op, majors=("K", "MN"))
    assert isinstance(got, Synthesis), got.reasons
    assert (got.operand.major, got.desc.swizzle) == (atom.major, atom.swizzle)
    assert atom_name(got.operand.major, got.desc.swizzle) == atom.id
    assert got.layout.unit_source == f"smem_ptr[{bits}b](unset)"
    plain = synthesize(SPEC, f"{swz} o 0 o {outer}", op, majors=("K", "MN"))
    assert isinstance(plain, Synthesis)
    assert [b.desc for b in got.blocks] == [b.desc for b in plain.blocks]


def test_a_gmma_layout_is_split_into_the_instructions_operands() -> None:
    """The K_SW128 bf16 atom tiled to 64 x 64 for A of a k16 instruction: four 64 x 16 blocks,
    each k-block 16 bf16 = 32 B further (CUTLASS's descriptor advance)."""
    swz, outer = tiled("K_SW128", "bf16", (64, 64))
    got = synthesize(SPEC, cpp_print(swz, 16, outer), BF16_K)
    assert isinstance(got, Synthesis)
    assert [b.desc.start_address for b in got.blocks] == [0, 32, 64, 96]


# --- the element width ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "dtype", "widths"), [
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)", "f32", ("16-bit", "32-bit")),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)", "e4m3", ("16-bit", "8-bit")),
    ("tensor<ptr<f16, smem, align<1024>, S<3,4,3>> o (8,64):(64,1)>", "tf32", ("16-bit", "32-bit")),
    ("tensor<ptr<i8, smem, align<1024>> o (8,64):(64,1)>", "bf16", ("8-bit", "16-bit")),
], ids=["flag-f32", "flag-e4m3", "dsl-tf32", "dsl-i8"])
def test_a_print_of_another_width_is_refused_naming_both(text: str, dtype: str,
                                                        widths: tuple[str, str]) -> None:
    with pytest.raises(ExplainError) as err:
        parse_layout(SPEC, text, dtype)
    assert err.value.code == "EXPLAIN-LAYOUT-WIDTH"
    assert all(w in err.value.message for w in widths)


@pytest.mark.parametrize(("name", "dtype"), [
    ("bf16", "bf16"), ("tf32", "tf32"), ("f8E4M3FN", "e4m3"), ("f8E5M2", "e5m2"), ("i8", None),
])
def test_a_cute_dsl_type_stands_in_for_dtype_where_it_is_a_spec_type(name: str,
                                                                     dtype: str | None) -> None:
    assert printed_dtype(SPEC, f"tensor<ptr<{name}, smem, align<128>> o (8,8):(8,1)>") == dtype


def test_a_cpp_print_names_a_width_not_a_type() -> None:
    assert printed_dtype(SPEC, "Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)") is None


def test_a_bare_layout_names_no_type() -> None:
    """No pointer and no flag: the print says nothing of its elements."""
    assert printed_dtype(SPEC, "(8,64):(64,1)") is None


# --- where the swizzle acts ----------------------------------------------------------------------


@pytest.mark.parametrize(("text", "unit", "source"), [
    # CuTe's GMMA layout: the flag says the swizzle is the smem pointer's, on byte addresses
    ("Sw<3,3,3> o smem_ptr[16b](unset) o (8,64):(64,1)", "bytes", "smem_ptr[16b](unset)"),
    # a swizzled pointer swizzles the byte address
    ("Sw<3,4,3>_smem_ptr[16b](0x400) o (8,64):(64,1)", "bytes", "Sw<3,4,3>_smem_ptr[16b](0x400)"),
    ("tensor<ptr<bf16, smem, align<1024>, S<3,4,3>> o (8,64):(64,1)>", "bytes",
     "ptr<bf16, smem, align<1024>, S<3,4,3>>"),
    # a tensor whose layout carries the swizzle applies it to the element index
    ("smem_ptr[16b](0x400) o Sw<3,3,3> o _0 o (8,64):(64,1)", "elements",
     "smem_ptr[16b](0x400) o (a swizzled layout)"),
    ("tensor<ptr<bf16, smem, align<1024>> o S<3,3,3> o 0 o (8,64):(64,1)>", "elements",
     "ptr<bf16, smem, align<1024>> o (a swizzled layout)"),
    # no print says: bytes, assumed
    ("Swizzle<3,4,3> o 0 o (8,64):(64,1)", "bytes", ASSUMED),
], ids=["flag", "cpp-swizzle-ptr", "dsl-swizzle-ptr", "cpp-swizzled-layout", "dsl-swizzled-layout",
        "bare"])
def test_the_print_says_where_its_swizzle_acts(text: str, unit: str, source: str) -> None:
    ul = parse_layout(SPEC, text, "bf16")
    assert (ul.swizzle_unit, ul.unit_source) == (unit, source)


def test_every_print_of_the_128b_bf16_atom_reads_the_same_bytes() -> None:
    """Sw<3,4,3> on bytes is Sw<3,3,3> on bf16 element offsets: each print, read as it says,
    puts every element at the address the plain byte-swizzled layout does."""
    want = parse_layout(SPEC, "Swizzle<3,4,3> o 0 o (8,64):(64,1)", "bf16").addresses(0)
    for text in ("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)",
                 "Sw<3,4,3>_smem_ptr[16b](0x7f0400) o (_8,_64):(_64,_1)",
                 "tensor<ptr<bf16, smem, align<1024>, S<3,4,3>> o (8,64):(64,1)>",
                 "smem_ptr[16b](0x7f0400) o Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"):
        assert (parse_layout(SPEC, text, "bf16").addresses(0) == want).all(), text


def test_a_unit_given_is_kept_and_one_the_print_contradicts_is_refused() -> None:
    given = parse_layout(SPEC, "Swizzle<3,3,3> o 0 o (8,64):(64,1)", "bf16", "elements")
    assert (given.swizzle_unit, given.unit_source) == ("elements", GIVEN)
    with pytest.raises(ExplainError) as err:
        parse_layout(SPEC, "Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)", "bf16", "elements")
    assert err.value.code == "EXPLAIN-LAYOUT"
    assert "smem_ptr[16b](unset)" in err.value.message


def test_two_swizzles_and_global_memory_are_refused() -> None:
    for text in ("Sw<3,4,3>_smem_ptr[16b](0x0) o Sw<3,4,3> o _0 o (8,64):(64,1)",
                 "gmem_ptr[16b](0x7f00) o (8,64):(64,1)",
                 "tensor<ptr<bf16, gmem, align<16>> o (8,64):(64,1)>"):
        with pytest.raises(ExplainError) as err:
            parse_layout(SPEC, text, "bf16")
        assert err.value.code == "EXPLAIN-LAYOUT"


def test_a_pointers_address_is_noted_not_read_as_the_start() -> None:
    ul = parse_layout(SPEC, "smem_ptr[16b](0x7f0400) o (8,64):(64,1)", "bf16")
    assert len(ul.notes) == 1
    assert "0x7f0400" in ul.notes[0]
    assert int(ul.addresses(0)[0, 0]) == 0


# --- DOMAIN-MAJOR --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["tf32", "e4m3", "s8"])
def test_an_mn_major_tile_of_a_type_without_transpose_names_domain_major(dtype: str) -> None:
    """CuTe's MN_SW128 atom of the type (128 B of mn: 32 tf32, 128 e4m3 or s8) tiled to 32
    bytes of K (an instruction's: 8 tf32, 32 e4m3 or s8) and at least 64 mn: refused with the
    rule `oracle smem-offsets` names for MN-major of that type, word for word."""
    bits = SPEC.element_bits(dtype)
    mn, k = max(64, 128 * 8 // bits), 256 // bits
    swz, outer = tiled("MN_SW128", dtype, (mn, k))
    got = synthesize(SPEC, f"{swz} o 0 o {outer}", Operand(dtype, "K", mn, k, bits))
    assert isinstance(got, Refusal)
    assert got.rule == "DOMAIN-MAJOR"
    with pytest.raises(DomainError) as oracle:
        check_smem(SPEC, SmemQuery(dtype, "MN", "128B", mn, k, 16, 1024))
    (reason,) = got.reasons
    assert reason.startswith(str(oracle.value))
    assert got.as_dict()["rule"] == "DOMAIN-MAJOR"
    assert got.closest is None


def _json(cli: Any, *argv: str) -> tuple[int, dict[str, Any], str]:
    import json

    code, out, err = cli(*argv, "--json")
    return code, json.loads(out) if out.strip() else {}, err


def test_the_cli_reads_the_issues_cutlass_print(cli: Any) -> None:
    """The print issue 27 quotes parses; its layout (mode 1: 64 elements at stride 0) is not
    injective, so it is refused with exit 1, not a parse error (exit 2)."""
    code, out, err = _json(cli, "explain", "layout", "Sw<3,4,3> o smem_ptr[16b](unset) o "
                           "((_8,_16),(_64,_1)):((_64,_1),(_0,_1024))", "--dtype", "f16")
    assert (code, err) == (1, "")
    assert out["ok"] is False
    assert out["swizzle_unit"] == "bytes"
    assert any("not injective" in r for r in out["reasons"])


def test_the_cli_refuses_another_width_in_one_line(cli: Any) -> None:
    code, out, err = cli("explain", "layout", "Sw<3,4,3> o smem_ptr[16b](unset) o "
                         "((_8,_16),(_64,_1)):((_64,_512),(_1,_0))", "--dtype", "f32",
                         spec_line=False)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "EXPLAIN-LAYOUT-WIDTH" in err
    assert "16-bit" in err
    assert "32-bit" in err
    assert "Traceback" not in err


def test_the_cli_asks_for_dtype_naming_the_prints_width(cli: Any) -> None:
    code, _, err = cli("explain", "layout", "Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)",
                       spec_line=False)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    types = [t for t in ("f16", "bf16") if SPEC.element_bits(t) == 16]
    assert all(t in err for t in types)


def test_the_cli_takes_the_dtype_a_cute_dsl_print_names(cli: Any) -> None:
    code, out, _ = _json(cli, "explain", "layout",
                         "tensor<ptr<bf16, smem, align<1024>, S<3,4,3>> o ((8,8),64):((64,512),1)>")
    assert code == 0
    assert (out["dtype"], out["swizzle"], out["major"]) == ("bf16", "128B", "K")


def test_the_cli_names_domain_major_for_an_mn_major_tf32_layout(cli: Any) -> None:
    swz, outer = tiled("MN_SW128", "tf32", (64, 8))
    code, out, _ = _json(cli, "explain", "layout", cpp_print(swz, 32, outer),
                         "--dtype", "tf32")
    assert code == 1
    assert out["rule"] == "DOMAIN-MAJOR"
    assert out["reasons"][0].startswith("DOMAIN-MAJOR - ")
