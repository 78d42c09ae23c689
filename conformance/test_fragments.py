"""wgmma register fragments (oracle/fragments.py): every instruction-type row, at its smallest,
middle and largest N; then the maps' records, positions and tables worked by hand, and what a map
refuses.

Properties, not golden tables: each map is a bijection onto the tile, its counts are the
register-fragment table's, D is the CuTe CLayout of the spec, and the A hypothesis agrees with
the PTX ISA's mma.sync A fragments stacked over four warps.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from case_outcomes import raises_naming
from hypothesis import given
from hypothesis import strategies as st
from scratch_spec import replaced_row

from ptxconf.app.cli import main
from ptxconf.oracle import facts, fragments, instructions
from ptxconf.oracle import fragments as F
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.canonical import crd2idx_array
from ptxconf.oracle.fragments import (
    STATUS_DERIVED,
    STATUS_HYPOTHESIS,
    fragment_entries,
    fragment_map,
)
from ptxconf.oracle.instructions import instruction_name, resolve
from ptxconf.oracle.records import CuteLayout, InstructionType, RegisterFragment
from ptxconf.oracle.spec import Spec, default_spec

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
    per_thread = dict.fromkeys(range(fmap.threads), 0)
    for t, *_ in fmap.entries:
        per_thread[t] += 1
    assert set(per_thread.values()) == {frag.elements_for(n)}, f"{frag.key}: {frag.elements}"


@pytest.mark.parametrize(("row", "n", "operand"), CASES, ids=CASE_IDS)
def test_provenance(row: InstructionType, n: int, operand: str) -> None:
    """D is derived from the CuTe CLayout; A is the named hypothesis until a probe decides."""
    fmap = fragment_map(instruction_name(row, n, SPEC), operand, SPEC)
    prov = fmap.provenance
    if operand == "D":
        assert prov["status"] == STATUS_DERIVED
        assert prov["hypothesis"] is None
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
    # layout(t, v) at every (thread, value) at once (the layout algebra's crd2idx over arrays)
    t_idx, v_idx = np.meshgrid(np.arange(layout[0].size()), np.arange(layout[1].size()), indexing="ij")
    want = crd2idx_array((t_idx, v_idx), layout.shape, layout.stride).tolist()
    checked = 0
    for t, values in enumerate(want):
        for v, offset in enumerate(values):
            i, j = fmap.position(t, v // epr, v % epr)
            assert i + rows * j == offset, f"thread {t} value {v}"
            checked += 1
    assert checked > 0, clayout.layout
    assert want[1][1] == layout(1, 1)


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
    with pytest.raises(ValueError, match=re.escape(needle)) as err:
        fragment_entries(name, "D")
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


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
    assert "N=12" in err
    assert "\n" not in err
    assert "Traceback" not in err


# --- worked by hand from the PTX ISA ------------------------------------------------------------
# The mma.sync m16n8k16 .f16 A fragment of 9.7.14.5: row = groupID (+8 for a2, a3, a6, a7),
# col = threadID_in_group * 2 + i % 2 (+8 for a4..a7); the wgmma D fragment figure: row =
# 16 * warp + groupID (+8), col = threadID_in_group * 2 + i % 2 (+8 per register pair); never
# values read from the code under test. (check_bijection's faults: test_fragment_bijection.py.)

# --- the spec given is the one read ----------------------------------------------------------


def test_fragment_entries_read_the_spec_they_are_given() -> None:
    empty = Spec(root=SPEC.root, rows=())  # no rows: no instruction can be resolved
    with pytest.raises(KeyError):
        F.fragment_entries("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "D", empty)

def test_a_halfword_layout_refuses_k_that_is_not_whole_halfwords() -> None:
    with raises_naming(ValueError, "K=1", "8-bit"):
        F.a_halfword_layout(SPEC, 1, 8)

# --- positions: the PTX figures --------------------------------------------------------------

D_F32 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"

def test_d_position_defaults_to_the_first_subelement() -> None:
    fmap = F.fragment_map(D_F32, "D", SPEC)
    # lane 5 of warp 0: groupID 1, threadID_in_group 1 -> d0 (1, 2), d1 (1, 3), d2 (9, 2)
    assert fmap.position(5, 0) == (1, 2)
    assert fmap.position(5, 1) == (1, 3)
    assert fmap.position(5, 2) == (9, 2)
    # thread 37: warp 1, lane 5
    assert fmap.position(37, 0) == (17, 2)

def test_mma_sync_witness_of_one_warp_is_the_ptx_m16n8k16_a_fragment() -> None:
    w = F.mma_sync_a_witness(16, 16, warps=1, spec=SPEC)
    assert len(w) == 32 * 4 * 2  # 32 lanes, 4 registers of two .f16
    lane5 = {key: w[key] for key in w if key[0] == 5}
    assert lane5 == {(5, 0, 0): (1, 2), (5, 0, 1): (1, 3), (5, 1, 0): (9, 2), (5, 1, 1): (9, 3),
                     (5, 2, 0): (1, 10), (5, 2, 1): (1, 11), (5, 3, 0): (9, 10), (5, 3, 1): (9, 11)}
    assert all(type(x) is int for pos in w.values() for x in pos)

def test_mma_sync_witness_stacks_the_warps_of_a_warpgroup() -> None:
    w = F.mma_sync_a_witness(16, 16, spec=SPEC)
    assert len(w) == 4 * 32 * 4 * 2
    assert w[(37, 3, 1)] == (16 + 9, 11)  # warp 1, lane 5, a7

# --- the maps' records: the CuTe CLayout row and the register-fragment tables ---------------

D16 = "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16"

#: spec/cute/mma_atoms.yaml SM90_64x8.CLayout "((4,8,4),(2,2)):((128,1,16),(64,8))", its value
#: mode extended by the N/8 = 2 repeats of the atom's whole 64 x 8 codomain (stride 512)
LAYOUT_N16 = "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"

def test_the_d_map_record_of_an_f32_accumulator() -> None:
    fmap = F.fragment_map(D16, "D", SPEC)
    assert (fmap.instr, fmap.operand, fmap.rows, fmap.cols, fmap.threads) == (D16, "D", 64, 16, 128)
    assert (fmap.registers, fmap.elems_per_register) == (8, 1)  # f32: N/2 registers of one
    assert (fmap.layout, fmap.layout_unit, fmap.status, fmap.hypothesis) == (
        LAYOUT_N16, "elements", "derived", None)
    assert (fmap.instruction_type, fmap.fragment, fmap.valid_n_from) == (
        "wgmma/instruction_types:k16.f32.f16.f16", "wgmma/register_fragments:k16.D.f32",
        "wgmma/register_fragments:k16.D.f32")
    assert fmap.derived_from == (
        "cute/mma_atoms:SM90_64x8.CLayout ((4,8,4),(2,2)):((128,1,16),(64,8))",
        f"logical_product with (2):1 -> {LAYOUT_N16}",
        "wgmma/register_fragments:k16.D.f32: 1 element(s) per register, low to high")

def test_an_integer_accumulator_says_the_clayout_is_assumed() -> None:
    fmap = F.fragment_map("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8", "D", SPEC)
    assert len(fmap.derived_from) == 4
    assert fmap.derived_from[3] == ("s32 accumulator: same CLayout assumed (the CuTe text shows f16 "
                                    "and calls f32 a trivial extension; seed 001 gives only counts)")
    f16 = F.fragment_map("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16", "D", SPEC)
    assert len(f16.derived_from) == 3

def test_the_a_map_record_of_f16_is_the_hypothesis() -> None:
    fmap = F.fragment_map(D16, "A", SPEC)
    assert (fmap.instr, fmap.operand, fmap.rows, fmap.cols, fmap.threads) == (D16, "A", 64, 16, 128)
    assert (fmap.registers, fmap.elems_per_register) == (4, 2)  # 64 x 16 f16 over 128 threads
    assert (fmap.layout, fmap.layout_unit) == (LAYOUT_N16, "16-bit halves")
    assert (fmap.status, fmap.hypothesis) == ("hypothesis (unknown until probed)", "a_regs_like_d16")
    assert (fmap.instruction_type, fmap.fragment, fmap.valid_n_from) == (
        "wgmma/instruction_types:k16.f32.f16.f16", "wgmma/register_fragments:k16.A.f16",
        "wgmma/register_fragments:k16.D.f32")
    assert fmap.derived_from[1:] == (
        f"halfword map = D map for N=16: {LAYOUT_N16}",
        "wgmma/register_fragments:k16.A.f16: 2 element(s) of 16 bits per register, low to high",
        "witness: PTX ISA mma.sync A fragments stacked over 4 warps (mma_sync_a_witness)")

def test_fragment_array_without_a_spec_is_a_read_only_table() -> None:
    table = F.fragment_array("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "D")
    assert table.shape == (64 * 8, 5)
    assert table.dtype.name == "int64"
    assert not table.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        table[0, 0] = 1

def test_an_a_register_count_written_in_n_is_read_at_the_instructions_n() -> None:
    # the bundled A rows state a constant ("four .f16x2 registers"); a row written in N, as the
    # accumulators are, is read at the instruction's N: N/16 is 4 registers at N = 64 (the
    # 64x16 A tile is 128 threads x 4 registers x 2 elements) and 8 at N = 128, twice the
    # slots the tile has, which the bijection check refuses
    spec = replaced_row(default_spec(), "wgmma/register_fragments:k16.A.f16", registers="N/16")
    assert F.fragment_map("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "A", spec
                          ).registers == 4
    with pytest.raises(F.FragmentMapError):
        F.fragment_map("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "A", spec)


def test_tv_rows_refuses_a_layout_that_is_not_thread_value() -> None:
    with raises_naming(ValueError, "8:1", "rank-2"):
        F._tv_rows(F.Layout(8, 1))

@pytest.mark.parametrize("n", [0, 12])
def test_d_layout_refuses_n_off_the_atoms_8_columns(n: int) -> None:
    with raises_naming(ValueError, f"N={n}", "SM90_64x8.CLayout", "8 columns"):
        F.d_layout(SPEC, n)

@pytest.mark.parametrize("name", [
    D16, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",
    "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"])
def test_a_map_entries_are_whole_numbers(name: str) -> None:
    entries = F.fragment_map(name, "A", SPEC).entries
    assert entries
    assert all(type(x) is int for e in entries for x in e)

def test_a_tf32_element_is_one_register_like_the_ptx_m16n8k8_fragment() -> None:
    # mma.m16n8k8 .tf32 A, lane 5 (groupID 1, threadID_in_group 1): a0 (1, 1), a1 (9, 1),
    # a2 (1, 5), a3 (9, 5); one element per register, so subelement 0 only
    fmap = F.fragment_map("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", "A", SPEC)
    assert [fmap.position(5, r) for r in range(4)] == [(1, 1), (9, 1), (1, 5), (9, 5)]
    assert fmap.position(37, 3) == (16 + 9, 5)  # warp 1
    assert fmap.elems_per_register == 1
    assert len(fmap.entries) == 64 * 8

def test_operand_b_is_refused_because_it_lives_in_shared_memory() -> None:
    with raises_naming(ValueError, "operand 'B'"):
        F.fragment_map(D16, "B", SPEC)

def test_plain_refuses_what_is_not_a_layout() -> None:
    with raises_naming(TypeError, "'x'"):
        F._plain("x")

def test_a_shared_map_is_relabelled_for_each_instruction() -> None:
    # .f16 and .bf16 inputs with an f32 accumulator share one D fragment row (k16.D.f32)
    bf16 = "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16"
    first, second = F.fragment_map(D16, "D", SPEC), F.fragment_map(bf16, "D", SPEC)
    assert (first.instr, first.instruction_type) == (D16, "wgmma/instruction_types:k16.f32.f16.f16")
    assert (second.instr, second.instruction_type) == (bf16, "wgmma/instruction_types:k16.f32.bf16.bf16")
    assert second.valid_n_from == "wgmma/register_fragments:k16.D.f32"
    assert second.entries == first.entries

def test_an_a_map_shared_across_accumulators_takes_each_ones_valid_n_row() -> None:
    # k16 .f16 A fragments are one map for the f16 and the f32 accumulator; valid N per D row
    f16_acc = F.fragment_map("wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16", "A", SPEC)
    f32_acc = F.fragment_map(D16, "A", SPEC)
    assert f16_acc.valid_n_from == "wgmma/register_fragments:k16.D.f16"
    assert f32_acc.valid_n_from == "wgmma/register_fragments:k16.D.f32"

def test_an_accumulator_the_types_lack_names_those_they_have() -> None:
    with raises_naming(ValueError, "wgmma.mma_async.sync.aligned.m64n8k16.s32.f16.f16:", ".f16/.f32", ".s32"):
        F.fragment_map("wgmma.mma_async.sync.aligned.m64n8k16.s32.f16.f16", "D", SPEC)

# --- the maps as tables (the NumPy builders) ----------------------------------------------------

F32_N8 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"

def test_the_d_map_is_sorted_and_starts_as_the_d_figure_says() -> None:
    # wgmma D, f32, N = 8: thread 0 (warp 0, groupID 0, threadID_in_group 0) holds d0 (0, 0),
    # d1 (0, 1), d2 (8, 0), d3 (8, 1), one element a register; thread 1 the next two columns
    fmap = F.fragment_map(F32_N8, "D", SPEC)
    assert fmap.entries[:6] == ((0, 0, 0, 0, 0), (0, 1, 0, 0, 1), (0, 2, 0, 8, 0), (0, 3, 0, 8, 1),
                                (1, 0, 0, 0, 2), (1, 1, 0, 0, 3))
    assert list(fmap.entries) == sorted(fmap.entries)
    assert len(fmap.entries) == 64 * 8
    assert fmap.table.tolist() == [list(e) for e in fmap.entries]

def test_the_f16_a_map_is_sorted_and_starts_as_mma_sync_says() -> None:
    # k16 .f16 A, two halves a register: thread 0 holds a0, a1 = (0, 0), (0, 1); a2, a3 = (8, 0),
    # (8, 1); a4, a5 = (0, 8), (0, 9); a6, a7 = (8, 8), (8, 9)  (mma.sync m16n8k16's A figure)
    fmap = F.fragment_map(D16, "A", SPEC)
    assert fmap.entries[:8] == ((0, 0, 0, 0, 0), (0, 0, 1, 0, 1), (0, 1, 0, 8, 0), (0, 1, 1, 8, 1),
                                (0, 2, 0, 0, 8), (0, 2, 1, 0, 9), (0, 3, 0, 8, 8), (0, 3, 1, 8, 9))
    assert list(fmap.entries) == sorted(fmap.entries)
    assert len(fmap.entries) == 64 * 16
    assert fmap.table.tolist() == [list(e) for e in fmap.entries]

def test_an_instructions_d_and_a_maps_are_two_maps() -> None:
    spec = Spec(SPEC.root, SPEC.rows)  # a fresh memo
    a = F.fragment_map(D16, "A", spec)
    d = F.fragment_map(D16, "D", spec)
    assert (a.operand, a.cols, d.operand, d.cols) == ("A", 16, "D", 16)
    res = instructions.resolve(D16, spec)
    assert F._map_key(res, "D", spec) == ("D", "wgmma/register_fragments:k16.D.f32", 16, "f32")
    assert F._map_key(res, "A", spec) == ("A", "wgmma/register_fragments:k16.A.f16", 16, 16, 16)

def test_a_tf32_halfword_off_its_elements_halves_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # a tf32 element is two halfwords of one register: half h of a register must land on a
    # halfword column c with c % 2 == h % 2. A (thread, half) layout (2,2):(64,64) puts thread 0's
    # halves on columns 0 and 1 (fine) and thread 1's half 0 on column 1 (64 // 64): refused there.
    monkeypatch.setattr(F, "a_halfword_layout", lambda spec, k, bits: F.Layout((2, 2), (64, 64)))
    name = "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32"
    with raises_naming(F.FragmentMapError, f"{name}:", "thread 1 register 0 half 0", "column 1", "half 0"):
        F.fragment_map(name, "A", Spec(SPEC.root, SPEC.rows))

def test_a_fragment_table_holds_whole_numbers() -> None:
    with raises_naming(TypeError, "['int64', 'float64', 'int64', 'int64', 'int64']"):
        F._table([F.np.array([0]), F.np.array([0.5]), F.np.array([0]), F.np.array([0]),
                  F.np.array([0])])
