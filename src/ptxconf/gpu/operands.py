"""Operands placed by the oracle's layouts, descriptors and launch arguments, and dumps read back.

The host side of a wgmma probe: `placed`/`image` lay operand values out in shared-memory bytes by
`ptxconf.oracle.interpret`'s offsets, `desc` encodes their matrix descriptors relative to those
bytes (the kernel adds the shared-memory address), `launch` makes one `run_wgmma_dump`'s keyword
arguments, and `d_matrix`/`acc_values` turn a dump's accumulator registers back into a matrix by
the oracle's fragment map. `run_product` does the whole round trip for one launch of a
`ptxconf.gpu.session.Session`. What a dump means is judged by `ptxconf.oracle.verdicts`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ptxconf.core.cases import fail
from ptxconf.oracle import interpret as I
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.spec import Spec

from .probes import REGION_ALIGN_BYTES
from .variants import WgmmaVariant

if TYPE_CHECKING:
    from .session import Session

#: Zero bytes appended after every operand image: a read just past the layout's last byte
#: lands in memory the probe owns.
GUARD_BYTES = 1024


def desc_args(spec: Spec) -> dict[str, int]:
    """desc_start_shift / desc_start_lsb: how the kernel folds the shared-memory address in."""
    f = descriptor_format(spec).field("start_address")
    return {"desc_start_shift": f.encode_shift_bits, "desc_start_lsb": f.lsb_bits}


def desc(spec: Spec, lay: I.OperandLayout, base_offset: int = 0, lbo: int | None = None,
         start: int = 0) -> int:
    """The descriptor relative to the bytes handed to the probe (start: the operand's offset
    into them); the kernel adds their shared-memory address."""
    return descriptor_format(spec).encode(
        start_address_bytes=start, lbo_bytes=lay.lbo_bytes if lbo is None else lbo,
        sbo_bytes=lay.sbo_bytes, swizzle=lay.swizzle, base_offset=base_offset)


def layout(spec: Spec, dtype: str, major: str, swizzle: str, mn: int, k: int) -> I.OperandLayout:
    """An operand layout with the compact LBO/SBO of its shape."""
    lbo, sbo = I.compact_strides(spec, dtype, major, swizzle, mn, k)
    return I.OperandLayout(dtype, major, swizzle, mn, k, lbo, sbo)


def layouts(spec: Spec, v: WgmmaVariant, major: str, swizzle: str
            ) -> tuple[I.OperandLayout, I.OperandLayout]:
    """(A, B) operand layouts of a variant in one major-ness and swizzle, compact strides."""
    return (layout(spec, v.atype, major, swizzle, v.m, v.k),
            layout(spec, v.btype, major, swizzle, v.n, v.k))


def round_up(x: int, to: int) -> int:
    """x rounded up to a multiple of `to`."""
    return -(-x // to) * to


def placed(spec: Spec, vals: np.ndarray, lay: I.OperandLayout, size: int = 0,
           raw: bool = False) -> tuple[bytes, int]:
    """Operand bytes with the values placed by the layout's offsets, then GUARD_BYTES of zeros,
    and the lead: how many bytes before the operand start the bytes begin (a swizzle acting on
    an unaligned start's absolute address can put an element before the start)."""
    bits = I.element_bits(spec, lay.dtype)
    offs = I.offsets(spec, lay)
    if not spec.memo(("injective", lay), lambda: I.offsets_injective(offs)):
        raise ValueError(f"{lay.atom} {lay.dtype} LBO={lay.lbo_bytes} SBO={lay.sbo_bytes}: two "
                         "elements share an address")
    unit = I.BITS_PER_BYTE if bits < I.BITS_PER_BYTE else 1
    lead = round_up(max(0, -int(offs.min()) // unit), 16) if offs.size else 0
    offs = offs + lead * unit
    raw_bits = vals if raw else I.encode(spec, lay.dtype, vals)
    need = I.footprint_bytes(offs, bits)
    total = round_up(max(need, size + lead), 16) + GUARD_BYTES
    return I.place(raw_bits, offs, bits, total).tobytes(), lead


def image(spec: Spec, vals: np.ndarray, lay: I.OperandLayout, size: int = 0,
          raw: bool = False) -> bytes:
    """Operand bytes from the operand start (ValueError if an element sits before it)."""
    img, lead = placed(spec, vals, lay, size, raw)
    if lead:
        raise ValueError(f"{lay.atom}: elements {lead} B before the operand start")
    return img


def a_regs(spec: Spec, v: WgmmaVariant, raw: np.ndarray) -> np.ndarray:
    """Register-A words of a matrix of raw element bits, by the oracle's A fragment map."""
    table = I.fragment_table(spec, v.ptx_name, "A")
    return I.regs_from_matrix(raw, table, v.facts.warpgroup_threads, v.nreg_a,
                              I.element_bits(spec, v.atype))


def launch(spec: Spec, v: WgmmaVariant, a: bytes | np.ndarray, b: bytes, a_desc: int | None,
           b_desc: int, **kw: Any) -> dict[str, Any]:
    """Keyword arguments of one run_wgmma_dump: A as bytes (SS) or register words (RS)."""
    if v.a_from_regs:
        return {"a_smem": None, "b_smem": b, "a_desc_rel": None, "b_desc_rel": b_desc,
                "a_regs": a, **desc_args(spec), **kw}
    return {"a_smem": a, "b_smem": b, "a_desc_rel": a_desc, "b_desc_rel": b_desc,
            **desc_args(spec), **kw}


def d_matrix(spec: Spec, v: WgmmaVariant, regs: np.ndarray) -> np.ndarray:
    """The raw accumulator matrix [M, N] of a dump's registers, by the oracle's D map."""
    table = I.fragment_table(spec, v.ptx_name, "D")
    return I.matrix_from_regs(regs, table, (v.m, v.n), I.element_bits(spec, v.dtype))


def acc_values(spec: Spec, v: WgmmaVariant, raw: np.ndarray) -> np.ndarray:
    """Accumulator values of raw accumulator bits."""
    return I.accumulator_values(spec, v.dtype, raw)


def acc_fmt(spec: Spec, dtype: str) -> Callable[[Any], str]:
    """A diff-table cell of raw accumulator bits: value (bits)."""
    def fmt(raw: Any) -> str:
        val = I.decode(spec, dtype, np.asarray([int(raw)], dtype=np.uint64))[0]
        return f"{I.int_fmt(val)} ({int(raw):#x})"

    return fmt


def lay_details(lay: I.OperandLayout) -> dict[str, Any]:
    """An operand layout as outcome fields, with the command that reproduces its offsets."""
    return {"layout": lay.atom, "dtype": lay.dtype, "mn": lay.mn, "k": lay.k,
            "lbo_bytes": lay.lbo_bytes, "sbo_bytes": lay.sbo_bytes, "oracle": lay.reproduce()}


def product(spec: Spec, v: WgmmaVariant, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random exact operands A (M x K), B (N x K) and the raw bits of D = A @ B^T (seeded by
    the key)."""
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    a = I.random_operand(spec, v.atype, (v.m, v.k), rng, acc_dtype=v.dtype, k=v.k)
    b = I.random_operand(spec, v.btype, (v.n, v.k), rng, acc_dtype=v.dtype, k=v.k)
    return a, b, I.encode(spec, v.dtype, I.matmul(a, b))


def run_product(sess: Session, v: WgmmaVariant, a: np.ndarray, b: np.ndarray,
                a_lay: I.OperandLayout, b_lay: I.OperandLayout, *,
                a_place: I.OperandLayout | None = None, b_place: I.OperandLayout | None = None,
                a_base_offset: int = 0, b_base_offset: int = 0, a_offset: int = 0,
                b_offset: int = 0, lbo: int | None = None, a_size: int = 0,
                b_size: int = 0) -> Any:
    """One launch, its dump: A and B placed by a_place/b_place (default: the descriptors'
    layouts), each starting a_offset/b_offset bytes into its region, with the base-offset
    fields given."""
    spec = sess.spec
    a_lead = 0
    if v.a_from_regs:
        a_in: bytes | np.ndarray = a_regs(spec, v, I.encode(spec, v.atype, a))
        a_desc = None
    else:
        a_in, a_lead = placed(spec, a, a_place or a_lay, a_size)
        a_desc = desc(spec, a_lay, a_base_offset, lbo, start=a_lead)
    b_img, b_lead = placed(spec, b, b_place or b_lay, b_size)
    if a_lead > a_offset or b_lead > b_offset:
        raise ValueError(f"elements before the region start (A {a_lead} B before +{a_offset}, "
                         f"B {b_lead} B before +{b_offset})")
    kw = launch(spec, v, a_in, b_img, a_desc, desc(spec, b_lay, b_base_offset, lbo, start=b_lead),
                smem_a_offset_bytes=a_offset - a_lead, smem_b_offset_bytes=b_offset - b_lead)
    dump = sess.run_wgmma(v, [kw])[0]
    check_starts(dump, a_offset - a_lead, b_offset - b_lead)
    return dump


def check_starts(dump: Any, a_offset: int, b_offset: int | None = None) -> None:
    """Each operand's region starts on REGION_ALIGN_BYTES, as the layouts' phase assumes."""
    b_offset = a_offset if b_offset is None else b_offset
    for what, addr, off in (("A", dump.a_start_address, a_offset),
                            ("B", dump.b_start_address, b_offset)):
        if addr is not None and (addr - off) % REGION_ALIGN_BYTES:
            raise fail(f"{what} starts at {addr:#x}: its region is not {REGION_ALIGN_BYTES}-byte "
                       "aligned, so the layouts' swizzle phase is not what the host assumed",
                       code="gpu_fault", smem_base_address=hex(dump.smem_base_address))


__all__ = ["GUARD_BYTES", "a_regs", "acc_fmt", "acc_values", "check_starts", "d_matrix", "desc",
           "desc_args", "image", "launch", "lay_details", "layout", "layouts", "placed", "product",
           "round_up", "run_product"]
