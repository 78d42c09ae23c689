"""Z3 encodings and claims of oracle/proofs/ (encode, examples, distinguish) that mutation testing
found unasserted (reports/mutation/README.md, the first sample of `proofs/`).

conformance/test_proofs.py builds every claim at collection time (in mutmut's parent process,
with the original code) and computes the distinguishing probes in a module fixture; these tests
build the claims inside the test (the module's own `claims(spec)`), prove the one with the wanted
id through `ptxconf.oracle.proofs.cases.run_claim` and compare the whole outcome: status, code,
message, statement, counterexample, and a probe's every field. The encoder's helpers are called
directly on small inputs.

Expected values are worked by hand:

* from CuTe's Swizzle<B,M,S>: x ^ ((x >> S) & (((1 << B) - 1) << M)); under the "bytes" reading
  a swizzle of byte addresses acts on bit addresses as Swizzle<B,M+3,S> (encode.py's docstring:
  addresses are bit addresses), under "elements" it acts on the element offset;
* from the bundled spec's rows: the canonical layouts (wgmma/canonical_layouts.yaml: K_INTER =
  ((8,m),(T,2k)):((1T,SBO),(1,LBO)), K_SW32 = Swizzle<1,4,3> o ((8,m),(T,2k)):((2T,SBO),(1,T)),
  MN_SW32 = Swizzle<1,4,3> o ((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))), T = 128 / element width,
  Figure 166 (wgmma/worked_examples.yaml: tf32, T = 4, m = k = 2, LBO = 64, SBO = 32 elements,
  exact layout ((8,2),(4,4)):((4,32),(1,64))), the descriptor's 16-byte LBO/SBO granule and
  18-bit range (wgmma/matrix_descriptor.yaml);
* from distinguish.py's documented search order: (m, k) in GRID_ORDER, then the least LBO, SBO,
  start and (mn, k); a probe is made at start 0 unless the start is what is searched; both
  readings of mn_lbo_sbo_roles must be injective (LBO and SBO outside the core's differences);
* a refutation comes from a scratch copy of the bundled spec with one row's text edited
  (conformance/scratch_spec.py), its counterexample checked against the edited row worked by
  hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import z3
from case_outcomes import prove_module_claim as _prove
from scratch_spec import edited_spec

from ptxconf.core.results import Result, Status
from ptxconf.oracle.algebra.swizzle import Swizzle
from ptxconf.oracle.proofs import distinguish, examples
from ptxconf.oracle.proofs.encode import Affine, Encoder, bit_form
from ptxconf.oracle.spec import default_spec

CANON = "wgmma/canonical_layouts"
FIG166 = "wgmma/worked_examples:fig166.K.none.tf32"
K_INTER = "((8,m),(T,2k)):((1T,SBO),(1,LBO))"
K_SW32 = "((8,m),(T,2k)):((2T,SBO),(1,T))"


# --- encode ------------------------------------------------------------------------------------

def test_affine_text_writes_the_constant_first() -> None:
    """const + coef * name: ``8+LBO``; a coefficient 2 is written ``2k``; a zero constant with
    no term is ``0``, with terms it is left out."""
    assert str(Affine(8, (("LBO", 1),))) == "8+LBO"
    assert str(Affine(0, (("k", 2),))) == "2k"
    assert str(Affine(0)) == "0"
    assert str(Affine(3, (("m", 1), ("SBO", 16)))) == "3+m+16SBO"


def test_bit_form_symbols_are_the_template_names_it_uses() -> None:
    """K_INTER's shapes use m and k, its strides SBO and LBO; K_SW32 steps k by T, so no LBO."""
    assert bit_form(K_INTER, 16, t=8).symbols() == frozenset({"m", "k", "SBO", "LBO"})
    assert bit_form(K_SW32, 16, t=8).symbols() == frozenset({"m", "k", "SBO"})


