"""wgmma register fragments: every instruction-type row, at its smallest, middle and largest N.

Properties, not golden tables: each map is a bijection onto the tile, its counts are the
register-fragment table's, D is the CuTe CLayout of the spec, and the A hypothesis agrees with
the PTX ISA's mma.sync A fragments stacked over four warps.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ptxconf.app.cli import main
from ptxconf.oracle import facts, fragments, instructions
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.fragments import (
    STATUS_DERIVED,
    STATUS_HYPOTHESIS,
    fragment_entries,
    fragment_map,
)
from ptxconf.oracle.instructions import instruction_name, resolve
from ptxconf.oracle.records import CuteLayout, InstructionType, RegisterFragment
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
ITYPES = SPEC.of(InstructionType)


def _sample_n(row: InstructionType) -> tuple[int, ...]:
    """Smallest, middle and largest valid N of a row."""
    ns, _ = instructions.valid_n_for(SPEC, row)
    return tuple(sorted({ns[0], ns[len(ns) // 2], ns[-1]}))


CASES = [(row, n, op) for row in ITYPES for n in _sample_n(row) for op in ("A", "D")]
CASE_IDS = [f"{instruction_name(row, n, SPEC)}-{op}" for row, n, op in CASES]


@pytest.mark.parametrize(("row", "n", "operand"), CASES, ids=CASE_IDS)
def test_bijection_and_counts(row: InstructionType, n: int, operand: str) -> None:
    """Every register slot holds one element, every element of the tile is held once."""
    fmap = fragment_map(instruction_name(row, n, SPEC), operand, SPEC)
    frag = SPEC.get(RegisterFragment, row.fragment_a if operand == "A" else row.fragment_d)
    cols = row.k_elems if operand == "A" else n
    assert (fmap.rows, fmap.cols) == (facts.wgmma_m(SPEC), cols)
    positions = [(i, j) for *_, i, j in fmap.entries]
    assert sorted(positions) == [(i, j) for i in range(fmap.rows) for j in range(cols)]
    slots = {(t, r, s) for t, r, s, *_ in fmap.entries}
    assert len(slots) == len(fmap.entries)
    assert fmap.registers == frag.registers_for(n)
    assert {r for _, r, _ in slots} == set(range(frag.registers_for(n)))
    assert {s for *_, s in slots} == set(range(frag.elems_per_register))
    per_thread = {t: 0 for t in range(fmap.threads)}
    for t, *_ in fmap.entries:
        per_thread[t] += 1
    assert set(per_thread.values()) == {frag.elements_for(n)}, f"{frag.key}: {frag.elements}"


@pytest.mark.parametrize(("row", "n", "operand"), CASES, ids=CASE_IDS)
def test_provenance(row: InstructionType, n: int, operand: str) -> None:
    """D is derived from the CuTe CLayout; A is the named hypothesis until a probe decides."""
    fmap = fragment_map(instruction_name(row, n, SPEC), operand, SPEC)
    prov = fmap.provenance
    if operand == "D":
        assert prov["status"] == STATUS_DERIVED and prov["hypothesis"] is None
        assert any(fragments.D_ATOM_ROW in d for d in fmap.derived_from)
    else:
        assert prov["status"] == STATUS_HYPOTHESIS
        assert prov["hypothesis"] == fragments.A_REGISTER_LAYOUT.name == "a_regs_like_d16"
    assert prov["instruction_type"] == row.key
    json.dumps(prov)


def _sm90_clayouts() -> list[CuteLayout]:
    return [r for r in SPEC.of(CuteLayout) if r.role == "CLayout" and r.atom.startswith("SM90")]


D_ROWS = [(c, it) for c in _sm90_clayouts() for it in ITYPES
          if c.codomain_mn[1] in instructions.valid_n_for(SPEC, it)[0]]


@pytest.mark.parametrize(("clayout", "row"), D_ROWS,
                         ids=[f"{c.id}-{it.id}" for c, it in D_ROWS])
def test_d_is_the_spec_clayout(clayout: CuteLayout, row: InstructionType) -> None:
    """At the N of each spec CLayout row, value v of thread t is register v//epr, sub v%epr."""
    n = clayout.codomain_mn[1]
    fmap = fragment_map(instruction_name(row, n, SPEC), "D", SPEC)
    layout = parse(clayout.layout)
    rows = clayout.codomain_mn[0]
    epr = fmap.elems_per_register
    checked = 0
    for t in range(layout[0].size()):
        for v in range(layout[1].size()):
            i, j = fmap.position(t, v // epr, v % epr)
            assert i + rows * j == layout(t, v), f"thread {t} value {v}"
            checked += 1
    assert checked > 0, clayout.layout


@pytest.mark.parametrize("k", sorted({r.k_elems for r in ITYPES}))
def test_d_same_for_every_accumulator(k: int) -> None:
    """f16, f32 and s32 accumulators put value v of a thread at one place; only packing differs."""
    maps = {}
    for row in (r for r in ITYPES if r.k_elems == k):
        n = instructions.valid_n_for(SPEC, row)[0][0]
        fmap = fragment_map(instruction_name(row, n, SPEC), "D", SPEC)
        epr = fmap.elems_per_register
        maps[row.dtype] = sorted((t, r * epr + s, i, j) for t, r, s, i, j in fmap.entries)
    assert len({json.dumps(m) for m in maps.values()}) == 1, sorted(maps)


A_ROWS = sorted({(r.fragment_a, r.id) for r in ITYPES}, key=lambda x: x[0])
A_FIRST = {}
for _frag, _rid in A_ROWS:
    A_FIRST.setdefault(_frag, SPEC.get(InstructionType, _rid))


@pytest.mark.parametrize("row", list(A_FIRST.values()), ids=list(A_FIRST))
def test_a_hypothesis_matches_mma_sync_witness(row: InstructionType) -> None:
    """a_regs_like_d16 == the PTX ISA's mma.m16n8k<K> A fragments, four warps stacked."""
    n = instructions.valid_n_for(SPEC, row)[0][0]
    fmap = fragment_map(instruction_name(row, n, SPEC), "A", SPEC)
    witness = fragments.mma_sync_a_witness(row.k_elems, SPEC.element_bits(row.atype))
    got = {(t, r, s): (i, j) for t, r, s, i, j in fmap.entries}
    diff = sorted(k for k in witness if witness[k] != got.get(k))
    assert not diff, f"first differences (thread, reg, sub): {diff[:4]}"


def test_a16_is_the_f16_accumulator_at_n16() -> None:
    """The hypothesis' defining property, read back: 16-bit A == f16 D of m64n16k16."""
    d16 = SPEC.get(InstructionType, "k16.f16.f16.f16")
    a = fragment_entries(instruction_name(d16, 8, SPEC), "A", SPEC)
    d = fragment_entries(instruction_name(d16, 16, SPEC), "D", SPEC)
    assert a == d


@pytest.mark.parametrize("row", list(A_FIRST.values()), ids=list(A_FIRST))
def test_register_elements_low_to_high_are_consecutive_k(row: InstructionType) -> None:
    """Seed 001: elements of a register, low to high, are consecutive columns of one row."""
    n = instructions.valid_n_for(SPEC, row)[0][0]
    fmap = fragment_map(instruction_name(row, n, SPEC), "A", SPEC)
    checked = 0
    for t in range(fmap.threads):
        for r in range(fmap.registers):
            cells = [fmap.position(t, r, s) for s in range(fmap.elems_per_register)]
            i0, j0 = cells[0]
            assert cells == [(i0, j0 + s) for s in range(len(cells))], (t, r, cells)
            checked += 1
    assert checked > 0, (fmap.threads, fmap.registers)


def test_warpgroup_rows_per_warp() -> None:
    """Each warp holds its own 16 rows, in D (derived) as in A (hypothesis)."""
    for op in ("A", "D"):
        fmap = fragment_map("wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16", op, SPEC)
        assert fmap.entries, op
        for t, _, _, i, _ in fmap.entries:
            assert i // 16 == t // 32, (op, t, i)


def test_satfinite_both_positions() -> None:
    """PTX writes .satfinite after the shape (syntax) and after the types (example)."""
    early = "wgmma.mma_async.sync.aligned.m64n24k32.satfinite.s32.u8.s8"
    late = "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8.satfinite"
    assert fragment_entries(early, "D") == fragment_entries(late, "D")
    assert resolve(early).itype.id == resolve(late).itype.id == "k32.s32.u8.s8"


def test_k32_f16_valid_n_comes_from_the_f32_row() -> None:
    """k32.D.f16 states no valid N; the sibling f32 accumulator row's are used, and said so."""
    res = resolve("wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2")
    assert res.valid_n == SPEC.get(RegisterFragment, "k32.D.f32").valid_n_values()
    assert "k32.D.f32" in res.valid_n_from


BAD = {
    "n12": ("wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16", "N=12"),
    "bf16_f16_acc": ("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16", "accumulates in .f32"),
    "s8_n40": ("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8", "N=40"),
    "n264": ("wgmma.mma_async.sync.aligned.m64n264k16.f32.f16.f16", "N=264"),
    "wrong_k": ("wgmma.mma_async.sync.aligned.m64n8k32.f32.f16.f16", "k16"),
    "m128": ("wgmma.mma_async.sync.aligned.m128n8k16.f32.f16.f16", "M=64"),
    "b1_no_op": ("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1", "and.popc"),
    "op_not_b1": ("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.and.popc", "b1 form only"),
    "sat_float": ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.satfinite", "satfinite"),
    "sat_twice": ("wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8.satfinite", "twice"),
    "unknown_type": ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f8.f8", "no wgmma type"),
    "leading_zero": ("wgmma.mma_async.sync.aligned.m64n016k16.f32.f16.f16", "malformed"),
    "not_wgmma": ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "malformed"),
    "empty": ("", "malformed"),
}


