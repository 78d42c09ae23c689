"""Shared by the tests that check a case's outcome: build the cases in the test, run one by id, and
compare status, code and fields (a message's wording is pinned once, by a message example:
conformance/golden_messages.py); `expect_named` and `raises_naming`, for a message or a refusal
that must name some values; and what the tests of `ptxconf explain` share (its citations, rules,
operands and descriptors)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from ptxconf.core.cases import Case, execute
from ptxconf.core.results import Result, Status
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.lint import SpecError
from ptxconf.oracle.spec import Spec, default_spec

if TYPE_CHECKING:
    from ptxconf.oracle.explain.synthesize import Refusal, Synthesis


def run_case(cases: Iterable[Case], case_id: str) -> Result:
    """Execute the case of that id among `cases` (it must be there)."""
    by_id = {c.id: c for c in cases}
    assert case_id in by_id, f"{case_id} not among {len(by_id)} cases"
    return execute(by_id[case_id])


def run_module_case(module: ModuleType, spec: Spec, case_id: str) -> Result:
    """Build the module's cases of `spec` here, and execute the one with this id."""
    found = [c for c in module.cases(spec) if c.id == case_id]
    assert len(found) == 1, f"{case_id}: {len(found)} cases"
    return execute(found[0])


def expect_outcome(res: Result, status: Status, code: str, message: str, **fields: object) -> None:
    """The result is exactly this: status, code, message and every field."""
    assert (res.status, res.code, res.message) == (status, code, message)
    assert res.fields == fields


def expect_fields(res: Result, status: Status, code: str, **fields: object) -> None:
    """The result has this status, code and exactly these fields (its wording is a message
    example's)."""
    assert (res.status, res.code) == (status, code)
    assert res.fields == fields


@contextmanager
def raises_naming(exc: type[BaseException], *values: str) -> Iterator[pytest.ExceptionInfo]:
    """The block raises `exc`, whose message holds each of `values` (the coordinates and values it
    names; its whole wording is a message example's, conformance/messages_<area>.py)."""
    with pytest.raises(exc) as info:
        yield info
    text = str(info.value)
    missing = [v for v in values if v not in text]
    assert not missing, f"{text!r} does not name {missing}"


def names(text: str, *values: str) -> bool:
    """`text` (a message) names each of `values`; True, for `assert names(...)`."""
    missing = [v for v in values if v not in text]
    assert not missing, f"{text!r} does not name {missing}"
    return True


def expect_spec_errors(errors: Sequence[SpecError],
                       *expected: tuple[object, int, str, tuple[str, ...]]) -> None:
    """`errors` are exactly `expected`, in order: each (path, line, rule, the values its message
    names); the messages' wording is a message example's."""
    assert [(e.path, e.line, e.rule) for e in errors] == [(str(p), n, r) for p, n, r, _ in expected]
    for error, (_, _, _, values) in zip(errors, expected, strict=True):
        names(error.message, *values)


def expect_mismatch(res: Result, what: str, source: str, documented: object, witness: str,
                    derived: object, status: Status = Status.FAIL) -> None:
    """An expect_equal verdict: its message and its four fields."""
    code = "mismatch" if status is Status.FAIL else "documents_disagree"
    expect_outcome(res, status, code, f"{what}: {source} says {documented!r}, {witness} gives {derived!r}",
                   documented=documented, derived=derived, source=source, witness=witness)


def expect_mismatch_fields(res: Result, source: str, documented: object, witness: str,
                           derived: object, status: Status = Status.FAIL) -> None:
    """An expect_equal verdict: its status, code and four fields (its wording is the message
    example expect_equal.mismatch's, conformance/messages_core.py)."""
    code = "mismatch" if status is Status.FAIL else "documents_disagree"
    expect_fields(res, status, code, documented=documented, derived=derived, source=source,
                  witness=witness)


def prove_module_claim(module: ModuleType, spec: Spec, claim_id: str, timeout_s: float = 60.0) -> Result:
    """Build the module's claims of `spec` here, and prove the one with this id."""
    from ptxconf.oracle.proofs.cases import run_claim

    found = [c for c in module.claims(spec) if c.id == claim_id]
    assert len(found) == 1, f"{claim_id}: {len(found)} claims"
    return run_claim(found[0], timeout_s)


#: The xdist group of the tests and message examples that prove one claim of the bundled spec
#: through `proved_once`: under `--dist loadgroup` they share a process, which proves it once.
SHARED_PROOFS = "shared-proofs"


def proved_once(module: ModuleType, claim_id: str) -> Result:
    """`prove_module_claim` on the bundled spec, proved once a process and the Result shared: for
    a claim that a message example and a test both prove (group SHARED_PROOFS), never one proved
    under a monkeypatch."""
    return _proved_once(module.__name__, claim_id)


@functools.cache
def _proved_once(module_name: str, claim_id: str) -> Result:
    return prove_module_claim(importlib.import_module(module_name), default_spec(), claim_id)


