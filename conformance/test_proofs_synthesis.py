"""The synthesis proof (oracle/proofs/synthesis.py): CuTe's tile of a canonical row, the claim that
the descriptor `ptxconf explain layout` synthesises reads that tile exactly, a tile it does not
read refuted, and a vacuous domain refused; `ptxconf prove` proves every canonical row's
synthesis, and a descriptor with the SBO off by one group is refuted.

These build CuTe's tile, the claim and the proof inside the test (test_proofs.py builds every
claim when it is collected) and assert status, code and every field (proof_status, statement,
facts, counterexample, reproduce); the messages' wording is pinned by messages_proofs.py.

Expected values are worked by hand:

* CuTe DSL's atom (cutedsl/atom_selection.yaml): MN-major (c, 8):(1, c), c = contiguous bits /
  element width (SW32: 256 / 16 = 16; INTER: 128 / 16 = 8), composed with the row's
  Swizzle<bits, 4, 3> (none for INTER); tile_to_shape to the A operand (M = 64, f16's K = 16
  from wgmma/instruction_types.yaml, each widened to whole atoms), the K mode repeated first for
  an MN-major tile (order (1, 0));
* the MN-major no-swizzle template ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) (T = 128 / 16 = 8):
  LBO steps along K from one 8 columns to the next (leading_byte_offset.yaml, LBO.MN.none),
  SBO along MN from one core matrix to the next (stride_byte_offset.yaml, SBO.MN.none); in the
  tile ((8,8),(8,2)):((1,128),(8,64)) those are 64 elements = 128 B and 128 elements = 256 B;
* the descriptor fields (wgmma/matrix_descriptor.yaml): start bits 0-13, LBO 16-29 and SBO
  32-45, each the byte value >> 4; layout type bits 62-63 (none: 0): LBO 128 B -> 8 << 16,
  SBO 256 B -> 16 << 32, so 0x0000001000080000;
* the MN-major 32-B template ((T,2,m),(8,k)):((1,T,LBO),(2T,SBO)): LBO steps along MN after
  swizzle-byte-size/16 = 2 rows (LBO.MN.swizzled), SBO along K after 8 columns
  (SBO.MN.swizzled); the layout-type code of 32B is 3, and its swizzle repeats every 256 B
  (base_offset.32B);
* no swizzle has no base-offset rule, so starts are aligned to 16 B (one chunk); one K block
  (the tile's K is the instruction's 16) has no k-block step: "start + 0 B";
* Swizzle<1,4,3> on a byte address flips bit 4 when bit 7 is set (the CuTeDSL blog's
  definition of Swizzle<B,M,S>: bit M+i XOR bit M+S+i, i < B);
* runner.py's `satisfiable` guards against a vacuous proof: when no start and element meet the
  domain (here an operand whose K is cut to 0) the proof raises, saying which domain (starts
  aligned to the repeat, below 2^18 less the tile's span: its last byte address + 16).
"""

from __future__ import annotations

import dataclasses
import json

import pytest
import z3
from case_outcomes import expect_fields, raises_naming

from ptxconf.app.cli import main
from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.oracle import canonical
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.synthesize import Synthesis, synthesize
from ptxconf.oracle.proofs import synthesis
from ptxconf.oracle.proofs.cases import claim_case
from ptxconf.oracle.proofs.runner import Prover, Refuted
from ptxconf.oracle.records import CanonicalLayout
from ptxconf.oracle.spec import Spec, default_spec

pytestmark = pytest.mark.z3

TIMEOUT_S = 30.0
MN_INTER_F16 = "((8,8),(8,2)):((1,128),(8,64))"
MN_INTER_DESC = "0x0000001000080000"


def _statement(row_id: str) -> str:
    return (f"the descriptor `ptxconf explain layout` synthesises for CuTe's {row_id} tile reads "
            "every element where the tile puts it, for every start aligned to the swizzle repeat")


@pytest.fixture(scope="module")
def spec() -> Spec:
    return default_spec()


def _row(spec: Spec, row_id: str) -> CanonicalLayout:
    found = [r for r in spec.of(CanonicalLayout) if r.id == row_id]
    assert len(found) == 1, row_id
    return found[0]


