"""SPEC-FACT (oracle/lint/derived.py): the facts the code derives from several rows exist and
agree, each problem reported at the row to fix. What `spec validate` and `check` print for it
is test_spec_validate_assembler.py's; here the rule's own answers on the bundled spec's rows
with one or two fields changed in memory (scratch_spec.replaced_row: the loader would refuse
such a spec, which is the point).

Expected values are worked by hand from the tables: an element type's width
(wgmma/element_types.yaml: f16 and bf16 16 bits, tf32 32, s4 4) times a register-fragment row's
elements per register is the register width, 32 bits for every row of the bundled spec; the
k32 accumulators (wgmma/register_fragments.yaml) are k32.D.f32 (valid N 8..256), k32.D.f16
(valid_n null: its instruction types borrow k32.D.f32's, same K, A and B types) and k32.D.s32.
Each error's line is found in the YAML text by the row's id, not asked of the records."""

from __future__ import annotations

from scratch_spec import replaced_row

from ptxconf.oracle import records
from ptxconf.oracle.lint.derived import (
    RULE,
    derived_errors,
    register_width_errors,
    valid_n_errors,
)
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, Spec, default_spec

FRAGMENTS = "wgmma/register_fragments"
FRAGMENTS_FILE = f"{FRAGMENTS}.yaml"


def _line_of(row_id: str, file: str = FRAGMENTS_FILE) -> int:
    """The 1-based line of the row `{id: row_id, ...}` in the bundled spec's file."""
    lines = (DEFAULT_SPEC_DIR / file).read_text().splitlines()
    (line,) = [i for i, text in enumerate(lines, 1) if f"{{id: {row_id}," in text]
    return line


def _fragment(spec: Spec, row_id: str, **changes: object) -> Spec:
    return replaced_row(spec, f"{FRAGMENTS}:{row_id}", **changes)


def test_the_bundled_rows_derive_one_register_width_and_every_valid_n() -> None:
    assert derived_errors("spec", default_spec().rows) == []


def test_a_row_implying_another_register_width_is_reported_at_that_row() -> None:
    # four 16-bit f16/bf16 elements per register: 64 bits, where every other row implies 32
    spec = _fragment(default_spec(), "k16.A.f16", elems_per_register=4)
    (error,) = register_width_errors("spec", spec.rows)
    assert (error.path, error.line, error.rule) == (f"spec/{FRAGMENTS_FILE}",
                                                    _line_of("k16.A.f16"), RULE)
    assert error.message.startswith("row 'k16.A.f16': "), error.message
    for named in ("f16 (16 bits) gives 64-bit", "bf16 (16 bits) gives 64-bit", "32-bit"):
        assert named in error.message, error.message


def test_each_row_implying_another_width_is_its_own_error() -> None:
    # two odd rows: k16.A.f16 at 4 x 16 bits and k8.A.tf32 at 2 x 32 bits, 64 bits each; the
    # other rows still make 32 bits the common width
    spec = _fragment(_fragment(default_spec(), "k16.A.f16", elems_per_register=4),
                     "k8.A.tf32", elems_per_register=2)
    errors = register_width_errors("spec", spec.rows)
    assert [(e.line, e.rule) for e in errors] == [(_line_of("k16.A.f16"), RULE),
                                                 (_line_of("k8.A.tf32"), RULE)]
    assert errors[0].message.startswith("row 'k16.A.f16': "), errors[0].message
    assert errors[1].message.startswith("row 'k8.A.tf32': "), errors[1].message
    assert "tf32 (32 bits) gives 64-bit" in errors[1].message, errors[1].message


def test_only_the_types_of_a_row_that_imply_another_width_are_named() -> None:
    # s4 added to the k32 A row: 4 x 4 bits is 16; its s8 and u8 (4 x 8 bits) still give 32
    spec = _fragment(default_spec(), "k32.A.s8", types=("s8", "u8", "s4"))
    (error,) = register_width_errors("spec", spec.rows)
    assert error.line == _line_of("k32.A.s8")
    assert error.message.startswith("row 'k32.A.s8': "), error.message
    assert "s4 (4 bits) gives 16-bit" in error.message, error.message
    assert "s8 (" not in error.message, error.message
    assert "u8 (" not in error.message, error.message


def test_rows_that_all_imply_one_other_width_are_not_an_error() -> None:
    # every fragment row twice as wide: one register width (64 bits) again, nothing to report
    spec = default_spec()
    for frag in spec.of(records.RegisterFragment):
        spec = _fragment(spec, frag.id, elems_per_register=2 * frag.elems_per_register)
    assert register_width_errors("spec", spec.rows) == []


def test_accumulators_left_without_valid_n_are_reported_naming_their_instruction_types() -> None:
    # k32.D.f32 without its valid N: its f32 instruction types have none, and the f16 ones,
    # which borrow it (k32.D.f16's cell is blank), have none either; k32.D.s32 keeps its own
    spec = _fragment(default_spec(), "k32.D.f32", valid_n=None)
    errors = valid_n_errors("spec", spec.rows)
    assert [(e.path, e.line, e.rule) for e in errors] == [
        (f"spec/{FRAGMENTS_FILE}", _line_of("k32.D.f32"), RULE),
        (f"spec/{FRAGMENTS_FILE}", _line_of("k32.D.f16"), RULE)]
    for error, dtype in zip(errors, ("f32", "f16"), strict=True):
        ids = [f"k32.{dtype}.{a}.{b}" for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")]
        assert error.message.startswith(f"row 'k32.D.{dtype}': "), error.message
        assert f" {', '.join(ids)} " in error.message, error.message


def test_an_accumulator_without_valid_n_reads_a_sibling_with_the_same_k_a_and_b_types() -> None:
    # the bundled k32.D.f16 has a blank cell and reads k32.D.f32's (the f16 and f32 rows of K 32
    # share their e4m3/e5m2 A and B types)
    spec = default_spec()
    assert spec.get(records.RegisterFragment, "k32.D.f16").valid_n is None
    assert valid_n_errors("spec", spec.rows) == []
    # k16.D.f16 blanked the same way reads k16.D.f32 (f16 A and B at K 16 there too)
    assert valid_n_errors("spec", _fragment(spec, "k16.D.f16", valid_n=None).rows) == []
