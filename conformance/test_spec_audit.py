"""The spec says what the sources say: every row cites its source in the source's own words.

Audit log (the five seeds of /work/shared/seeds, re-read line by line against spec/):

* Every row has `cite: {anchor, text}`: the figure / table / section and a short verbatim quote
  holding the row's numbers ("…" marks an elision), or `provenance` where no seed states the
  row (assembler, silicon-h100, outside-seeds). `source.columns` names each column whose values
  the quotes do not state and says where they come from. `agreement` (oracle/lint/cite.py)
  checks both directions: every number a quote states is one its row holds (0/1 aside), every
  top-level integer of a row is one its quote states (or its column is declared).
* Derived values live beside the source's: Table 38's printed cell beside leading_u128; the
  fragment tables' last index ("N/2 - 1") beside the derived count `elements`; CuTe's C++
  spelling (`layout_cpp`) beside the CuTe-notation transcription; the blog's printed atoms and
  labels beside what its own make_smem_layout_atom builds (computed in the check).

000 (PTX 9.7.15.5.1.2, smem layouts). Checked: imm-trans sentence, cuBLAS table, Table 38 and
its tf32 sentence, the LBO/SBO definitions, the canonical table, the T definition, Figures
166-170. Added: wgmma/major_conventions (imm-trans 0/1, the cuBLAS table), wgmma/normalization
(every "128-bit" statement), LBO/SBO `after`/`unit`/`tile` (what each definition counts:
"first 8 rows", "(swizzle-byte-size/16) rows", "the 8x2 tile"), the figures' ">> 4"
(`encode_shift_bits`). Figures 156-165 are images (no numbers). Exposed: the cuBLAS table reads
Non-Transposed A as K-major where CUTLASS reads N as M-major
(major.convention[cute/major_conventions:cute-name.A.N]); known: Figure 167's k=2.
The descriptor bit layout and the base-offset table are not in the seed (9.7.15.5.1.2.2): their
rows say outside-seeds (witness CUTLASS, silicon).

001 (PTX 9.7.15.5.1.1, register fragments). Checked: every fragment cell, element list and
valid-N cell. Added: `shape` (m64nNk16: M = 64 against seed 004's CLayout), `last_index` (the
table lists a0..a7 / d0..dW, W = N/2 - 1; `elements` is now its derived count), register types
checked against the register width, figure numbering, wgmma/operand_storage (A in registers or
shared memory, B shared memory only). Shared Elements cells (rowspans lost in the text) are
cited as shared. Known: k32 .f16 accumulators' valid-N cell is blank.
instruction_types: the pairing table is outside the seeds; rows say provenance assembler;
`satfinite` (assembler), `k_major_only` (derived from wgmma/instruction_operands, checked by
instruction.operands), `fragment_a/d` (project) are declared columns.

002 (PTX 9.7.14.4.2, wmma storage). Checked: stride unit, alignment rule and example, default
stride table. Added: `printed_shape` (the table's MxNxK), the stride unit now read
(wmma.alignment_example). Removed: the example's `register_bits` (the document states no
register width; the check derives 32 from .f16x2). `types` has no seed: declared (outside
the seeds; silicon-h100 wmma probes). No source error.

003 (CuTeDSL swizzle blog). Checked: the simple_swizzle example and its binary, the bit
pictures of Swizzle<1/2/3,4,3>, get_smem_layout_atom (constants, order, assert) and
make_smem_layout_atom, the bf16 atom lists, both tile_to_shape examples (visual and by hand),
the 64x64 bank example. Added: `select_contiguous_bits` beside make_smem_layout_atom's
`contiguous_bits`, `strided_elems` (the 8 of (n, 8)), the chosen kind as printed (K_SW64), the
element width the blog states, binary offsets, bit patterns and flips, `period_binary`,
`pattern_bits`, the printed results as printed (S<1,4,3>), atom shapes, derived mode layouts,
pattern_repeat_atoms, the assert's multiple, the tile (64,64) example, the 32-bit bank word.
Exposed: the by-hand second mode (16,2):(1, 16) (cutedsl.tile_modes[...by_hand]) and the
M-major tiling atom printed "(16, 1):(1,16)" and labelled K-Major (cutedsl.tile_atom[
...tile.MN_SW32.32x32]), which the spec had held corrected; known: MN_INTER printed as K, the
by-hand (8,16), the periods read as bits.

004 (CUTLASS CuTe MMA atoms). Checked: naming scheme, type aliases, SM70 ThrID/C/A/B layouts
and every "(Tx,Vy) is located at" point, the prose about strides, the SM90 ThrID, CLayout
64x8/64x128, N variants, SS ALayout. Added: `atom_named` (6 rows carried 4 struct names the
document never gives: the SM70 F16 and TN atoms, SM90 64x8, the SS atom; now marked as the
project's, by the document's naming scheme), `alias` (SM70_QuadPair, SM70_8x4_Col,
SM70_8x8_32b), `layout_cpp`, every domain comment, `variants_n_elems`, cute/mode_statements,
cute/operation_registers (DRegisters = float[8], ...), cute/thread_groups (quadpair 8, warp 32
= 4 QPs, warpgroup 128 = 4 warps), cute/major_conventions ("NT": A M-major, B N-major).
Exposed: "(T32, V0), which makes it a stride of 32" where the layout's stride is 16
(cute.mode_statement[cute/mode_statements:SM90.C.warps]); known: the SS comment V64x8.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ptxconf.oracle import records
from ptxconf.oracle.findings import known_findings
from ptxconf.oracle.lint.base import RawDocument
from ptxconf.oracle.lint.cite import agreement, held_numbers, stated_numbers
from ptxconf.oracle.lint.rows import exact_pin
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, load_spec, spec_files

SPEC = load_spec()
FILES = spec_files(DEFAULT_SPEC_DIR)

#: The discrepancies this audit exposed, each recorded in spec/findings.yaml.
AUDIT_FINDINGS = {
    "major.convention[cute/major_conventions:cute-name.A.N]":
        "ptx-blas-table-a-non-transposed-is-k-major",
    "cute.mode_statement[cute/mode_statements:SM90.C.warps]": "cute-sm90-clayout-warp-stride-32",
    "cutedsl.tile_modes[cutedsl/worked_examples:tile.K_SW32.32x32.by_hand]":
        "cutedsl-by-hand-second-mode-stride",
    "cutedsl.tile_atom[cutedsl/worked_examples:tile.MN_SW32.32x32]":
        "cutedsl-mn-tile-atom-printed-16x1-as-k",
}


def _doc(path: Path, root: Path = DEFAULT_SPEC_DIR) -> RawDocument:
    return RawDocument.parse(path, path.relative_to(root).as_posix())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(DEFAULT_SPEC_DIR).as_posix())
def test_every_row_cites_its_source_and_agrees_with_it(path: Path) -> None:
    problems = agreement(_doc(path))
    assert not problems, "\n".join(str(p) for p in problems)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(DEFAULT_SPEC_DIR).as_posix())
def test_every_file_holds_exactly_its_pinned_rows(path: Path) -> None:
    """source.row_count is the source's row count: a row added to spec/ raises it (SPEC-ROWS
    then catches the row's deletion; a scratch spec may add rows without it)."""
    problems = exact_pin(_doc(path))
    assert not problems, "\n".join(str(p) for p in problems)


