"""The wmma proofs (oracle/proofs/wmma_rules.py): the alignment rule is equivalent to every
leading-dimension start being fragment-aligned (and needs two starts), and the default stride is
the leading dimension (a bijection; a stride past it leaves gaps, one below it overlaps; a
one-row matrix where the oracle disagrees raises).

The claims are built inside each test (`wmma_rules.claims(spec)`), picked by id and run through
`cases.claim_case` (as the run does); their outcome is asserted by status, code and fields
(proof_status, statement, counterexample, reproduce, facts); the messages' wording is pinned by
messages_proofs.py.

Expected values are worked by hand:

* from the bundled spec's wmma rows (spec/wmma/default_strides.yaml, alignment_examples.yaml,
  quoted at each test) and the PTX ISA's storage section they cite: A is MxK, B KxN, C MxN; the
  default stride is the leading dimension (a row's length row-major, a column's col-major); the
  start of each row (column) must be aligned to the fragment size F in bytes, and for
  m16n16k16.a.row.f16 F = 32 B (eight .f16x2 registers);
* from wmma_rules' docstring: the rule "p % F == 0 and (stride * element bytes) % F == 0" and
  "every start p + i * stride * element bytes, i < count, is F-aligned" agree when count >= 2;
  with one start they do not (p aligned, stride anything), and the smallest such stride at p = 0
  is 1 element: 2 B, not a multiple of F = 32 B;
* from CuTe's layout function: (rows, cols):(stride, 1) puts (r, c) at r * stride + c;
* a claim that must fail is reached by copying the bundled spec to tmp_path and editing one row
  (conformance/scratch_spec.py): m8n8k4 becomes m1n8k4 (M = 1, so A is 1x4 and has one row)
  with A's row-major stride 5 instead of 4; or m8n8k4 keeps its shape with A's row-major
  stride 3, below its 4 columns.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scratch_spec import edited_spec

from ptxconf.core.cases import execute
from ptxconf.core.results import Result, Status
from ptxconf.oracle.proofs import wmma_rules
from ptxconf.oracle.proofs.cases import claim_case
from ptxconf.oracle.proofs.runner import Claim
from ptxconf.oracle.spec import Spec, default_spec

TIMEOUT_S = 30.0
ROWS = "wmma/default_strides"
ALIGN = "proof.wmma_alignment_equivalence"
STRIDE = "proof.wmma_default_stride"


@pytest.fixture(scope="module")
def spec() -> Spec:
    return default_spec()


@pytest.fixture(scope="module")
def one_row_spec(tmp_path_factory: pytest.TempPathFactory) -> Spec:
    """m8n8k4 (f64) edited to M = 1 (id m1n8k4, SPEC-ID) and A's row-major stride to 5."""
    return edited_spec(tmp_path_factory.mktemp("m1n8k4"), "wmma/default_strides.yaml",
                       "{id: m8n8k4, m_elems: 8, n_elems: 8, k_elems: 4, a_row_elems: 4,",
                       "{id: m1n8k4, m_elems: 1, n_elems: 8, k_elems: 4, a_row_elems: 5,")


def _claim(spec: Spec, claim_id: str) -> Claim:
    """Build the wmma claims of `spec` here; the one with this id."""
    found = [c for c in wmma_rules.claims(spec) if c.id == claim_id]
    assert len(found) == 1, f"{claim_id}: {len(found)} claims"
    return found[0]


def _run(spec: Spec, claim_id: str) -> Result:
    return execute(claim_case(_claim(spec, claim_id), TIMEOUT_S))


def _statement(key: str, what: str) -> str:
    if what == "align":
        return (f"{key}: the alignment rule is equivalent to every leading-dimension start being "
                "fragment-aligned")
    return f"{key}: the default stride is the leading dimension"


# --- the alignment rule and the leading-dimension starts ------------------------------------------


