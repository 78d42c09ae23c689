"""Outcomes of the CuTe, wmma, fragment, descriptor and element-type checks (oracle/checks/) that
mutation testing found unasserted (reports/mutation/README.md).

The cases are built inside each test from the module's `cases(spec)` (built at collection time,
a mutant of case construction would never run) and executed with `ptxconf.core.cases.execute`; the
whole outcome is asserted: status, code, message and the fields the report shows a person.
A failing outcome comes from a scratch copy of the bundled spec with one row's text edited.

Expected values are worked by hand from:

* the spec rows quoted at each test (spec/cute/*.yaml, spec/wgmma/*.yaml, spec/wmma/*.yaml);
* `ptxconf.core.cases.expect_equal`'s message, `<what>: <source> says <documented>, <witness> gives
  <derived>`, with fields documented, derived, source and witness; a row's key is
  `<file stem>:<id>`;
* CuTe's MMA atom naming (`SM90_64x128x16_F16F16F16F16_TN`: arch, MxNxK, the D, A, B, C types,
  the A and B letters) and CuTe's C++ spelling of a layout (`Shape<_8>` is a rank-1 tuple,
  printed `(_8)`, as oracle/algebra/notation.py parses it);
* the PTX ISA: .f16 is 16 bits, .f32 32; the .e4m3 name states a float; wgmma's warpgroup is
  128 threads of 4 warps; the wmma stride counts elements.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from case_outcomes import expect_mismatch as _mismatch
from case_outcomes import expect_outcome as _is
from case_outcomes import run_case as _run
from scratch_spec import edited_spec

from ptxconf.core.results import Result, Status
from ptxconf.oracle.algebra.layout import Layout
from ptxconf.oracle.algebra.notation import parse
from ptxconf.oracle.checks import (
    cute_atoms,
    cute_statements,
    descriptor_checks,
    element_witness,
    fragments_checks,
    wmma_checks,
)
from ptxconf.oracle.checks.cute_names import atom_k, cpp_layout
from ptxconf.oracle.records import CuteLayout
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()

ATOMS = "cute/mma_atoms"
GROUPS = "cute/thread_groups"
EXAMPLE = "wmma/alignment_examples:wmma.load.a.sync.aligned.row.m16n16k16.f16"
RULES = "wmma/storage_rules"


# --- cute_names: what an atom name and a C++ layout spell ---------------------------------------

def test_atom_k_is_the_k_of_the_name_and_0_when_the_name_does_not_read() -> None:
    """SM70_8x8x4_... has K 4, SM90_64x128x16_... K 16; a name without MxNxK gives 0."""
    thr = SPEC.get(CuteLayout, "SM70_8x8x4.ThrID")
    assert atom_k(thr) == 4
    assert atom_k(SPEC.get(CuteLayout, "SM90_64x128.CLayout")) == 16
    assert atom_k(dataclasses.replace(thr, atom="SM70_QuadPair")) == 0


def test_cpp_layout_reads_the_documents_spellings() -> None:
    """mma_atoms.yaml's layout_cpp texts: nested Shape<> modes and the bare Layout<_128, _1>."""
    assert cpp_layout("Layout<Shape <_8,_4>, Stride<_1,_8>>") == Layout((8, 4), (1, 8))
    assert cpp_layout("Layout<Shape <Shape <_4,_2>,_4>, Stride<Stride<_8,_4>,_1>>") == \
        Layout(((4, 2), 4), ((8, 4), 1))
    assert cpp_layout("Layout<_128, _1>") == Layout(128, 1)


def test_a_one_mode_shape_is_a_rank_1_tuple_as_cute_spells_it() -> None:
    """Layout<Shape <_128>, Stride<_1>> is (128):(1), as notation.parse reads the same text."""
    text = "Layout<Shape <_128>, Stride<_1>>"
    assert parse(text) == Layout((128,), (1,))
    assert cpp_layout(text) == parse(text)


# --- element_witness ------------------------------------------------------------------------------

