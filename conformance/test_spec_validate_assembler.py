"""`ptxconf spec validate` knows what `ptxconf check` knows about a row.

Its assembler stage asks what the assembler witness asks (ptxconf.gpu.witness: every valid N
of every instruction-type row, SS and RS, .satfinite where the row has it, the N between them,
every type combination), through the same cases, sweep and verdict cache; a row `check` would
fail is `path:line: SPEC-ASSEMBLER - message` at the line to edit. Facts derived from several
rows (the register width, a row's valid N) are checked when the spec loads (SPEC-FACT), so an
edit that breaks one is a located error from both commands, never `ptxconf: error: ...`.

Each test edits a scratch copy of the bundled spec. The assembler tests need NVRTC (no GPU)
and skip with the reason where it is missing; the witness verdicts go to the test run's cache
(conftest.py), so a run neither reads nor fills the user's, and an edited spec asks the
assembler only about the witness kernels its edit changes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scratch_spec import copy_spec

from ptxconf.app.cli import main
from ptxconf.gpu import build
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR

#: With test_cases.py's witness cases on one xdist worker (`--dist loadgroup`): the bundled
#: spec's sweep is made once a process, and an edited spec's from the verdicts it shares.
pytestmark = pytest.mark.xdist_group("assembler-witness")

NVRTC_PROBLEM = build.nvrtc_problem()
needs_nvrtc = pytest.mark.skipif(NVRTC_PROBLEM is not None, reason=str(NVRTC_PROBLEM))

FRAGMENTS = "wgmma/register_fragments.yaml"
TYPES = "wgmma/instruction_types.yaml"
#: The k32 .s32 accumulator row's valid N as the bundled spec has it (8..32 step 8, 48..256
#: step 16: the s8/u8 forms).
S32_VALID_N = ("figure: 153, valid_n: [{step_elems: 8, i_min: 1, i_max: 4}, "
               "{step_elems: 16, i_min: 3, i_max: 16}]")


def _scratch(tmp_path: Path, edits: list[tuple[str, str, str]]) -> tuple[Path, list[int]]:
    """The bundled spec copied under tmp_path with each (file, old, new) edit made (old there
    exactly once); the tree and the line of each edit."""
    root = copy_spec(tmp_path / "spec")
    lines = []
    for file, old, new in edits:
        path = root / file
        text = path.read_text()
        assert text.count(old) == 1, f"{file}: {old!r} appears {text.count(old)} times"
        lines.append(text[: text.index(old)].count("\n") + 1)
        path.write_text(text.replace(old, new))
    return root, lines


def _validate(capsys: pytest.CaptureFixture[str], root: Path | None) -> tuple[int, list[str], str]:
    """`spec validate` (of the bundled spec for None): exit code, stderr lines, stdout."""
    code = main(["spec", "validate", *(["--spec-dir", str(root)] if root else [])])
    out, err = capsys.readouterr()
    return code, err.strip().splitlines(), out


# --- the assembler stage: what the witness judges ------------------------------------------


@needs_nvrtc
def test_a_valid_n_range_past_the_assemblers_is_reported_at_its_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """i_max 17 on k32.D.s32 implies N=272: the sweep reaches it, the assembler rejects it."""
    root, (line,) = _scratch(tmp_path, [(FRAGMENTS, S32_VALID_N,
                                         S32_VALID_N.replace("i_max: 16}", "i_max: 17}"))])
    code, err, _ = _validate(capsys, root)
    assert code == 2, err
    assert len(err) == 1, err
    assert err[0].startswith(f"{root / FRAGMENTS}:{line}: SPEC-ASSEMBLER - row 'k32.D.s32': "), err
    assert "rejects N = 272 " in err[0], err
    assert "'.m64n272k32'" in err[0], err
    assert "k32.s32.s8.s8" in err[0], err
    assert "RS .satfinite" in err[0], err


@needs_nvrtc
def test_an_n_the_assembler_rejects_for_s8_is_reported_at_its_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """N=40 added to the s8/u8 accumulator (s8 takes 8..32 step 8, then steps of 16)."""
    root, (line,) = _scratch(tmp_path, [(FRAGMENTS, S32_VALID_N,
                                         S32_VALID_N.replace("i_max: 4}", "i_max: 5}"))])
    code, err, _ = _validate(capsys, root)
    assert code == 2, err
    assert len(err) == 1, err
    assert err[0].startswith(f"{root / FRAGMENTS}:{line}: SPEC-ASSEMBLER - row 'k32.D.s32': "), err
    assert "rejects N = 40 " in err[0], err
    assert "'.m64n40k32'" in err[0], err
    assert "k32.s32.s8.s8" in err[0], err


@needs_nvrtc
def test_n_the_assembler_accepts_but_the_row_drops_are_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The witness also asks the N a row leaves out: k16.D.f32 cut to 8..128 (the assembler
    takes 8..256) fails `check`, so `spec validate` reports it at the row."""
    old = ("figure: 149, valid_n: [{step_elems: 8, i_min: 1, i_max: 32}],\n"
           '     cite: {anchor: "wgmma.mma_async.m64nNk16, Accumulator D .f32')
    root, (line,) = _scratch(tmp_path, [(FRAGMENTS, old, old.replace("i_max: 32", "i_max: 16"))])
    code, err, _ = _validate(capsys, root)
    assert code == 2, err
    # CuTe's SM90 atoms name N up to 256 too: check's case at their row says so (SPEC-CHECK)
    asm = [e for e in err if " SPEC-ASSEMBLER - " in e]
    assert [e for e in err if e not in asm and " SPEC-CHECK - cute." not in e] == [], err
    assert len(asm) == 1, err
    assert asm[0].startswith(f"{root / FRAGMENTS}:{line}: SPEC-ASSEMBLER - row 'k16.D.f32': "), err
    assert "accepts N = 136..256 step 8, which it does not list" in asm[0], err


