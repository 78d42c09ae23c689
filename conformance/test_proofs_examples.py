"""The worked-example proofs (oracle/proofs/examples.py): a figure's exact layout is injective and
equals its canonical formula; an edited figure is refuted with the collision or the coordinate
where they part, a missing LBO before any query, and an oracle that disagrees with the encoding
raises.

The claims are built inside each test (`examples.claims(spec)`, case_outcomes.prove_module_claim)
and their outcome asserted by status, code and fields (proof_status, statement, counterexample,
reproduce, facts); the messages' wording is pinned by messages_proofs.py.

Expected values are worked by hand from Figure 166 (wgmma/worked_examples.yaml: tf32, K-major, no
swizzle, T = 4, m = k = 2, LBO = 64, SBO = 32 elements, exact layout Swizzle<0,4,3> o
((8,2),(4,4)):((4,32),(1,64)); K_INTER = ((8,m),(T,2k)):((1T,SBO),(1,LBO)) steps by LBO); a
refutation comes from a scratch copy of the bundled spec with one row's text edited
(conformance/scratch_spec.py); the two points of a collision come in either order (Z3 picks).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_fields
from case_outcomes import prove_module_claim as _prove
from scratch_spec import edited_spec

from ptxconf.core.results import Status
from ptxconf.oracle.proofs import examples, render
from ptxconf.oracle.spec import Spec, default_spec

pytestmark = pytest.mark.z3

FIG166 = "wgmma/worked_examples:fig166.K.none.tf32"
FIG166_EXACT = "Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))"

FIG166_OVERLAPPING = "Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,16))"
K_INTER = "((8,m),(T,2k)):((1T,SBO),(1,LBO))"


# --- the exact layout equals its canonical formula ------------------------------------------------


def test_figure_166_matches_its_canonical_formula() -> None:
    """K_INTER's template at T = 4, m = k = 2, LBO = 64, SBO = 32 is ((8,2),(4,4)):((4,32),(1,64)),
    Figure 166's exact layout, at every coordinate (one query, unsat)."""
    got = _prove(examples, default_spec(), f"proof.example_matches_canonical[{FIG166}]")
    expect_fields(got, Status.PASS, "ok", proof_status="proved", statement=(
        f"Figure 166's exact layout equals Swizzle<0,4,3> o {K_INTER} at T=4, m=2, k=2, LBO=64, "
        "SBO=32 (elements)"), counterexample=None, reproduce_python=None, facts={"queries": 1})


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
    assert q >= 1
    assert i < 2
    assert q < 4
    exact, formula = (4 * (4 * r + 32 * i + j + lbo * q) for lbo in (80, 64))
    assert (cex["exact"], cex["formula"]) == (f"{exact:#05x}", f"{formula:#05x}")
    assert set(cex) == {"coordinate", "exact", "formula"}
    assert got.fields["proof_status"] == "refuted"
    line_e, line_t = got.fields["reproduce_python"].split(" && ")
    assert "L = parse('Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,80))')" in line_e
    assert "L = instantiate(r, 4, 2, 2, 64, 32)" in line_t


def test_figure_166_without_an_lbo_is_refuted_before_any_query(tmp_path: Path) -> None:
    """lbo_elems edited to null (the figure's "NA"): K_INTER's 2k leaf steps by LBO, so the
    claim fails with the missing value named, before Z3 is asked anything."""
    spec = edited_spec(tmp_path, "wgmma/worked_examples.yaml", "lbo_elems: 64\n", "lbo_elems: null\n")
    got = _prove(examples, spec, f"proof.example_matches_canonical[{FIG166}]")
    expect_fields(got, Status.DISCREPANCY, "refuted", proof_status="refuted", statement=(
        "Figure 166's exact layout equals Swizzle<0,4,3> o ((8,m),(T,2k)):((1T,SBO),(1,LBO)) at "
        "T=4, m=2, k=2, LBO=None, SBO=32 (elements)"),
        counterexample={"lbo_elems": None}, reproduce_python=None, facts={"queries": 0})


# --- the exact layout is injective ----------------------------------------------------------------


def test_figure_166_exact_layout_is_injective() -> None:
    """((8,2),(4,4)):((4,32),(1,64)): 8 * 2 * 4 * 4 = 256 coordinates, offsets 4r + 32i + j + 64q
    all distinct (4r + j covers 0..31 once, 32i 0 or 32, 64q 0..192); one query, unsat."""
    got = _prove(examples, default_spec(), f"proof.example_injective[{FIG166}]")
    expect_fields(got, Status.PASS, "ok", proof_status="proved",
                  statement=f"Figure 166's exact layout {FIG166_EXACT} is injective",
                  counterexample=None, reproduce_python=None, facts={"queries": 1})
    assert "256 coordinates" in got.message, got.message


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
    assert got.fields["proof_status"] == "refuted"
    coords = ", ".join(f"({p['mn']}, {p['k']})" for p in points)
    assert got.fields["reproduce_python"] == (
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
    fields = {k: v for k, v in got.fields.items() if k != "seconds"}  # the time until it raised
    assert (got.status, got.code, fields) == (Status.FAIL, "raised", {
        "proof_status": "error",
        "statement": f"Figure 166's exact layout {FIG166_OVERLAPPING} is injective",
        "counterexample": None, "reproduce_python": None})
    for named in ("AssertionError", FIG166, "[64, 64]", "[0, 0]"):
        assert named in got.message, (named, got.message)
