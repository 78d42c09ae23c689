"""Checks of oracle/fragments.py that mutation testing found missing (reports/mutation/README.md).

Expected values come from the PTX ISA (the wgmma instruction syntax and its type table as
spec/wgmma/instruction_types.yaml gives it; the mma.sync m16n8k16 .f16 A fragment of 9.7.14.5:
row = groupID (+8 for a2, a3, a6, a7), col = threadID_in_group * 2 + i % 2 (+8 for a4..a7); the
wgmma D fragment figure: row = 16 * warp + groupID (+8), col = threadID_in_group * 2 + i % 2
(+8 per register pair)), from `n_ranges`' documented format ("8..32 step 8, 48..256 step 16",
"none" if empty) and from hand-made one-row tiles, never from the code under test."""

from __future__ import annotations

import dataclasses

import pytest

from ptxconf.oracle import facts, instructions
from ptxconf.oracle import fragments as F
from ptxconf.oracle.records import CuteLayout, InstructionType
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()


# --- n_ranges: the valid-N summary of the error messages ------------------------------------


@pytest.mark.parametrize("ns,text", [
    ([], "none"),
    ([8], "8"),
    ([8, 16], "8, 16"),  # two values are not a run
    ([24, 8, 16], "8..24 step 8"),  # sorted first
    (list(range(8, 257, 8)), "8..256 step 8"),  # the PTX ISA's N of .f16 / .bf16 wgmma
    ([8, 16, 24, 32, 48, 64, 80], "8..32 step 8, 48..80 step 16"),
    ([1, 8, 16, 24, 100], "1, 8..24 step 8, 100"),
    ([8, 16, 24, 40, 48], "8..24 step 8, 40, 48"),
])
def test_n_ranges_summarizes_runs_of_three_or_more(ns: list[int], text: str) -> None:
    assert instructions.n_ranges(ns) == text


# --- instruction_name ----------------------------------------------------------------------


def test_instruction_name_without_a_spec_is_the_ptx_name() -> None:
    row = SPEC.get(InstructionType, "k16.f32.f16.f16")
    assert instructions.instruction_name(row, 64) == "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"


def test_instruction_name_puts_satfinite_after_the_types() -> None:
    row = SPEC.get(InstructionType, "k32.s32.s8.s8")
    assert instructions.instruction_name(row, 8, SPEC, satfinite=True) == (
        "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite")


def test_instruction_name_of_b1_ends_in_and_popc() -> None:
    row = SPEC.get(InstructionType, "k256.s32.b1.b1")
    assert instructions.instruction_name(row, 16, SPEC) == (
        "wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc")


# --- the spec given is the one read ----------------------------------------------------------


def test_fragment_entries_read_the_spec_they_are_given() -> None:
    empty = Spec(root=SPEC.root, rows=())  # no rows: no instruction can be resolved
    with pytest.raises(KeyError):
        F.fragment_entries("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "D", empty)


def test_a_halfword_layout_refuses_k_that_is_not_whole_halfwords() -> None:
    with pytest.raises(ValueError, match=r"^K=1 of 8-bit elements is not a whole number of halfwords$"):
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


# --- check_bijection names the first fault of a hand-made 1 x 2 tile --------------------------


def _tile(*entries: F.Entry) -> F.FragmentMap:
    """A 1 x 2 tile held by 2 threads of 1 register of 1 element."""
    base = F.fragment_map(D_F32, "D", SPEC)
    return dataclasses.replace(base, instr="X", operand="A", rows=1, cols=2, threads=2, registers=1,
                               elems_per_register=1, entries=tuple(entries))


def test_the_hand_made_tile_is_a_bijection() -> None:
    F.check_bijection(_tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 1)))  # raises on a fault


@pytest.mark.parametrize("entry,slot", [
    ((2, 0, 0, 0, 1), "(thread 2, register 0, sub 0)"),
    ((1, 1, 0, 0, 1), "(thread 1, register 1, sub 0)"),
    ((1, 0, 1, 0, 1), "(thread 1, register 0, sub 1)"),
])
def test_a_slot_one_past_the_registers_is_outside(entry: F.Entry, slot: str) -> None:
    with pytest.raises(F.FragmentMapError) as info:
        F.check_bijection(_tile((0, 0, 0, 0, 0), entry))
    assert str(info.value) == f"X A: {slot} is outside 2 threads x 1 registers x 1"


@pytest.mark.parametrize("entry,where", [((1, 0, 0, 1, 0), "(1, 0)"), ((1, 0, 0, 0, 2), "(0, 2)")])
def test_an_element_one_past_the_tile_is_outside(entry: F.Entry, where: str) -> None:
    with pytest.raises(F.FragmentMapError) as info:
        F.check_bijection(_tile((0, 0, 0, 0, 0), entry))
    assert str(info.value) == f"X A: thread 1 register 0 sub 0 -> {where} is outside the 1x2 tile"