@needs_nvrtc
def test_satfinite_the_assembler_accepts_is_reported_at_the_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row that says `.satfinite` does not exist where the assembler accepts it: the
    type-table question, at the row's satfinite key."""
    old = "atype: s8, btype: s8, k_major_only: true, satfinite: true"
    root, (line,) = _scratch(tmp_path, [(TYPES, old, old.replace("satfinite: true",
                                                                 "satfinite: false"))])
    code, err, _ = _validate(capsys, root)
    assert code == 2, err
    assert err == [f"{root / TYPES}:{line}: SPEC-ASSEMBLER - row 'k32.s32.s8.s8': the assembler "
                   "(sm_90a) accepts wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite "
                   "(SS, RS); the row says satfinite: false"], err


@needs_nvrtc
def test_validate_and_check_fail_the_same_rows(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The witness cases `check` fails (judged against the spec's findings) are those of the
    rows `spec validate` names."""
    from ptxconf.core.cases import execute
    from ptxconf.gpu import assembler, witness
    from ptxconf.oracle.spec import load_spec

    root, _ = _scratch(tmp_path, [(FRAGMENTS, S32_VALID_N,
                                   S32_VALID_N.replace("i_max: 4}", "i_max: 5}"))])
    spec = load_spec(root)
    folder = assembler.verdict_folder(True)
    failing = {c.key.split(":", 1)[1] for c in witness.witness_cases(spec, folder)
               if spec.findings.judge(execute(c)).status.failing}
    code, err, _ = _validate(capsys, root)
    named = set(re.findall(r"k32\.s32\.[su]8\.[su]8", err[0]))
    assert code == 2, (failing, err)
    assert failing == named == {"k32.s32.s8.s8", "k32.s32.s8.u8", "k32.s32.u8.s8",
                                "k32.s32.u8.u8"}, (failing, err)


@needs_nvrtc
def test_the_bundled_spec_validates_clean_over_every_form(capsys: pytest.CaptureFixture[str]) -> None:
    """Every valid N of every row, SS and RS: more than ten thousand forms, no problem."""
    code, err, out = _validate(capsys, None)
    assert code == 0, err
    assert err == [], err
    m = re.search(r"no problems; the assembler agrees with every row: (\d+) wgmma forms judged", out)
    assert m is not None, out
    assert int(m[1]) > 10_000, out


@needs_nvrtc
def test_a_warm_validate_compiles_nothing(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The second validate of a fresh process (no sweep kept in memory) is answered from the
    verdict and kernel caches."""
    from ptxconf.gpu import witness

    for _ in range(2):
        monkeypatch.setattr(witness, "_SWEEPS", {})
        code, err, out = _validate(capsys, None)
        assert code == 0, err
    assert re.search(r"in (\d+) witness kernels \(0 compiled, \1 from the cache\)", out), out
    if build.include_problem() is None:
        assert "wmma fragments in one module (from the cache)" in out, out


# --- derived facts: located errors, not `ptxconf: error:` ----------------------------------


def test_a_type_that_implies_another_register_width_is_a_spec_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A new wgmma type as README's "Adding a spec entry" says: s4 (a 4-bit element type)
    added to the k32 A fragment's types and given its instruction-type row. Four 4-bit
    elements make a 16-bit register where every other row implies 32: the fragment row is
    reported, by `spec validate` and by `check`, never as a bare error."""
    row = next(ln for ln in (DEFAULT_SPEC_DIR / TYPES).read_text().splitlines()
               if "{id: k32.s32.u8.u8," in ln)
    new_row = row.replace("k32.s32.u8.u8", "k32.s32.s4.s4").replace("atype: u8", "atype: s4") \
                 .replace("btype: u8", "btype: s4")
    root, (line, _) = _scratch(tmp_path, [(FRAGMENTS, "types: [s8, u8]", "types: [s8, u8, s4]"),
                                          (TYPES, row, row + "\n" + new_row)])
    want = (f"{root / FRAGMENTS}:{line}: SPEC-FACT - row 'k32.A.s8': 4 elements per register x "
            "s4 (4 bits) gives 16-bit registers; the other register-fragment rows imply 32-bit "
            "registers")
    for argv in (["spec", "validate"], ["check", "--gpu", "off", "--report-dir",
                                        str(tmp_path / "report")]):
        code = main([*argv, "--spec-dir", str(root)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2, (argv, err)
        assert len(err) == 1, (argv, err)
        assert err[0].startswith(want), (argv, err)
        assert not any(e.startswith("ptxconf: error:") for e in err), err


def test_a_row_left_without_valid_n_is_a_spec_error(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """k32.D.f32's valid_n set to null: its rows, and the .f16 rows that borrow it, have no
    valid N (`instructions.valid_n_for` would raise): each accumulator row is reported."""
    old = "figure: 153, valid_n: [{step_elems: 8, i_min: 1, i_max: 32}]"
    root, (line,) = _scratch(tmp_path, [(FRAGMENTS, old, "figure: 153, valid_n: null")])
    code, err, _ = _validate(capsys, root)
    assert code == 2, err
    assert err[0].startswith(f"{root / FRAGMENTS}:{line}: SPEC-FACT - row 'k32.D.f32': valid_n "
                             "is null, and no instruction-type row with the K, A and B types of "
                             "k32.f32.e4m3.e4m3, "), err
    assert len(err) == 2, err
    assert "row 'k32.D.f16'" in err[1], err