def test_wide_patterns_hold_the_extreme_mantissas_under_every_exponent() -> None:
    """32 bits: 4096 tops (the 12 bits under and at the sign) times 0, 1, 1<<19, (1<<20)-1."""
    got = element_witness.patterns(32)
    assert got.size == 4096 * 4
    assert [int(x) for x in got[:4]] == [0, 1, 1 << 19, (1 << 20) - 1]
    assert int(got.max()) == 0xFFFFFFFF
    assert got.dtype == np.uint64


def test_an_fp8_row_whose_kind_is_not_float_fails_against_its_name(tmp_path: Path) -> None:
    """element_types.yaml e4m3 edited to `kind: signed`; the name .e4m3 states a float."""
    spec = edited_spec(tmp_path, "wgmma/element_types.yaml", "kind: float\n    exponent_bits: 4",
                    "kind: signed\n    exponent_bits: 4")
    res = _run(element_witness.cases(spec), "element_type.name[wgmma/element_types:e4m3]")
    _mismatch(res, "e4m3: kind", "wgmma/element_types:e4m3", "signed", "its name", "float")


# --- cute_statements ------------------------------------------------------------------------------

def test_the_quadpair_alias_names_the_8_thread_group() -> None:
    """ThrID (4,2):(1,16) is 8 threads; SM70_QuadPair names thread_groups' quadpair, 8 threads."""
    res = _run(cute_atoms.cases(SPEC), f"cute.alias[{ATOMS}:SM70_8x8x4.ThrID]")
    _is(res, Status.PASS, "ok", "SM70_QuadPair: (4,2):(1,16)")


def test_the_32b_alias_names_an_8x8_c_of_f32_values() -> None:
    """SM70_8x8_32b: codomain [8, 8]; the D type of F32F16F16F32 is F32, 32 bits."""
    res = _run(cute_atoms.cases(SPEC), f"cute.alias[{ATOMS}:SM70_8x8x4.CLayout.f32]")
    _is(res, Status.PASS, "ok", "SM70_8x8_32b: ((2,2,2),(2,2,2)):((1,16,4),(8,2,32))")


def test_an_a_layout_alias_reads_its_bits_from_the_a_type(tmp_path: Path) -> None:
    """The NT ALayout's alias edited to SM70_8x4_32b: A of F32F16F16F32 is F16, 16 bits."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "alias: SM70_8x4_Col\n    role: ALayout",
                    "alias: SM70_8x4_32b\n    role: ALayout")
    res = _run(cute_atoms.cases(spec), f"cute.alias[{ATOMS}:SM70_8x8x4.ALayout.NT]")
    _mismatch(res, "value bits of SM70_8x4_32b", f"{ATOMS}:SM70_8x8x4.ALayout.NT", 32,
              "the types of SM70_8x8x4_F32F16F16F32_NT", 16)


def test_the_variants_n_are_repeats_of_8_and_valid_n_at_k16() -> None:
    """SM90_64x8.CLayout: N = [16, 32, 64, 128, 256], codomain N 8; k16 D rows take N 8..256."""
    res = _run(cute_atoms.cases(SPEC), f"cute.variants_n[{ATOMS}:SM90_64x8.CLayout]")
    _is(res, Status.PASS, "ok",
        "N = [16, 32, 64, 128, 256]: repeats of 8, valid for k16.D.f16, k16.D.f32")


def test_a_variant_n_past_256_disagrees_with_the_fragment_table(tmp_path: Path) -> None:
    """N = 264 added: a repeat of 8, but k16.D.f16's valid N end at 8 * 32 = 256."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "variants_n_elems: [16, 32, 64, 128, 256]",
                    "variants_n_elems: [16, 32, 64, 128, 256, 264]")
    res = _run(cute_atoms.cases(spec), f"cute.variants_n[{ATOMS}:SM90_64x8.CLayout]")
    frag = "wgmma/register_fragments:k16.D.f16"
    _is(res, Status.DISCREPANCY, "documents_disagree",
        f"{ATOMS}:SM90_64x8.CLayout: the document's N=264 is not a valid N of {frag}",
        n=264, fragment=frag)