def test_a_slot_taken_twice_names_both_elements() -> None:
    with pytest.raises(F.FragmentMapError) as info:
        F.check_bijection(_tile((0, 0, 0, 0, 0), (0, 0, 0, 0, 1)))
    assert str(info.value) == "X A: thread 0 register 0 sub 0 holds both (0, 0) and (0, 1)"


def test_an_element_held_twice_names_both_slots() -> None:
    with pytest.raises(F.FragmentMapError) as info:
        F.check_bijection(_tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 0)))
    assert str(info.value) == ("X A: element (0, 0) is held by (0, 0, 0) and by "
                               "(thread 1, register 0, sub 0)")


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
    assert table.shape == (64 * 8, 5) and table.dtype.name == "int64"
    assert not table.flags.writeable
    with pytest.raises(ValueError):
        table[0, 0] = 1


def test_tv_rows_refuses_a_layout_that_is_not_thread_value() -> None:
    with pytest.raises(ValueError, match=r"^8:1 is not a rank-2 \(thread, value\) layout$"):
        F._tv_rows(F.Layout(8, 1))


@pytest.mark.parametrize("n", [0, 12])
def test_d_layout_refuses_n_off_the_atoms_8_columns(n: int) -> None:
    with pytest.raises(ValueError, match=rf"^N={n} is not a multiple of the SM90_64x8.CLayout atom's "
                                         r"8 columns$"):
        F.d_layout(SPEC, n)


@pytest.mark.parametrize("name", [
    D16, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",
    "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"])
def test_a_map_entries_are_whole_numbers(name: str) -> None:
    entries = F.fragment_map(name, "A", SPEC).entries
    assert entries and all(type(x) is int for e in entries for x in e)


def test_a_tf32_element_is_one_register_like_the_ptx_m16n8k8_fragment() -> None:
    # mma.m16n8k8 .tf32 A, lane 5 (groupID 1, threadID_in_group 1): a0 (1, 1), a1 (9, 1),
    # a2 (1, 5), a3 (9, 5); one element per register, so subelement 0 only
    fmap = F.fragment_map("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", "A", SPEC)
    assert [fmap.position(5, r) for r in range(4)] == [(1, 1), (9, 1), (1, 5), (9, 5)]
    assert fmap.position(37, 3) == (16 + 9, 5)  # warp 1
    assert fmap.elems_per_register == 1 and len(fmap.entries) == 64 * 8


def test_operand_b_is_refused_because_it_lives_in_shared_memory() -> None:
    with pytest.raises(ValueError) as info:
        F.fragment_map(D16, "B", SPEC)
    assert str(info.value) == ("operand 'B': only A (register form) and D live in registers "
                               "(B is always in shared memory)")


def test_plain_refuses_what_is_not_a_layout() -> None:
    with pytest.raises(TypeError, match=r"^expected a plain layout, got 'x'$"):
        F._plain("x")


def test_a_shared_map_is_relabelled_for_each_instruction() -> None:
    # .f16 and .bf16 inputs with an f32 accumulator share one D fragment row (k16.D.f32)
    bf16 = "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16"
    first, second = F.fragment_map(D16, "D", SPEC), F.fragment_map(bf16, "D", SPEC)
    assert (first.instr, first.instruction_type) == (D16, "wgmma/instruction_types:k16.f32.f16.f16")
    assert (second.instr, second.instruction_type) == (bf16, "wgmma/instruction_types:k16.f32.bf16.bf16")
    assert second.valid_n_from == "wgmma/register_fragments:k16.D.f32"
    assert second.entries == first.entries


@pytest.mark.parametrize("rows,cols,threads,registers,epr,entries", [
    (4, 2, 2, 1, 1, ((0, 0, 0, 0, 0), (1, 0, 0, 0, 1))),  # 2 of 8 elements held
    (1, 2, 1, 4, 2, ((0, 0, 0, 0, 0), (0, 0, 1, 0, 1))),  # 2 of 8 register slots used
    (1, 2, 4, 2, 1, ((0, 0, 0, 0, 0), (1, 0, 0, 0, 1))),
    (1, 2, 2, 1, 1, ()),  # no entry at all
])
def test_a_map_whose_counts_do_not_match_is_refused(rows: int, cols: int, threads: int,
                                                    registers: int, epr: int,
                                                    entries: tuple[F.Entry, ...]) -> None:
    fmap = dataclasses.replace(_tile(), rows=rows, cols=cols, threads=threads, registers=registers,
                               elems_per_register=epr, entries=entries)
    with pytest.raises(F.FragmentMapError) as info:
        F.check_bijection(fmap)
    assert str(info.value) == (f"X A: {len(entries)} entries for a {rows}x{cols} tile "
                               f"({rows * cols} elements) in {threads * registers * epr} register slots")


