"""The ldmatrix / stmatrix checks (oracle/checks/warp_matrix.py): the PTX ISA's shape tables,
.num tables and fragment sentences add up (spec/warp/*.yaml), and every derivable form is a
bijection with one address a stored row.

The cases are built inside each test from the module's `cases(spec)` and executed; an outcome is
asserted by status, code and fields; the messages' wording is pinned by messages_checks_warp.py.
A failing outcome comes from a scratch copy of the bundled spec with one row's text edited
(conformance/scratch_spec.py), or a row changed in memory where a load-time rule would refuse
the edit first.

Expected values are worked by hand from the PTX ISA's words: an 8x8 matrix of 16-bit elements is
1024 bits, one 32-bit register in each of 32 lanes; a 16x16 matrix of 8-bit elements is 2048
bits, two registers ("two destination registers r0 and r1"), so .x4 would need 8 registers where
the destination is "1, 2, or 4 32-bit registers": 16x16 takes .x1 and .x2 ("When .shape is
.m16n16, only .x1 and .x2 are valid values for .num"); a row of 8 16-bit elements is 16 bytes,
held by four lanes' 32-bit registers ("a group of four consecutive threads loads 16 bytes").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_fields, expect_mismatch_fields
from case_outcomes import run_module_case as _run
from scratch_spec import default_row_replaced, edited_spec

from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.oracle.checks import warp_matrix
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
SHAPES = "warp/ldmatrix_shapes"
ADDR = "warp/ldmatrix_addresses"
FRAG = "warp/matrix_fragments"


@pytest.mark.parametrize("case", list(warp_matrix.cases(SPEC)), ids=lambda c: c.id)
def test_every_case_of_the_bundled_spec_passes(case: object) -> None:
    res = execute(case)  # type: ignore[arg-type]
    assert (res.status, res.code) == (Status.PASS, "ok"), res.message


def test_the_cases_are_one_per_row_and_form() -> None:
    checks = [c.check for c in warp_matrix.cases(SPEC)]
    assert {c: checks.count(c) for c in dict.fromkeys(checks)} == {
        "warp.shape": 5, "warp.addresses": 6, "warp.addresses_agree": 3, "warp.fragment": 2,
        "warp.form": 12}


def test_16x16_taking_x4_disagrees_with_the_register_vectors(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_shapes.yaml", "nums: [x1, x2]\n",
                       "nums: [x1, x2, x4]\n")
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m16n16]")
    expect_mismatch_fields(res, f"{SHAPES}:ldmatrix.m16n16", ["x1", "x2", "x4"],
                           "the .num rows whose registers (2 a matrix) are a vector of [1, 2, 4]",
                           ["x1", "x2"])


def test_a_shape_at_sm90_needs_a_fragment_row(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_shapes.yaml", "registers_per_matrix: 2\n    "
                       "target: sm_100a", "registers_per_matrix: 2\n    target: sm_90")
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m16n16]")
    expect_fields(res, Status.FAIL, "mismatch")


def test_a_type_of_another_width_fails(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_shapes.yaml", "types: [b16]", "types: [b32]")
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m8n8]")
    expect_mismatch_fields(res, f"{SHAPES}:ldmatrix.m8n8", 16, "the type name .b32", 32)


def test_two_registers_a_matrix_do_not_hold_an_8x8_matrix() -> None:
    spec = default_row_replaced("WarpMatrixShape", "ldmatrix.m8n8", registers_per_matrix=2)
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m8n8]")
    expect_mismatch_fields(res, f"{SHAPES}:ldmatrix.m8n8", 1024,
                           "2 32-bit registers x 32 lanes", 2048)


def test_a_second_matrix_from_threads_16_23_is_out_of_order(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_addresses.yaml",
                       'addresses: ["addr0–addr7", "addr8–addr15", "–", "–"]',
                       'addresses: ["addr0–addr7", "–", "addr8–addr15", "–"]')
    res = _run(warp_matrix, spec, f"warp.addresses[{ADDR}:ldmatrix.x2]")
    supplied = [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6], [7, 7]]
    expect_fields(res, Status.FAIL, "mismatch", supplied=[tuple(p) for p in supplied])


def test_a_register_count_other_than_the_matrices_fails(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_addresses.yaml", "matrices: 2\n    registers: 2",
                       "matrices: 2\n    registers: 4")
    res = _run(warp_matrix, spec, f"warp.addresses[{ADDR}:ldmatrix.x2]")
    expect_mismatch_fields(res, f"{ADDR}:ldmatrix.x2", 4,
                           "one register a matrix (\"1, 2, or 4 32-bit registers as per .num\")", 2)


def test_stmatrix_s_table_saying_another_thing_is_a_discrepancy() -> None:
    """In memory (the .num check refuses the row too): stmatrix's .x2 with its two cells swapped."""
    spec = default_row_replaced("WarpMatrixAddresses", "stmatrix.x2",
                                addresses=("addr8–addr15", "addr0–addr7", "–", "–"))
    res = _run(warp_matrix, spec, "warp.addresses_agree[warp/stmatrix_addresses:stmatrix.x2~"
                                  f"{ADDR}:ldmatrix.x2]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree",
                  stmatrix="threads 0-7: addr8-addr15; threads 8-15: addr0-addr7",
                  ldmatrix="threads 0-15: addr0-addr15")


