"""Hardware facts come from spec rows (oracle/facts.py), and every record field is read.

Three parts:

* each accessor of `ptxconf.oracle.facts` answers from its rows: the bundled answer, then the
  answer of a spec with that row changed (so a fact typed into Python would not follow);
* the CuTe name letters' major-ness, and what each accessor refuses (a row that does not add up);
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
from case_outcomes import raises_naming

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import execute
from ptxconf.core.context import RunContext
from ptxconf.oracle import facts, interpret, records
from ptxconf.oracle.records import CuteLayout
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
    assert facts.register_bits(SPEC) == interpret.REGISTER_BITS


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


# --- the CuTe name letters, and what each accessor refuses -----------------------------------
# Expected values from the documents the rows cite, worked by hand: CUTLASS's MMA-atom docs
# (cute/major_conventions.yaml): in SM70_8x8x4_F32F16F16F32_NT, "NT" means A is M-major (not
# transposed) and B is N-major (transposed); a letter the document does not define is the other
# major-ness (`cute_letter_major`'s contract), so A's T is K-major and B's N is K-major;
# "128 threads (4 warps), which are collectively referred to as a warpgroup"; every register
# row's elements per register times the element width is one 32-bit register. A spec whose row is
# changed in memory (`_with`) shows each refusal; its message names the row and what is wrong.


@pytest.mark.parametrize(("operand", "letter", "major"), [
    ("A", "N", "MN"),   # "NT": A is M-major (not transposed)
    ("B", "T", "MN"),   # "NT": B is N-major (transposed)
    ("A", "T", "K"),    # the letter the document does not define for A: the other major-ness
    ("B", "N", "K"),
])
def test_cute_letter_major_reads_the_cute_name_rows(operand: str, letter: str, major: str) -> None:
    assert facts.cute_letter_major(SPEC, operand, letter) == major


def test_cute_letter_major_of_an_undefined_letter_is_the_other_of_a_k_major_row() -> None:
    """A spec whose A row states the T letter instead (T = K-major): its N is then MN-major."""
    spec = _with(SPEC, records.MajorConvention, "cute-name.A.N", spelled="T", major="K",
                 transposed=True)
    assert facts.cute_letter_major(spec, "A", "T") == "K"
    assert facts.cute_letter_major(spec, "A", "N") == "MN"
    assert facts.cute_letter_major(spec, "B", "N") == "K"   # B's row unchanged


def test_cute_letter_major_without_a_row_for_the_operand_is_refused() -> None:
    spec = Spec(SPEC.root, tuple(r for r in SPEC.rows
                                 if not (isinstance(r, records.MajorConvention)
                                         and r.convention == "cute-name" and r.operand == "B")))
    assert facts.cute_letter_major(spec, "A", "N") == "MN"
    with raises_naming(ValueError, "operand B"):
        facts.cute_letter_major(spec, "B", "T")


# --- warps and threads --------------------------------------------------------------------------


def test_warp_threads_is_an_integer_count() -> None:
    threads = facts.warp_threads(SPEC)
    assert threads == 32
    assert type(threads) is int


def test_a_warpgroup_that_does_not_split_into_its_warps_is_refused() -> None:
    three = _with(SPEC, records.ThreadGroup, "warpgroup", parts=3)   # 128 threads over 3 warps
    with raises_naming(ValueError, "128 threads", "3 warps"):
        facts.warp_threads(three)


@pytest.mark.parametrize("changes", [{"part": "quadpair"}, {"parts": None}])
def test_a_warpgroup_row_not_counted_in_warps_is_refused(changes: dict[str, object]) -> None:
    spec = _with(SPEC, records.ThreadGroup, "warpgroup", **changes)
    with raises_naming(ValueError, "cute/thread_groups:warpgroup"):
        facts.warps_per_warpgroup(spec)


# --- register width -----------------------------------------------------------------------------


def test_register_rows_that_disagree_on_the_register_width_are_refused() -> None:
    # A of m64nNk16: two 16-bit elements per register; four of them would make 64 bits
    spec = _with(SPEC, records.RegisterFragment, "k16.A.f16", elems_per_register=4)
    with raises_naming(ValueError, "[32, 64]"):
        facts.register_bits(spec)


# --- float formats -----------------------------------------------------------------------------


@pytest.mark.parametrize("changes", [{"exponent_bits": None}, {"mantissa_bits": None}])
def test_a_float_row_without_its_widths_is_refused(changes: dict[str, object]) -> None:
    spec = _with(SPEC, records.ElementType, "f16", **changes)
    with raises_naming(ValueError, "wgmma/element_types:f16"):
        facts.float_format(spec, "f16")
    assert facts.float_format(spec, "bf16") == facts.FloatFormat(8, 7, False)


# --- a CLayout that is not (thread, value) (a spec changed in memory: the bundled one is) -----


def _spec_with_d_atom_layout(text: str) -> Spec:
    rows = tuple(dataclasses.replace(r, layout=text)
                 if isinstance(r, CuteLayout) and r.id == facts.D_ATOM_ROW else r for r in SPEC.rows)
    return Spec(root=SPEC.root, rows=rows)

@pytest.mark.parametrize("text", ["(4,32,2):(1,4,128)", "Swizzle<1,4,3> o (128,8):(1,128)"],
                         ids=["rank-3", "composed"])
def test_a_d_atom_that_is_not_a_rank_2_layout_is_refused_naming_its_row(text: str) -> None:
    spec = _spec_with_d_atom_layout(text)
    row = spec.get(CuteLayout, facts.D_ATOM_ROW)
    with raises_naming(ValueError, f"{row.key}:", repr(text), "rank-2"):
        facts.warpgroup_threads(spec)


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
        if (fields is not None and name in fields
                and sys._getframe(1).f_code.co_filename not in _MACHINERY):
            seen.add((type(self).__name__, name))
        return object.__getattribute__(self, name)

    for cls in _record_classes():
        monkeypatch.setattr(cls, "__getattribute__", spy)
    return seen


def _first_of_each_family(cases: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for case in cases:
        family = case.id.split("[", 1)[0]
        if family not in seen:
            seen.add(family)
            out.append(case)
    return out


#: Providers whose cases are Z3 proofs or NVRTC compiles: by default only the first case of each
#: family is executed (every case is still loaded, which builds every claim and witness).
SWEPT = {"proofs", "assembler-witness"}


@pytest.mark.parametrize("sweep", [
    pytest.param("sample", id="sample"),
    pytest.param("full", id="full", marks=pytest.mark.slow(
        reason="executes every proof and witness case under a spy (minutes); [sample] runs by "
               "default: every case loaded, the swept providers' first case of each family run"))])
def test_every_record_field_is_read_by_a_case_provider(reads: set[tuple[str, str]],
                                                       sweep: str) -> None:
    spec = default_spec()
    ctx = RunContext(gpu="off", proof_timeout_s=30.0)
    ran = []
    for prov in REGISTRY:
        if prov.problem() is None and not prov.gpu:
            cases = list(prov.load(spec, ctx))
            if sweep == "sample" and prov.name in SWEPT:
                cases = _first_of_each_family(cases)
            for case in cases:
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
