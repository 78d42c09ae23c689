"""Message examples of the TMA write side: the oracle's refusals (src/ptxconf/oracle/tma.py), the
checks (oracle/checks/tma_checks.py), the proofs (oracle/proofs/tma_writes.py) and `explain tma`'s
mistakes (oracle/explain/tma_pair.py), one per message shape, each for the input its test uses
(see golden_messages.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from case_outcomes import prove_module_claim, run_module_case
from golden_messages import example
from golden_messages import raised as _raised
from scratch_spec import replaced_row

from ptxconf.oracle import tma
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.spec import default_spec

MODES = "tma/swizzling_modes"
CANON = "wgmma/canonical_layouts"


# --- oracle/tma.py: a box the documents refuse (test_tma.py) ----------------------------------------

_BOXES: dict[str, tuple[Any, ...]] = {
    "box.span": ("128B", "bf16", 64, 72, 0),
    "box.inner": ("none", "bf16", 8, 4, 0),
    "box.dim": ("64B", "bf16", 300, 32, 0),
    "box.align": ("64B", "bf16", 8, 32, 0x408),
    "box.sub_byte": ("64B", "u4", 8, 32, 0),
    "box.dtype": ("64B", "f8", 8, 32, 0),
    "box.mode": ("96B", "bf16", 8, 32, 0),
}


def _box(args: tuple[Any, ...]) -> Callable[[], str]:
    return lambda: _raised(lambda: tma.box(default_spec(), *args), tma.TmaError)


for _label, _args in _BOXES.items():
    example(_label)(_box(_args))


# --- oracle/checks/tma_checks.py (test_checks_tma_checks.py) ----------------------------------------

def _check(case_id: str, key: str | None = None, **changes: object) -> str:
    from ptxconf.oracle.checks import tma_checks

    spec = default_spec() if key is None else replaced_row(default_spec(), key, **changes)
    return run_module_case(tma_checks, spec, case_id).message


@example("check.pattern")
def _() -> str:
    return _check(f"tma.pattern[{MODES}:128B]")


@example("check.pattern_off")
def _() -> str:
    return _check(f"tma.pattern[{MODES}:64B]", f"{MODES}:64B", pattern=(
        "0 1 2 3 4 5 6 7", "1 0 3 2 5 4 7 6", "2 3 0 1 6 7 4 5", "3 2 1 0 7 6 4 5"))


@example("check.repeat")
def _() -> str:
    return _check(f"tma.repeat[{MODES}:64B]")


@example("check.repeat_none")
def _() -> str:
    return _check(f"tma.repeat[{MODES}:none]")


@example("check.none_with_a_repeat")
def _() -> str:
    return _check(f"tma.repeat[{MODES}:none]", f"{MODES}:none", repeat_bytes=128)


@example("check.wgmma_swizzle")
def _() -> str:
    return _check(f"tma.wgmma_swizzle[{MODES}:32B]")


@example("check.wgmma_reads_another_swizzle")
def _() -> str:
    return _check(f"tma.wgmma_swizzle[{MODES}:64B]", f"{CANON}:MN_SW64", swizzle_shift=4)


@example("check.tensor_map")
def _() -> str:
    return _check("tma.tensor_map[tma/tensor_map_swizzle:CU_TENSOR_MAP_SWIZZLE_64B]")


@example("check.tensor_map_none")
def _() -> str:
    return _check("tma.tensor_map[tma/tensor_map_swizzle:CU_TENSOR_MAP_SWIZZLE_NONE]")


@example("check.cute")
def _() -> str:
    return _check("tma.cute[cute/tma_swizzle:B128]")


@example("check.cute_another_swizzle")
def _() -> str:
    return _check("tma.cute[cute/tma_swizzle:B64]", "cute/tma_swizzle:B64", swizzle_shift=2)


@example("check.cute_unknown_enumerator")
def _() -> str:
    return _check("tma.cute[cute/tma_swizzle:B64]", "cute/tma_swizzle:B64",
                  tensor_map_swizzle="CU_TENSOR_MAP_SWIZZLE_96B")


_REQUIREMENTS = {
    "box_size": ("tma/bounding_box:box_size", {"multiple_bytes": 32}),
    "box_inner": ("tma/tensor_map_limits:boxDim0_bytes", {"multiple_bytes": 24}),
    "box_address": ("tma/bounding_box:box_address", {"alignment_bytes": 8}),
    "global_address": ("tma/tensor_map_limits:globalAddress", {"alignment_bytes": 32}),
    "global_strides": ("tma/tensor_map_limits:globalStrides", {"multiple_bytes": 8}),
    "box_dim": ("tma/tensor_map_limits:boxDim", {"max_elems": 32}),
}


def _requirement(key: str, changes: dict[str, object], broken: bool) -> Callable[[], str]:
    def produce() -> str:
        return _check(f"tma.requirement[{key}]", key if broken else None, **changes)

    return produce


for _name, (_key, _changes) in _REQUIREMENTS.items():
    example(f"check.requirement.{_name}")(_requirement(_key, _changes, False))
    example(f"check.requirement.{_name}_off")(_requirement(_key, _changes, True))


# --- oracle/proofs/tma_writes.py (test_proofs_tma_writes.py) ----------------------------------------

def _proof(claim_id: str) -> str:
    from ptxconf.oracle.proofs import tma_writes

    return prove_module_claim(tma_writes, default_spec(), claim_id).message


@example("proof.box")
def _() -> str:
    return _proof(f"proof.tma_box_bijective[{MODES}:128B.2B]")


@example("proof.box_none")
def _() -> str:
    return _proof(f"proof.tma_box_bijective[{MODES}:none.4B]")


@example("proof.pairing_identity")
def _() -> str:
    return _proof(f"proof.tma_pairing[{MODES}:128B~{CANON}:K_SW128.off_zero]")


@example("proof.pairing_moved")
def _() -> str:
    return _proof(f"proof.tma_pairing[{MODES}:128B~{CANON}:K_SW128.off_rule]")


@example("proof.pairing_modes")
def _() -> str:
    return _proof(f"proof.tma_pairing[{MODES}:64B~{CANON}:K_SW32.aligned]")


# --- oracle/explain/tma_pair.py (test_explain_tma_pair.py) ------------------------------------------

def _explain(mode: str, cols: int, base: int, start: int, read: str, lbo: int, sbo: int,
             field: int = 0) -> str:
    from ptxconf.oracle.explain.tma_pair import explain_tma

    spec = default_spec()
    value = descriptor_format(spec).encode(start_address_bytes=start, lbo_bytes=lbo, sbo_bytes=sbo,
                                           swizzle=read, base_offset=field)
    return explain_tma(spec, swizzle=mode, dtype="bf16", rows=64, cols=cols, base=base, major="K",
                       value=value).message


# K-major 128B packing of a 64-row box: LBO 16 B (not used), SBO 8 rows x 128 B
@example("explain.pairs")
def _() -> str:
    return _explain("128B", 64, 0x400, 0x400, "128B", 16, 1024)


@example("explain.mode")
def _() -> str:
    return _explain("64B", 32, 0x400, 0x400, "128B", 16, 1024)


@example("explain.start")
def _() -> str:
    return _explain("128B", 64, 0x400, 0x800, "128B", 16, 1024)


@example("explain.phase")
def _() -> str:
    return _explain("128B", 64, 0x480, 0x480, "128B", 16, 1024, field=1)


@example("explain.stride")
def _() -> str:
    return _explain("128B", 64, 0, 0, "128B", 1024, 16)


@example("explain.descriptor")
def _() -> str:
    from ptxconf.oracle.explain.operand import ExplainError
    from ptxconf.oracle.explain.tma_pair import decode

    return _raised(lambda: decode(default_spec(), 1 << 64), ExplainError)