def proof_facts(res: Result) -> dict[str, object]:
    """A proof outcome's facts without Z3's query count (where that count depends on a model Z3
    chose)."""
    return {k: v for k, v in res.fields["facts"].items() if k != "queries"}


class _Said(Protocol):
    message: str


def expect_named(res: Result | _Said, *values: str) -> None:
    """The result's (or a diagnosis's) message names each of these values (coordinates, counts,
    names that no field holds; its whole wording is a message example's,
    conformance/messages_<area>.py)."""
    missing = [v for v in values if v not in res.message]
    assert not missing, f"{res.message!r} does not name {missing}"


# --- `ptxconf explain` (oracle/explain/): the bundled spec's rows as its answers cite them, the
# catalog's rules, and the operands, layouts and descriptors its tests share
# (test_explain_catalog.py, test_explain_names.py, test_explain_synthesize*.py)

#: The instruction whose A operand the explain tests diagnose (bf16, 64x16, K-major by default).
EXPLAIN_INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
#: spec_ref of the rows, lines counted in the files.
EXPLAIN_REF = {
    "LBO.K.swizzled": "spec/wgmma/leading_byte_offset.yaml:16 (wgmma/leading_byte_offset:LBO.K.swizzled)",
    "K_SW128": "spec/wgmma/canonical_layouts.yaml:20 (wgmma/canonical_layouts:K_SW128)",
}
#: GPU case ids an answer cites as evidence, `{}` the case's variant.
SMEM_A_BF16 = "gpu.smem_map[wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16:A:{}]"
UNUSED_LBO_BF16 = "gpu.address.unused_lbo[wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16:{}]"
START_F16 = "gpu.address.start[wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16:{}]"
UNUSED_BASE = "gpu.address.unused_base_offset[wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16:{}]"
#: The catalog's rules (oracle/explain/catalog.py) of a misaligned start and of no fix.
RULE_START = ("A swizzled operand whose start is not on its swizzle repeat (256/512/1024 B for "
              "32B/64B/128B) needs the base-offset field (start >> 7) & 7: on an H100 the hardware "
              "swizzles start + offset - (field << 7), so with the field 0 the XOR pattern follows "
              "the absolute address, and with the field per the rule it restarts at the start's "
              "128-byte row.")
RULE_NO_FIX = ("None of the descriptors searched (same start; every swizzle mode; LBO/SBO among "
               "yours, swapped, and the packed values; base-offset field 0 or per the rule) reads "
               "the operand injectively, inside the allocation, with its pattern at the tile base.")


def explain_a_bf16(major: str = "K") -> Operand:
    """Operand A of EXPLAIN_INSTR, resolved against the bundled spec."""
    from ptxconf.oracle.explain.operand import resolve

    return resolve(default_spec(), instr=EXPLAIN_INSTR, operand="A", major=major)


#: Operands of synthesize's tests: A of an m64nNk16 bf16 wgmma K- and MN-major, A of an
#: m64nNk32 e4m3 wgmma; CUTLASS's K-major 128B bf16 A layout.
BF16_K = Operand("bf16", "K", 64, 16, 16)
BF16_MN = Operand("bf16", "MN", 64, 16, 16)
E4M3_K = Operand("e4m3", "K", 64, 32, 8)
README_LAYOUT = "Swizzle<3,4,3> o 0 o ((8,8),64):((64,512),1)"
_LAYOUT_CODES = {"none": 0, "128B": 1, "64B": 2, "32B": 3}


def descriptor_value(start: int, lbo: int, sbo: int, swizzle: str, base_offset: int = 0) -> str:
    """A descriptor's 64-bit value from matrix_descriptor.yaml's bit layout, as JSON prints it."""
    v = ((start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base_offset << 49
         | _LAYOUT_CODES[swizzle] << 62)
    return f"{v:#018x}"


def descriptor_block(origin: tuple[int, int], start: int, lbo: int, sbo: int, swizzle: str,
                     base_offset: int = 0) -> dict[str, Any]:
    """One k-block's descriptor as a synthesis's `--json` prints it."""
    return {"origin": list(origin), "value": descriptor_value(start, lbo, sbo, swizzle, base_offset),
            "start_address": start, "lbo": lbo, "sbo": sbo, "base_offset": base_offset,
            "swizzle": swizzle, "unused_bits": "0x0"}


def synthesized(text: str, op: Operand = BF16_K, **kw: Any) -> Synthesis:
    """The descriptors synthesize finds for a layout (it must find them)."""
    from ptxconf.oracle.explain.synthesize import Synthesis, synthesize

    got = synthesize(default_spec(), text, op, **kw)
    assert isinstance(got, Synthesis), got.reasons
    return got


def refused(text: str, op: Operand = BF16_K, **kw: Any) -> Refusal:
    """synthesize's refusal of a layout (it must refuse it)."""
    from ptxconf.oracle.explain.synthesize import Refusal, synthesize

    got = synthesize(default_spec(), text, op, **kw)
    assert isinstance(got, Refusal), got
    return got
