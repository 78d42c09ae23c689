"""The ldmatrix / stmatrix examples against their sections (oracle/checks/warp_examples.py): each
example's code and comment say what the shape table, the .num table and the syntax say, and the
four places where the PTX ISA's examples contradict their own section are findings.

Expected values are worked by hand from the PTX ISA's text (9.7.14.5.15, 9.7.14.5.16): the
.shape table gives .m16n16 "8-bit or 6-bit or 4-bit" elements, so "16x16 matrices of 64-bit
elements" over .b8 contradicts it; "for 16x8 matrices, .trans is mandatory", so
stmatrix.sync.aligned.m16n8.x4.b8 is no form of the section; "If no state space is provided,
generic addressing is used", so "using generic addressing" over an instruction naming .shared
contradicts it; "1, 2, or 4 32-bit registers as per the value of .num": .x2 takes {d0, d1}.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from case_outcomes import expect_fields
from case_outcomes import run_module_case as _run
from scratch_spec import copy_spec, edited_spec

from ptxconf.core.cases import execute
from ptxconf.core.results import Status
from ptxconf.oracle.checks import warp_examples
from ptxconf.oracle.spec import default_spec, load_spec

SPEC = default_spec()
LD = "warp/ldmatrix_examples"
ST = "warp/stmatrix_examples"
KNOWN = {f"warp.example[{LD}:ldmatrix.m16n16.x1.trans.b8]",
         f"warp.example[{LD}:ldmatrix.m16n16.x2.trans.b8]",
         f"warp.example[{ST}:stmatrix.m16n8.x1.trans.b8]",
         f"warp.example[{ST}:stmatrix.m16n8.x4.b8]"}


@pytest.mark.parametrize("case", [c for c in warp_examples.cases(SPEC) if c.id not in KNOWN
                                  and c.check == "warp.example"],
                         ids=lambda c: c.id)
def test_the_other_examples_say_what_their_section_says(case: object) -> None:
    res = execute(case)  # type: ignore[arg-type]
    assert (res.status, res.code) == (Status.PASS, "ok"), res.message


def test_twelve_examples_four_of_them_known_findings() -> None:
    ids = {c.id for c in warp_examples.cases(SPEC) if c.check == "warp.example"}
    assert len(ids) == 12
    assert ids >= KNOWN
    assert all(SPEC.findings.by_case.get(i) is not None for i in KNOWN)


@pytest.mark.parametrize("num", ["x1", "x2"])
def test_16x16_of_64_bit_elements_contradicts_the_shape_table(num: str) -> None:
    res = _run(warp_examples, SPEC, f"warp.example[{LD}:ldmatrix.m16n16.{num}.trans.b8]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", element_bits=[64, [8]],
                  disagree=["element_bits"])


def test_6_bit_elements_are_what_b6x16_p32_holds() -> None:
    res = _run(warp_examples, SPEC, f"warp.example[{LD}:ldmatrix.m16n16.x2.trans.b8x16.b6x16_p32]")
    expect_fields(res, Status.PASS, "ok")


def test_m16n8_without_trans_is_no_form_of_its_section() -> None:
    res = _run(warp_examples, SPEC, f"warp.example[{ST}:stmatrix.m16n8.x4.b8]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", trans=[False, "mandatory"],
                  disagree=["trans"])


def test_generic_addressing_over_shared_contradicts_the_section() -> None:
    res = _run(warp_examples, SPEC, f"warp.example[{ST}:stmatrix.m16n8.x1.trans.b8]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree",
                  generic_addressing=[True, "shared"], disagree=["generic_addressing"])


def test_a_second_disagreement_changes_the_finding(tmp_path: Path) -> None:
    """The finding pins every key that disagrees: a count edited in the 64-bit example adds one."""
    spec = edited_spec(tmp_path, "warp/ldmatrix_examples.yaml",
                       'comment: "Load one 16x16 matrices of 64-bit elements and transpose them"',
                       'comment: "Load two 16x16 matrices of 64-bit elements and transpose them"')
    res = spec.findings.judge(_run(warp_examples, spec,
                                   f"warp.example[{LD}:ldmatrix.m16n16.x1.trans.b8]"))
    assert (res.status, res.code) == (Status.FAIL, "finding_changed")
    assert res.fields["disagree"] == ["element_bits", "matrices"]


def test_the_comment_with_8_bit_elements_passes(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_examples.yaml",
                       'comment: "Load one 16x16 matrices of 64-bit elements and transpose them"',
                       'comment: "Load one 16x16 matrices of 8-bit elements and transpose them"')
    res = _run(warp_examples, spec, f"warp.example[{LD}:ldmatrix.m16n16.x1.trans.b8]")
    expect_fields(res, Status.PASS, "ok")


def test_one_register_for_x2_is_a_discrepancy(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_examples.yaml",
                       '"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {d0, d1}, [addr];"',
                       '"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {d0}, [addr];"')
    res = _run(warp_examples, spec, f"warp.example[{LD}:ldmatrix.m8n8.x2.trans.b16]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", registers=[["d0"], 2],
                  disagree=["registers"])


def test_a_count_other_than_the_forms_is_a_discrepancy(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/stmatrix_examples.yaml", 'comment: "Store four 8x8 matrices"',
                       'comment: "Store two 8x8 matrices"')
    res = _run(warp_examples, spec, f"warp.example[{ST}:stmatrix.m8n8.x4.b16]")
    expect_fields(res, Status.DISCREPANCY, "documents_disagree", matrices=[[2, 8, 8], [4, 8, 8]],
                  disagree=["matrices"])


def test_an_id_other_than_the_form_fails(tmp_path: Path) -> None:
    spec = edited_spec(tmp_path, "warp/ldmatrix_examples.yaml", "- id: ldmatrix.m8n8.x4.b16",
                       "- id: ldmatrix.m8n8.x4.trans.b16")
    res = _run(warp_examples, spec, f"warp.example[{LD}:ldmatrix.m8n8.x4.trans.b16]")
    expect_fields(res, Status.FAIL, "mismatch")


@pytest.mark.parametrize("instruction", ["ldmatrix", "stmatrix"])
def test_each_instruction_has_its_examples(instruction: str) -> None:
    res = _run(warp_examples, SPEC, f"warp.examples_cover[warp_matrix_example:{instruction}]")
    expect_fields(res, Status.PASS, "ok")


def test_an_examples_file_deleted_whole_is_reported(tmp_path: Path) -> None:
    root = copy_spec(tmp_path / "spec")
    (root / "warp" / "ldmatrix_examples.yaml").unlink()
    res = _run(warp_examples, load_spec(root), "warp.examples_cover[warp_matrix_example:ldmatrix]")
    expect_fields(res, Status.FAIL, "mismatch")
