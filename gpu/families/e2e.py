"""gpu.e2e[<instr>:<SS|RS>:<layout>]: end-to-end products, bit for bit.

Random exact-integer operands are placed by the oracle's canonical layout (compact LBO/SBO; A
in registers by the oracle's A fragment map for RS), and D, read through the oracle's D map,
is compared bit for bit with a host matmul.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ptxconf.cases import Case, Outcome
from ptxconf.oracle import interpret as I
from ptxconf.oracle import verdicts
from ptxconf.oracle.spec import Spec
from ptxconf.providers import RunContext

from .. import plan as P
from ..session import (
    GpuBody,
    Session,
    acc_fmt,
    d_matrix,
    gpu_case,
    lay_details,
    layouts,
    product,
    run_product,
)

PROVIDER = "gpu-e2e"


def _e2e(key: str, p: P.Probe, swizzle: str) -> GpuBody:
    def body(sess: Session) -> Outcome:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = layouts(spec, v, p.major, swizzle)
        a, b, want = product(spec, v, key)
        dump = run_product(sess, v, a, b, a_lay, b_lay)
        got = d_matrix(spec, v, dump.regs)
        diff = I.diff_grid(f"D = A·Bᵀ ({v.dtype})", want, got, axes=("m", "n"),
                           fmt=acc_fmt(spec, v.dtype))
        fields: dict[str, Any] = {
            "kernel": v.kernel_name, "B": lay_details(b_lay),
            "descriptors": {"A": None if v.a_from_regs else hex(dump.a_desc),
                            "B": hex(dump.b_desc)},
            "operand_range": list(I.operand_range(spec, v.atype, v.dtype, v.k)),
            "A": ("registers, by ptxconf oracle fragment --operand A (a_regs_like_d16)"
                  if v.a_from_regs else lay_details(a_lay))}
        if not diff.ok:
            fields["raw"] = sess.raw(regs=dump.regs, a=a, b=b)
        a_text = ("registers" if v.a_from_regs
                  else f"{a_lay.atom} LBO={a_lay.lbo_bytes} SBO={a_lay.sbo_bytes}")
        return verdicts.compared(
            diff, f"D bit-exact vs host matmul, {diff.total} elements (A: {a_text}; B: "
                  f"{b_lay.atom} LBO={b_lay.lbo_bytes} SBO={b_lay.sbo_bytes})",
            f"{v.ptx_name} {p.form} {a_lay.atom if not v.a_from_regs else 'regs'}/"
            f"{b_lay.atom}: {diff.message()}", **fields)

    return body


def case_keys(spec: Spec) -> Iterator[tuple[str, str]]:
    """(check, key) of every end-to-end case."""
    for p in P.e2e_plan(spec):
        yield p.check, p.key


def cases(spec: Spec, ctx: RunContext) -> Iterator[Case]:
    """Every end-to-end case: type rows x N x .satfinite x SS/RS x major-ness x swizzle."""
    for p in P.e2e_plan(spec):
        yield gpu_case(spec, ctx, PROVIDER, p.check, p.key, _e2e(p.key, *p.args))
