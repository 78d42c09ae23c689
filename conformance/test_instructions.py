"""wgmma instruction names and their valid N (oracle/instructions.py): the PTX name of a type row
(satfinite after the types, .and.popc for b1), `n_ranges`' summary of valid N ("8..32 step 8,
48..256 step 16", "none" if empty) and a row whose valid-N cell is blank taking its sibling's.

Expected values come from the PTX ISA's wgmma syntax and type table as
spec/wgmma/instruction_types.yaml gives it, worked by hand."""

from __future__ import annotations

import pytest

from ptxconf.oracle import instructions
from ptxconf.oracle.records import InstructionType
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()


# --- n_ranges: the valid-N summary of the error messages ------------------------------------



@pytest.mark.parametrize(("ns", "text"), [
    ([], "none"),
    ([8], "8"),
    ([8, 16], "8, 16"),  # two values are not a run
    ([24, 8, 16], "8..24 step 8"),  # sorted first
    (list(range(8, 257, 8)), "8..256 step 8"),  # the PTX ISA's N of .f16 / .bf16 wgmma
    ([8, 16, 24, 32, 48, 64, 80], "8..32 step 8, 48..80 step 16"),
    ([1, 8, 16, 24, 100], "1, 8..24 step 8, 100"),
    ([8, 16, 24, 40, 48], "8..24 step 8, 40, 48"),
])
def test_n_ranges_summarizes_runs_of_three_or_more(ns: list[int], text: str) -> None:
    assert instructions.n_ranges(ns) == text


# --- instruction_name ----------------------------------------------------------------------



def test_instruction_name_without_a_spec_is_the_ptx_name() -> None:
    row = SPEC.get(InstructionType, "k16.f32.f16.f16")
    assert instructions.instruction_name(row, 64) == "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"


def test_instruction_name_puts_satfinite_after_the_types() -> None:
    row = SPEC.get(InstructionType, "k32.s32.s8.s8")
    assert instructions.instruction_name(row, 8, SPEC, satfinite=True) == (
        "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite")


def test_instruction_name_of_b1_ends_in_and_popc() -> None:
    row = SPEC.get(InstructionType, "k256.s32.b1.b1")
    assert instructions.instruction_name(row, 16, SPEC) == (
        "wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc")


def test_a_row_without_valid_n_takes_them_from_its_one_sibling() -> None:
    # k32 .e4m3 with an f16 accumulator: the table's valid-N cell sits in the f32 row only
    row = SPEC.get(InstructionType, "k32.f16.e4m3.e4m3")
    ns, source = instructions.valid_n_for(SPEC, row)
    assert ns == tuple(range(8, 257, 8))
    assert source == "wgmma/register_fragments:k32.D.f16 states none; taken from k32.D.f32"
