"""Checks of oracle/explain/operand.py and oracle/explain/catalog.py that mutation testing found
missing (reports/mutation/README.md); names.py's are in test_oracle_mutants_explain_names.py.

Expected values are worked by hand from the documents and the modules' stated contracts:

* the operand (operand.py's docstring): an instruction names everything: A is M x K with
  M = 64 (wgmma's M), B is N x K, N and K read off the name, the element type is the A or B
  type of the name (.e4m3 / .e5m2 of a mixed fp8 instruction), K-major unless MN is asked
  for; imm-trans = 1 selects MN-major. Without an instruction --dtype/--major/--mn/--k name
  it. The refusals are `CODE - message`, one line; the element types are
  wgmma/element_types.yaml's rows in file order, MN-major needs imm-trans-a's types
  (wgmma/instruction_operands.yaml: f16, bf16), mn a multiple of 8 (a core matrix's rows), k a
  multiple of one repeat of the major-ness's canonical templates (wgmma/canonical_layouts.yaml:
  K-major (T,2k) -> 2T elements of K, T = 128 / element bits; MN-major (8,k) -> 8).
* the catalog (catalog.py): each code's spec rows are the rows its rule is stated in
  (wgmma/leading_byte_offset.yaml, stride_byte_offset.yaml, base_offset.yaml,
  matrix_descriptor.yaml, swizzle_atoms.yaml, canonical_layouts.yaml; lines counted in those
  files); evidence ids are the registry's GPU case ids (listed from ptxconf.app.providers.REGISTRY
  here, not through catalog) and proof ids `proof.<claim>[<row key><suffix>]`; `pick` keeps the
  ids holding more of `prefer`, in order; the titles and rules are the catalog's stated text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from scratch_spec import edited_spec

from ptxconf.app.providers import REGISTRY, gpu_case_ids
from ptxconf.oracle.explain import catalog
from ptxconf.oracle.explain.operand import ExplainError, Operand, resolve
from ptxconf.oracle.records import ByteOffsetDefinition, CanonicalLayout, RegisterFragment, Row
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
# A is .e4m3, B is .e5m2: the two operands of one instruction differ in type and in extent
FP8 = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2"
N8 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"
# the H100 GPU families' case ids (ptxconf.app.providers, no device needed)
GPU_IDS = gpu_case_ids(SPEC)

# spec_ref of the rows, lines counted in the files
REF = {
    "LBO.K.swizzled": "spec/wgmma/leading_byte_offset.yaml:16 (wgmma/leading_byte_offset:LBO.K.swizzled)",
    "K_SW128": "spec/wgmma/canonical_layouts.yaml:20 (wgmma/canonical_layouts:K_SW128)",
}
SMEM_A_BF16 = "gpu.smem_map[wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16:A:{}]"
UNUSED_LBO_BF16 = "gpu.address.unused_lbo[wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16:{}]"
START_F16 = "gpu.address.start[wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16:{}]"
UNUSED_BASE = "gpu.address.unused_base_offset[wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16:{}]"

RULE_START = ("A swizzled operand whose start is not on its swizzle repeat (256/512/1024 B for "
              "32B/64B/128B) needs the base-offset field (start >> 7) & 7: on an H100 the hardware "
              "swizzles start + offset - (field << 7), so with the field 0 the XOR pattern follows "
              "the absolute address, and with the field per the rule it restarts at the start's "
              "128-byte row.")
RULE_NO_FIX = ("None of the descriptors searched (same start; every swizzle mode; LBO/SBO among "
               "yours, swapped, and the packed values; base-offset field 0 or per the rule) reads "
               "the operand injectively, inside the allocation, with its pattern at the tile base.")


def a_bf16(major: str = "K") -> Operand:
    return resolve(SPEC, instr=INSTR, operand="A", major=major)


def keys(rows: list[Row]) -> list[str]:
    return [r.key for r in rows]


# === operand.py ==================================================================================


def test_the_a_and_b_operands_of_a_mixed_fp8_instruction() -> None:
    """A takes .atype and M = 64, B takes .btype and N = 8; both K = 32 from the name."""
    a = resolve(SPEC, instr=FP8, operand="A")
    b = resolve(SPEC, instr=FP8, operand="B")
    assert (a.dtype, a.mn, a.k, a.bits, a.name) == ("e4m3", 64, 32, 8, "A")
    assert (b.dtype, b.mn, b.k, b.bits, b.name) == ("e5m2", 8, 32, 8, "B")
    assert resolve(SPEC, instr=FP8, operand="B", dtype="e5m2") == b


def test_operand_as_dict_from_an_instruction() -> None:
    """`--json`'s operand object: every key, K-major by default, imm-trans 0."""
    assert resolve(SPEC, instr=FP8, operand="A").as_dict() == {
        "dtype": "e4m3", "major": "K", "mn": 64, "k": 32, "bits": 8, "operand": "A",
        "instr": FP8, "form": "SS", "imm_trans": 0}


