"""What CuTe prints around a layout (oracle/algebra/notation.py, `parse_printed`): a layout's
pointer flag, a tensor's pointer, CuTe DSL's tensor and run-time pointer; the layout inside is
`parse`'s (test_notation.py), its error columns those of the text as given.

Expected values come from CuTe's print functions, read in CUTLASS's source:
``print(smem_ptr_flag_bits<B>)`` writes ``smem_ptr[%db](unset)``; ``print(T const*)`` writes
``ptr[`` bits ``b](%p)``; ``print(smem_ptr<T>)`` writes ``smem_`` before it (``gmem_``,
``rmem_`` likewise); ``print(swizzle_ptr)`` writes the swizzle, ``_``, then the pointer;
``operator<<(smem_ptr)`` writes ``smem_[`` bits ``b]``; ``print(ComposedLayout)`` writes
``a o offset o b`` and ``print(Tensor)`` ``ptr o layout``, static integers as ``_8``. CuTe DSL
prints a tensor as ``tensor<ptr<f16, smem, align<1024>[, S<3,4,3>]> o layout>`` and a run-time
pointer as ``raw_ptr(0x..: f16, smem, align<16>)``; a dynamic value as ``?``. Columns are
counted by hand in the texts below.
"""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming

from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import NotationError, Pointer, parse, parse_printed
from ptxconf.oracle.algebra.swizzle import ComposedLayout, Swizzle

K_SW128 = Layout(((8, 16), (64, 1)), ((64, 512), (1, 0)))  # CuTe's K_SW128 16-bit atom on 128x64


def test_a_gmma_layout_as_cutlass_prints_it_has_its_flag_where_the_offset_goes() -> None:
    text = "Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))"
    got = parse_printed(text)
    assert got.layout == ComposedLayout(Swizzle(3, 4, 3), 0, K_SW128)
    assert got.pointer is None
    assert got.flag == Pointer("smem_ptr[16b](unset)", "smem", bits=16, column=13)


def test_the_issues_print_parses_as_written() -> None:
    """The layout issue 27 quotes, stopped before at '[' (column 21), now parsed as written."""
    got = parse_printed("Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1)):((_64,_1),(_0,_1024))")
    assert got.layout == ComposedLayout(Swizzle(3, 4, 3), 0,
                                        Layout(((8, 16), (64, 1)), ((64, 1), (0, 1024))))
    assert got.flag is not None
    assert got.flag.bits == 16


@pytest.mark.parametrize(("text", "pointer", "layout"), [
    # a tensor of C++: print(Tensor) is the engine's pointer, " o ", the layout
    ("smem_ptr[16b](unset) o (8,64):(64,1)", Pointer("smem_ptr[16b](unset)", "smem", bits=16),
     Layout((8, 64), (64, 1))),
    ("ptr[16b](0x7f0400) o (8,64):(64,1)", Pointer("ptr[16b](0x7f0400)", "", bits=16,
                                                   address=0x7f0400), Layout((8, 64), (64, 1))),
    ("  gmem_ptr[32b](0x10) o (8,8):(8,1)", Pointer("gmem_ptr[32b](0x10)", "gmem", bits=32,
                                                    address=0x10, column=3),
     Layout((8, 8), (8, 1))),
    ("Sw<3,4,3>_smem_ptr[16b](0x7f0400) o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))",
     Pointer("Sw<3,4,3>_smem_ptr[16b](0x7f0400)", "smem", bits=16, address=0x7f0400,
             swizzle=Swizzle(3, 4, 3)), K_SW128),
    ("smem_[16b] o (8,64):(64,1)", Pointer("smem_[16b]", "smem", bits=16),
     Layout((8, 64), (64, 1))),
    # CuTe DSL: the tensor's pointer type names the element type, the memory, the alignment
    ("tensor<ptr<f16, smem, align<1024>, S<3,4,3>> o ((8,16),(64,1)):((64,512),(1,0))>",
     Pointer("ptr<f16, smem, align<1024>, S<3,4,3>>", "smem", type_name="f16", align=1024,
             swizzle=Swizzle(3, 4, 3), column=8), K_SW128),
    ("raw_ptr(0x7f0400: bf16, smem, align<16>) o (8,64):(64,1)",
     Pointer("raw_ptr(0x7f0400: bf16, smem, align<16>)", "smem", type_name="bf16",
             address=0x7f0400, align=16), Layout((8, 64), (64, 1))),
], ids=["cpp-unset", "cpp-raw", "cpp-gmem", "cpp-swizzle-ptr", "cpp-ostream", "dsl-tensor",
        "dsl-raw-ptr"])
def test_a_tensors_pointer_is_read_off_its_layout(text: str, pointer: Pointer, layout: Layout) -> None:
    got = parse_printed(text)
    assert (got.pointer, got.flag, got.layout) == (pointer, None, layout)


def test_a_dsl_tensor_with_a_swizzled_layout_keeps_the_composition() -> None:
    got = parse_printed("tensor<ptr<f16, smem, align<1024>> o S<3,3,3> o 0 o (64,8):(1,64)>")
    assert got.layout == ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 8), (1, 64)))
    assert got.pointer is not None
    assert (got.pointer.type_name, got.pointer.swizzle) == ("f16", None)


def test_a_print_without_pointers_is_the_plain_parse() -> None:
    for text in ("S<1,4,3> o 0 o (8,16):(16,1)", "((_8,_8),_64):((_64,_512),_1)"):
        got = parse_printed(text)
        assert (got.layout, got.pointer, got.flag) == (parse(text), None, None)


#          1111111111222222222233333333334
# 1234567890123456789012345678901234567890
# smem_ptr[16b](unset) o (8,8):(1,8,2)         the layout starts at column 24


@pytest.mark.parametrize(("text", "named", "column"), [
    # the layout's own error, at its column in the text as given (the pointer blanked, not cut)
    ("smem_ptr[16b](unset) o (8,8):(1,8,2)", ("(8, 8)", "(1, 8, 2)"), 24),
    # CuTe DSL's compile-time print of a dynamic value (the '?' at column 44)
    ("tensor<ptr<f32, gmem, align<16>> o (128,32,?):(1,?,?)>", ("'?'", "cute.printf"), 44),
    # a flag anywhere but where the offset goes (its column, 4)
    ("(8,smem_ptr[16b](unset)):(1,8)", ("'smem_ptr[16b](unset)'", "offset"), 4),
    # a pointer with an address where the offset goes (column 13)
    ("Sw<3,4,3> o smem_ptr[16b](0x10) o (8,8):(8,1)", ("'smem_ptr[16b](0x10)'",), 13),
    # CuTe DSL's tensor<...> never closed: the end of the text (column 36)
    ("tensor<ptr<f16, smem> o (8,8):(8,1)", ("'>'", "tensor<...>"), 36),
    # a sparse operand's flag (column 13)
    ("Sw<3,4,3> o smem_sparse<2>_ptr[16b](unset) o (8,8):(8,1)", ("sparse",), 13),
], ids=["layout-after-pointer", "dynamic", "flag-misplaced", "address-as-offset", "dsl-unclosed",
        "sparse"])
def test_what_no_print_writes_is_refused_at_its_column(text: str, named: tuple[str, ...],
                                                       column: int) -> None:
    with raises_naming(NotationError, *named) as info:
        parse_printed(text)
    assert info.value.column == column


def test_text_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(NotationError) as info:
        parse_printed(5)  # type: ignore[arg-type]
    assert info.value.column is None
