"""The catalog of `ptxconf explain`'s diagnoses (oracle/explain/catalog.py): each code's title and
rule, the spec rows its rule is stated in, the evidence (GPU case ids and proof ids) behind it.

Expected values are worked by hand: each code's spec rows are the rows its rule is stated in
(wgmma/leading_byte_offset.yaml, stride_byte_offset.yaml, base_offset.yaml,
matrix_descriptor.yaml, swizzle_atoms.yaml, canonical_layouts.yaml; lines counted in those
files); evidence ids are the registry's GPU case ids (listed from ptxconf.app.providers.REGISTRY
here, not through catalog) and proof ids `proof.<claim>[<row key><suffix>]`; `pick` keeps the
ids holding more of `prefer`, in order; the titles and rules are the catalog's stated text.
"""

from __future__ import annotations

from typing import Any

import pytest
from case_outcomes import EXPLAIN_REF as REF
from case_outcomes import RULE_NO_FIX, RULE_START, SMEM_A_BF16, START_F16, UNUSED_BASE, UNUSED_LBO_BF16
from case_outcomes import explain_a_bf16 as a_bf16

from ptxconf.app.providers import REGISTRY, gpu_case_ids
from ptxconf.oracle.explain import catalog
from ptxconf.oracle.explain.operand import resolve
from ptxconf.oracle.records import ByteOffsetDefinition, CanonicalLayout, Row
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
N8 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"
GPU_IDS = gpu_case_ids(SPEC)


def keys(rows: list[Row]) -> list[str]:
    return [r.key for r in rows]


# --- codes, titles and rules ----------------------------------------------------------------------


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


# --- spec rows and evidence ids -------------------------------------------------------------------


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
    assert alone == [i for i in given if i.startswith("proof.")]
    assert len(given) > len(alone)


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


def test_evidence_of_a_b_operand_without_its_own_case_is_a_b_case() -> None:
    """B of m64n64k16.bf16 (no case of its own): the first B case of bf16 listed, m64n8k16's."""
    b = resolve(SPEC, instr=INSTR, operand="B")
    assert catalog.evidence(SPEC, "EXPLAIN-STRIDE", b, "128B", known_ids=GPU_IDS) == [
        "proof.layout_injective[wgmma/canonical_layouts:K_SW128]",
        f"gpu.smem_map[{N8}:B:K_SW128]"]
