"""Parse CuTe layout notation as CuTe prints it and as the PTX ISA and CUTLASS docs write it.

Accepted forms (whitespace anywhere between tokens):

- ``((8,2),(4,4)):((4,32),(1,64))``, static ints ``_128:_1``, negative strides ``8:-1``;
- ``Layout<Shape<_4,_2>,Stride<_1,_16>>`` (C++ types; ``Int<4>``/``C<4>`` too; a missing
  stride means compact column-major);
- ``Swizzle<3,4,3>`` (also ``Sw<...>`` and ``S<...>``) alone or composed:
  ``Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))`` and ``S<1,4,3> o 0 o (8,16):(16,1)``;
- symbolic templates with names bound from ``bindings``: ``((8,m),(T,2k)):((1T,SBO),(1,LBO))``,
  where an integer literal immediately followed by a name is a product (``2k`` = 2*k) and
  ``a*b`` is a product too. ``o`` is the composition operator and cannot be a name.

``str()`` of the result is the canonical compact form, and ``parse(str(x)) == x``. Every error
is a ``NotationError`` (a ValueError) with a one-line message; an error in the text carries
the 1-based column it was found at (a bad binding or an input that is not text has none).

``parse_printed`` also reads what CuTe prints *around* a layout (``Printed``: the layout and
the pointer facts, nothing interpreted):

- C++ ``print``: a layout's pointer flag ``Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)``
  (``smem_ptr_flag_bits<16>``, where the offset goes); a tensor's pointer in front of its layout,
  ``ptr[16b](0x7f00) o ...``, ``smem_ptr[16b](0x7f00) o ...``, a swizzled pointer
  ``Sw<3,4,3>_smem_ptr[16b](0x7f00) o ...``, and ``operator<<``'s ``smem_[16b] o ...``;
- CuTe DSL: ``S<3,4,3> o 0 o (8,64):(64,1)`` (a plain composition) and a tensor,
  ``tensor<ptr<f16, smem, align<1024>, S<3,4,3>> o (8,64):(64,1)>``, or its run-time form
  ``raw_ptr(0x7f00: f16, smem, align<16>) o (8,64):(64,1)``.

A value CuTe DSL knows only at run time prints as ``?``: refused, at its column.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .int_tuple import IntTuple, is_int
from .layout import Layout
from .swizzle import ComposedLayout, Swizzle

Parsed = Layout | ComposedLayout | Swizzle

_SWIZZLE_NAMES = frozenset({"Swizzle", "Sw", "S"})
_TUPLE_NAMES = frozenset({"Shape", "Stride", "Step", "Coord", "Tile", "tuple"})
_STATIC_INT_NAMES = frozenset({"Int", "C"})
_TOKEN = re.compile(r"\s*(?:(?P<int>-?_?\d+)|(?P<name>[A-Za-z][A-Za-z0-9_]*)|(?P<punct>[(),:<>*]))")


class NotationError(ValueError):
    """A malformed layout text: ``message`` and the 1-based ``column`` it was found at."""

    def __init__(self, message: str, column: int | None = None) -> None:
        """Keep the parts; the string form is ``message at column N``."""
        self.message = message
        self.column = column
        super().__init__(message if column is None else f"{message} at column {column}")


@dataclass(frozen=True)
class _Token:
    """One lexical token: its kind ('int', 'name', 'punct', 'end'), text and 0-based span."""

    kind: str
    text: str
    start: int
    end: int


#: The most text and the deepest nesting a layout may have (the widest CuTe layouts of the
#: spec are a few hundred characters and 3 levels deep); past them the text is refused.
MAX_TEXT_CHARS = 10_000
MAX_DEPTH = 32


def _tokenize(text: str) -> list[_Token]:
    """Split ``text`` into tokens, ending with an 'end' token (refused past MAX_TEXT_CHARS
    characters or MAX_DEPTH nested parentheses, before any recursion)."""
    if len(text) > MAX_TEXT_CHARS:
        raise NotationError(f"{len(text)} characters; a layout is at most {MAX_TEXT_CHARS}")
    depth = 0
    for column, char in enumerate(text, 1):
        depth += (char == "(") - (char == ")")
        if depth > MAX_DEPTH:
            raise NotationError(f"nested deeper than {MAX_DEPTH} levels", column)
    tokens, pos = [], 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None or m.lastgroup is None:
            bad = len(text) - len(text[pos:].lstrip())
            raise NotationError(f"unexpected character {text[bad]!r}", bad + 1)
        tokens.append(_Token(m.lastgroup, m.group(m.lastgroup), m.start(m.lastgroup), m.end()))
        pos = m.end()
    tokens.append(_Token("end", "", len(text), len(text)))
    return tokens


class _Parser:
    """Recursive-descent parser over the token list."""

    def __init__(self, text: str, bindings: Mapping[str, int]) -> None:
        """Tokenize ``text`` and check the bindings."""
        for name, value in bindings.items():
            if name == "o" or not is_int(value):
                raise NotationError(f"bad binding {name!r}={value!r}: names bind ints, not 'o'")
        self.tokens = _tokenize(text)
        self.bindings = bindings
        self.i = 0

    def peek(self, ahead: int = 0) -> _Token:
        """The token ``ahead`` places from the current one."""
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def error(self, message: str, token: _Token | None = None) -> NotationError:
        """A NotationError located at ``token`` (default: the current token)."""
        return NotationError(message, (token or self.peek()).start + 1)

    def expect(self, text: str) -> _Token:
        """Consume a token spelled ``text`` or fail."""
        tok = self.peek()
        if tok.text != text or tok.kind == "end":
            found = "end of text" if tok.kind == "end" else repr(tok.text)
            raise self.error(f"expected {text!r}, found {found}")
        self.i += 1
        return tok

    def at(self, text: str, ahead: int = 0) -> bool:
        """True when the token ``ahead`` places on is spelled ``text``."""
        tok = self.peek(ahead)
        return tok.kind != "end" and tok.text == text

    def at_keyword(self, names: frozenset[str]) -> bool:
        """True at a name from ``names`` followed by '<' (a C++-style constructor)."""
        return self.peek().kind == "name" and self.peek().text in names and self.at("<", 1)

    def top(self) -> Layout | ComposedLayout | Swizzle:
        """Whole input: a swizzle, a layout, or a composition of the two."""
        first = self.swizzle() if self.at_keyword(_SWIZZLE_NAMES) else self.layout()
        result = self.composed(first) if self.at("o") else first
        if self.peek().kind != "end":
            raise self.error(f"unexpected {self.peek().text!r}")
        return result

    def composed(self, inner: Swizzle | Layout) -> ComposedLayout:
        """The ``o [offset o] outer`` tail of a composed layout."""
        self.expect("o")
        start = self.peek()
        if self.at_keyword(frozenset({"Layout"})):
            return ComposedLayout(inner, 0, self.layout(), show_offset=False)
        head = self.int_tuple()
        if self.at("o"):
            if not is_int(head):
                raise self.error("a composed layout's offset must be an integer", start)
            self.expect("o")
            return ComposedLayout(inner, head, self.layout(), show_offset=True)
        return ComposedLayout(inner, 0, self.layout_tail(head, start), show_offset=False)

    def swizzle(self) -> Swizzle:
        """``Swizzle<B,M,S>`` (or ``Sw``/``S``)."""
        start = self.peek()
        self.i += 1
        self.expect("<")
        bits = self.atom()
        self.expect(",")
        base = self.atom()
        self.expect(",")
        shift = self.atom()
        self.expect(">")
        try:
            return Swizzle(bits, base, shift)
        except ValueError as e:
            raise self.error(str(e), start) from None

    def layout(self) -> Layout:
        """``shape:stride`` or C++ ``Layout<Shape<...>,Stride<...>>``."""
        start = self.peek()
        if self.at_keyword(frozenset({"Layout"})):
            self.i += 2
            shape = self.cpp_element()
            stride = None
            if self.at(","):
                self.expect(",")
                stride = self.cpp_element()
            self.expect(">")
            return self.build(shape, stride, start)
        return self.layout_tail(self.int_tuple(), start)

    def layout_tail(self, shape: IntTuple, start: _Token) -> Layout:
        """The ``:stride`` after an already-parsed shape."""
        if not self.at(":"):
            raise self.error("expected ':' and a stride after the shape")
        self.expect(":")
        return self.build(shape, self.int_tuple(), start)

    def build(self, shape: IntTuple, stride: IntTuple | None, start: _Token) -> Layout:
        """Construct a Layout, reporting a bad shape/stride pair at its start."""
        try:
            return Layout(shape, stride)
        except ValueError as e:
            raise self.error(str(e), start) from None

    def int_tuple(self) -> IntTuple:
        """``(a,b,...)`` nested, or an atom."""
        if not self.at("("):
            return self.atom()
        self.expect("(")
        items = [self.int_tuple()]
        while self.at(","):
            self.expect(",")
            items.append(self.int_tuple())
        self.expect(")")
        return tuple(items)

    def cpp_element(self) -> IntTuple:
        """A C++ ``Shape<...>``/``Stride<...>`` (nested) or an atom."""
        if not self.at_keyword(_TUPLE_NAMES):
            return self.atom()
        self.i += 2
        items = [self.cpp_element()]
        while self.at(","):
            self.expect(",")
            items.append(self.cpp_element())
        self.expect(">")
        return tuple(items)

    def atom(self) -> int:
        """An integer expression: factors joined by '*'."""
        value = self.factor()
        while self.at("*"):
            self.expect("*")
            value *= self.factor()
        return value

    def factor(self) -> int:
        """``12``, ``_12``, ``-1``, ``Int<12>``, a bound name, or ``2k`` (2 times k)."""
        tok = self.peek()
        if self.at_keyword(_STATIC_INT_NAMES):
            self.i += 2
            value = self.atom()
            self.expect(">")
            return value
        if tok.kind == "int":
            self.i += 1
            value = int(tok.text.replace("_", ""))
            nxt = self.peek()
            if nxt.kind == "name" and nxt.start == tok.end and nxt.text != "o":
                return value * self.name()
            return value
        if tok.kind == "name" and tok.text != "o":
            return self.name()
        found = "end of text" if tok.kind == "end" else repr(tok.text)
        raise self.error(f"expected an integer or a name, found {found}")

    def name(self) -> int:
        """A name, looked up in the bindings."""
        tok = self.peek()
        if tok.text not in self.bindings:
            raise self.error(f"unbound name {tok.text!r}")
        self.i += 1
        return self.bindings[tok.text]


def parse(text: str, bindings: Mapping[str, int] | None = None) -> Parsed:
    """Parse CuTe notation into a Layout, ComposedLayout or Swizzle (see the module docstring)."""
    if not isinstance(text, str):
        raise NotationError(f"expected text, got {type(text).__name__}")
    if not bindings:
        return _parse_unbound(text)
    return _Parser(text, bindings).top()


@functools.lru_cache(maxsize=4096)
def _parse_unbound(text: str) -> Parsed:
    """`parse` of a text that binds no names, made once a text (what it makes is immutable; the
    checks parse each spec row's layout many times)."""
    return _Parser(text, {}).top()


# --- what CuTe prints around a layout ----------------------------------------------------------


@dataclass(frozen=True)
class Pointer:
    """A tensor's pointer, or a layout's pointer flag, as CuTe printed it (nothing interpreted).

    ``space``: smem, gmem, rmem, generic (CuTe DSL) or "" (C++'s raw ``ptr``); ``bits``: the
    element width C++ prints (``[16b]``); ``type_name``: the element type CuTe DSL prints
    (``f16``); ``address``: None where none is printed (``(unset)``, ``smem_[16b]``);
    ``swizzle``: a swizzled pointer's; ``column``: 1-based, where the print starts."""

    text: str
    space: str
    bits: int | None = None
    type_name: str | None = None
    address: int | None = None
    align: int | None = None
    swizzle: Swizzle | None = None
    column: int = 1


@dataclass(frozen=True)
class Printed:
    """A printed layout, the tensor pointer printed in front of it and the pointer flag printed
    inside it (``Sw<3,4,3> o smem_ptr[16b](unset) o ...``; None: not printed)."""

    layout: Parsed
    pointer: Pointer | None = None
    flag: Pointer | None = None


_SWZ = r"(?:Swizzle|Sw|S)\s*<\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*>"
#: C++ `print` of a pointer (`ptr[16b](0x..)`, `smem_ptr[16b](unset)`, a swizzle_ptr
#: `Sw<3,4,3>_smem_ptr[16b](0x..)`) or `operator<<`'s `smem_[16b]`.
_CPP_PTR = (rf"(?:(?P<swz>{_SWZ})_)?(?:(?:(?P<space>smem|gmem|rmem)_)?ptr\[(?P<bits>\d+)b\]"
            r"\((?P<addr>unset|0x[0-9a-fA-F]+|\(nil\)|0)\)|(?P<ospace>smem|gmem|rmem)_\[(?P<obits>\d+)b\])")
_CPP_TENSOR = re.compile(rf"\s*(?P<ptr>{_CPP_PTR})\s*o\b")
_CPP_ANY = re.compile(_CPP_PTR)
_DSL_PTR = r"\s*(?P<type>\w+)\s*,\s*(?P<space>\w+)\s*(?:,\s*align\s*<\s*(?P<align>\d+)\s*>\s*)?"
#: CuTe DSL's `print(tensor)`: tensor<ptr<f16, smem, align<1024>[, S<3,4,3>]> o layout>.
_DSL_TENSOR = re.compile(rf"\s*tensor\s*<\s*(?P<ptr>ptr\s*<{_DSL_PTR}(?:,\s*(?P<swz>{_SWZ})\s*)?>)"
                         r"\s*o\b")
#: CuTe DSL's run-time form: raw_ptr(0x7f..: f16, smem, align<16>) o layout.
_DSL_RAW = re.compile(rf"\s*(?P<ptr>raw_ptr\s*\(\s*(?P<addr>0x[0-9a-fA-F]+)\s*:{_DSL_PTR}\))\s*o\b")
_SPARSE = re.compile(r"smem_sparse\s*<")


def _blank(text: str, start: int, end: int, keep: str = "") -> str:
    """`text` with [start, end) replaced by `keep` padded with spaces (columns stay put)."""
    return text[:start] + keep.ljust(end - start) + text[end:]


def _swizzle_at(text: str | None) -> Swizzle | None:
    if text is None:
        return None
    swz = parse(text)
    assert isinstance(swz, Swizzle)  # the patterns admit a swizzle only
    return swz


def _address(text: str | None) -> int | None:
    if text is None or text == "unset":
        return None
    return int(text, 16) if text.startswith("0x") else 0


def _pointer(m: re.Match[str], group: str | int = "ptr") -> Pointer:
    """The pointer a match of one of the patterns above holds."""
    g = m.groupdict()
    bits = g.get("bits") or g.get("obits")
    align = g.get("align")
    return Pointer(m.group(group), g.get("space") or g.get("ospace") or "",
                   None if bits is None else int(bits), g.get("type"), _address(g.get("addr")),
                   None if align is None else int(align), _swizzle_at(g.get("swz")),
                   m.start(group) + 1)


def _tensor_prefix(text: str) -> tuple[str, Pointer | None]:
    """Blank out a tensor's pointer printed in front of its layout (and CuTe DSL's closing '>')."""
    m = _DSL_TENSOR.match(text)
    if m is not None:
        body = text.rstrip()
        if not body.endswith(">"):
            raise NotationError("expected '>' closing tensor<...>", len(body) + 1)
        return _blank(_blank(text, len(body) - 1, len(body)), 0, m.end()), _pointer(m)
    for pattern in (_DSL_RAW, _CPP_TENSOR):
        m = pattern.match(text)
        if m is not None:
            return _blank(text, 0, m.end()), _pointer(m)
    return text, None


def _flag(text: str) -> tuple[str, Pointer | None]:
    """Blank out a layout's pointer flag, which stands where a composition's offset goes."""
    found = None
    for m in _CPP_ANY.finditer(text):
        before, after = text[:m.start()].rstrip(), text[m.end():].lstrip()
        if (m.group("addr") != "unset" or not re.search(r"(^|[\s>])o$", before)
                or not after.startswith("o")):
            raise NotationError(f"{m.group(0)!r}: a pointer stands in front of a tensor's layout "
                                "(ptr o layout) or, as (unset), where a composition's offset "
                                "goes (Sw<B,M,S> o smem_ptr[16b](unset) o layout)", m.start() + 1)
        if found is not None:
            raise NotationError("a second pointer flag: a layout has one, where its offset goes",
                                  m.start() + 1)
        found = _pointer(m, 0)
        text = _blank(text, m.start(), m.end(), "0")
    return text, found


def parse_printed(text: str) -> Printed:
    """A layout as CuTe C++ or CuTe DSL prints it, with its pointer and pointer flag (see the
    module docstring); NotationError, at its column, for what no print writes."""
    if not isinstance(text, str):
        raise NotationError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise NotationError(f"{len(text)} characters; a layout is at most {MAX_TEXT_CHARS}")
    if "?" in text:
        raise NotationError("a value known only at run time ('?', as CuTe DSL prints it at "
                            "compile time): print the layout with cute.printf to see it",
                            text.index("?") + 1)
    sparse = _SPARSE.search(text)
    if sparse is not None:
        raise NotationError("a sparse operand's pointer flag (smem_sparse<..>): only dense "
                            "layouts are read", sparse.start() + 1)
    rest, pointer = _tensor_prefix(text)
    rest, flag = _flag(rest)
    return Printed(parse(rest), pointer, flag)
