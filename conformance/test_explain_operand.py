"""The operand `ptxconf explain` reads (oracle/explain/operand.py): resolved from an instruction
(A is M x K with M = 64, B is N x K, N and K read off the name, the A or B type of the name,
K-major unless MN is asked for, imm-trans = 1 selecting MN-major) or from --dtype/--major/--mn/--k,
its JSON object, description and flags, the SS/RS form, and its refusals, asserted by code and
the values they name (a refusal's text is `CODE - message`, one line; its wording is pinned by
messages_explain.py).

Expected values are worked by hand from the documents: the element types are
wgmma/element_types.yaml's rows in file order, MN-major needs imm-trans-a's types
(wgmma/instruction_operands.yaml: f16, bf16), mn a multiple of 8 (a core matrix's rows), k a
multiple of one repeat of the major-ness's canonical templates (wgmma/canonical_layouts.yaml:
K-major (T,2k) -> 2T elements of K, T = 128 / element bits; MN-major (8,k) -> 8).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from case_outcomes import explain_a_bf16 as a_bf16
from case_outcomes import raises_naming
from scratch_spec import edited_spec

from ptxconf.oracle.explain.operand import ExplainError, Operand, resolve
from ptxconf.oracle.records import RegisterFragment
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
FP8 = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2"


# --- an operand from an instruction or from flags -------------------------------------------------


def test_the_a_and_b_operands_of_a_mixed_fp8_instruction() -> None:
    """A takes .atype and M = 64, B takes .btype and N = 8; both K = 32 from the name."""
    a = resolve(SPEC, instr=FP8, operand="A")
    b = resolve(SPEC, instr=FP8, operand="B")
    assert (a.dtype, a.mn, a.k, a.bits, a.name) == ("e4m3", 64, 32, 8, "A")
    assert (b.dtype, b.mn, b.k, b.bits, b.name) == ("e5m2", 8, 32, 8, "B")
    assert resolve(SPEC, instr=FP8, operand="B", dtype="e5m2") == b


def test_operand_as_dict_from_an_instruction() -> None:
    """`--json`'s operand object: every key, K-major by default, imm-trans 0."""
    assert resolve(SPEC, instr=FP8, operand="A").as_dict() == {
        "dtype": "e4m3", "major": "K", "mn": 64, "k": 32, "bits": 8, "operand": "A",
        "instr": FP8, "form": "SS", "imm_trans": 0}


def test_operand_as_dict_from_flags() -> None:
    """An MN-major operand named by flags: no operand name or instruction, imm-trans 1."""
    op = resolve(SPEC, dtype="bf16", major="MN", mn=64, k=8)
    assert op.as_dict() == {"dtype": "bf16", "major": "MN", "mn": 64, "k": 8, "bits": 16,
                            "operand": None, "instr": None, "form": "SS", "imm_trans": 1}
    assert op.elem_bytes == 2
    assert resolve(SPEC, dtype="tf32", major="K", mn=8, k=8).elem_bytes == 4


def test_operand_describe_and_cli() -> None:
    """describe names the instruction and imm-trans-<a|b>; cli gives back the flags that name it."""
    b = resolve(SPEC, instr=INSTR, operand="B", major="MN")
    assert b.describe() == f"operand B of {INSTR} (64x16 bf16, MN-major, imm-trans-b = 1)"
    assert b.cli() == f"--instr {INSTR} --operand B --major MN"
    a = a_bf16()
    assert a.describe() == f"operand A of {INSTR} (64x16 bf16, K-major, imm-trans-a = 0)"
    assert a.cli() == f"--instr {INSTR} --operand A"
    flags = resolve(SPEC, dtype="bf16", major="MN", mn=64, k=8)
    assert flags.describe() == "64x8 bf16, MN-major"
    assert flags.cli() == "--dtype bf16 --major MN --mn 64 --k 8"


def test_describe_and_cli_need_both_the_instruction_and_the_operand() -> None:
    """An operand with only a name or only an instruction is described and named by its flags."""
    named = Operand("bf16", "K", 64, 16, 16, name="A")
    bare = Operand("bf16", "MN", 64, 16, 16, instr=INSTR)
    assert named.describe() == "64x16 bf16, K-major"
    assert bare.describe() == "64x16 bf16, MN-major"
    assert named.cli() == "--dtype bf16 --major K --mn 64 --k 16"
    assert bare.cli() == "--dtype bf16 --major MN --mn 64 --k 16"