def test_operand_as_dict_from_flags() -> None:
    """An MN-major operand named by flags: no operand name or instruction, imm-trans 1."""
    op = resolve(SPEC, dtype="bf16", major="MN", mn=64, k=8)
    assert op.as_dict() == {"dtype": "bf16", "major": "MN", "mn": 64, "k": 8, "bits": 16,
                            "operand": None, "instr": None, "form": "SS", "imm_trans": 1}
    assert op.elem_bytes == 2
    assert resolve(SPEC, dtype="tf32", major="K", mn=8, k=8).elem_bytes == 4


def test_operand_describe_and_cli() -> None:
    """describe names the instruction and imm-trans-<a|b>; cli gives back the flags that name it."""
    b = resolve(SPEC, instr=INSTR, operand="B", major="MN")
    assert b.describe() == f"operand B of {INSTR} (64x16 bf16, MN-major, imm-trans-b = 1)"
    assert b.cli() == f"--instr {INSTR} --operand B --major MN"
    a = a_bf16()
    assert a.describe() == f"operand A of {INSTR} (64x16 bf16, K-major, imm-trans-a = 0)"
    assert a.cli() == f"--instr {INSTR} --operand A"
    flags = resolve(SPEC, dtype="bf16", major="MN", mn=64, k=8)
    assert flags.describe() == "64x8 bf16, MN-major"
    assert flags.cli() == "--dtype bf16 --major MN --mn 64 --k 8"


def test_the_form_suffix_and_flag_are_read_in_any_case() -> None:
    """`name:rs` and --form rs are the RS form; a --form agreeing with the suffix is accepted."""
    assert resolve(SPEC, instr=f"{INSTR}:rs", operand="B").form == "RS"
    assert resolve(SPEC, instr=f" {INSTR}:RS ", operand="B", form="rs").form == "RS"
    got = resolve(SPEC, instr=f"{INSTR}:SS", operand="B", form="ss")
    assert (got.form, got.instr) == ("SS", INSTR)
    assert resolve(SPEC, instr=INSTR, operand="B", form="rs").form == "RS"


def test_a_suffix_that_is_no_form_stays_in_the_name() -> None:
    """Only :SS and :RS are forms; `name:XY` is read as the name, which the parser refuses whole."""
    with pytest.raises(ValueError, match=re.escape(f"malformed wgmma instruction '{INSTR}:XY'")) as err:
        resolve(SPEC, instr=f"{INSTR}:XY", operand="A")
    assert not isinstance(err.value, ExplainError)


def test_the_form_is_the_last_colon_piece() -> None:
    """`name:XY:RS` is the RS form of `name:XY`: operand A of it is refused as in registers."""
    with pytest.raises(ExplainError, match=re.escape(f"operand A of {INSTR}:XY in the RS form")):
        resolve(SPEC, instr=f"{INSTR}:XY:RS", operand="A")


REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (dict(instr=f"{INSTR}:RS", operand="B", form="SS"), "EXPLAIN-OPERAND",
     f"--form SS disagrees with '{INSTR}:RS'"),
    (dict(instr=INSTR, operand="B", form="WS"), "EXPLAIN-OPERAND", "expected form SS or RS, got WS"),
    (dict(instr=INSTR), "EXPLAIN-OPERAND", "--instr needs --operand A or B"),
    (dict(instr=INSTR, operand="C"), "EXPLAIN-OPERAND", "--instr needs --operand A or B"),
    (dict(instr=INSTR, operand="A", mn=64), "EXPLAIN-OPERAND",
     "--mn/--k come from the instruction: give --instr or --dtype/--major/--mn/--k, not both"),
    (dict(instr=INSTR, operand="A", k=16), "EXPLAIN-OPERAND",
     "--mn/--k come from the instruction: give --instr or --dtype/--major/--mn/--k, not both"),
    (dict(instr=f"{INSTR}:RS", operand="A"), "EXPLAIN-RS-OPERAND",
     f"operand A of {INSTR} in the RS form is in registers (ptxconf oracle fragment --operand A): "
     "no shared-memory descriptor reads it"),
    (dict(instr=FP8, operand="B", dtype="e4m3"), "EXPLAIN-OPERAND",
     f"--dtype e4m3: operand B of {FP8} is .e5m2"),
    (dict(), "EXPLAIN-OPERAND", "give --instr and --operand, or --dtype, --major, --mn, --k"),
    (dict(dtype="bf16", mn=64), "EXPLAIN-OPERAND", "give --instr and --operand, or --major, --k"),
    (dict(dtype="f8", major="K", mn=64, k=16), "DOMAIN-DTYPE",
     "expected dtype one of f16, bf16, tf32, e4m3, e5m2, s8, u8, b1, f32, s32, f64, s4, u4, "
     "got 'f8'"),
    (dict(dtype="u4", major="K", mn=64, k=64), "EXPLAIN-SUB-BYTE",
     "u4 is 4-bit: its shared-memory offsets count bits, and explain works in bytes "
     "(ptxconf oracle smem-offsets answers it)"),
    (dict(dtype="bf16", major="k", mn=64, k=16), "DOMAIN-MAJOR", "expected major K or MN, got 'k'"),
    (dict(dtype="tf32", major="MN", mn=64, k=8), "DOMAIN-MAJOR",
     "expected K for tf32 (wgmma takes no imm-trans for it: wgmma/instruction_operands, "
     "imm-trans-a), got MN"),
    (dict(dtype="bf16", major="K", mn=0, k=16), "DOMAIN-SHAPE",
     "expected mn a positive multiple of 8, got 0"),
    (dict(dtype="bf16", major="K", mn=-8, k=16), "DOMAIN-SHAPE",
     "expected mn a positive multiple of 8, got -8"),
    (dict(dtype="bf16", major="K", mn=60, k=16), "DOMAIN-SHAPE",
     "expected mn a positive multiple of 8, got 60"),
    # K-major bf16: T = 8, one repeat (T,2k) is 16 elements of K
    (dict(dtype="bf16", major="K", mn=64, k=8), "DOMAIN-SHAPE",
     "expected k a positive multiple of 16 (K-major repeats of bf16), got 8"),
    (dict(dtype="bf16", major="K", mn=64, k=0), "DOMAIN-SHAPE",
     "expected k a positive multiple of 16 (K-major repeats of bf16), got 0"),
    # MN-major: (8,k), 8 elements of K a repeat in every mode
    (dict(dtype="bf16", major="MN", mn=64, k=4), "DOMAIN-SHAPE",
     "expected k a positive multiple of 8 (MN-major repeats of bf16), got 4"),
    # tf32: T = 4 -> 8; e4m3: T = 16 -> 32
    (dict(dtype="tf32", major="K", mn=64, k=4), "DOMAIN-SHAPE",
     "expected k a positive multiple of 8 (K-major repeats of tf32), got 4"),
    (dict(dtype="e4m3", major="K", mn=64, k=16), "DOMAIN-SHAPE",
     "expected k a positive multiple of 32 (K-major repeats of e4m3), got 16"),
]


@pytest.mark.parametrize(("kw", "code", "message"), REFUSALS,
                         ids=[f"{c}:{m[:30]}" for _, c, m in REFUSALS])
def test_resolve_refusals_are_exact(kw: dict[str, Any], code: str, message: str) -> None:
    """Each refusal: its code, its one-line message, and `CODE - message` as the error text."""
    with pytest.raises(ExplainError) as err:
        resolve(SPEC, **kw)
    assert (err.value.code, err.value.message) == (code, message)
    assert str(err.value) == f"{code} - {message}"


def test_the_smallest_shapes_are_accepted() -> None:
    """mn = 8 (one core matrix of rows) and k = one repeat (16 K-major bf16, 8 MN-major)."""
    k_major = resolve(SPEC, dtype="bf16", major="K", mn=8, k=16)
    mn_major = resolve(SPEC, dtype="bf16", major="MN", mn=8, k=8)
    assert (k_major.mn, k_major.k, mn_major.mn, mn_major.k) == (8, 16, 8, 8)