def test_an_a_map_shared_across_accumulators_takes_each_ones_valid_n_row() -> None:
    # k16 .f16 A fragments are one map for the f16 and the f32 accumulator; valid N per D row
    f16_acc = F.fragment_map("wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16", "A", SPEC)
    f32_acc = F.fragment_map(D16, "A", SPEC)
    assert f16_acc.valid_n_from == "wgmma/register_fragments:k16.D.f16"
    assert f32_acc.valid_n_from == "wgmma/register_fragments:k16.D.f32"


def test_an_accumulator_the_types_lack_names_those_they_have() -> None:
    with pytest.raises(ValueError) as info:
        F.fragment_map("wgmma.mma_async.sync.aligned.m64n8k16.s32.f16.f16", "D", SPEC)
    assert str(info.value) == ("wgmma.mma_async.sync.aligned.m64n8k16.s32.f16.f16: .f16.f16 "
                               "accumulates in .f16/.f32, not .s32")


def test_a_row_without_valid_n_takes_them_from_its_one_sibling() -> None:
    # k32 .e4m3 with an f16 accumulator: the table's valid-N cell sits in the f32 row only
    row = SPEC.get(InstructionType, "k32.f16.e4m3.e4m3")
    ns, source = instructions.valid_n_for(SPEC, row)
    assert ns == tuple(range(8, 257, 8))
    assert source == "wgmma/register_fragments:k32.D.f16 states none; taken from k32.D.f32"


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
    with pytest.raises(ValueError) as info:
        facts.warpgroup_threads(spec)
    assert str(info.value) == f"{row.key}: {text!r} is not a rank-2 (thread, value) layout"


# --- the maps as tables (the NumPy builders) ----------------------------------------------------

F32_N8 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"


def test_the_d_map_is_sorted_and_starts_as_the_d_figure_says() -> None:
    # wgmma D, f32, N = 8: thread 0 (warp 0, groupID 0, threadID_in_group 0) holds d0 (0, 0),
    # d1 (0, 1), d2 (8, 0), d3 (8, 1), one element a register; thread 1 the next two columns
    fmap = F.fragment_map(F32_N8, "D", SPEC)
    assert fmap.entries[:6] == ((0, 0, 0, 0, 0), (0, 1, 0, 0, 1), (0, 2, 0, 8, 0), (0, 3, 0, 8, 1),
                                (1, 0, 0, 0, 2), (1, 1, 0, 0, 3))
    assert list(fmap.entries) == sorted(fmap.entries) and len(fmap.entries) == 64 * 8
    assert fmap.table.tolist() == [list(e) for e in fmap.entries]


def test_the_f16_a_map_is_sorted_and_starts_as_mma_sync_says() -> None:
    # k16 .f16 A, two halves a register: thread 0 holds a0, a1 = (0, 0), (0, 1); a2, a3 = (8, 0),
    # (8, 1); a4, a5 = (0, 8), (0, 9); a6, a7 = (8, 8), (8, 9)  (mma.sync m16n8k16's A figure)
    fmap = F.fragment_map(D16, "A", SPEC)
    assert fmap.entries[:8] == ((0, 0, 0, 0, 0), (0, 0, 1, 0, 1), (0, 1, 0, 8, 0), (0, 1, 1, 8, 1),
                                (0, 2, 0, 0, 8), (0, 2, 1, 0, 9), (0, 3, 0, 8, 8), (0, 3, 1, 8, 9))
    assert list(fmap.entries) == sorted(fmap.entries) and len(fmap.entries) == 64 * 16
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
    with pytest.raises(F.FragmentMapError) as info:
        F.fragment_map(name, "A", Spec(SPEC.root, SPEC.rows))
    assert str(info.value) == (f"{name}: thread 1 register 0 half 0 lands on halfword column 1, "
                               "which is not half 0 of a 32-bit element")


def test_a_map_made_by_hand_gets_a_read_only_table_of_its_entries() -> None:
    fmap = _tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 1))
    assert fmap.table.tolist() == [[0, 0, 0, 0, 0], [1, 0, 0, 0, 1]]
    assert fmap.table.dtype.name == "int64" and not fmap.table.flags.writeable


def test_a_fragment_table_holds_whole_numbers() -> None:
    with pytest.raises(TypeError, match=r"^a fragment table holds whole numbers, got \['int64', "
                                        r"'float64', 'int64', 'int64', 'int64'\]$"):
        F._table([F.np.array([0]), F.np.array([0.5]), F.np.array([0]), F.np.array([0]),
                  F.np.array([0])])