@pytest.mark.parametrize(("group", "message"), [
    ("quadpair", "quadpair: 8 threads"),
    ("warp", "warp: 32 threads (4 x quadpair)"),
    ("warpgroup", "warpgroup: 128 threads (4 x warp)"),
])
def test_thread_groups_add_up(group: str, message: str) -> None:
    """thread_groups.yaml: quadpair 8 (SM70 ThrID), warp 4 x quadpair = 32, warpgroup 4 x warp."""
    res = _run(cute_atoms.cases(SPEC), f"cute.thread_group[{GROUPS}:{group}]")
    _is(res, Status.PASS, "ok", message)


def test_the_quadpair_is_the_thrid_its_alias_names_whatever_the_row_order() -> None:
    """Rows reversed: the SM90 ThrID (128 threads) comes first, yet only SM70_QuadPair counts."""
    rows = tuple(reversed(SPEC.of(CuteLayout)))
    assert [r.id for r in rows if r.role == "ThrID"] == ["SM90_64x8.ThrID", "SM70_8x8x4.ThrID"]
    res = _run(cute_statements.cases(SPEC, rows), f"cute.thread_group[{GROUPS}:quadpair]")
    _is(res, Status.PASS, "ok", "quadpair: 8 threads")


def test_a_quadpair_of_16_threads_fails_against_its_thrid(tmp_path: Path) -> None:
    """quadpair edited to 16 threads; SM70_8x8x4.ThrID (4,2):(1,16) has 8."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 8, tile: 8x8x4",
                    "threads: 16, tile: 8x8x4")
    res = _run(cute_atoms.cases(spec), f"cute.thread_group[{GROUPS}:quadpair]")
    _mismatch(res, "threads of a quadpair", f"{GROUPS}:quadpair", 16,
              f"{ATOMS}:SM70_8x8x4.ThrID", 8)


# --- cute_atoms: the SM90 CLayout against the accumulator fragment -------------------------------

def test_the_64x8_clayout_holds_the_k16_accumulators_4_values() -> None:
    """(T128,V4): 4 values per thread; k16.D.f16 has N/2 = 4 elements at N = 8."""
    res = _run(cute_atoms.cases(SPEC),
               f"cute.clayout_vs_fragment[{ATOMS}:SM90_64x8.CLayout~wgmma/register_fragments:k16.D.f16]")
    _is(res, Status.PASS, "ok", "N=8: 4 values per thread == N/2 of k16.D.f16")


def test_a_codomain_that_is_not_threads_x_values_fails(tmp_path: Path) -> None:
    """SM90_64x8.CLayout's codomain edited to [64, 16]: 1024 cells, the layout maps 128 x 4."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "codomain_mn: [64, 8]", "codomain_mn: [64, 16]")
    res = _run(cute_atoms.cases(spec),
               f"cute.clayout_vs_fragment[{ATOMS}:SM90_64x8.CLayout~wgmma/register_fragments:k16.D.f16]")
    _mismatch(res, "threads x values of SM90_64x8.CLayout", f"{ATOMS}:SM90_64x8.CLayout", 1024,
              "its 64x16 codomain", 512)


# --- wmma_checks: the alignment example ------------------------------------------------------------

def _example(spec: Spec) -> Result:
    return _run(wmma_checks.cases(spec), f"wmma.alignment_example[{EXAMPLE}]")


def test_the_alignment_example_adds_up() -> None:
    """8 .f16x2 registers = 32 bytes; a stride of f16 elements is 2 bytes each; both multiples 32."""
    _is(_example(SPEC), Status.PASS, "ok", "p % 32 == 0 and 2*s % 32 == 0")


def test_a_stride_in_bytes_makes_the_examples_2_bytes_per_unit_wrong(tmp_path: Path) -> None:
    """storage_rules' stride_unit edited to bytes: one byte per stride unit, the example says 2."""
    spec = edited_spec(tmp_path, "wmma/storage_rules.yaml", "stride_unit: elems}", "stride_unit: bytes}")
    _mismatch(_example(spec), "stride element bytes", EXAMPLE, 2,
              f"{RULES}:stride_unit: the stride counts bytes (f16)", 1)


@pytest.mark.parametrize(("column", "what"), [("pointer_multiple_bytes", "pointer multiple"),
                                              ("stride_multiple_bytes", "stride multiple")])