def test_cute_tile_of_the_mn_32b_row(spec: Spec) -> None:
    """MN_SW32, f16: atom (16,8):(1,16), tiled to 64x16 K first, under Swizzle<1,4,3>."""
    text, op = synthesis.cute_tile(spec, _row(spec, "MN_SW32"), "f16")
    # K: 16 / 8 = 2 atoms, stride 16 * 8 = 128; MN: 64 / 16 = 4 atoms, stride 128 * 2 = 256
    assert text == "Swizzle<1,4,3> o 0 o ((16,4),(8,2)):((1,256),(16,128))"
    assert op == Operand("f16", "MN", 64, 16, 16, "A", None)


def test_cute_tile_of_the_mn_interleaved_row_has_no_swizzle(spec: Spec) -> None:
    """MN_INTER, f16: atom (8,8):(1,8), tiled to 64x16, printed without a swizzle."""
    text, op = synthesis.cute_tile(spec, _row(spec, "MN_INTER"), "f16")
    assert text == MN_INTER_F16
    assert (op.mn, op.k, op.bits, op.major) == (64, 16, 16, "MN")


def test_the_mn_interleaved_tile_is_read_by_its_synthesised_descriptor(spec: Spec) -> None:
    """proof.synthesis_equivalent[MN_INTER]: f16 only (MN-major), one block, LBO 128, SBO 256."""
    row = _row(spec, "MN_INTER")
    claim = synthesis.synthesis_equivalent(spec, row)
    assert claim.id == "proof.synthesis_equivalent[wgmma/canonical_layouts:MN_INTER]"
    got = execute(claim_case(claim, TIMEOUT_S))
    # one query for the domain (satisfiable), one per block (find)
    expect_fields(got, Status.PASS, "ok", proof_status="proved", statement=_statement("MN_INTER"),
                  facts={"queries": 2, "types": {"f16": {
                      "layout": MN_INTER_F16, "swizzle": "none", "lbo": 128, "sbo": 256,
                      "k_block_step": None, "descriptors": {"0,0": MN_INTER_DESC},
                      "repeat_bytes": 16}}},
                  counterexample=None, reproduce_python=None)
    assert "(1 in all)" in got.message, got.message


