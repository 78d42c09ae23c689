"""Hardware facts come from spec rows (oracle/facts.py), and every record field is read.

Two parts:

* each accessor of `ptxconf.oracle.facts` answers from its rows: the bundled answer, then the
  answer of a spec with that row changed (so a fact typed into Python would not follow);
* every field a record class declares is read by something that turns the spec into cases:
  record attribute access is instrumented while every CPU provider's cases run (spec lint,
  self-consistency, proofs where z3 is here, the assembler witness where NVRTC is here) and the
  GPU provider lists its case ids (it reads the rows that plan its probes without a GPU). A
  field nothing reads is a column no check depends on: it fails here, by name. Fields a record
  class declares informative (`INFORMATIVE`: the row's `cite`) and the loader's own (`file`,
  `line`, `source`) are exempt.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import execute
from ptxconf.core.context import RunContext
from ptxconf.oracle import facts, interpret, records
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()


def _with(spec: Spec, cls: type[records.Row], row_id: str, **changes: object) -> Spec:
    """The spec with one row's fields changed."""
    target = spec.get(cls, row_id)
    return Spec(spec.root, tuple(dataclasses.replace(r, **changes) if r is target else r
                                 for r in spec.rows))


# --- each fact from its rows ---------------------------------------------------------------


def test_warps_and_threads_come_from_rows() -> None:
    assert (facts.warpgroup_threads(SPEC), facts.warps_per_warpgroup(SPEC),
            facts.warp_threads(SPEC)) == (128, 4, 32)
    two = _with(SPEC, records.ThreadGroup, "warpgroup", parts=2)
    assert (facts.warps_per_warpgroup(two), facts.warp_threads(two)) == (2, 64)


def test_register_width_and_m_come_from_rows() -> None:
    assert (facts.register_bits(SPEC), facts.wgmma_m(SPEC)) == (32, 64)
    wide = Spec(SPEC.root, tuple(dataclasses.replace(r, elems_per_register=2 * r.elems_per_register)
                                 if isinstance(r, records.RegisterFragment) else r
                                 for r in SPEC.rows))
    assert facts.register_bits(wide) == 64


def test_float_formats_come_from_element_rows() -> None:
    want = {"f16": (5, 10, False), "bf16": (8, 7, False), "tf32": (8, 10, False),
            "f32": (8, 23, False), "f64": (11, 52, False), "e4m3": (4, 3, True),
            "e5m2": (5, 2, False)}
    got = {t: dataclasses.astuple(facts.float_format(SPEC, t)) for t in want}
    assert got == want
    with pytest.raises(ValueError, match="not a float"):
        facts.float_format(SPEC, "s8")
    ieee_e4m3 = _with(SPEC, records.ElementType, "e4m3", finite_only=False)
    # 448 is E4M3's largest finite value (S.1111.110); with infinities it would be out of range
    assert int(interpret.encode(SPEC, "e4m3", 448)) == 0x7E
    with pytest.raises(ValueError, match="out of range"):
        interpret.encode(ieee_e4m3, "e4m3", 448)


def test_encoders_follow_the_rows() -> None:
    """interpret's encode/decode and exact_limit read facts.float_format, not constants."""
    assert interpret.exact_limit(SPEC, "bf16") == 256
    assert interpret.exact_limit(_with(SPEC, records.ElementType, "bf16", mantissa_bits=10),
                                 "bf16") == 2048
    raw = interpret.encode(SPEC, "f16", np.array([1.0, -2.0, 3.0]))
    assert [int(x) for x in raw] == [0x3C00, 0xC000, 0x4200]
    assert list(interpret.decode(SPEC, "f16", raw)) == [1.0, -2.0, 3.0]
    assert interpret.REGISTER_BITS == facts.register_bits(SPEC)


def test_immediate_operands_come_from_rows() -> None:
    assert [t for t in facts.element_types(SPEC) if facts.takes_imm_trans(SPEC, t)] == \
        ["f16", "bf16"]
    assert [t for t in facts.element_types(SPEC) if facts.takes_imm_scale(SPEC, t)] == \
        ["f16", "bf16", "tf32", "e4m3", "e5m2"]
    more = _with(SPEC, records.InstructionOperand, "imm-trans-a", types=("f16", "bf16", "tf32"))
    assert facts.takes_imm_trans(more, "tf32")


def test_swizzle_modes_and_element_types_come_from_rows() -> None:
    assert facts.swizzle_modes(SPEC) == ("none", "32B", "64B", "128B")
    assert "e4m3" in facts.element_types(SPEC)


# --- every record field is read --------------------------------------------------------------

#: Where the dataclass machinery reads fields for itself (__eq__, __hash__, __init__ are
#: generated as "<string>"; replace/fields/asdict live in dataclasses.py): not a use.
_MACHINERY = {"<string>", dataclasses.__file__}
_LOADER = {"file", "line", "source"}


def _record_classes() -> Iterator[type]:
    yield from records.RECORD_KINDS.values()
    yield records.ValidN


def _declared(cls: type) -> set[str]:
    informative = getattr(cls, "INFORMATIVE", frozenset())
    return {f.name for f in dataclasses.fields(cls)} - _LOADER - set(informative)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> set[tuple[str, str]]:
    """(class name, field) of every record field read outside the dataclass machinery."""
    seen: set[tuple[str, str]] = set()
    names = {cls: _declared(cls) for cls in _record_classes()}

    def spy(self: Any, name: str) -> Any:
        fields = names.get(type(self))
        if fields is not None and name in fields:
            if sys._getframe(1).f_code.co_filename not in _MACHINERY:
                seen.add((type(self).__name__, name))
        return object.__getattribute__(self, name)

    for cls in _record_classes():
        monkeypatch.setattr(cls, "__getattribute__", spy)
    return seen


def test_every_record_field_is_read_by_a_case_provider(reads: set[tuple[str, str]]) -> None:
    spec = default_spec()
    ctx = RunContext(gpu="off", proof_timeout_s=30.0)
    ran = []
    for prov in REGISTRY:
        if prov.problem() is None and not prov.gpu:
            for case in prov.load(spec, ctx):
                execute(case)
            ran.append(prov.name)
        else:
            prov.case_ids(spec)  # listing a provider's cases reads the rows that plan them
            ran.append(f"{prov.name} (ids)")
    ctx.close()
    unread = sorted(f"{cls.__name__}.{name}" for cls in _record_classes()
                    for name in _declared(cls) if (cls.__name__, name) not in reads)
    assert not unread, (f"record fields no check, proof, witness or probe plan reads "
                        f"(providers: {', '.join(ran)}): {unread}")