def test_every_record_has_a_cite() -> None:
    missing = [r.key for r in SPEC.rows if r.cite is None or not r.cite.anchor.strip()]
    assert not missing


def test_rows_outside_the_seeds_say_so() -> None:
    """A row with a provenance names where it comes from in its anchor or its file's source."""
    checked = 0
    for row in SPEC.rows:
        if row.cite is not None and row.cite.provenance is not None:
            where = f"{row.cite.anchor} {row.source.section if row.source else ''}".lower()
            assert row.cite.provenance != "outside-seeds" or "outside the seeds" in where, row.key
            checked += 1
    assert checked > 0, "no row has a provenance"


def test_declared_columns_are_not_stated_in_quotes_by_accident() -> None:
    """A declared column is one the document does not state: its file says where it comes
    from instead, in words."""
    checked = 0
    for path in FILES:
        source = _doc(path).data["source"]
        for column, why in (source.get("columns") or {}).items():
            assert len(why.split()) >= 3, f"{path.name}: columns.{column}: say where it comes from"
            checked += 1
    assert checked > 0, "no spec file declares a column"


def test_audit_findings_are_recorded() -> None:
    known = known_findings()
    assert AUDIT_FINDINGS
    for case_id, name in AUDIT_FINDINGS.items():
        assert case_id in known, case_id
        assert known[case_id].name == name, case_id


def test_number_words_and_digits_are_read() -> None:
    assert stated_numbers("four .b32 registers, with each register containing thirty two .b1") \
        == {4, 32, 1}
    assert stated_numbers("pairs of values; d0, d1, …, dW where W = N/2 - 1") == {2, 0, 1}
    assert held_numbers({"registers": "N/4", "valid_n": [{"step_elems": 8}]}) == {4, 8}


def test_a_quote_that_drifts_from_its_row_is_reported(tmp_path: Path) -> None:
    """The agreement bites both ways: a number only the quote states, and one only the row."""
    root = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, root)
    path = root / "wgmma" / "swizzle_atoms.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('text: "64B Swizzling Mode K 8x4"',
                                 'text: "64B Swizzling Mode K 8x5"'), encoding="utf-8")
    problems = [str(p) for p in agreement(_doc(path, root))]
    assert any("row K_SW64: the cited text states [5]" in p for p in problems), problems
    assert any("row K_SW64: leading_u128 = 4 is not stated" in p for p in problems), problems


def test_atom_names_no_source_gives_are_marked() -> None:
    named = {r.id: r.atom_named for r in SPEC.of(records.CuteLayout)}
    assert [k for k, v in named.items() if not v] == [
        "SM70_8x8x4.CLayout.f16", "SM70_8x8x4.ALayout.TN", "SM70_8x8x4.BLayout.TN",
        "SM90_64x8.ThrID", "SM90_64x8.CLayout", "SM90_64xNx16.ALayout.SS"]