@pytest.mark.parametrize(("name", "needle"), BAD.values(), ids=list(BAD))
def test_bad_names_raise_one_line(name: str, needle: str) -> None:
    with pytest.raises(ValueError) as err:
        fragment_entries(name, "D")
    assert needle in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("operand", ["B", "C", "a"])
def test_bad_operand(operand: str) -> None:
    with pytest.raises(ValueError, match="only A"):
        fragment_entries("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", operand)


NAMES = [instruction_name(r, n, SPEC) for r in ITYPES for n in instructions.valid_n_for(SPEC, r)[0]]


@given(name=st.sampled_from(NAMES), operand=st.sampled_from(("A", "D")), data=st.data())
def test_position_and_owner_are_inverse(name: str, operand: str, data: st.DataObject) -> None:
    """Any valid instruction: owner(position(slot)) == slot for a drawn slot."""
    fmap = fragment_map(name, operand, SPEC)
    t, r, s, i, j = data.draw(st.sampled_from(fmap.entries))
    assert fmap.position(t, r, s) == (i, j)
    assert fmap.owner(i, j) == (t, r, s)


@pytest.mark.parametrize("operand", ["A", "D"])
def test_cli_json(capsys: pytest.CaptureFixture[str], operand: str) -> None:
    name = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"
    assert main(["oracle", "fragment", "--instr", name, "--operand", operand, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [tuple(e) for e in out["entries"]] == fragment_entries(name, operand)


def test_cli_bad_instruction_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    name = "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16"
    assert main(["oracle", "fragment", "--instr", name, "--operand", "D", "--json"]) != 0
    err = capsys.readouterr().err.strip()
    assert "N=12" in err and "\n" not in err and "Traceback" not in err