def test_address_at_swizzles_the_start_with_the_offset() -> None:
    """K_SW32, f16 (T = 8): a start of 128 B is bit address 1024; Swizzle<1,4,3> on bytes is
    Swizzle<1,7,3> on bits: 1024 ^ ((1024 >> 3) & 0x80) = 1152 (byte 0x90); relative: 1024 +
    swizzle(0) = 1024. Row 4 is 4 * 2T = 64 elements = 1024 bits on: 1152 from start 0 too."""
    form = bit_form(K_SW32, 16, t=8, swizzle=Swizzle(1, 4, 3))
    enc = Encoder(z3.Context())
    env = {"m": 1, "k": 1, "LBO": 0, "SBO": 0}
    origin = (0, 0, 0, 0)
    assert enc.address_at(form, origin, env) == 0
    assert enc.address_at(form, origin, env, 1024) == 1152
    assert enc.address_at(form, origin, env, 1024, relative=True) == 1024
    assert enc.address_at(form, (4, 0, 0, 0), env) == 1152


def test_is_pow2_multiple_of_a_symbolic_power() -> None:
    """48 = 3 * 16 is a multiple of 2^4, not of 2^5; 0 is a multiple of any power."""
    enc = Encoder(z3.Context())
    cases = [(48, 4, True), (48, 5, False), (0, 7, True), (1, 0, True), (1, 1, False)]
    for x, log2, want in cases:
        got = z3.simplify(enc.is_pow2_multiple(enc.val(x), enc.val(log2)))
        assert z3.is_true(got) is want, (x, log2)
    assert len(cases) == 5


def test_is_pow2_multiple_at_other_widths_than_the_encoders() -> None:
    """On a 32-bit encoder, a 64-bit x (a descriptor) and a 16-bit x, with an 8-bit symbolic
    log2: 48 = 3 * 16 is a multiple of 2^4, not of 2^5; 2^40 of 2^40, not of 2^41."""
    enc = Encoder(z3.Context())
    cases = [(48, 64, 4, True), (48, 64, 5, False), (1 << 40, 64, 40, True),
             (1 << 40, 64, 41, False), (48, 16, 4, True), (48, 16, 5, False)]
    for x, width, log2, want in cases:
        got = z3.simplify(enc.is_pow2_multiple(enc.val(x, width), enc.val(log2, 8)))
        assert z3.is_true(got) is want, (x, width, log2)
    assert len(cases) == 6


# --- examples ----------------------------------------------------------------------------------

def test_figure_166_matches_its_canonical_formula() -> None:
    """K_INTER's template at T = 4, m = k = 2, LBO = 64, SBO = 32 is ((8,2),(4,4)):((4,32),(1,64)),
    Figure 166's exact layout, at every coordinate (one query, unsat)."""
    got = _prove(examples, default_spec(), f"proof.example_matches_canonical[{FIG166}]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert got.message == (
        "Figure 166: Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64)) == Swizzle<0,4,3> o "
        f"{K_INTER} at T=4, m=2, k=2, LBO=64, SBO=32 at every coordinate (bytes reading)")
    assert got.fields["statement"] == (
        f"Figure 166's exact layout equals Swizzle<0,4,3> o {K_INTER} at T=4, m=2, k=2, LBO=64, "
        "SBO=32 (elements)")
    assert got.fields["facts"] == {"queries": 1}
    assert (got.fields["counterexample"], got.fields["reproduce"]) == (None, None)