def test_documented_fragment_size_gives_stride_one_single_start(spec: Spec) -> None:
    """m16n16k16.a.row.f16 (F = 32 B documented): 16 rows; one start, stride 1 elem, rule fails."""
    key = f"{ROWS}:m16n16k16.a.row"
    got = _run(spec, f"{ALIGN}[{key}]")
    assert (got.status, got.code) == (Status.PASS, "ok")
    # A is MxK = 16x16; row-major: 16 row starts. A single start at p = 0 is aligned whatever the
    # stride; the rule wants 2 * stride % 32 == 0, so stride 1 (2 B) is the smallest that fails.
    for named in ("all 16 row starts", "(16x16; f16, F=32 B (documented)",
                  "p=0x0 with stride=1 elems (F=32 B)"):
        assert named in got.message, (named, got.message)
    assert got.fields["proof_status"] == "proved"
    assert got.fields["statement"] == _statement(key, "align")
    assert (got.fields["counterexample"], got.fields["reproduce_python"]) == (None, None)
    assert got.fields["facts"]["count"] == 16
    assert set(got.fields["facts"]) == {"queries", "count"}


def test_column_layout_counts_column_starts(spec: Spec) -> None:
    """m8n32k16.b.col: B is KxN = 16x32, col-major: 32 column starts; F is not documented."""
    key = f"{ROWS}:m8n32k16.b.col"
    got = _run(spec, f"{ALIGN}[{key}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.PASS, "ok", "proved")
    # F is any power of two <= 2^16 B here; the single-start witness is stride 1 (2 B) at p = 0,
    # with some F the solver picks that does not divide 2 B: F in 4 .. 65536.
    for named in ("all 32 column starts", "(16x32; f16, any power-of-two F <= 2^16 B"):
        assert named in got.message, (named, got.message)
    m = re.search(r"p=0x0 with stride=1 elems \(F=(\d+) B\)", got.message)
    assert m is not None, got.message
    f = int(m.group(1))
    assert f & (f - 1) == 0, f
    assert 4 <= f <= 1 << 16, f
    assert got.fields["facts"]["count"] == 32


def test_a_single_row_refutes_every_start_implies_rule(one_row_spec: Spec) -> None:
    """m1n8k4.a.row (A is 1x4): one start, so "every start aligned => rule" fails."""
    key = f"{ROWS}:m1n8k4.a.row"
    got = _run(one_row_spec, f"{ALIGN}[{key}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (
        Status.DISCREPANCY, "refuted", "refuted")
    cex = got.fields["counterexample"]
    assert set(cex) == {"summary", "p", "stride_elems", "fragment_bytes"}
    p, stride, f = int(cex["p"], 16), cex["stride_elems"], cex["fragment_bytes"]
    # the one start p is F-aligned, the stride's 8 * stride bytes (f64) is not: the rule fails
    assert f & (f - 1) == 0, f
    assert 1 <= f <= 1 << 16, f
    assert p % f == 0, cex
    assert (8 * stride) % f != 0, cex
    summary = f"p={p:#x}, stride={stride} elems (f64), F={f} B"
    assert cex["summary"] == summary
    assert cex["p"] == hex(p)
    assert got.message.startswith(f"{key} f64: "), got.message
    assert got.message.endswith(summary), got.message
    assert got.fields["reproduce_python"] == (
        'python -c "from ptxconf.oracle.wmma import check_alignment; '
        f'print(check_alignment({p:#x}, {stride}, 64, {f}, 1))"')
    assert got.fields["statement"] == _statement(key, "align")


# --- the default stride is the leading dimension --------------------------------------------------


def test_default_stride_of_a_column_major_b_is_its_rows(spec: Spec) -> None:
    """m8n32k16: b_col_elems 16; B is KxN = 16x32, (16,32):(1,16) covers [0, 512) once."""
    key = f"{ROWS}:m8n32k16.b.col"
    got = _run(spec, f"{STRIDE}[{key}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.PASS, "ok", "proved")
    for named in ("(16,32):(1,16)", "[0, 512)", "stride 16", "rows of the 16x32 B"):
        assert named in got.message, (named, got.message)
    assert got.fields["statement"] == _statement(key, "stride")
    assert (got.fields["counterexample"], got.fields["reproduce_python"]) == (None, None)
    assert got.fields["facts"]["stride_elems"] == 16
    assert set(got.fields["facts"]) == {"queries", "stride_elems"}


def test_default_stride_of_a_row_major_a_is_its_cols(spec: Spec) -> None:
    """m32n8k16: a_row_elems 16; A is MxK = 32x16, (32,16):(16,1) covers [0, 512) once."""
    key = f"{ROWS}:m32n8k16.a.row"
    got = _run(spec, f"{STRIDE}[{key}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.PASS, "ok", "proved")
    for named in ("(32,16):(16,1)", "[0, 512)", "stride 16", "cols of the 32x16 A"):
        assert named in got.message, (named, got.message)
    assert got.fields["facts"]["stride_elems"] == 16


def test_a_stride_past_the_leading_dimension_leaves_gaps(one_row_spec: Spec) -> None:
    """m1n8k4.a.col: A is 1x4, a_col_elems 8 (the table's, kept): (1,4):(1,8) skips 1..7."""
    key = f"{ROWS}:m1n8k4.a.col"
    got = _run(one_row_spec, f"{STRIDE}[{key}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (
        Status.DISCREPANCY, "refuted", "refuted")
    # (0, c) lands at 8c; the smallest offset >= 1x4 = 4 is 8, element (0, 1), and only it
    for named in ("stride 8", "(0, 1) lands at 8 >= 1x4"):
        assert named in got.message, (named, got.message)
    assert got.fields["counterexample"] == {"element": (0, 1), "offset": 8}
    assert got.fields["reproduce_python"] == (
        'python -c "from ptxconf.oracle.algebra import Layout; L = Layout((1, 4), (1, 8)); '
        'print([L(c) for c in [(0, 1)]])"')
    assert got.fields["statement"] == _statement(key, "stride")


def test_a_stride_below_the_leading_dimension_overlaps(tmp_path: Path) -> None:
    """m8n8k4 with A's row-major stride 3 instead of 4: A is 8x4, (8,4):(3,1) puts (r, c) at
    3r + c; offsets 0, 1, 2 are (0, 0), (0, 1), (0, 2) alone, and the least shared offset is 3:
    (0, 3) and (1, 0), and only they (Z3 picks which comes first)."""
    spec = edited_spec(tmp_path, "wmma/default_strides.yaml",
                       "{id: m8n8k4, m_elems: 8, n_elems: 8, k_elems: 4, a_row_elems: 4,",
                       "{id: m8n8k4, m_elems: 8, n_elems: 8, k_elems: 4, a_row_elems: 3,")
    key = f"{ROWS}:m8n8k4.a.row"
    got = _run(spec, f"{STRIDE}[{key}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (
        Status.DISCREPANCY, "refuted", "refuted")
    a, b = got.fields["counterexample"]["elements"]
    assert {a, b} == {(0, 3), (1, 0)}
    assert got.fields["counterexample"] == {"elements": [a, b], "offset": 3}
    for named in ("stride 3", f"{a} and {b}", "offset 3"):
        assert named in got.message, (named, got.message)
    assert got.fields["reproduce_python"] == (
        'python -c "from ptxconf.oracle.algebra import Layout; L = Layout((8, 4), (3, 1)); '
        f'print([L(c) for c in [{a}, {b}]])"')
    assert got.fields["statement"] == _statement(key, "stride")


def test_a_one_row_matrix_is_a_bijection_for_any_stride_and_the_oracle_disagrees(
        one_row_spec: Spec) -> None:
    """m1n8k4.a.row: (1,4):(5,1) is a bijection onto [0, 4), but the leading dimension is 4."""
    key = f"{ROWS}:m1n8k4.a.row"
    got = _run(one_row_spec, f"{STRIDE}[{key}]")
    assert (got.status, got.code, got.fields["proof_status"]) == (Status.FAIL, "raised", "error")
    for named in (key, "leading dimension 4", "proof 5"):
        assert named in got.message, (named, got.message)
    assert got.fields["statement"] == _statement(key, "stride")
