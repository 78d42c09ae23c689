"""The distinguishing probes (oracle/proofs/distinguish.py): the smallest input that separates two
readings of a hypothesis (swizzle_unit, mn_lbo_sbo_roles, base_offset), a proof that none exists
over the claim's own descriptor domains, and readings that never differ.

The claims are built inside each test (`distinguish.claims(spec)`,
case_outcomes.prove_module_claim) and their outcome asserted by status, code and fields (the
probe's every field, its reason included); the messages' wording is pinned by
messages_proofs.py.

Expected values are worked by hand from distinguish.py's documented search order: (m, k) in
GRID_ORDER, then the least LBO, SBO, start and (mn, k); a probe is made at start 0 unless the
start is what is searched; both readings of mn_lbo_sbo_roles must be injective (LBO and SBO
outside the core's differences); the base_offset readings are swizzle(start + offset)
("absolute") and start + swizzle(offset) ("relative"). The rows: wgmma/canonical_layouts.yaml
(K_SW32 = Swizzle<1,4,3> o ((8,m),(T,2k)):((2T,SBO),(1,T)), MN_SW32 = Swizzle<1,4,3> o
((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))), T = 128 / element width, the descriptor's 16-byte
LBO/SBO granule and 18-bit range (wgmma/matrix_descriptor.yaml).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from case_outcomes import expect_named
from case_outcomes import prove_module_claim as _prove
from scratch_spec import edited_spec

from ptxconf.core.results import Result, Status
from ptxconf.oracle.proofs import distinguish
from ptxconf.oracle.spec import default_spec, load_spec

pytestmark = pytest.mark.z3

CANON = "wgmma/canonical_layouts"


def _probe(got: Result) -> dict[str, object]:
    """The probe a proved distinguish claim carries, tuples as lists, less its reason (the claim's
    message, whose wording messages_proofs.py pins)."""
    assert (got.status, got.code) == (Status.PASS, "ok"), got.message
    probe = dict(got.fields["facts"]["probe"])
    assert probe.pop("reason") == got.message
    return {k: list(v) if isinstance(v, tuple) else v for k, v in probe.items()}


def test_distinguish_claim_ids_name_the_row_and_type() -> None:
    """A claim is keyed by row and element type; the roles hypothesis concerns MN-major rows only."""
    ids = [c.id for c in distinguish.claims(default_spec())]
    assert f"proof.distinguish_swizzle_unit[{CANON}:K_SW32.f16]" in ids
    assert f"proof.distinguish_mn_lbo_sbo_roles[{CANON}:MN_SW32.f16]" in ids
    assert not any(re.search(r"mn_lbo_sbo_roles\[.*:K_", i) for i in ids)


def test_swizzle_unit_probe_of_k_sw32_f16() -> None:
    """K_SW32 f16 at m = k = 1 (the first (m, k)), LBO = SBO = 0 (the least): rows are 2T = 16
    elements = 32 B apart; rows 0..3 (bytes < 128, elements < 64) have no bit 7 in either unit,
    row 4 at 128 B does under bytes (bit 7 flips bit 4: 0x90) and not under elements (element
    64, bit 7 clear: 0x80)."""
    got = _prove(distinguish, default_spec(), f"proof.distinguish_swizzle_unit[{CANON}:K_SW32.f16]")
    assert "(mn 4, k 0: row 4, chunk 0)" in got.message, got.message
    assert _probe(got) == {
        "hypothesis": "swizzle_unit", "readings": ["bytes", "elements"], "row": f"{CANON}:K_SW32",
        "major": "K", "swizzle": "32B", "dtype": "f16", "distinguishable": True,
        "m": 1, "k": 1, "mn_elems": 8, "k_elems": 16, "lbo_bytes": 0, "sbo_bytes": 0,
        "start_bytes": 0, "coord": [4, 0], "addresses": [0x90, 0x80], "units": "bytes"}


def test_roles_probe_of_mn_sw32_f16() -> None:
    """MN_SW32 f16: at m = k = 1 neither LBO nor SBO is used; at m = 2, k = 1 the m leaf steps
    LBO (as documented) or SBO (swapped). The core (T,2)x8 rows is elements 0..127 (256 B), so
    both readings are injective iff the stepping value is >= 0x100: LBO = 0x100, then SBO = 0x110
    (the least multiple of 16 B past 0x100 that differs from LBO). The least coordinate with the
    m index 1 is mn = 16, k = 0: 0x100 vs 0x110 (bit 7 clear, no swizzle flip)."""
    got = _prove(distinguish, default_spec(),
                 f"proof.distinguish_mn_lbo_sbo_roles[{CANON}:MN_SW32.f16]")
    assert "(mn 16, k 0: row 0, chunk 2)" in got.message, got.message
    assert got.fields["statement"] == (
        "MN_SW32 f16: find the smallest input that separates the mn_lbo_sbo_roles readings, or "
        "prove there is none")
    assert _probe(got) == {
        "hypothesis": "mn_lbo_sbo_roles", "readings": ["as_documented", "swapped"],
        "row": f"{CANON}:MN_SW32", "major": "MN", "swizzle": "32B", "dtype": "f16",
        "distinguishable": True, "m": 2, "k": 1, "mn_elems": 32, "k_elems": 8,
        "lbo_bytes": 0x100, "sbo_bytes": 0x110, "start_bytes": 0, "coord": [16, 0],
        "addresses": [0x100, 0x110], "units": "bytes"}


def test_roles_that_never_differ_name_the_last_grid_point(tmp_path: Path) -> None:
    """MN_SW32 with LBO and SBO replaced by constants (2T, 4T): swapping them changes nothing,
    so no (m, k) of GRID_ORDER up to its last, (2, 2), separates the readings."""
    spec = edited_spec(tmp_path, "wgmma/canonical_layouts.yaml",
                       'layout: "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))"',
                       'layout: "((T,2,m),(8,k)):((1,T,2T),(2T,4T))"')
    got = _prove(distinguish, spec, f"proof.distinguish_mn_lbo_sbo_roles[{CANON}:MN_SW32.f16]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.FAIL, "raised", "error")
    assert (got.fields["counterexample"], got.fields["reproduce_python"]) == (None, None)
    expect_named(got, "MN_SW32", "(2, 2)")


def test_base_offset_probe_of_k_sw32_f16() -> None:
    """K_SW32 f16 at m = k = 1: ((8,1),(8,2)):((16,0),(1,8)) puts (mn, k) at 32 mn + 2k bytes
    (0..254); LBO = SBO = 0 (unused at m = 1, minimized first). Start 0 gives both readings the
    same; at start 0x10 they differ where start + offset carries into bit 7 (absolute flips
    bit 4 there, relative does not): the least mn is 3 (offsets 96..126), the least k 8 (0x70:
    0x70 + 0x10 = 0x80, swizzled 0x90, less the start 0x80; relative 0x70). Extent: 8 x 16."""
    got = _prove(distinguish, default_spec(), f"proof.distinguish_base_offset[{CANON}:K_SW32.f16]")
    assert "(mn 3, k 8: row 3, chunk 1)" in got.message, got.message
    assert got.fields["statement"] == ("K_SW32 f16: find the smallest input that separates the "
                                       "base_offset readings, or prove there is none")
    assert _probe(got) == {
        "hypothesis": "base_offset", "readings": ["absolute", "relative"],
        "row": f"{CANON}:K_SW32", "major": "K", "swizzle": "32B", "dtype": "f16",
        "distinguishable": True, "m": 1, "k": 1, "mn_elems": 8, "k_elems": 16,
        "lbo_bytes": 0, "sbo_bytes": 0, "start_bytes": 0x10, "coord": [3, 8],
        "addresses": [0x80, 0x70], "units": "bytes"}


def test_base_offset_search_ranges_over_the_claims_own_descriptor(tmp_path: Path) -> None:
    """A spec whose starts are 0 or 16 B (start_address address_bits 5: 2^5 - 16 = 16), whose
    SBO holds only 0 (stride_byte_offset address_bits 4: 2^4 - 16 = 0), and whose K_SW32
    swizzle is Swizzle<1,4,6> (bit 10 flips bit 4). With SBO = 0 the m repeat lands on the core:
    (8,m)x(T,2k) at k <= 8 reaches 32 * 7 + 2 * 127 = 478 B, + 16 stays below 1024, so bit 10 is
    never set and both readings agree for every m, k <= 8: no probe in GRID_ORDER (one query
    each), then the operands' satisfiability and the proof: 6 queries. (The bundled SBO's 16-B
    steps would separate them at m = 2 with SBO 0x300: 0x3f0 + 0x10 reaches bit 10.)"""
    spec = edited_spec(
        tmp_path, "wgmma/matrix_descriptor.yaml",
        "lsb_bits: 0, width_bits: 14, encode_shift_bits: 4, address_bits: 18}",
        "lsb_bits: 0, width_bits: 14, encode_shift_bits: 4, address_bits: 5}",
        also=[("lsb_bits: 32, width_bits: 14, encode_shift_bits: 4, address_bits: 18}",
               "lsb_bits: 32, width_bits: 14, encode_shift_bits: 4, address_bits: 4}")])
    rows = spec.root / "wgmma/canonical_layouts.yaml"
    k_sw32 = 'layout: "((8,m),(T,2k)):((2T,SBO),(1,T))", swizzle_bits: 1, swizzle_base: 4, '
    text = rows.read_text()
    assert text.count(f"{k_sw32}swizzle_shift: 3}}") == 1
    rows.write_text(text.replace(f"{k_sw32}swizzle_shift: 3}}", f"{k_sw32}swizzle_shift: 6}}"))
    got = _prove(distinguish, load_spec(spec.root),
                 f"proof.distinguish_base_offset[{CANON}:K_SW32.f16]")
    assert (set(got.fields["facts"]), got.fields["facts"]["queries"]) == ({"queries", "probe"}, 6)
    assert "k <= 8" in got.message, got.message
    assert _probe(got) == {
        "hypothesis": "base_offset", "readings": ["absolute", "relative"],
        "row": f"{CANON}:K_SW32", "major": "K", "swizzle": "32B", "dtype": "f16",
        "distinguishable": False, "m": None, "k": None, "mn_elems": None,
        "k_elems": None, "lbo_bytes": None, "sbo_bytes": None, "start_bytes": None, "coord": None,
        "addresses": None, "units": "bytes"}