# === catalog.py ==================================================================================


def test_the_catalog_codes_and_titles() -> None:
    """Every code, in order, with its title (`explain --json` prints them)."""
    assert {c: e.title for c, e in catalog.CATALOG.items()} == {
        "EXPLAIN-LBO-SBO-SWAPPED": "LBO and SBO swapped",
        "EXPLAIN-MN-ROLES-SWAPPED": "MN-major LBO/SBO roles swapped",
        "EXPLAIN-START-MISALIGNED": "start not aligned to the swizzle repeat",
        "EXPLAIN-BASE-OFFSET-PHASE": "base-offset field moves an aligned tile's pattern",
        "EXPLAIN-SWIZZLE-MODE": "wrong swizzle mode for the tile",
        "EXPLAIN-K-BEYOND-ROW": "K extent beyond one swizzle row",
        "EXPLAIN-IGNORED-FIELD": "a field the hardware ignores set to a meaningful value",
        "EXPLAIN-OVERRUN": "the operand overruns its allocation",
        "EXPLAIN-STRIDE-ZERO": "LBO or SBO zero where the operand takes a step",
        "EXPLAIN-STRIDE": "LBO or SBO wrong for the tile",
        "EXPLAIN-NO-FIX": "no nearby descriptor reads this operand",
    }
    assert all(code == e.code for code, e in catalog.CATALOG.items())


def test_catalog_as_dict_and_entry() -> None:
    """as_dict is the entry's code, title and rule; entry looks one up by code."""
    assert catalog.as_dict("EXPLAIN-NO-FIX") == {
        "code": "EXPLAIN-NO-FIX", "title": "no nearby descriptor reads this operand",
        "rule": RULE_NO_FIX}
    e = catalog.entry("EXPLAIN-START-MISALIGNED")
    assert (e.code, e.rule) == ("EXPLAIN-START-MISALIGNED", RULE_START)


def test_spec_ref_is_file_line_and_key() -> None:
    """`spec/<file>:<line> (<key>)`, the line where the row's id is written."""
    row = SPEC.get(ByteOffsetDefinition, "LBO.K.swizzled")
    assert catalog.spec_ref(SPEC, row) == REF["LBO.K.swizzled"]
    assert catalog.spec_ref(SPEC, SPEC.get(CanonicalLayout, "K_SW128")) == REF["K_SW128"]


def test_proof_id_spelling() -> None:
    """proof.<claim>[<row key><suffix>]."""
    row = SPEC.get(CanonicalLayout, "MN_SW32")
    assert catalog.proof_id("layout_injective", row) == (
        "proof.layout_injective[wgmma/canonical_layouts:MN_SW32]")
    assert catalog.proof_id("x", row, ".f16") == "proof.x[wgmma/canonical_layouts:MN_SW32.f16]"


def test_pick_prefers_the_ids_holding_more_of_prefer_in_order() -> None:
    """Among ids with the prefix and every needle, the one holding the earlier preferences."""
    ids = ["p.a:1", "p.b:1", "p.ab:1", "p.ab:2", "q.ab:1", "p.a:2"]
    assert catalog.pick(ids, "p.", ":1", prefer=("a", "b")) == "p.ab:1"
    # the first preference outweighs the second; ties go to the first listed
    assert catalog.pick(["p.b", "p.a", "p.a2"], "p.", prefer=("a", "b")) == "p.a"
    assert catalog.pick(ids, "p.", ":2") == "p.ab:2"
    assert catalog.pick(ids, "r.") is None
    assert catalog.pick(ids, "p.", ":1", ":2") is None


def test_gpu_ids_are_the_registrys() -> None:
    """Every GPU case id the providers list, in their order."""
    assert list(GPU_IDS) == [i for p in REGISTRY if p.gpu for i in p.case_ids(SPEC) or ()]
    assert "gpu.mistake[lbo_sbo_swapped]" in GPU_IDS


def test_evidence_cites_gpu_cases_only_from_the_ids_it_is_given() -> None:
    """Without the caller's ids only proofs are cited (the oracle does not know the providers)."""
    op = a_bf16("K")
    given = catalog.evidence(SPEC, "EXPLAIN-LBO-SBO-SWAPPED", op, "128B", known_ids=GPU_IDS)
    alone = catalog.evidence(SPEC, "EXPLAIN-LBO-SBO-SWAPPED", op, "128B")
    assert alone == [i for i in given if i.startswith("proof.")] and len(given) > len(alone)