def test_a_tile_swizzled_where_the_descriptor_is_not_is_refuted(spec: Spec) -> None:
    """MN_INTER's f16 descriptor against the same tile under Swizzle<1,4,3>: they part where
    the tensor core's byte address has bit 7 set (CuTe's flips bit 4 there)."""
    row = _row(spec, "MN_INTER")
    op = Operand("f16", "MN", 64, 16, 16, "A", None)
    syn = synthesize(spec, MN_INTER_F16, op, majors=("MN",), start=0, swizzle_unit="bytes")
    wrong = f"Swizzle<1,4,3> o 0 o {MN_INTER_F16}"
    with pytest.raises(Refuted) as info:
        synthesis.prove_tile(Prover(z3.Context(), TIMEOUT_S), spec, row, wrong, op, syn)
    cex = info.value.counterexample
    assert set(cex) == {"layout", "dtype", "start", "mn", "k", "descriptor"}
    assert (cex["layout"], cex["dtype"], cex["descriptor"]) == (wrong, "f16", MN_INTER_DESC)
    start, mn, k = cex["start"], cex["mn"], cex["k"]
    assert start % 16 == 0, cex
    assert (0 <= mn < 64, 0 <= k < 16) == (True, True), cex
    # the tile's element offset, in f16 elements, then bytes from the start
    hw = start + 2 * ((mn % 8) * 1 + (mn // 8) * 128 + (k % 8) * 8 + (k // 8) * 64)
    assert hw >> 7 & 1, f"{hw:#x}: bit 7 clear, the swizzle would not move it"
    cute = hw ^ 1 << 4
    reason = info.value.reason
    for named in ("MN_INTER f16", "block (0, 0)", f"start {start:#x}", f"(mn {mn}, k {k})",
                  f"reads {hw:#x}", f"at {cute:#x}"):
        assert named in reason, (named, reason)
    assert info.value.reproduce == (f'ptxconf explain layout "{wrong}" --dtype f16 --major MN '
                                    f"--mn 64 --k 16 --start-address {start:#x}")


def test_the_mn_32b_tile_is_read_with_the_swizzle_on_bytes(spec: Spec) -> None:
    """proof.synthesis_equivalent[MN_SW32]: f16, one block, LBO 512, SBO 256, the 256-B repeat."""
    row = _row(spec, "MN_SW32")
    got = execute(claim_case(synthesis.synthesis_equivalent(spec, row), TIMEOUT_S))
    # CuTe's tile (test_cute_tile_of_the_mn_32b_row): MN (16,4):(1,256), K (8,2):(16,128).
    # LBO.MN.swizzled steps along MN after swizzle-byte-size/16 = 2 rows of T = 8: 256 elems =
    # 512 B; SBO.MN.swizzled steps along K after 8 columns: 128 elems = 256 B. The descriptor:
    # LBO 512 >> 4 = 32 << 16, SBO 256 >> 4 = 16 << 32, layout type 32B = 3 << 62; start 0.
    # The 32-B swizzle repeats every 256 B (base_offset.32B).
    layout = "Swizzle<1,4,3> o 0 o ((16,4),(8,2)):((1,256),(16,128))"
    expect_fields(got, Status.PASS, "ok", proof_status="proved", statement=_statement("MN_SW32"),
                  facts={"queries": 2, "types": {"f16": {
                      "layout": layout, "swizzle": "32B", "lbo": 512, "sbo": 256,
                      "k_block_step": None,
                      "descriptors": {"0,0": f"{3 << 62 | 16 << 32 | 32 << 16:#018x}"},
                      "repeat_bytes": 256}}},
                  counterexample=None, reproduce_python=None)


def test_a_tile_with_no_element_is_a_vacuous_proof_not_a_pass(spec: Spec) -> None:
    """MN_INTER's f16 tile ((8,8),(8,2)):((1,128),(8,64)) with the operand's K cut to 0: no j
    < 0, so the domain is empty and the proof says so. The tile's last element is at 7 + 7*128
    + 7*8 + 64 = 1023 elements = 2046 B, so the span is 2046 + 16 = 2062 B; no swizzle: 16-B
    starts."""
    row = _row(spec, "MN_INTER")
    tile = MN_INTER_F16
    op = Operand("f16", "MN", 64, 16, 16, "A", None)
    syn = synthesize(spec, tile, op, majors=("MN",), start=0, swizzle_unit="bytes")
    with raises_naming(AssertionError, "vacuous proof", "16 B", "2^18 - 2062"):
        synthesis.prove_tile(Prover(z3.Context(), 30.0), spec, row, tile,
                             dataclasses.replace(op, k=0), syn)


# --- every canonical row's synthesis proved, and a wrong descriptor refuted (moved from
# --- test_explain.py) ------------------------------------------------------------------------


def test_synthesis_is_proved_for_every_canonical_row(spec: Spec,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`ptxconf prove --only synthesis_equivalent`: one proved case per canonical row."""
    rc = main(["prove", "--only", "synthesis_equivalent", "--json"])
    rows = json.loads(capsys.readouterr().out)["results"]
    assert rc == 0
    assert {r["id"] for r in rows} == {f"proof.synthesis_equivalent[{c.key}]"
                                       for c in spec.of(CanonicalLayout)}
    assert all(r["status"] == "proved" for r in rows), [r["message"] for r in rows]


def test_the_synthesis_proof_refutes_a_wrong_descriptor(spec: Spec) -> None:
    """Not vacuous: the same Z3 query with the SBO off by one group finds a start and element."""
    row = canonical.canonical_row(spec, "K", "128B")
    text, op = synthesis.cute_tile(spec, row, "f16")
    syn = synthesize(spec, text, op)
    assert isinstance(syn, Synthesis)
    synthesis.prove_tile(Prover(z3.Context(), 30), spec, row, text, op, syn)
    bad = dataclasses.replace(syn, blocks=tuple(
        dataclasses.replace(b, desc=b.desc.with_fields(spec, sbo=2048)) for b in syn.blocks))
    with pytest.raises(Refuted) as err:
        synthesis.prove_tile(Prover(z3.Context(), 30), spec, row, text, op, bad)
    assert "CuTe's tile puts it at" in err.value.reason
