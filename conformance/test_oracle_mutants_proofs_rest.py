"""Z3 claims of oracle/proofs/ (examples, distinguish, swizzles, descriptors, params, runner) that
mutation testing found unasserted (reports/mutation/README.md, the seed-2 sample of `proofs/`).

conformance/test_proofs.py builds every claim at collection time, which mutmut does in its parent
process with the original code; these tests build the claims inside the test (the module's own
`claims(spec)`), prove the one with the wanted id through `ptxconf.oracle.proofs.cases.run_claim`
and compare the whole outcome a report shows: status, code, message, statement, counterexample,
reproduce and facts (all but Z3's query count where that count depends on a model Z3 chose).
Most survivors sit in a branch taken only when a claim fails: it is reached with a scratch copy
of the bundled spec with one row's text edited (conformance/scratch_spec.py), or, where no row
can take it there (the oracle disagreeing with the encoding, Z3 giving no reason for unknown),
with a stand-in for that one piece.

Expected values are worked by hand:

* from the bundled spec's rows: Figure 166 (wgmma/worked_examples.yaml: tf32, K-major, no
  swizzle, exact layout Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64)), LBO 64 elements;
  K_INTER steps by LBO), the canonical layouts (wgmma/canonical_layouts.yaml: K_SW32 =
  Swizzle<1,4,3> o ((8,m),(T,2k)):((2T,SBO),(1,T)), MN_SW32 = ((T,2,m),(8,k)):((1,T,LBO),
  (2T,SBO))), T = 128 / element width, the descriptor fields (wgmma/matrix_descriptor.yaml:
  start_address bits [0, 14) storing a >> 4 of an 18-bit address, leading_byte_offset [16, 30)
  and stride_byte_offset [32, 46) the same, base_offset [49, 52), layout_type [62, 64)) and the
  CuTeDSL period rows (cutedsl/worked_examples.yaml: period.S143 = Swizzle<1,4,3>, period_units
  256);
* from CuTe's Swizzle<B,M,S>: x ^ ((x >> S) & (((1 << B) - 1) << M)), which flips bits M..M+B-1
  with bits M+S..M+S+B-1 and commutes with +2^q only from q = B+M+S on;
* from the documented claims (oracle/proofs/*.py docstrings): a figure's exact layout is
  injective, and a refutation names the two coordinates at the least shared address and the
  figure's (major, swizzle, type, k); the base_offset readings are swizzle(start + offset)
  ("absolute") and start + swizzle(offset) ("relative"), searched smallest first in (m, k) of
  GRID_ORDER, then LBO, SBO, start, (mn, k), each over the claim's own spec's descriptor
  domains, and proved to coincide where no probe is found; a descriptor field's round trip names the fields
  its bits overlap; the period claim's searches try q = 0, 1, ... in order (one query each);
  `Prover.find` turns unknown into `Unknown` with Z3's reason, "unknown" when it gives none.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import z3
from case_outcomes import prove_module_claim as _prove
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.proofs import descriptors, distinguish, examples, params, render, swizzles
from ptxconf.oracle.proofs.runner import Prover, Unknown
from ptxconf.oracle.spec import Spec, default_spec, load_spec

pytest.importorskip("z3")

CANON = "wgmma/canonical_layouts"
FIG166 = "wgmma/worked_examples:fig166.K.none.tf32"
FIG166_EXACT = "Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))"
FIG166_OVERLAPPING = "Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,16))"


# --- examples ----------------------------------------------------------------------------------

def test_figure_166_exact_layout_is_injective() -> None:
    """((8,2),(4,4)):((4,32),(1,64)): 8 * 2 * 4 * 4 = 256 coordinates, offsets 4r + 32i + j + 64q
    all distinct (4r + j covers 0..31 once, 32i 0 or 32, 64q 0..192); one query, unsat."""
    got = _prove(examples, default_spec(), f"proof.example_injective[{FIG166}]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    assert got.message == (f"Figure 166: {FIG166_EXACT} maps its 256 coordinates to distinct "
                           "addresses (bytes reading)")
    assert got.fields == {"proof_status": "proved",
                          "statement": f"Figure 166's exact layout {FIG166_EXACT} is injective",
                          "counterexample": None, "reproduce": None, "facts": {"queries": 1}}


def _overlapping_fig166(tmp_path: Path) -> Spec:
    """Figure 166 with its LBO stride edited from 64 to 16."""
    return edited_spec(tmp_path, "wgmma/worked_examples.yaml", f'"{FIG166_EXACT}"',
                       f'"{FIG166_OVERLAPPING}"')


def test_figure_166_with_an_overlapping_stride_is_refuted(tmp_path: Path) -> None:
    """The exact layout's LBO stride edited to 16: (mn, k) = (r + 8i, j + 4q) lies at element
    4r + 32i + j + 16q; below 16 only q = i = 0, where 4r + j is distinct; 16 is both (r 4, q 0)
    = (mn 4, k 0) and (r 0, q 1) = (mn 0, k 4), and nothing else: 16 tf32 elements = 0x040 B.
    K-major tf32: row mn, chunk k * 32 / 128 (Z3 picks which point comes first)."""
    got = _prove(examples, _overlapping_fig166(tmp_path), f"proof.example_injective[{FIG166}]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    p4 = {"mn": 4, "k": 0, "row": 4, "chunk": 0, "address": "0x040"}
    p0 = {"mn": 0, "k": 4, "row": 0, "chunk": 1, "address": "0x040"}
    points = got.fields["counterexample"]["points"]
    assert points in ([p4, p0], [p0, p4]), points
    texts = {4: "(mn 4, k 0: row 4, chunk 0)", 0: "(mn 0, k 4: row 0, chunk 1)"}
    first, second = (texts[p["mn"]] for p in points)
    summary = f"Figure 166 (K-major, none, tf32, k=2): {first} and {second} both at 0x040"
    assert got.fields["counterexample"] == {"summary": summary, "points": points}
    assert got.message == f"{summary}: {FIG166_OVERLAPPING} is not injective"
    coords = ", ".join(f"({p['mn']}, {p['k']})" for p in points)
    assert got.fields["reproduce"] == (
        'python -c "from ptxconf.oracle.algebra import parse; from ptxconf.oracle.canonical '
        f"import swizzled_offset; L = parse('{FIG166_OVERLAPPING}'); print([hex(swizzled_offset("
        f"L.outer(c), 32, L.inner, 'bytes')) for c in [{coords}]])\"")
    assert got.fields["statement"] == f"Figure 166's exact layout {FIG166_OVERLAPPING} is injective"


def test_an_oracle_disagreeing_with_the_collision_names_the_figure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the oracle's reproduce call stood in to put both points at 0: the claim raises,
    naming the figure's row and both sides (the encoding's 0x040 = 64 B for both points)."""
    spec = _overlapping_fig166(tmp_path)
    real = render.text_reproduce

    def disagreeing(*args: object, **kwargs: object) -> tuple[str, list[int]]:
        line, _ = real(*args, **kwargs)  # type: ignore[arg-type]
        return line, [0, 0]

    monkeypatch.setattr(render, "text_reproduce", disagreeing)
    got = _prove(examples, spec, f"proof.example_injective[{FIG166}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.FAIL, "raised", "error")
    assert got.message == (f"proof raised AssertionError: {FIG166}: the Z3 encoding gives "
                           "[64, 64], the oracle [0, 0]")


def test_figure_166_without_an_lbo_is_refuted_before_any_query(tmp_path: Path) -> None:
    """lbo_elems edited to null (the figure's "NA"): K_INTER's 2k leaf steps by LBO, so the
    claim fails with the missing value named, before Z3 is asked anything."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", "lbo_elems: 64\n", "lbo_elems: null\n")
    got = _prove(examples, spec, f"proof.example_matches_canonical[{FIG166}]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    assert got.message == "Figure 166 gives no LBO, but K_INTER steps by LBO"
    assert got.fields == {
        "proof_status": "refuted",
        "statement": ("Figure 166's exact layout equals Swizzle<0,4,3> o ((8,m),(T,2k)):((1T,SBO),"
                      "(1,LBO)) at T=4, m=2, k=2, LBO=None, SBO=32 (elements)"),
        "counterexample": {"lbo_elems": None}, "reproduce": None, "facts": {"queries": 0}}


# --- distinguish -------------------------------------------------------------------------------

def test_base_offset_probe_of_k_sw32_f16() -> None:
    """K_SW32 f16 at m = k = 1: ((8,1),(8,2)):((16,0),(1,8)) puts (mn, k) at 32 mn + 2k bytes
    (0..254); LBO = SBO = 0 (unused at m = 1, minimized first). Start 0 gives both readings the
    same; at start 0x10 they differ where start + offset carries into bit 7 (absolute flips
    bit 4 there, relative does not): the least mn is 3 (offsets 96..126), the least k 8 (0x70:
    0x70 + 0x10 = 0x80, swizzled 0x90, less the start 0x80; relative 0x70). Extent: 8 x 16."""
    got = _prove(distinguish, default_spec(), f"proof.distinguish_base_offset[{CANON}:K_SW32.f16]")
    assert (got.status, got.code) == (Status.PASS, "ok"), got.message
    reason = ("K_SW32 f16 m=1 k=1 LBO=0x0 SBO=0x0, start 0x10: (mn 3, k 8: row 3, chunk 1) is at "
              "0x80 (absolute) vs 0x70 (relative) bytes from the start")
    assert got.message == reason
    assert got.fields["statement"] == ("K_SW32 f16: find the smallest input that separates the "
                                       "base_offset readings, or prove there is none")
    assert got.fields["facts"]["probe"] == {
        "hypothesis": "base_offset", "readings": ("absolute", "relative"),
        "row": f"{CANON}:K_SW32", "major": "K", "swizzle": "32B", "dtype": "f16",
        "distinguishable": True, "reason": reason, "m": 1, "k": 1, "mn_elems": 8, "k_elems": 16,
        "lbo_bytes": 0, "sbo_bytes": 0, "start_bytes": 0x10, "coord": (3, 8),
        "addresses": (0x80, 0x70), "units": "bytes"}


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
    assert (got.status, got.code) == (Status.PASS, "ok"), got.message
    reason = ("K_SW32 f16: absolute and relative give the same address for every m, k <= 8, LBO, "
              "SBO, start and coordinate (proved)")
    assert got.message == reason
    assert got.fields["facts"] == {"queries": 6, "probe": {
        "hypothesis": "base_offset", "readings": ("absolute", "relative"),
        "row": f"{CANON}:K_SW32", "major": "K", "swizzle": "32B", "dtype": "f16",
        "distinguishable": False, "reason": reason, "m": None, "k": None, "mn_elems": None,
        "k_elems": None, "lbo_bytes": None, "sbo_bytes": None, "start_bytes": None, "coord": None,
        "addresses": None, "units": "bytes"}}


def test_roles_that_never_differ_name_the_last_grid_point(tmp_path: Path) -> None:
    """MN_SW32 with LBO and SBO replaced by constants (2T, 4T): swapping them changes nothing,
    so no (m, k) of GRID_ORDER up to its last, (2, 2), separates the readings."""
    spec = edited_spec(tmp_path, "wgmma/canonical_layouts.yaml",
                       'layout: "((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))"',
                       'layout: "((T,2,m),(8,k)):((1,T,2T),(2T,4T))"')
    got = _prove(distinguish, spec, f"proof.distinguish_mn_lbo_sbo_roles[{CANON}:MN_SW32.f16]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.FAIL, "raised", "error")
    assert got.message == ("proof raised AssertionError: MN_SW32: LBO and SBO roles never differ "
                           "up to (2, 2)")


# --- swizzles ----------------------------------------------------------------------------------

def test_a_wrong_stated_period_is_refuted_with_both_periods(tmp_path: Path) -> None:
    """period.S143 (Swizzle<1,4,3>) stated as 128 units: it flips bit 4 with bit 7, so adding
    2^q for q <= 7 can change bit 7 and the least period is 2^8 = 256 (q = 0..8: 9 queries,
    after the block and the shift queries: 11)."""
    spec = edited_spec(tmp_path, "cutedsl/worked_examples.yaml",
                       "id: period.S143, example: period, swizzle_bits: 1, swizzle_base: 4, "
                       "swizzle_shift: 3, period_units: 256",
                       "id: period.S143, example: period, swizzle_bits: 1, swizzle_base: 4, "
                       "swizzle_shift: 3, period_units: 128")
    got = _prove(swizzles, spec, "proof.swizzle_period_block[cutedsl/worked_examples:period.S143]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    assert got.message == ("period.S143: period_units=128, but the least power-of-two period of "
                           "Swizzle<1,4,3> is 256 (proved)")
    assert got.fields == {
        "proof_status": "refuted",
        "statement": "Swizzle<1,4,3> maps each aligned period block onto itself",
        "counterexample": {"period_units": 128, "least_period": 256}, "reproduce": None,
        "facts": {"queries": 11}}


# --- descriptors and params --------------------------------------------------------------------

def test_a_field_overlapping_one_neighbour_names_only_it(tmp_path: Path) -> None:
    """base_offset moved to lsb 29 ([29, 32)) meets leading_byte_offset's [16, 30) at bit 29
    only; stride_byte_offset starts at 32, just past it, and is not named. It reads back as
    (desc >> 29) & 7: its own bits with LBO's stored bit 13 (LBO >> 4 >> 13) or'ed into bit 0."""
    spec = edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml", "lsb_bits: 49, width_bits: 3",
                       "lsb_bits: 29, width_bits: 3")
    got = _prove(descriptors, spec, "proof.descriptor_roundtrip[wgmma/matrix_descriptor:base_offset]")
    assert (got.status, got.code) == (Status.DISCREPANCY, "refuted")
    v = {k: int(x, 16) for k, x in got.fields["counterexample"].items()}
    back = v["base_offset"] | ((v["leading_byte_offset"] >> 4) >> 13) & 1
    assert back != v["base_offset"]
    assert got.message == (
        f"base_offset={v['base_offset']:#x} reads back as {back:#x} (with "
        f"start_address={v['start_address']:#x}, leading_byte_offset={v['leading_byte_offset']:#x}, "
        f"stride_byte_offset={v['stride_byte_offset']:#x}, layout_type={v['layout_type']:#x}); "
        "overlaps leading_byte_offset")


def test_an_address_range_below_the_field_bounds_the_domain(tmp_path: Path) -> None:
    """start_address with address_bits 17: its 14 bits of a >> 4 reach 0x3fff0, but the address
    stops at 2^17 - 16 = 0x1fff0; LBO keeps its 18 bits: 2^18 - 16 = 0x3fff0 (both at once)."""
    spec = edited_spec(tmp_path, "wgmma/matrix_descriptor.yaml",
                       "width_bits: 14, encode_shift_bits: 4, address_bits: 18}\n  - {id: leading",
                       "width_bits: 14, encode_shift_bits: 4, address_bits: 17}\n  - {id: leading")
    assert params.offset_domain(spec, "start_address") == params.OffsetDomain(
        "start_address", 16, 0x1FFF0)
    assert params.offset_domain(spec, "LBO") == params.OffsetDomain(
        "leading_byte_offset", 16, 0x3FFF0)


# --- runner ------------------------------------------------------------------------------------

class _Undecided:
    """A solver that answers unknown with the given reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def add(self, *constraints: object) -> None:
        pass

    def check(self) -> z3.CheckSatResult:
        return z3.unknown

    def reason_unknown(self) -> str:
        return self.reason


class _UndecidedProver(Prover):
    def __init__(self, reason: str) -> None:
        super().__init__(z3.Context(), 30.0)
        self.reason = reason

    def _solver(self) -> z3.Solver:
        return _Undecided(self.reason)  # type: ignore[return-value]


@pytest.mark.parametrize(("reason", "told"), [("canceled", "canceled"), ("", "unknown")])
def test_an_unknown_answer_carries_z3s_reason_or_says_unknown(reason: str, told: str) -> None:
    """Prover.find: unknown raises Unknown with reason_unknown() verbatim, "unknown" if empty."""
    prover = _UndecidedProver(reason)
    with pytest.raises(Unknown) as info:
        prover.find(z3.BoolVal(True, prover.ctx))
    assert (info.value.reason, str(info.value), prover.queries) == (told, told, 1)