ROWS: list[tuple[str, str, str, dict[str, Any], list[str]]] = [
    # code, major, the user's swizzle, other arguments, the rows' keys
    ("EXPLAIN-LBO-SBO-SWAPPED", "K", "128B", {},
     ["wgmma/leading_byte_offset:LBO.K.swizzled", "wgmma/stride_byte_offset:SBO.K.all",
      "wgmma/canonical_layouts:K_SW128"]),
    ("EXPLAIN-MN-ROLES-SWAPPED", "MN", "32B", {},
     ["wgmma/leading_byte_offset:LBO.MN.swizzled", "wgmma/stride_byte_offset:SBO.MN.swizzled",
      "wgmma/canonical_layouts:MN_SW32"]),
    ("EXPLAIN-STRIDE", "K", "128B", {"fields": ("sbo",)},
     ["wgmma/stride_byte_offset:SBO.K.all", "wgmma/canonical_layouts:K_SW128"]),
    ("EXPLAIN-STRIDE", "K", "none", {"fields": ("lbo",)},
     ["wgmma/leading_byte_offset:LBO.K.none", "wgmma/canonical_layouts:K_INTER"]),
    ("EXPLAIN-STRIDE-ZERO", "MN", "none", {"fields": ("lbo",)},
     ["wgmma/leading_byte_offset:LBO.MN.none", "wgmma/canonical_layouts:MN_INTER"]),
    ("EXPLAIN-OVERRUN", "K", "64B", {},
     ["wgmma/leading_byte_offset:LBO.K.swizzled", "wgmma/stride_byte_offset:SBO.K.all",
      "wgmma/canonical_layouts:K_SW64"]),
    ("EXPLAIN-START-MISALIGNED", "K", "64B", {},
     ["wgmma/base_offset:base_offset.64B", "wgmma/matrix_descriptor:base_offset"]),
    ("EXPLAIN-BASE-OFFSET-PHASE", "MN", "128B", {},
     ["wgmma/base_offset:base_offset.128B", "wgmma/matrix_descriptor:base_offset"]),
    ("EXPLAIN-SWIZZLE-MODE", "K", "128B", {"other_swizzle": "64B"},
     ["wgmma/matrix_descriptor:layout_type", "wgmma/canonical_layouts:K_SW128",
      "wgmma/canonical_layouts:K_SW64", "wgmma/stride_byte_offset:SBO.K.all"]),
    ("EXPLAIN-SWIZZLE-MODE", "MN", "64B", {"other_swizzle": "128B"},
     ["wgmma/matrix_descriptor:layout_type", "wgmma/canonical_layouts:MN_SW64",
      "wgmma/canonical_layouts:MN_SW128", "wgmma/stride_byte_offset:SBO.MN.swizzled"]),
    # the fix's mode the user's: the row once
    ("EXPLAIN-SWIZZLE-MODE", "K", "32B", {"other_swizzle": "32B"},
     ["wgmma/matrix_descriptor:layout_type", "wgmma/canonical_layouts:K_SW32",
      "wgmma/stride_byte_offset:SBO.K.all"]),
    ("EXPLAIN-SWIZZLE-MODE", "K", "none", {},
     ["wgmma/matrix_descriptor:layout_type", "wgmma/canonical_layouts:K_INTER",
      "wgmma/stride_byte_offset:SBO.K.all"]),
    ("EXPLAIN-K-BEYOND-ROW", "K", "32B", {},
     ["wgmma/swizzle_atoms:K_SW32", "wgmma/canonical_layouts:K_SW32"]),
    ("EXPLAIN-IGNORED-FIELD", "K", "none", {"ignored": "base_offset"},
     ["wgmma/matrix_descriptor:base_offset", "wgmma/base_offset:base_offset.128B",
      "wgmma/base_offset:base_offset.64B", "wgmma/base_offset:base_offset.32B"]),
    ("EXPLAIN-IGNORED-FIELD", "K", "128B", {"ignored": "lbo"},
     ["wgmma/leading_byte_offset:LBO.K.swizzled"]),
    ("EXPLAIN-NO-FIX", "MN", "32B", {}, ["wgmma/canonical_layouts:MN_SW32"]),
]