def test_a_multiple_other_than_the_fragment_bytes_fails(tmp_path: Path, column: str,
                                                        what: str) -> None:
    """The example's multiple edited to 64; the alignment rule ties it to 32 fragment bytes."""
    spec = edited_spec(tmp_path, "wmma/alignment_examples.yaml", f"{column}: 32", f"{column}: 64")
    _mismatch(_example(spec), what, EXAMPLE, 64, f"{RULES}:leading_dimension_alignment", 32)


# --- fragments_checks ------------------------------------------------------------------------------

def test_a_fragment_of_more_elements_than_its_tile_share_fails(tmp_path: Path) -> None:
    """k16.A.f16 edited to 8 registers, a0..a15, 16 elements; 64 x 16 over 128 threads is 8."""
    spec = edited_spec(tmp_path, "wgmma/register_fragments.yaml",
                    'registers: "4", register_type: f16x2, elems_per_register: 2, last_index: "7", '
                    'elements: "8"',
                    'registers: "8", register_type: f16x2, elems_per_register: 2, last_index: "15", '
                    'elements: "16"')
    res = _run(fragments_checks.cases(spec), "fragment.counts[wgmma/register_fragments:k16.A.f16]")
    _mismatch(res, "elements per thread (N=8)", "wgmma/register_fragments:k16.A.f16", 16,
              "64x16 tile over 128 threads", 8)


def test_k_major_only_with_imm_trans_spelled_fails(tmp_path: Path) -> None:
    """k16.f16.f16.f16 edited to k_major_only: true; imm-trans-a/b list f16, so it is not."""
    spec = edited_spec(tmp_path, "wgmma/instruction_types.yaml",
                    "dtype: f16, atype: f16, btype: f16, k_major_only: false",
                    "dtype: f16, atype: f16, btype: f16, k_major_only: true")
    res = _run(fragments_checks.cases(spec), "instruction.operands[wgmma/instruction_types:k16.f16.f16.f16]")
    _mismatch(res, "k_major_only", "wgmma/instruction_types:k16.f16.f16.f16", True,
              "wgmma/instruction_operands imm-trans-a/b (no imm-trans: K-major only)", False)


def test_imm_trans_a_lists_the_types_imm_trans_b_lists() -> None:
    """instruction_operands.yaml: imm-trans-a and imm-trans-b both [f16, bf16]."""
    res = _run(fragments_checks.cases(SPEC), "instruction.immediate[wgmma/instruction_operands:imm-trans-a]")
    _is(res, Status.PASS, "ok", "imm-trans-a: f16, bf16")


def test_b_lives_in_shared_memory_only() -> None:
    """operand_storage.yaml B: registers false, shared_memory true; no register-fragment row is B."""
    res = _run(fragments_checks.cases(SPEC), "operand.storage[wgmma/operand_storage:B]")
    _is(res, Status.PASS, "ok", "B: registers False (0 fragment rows)")


# --- descriptor_checks -----------------------------------------------------------------------------

def test_the_base_offset_mask_fills_the_3_bit_field() -> None:
    """base_offset.yaml mask 7; matrix_descriptor.yaml base_offset: bits 51-49, width 3."""
    res = _run(descriptor_checks.cases(SPEC), "base_offset.field_width[wgmma/base_offset:base_offset.128B]")
    _is(res, Status.PASS, "ok", "mask 7 fills the 3-bit field")


# --- seed-3 sample survivors ---------------------------------------------------------------------

def test_cpp_layout_reads_a_trailing_semicolon() -> None:
    """The document's `using ThrID = Layout<_128, _1>;`: the statement's ';' ends the text."""
    assert cpp_layout("Layout<_128, _1>;") == Layout(128, 1)
    assert cpp_layout("Layout<Shape <_8,_4>, Stride<_1,_8>> ; ") == Layout((8, 4), (1, 8))


