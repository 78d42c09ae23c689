"""The assembler's verdicts on a witness kernel are kept on disk, so a warm rerun asks it nothing.

CPU only: NVRTC from the cuda-bindings / nvidia-cuda-nvrtc wheels (skips with the reason where
they are missing). The verdicts themselves are the PTX ISA's: `.m64n12k16` is no wgmma shape
(N steps by 8 for f16 inputs), `.m64n8k16.f32.f16.f16` is one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ptxconf.gpu import assembler, build
from ptxconf.gpu.variants import WgmmaVariant, parse_wgmma
from ptxconf.oracle.spec import default_spec

NVRTC_PROBLEM = build.nvrtc_problem()
pytestmark = pytest.mark.skipif(NVRTC_PROBLEM is not None, reason=str(NVRTC_PROBLEM))

SPEC = default_spec()
GOOD = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"
BAD = "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16"


def _variants() -> list:
    return [parse_wgmma(SPEC, GOOD), parse_wgmma(SPEC, BAD)]


def _kept_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"))


def test_a_warm_sweep_asks_the_assembler_nothing(tmp_path: Path) -> None:
    """The second sweep over the same kernel is answered from the folder, verdicts and logs equal."""
    cold, warm = assembler.Asked(), assembler.Asked()
    first = assembler.compile_check_many(_variants(), folder=tmp_path, asked=cold)
    again = assembler.compile_check_many(_variants(), folder=tmp_path, asked=warm)
    assert [ok for ok, _ in first] == [True, False]
    assert "'.m64n12k16'" in first[1][1]
    assert (cold.kernels, cold.from_cache) == (1, 0)
    assert cold.compiles >= 1
    assert (warm.kernels, warm.from_cache, warm.compiles) == (1, 1, 0)
    assert again == first
    assert len(_kept_files(tmp_path)) == 1


def test_no_folder_keeps_nothing_and_asks_every_time(tmp_path: Path) -> None:
    """Without a folder (`--no-cache`) every sweep compiles, and nothing is written."""
    for _ in range(2):
        asked = assembler.Asked()
        assembler.compile_check_many(_variants(), folder=None, asked=asked)
        assert (asked.kernels, asked.from_cache) == (1, 0)
        assert asked.compiles >= 1
    assert assembler.verdict_folder(False) is None
    assert list(tmp_path.iterdir()) == []


def test_another_kernel_is_another_entry(tmp_path: Path) -> None:
    """The key is the witness kernel's text: the same variants in another order are asked anew."""
    assembler.compile_check_many(_variants(), folder=tmp_path)
    asked = assembler.Asked()
    swapped = assembler.compile_check_many(_variants()[::-1], folder=tmp_path, asked=asked)
    assert [ok for ok, _ in swapped] == [False, True]
    assert asked.from_cache == 0
    assert asked.compiles >= 1
    assert len(_kept_files(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["not json", "[]", '[[true, ""]]', '{"a": 1}', '[1, 2]'])
def test_a_damaged_entry_is_asked_again_and_rewritten(tmp_path: Path, damage: str) -> None:
    """A kept file that does not read as one verdict per variant is ignored, then replaced."""
    first = assembler.compile_check_many(_variants(), folder=tmp_path)
    (kept,) = _kept_files(tmp_path)
    kept.write_text(damage)
    asked = assembler.Asked()
    assert assembler.compile_check_many(_variants(), folder=tmp_path, asked=asked) == first
    assert asked.from_cache == 0
    assert asked.compiles >= 1
    assert [tuple(v) for v in json.loads(kept.read_text())] == first


def test_an_unwritable_folder_is_only_slower(tmp_path: Path) -> None:
    """A folder that cannot be made (a file is in the way) still gives the verdicts."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    got = assembler.compile_check_many(_variants(), folder=blocker / "witness")
    assert [ok for ok, _ in got] == [True, False]


#: The shared witness sweep of the bundled spec is made once a run, on the worker of the
#: `assembler-witness` group (test_cases.py): the seeded variant below copies its verdicts.
WITNESS_GROUP = "assembler-witness"


@pytest.mark.parametrize("seeded", [
    pytest.param(True, id="one-kernel-cold", marks=pytest.mark.xdist_group(WITNESS_GROUP)),
    pytest.param(False, id="all-cold", marks=pytest.mark.slow(
        reason="every witness kernel compiled cold (the whole sweep again, ~10 s on two cores); "
               "[one-kernel-cold] runs the same three checks by default with one kernel cold, "
               "and test_a_warm_sweep_asks_the_assembler_nothing a sweep wholly cold"))])
def test_check_says_a_warm_rerun_asked_the_assembler_nothing(tmp_path: Path, monkeypatch, capsys,
                                                             seeded: bool) -> None:
    """`ptxconf check` prints what the witness compiled; rerun, it takes the witness's results
    from the result cache (no sweep at all); with those gone (another ptxconf), the verdict
    cache answers every witness kernel (nothing compiled). [one-kernel-cold]: the verdict
    cache starts as the run's shared sweep left it, less one kernel's verdicts, so the first
    check compiles that kernel alone and takes the others from the cache."""
    import shutil

    from ptxconf.app.cli import main
    from ptxconf.gpu import kcache, witness

    held = 0
    if seeded:
        witness.sweep(SPEC, assembler.verdict_folder(True))  # the run's sweep (made once a run)
        seed = tmp_path / "kernels" / "witness"
        shutil.copytree(kcache.cache_dir() / "witness", seed)
        # the verdict files the bundled spec's sweep reads (the run's folder holds edited
        # specs' too): asked of the copy, every one answered, nothing compiled
        read: list[Path] = []
        path_of = assembler._verdict_path
        monkeypatch.setattr(assembler, "_verdict_path",
                            lambda folder, source: read.append(path_of(folder, source)) or read[-1])
        swept = witness._sweep(*witness._sweep_key(SPEC), seed)
        monkeypatch.undo()
        assert swept.asked is not None
        assert swept.asked.compiles == 0
        read[0].unlink()
        held = len(read) - 1
    monkeypatch.setenv("PTXCONF_KERNEL_CACHE", str(tmp_path / "kernels"))
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path / "cache"))
    lines = []
    for run in range(3):
        witness._SWEEPS.clear()  # a fresh process each time, as a user's reruns are
        if run == 2:
            shutil.rmtree(tmp_path / "cache" / "outcomes")
        code = main(["check", "--gpu", "off", "--only", "witness.type_table",
                     "--report-dir", str(tmp_path / f"run{run}")])
        assert code == 0
        out = capsys.readouterr().out.splitlines()
        lines.append([x for x in out if x.startswith(("assembler witness", "from the caches"))])
    (cold,), (kept,), (warm,) = lines
    got = re.fullmatch(r"assembler witness: (\d+) of (\d+) witness kernels compiled \((\d+) assembler runs\) "
                       r"in [\d.]+ s \((\d+) answered from the cache\)", cold)
    assert got is not None, cold
    compiled, kernels, runs, answered = map(int, got.groups())
    assert (compiled, answered) == (kernels - held, held)
    assert compiled > 0
    assert runs >= compiled
    cases = json.loads((tmp_path / "run1" / "results.json").read_text())["meta"]["from_cache"]
    assert kept == f"from the caches: {cases['assembler-witness']} assembler-witness results " \
                   "(--no-cache computes them again)"
    assert warm == (f"assembler witness: {kernels} witness kernels, all answered from the cache "
                    "(nothing compiled)")
    meta = json.loads((tmp_path / "run2" / "results.json").read_text())["meta"]["witness"]
    assert (meta["kernels"], meta["compiled"], meta["from_cache"], meta["assembler_runs"]) == (
        kernels, 0, kernels, 0)


def test_a_signal_stops_the_sweep_after_the_compile_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C during the witness sweep (one thread, as `check` runs it) ends it once the
    compile under way returns: the batches not yet started are never compiled, so the run exits
    at once (it waited for the whole sweep: 4.7 s after SIGTERM on 2 cores, now 0.3 s)."""
    started: list[int] = []

    def batch(variants: list[object], folder: object, asked: object) -> list[tuple[bool, str]]:
        started.append(len(variants))
        if len(started) == 1:
            raise KeyboardInterrupt
        return [(True, "")] * len(variants)

    monkeypatch.setattr(assembler, "_check_batch", batch)
    with pytest.raises(KeyboardInterrupt):
        assembler.compile_check_many(_variants() * 20, batch=1, threads=1)
    assert started == [1]


def test_a_sweep_past_256_keeps_the_kernels_of_the_first_256_n(monkeypatch: pytest.MonkeyPatch) -> None:
    """N is asked in blocks of 256: a row that lists N = 272 adds witness kernels for N 257..272
    and leaves those of N 1..256 (and their kept verdicts) as they were, so the edited spec's
    sweep compiles only the new block."""
    asked: list[list[str]] = []

    def record(variants, **_: object) -> list[tuple[bool, str]]:
        asked.append([v.ptx_name for v in variants])
        return [(True, "")] * len(variants)

    monkeypatch.setattr(assembler, "compile_check_many", record)
    families = _variants()[:1]
    assembler.witness_valid_n(families, range(1, 257))
    (first,) = asked
    asked.clear()
    sweep = assembler.witness_valid_n(families, range(1, 273))
    assert asked == [first, [families[0].with_n(n).ptx_name for n in range(257, 273)]]
    assert sweep.accepted_n[families[0].family] == tuple(range(1, 273))


def test_a_row_added_or_dropped_leaves_most_witness_kernels_as_they_were() -> None:
    """The valid-N sweep's kernels are runs of families cut where a family's checksum says
    (family_kernels): a row dropped or added (here each family in turn, and a .satfinite twin
    after each) leaves the kernels before it but its neighbour as they were, and most after
    it, so an edited spec compiles a few kernels, not every one after the edit."""
    import dataclasses
    import itertools

    from ptxconf.gpu import witness

    rows, isa, _ = witness._sweep_key(SPEC)
    fams = [WgmmaVariant(n=8, k=k, dtype=d, atype=a, btype=b, a_from_regs=rs, satfinite=s, isa=isa)
            for k, d, a, b, sat in rows
            for rs, s in itertools.product(witness.FORMS, (False, True) if sat else (False,))]

    def kernels(families: list[WgmmaVariant]) -> list[tuple[object, ...]]:
        return [tuple(f.family for f in run) for run in assembler.family_kernels(families, 4)]

    before = kernels(fams)
    assert [f for run in before for f in run] == [f.family for f in fams]
    changed = []
    for i, f in enumerate(fams):
        held = next(j for j, run in enumerate(before) if f.family in run)
        twin = dataclasses.replace(f, satfinite=not f.satfinite)
        for edited in (fams[:i] + fams[i + 1:], fams[:i + 1] + [twin] + fams[i + 1:]):
            after = kernels(edited)
            kept = max(0, held - 1)  # (dropping a run's first family joins the rest to the run before)
            assert after[:kept] == before[:kept], f"a kernel before {f.family} changed"
            changed.append(len(set(after) - set(before)))
    assert max(changed) <= len(before) // 2
    assert sum(changed) <= 2 * len(changed)