@pytest.mark.parametrize(("code", "major", "swizzle", "kw", "want"), ROWS,
                         ids=[f"{r[0]}.{r[1]}.{r[2]}.{len(r[4])}" for r in ROWS])
def test_rows_for_each_code(code: str, major: str, swizzle: str, kw: dict[str, Any],
                            want: list[str]) -> None:
    """The rows stating each rule, for the operand's major-ness and the user's swizzle mode."""
    assert keys(catalog.rows_for(SPEC, code, a_bf16(major), swizzle, **kw)) == want


EVIDENCE: list[tuple[str, str, str, dict[str, Any], list[str]]] = [
    ("EXPLAIN-LBO-SBO-SWAPPED", "K", "128B", {},
     ["proof.layout_injective[wgmma/canonical_layouts:K_SW128]", SMEM_A_BF16.format("K_SW128"),
      UNUSED_LBO_BF16.format("K_SW128"), "gpu.mistake[lbo_sbo_swapped]"]),
    # without a swizzle LBO is used: no unused-LBO case
    ("EXPLAIN-LBO-SBO-SWAPPED", "K", "none", {},
     ["proof.layout_injective[wgmma/canonical_layouts:K_INTER]", SMEM_A_BF16.format("K_INTER"),
      "gpu.mistake[lbo_sbo_swapped]"]),
    ("EXPLAIN-STRIDE", "K", "128B", {},
     ["proof.layout_injective[wgmma/canonical_layouts:K_SW128]", SMEM_A_BF16.format("K_SW128")]),
    ("EXPLAIN-STRIDE-ZERO", "K", "64B", {},
     ["proof.layout_injective[wgmma/canonical_layouts:K_SW64]", SMEM_A_BF16.format("K_SW64"),
      "gpu.mistake[sbo_zero]"]),
    ("EXPLAIN-OVERRUN", "MN", "128B", {},
     ["proof.layout_injective[wgmma/canonical_layouts:MN_SW128]", SMEM_A_BF16.format("MN_SW128"),
      "gpu.mistake[overrun]"]),
    ("EXPLAIN-MN-ROLES-SWAPPED", "MN", "32B", {},
     ["gpu.hypothesis[mn_lbo_sbo_roles]", "proof.layout_injective[wgmma/canonical_layouts:MN_SW32]",
      "proof.distinguish_mn_lbo_sbo_roles[wgmma/canonical_layouts:MN_SW32.f16]",
      SMEM_A_BF16.format("MN_SW32"), "gpu.mistake[mn_roles_swapped]"]),
    # 0x180 is 384 B into the 512-B repeat; the field the fix sets is 3
    ("EXPLAIN-START-MISALIGNED", "K", "64B", {"start": 0x180, "field_value": 3},
     ["gpu.hypothesis[base_offset]", START_F16.format("K_SW64:+384:base_offset=3"),
      START_F16.format("K_SW64:+384:base_offset=0"),
      "proof.base_alignment[wgmma/base_offset:base_offset.64B]", "gpu.mistake[start_misaligned_64B]"]),
    # the field left at its default 0: the case of +128 with field 0 is the only one picked
    ("EXPLAIN-START-MISALIGNED", "K", "32B", {"start": 0x80},
     ["gpu.hypothesis[base_offset]", START_F16.format("K_SW32:+128:base_offset=0"),
      "proof.base_alignment[wgmma/base_offset:base_offset.32B]", "gpu.mistake[start_misaligned_32B]"]),
    # 0x400 is on the 1024-B repeat: no start case at +0
    ("EXPLAIN-BASE-OFFSET-PHASE", "K", "128B", {"start": 0x400},
     ["gpu.hypothesis[base_offset]", "proof.base_alignment[wgmma/base_offset:base_offset.128B]"]),
    ("EXPLAIN-SWIZZLE-MODE", "K", "128B", {"fix_swizzle": "64B"},
     ["proof.layout_injective[wgmma/canonical_layouts:K_SW128]", SMEM_A_BF16.format("K_SW64"),
      "gpu.mistake[wrong_swizzle_mode]"]),
    ("EXPLAIN-K-BEYOND-ROW", "K", "32B", {"fix_swizzle": "64B"},
     ["proof.layout_injective[wgmma/canonical_layouts:K_SW32]", SMEM_A_BF16.format("K_SW64"),
      "gpu.mistake[k_beyond_swizzle_row]"]),
    ("EXPLAIN-IGNORED-FIELD", "MN", "none", {"ignored": "base_offset"},
     [UNUSED_BASE.format("MN_INTER"), "gpu.mistake[ignored_base_offset]"]),
    ("EXPLAIN-IGNORED-FIELD", "K", "128B", {"ignored": "lbo"},
     ["gpu.hypothesis[k_swizzled_lbo]", UNUSED_LBO_BF16.format("K_SW128"), "gpu.mistake[ignored_lbo]"]),
    ("EXPLAIN-NO-FIX", "K", "32B", {}, ["proof.layout_injective[wgmma/canonical_layouts:K_SW32]"]),
]


