"""`ptxconf explain`: a gallery of real descriptor mistakes, each diagnosed and corrected; the
read map it judges is the oracle's; the CuTe layout synthesis is checked element by element
(its Z3 proof for every aligned start: test_proofs_synthesis.py).

Every corrected value below is derived here from `ptxconf.oracle.descriptor.encode` of the right
fields, never from the diagnosis code.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ptxconf.app.cli import main
from ptxconf.app.providers import REGISTRY, gpu_case_ids
from ptxconf.oracle import canonical
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.descriptor import encode
from ptxconf.oracle.explain import catalog
from ptxconf.oracle.explain.diagnose import candidates, explain_descriptor
from ptxconf.oracle.explain.operand import ExplainError, Operand, resolve
from ptxconf.oracle.explain.readmap import (
    Context,
    Descriptor,
    bank_report,
    linear,
    read_map,
)
from ptxconf.oracle.explain.synthesize import Refusal, Synthesis, synthesize
from ptxconf.oracle.spec import Spec, default_spec

SPEC = default_spec()
GPU_IDS = gpu_case_ids(SPEC)
INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
README_LAYOUT = "Swizzle<3,4,3> o 0 o ((8,8),64):((64,512),1)"
SPEC_ROOT = SPEC.root  # the bundled spec, wherever the package lies (a staging tree too)


def a_operand(major: str = "K") -> Operand:
    return resolve(SPEC, instr=INSTR, operand="A", major=major)


# --- the gallery ---------------------------------------------------------------------------------

#: (name, operand, mistaken fields, --smem-bytes, code, the fields that are right)
GALLERY: list[tuple[str, dict[str, Any], dict[str, Any], int | None, str, dict[str, Any]]] = [
    # CUTLASS's K-major 128B A tile with the two strides exchanged: SBO 16 B overlaps 8-row groups.
    ("lbo_sbo_swapped.K_SW128", {}, dict(lbo=1024, sbo=16, swizzle="128B"), None,
     "EXPLAIN-LBO-SBO-SWAPPED", dict(lbo=16, sbo=1024)),
    # Interleaved K-major: LBO is the K core-matrix step (1024 B), SBO the 8-row step (128 B).
    ("lbo_sbo_swapped.K_INTER", {}, dict(lbo=128, sbo=1024, swizzle="none"), 2048,
     "EXPLAIN-LBO-SBO-SWAPPED", dict(lbo=1024, sbo=128)),
    # MN-major swizzled: LBO steps along MN, SBO along K (the K-major roles inverted).
    ("mn_roles_swapped.MN_SW32", {"major": "MN"}, dict(lbo=256, sbo=512, swizzle="32B"), None,
     "EXPLAIN-MN-ROLES-SWAPPED", dict(lbo=512, sbo=256)),
    # Starts on a 128-B row but not on the repeat, base-offset field 0.
    ("start_misaligned.32B", {}, dict(start_address=0x80, lbo=16, sbo=256, swizzle="32B"), None,
     "EXPLAIN-START-MISALIGNED", dict(base_offset=(0x80 >> 7) & 7)),
    ("start_misaligned.64B", {}, dict(start_address=0x180, lbo=16, sbo=512, swizzle="64B"), None,
     "EXPLAIN-START-MISALIGNED", dict(base_offset=(0x180 >> 7) & 7)),
    ("start_misaligned.128B", {}, dict(start_address=0x2300, lbo=16, sbo=1024, swizzle="128B"),
     None, "EXPLAIN-START-MISALIGNED", dict(base_offset=(0x2300 >> 7) & 7)),
    # An aligned start with the field set anyway: the H100 moves the pattern.
    ("base_offset_on_aligned_start", {}, dict(start_address=0x400, lbo=16, sbo=1024,
                                              swizzle="128B", base_offset=2), None,
     "EXPLAIN-BASE-OFFSET-PHASE", dict(base_offset=0)),
    # Rows 64 B wide (SBO = 8 x 64 B) but the descriptor says 128B.
    ("wrong_swizzle_mode.64B_tile_as_128B", {}, dict(lbo=16, sbo=512, swizzle="128B"), 4096,
     "EXPLAIN-SWIZZLE-MODE", dict(swizzle="64B")),
    ("wrong_swizzle_mode.32B_tile_as_64B", {}, dict(lbo=16, sbo=256, swizzle="64B"), 2048,
     "EXPLAIN-SWIZZLE-MODE", dict(swizzle="32B")),
    # One descriptor for 32 bf16 of K (64 B) with a 32-B swizzle row.
    ("k_beyond_swizzle_row", {"dtype": "bf16", "mn": 64, "k": 32},
     dict(lbo=16, sbo=256, swizzle="32B"), None, "EXPLAIN-K-BEYOND-ROW",
     dict(swizzle="64B", sbo=512)),
    # K-major swizzled LBO is ignored; the base-offset field without a swizzle too.
    ("ignored_field.lbo", {}, dict(lbo=1024, sbo=1024, swizzle="128B"), None,
     "EXPLAIN-IGNORED-FIELD", dict(lbo=16)),
    ("ignored_field.base_offset", {}, dict(lbo=1024, sbo=128, swizzle="none", base_offset=5),
     None, "EXPLAIN-IGNORED-FIELD", dict(base_offset=0)),
    # An SBO twice the packed one: half the operand past an 8 KiB allocation.
    ("overrun", {}, dict(lbo=16, sbo=2048, swizzle="128B"), 8192, "EXPLAIN-OVERRUN",
     dict(sbo=1024)),
    ("sbo_zero", {}, dict(lbo=16, sbo=0, swizzle="128B"), None, "EXPLAIN-STRIDE-ZERO",
     dict(sbo=1024)),
    ("lbo_zero.K_INTER", {}, dict(lbo=0, sbo=128, swizzle="none"), None, "EXPLAIN-STRIDE-ZERO",
     dict(lbo=1024)),
]


def _operand(kw: dict[str, Any]) -> Operand:
    if "dtype" in kw:
        return resolve(SPEC, major=kw.get("major", "K"), **kw)
    return a_operand(kw.get("major", "K"))


def _fields(mistaken: dict[str, Any]) -> dict[str, Any]:
    return {"start_address": 0, "base_offset": 0} | mistaken


def _value(f: dict[str, Any]) -> int:
    return encode(f["start_address"], f["lbo"], f["sbo"], f["swizzle"], f["base_offset"])


@pytest.mark.parametrize(("name", "op_kw", "mistaken", "smem", "code", "right"), GALLERY,
                         ids=[g[0] for g in GALLERY])
def test_gallery_mistake_is_named_and_corrected(name: str, op_kw: dict[str, Any],
                                                mistaken: dict[str, Any], smem: int | None,
                                                code: str, right: dict[str, Any]) -> None:
    op = _operand(op_kw)
    value = _value(_fields(mistaken))
    want = _value(_fields(mistaken) | right)
    e = explain_descriptor(SPEC, op, value, smem_bytes=smem, evidence_ids=GPU_IDS)
    assert e.codes, [d.message for d in e.diagnoses]
    assert e.codes[0] == code, [d.message for d in e.diagnoses]
    assert e.corrected is not None, f"None != {want:#x}"
    assert e.corrected.desc.value == want, f"{e.corrected.desc.text()} != {want:#x}"
    assert e.diagnoses[0].corrected == want
    assert set(e.diagnoses[0].fix) <= set(right) | {"lbo", "sbo"}
    assert e.verdict in ("invalid", "suspect")
    # the corrected descriptor is itself a valid operand, with nothing to name
    again = explain_descriptor(SPEC, op, want, smem_bytes=smem, evidence_ids=GPU_IDS)
    assert again.verdict == "valid", again.codes
    assert not again.diagnoses, again.codes


@pytest.mark.parametrize("code", sorted(set(catalog.CATALOG) - {"EXPLAIN-STRIDE", "EXPLAIN-NO-FIX"}))
def test_every_mistake_kind_has_a_gallery_entry(code: str) -> None:
    assert code in {g[4] for g in GALLERY}


def test_the_catalog_codes_are_stable() -> None:
    assert all(re.fullmatch(r"EXPLAIN-[A-Z0-9-]+", c) for c in catalog.CATALOG)
    e = catalog.CATALOG["EXPLAIN-LBO-SBO-SWAPPED"]
    assert e.title == "LBO and SBO swapped"
    assert "SBO" in e.rule


def _registry_ids(spec: Spec) -> set[str]:
    """Every case id the registry's providers list, the proofs' included."""
    ids = {i for p in REGISTRY for i in p.case_ids(spec) or ()}
    try:
        from ptxconf.oracle.proofs.claims import all_claims
    except ImportError as exc:  # z3 missing: the proof ids cannot be listed
        pytest.skip(f"z3 not importable: {exc}")
    return ids | {c.id for c in all_claims(spec)}


def test_every_cited_id_exists_and_every_spec_row_is_where_it_says() -> None:
    ids = _registry_ids(SPEC)
    cited: set[str] = set()
    for name, op_kw, mistaken, smem, _code, _right in GALLERY:
        e = explain_descriptor(SPEC, _operand(op_kw), _value(_fields(mistaken)), smem_bytes=smem,
                               evidence_ids=GPU_IDS)
        for d in e.diagnoses:
            assert d.evidence, (name, d.code)
            cited |= set(d.evidence)
            for ref in d.spec_rows:
                m = re.fullmatch(r"spec/(\S+):(\d+) \((\S+):(\S+)\)", ref)
                assert m, ref
                line = (SPEC_ROOT / m[1]).read_text(encoding="utf-8").splitlines()[int(m[2]) - 1]
                assert f"id: {m[4]}" in line, (ref, line)
    missing = sorted(cited - ids)
    assert not missing, missing
    assert any(i.startswith("proof.") for i in cited)
    assert any(i.startswith("gpu.hypothesis[") for i in cited)
    assert any(i.startswith("gpu.address.unused_lbo[") for i in cited)
    assert any(i.startswith("gpu.mistake[") for i in cited)


# --- the read map is the oracle's, with the H100 base-offset reading ---------------------------


def test_the_search_fast_path_is_the_oracles_read_map() -> None:
    assert GALLERY
    for _name, op_kw, mistaken, smem, _code, _right in GALLERY:
        op = _operand(op_kw)
        user = Descriptor.decode(SPEC, _value(_fields(mistaken)))
        cands = candidates(SPEC, op, user, Context(user.start_address, smem))
        assert len(cands) > 10
        for c in cands[::5]:
            fast = linear(SPEC, op, c.desc.swizzle).addresses(SPEC, c.desc)
            assert np.array_equal(fast, read_map(SPEC, op, c.desc).addresses), c.desc.text()


def test_the_base_offset_field_moves_the_phase_as_on_the_h100() -> None:
    """swizzle(start + offset - (field << 7)) + (field << 7): the finding, not the document."""
    op = a_operand()
    start = 0x2100
    sw = Swizzle(3, 4, 3)
    unswizzled = linear(SPEC, op, "128B").base + linear(SPEC, op, "128B").sbo_steps * 1024
    for field in (0, 2, 5):
        d = Descriptor.of(SPEC, start_address=start, lbo=16, sbo=1024, swizzle="128B",
                          base_offset=field)
        got = read_map(SPEC, op, d).addresses
        want = np.vectorize(lambda o, f=field: sw(start + int(o) - (f << 7)) + (f << 7))(unswizzled)
        assert np.array_equal(got, want), field


def test_a_k_block_advance_inside_a_row_is_valid() -> None:
    """CUTLASS advances a K-major 128B descriptor 32 B per k-block, base-offset field 0."""
    op = a_operand()
    for kb in range(4):
        value = encode(0x8000 + 32 * kb, 16, 1024, "128B")
        e = explain_descriptor(SPEC, op, value, smem_bytes=8192, evidence_ids=GPU_IDS)
        assert e.verdict == "valid", (kb, e.codes, e.as_dict(SPEC)["problems"])


@pytest.mark.parametrize("value", [
    encode(0, 16, 1024, "128B"),            # CUTLASS: LBO the assumed 1
    encode(0, 0, 1024, "128B"),             # LBO 0: ignored, and no meaningful value
    encode(0x100, 16, 1024, "128B", 2),     # a tile 256 B into a repeat, field per the rule
    encode(0, 1024, 128, "none"),           # interleaved, packed
])
def test_valid_descriptors_name_no_mistake(value: int) -> None:
    e = explain_descriptor(SPEC, a_operand(), value, evidence_ids=GPU_IDS)
    assert e.verdict == "valid", e.codes
    assert not e.diagnoses, e.codes
    assert e.corrected is None, e.codes


def test_mn_major_swizzled_a_operand_is_valid() -> None:
    e = explain_descriptor(SPEC, a_operand("MN"), encode(0, 16, 1024, "128B"), evidence_ids=GPU_IDS)
    assert e.verdict == "valid", e.codes


def test_a_gap_that_a_swap_closes_is_a_suspect_swap() -> None:
    """Interleaved K-major with LBO/SBO exchanged is injective but spreads 2 KiB over 7 KiB."""
    e = explain_descriptor(SPEC, a_operand(), encode(0, 128, 1024, "none"), evidence_ids=GPU_IDS)
    assert e.verdict == "suspect"
    assert e.codes == ("EXPLAIN-LBO-SBO-SWAPPED",)
    assert e.corrected is not None
    assert e.corrected.desc.value == encode(0, 1024, 128, "none")


def test_an_allocation_too_small_for_any_descriptor_has_no_fix() -> None:
    e = explain_descriptor(SPEC, a_operand(), encode(0, 16, 1024, "128B"), smem_bytes=1024,
                           evidence_ids=GPU_IDS)
    assert e.verdict == "invalid"
    assert e.corrected is None
    assert e.codes == ("EXPLAIN-OVERRUN",)
    assert "none of the" in e.diagnoses[0].message


def test_banks_are_judged_per_core_matrix() -> None:
    op = a_operand()
    e = explain_descriptor(SPEC, op, encode(0, 16, 1024, "128B"), evidence_ids=GPU_IDS)
    assert e.banks == {"core_matrices": 16, "worst_degree": 1, "conflicted": 0}
    # the same rows unswizzled, 128 B apart: all eight reads of a core matrix in one bank group
    rows = np.arange(64)[:, None] * 128 + np.arange(16)[None, :] * 2
    rep = bank_report(SPEC, op, rows)
    assert rep["worst_degree"] == 8
    assert rep["conflicted"] == 16


def test_operands_come_from_the_instruction() -> None:
    a = a_operand()
    assert (a.dtype, a.major, a.mn, a.k, a.imm_trans) == ("bf16", "K", 64, 16, 0)
    b = resolve(SPEC, instr=INSTR, operand="B", major="MN")
    assert (b.mn, b.k, b.imm_trans) == (64, 16, 1)
    with pytest.raises(ExplainError, match="EXPLAIN-RS-OPERAND"):
        resolve(SPEC, instr=INSTR + ":RS", operand="A")
    with pytest.raises(ExplainError, match="EXPLAIN-RS-OPERAND"):
        resolve(SPEC, instr=INSTR, operand="A", form="RS")
    assert resolve(SPEC, instr=INSTR, operand="B", form="RS").mn == 64
    with pytest.raises(ExplainError, match="DOMAIN-MAJOR"):
        resolve(SPEC, instr="wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32",
                operand="A", major="MN")
    with pytest.raises(ExplainError, match="EXPLAIN-SUB-BYTE"):
        resolve(SPEC, instr="wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc",
                operand="A")


# --- the command ---------------------------------------------------------------------------------


def test_cli_names_the_mistake_and_the_corrected_value(capsys: pytest.CaptureFixture[str]) -> None:
    value = encode(0, 1024, 16, "128B")
    rc = main(["explain", "descriptor", hex(value), "--instr", INSTR, "--operand", "A"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "mistake EXPLAIN-LBO-SBO-SWAPPED (error)" in out
    assert f"corrected descriptor: {encode(0, 16, 1024, '128B'):#018x}" in out
    sbo = next(r for r in SPEC.rows if (r.file, r.id) == ("wgmma/stride_byte_offset.yaml",
                                                           "SBO.K.all"))
    assert f"spec/wgmma/stride_byte_offset.yaml:{sbo.line}" in out
    assert "proof.layout_injective[wgmma/canonical_layouts:K_SW128]" in out
    assert "mn\\k" in out  # the picture


def test_cli_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    value = encode(0x100, 16, 1024, "128B")
    rc = main(["explain", "descriptor", hex(value), "--instr", INSTR, "--operand", "A",
               "--smem-bytes", "8192", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert d["verdict"] == "invalid"
    assert d["mistakes"][0]["code"] == "EXPLAIN-START-MISALIGNED"
    assert d["corrected"]["value"] == f"{encode(0x100, 16, 1024, '128B', 2):#018x}"
    assert d["descriptor"]["fields"]["sbo"] == {"bits": [45, 32], "raw": 64, "shift": 4,
                                                 "spec_id": "stride_byte_offset"}
    assert d["checks"]["phase"] == {"ok": False, "hardware": 256, "tile": 0}
    assert len(d["reads"]["offsets"]) == 64
    assert len(d["reads"]["offsets"][0]) == 16
    assert "gpu.hypothesis[base_offset]" in d["mistakes"][0]["evidence"]


def test_cli_valid_descriptor_exits_0_and_draws_svg(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "a.svg"
    rc = main(["explain", "descriptor", hex(encode(0, 16, 1024, "128B")), "--dtype", "bf16",
               "--major", "K", "--mn", "64", "--k", "16", "--svg", str(svg), "--no-grid", "--full"])
    assert rc == 0
    assert "verdict: valid operand" in capsys.readouterr().out
    rects = ET.fromstring(svg.read_text()).findall(".//{http://www.w3.org/2000/svg}rect")
    assert len(rects) == 1 + 64 * 16


def test_cli_marks_aliased_cells(tmp_path: Path) -> None:
    svg = tmp_path / "bad.svg"
    argv = ["explain", "descriptor", hex(encode(0, 16, 0, "128B")), "--instr", INSTR, "--operand",
            "A", "--svg", str(svg), "--no-grid", "--json"]
    main([*argv, "--full"])
    rects = ET.fromstring(svg.read_text()).findall(".//{http://www.w3.org/2000/svg}rect")
    assert sum(r.get("stroke") == "#d62728" for r in rects) == 64 * 16  # SBO 0: all 8 groups alias
    main(argv)  # bounded: the rows shown, each of their 16 cells marked
    root = ET.fromstring(svg.read_text())
    (marks,) = root.findall(".//{http://www.w3.org/2000/svg}path[@class='mark']")
    shown = next(t.text for t in root.iter("{http://www.w3.org/2000/svg}text")
                 if t.text and t.text.startswith("shown: "))
    rows = int(shown.split()[1])
    assert int(marks.get("data-count", "0")) == rows * 16


def test_cli_refuses_register_a(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["explain", "descriptor", "0x0", "--instr", INSTR + ":RS", "--operand", "A"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "EXPLAIN-RS-OPERAND" in err
    assert "registers" in err


# --- CuTe layouts -> descriptors -----------------------------------------------------------------


def test_readme_layout_synthesises_cutlass_descriptor() -> None:
    got = synthesize(SPEC, README_LAYOUT, a_operand(), majors=("K", "MN"))
    assert isinstance(got, Synthesis)
    d = got.desc
    assert (got.operand.major, d.swizzle, d.lbo, d.sbo, d.base_offset) == ("K", "128B", 16, 1024, 0)
    assert d.value == encode(0, 16, 1024, "128B")
    assert [b.desc.value for b in got.blocks] == [encode(32 * j, 16, 1024, "128B") for j in range(4)]
    assert got.block_steps() == {"k_block": 32, "mn_block": None}
    assert got.checked == 64 * 64


def test_bf16_swizzle_units_are_checked_not_assumed() -> None:
    """CuTe's Swizzle<3,4,3> for bf16 is the 128B swizzle only when it acts on byte addresses (as
    CuTe's smem pointer swizzle does). Read on the element offsets as written it is Swizzle<3,5,3>
    on bytes, no hardware mode; Swizzle<3,3,3> on bf16 elements is the 128B swizzle."""
    hw = canonical.row_swizzle(canonical.canonical_row(SPEC, "K", "128B"))
    assert str(hw) == "Swizzle<3,4,3>"
    elems = np.arange(8192)
    on_elems = np.array([Swizzle(3, 4, 3)(int(e)) * 2 for e in elems])
    on_bytes = np.array([hw(int(e) * 2) for e in elems])
    assert not np.array_equal(on_elems, on_bytes)
    assert np.array_equal(np.array([Swizzle(3, 3, 3)(int(e)) * 2 for e in elems]), on_bytes)
    op = a_operand()
    literal = synthesize(SPEC, README_LAYOUT, op, swizzle_unit="elements")
    assert isinstance(literal, Refusal)
    assert any("Swizzle<3,5,3>" in r for r in literal.reasons)
    fixes = {(s["layout"], s["swizzle_unit"]) for s in literal.suggestions}
    assert ("Swizzle<3,3,3> o 0 o ((8,8),64):((64,512),1)", "elements") in fixes
    assert (README_LAYOUT, "bytes") in fixes
    three = synthesize(SPEC, "Swizzle<3,3,3> o 0 o ((8,8),64):((64,512),1)", op,
                       swizzle_unit="elements")
    assert isinstance(three, Synthesis)
    assert three.desc.value == encode(0, 16, 1024, "128B")
    # 8-bit elements are bytes: both readings agree
    fp8 = resolve(SPEC, instr="wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", operand="A")
    text = "Swizzle<3,4,3> o 0 o ((8,8),128):((128,1024),1)"
    for unit in ("bytes", "elements"):
        got = synthesize(SPEC, text, fp8, swizzle_unit=unit)
        assert isinstance(got, Synthesis), unit
        assert got.desc.swizzle == "128B", unit


def test_mn_major_tile_is_found_with_imm_trans() -> None:
    text = "Swizzle<3,4,3> o 0 o (64,(8,2)):(1,(64,512))"
    got = synthesize(SPEC, text, a_operand(), majors=("K", "MN"))
    assert isinstance(got, Synthesis)
    assert (got.operand.major, got.operand.imm_trans, got.desc.swizzle, got.desc.sbo) == (
        "MN", 1, "128B", 1024)


def test_an_unaligned_start_gets_the_base_offset_field() -> None:
    got = synthesize(SPEC, README_LAYOUT, a_operand(), start=0x300)
    assert isinstance(got, Synthesis)
    assert got.desc.value == encode(0x300, 16, 1024, "128B", (0x300 >> 7) & 7)
    inside = synthesize(SPEC, README_LAYOUT, a_operand(), start=0x320)
    assert isinstance(inside, Refusal)
    assert any("inside a 128-byte row" in r for r in inside.reasons)


@pytest.mark.parametrize(("text", "reason", "suggested"), [
    ("Swizzle<3,4,3> o 0 o ((8,8),32):((32,256),1)", "rows are 64 B apart",
     "Swizzle<2,4,3> o 0 o ((8,8),32):((32,256),1)"),
    ("(64,16):(16,1)", "rows are 32 B apart", "Swizzle<1,4,3> o 0 o (64,16):(16,1)"),
])
def test_a_layout_no_descriptor_reads_is_refused_with_a_nearby_one(text: str, reason: str,
                                                                   suggested: str) -> None:
    got = synthesize(SPEC, text, a_operand())
    assert isinstance(got, Refusal)
    assert any(reason in r for r in got.reasons), got.reasons
    assert got.closest is not None
    assert got.closest["mismatches"] > 0
    assert suggested in {s["layout"] for s in got.suggestions}


def test_a_non_injective_layout_is_refused() -> None:
    got = synthesize(SPEC, "(64,16):(8,1)", a_operand())
    assert isinstance(got, Refusal)
    assert any("not injective" in r for r in got.reasons)


def test_layout_input_errors() -> None:
    with pytest.raises(ExplainError, match="EXPLAIN-LAYOUT-SHAPE"):
        synthesize(SPEC, "(32,16):(16,1)", a_operand())
    with pytest.raises(ExplainError, match="EXPLAIN-LAYOUT"):
        synthesize(SPEC, "Swizzle<3,4,3>", a_operand())
    with pytest.raises(ExplainError, match="top-level mode"):
        synthesize(SPEC, "(64,16,2):(16,1,1024)", a_operand())


def test_synthesis_and_explain_agree() -> None:
    """The descriptor synthesised for a layout is one explain calls valid."""
    for text in (README_LAYOUT, "((8,8),(8,2)):((8,64),(1,512))",
                 "Swizzle<2,4,3> o 0 o ((8,8),32):((32,256),1)"):
        got = synthesize(SPEC, text, a_operand())
        assert isinstance(got, Synthesis), text
        for b in got.blocks:
            assert explain_descriptor(SPEC, got.operand, b.desc.value).verdict == "valid"


def test_cli_layout(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["explain", "layout", README_LAYOUT, "--dtype", "bf16", "--instr", INSTR,
               "--operand", "A"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "K-major (imm-trans-a = 0), 128B swizzle, LBO 16 B (not used), SBO 1024 B" in out
    assert f"descriptor at start 0x0: {encode(0, 16, 1024, '128B'):#018x}" in out
    assert "proof.synthesis_equivalent[wgmma/canonical_layouts:K_SW128]" in out
    rc = main(["explain", "layout", README_LAYOUT, "--dtype", "bf16", "--major", "K",
               "--swizzle-unit", "elements", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert d["ok"] is False
    assert d["swizzle_on_bytes"] == "Swizzle<3,5,3>"
    rc = main(["explain", "layout", README_LAYOUT, "--dtype", "f16", "--mn", "64", "--k", "16",
               "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert d["descriptor"] == f"{encode(0, 16, 1024, '128B'):#018x}"
    assert len(d["blocks"]) == 4
    assert d["major"] == "K"
