"""wmma storage: the alignment rule's two statements agree, and default strides pack densely.

(a) "p % F == 0 and (stride * element bytes) % F == 0" is equivalent to "every row (row-major)
or column (col-major) start p + i * stride * element bytes, i < count, is F-aligned", for
symbolic p and stride, F the fragment size in bytes: documented only for the f16 A example
(spec/wmma/alignment_examples.yaml), a symbolic power of two elsewhere. The direction
"every start aligned => rule" needs count >= 2; with a single start it fails, and the claim
shows how. Sub-byte elements are handled in bits (a start must be 8F-bit aligned).
(b) The default stride makes (rows, cols):(stride, 1) (row-major; (1, stride) col-major) a
bijection onto [0, rows * cols): the stride is the leading dimension, no gaps, no overlap.
"""

from __future__ import annotations

from collections.abc import Iterator

import z3

from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.canonical import BITS_PER_BYTE
from ptxconf.oracle.proofs.encode import bit_form
from ptxconf.oracle.proofs.runner import Claim, Proved, Prover, Refuted, value
from ptxconf.oracle.records import WmmaAlignmentExample, WmmaDefaultStride
from ptxconf.oracle.spec import Spec
from ptxconf.oracle.wmma import MATRIX_DIMS, default_stride_elems, matrix_shape

LAYOUTS = ("row", "col")
#: F ranges over 2^0 .. 2^F_LOG2_MAX bytes where no example documents it.
F_LOG2_MAX = 16
#: Bit-vector width. Alignment to 8F bits only reads an address modulo 8F, and arithmetic
#: modulo 2^WIDTH preserves residues modulo every 8F <= 2^(WIDTH-1): so these widths prove the
#: claims for pointers and strides of any size (their higher bits never matter).
WIDTH = F_LOG2_MAX + 4


def _dims(row: WmmaDefaultStride, matrix: str, layout: str) -> tuple[int, int, int]:
    """(rows, cols, leading-dimension instances) of one matrix in one layout."""
    rows, cols = matrix_shape(row.m_elems, row.n_elems, row.k_elems, matrix)
    return rows, cols, rows if layout == "row" else cols


def _example(spec: Spec, row: WmmaDefaultStride, matrix: str, layout: str,
             dtype: str) -> WmmaAlignmentExample | None:
    for ex in spec.of(WmmaAlignmentExample):
        if (ex.shape, ex.matrix, ex.layout, ex.dtype) == (row.id, matrix, layout, dtype):
            return ex
    return None


def alignment_equivalence(spec: Spec, row: WmmaDefaultStride, matrix: str,
                          layout: str) -> Claim:
    """The rule and the per-start statement agree for every pointer and stride."""
    key = f"{row.key}.{matrix}.{layout}"

    def body(prover: Prover) -> Proved:
        rows, cols, count = _dims(row, matrix, layout)
        notes = []
        widths: dict[int, list[str]] = {}
        for dtype in row.types:
            widths.setdefault(spec.element_bits(dtype), []).append(dtype)
        for bits, dtypes in widths.items():
            names = "/".join(dtypes)
            exs = [e for d in dtypes if (e := _example(spec, row, matrix, layout, d)) is not None]
            for ex in exs:
                _check_example(ex, bits)
            first: WmmaAlignmentExample | None = exs[0] if exs else None
            enc = prover.encoder(WIDTH)
            p, s, f = enc.var("p"), enc.var("stride"), enc.var("f")
            if first is None:
                limits = [z3.ULE(f, F_LOG2_MAX)]
                fbits = enc.val(BITS_PER_BYTE) << f
            else:
                fbits = enc.val(first.fragment_bytes * BITS_PER_BYTE)
                limits = [f == first.fragment_bytes.bit_length() - 1]
            rule = z3.And(_aligned(p * BITS_PER_BYTE, fbits), _aligned(s * bits, fbits))
            every = _starts(p, s, bits, count, fbits)
            one = prover.minimize([*limits, p == 0, _starts(p, s, bits, 1, fbits),
                                   z3.Not(rule)], [s])
            if one is None:
                prover.satisfiable(key, limits)
            else:
                notes.append(f"needs count >= 2: a single start p=0x0 with stride={value(one, s)} "
                             f"elems (F={1 << value(one, f)} B) is aligned, the rule fails")
            hit = prover.find(limits, rule != every)
            if hit is not None:
                what = ("rule => every start aligned" if z3.is_true(hit.eval(rule)) else
                        "every start aligned => rule")
                cex = _cex(hit, p, s, f, names)
                args = (f"{cex['p']}, {cex['stride_elems']}, {bits}, {cex['fragment_bytes']}, "
                        f"{count}")
                line = ('python -c "from ptxconf.oracle.wmma import check_alignment; '
                        f'print(check_alignment({args}))"')
                raise Refuted(f"{key} {names}: {what} fails for {cex['summary']}", cex, line)
            fdesc = f"F={first.fragment_bytes} B (documented)" if first else (
                f"any power-of-two F <= 2^{F_LOG2_MAX} B")
            notes.insert(0, f"{names}, {fdesc}")
        return Proved(f"{key}: rule <=> all {count} {'row' if layout == 'row' else 'column'} "
                      f"starts F-aligned, for every p and stride ({rows}x{cols}; "
                      f"{'; '.join(notes)})", {"count": count})

    return Claim("wmma_alignment_equivalence", key,
                 f"{key}: the alignment rule is equivalent to every leading-dimension start being "
                 f"fragment-aligned", body)