def test_a_value_stride_of_neither_mode_fails(tmp_path: Path) -> None:
    """SM70_8x8x4.BLayout.TN edited to (8,4):(1,2): value stride 2 is neither 1 (MN) nor the 8
    rows of its 8x4 codomain (K)."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", 'role: BLayout\n    layout: "(8,4):(1,8)"',
                       'role: BLayout\n    layout: "(8,4):(1,2)"')
    key = f"{ATOMS}:SM70_8x8x4.BLayout.TN"
    _is(_run(cute_atoms.cases(spec), f"cute.layout_major[{key}]"), Status.FAIL, "mismatch",
        f"{key}: value stride 2 runs along neither mode")


def test_a_group_of_0_parts_has_a_tile_of_0_rows(tmp_path: Path) -> None:
    """warp edited to 0 threads of 0 quadpairs: 0 x 8 = 0 threads agree; its 16x16x4 tile is
    (16 * 16, 4) = (256, 4), 0 quadpair tiles of 8x8x4 are (0 * 8 * 8, 4) = (0, 4)."""
    spec = edited_spec(tmp_path, "cute/thread_groups.yaml", "threads: 32, part: quadpair, parts: 4",
                       "threads: 0, part: quadpair, parts: 0")
    _mismatch(_run(cute_atoms.cases(spec), f"cute.thread_group[{GROUPS}:warp]"), "tile of a warp",
              f"{GROUPS}:warp", (256, 4), "0 tiles of 8x8x4", (0, 4))


def test_an_sm90_clayout_at_a_k_of_no_accumulator_fails(tmp_path: Path) -> None:
    """SM90_64x128.CLayout's atom edited to SM90_64x128x24_...: the register-fragment table has D
    rows at k16, k8, k32 and k256, none at k24."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "atom: SM90_64x128x16_F16F16F16F16_TN",
                       "atom: SM90_64x128x24_F16F16F16F16_TN")
    key = f"{ATOMS}:SM90_64x128.CLayout"
    _is(_run(cute_atoms.cases(spec), f"cute.clayout_repeat[{key}]"), Status.FAIL, "mismatch",
        f"{key}: no accumulator rows at k24 (the atom's K) in the register-fragment table")


def test_an_sm90_clayout_that_is_not_the_repeated_atom_fails(tmp_path: Path) -> None:
    """SM90_64x128.CLayout's repeat stride edited to 256: 128 / 8 = 16 repeats of the 64x8 atom
    ((4,8,4),(2,2)):((128,1,16),(64,8)) step by its 64 x 8 = 512 cells, a last value mode 16:512."""
    bad = "((4,8,4),(2,2,16)):((128,1,16),(64,8,256))"
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", 'layout: "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"',
                       f'layout: "{bad}"')
    key, good = f"{ATOMS}:SM90_64x128.CLayout", "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))"
    _is(_run(cute_atoms.cases(spec), f"cute.clayout_repeat[{key}]"), Status.FAIL, "mismatch",
        f"{key}: {bad} differs from the 64x8 atom repeated 16 times: {good}", documented=bad, derived=good)


def test_a_thrid_of_an_architecture_with_no_layouts_fails(tmp_path: Path) -> None:
    """SM90_64x8.ThrID's atom edited to SM80_64x8x16_...: no C/A/B row is an SM80 layout."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", "id: SM90_64x8.ThrID\n    atom: SM90_64x8x16",
                       "id: SM90_64x8.ThrID\n    atom: SM80_64x8x16")
    key = f"{ATOMS}:SM90_64x8.ThrID"
    _is(_run(cute_atoms.cases(spec), f"cute.thread_count[{key}]"), Status.FAIL, "mismatch",
        f"{key}: no layout of SM80 to compare with")


def test_a_thrid_of_64_threads_fails_against_the_first_sm90_layout(tmp_path: Path) -> None:
    """SM90_64x8.ThrID edited to 64:1; the first SM90 layout, SM90_64x8.CLayout, has a thread
    mode (4,8,4) of 128."""
    spec = edited_spec(tmp_path, "cute/mma_atoms.yaml", 'layout: "128:1"', 'layout: "64:1"')
    key = f"{ATOMS}:SM90_64x8.ThrID"
    _mismatch(_run(cute_atoms.cases(spec), f"cute.thread_count[{key}]"), "threads of SM90_64x8.CLayout",
              key, 64, f"{ATOMS}:SM90_64x8.CLayout", 128)
