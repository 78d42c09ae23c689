"""ldmatrix and stmatrix as probes: one kernel per form the harness target runs, from the spec.

A `WarpMatrixVariant` is one form of the oracle (`ptxconf.oracle.ldmatrix.forms`: a shape row of
spec/warp/*_shapes.yaml with a fragment row, each .num of its .num table, each .trans it takes,
each type) whose shape's first target is at most the harness target (sm_90: the H100 and H200
run it). Its kernel is written from the rows alone: the PTX spelling is the form's, the operand
order is the shape's syntax line (`r, [p]`: the registers are the destination, a load;
`[p], r`: a store), the register count is the form's (registers a matrix x matrices), each a
`register_bits` register of the .num table. Every kernel is the same template
(kernels/warp_matrix_probe.cu): each lane takes its row address and, for a store, its register
words from the host, and the kernel dumps the registers and the shared-memory image.

Pure: no CuPy, no device. The module's source is `ptxconf.gpu.build.warp_matrix_source`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptxconf.oracle import ldmatrix as lm
from ptxconf.oracle.spec import Spec

#: PTX's inline-asm constraint of a register of each width.
CONSTRAINTS = {32: "r"}
#: The syntax line's operands: its register list and its address (`r`, `[p]`).
_OPERANDS = re.compile(r"^\S+\s+(?P<ops>[^;]+);?\s*$")


@dataclass(frozen=True)
class WarpMatrixVariant:
    """One form's probe kernel: its name and PTX, the registers a lane holds, whether the
    registers are the destination (a load) and the syntax's operand order."""

    name: str
    ptx: str
    registers: int
    register_bits: int
    loads: bool
    operands: tuple[str, ...]

    @property
    def kernel_name(self) -> str:
        """A C identifier naming this probe kernel."""
        return re.sub(r"\W", "_", self.name)

    @property
    def instruction(self) -> str:
        """ldmatrix or stmatrix."""
        return self.name.split(".", 1)[0]


def operand_order(syntax: str) -> tuple[str, ...]:
    """('r', '[p]') from a syntax line `... r, [p];`; ValueError unless it names one register
    operand and one address."""
    m = _OPERANDS.match(syntax.strip())
    ops = tuple(o.strip() for o in m["ops"].split(",")) if m else ()
    if sorted(o.startswith("[") for o in ops) != [False, True]:
        raise ValueError(f"syntax {syntax!r}: expected one register operand and one [address]")
    return ops


def variant(form: lm.Form) -> WarpMatrixVariant:
    """The probe kernel of one form."""
    ops = operand_order(form.shape.syntax[0])
    bits = form.addresses.register_bits
    if bits not in CONSTRAINTS:
        raise ValueError(f"{form.addresses.key}: no inline-asm constraint for {bits}-bit registers")
    return WarpMatrixVariant(form.name, form.ptx, form.registers, bits,
                             not ops[0].startswith("["), ops)


def runs_here(form: lm.Form) -> bool:
    """Whether the harness target runs the form: its shape's first target is not later."""
    return lm.target_number(form.shape.target) <= lm.target_number(lm.HARNESS_TARGET)


def probe_forms(spec: Spec) -> tuple[lm.Form, ...]:
    """Every form whose maps the oracle derives and the harness target runs, in row order."""
    return spec.memo(("ldmatrix.probe_forms",),
                     lambda: tuple(f for f in lm.forms(spec) if runs_here(f)))


def variants(spec: Spec) -> tuple[WarpMatrixVariant, ...]:
    """The probe kernel of every form the harness target runs (one module holds them all)."""
    return spec.memo(("ldmatrix.variants",), lambda: tuple(variant(f) for f in probe_forms(spec)))


def stanza(v: WarpMatrixVariant) -> str:
    """One form's asm statement and its kernel definition."""
    c = CONSTRAINTS[v.register_bits]
    regs = "{" + ", ".join(f"%{i + (0 if v.loads else 1)}" for i in range(v.registers)) + "}"
    address = f"[%{v.registers if v.loads else 0}]"
    text = ", ".join(address if o.startswith("[") else regs for o in v.operands)
    reg_args = ", ".join(f'"{"=" if v.loads else ""}{c}"(r[{i}])' for i in range(v.registers))
    outs, ins = (reg_args, '"r"(address)') if v.loads else ("", f'"r"(address), {reg_args}')
    return (f"struct {v.kernel_name}_op {{\n"
            "  static __device__ __forceinline__ void run(unsigned* r, unsigned address) {\n"
            f'    asm volatile("{v.ptx} {text};"\n      : {outs}\n      : {ins}\n'
            '      : "memory");\n'
            "  }\n};\n"
            f"WARP_MATRIX_PROBE_KERNEL({v.kernel_name}, {v.registers})\n")


__all__ = ["CONSTRAINTS", "WarpMatrixVariant", "operand_order", "probe_forms", "runs_here",
           "stanza", "variant", "variants"]