def _aligned(x: z3.BitVecRef, fbits: z3.BitVecRef) -> z3.BoolRef:
    """x (a bit address) is a multiple of fbits (a power of two)."""
    return x & (fbits - 1) == 0


def _starts(p: z3.BitVecRef, s: z3.BitVecRef, bits: int, n: int,
            fbits: z3.BitVecRef) -> z3.BoolRef:
    """The first n leading-dimension starts p + i * stride * element size are aligned."""
    return z3.And([_aligned(p * BITS_PER_BYTE + s * (i * bits), fbits) for i in range(n)])


def _check_example(ex: WmmaAlignmentExample, bits: int) -> None:
    """The example's numbers instantiate the rule: element bytes, pointer and stride multiples."""
    if ex.stride_elem_bytes * BITS_PER_BYTE != bits:
        raise Refuted(f"{ex.id}: stride_elem_bytes={ex.stride_elem_bytes}, {ex.dtype} is "
                      f"{bits} bits", {"stride_elem_bytes": ex.stride_elem_bytes})
    if ex.fragment_bytes & (ex.fragment_bytes - 1) or ex.fragment_bytes <= 0:
        raise Refuted(f"{ex.id}: fragment_bytes={ex.fragment_bytes} is not a power of two", {})
    for name in ("pointer_multiple_bytes", "stride_multiple_bytes"):
        if getattr(ex, name) != ex.fragment_bytes:
            raise Refuted(f"{ex.id}: {name}={getattr(ex, name)}, the rule says the fragment size "
                          f"{ex.fragment_bytes}", {name: getattr(ex, name)})


def _cex(model: z3.ModelRef, p: z3.BitVecRef, s: z3.BitVecRef, f: z3.BitVecRef,
         dtype: str) -> dict[str, object]:
    pv, sv, fv = value(model, p), value(model, s), 1 << value(model, f)
    return {"summary": f"p={pv:#x}, stride={sv} elems ({dtype}), F={fv} B", "p": hex(pv),
            "stride_elems": sv, "fragment_bytes": fv}


def default_stride(spec: Spec, row: WmmaDefaultStride, matrix: str, layout: str) -> Claim:
    """The table's default stride packs the matrix densely."""
    key = f"{row.key}.{matrix}.{layout}"

    def body(prover: Prover) -> Proved:
        rows, cols, _ = _dims(row, matrix, layout)
        stride = row.stride_elems(matrix, layout)
        lay = Layout((rows, cols), (stride, 1) if layout == "row" else (1, stride))
        form = bit_form(str(lay), 1)
        enc = prover.encoder()
        env: dict[str, int] = {}
        c1, d1 = enc.coords(form, "a", env, env)
        c2, d2 = enc.coords(form, "b", env, env)
        o1, o2 = enc.offset(form, c1, env), enc.offset(form, c2, env)
        differ = z3.Or([x != y for x, y in zip(c1, c2, strict=True)])
        prover.satisfiable(key, d1, d2, differ)
        hit = prover.minimize([*d1, *d2, differ, o1 == o2], [o1])
        if hit is not None:
            a, b = (form.mode_coords(tuple(value(hit, c) for c in cs), env) for cs in (c1, c2))
            raise Refuted(f"{key}: stride {stride} overlaps: elements (row, col) {a} and {b} both "
                          f"at offset {value(hit, o1)} elems", {"elements": [a, b],
                                                                "offset": value(hit, o1)},
                          _offsets_repro(lay, [a, b]))
        hit = prover.minimize([*d1, z3.UGE(o1, rows * cols)], [o1])
        if hit is not None:
            a = form.mode_coords(tuple(value(hit, c) for c in c1), env)
            raise Refuted(f"{key}: stride {stride} leaves gaps: element (row, col) {a} lands at "
                          f"{value(hit, o1)} >= {rows}x{cols}", {"element": a,
                                                                 "offset": value(hit, o1)},
                          _offsets_repro(lay, [a]))
        lead = default_stride_elems(row.m_elems, row.n_elems, row.k_elems, matrix, layout)
        if lead != stride:
            raise AssertionError(f"{key}: oracle says leading dimension {lead}, proof {stride}")
        return Proved(f"{key}: {lay} is a bijection onto [0, {rows * cols}): the default stride "
                      f"{stride} is the leading dimension ({'cols' if layout == 'row' else 'rows'}"
                      f" of the {rows}x{cols} {matrix.upper()})", {"stride_elems": stride})

    return Claim("wmma_default_stride", key,
                 f"{key}: the default stride is the leading dimension", body)


def _offsets_repro(lay: Layout, coords: list[tuple[int, ...]]) -> str:
    """A line printing the element offsets of (row, col) coordinates."""
    return (f'python -c "from ptxconf.oracle.algebra import Layout; L = Layout({lay.shape!r}, '
            f'{lay.stride!r}); print([L(c) for c in {coords!r}])"')


def claims(spec: Spec) -> Iterator[Claim]:
    """Both claims for every shape, matrix and layout of the default-stride table."""
    for row in spec.of(WmmaDefaultStride):
        for matrix in MATRIX_DIMS:
            for layout in LAYOUTS:
                yield alignment_equivalence(spec, row, matrix, layout)
                yield default_stride(spec, row, matrix, layout)