def test_the_smallest_shapes_are_accepted() -> None:
    """mn = 8 (one core matrix of rows) and k = one repeat (16 K-major bf16, 8 MN-major)."""
    k_major = resolve(SPEC, dtype="bf16", major="K", mn=8, k=16)
    mn_major = resolve(SPEC, dtype="bf16", major="MN", mn=8, k=8)
    assert (k_major.mn, k_major.k, mn_major.mn, mn_major.k) == (8, 16, 8, 8)


def test_the_instruction_is_resolved_against_the_spec_given(tmp_path: Path) -> None:
    """With the k16 f32 accumulator row's valid N cut to 8 * (1..4), N = 64 of a bf16 k16
    instruction is no longer valid: resolve reads the instruction in the spec it is given, not
    in the bundled one (where 8 * (1..32) makes N = 64 valid)."""
    assert SPEC.get(RegisterFragment, "k16.D.f32").valid_n_values() == tuple(range(8, 257, 8))
    row = ('{id: k16.D.f32, shape: m64nNk16, k_elems: 16, operand: D, types: [f32], registers: "N/2", '
           'register_type: f32, elems_per_register: 1, last_index: "N/2 - 1", elements: "N/2", '
           'figure: 149, valid_n: [{step_elems: 8, i_min: 1, i_max: 32}]')
    cut = edited_spec(tmp_path, "wgmma/register_fragments.yaml", row,
                      row.replace("i_max: 32", "i_max: 4"))
    instr = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
    assert resolve(SPEC, instr=instr, operand="B").mn == 64
    with raises_naming(ValueError, instr, "N=64", "k16.f32.bf16.bf16", "8..32 step 8",
                       "wgmma/register_fragments:k16.D.f32"):
        resolve(cut, instr=instr, operand="B")


# --- the SS/RS form -------------------------------------------------------------------------------


def test_the_form_suffix_and_flag_are_read_in_any_case() -> None:
    """`name:rs` and --form rs are the RS form; a --form agreeing with the suffix is accepted."""
    assert resolve(SPEC, instr=f"{INSTR}:rs", operand="B").form == "RS"
    assert resolve(SPEC, instr=f" {INSTR}:RS ", operand="B", form="rs").form == "RS"
    got = resolve(SPEC, instr=f"{INSTR}:SS", operand="B", form="ss")
    assert (got.form, got.instr) == ("SS", INSTR)
    assert resolve(SPEC, instr=INSTR, operand="B", form="rs").form == "RS"


def test_a_suffix_that_is_no_form_stays_in_the_name() -> None:
    """Only :SS and :RS are forms; `name:XY` is read as the name, which the parser refuses whole."""
    with pytest.raises(ValueError, match=re.escape(f"malformed wgmma instruction '{INSTR}:XY'")) as err:
        resolve(SPEC, instr=f"{INSTR}:XY", operand="A")
    assert not isinstance(err.value, ExplainError)


def test_the_form_is_the_last_colon_piece() -> None:
    """`name:XY:RS` is the RS form of `name:XY`: operand A of it is refused as in registers."""
    with pytest.raises(ExplainError, match=re.escape(f"operand A of {INSTR}:XY in the RS form")):
        resolve(SPEC, instr=f"{INSTR}:XY:RS", operand="A")


# --- refusals -------------------------------------------------------------------------------------