@pytest.mark.parametrize(("code", "major", "swizzle", "kw", "want"), EVIDENCE,
                         ids=[f"{e[0]}.{e[1]}.{e[2]}" for e in EVIDENCE])
def test_evidence_for_each_code(code: str, major: str, swizzle: str, kw: dict[str, Any],
                                want: list[str]) -> None:
    """The case ids behind each rule for a bf16 A operand, the gallery case last."""
    assert set(want) - {i for i in want if i.startswith("proof.")} <= set(GPU_IDS)
    assert catalog.evidence(SPEC, code, a_bf16(major), swizzle, **kw, known_ids=GPU_IDS) == want


def test_evidence_prefers_the_operands_own_instruction() -> None:
    """B of m64n8k16.bf16: the smem-map case of that very instruction and operand."""
    b = resolve(SPEC, instr=N8, operand="B")
    assert catalog.evidence(SPEC, "EXPLAIN-STRIDE", b, "128B", known_ids=GPU_IDS) == [
        "proof.layout_injective[wgmma/canonical_layouts:K_SW128]",
        f"gpu.smem_map[{N8}:B:K_SW128]"]


def test_describe_and_cli_need_both_the_instruction_and_the_operand() -> None:
    """An operand with only a name or only an instruction is described and named by its flags."""
    named = Operand("bf16", "K", 64, 16, 16, name="A")
    bare = Operand("bf16", "MN", 64, 16, 16, instr=INSTR)
    assert named.describe() == "64x16 bf16, K-major"
    assert bare.describe() == "64x16 bf16, MN-major"
    assert named.cli() == "--dtype bf16 --major K --mn 64 --k 16"
    assert bare.cli() == "--dtype bf16 --major MN --mn 64 --k 16"


def test_evidence_of_a_b_operand_without_its_own_case_is_a_b_case() -> None:
    """B of m64n64k16.bf16 (no case of its own): the first B case of bf16 listed, m64n8k16's."""
    b = resolve(SPEC, instr=INSTR, operand="B")
    assert catalog.evidence(SPEC, "EXPLAIN-STRIDE", b, "128B", known_ids=GPU_IDS) == [
        "proof.layout_injective[wgmma/canonical_layouts:K_SW128]",
        f"gpu.smem_map[{N8}:B:K_SW128]"]


def test_the_instruction_is_resolved_against_the_spec_given(tmp_path: Path) -> None:
    """With the k16 f32 accumulator row's valid N cut to 8 * (1..4), N = 64 of a bf16 k16
    instruction is no longer valid: resolve reads the instruction in the spec it is given, not
    in the bundled one (where 8 * (1..32) makes N = 64 valid)."""
    assert SPEC.get(RegisterFragment, "k16.D.f32").valid_n_values() == tuple(range(8, 257, 8))
    row = ('{id: k16.D.f32, shape: m64nNk16, k_elems: 16, operand: D, types: [f32], registers: "N/2", '
           'register_type: f32, elems_per_register: 1, last_index: "N/2 - 1", elements: "N/2", '
           'figure: 149, valid_n: [{step_elems: 8, i_min: 1, i_max: 32}]')
    cut = edited_spec(tmp_path, "wgmma/register_fragments.yaml", row,
                      row.replace("i_max: 32", "i_max: 4"))
    instr = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
    assert resolve(SPEC, instr=instr, operand="B").mn == 64
    with pytest.raises(ValueError) as err:
        resolve(cut, instr=instr, operand="B")
    assert str(err.value) == (f"{instr}: N=64 is not a valid N for k16.f32.bf16.bf16 (valid: "
                              "8..32 step 8, from wgmma/register_fragments:k16.D.f32)")
