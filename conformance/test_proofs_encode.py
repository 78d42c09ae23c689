"""The Z3 encoding of layouts (oracle/proofs/encode.py): an affine term's text, a template's
symbols, the (swizzled) address of a coordinate, and the power-of-two multiple test at several
bit widths, called directly on small inputs.

Expected values are worked by hand from CuTe's Swizzle<B,M,S>: x ^ ((x >> S) & (((1 << B) - 1)
<< M)); under the "bytes" reading a swizzle of byte addresses acts on bit addresses as
Swizzle<B,M+3,S> (encode.py's docstring: addresses are bit addresses), and from the canonical
layouts of wgmma/canonical_layouts.yaml (K_INTER = ((8,m),(T,2k)):((1T,SBO),(1,LBO)), K_SW32 =
Swizzle<1,4,3> o ((8,m),(T,2k)):((2T,SBO),(1,T))), T = 128 / element width.
"""

from __future__ import annotations

import pytest
import z3

from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.proofs.encode import Affine, Encoder, bit_form

pytestmark = pytest.mark.z3

K_INTER = "((8,m),(T,2k)):((1T,SBO),(1,LBO))"
K_SW32 = "((8,m),(T,2k)):((2T,SBO),(1,T))"


def test_affine_text_writes_the_constant_first() -> None:
    """const + coef * name: ``8+LBO``; a coefficient 2 is written ``2k``; a zero constant with
    no term is ``0``, with terms it is left out."""
    assert str(Affine(8, (("LBO", 1),))) == "8+LBO"
    assert str(Affine(0, (("k", 2),))) == "2k"
    assert str(Affine(0)) == "0"
    assert str(Affine(3, (("m", 1), ("SBO", 16)))) == "3+m+16SBO"


def test_bit_form_symbols_are_the_template_names_it_uses() -> None:
    """K_INTER's shapes use m and k, its strides SBO and LBO; K_SW32 steps k by T, so no LBO."""
    assert bit_form(K_INTER, 16, t=8).symbols() == frozenset({"m", "k", "SBO", "LBO"})
    assert bit_form(K_SW32, 16, t=8).symbols() == frozenset({"m", "k", "SBO"})


def test_address_at_swizzles_the_start_with_the_offset() -> None:
    """K_SW32, f16 (T = 8): a start of 128 B is bit address 1024; Swizzle<1,4,3> on bytes is
    Swizzle<1,7,3> on bits: 1024 ^ ((1024 >> 3) & 0x80) = 1152 (byte 0x90); relative: 1024 +
    swizzle(0) = 1024. Row 4 is 4 * 2T = 64 elements = 1024 bits on: 1152 from start 0 too."""
    form = bit_form(K_SW32, 16, t=8, swizzle=Swizzle(1, 4, 3))
    enc = Encoder(z3.Context())
    env = {"m": 1, "k": 1, "LBO": 0, "SBO": 0}
    origin = (0, 0, 0, 0)
    assert enc.address_at(form, origin, env) == 0
    assert enc.address_at(form, origin, env, 1024) == 1152
    assert enc.address_at(form, origin, env, 1024, relative=True) == 1024
    assert enc.address_at(form, (4, 0, 0, 0), env) == 1152


def test_is_pow2_multiple_of_a_symbolic_power() -> None:
    """48 = 3 * 16 is a multiple of 2^4, not of 2^5; 0 is a multiple of any power."""
    enc = Encoder(z3.Context())
    cases = [(48, 4, True), (48, 5, False), (0, 7, True), (1, 0, True), (1, 1, False)]
    for x, log2, want in cases:
        got = z3.simplify(enc.is_pow2_multiple(enc.val(x), enc.val(log2)))
        assert z3.is_true(got) is want, (x, log2)
    assert len(cases) == 5


def test_is_pow2_multiple_at_other_widths_than_the_encoders() -> None:
    """On a 32-bit encoder, a 64-bit x (a descriptor) and a 16-bit x, with an 8-bit symbolic
    log2: 48 = 3 * 16 is a multiple of 2^4, not of 2^5; 2^40 of 2^40, not of 2^41."""
    enc = Encoder(z3.Context())
    cases = [(48, 64, 4, True), (48, 64, 5, False), (1 << 40, 64, 40, True),
             (1 << 40, 64, 41, False), (48, 16, 4, True), (48, 16, 5, False)]
    for x, width, log2, want in cases:
        got = z3.simplify(enc.is_pow2_multiple(enc.val(x, width), enc.val(log2, 8)))
        assert z3.is_true(got) is want, (x, width, log2)
    assert len(cases) == 6