#: (kw, code, the values the refusal names); the whole wording of each is the message example
#: explain.operand.<its test id> of messages_explain.py.
REFUSALS: dict[str, tuple[dict[str, Any], str, tuple[str, ...]]] = {
    "form_disagrees": ({"instr": f"{INSTR}:RS", "operand": "B", "form": "SS"}, "EXPLAIN-OPERAND",
                       ("--form SS", f"'{INSTR}:RS'")),
    "form_unknown": ({"instr": INSTR, "operand": "B", "form": "WS"}, "EXPLAIN-OPERAND", ("SS or RS", "WS")),
    "no_operand": ({"instr": INSTR}, "EXPLAIN-OPERAND", ("--instr", "--operand A or B")),
    "operand_c": ({"instr": INSTR, "operand": "C"}, "EXPLAIN-OPERAND", ("--instr", "--operand A or B")),
    "mn_with_instr": ({"instr": INSTR, "operand": "A", "mn": 64}, "EXPLAIN-OPERAND", ("--mn/--k", "--instr")),
    "k_with_instr": ({"instr": INSTR, "operand": "A", "k": 16}, "EXPLAIN-OPERAND", ("--mn/--k", "--instr")),
    "rs_operand_a": ({"instr": f"{INSTR}:RS", "operand": "A"}, "EXPLAIN-RS-OPERAND",
                     (f"operand A of {INSTR}", "RS form", "--operand A")),
    "dtype_of_the_other_operand": ({"instr": FP8, "operand": "B", "dtype": "e4m3"}, "EXPLAIN-OPERAND",
                                   ("--dtype e4m3", f"operand B of {FP8}", ".e5m2")),
    "nothing_given": ({}, "EXPLAIN-OPERAND", ("--instr", "--operand", "--dtype, --major, --mn, --k")),
    "flags_missing": ({"dtype": "bf16", "mn": 64}, "EXPLAIN-OPERAND", ("--major, --k",)),
    "dtype_unknown": ({"dtype": "f8", "major": "K", "mn": 64, "k": 16}, "DOMAIN-DTYPE",
                      ("f16, bf16, tf32, e4m3, e5m2, s8, u8, b1, f32, s32, f64, s4, u4", "'f8'")),
    "sub_byte": ({"dtype": "u4", "major": "K", "mn": 64, "k": 64}, "EXPLAIN-SUB-BYTE",
                 ("u4 is 4-bit", "ptxconf oracle smem-offsets")),
    "major_unknown": ({"dtype": "bf16", "major": "k", "mn": 64, "k": 16}, "DOMAIN-MAJOR", ("K or MN", "'k'")),
    "tf32_mn_major": ({"dtype": "tf32", "major": "MN", "mn": 64, "k": 8}, "DOMAIN-MAJOR",
                      ("K for tf32", "wgmma/instruction_operands", "imm-trans-a", "got MN")),
    "mn_zero": ({"dtype": "bf16", "major": "K", "mn": 0, "k": 16}, "DOMAIN-SHAPE",
                ("mn a positive multiple of 8", "got 0")),
    "mn_negative": ({"dtype": "bf16", "major": "K", "mn": -8, "k": 16}, "DOMAIN-SHAPE",
                    ("mn a positive multiple of 8", "got -8")),
    "mn_off_8": ({"dtype": "bf16", "major": "K", "mn": 60, "k": 16}, "DOMAIN-SHAPE",
                 ("mn a positive multiple of 8", "got 60")),
    # K-major bf16: T = 8, one repeat (T,2k) is 16 elements of K
    "k_off_the_k_major_repeat": ({"dtype": "bf16", "major": "K", "mn": 64, "k": 8}, "DOMAIN-SHAPE",
                                 ("multiple of 16", "K-major repeats of bf16", "got 8")),
    "k_zero": ({"dtype": "bf16", "major": "K", "mn": 64, "k": 0}, "DOMAIN-SHAPE",
               ("multiple of 16", "K-major repeats of bf16", "got 0")),
    # MN-major: (8,k), 8 elements of K a repeat in every mode
    "k_off_the_mn_major_repeat": ({"dtype": "bf16", "major": "MN", "mn": 64, "k": 4}, "DOMAIN-SHAPE",
                                  ("multiple of 8", "MN-major repeats of bf16", "got 4")),
    # tf32: T = 4 -> 8; e4m3: T = 16 -> 32
    "k_off_the_tf32_repeat": ({"dtype": "tf32", "major": "K", "mn": 64, "k": 4}, "DOMAIN-SHAPE",
                              ("multiple of 8", "K-major repeats of tf32", "got 4")),
    "k_off_the_e4m3_repeat": ({"dtype": "e4m3", "major": "K", "mn": 64, "k": 16}, "DOMAIN-SHAPE",
                              ("multiple of 32", "K-major repeats of e4m3", "got 16")),
}


@pytest.mark.parametrize(("kw", "code", "named"), REFUSALS.values(), ids=list(REFUSALS))
def test_resolve_refuses_with_its_code_naming_the_values(kw: dict[str, Any], code: str,
                                                         named: tuple[str, ...]) -> None:
    """Each refusal: its code, a one-line message naming the values, and `CODE - message` as the
    error text."""
    with raises_naming(ExplainError, *named) as err:
        resolve(SPEC, **kw)
    assert err.value.code == code
    assert "\n" not in err.value.message
    assert str(err.value) == f"{code} - {err.value.message}"
