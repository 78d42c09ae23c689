"""The lines `ptxconf check` prints after its summary: what the kernel build, the assembler
witness, the caches and a warm run's replay did, and what a resume re-ran."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ptxconf.core.results import Result


def _replay_of(lanes: dict[str, Any] | None) -> dict[str, Any] | None:
    """A run's warm replay (`ptxconf.app.replay_run`) from its meta.lanes: the lanes' own where
    the replay took every job, else nested under the lanes that ran the rest; None where the
    run did not replay."""
    replay = lanes.get("replay") if lanes and lanes.get("mode") != "replay" else lanes
    return replay if replay and replay.get("mode") == "replay" else None


def kernels_line(k: dict[str, Any], lanes: dict[str, Any] | None) -> str:
    """One line on the kernel build: a warm rerun says it compiled nothing."""
    if k["compiled"] == 0:
        what = f"kernels: {k['modules']} modules, all from the kernel cache (nothing compiled)"
    else:
        what = (f"kernels: {k['compiled']} of {k['modules']} modules compiled in "
                f"{k['seconds']} s ({k['from_cache']} from the kernel cache)")
    if k.get("failed"):
        what += f"; {k['failed']} failed to compile"
    if k.get("rejected"):
        name, why = next(iter(k["rejected"].items()))
        what += (f"; {len(k['rejected'])} cached module(s) rejected and compiled again "
                 f"({name}: {why})")
    replay = _replay_of(lanes)
    if replay:
        what += (f"; {replay['replayed_jobs']} of {replay['jobs']} GPU jobs replayed from their "
                 f"transcripts by {replay['lanes']} probe workers on {replay['gpus']} GPU(s)")
        asked = replay.get("gpus_asked", 1)  # --gpus N (a number) or all
        if asked == "all" or int(asked) > replay["gpus"]:
            from ptxconf.app.replay_run import REPLAY_ON_ONE_GPU

            what += f" ({asked} asked for: {REPLAY_ON_ONE_GPU})"
    if lanes and lanes.get("mode") != "replay":
        what += f"; GPU cases over {lanes['gpus']} GPU(s) x {lanes['lanes'] // lanes['gpus']} workers"
    return what


def witness_line(w: dict[str, Any]) -> str:
    """One line on the assembler witness: a warm rerun says it asked the assembler nothing."""
    if w["compiled"] == 0:
        return (f"assembler witness: {w['kernels']} witness kernels, all answered from the cache "
                "(nothing compiled)")
    return (f"assembler witness: {w['compiled']} of {w['kernels']} witness kernels compiled "
            f"({w['assembler_runs']} assembler runs) in {w['seconds']} s ({w['from_cache']} "
            "answered from the cache)")


def verify_line(results: list[Result], seed: int) -> str:
    """One line on `--verify-cache`: how many cached outcomes were proved again, and whether
    every fresh proof agreed (a disagreeing entry is also on the rejected line)."""
    said = Counter(r.fields["cache_verified"] for r in results if r.fields.get("cache_verified"))
    n, differ = sum(said.values()), said["disagrees"]
    verdict = "every fresh proof agrees" if not differ else f"{differ} disagree (proved again)"
    return (f"proof cache: {n} cached outcome{'s' if n != 1 else ''} proved again to verify "
            f"them (--verify-seed {seed}): {verdict}")


def cache_rejected_line(results: list[Result]) -> str | None:
    """One line naming the proof-cache and result-cache entries a run did not use (it proved
    or ran those cases again), or None where it used every entry it found."""
    lines = []
    for what, done, proofs in (("proof cache", "proved", True), ("result cache", "run", False)):
        bad = [(r.id, r.fields["cache_rejected"]) for r in results
               if r.fields.get("cache_rejected") and (r.provider == "proofs") == proofs]
        if bad:
            shown = "; ".join(f"{cid} ({why})" for cid, why in bad[:3])
            more = f"; and {len(bad) - 3} more" if len(bad) > 3 else ""
            lines.append(f"{what}: {len(bad)} entr{'y' if len(bad) == 1 else 'ies'} rejected and "
                         f"{done} again: {shown}{more}")
    return "\n".join(lines) or None


def from_cache(results: list[Result]) -> dict[str, int]:
    """Per provider, how many of its results came from the caches (nothing computed)."""
    return dict(Counter(r.provider for r in results if r.fields.get("cached")))


def from_cache_line(counts: dict[str, int]) -> str | None:
    """One line on what a run took from the caches instead of computing it, or None."""
    if not counts:
        return None
    said = ", ".join(f"{n} {provider}" for provider, n in counts.items())
    return f"from the caches: {said} results (--no-cache computes them again)"


def replay_misses_line(lanes: dict[str, Any] | None) -> str | None:
    """One line on the GPU jobs a warm run's replay did not take (they ran in full in lanes:
    an answer moved, a transcript was missing or unreadable), naming the first and why; None
    where it took every job or did not replay (`ptxconf.app.replay_run`)."""
    replay = _replay_of(lanes)
    if not replay or not replay.get("misses"):
        return None
    first = replay["misses"][0]
    n = replay["jobs"] - replay["replayed_jobs"]
    return (f"replay: {n} of {replay['jobs']} GPU jobs ran in full, not from their transcripts "
            f"(first: {first['provider']} {first['first_case']}: {first['why']})")


def replayed_line(results: list[Result]) -> str | None:
    """One line on the GPU cases whose host work a kept transcript answered (the probes ran;
    `ptxconf.gpu.transcript`), or None."""
    n = sum(1 for r in results if r.fields.get("replayed"))
    if not n:
        return None
    return (f"replayed: {n} GPU cases took their kept results: the GPU gave every recorded "
            "answer again, so their host work was not redone (--no-cache redoes it)")


def resume_line(redo: dict[str, str]) -> str:
    """One line on the completed results `--resume` did not keep (it ran those cases again)."""
    why = Counter(redo.values())
    return (f"resume: {len(redo)} completed result{'s' if len(redo) != 1 else ''} run again ("
            + "; ".join(f"{n} {reason}" for reason, n in why.items()) + ")")


#: Why `--resume` runs a completed case again instead of keeping its result.


__all__ = ["cache_rejected_line", "from_cache", "from_cache_line", "kernels_line",
           "replay_misses_line", "replayed_line", "resume_line", "verify_line", "witness_line"]
