"""What a CuTe atom name and a C++ layout spell (oracle/checks/cute_names.py): the K of an MMA atom
name (`SM90_64x128x16_F16F16F16F16_TN`: arch, MxNxK, types, letters; 0 where the name does not
read), and CuTe's C++ spelling of a layout (`Shape<_8>` is a rank-1 tuple, printed `(_8)`, as
oracle/algebra/notation.py parses it; a statement's trailing `;` ends the text)."""

from __future__ import annotations

import dataclasses

from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.checks.cute_names import atom_k, cpp_layout
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


def test_atom_k_is_the_k_of_the_name_and_0_when_the_name_does_not_read() -> None:
    """SM70_8x8x4_... has K 4, SM90_64x128x16_... K 16; a name without MxNxK gives 0."""
    thr = SPEC.get(CuteLayout, "SM70_8x8x4.ThrID")
    assert atom_k(thr) == 4
    assert atom_k(SPEC.get(CuteLayout, "SM90_64x128.CLayout")) == 16
    assert atom_k(dataclasses.replace(thr, atom="SM70_QuadPair")) == 0


def test_cpp_layout_reads_the_documents_spellings() -> None:
    """mma_atoms.yaml's layout_cpp texts: nested Shape<> modes and the bare Layout<_128, _1>."""
    assert cpp_layout("Layout<Shape <_8,_4>, Stride<_1,_8>>") == Layout((8, 4), (1, 8))
    assert cpp_layout("Layout<Shape <Shape <_4,_2>,_4>, Stride<Stride<_8,_4>,_1>>") == \
        Layout(((4, 2), 4), ((8, 4), 1))
    assert cpp_layout("Layout<_128, _1>") == Layout(128, 1)


def test_a_one_mode_shape_is_a_rank_1_tuple_as_cute_spells_it() -> None:
    """Layout<Shape <_128>, Stride<_1>> is (128):(1), as notation.parse reads the same text."""
    text = "Layout<Shape <_128>, Stride<_1>>"
    assert parse(text) == Layout((128,), (1,))
    assert cpp_layout(text) == parse(text)


def test_cpp_layout_reads_a_trailing_semicolon() -> None:
    """The document's `using ThrID = Layout<_128, _1>;`: the statement's ';' ends the text."""
    assert cpp_layout("Layout<_128, _1>;") == Layout(128, 1)
    assert cpp_layout("Layout<Shape <_8,_4>, Stride<_1,_8>> ; ") == Layout((8, 4), (1, 8))


def test_an_fp8_type_is_one_token_of_the_name() -> None:
    """SM89's F32E4M3E5M2F32: four types (E4M3 whole), as the other names spell F32, BF16, S8."""
    from ptxconf.oracle.checks.cute_names import type_tokens

    assert type_tokens("SM89_16x8x32_F32E4M3E5M2F32_TN") == ["F32", "E4M3", "E5M2", "F32"]
    assert type_tokens("SM80_16x8x16_F32BF16BF16F32_TN") == ["F32", "BF16", "BF16", "F32"]
    assert type_tokens("SM80_16x8x32_S32S8S8S32_TN") == ["S32", "S8", "S8", "S32"]