@pytest.mark.parametrize(("column", "value", "what", "derived"), [
    ("row_bytes", 32, "row_bytes", 16), ("alignment_bytes", 8, "alignment_bytes", 16)])
def test_a_row_of_other_bytes_or_alignment_fails(column: str, value: int, what: str,
                                                 derived: int) -> None:
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", **{column: value})
    res = _run(warp_matrix, spec, f"warp.fragment[{FRAG}:ldmatrix.m8n8]")
    assert (res.status, res.code, res.fields["documented"], res.fields["derived"]) == (
        Status.FAIL, "mismatch", value, derived)


def test_two_threads_a_row_is_no_bijection() -> None:
    spec = default_row_replaced("WarpMatrixFragment", "ldmatrix.m8n8", threads_per_row=2)
    res = _run(warp_matrix, spec, f"warp.form[{SHAPES}:ldmatrix.m8n8.x1.b16]")
    expect_fields(res, Status.FAIL, "mismatch")


def test_trans_where_the_syntax_line_spells_none_fails(tmp_path: Path) -> None:
    """.m8n16's line, ldmatrix.sync.aligned.m8n16.num{.ss}.dst_fmt.src_fmt, has no .trans."""
    spec = edited_spec(tmp_path, "warp/ldmatrix_shapes.yaml", "trans: none", "trans: optional")
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m8n16]")
    expect_fields(res, Status.FAIL, "mismatch", trans="optional", allowed=["none"])


def test_a_shape_without_its_mandatory_trans_fails(tmp_path: Path) -> None:
    """.m16n16's line spells .trans outside braces: mandatory."""
    spec = edited_spec(tmp_path, "warp/ldmatrix_shapes.yaml", "trans: mandatory",
                       "trans: optional")
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m16n16]")
    expect_fields(res, Status.FAIL, "mismatch", trans="optional", allowed=["mandatory"])


def test_the_later_shapes_share_one_target(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/stmatrix_shapes.yaml", "target: sm_100a",
                       "target: sm_101a")
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m16n16]")
    expect_fields(res, Status.FAIL, "mismatch", targets=["sm_100a", "sm_101a"])


def test_a_type_listed_twice_fails(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_shapes.yaml",
                       "types: [b8, b8x16.b6x16_p32, b8x16.b4x16_p64]",
                       "types: [b8, b8x16.b6x16_p32, b8x16.b6x16_p32]")
    res = _run(warp_matrix, spec, f"warp.shape[{SHAPES}:ldmatrix.m16n16]")
    expect_fields(res, Status.FAIL, "mismatch",
                  listed=["b8", "b8x16.b6x16_p32", "b8x16.b6x16_p32"])