def test_figure_166_with_a_wrong_lbo_stride_is_refuted(tmp_path: Path) -> None:
    """The exact layout's LBO stride edited to 80: (mn, k) = (r + 8i, j + 4q) lies at
    4 * (4r + 32i + j + 80q) bytes, the formula puts it at 4 * (4r + 32i + j + 64q): they part
    exactly where q >= 1; K-major tf32: row mn, chunk k * 32 / 128."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml",
                       '"Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))"',
                       '"Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,80))"')
    got = _prove(examples, spec, f"proof.example_matches_canonical[{FIG166}]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    cex = got.fields["counterexample"]
    at = cex["coordinate"]
    mn, k = at["mn"], at["k"]
    assert at == {"mn": mn, "k": k, "row": mn, "chunk": k // 4}
    r, i, j, q = mn % 8, mn // 8, k % 4, k // 4
    assert q >= 1 and i < 2 and q < 4
    exact, formula = (4 * (4 * r + 32 * i + j + lbo * q) for lbo in (80, 64))
    assert (cex["exact"], cex["formula"]) == (f"{exact:#05x}", f"{formula:#05x}")
    assert got.message == (f"Figure 166: at (mn {mn}, k {k}: row {mn}, chunk {k // 4}) the exact "
                           f"layout gives {exact:#05x}, the formula {formula:#05x}")
    line_e, line_t = got.fields["reproduce"].split(" && ")
    assert "L = parse('Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,80))')" in line_e
    assert "L = instantiate(r, 4, 2, 2, 64, 32)" in line_t


# --- distinguish -------------------------------------------------------------------------------

def _probe(got: Result) -> dict[str, object]:
    """The probe a proved distinguish claim carries, tuples as lists."""
    assert (got.status, got.code) == (Status.PASS, "ok"), got.message
    probe = got.fields["facts"]["probe"]
    return {k: list(v) if isinstance(v, tuple) else v for k, v in probe.items()}


def test_swizzle_unit_probe_of_k_sw32_f16() -> None:
    """K_SW32 f16 at m = k = 1 (the first (m, k)), LBO = SBO = 0 (the least): rows are 2T = 16
    elements = 32 B apart; rows 0..3 (bytes < 128, elements < 64) have no bit 7 in either unit,
    row 4 at 128 B does under bytes (bit 7 flips bit 4: 0x90) and not under elements (element
    64, bit 7 clear: 0x80)."""
    got = _prove(distinguish, default_spec(), f"proof.distinguish_swizzle_unit[{CANON}:K_SW32.f16]")
    reason = ("K_SW32 f16 m=1 k=1 LBO=0x0 SBO=0x0: (mn 4, k 0: row 4, chunk 0) is at 0x90 (bytes) "
              "vs 0x80 (elements) bytes from the start")
    assert got.message == reason
    assert _probe(got) == {
        "hypothesis": "swizzle_unit", "readings": ["bytes", "elements"], "row": f"{CANON}:K_SW32",
        "major": "K", "swizzle": "32B", "dtype": "f16", "distinguishable": True, "reason": reason,
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
    reason = ("MN_SW32 f16 m=2 k=1 LBO=0x100 SBO=0x110: (mn 16, k 0: row 0, chunk 2) is at 0x100 "
              "(as_documented) vs 0x110 (swapped) bytes from the start")
    assert got.message == reason
    assert got.fields["statement"] == (
        "MN_SW32 f16: find the smallest input that separates the mn_lbo_sbo_roles readings, or "
        "prove there is none")
    assert _probe(got) == {
        "hypothesis": "mn_lbo_sbo_roles", "readings": ["as_documented", "swapped"],
        "row": f"{CANON}:MN_SW32", "major": "MN", "swizzle": "32B", "dtype": "f16",
        "distinguishable": True, "reason": reason, "m": 2, "k": 1, "mn_elems": 32, "k_elems": 8,
        "lbo_bytes": 0x100, "sbo_bytes": 0x110, "start_bytes": 0, "coord": [16, 0],
        "addresses": [0x100, 0x110], "units": "bytes"}


def test_distinguish_claim_ids_name_the_row_and_type() -> None:
    """A claim is keyed by row and element type; the roles hypothesis concerns MN-major rows only."""
    ids = [c.id for c in distinguish.claims(default_spec())]
    assert f"proof.distinguish_swizzle_unit[{CANON}:K_SW32.f16]" in ids
    assert f"proof.distinguish_mn_lbo_sbo_roles[{CANON}:MN_SW32.f16]" in ids
    assert not any(re.search(r"mn_lbo_sbo_roles\[.*:K_", i) for i in ids)
