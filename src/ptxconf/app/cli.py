"""The `ptxconf` command line: each command run from its parsed arguments (`ptxconf.app.cli_parser`
builds the parser). Names and JSON keys are a stable contract (see README)."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ptxconf.app.check_lines import (
    cache_rejected_line,
    from_cache,
    from_cache_line,
    kernels_line,
    replay_misses_line,
    replayed_line,
    resume_line,
    verify_line,
    witness_line,
)
from ptxconf.app.cli_parser import build_parser
from ptxconf.app.command_io import UsageError, command_spec, emit
from ptxconf.core.trust import any_kept_run

if TYPE_CHECKING:
    from ptxconf.core.results import Result
    from ptxconf.oracle.spec import Spec


def cmd_spec(args: argparse.Namespace) -> int:
    """spec validate / spec list."""
    if args.spec_cmd == "validate":
        from ptxconf.app.validate import cmd_validate  # the assembler stage's imports, only here

        return cmd_validate(args)
    spec = command_spec(args)
    rows = [{"id": r.id, "file": r.file, "kind": r.KIND} for r in spec.rows]
    emit(args, rows, "\n".join(f"{r['file']}:{r['id']}  ({r['kind']})" for r in rows))
    return 0


def _offset_table(offsets: list[list[int]]) -> str:
    """Offsets as a labelled table: a header of k, one row per mn."""
    width = max([len(f"{v:#x}") for row in offsets for v in row] + [3])
    label = max(len(str(len(offsets) - 1)), 5)
    corner = "mn\\k"
    head = f"{corner:>{label}} " + " ".join(f"{j:>{width}}" for j in range(len(offsets[0])))
    rows = [f"{i:>{label}} " + " ".join(f"{v:>#{width}x}" for v in row) for i, row in enumerate(offsets)]
    return "\n".join([head, *rows])


def _fragment_table(instr: str, operand: str, entries: list[list[int]]) -> str:
    """A fragment as one line per thread: each register and the (row, col) it holds
    (sub-elements low to high)."""
    by_thread: dict[int, dict[int, list[tuple[int, int, int]]]] = {}
    for thread, reg, sub, row, col in entries:
        by_thread.setdefault(thread, {}).setdefault(reg, []).append((sub, row, col))
    lines = [f"# {instr} operand {operand}: thread -> register: (row, col) of each element it "
             f"holds ({len(entries)} elements, {len(by_thread)} threads)"]
    for thread in sorted(by_thread):
        regs = by_thread[thread]
        cells = [f"r{r}=" + "".join(f"({row},{col})" for _, row, col in sorted(regs[r]))
                 for r in sorted(regs)]
        lines.append(f"T{thread:<3} " + " ".join(cells))
    return "\n".join(lines)


def cmd_oracle(args: argparse.Namespace) -> int:
    """oracle smem-offsets / descriptor / fragment."""
    spec = command_spec(args)
    if args.oracle_cmd == "smem-offsets":
        from ptxconf.oracle.canonical import SmemQuery
        from ptxconf.oracle.domain import smem_answer

        q = SmemQuery(args.dtype, args.major, args.swizzle, args.mn, args.k, args.lbo, args.sbo,
                      args.base_offset, args.swizzle_unit,
                      base_offset_field=args.base_offset_field)
        out = smem_answer(spec, q)  # DomainError (a ValueError): one line, exit 2
        text = _offset_table(out["offsets"])
        notes = "".join(f"# warning: {w['code']} - {w['message']}\n" for w in out["warnings"])
        emit(args, out,
              f"{notes}# {out['units']} from the descriptor start; rows mn, cols k\n{text}")
        return 0
    if args.oracle_cmd == "descriptor":
        from ptxconf.oracle.descriptor import descriptor_format

        fmt = descriptor_format(spec)
        if args.desc_cmd == "encode":
            from ptxconf.oracle.domain import check_descriptor

            check_descriptor(spec, start_address_bytes=args.start_address, lbo_bytes=args.lbo,
                             sbo_bytes=args.sbo, swizzle=args.swizzle,
                             base_offset=args.base_offset)
            value = fmt.encode(start_address_bytes=args.start_address, lbo_bytes=args.lbo,
                               sbo_bytes=args.sbo, swizzle=args.swizzle,
                               base_offset=args.base_offset)
        else:
            value = args.value
        fields = fmt.decode(value)
        payload: dict[str, Any] = {"value": f"{value:#018x}", "fields": fields}
        emit(args, payload, f"{value:#018x}\n" + "\n".join(f"  {k}: {v}" for k, v in fields.items()))
        return 0
    from ptxconf.oracle.fragments import fragment_map

    fmap = fragment_map(args.instr, args.operand, spec)
    entries = fmap.entries
    payload = {"instr": args.instr, "operand": args.operand,
               "columns": ["thread", "register", "subelement", "row", "col"],
               "entries": [list(e) for e in entries], "provenance": fmap.provenance}
    emit(args, payload, _fragment_table(args.instr, args.operand, [list(e) for e in entries]))
    return 0


def verify_seed(args: argparse.Namespace) -> int:
    """The draw of --verify-cache: --verify-seed, else a fresh one (printed by verify_line)."""
    if args.verify_cache and args.no_cache:
        raise UsageError("--verify-cache checks the proof cache, which --no-cache leaves unused")
    if args.verify_seed is not None:
        return int(args.verify_seed)
    return secrets.randbelow(1 << 31)


def cmd_check(args: argparse.Namespace) -> int:
    """Run everything, write reports, print the summary. A run that may replay kept GPU
    transcripts forks the replay's workers first (`ptxconf.app.replay_prefork`; not where
    $PTXCONF_REPLAY_PREFORK is 0, nor where no run kept any: a first run compiles, and the
    cores its compiles need would go to workers it lets go), while it is one thread; they are
    let go however the run ends."""
    if (args.gpu != "off" and not args.no_cache
            and os.environ.get("PTXCONF_REPLAY_PREFORK") != "0" and any_kept_run()):
        from ptxconf.app import replay_prefork
        from ptxconf.app.replay_run import replay_workers

        replay_prefork.prefork(*replay_workers())
    try:
        return _check(args)
    finally:
        if (early := sys.modules.get("ptxconf.app.replay_prefork")) is not None:
            early.release()
        if (lanes := sys.modules.get("ptxconf.app.lanes")) is not None:
            lanes.release_compile()  # compile processes a run started early and did not use


def _check(args: argparse.Namespace) -> int:
    from ptxconf.app.progress import progress
    from ptxconf.app.report import check_writable, write_reports
    from ptxconf.app.report_ahead import Ahead
    from ptxconf.app.reproduce import with_reproduce
    from ptxconf.app.run import default_report_dir, exit_code, run_all, run_meta
    from ptxconf.app.run_options import RunOptions
    from ptxconf.app.text_report import text_summary
    from ptxconf.core.results import Status, result_digest, summarize

    if args.gpu != "off":
        from ptxconf.app.lanes import prestart

        prestart(not args.no_cache)  # the lanes' fork server imports while the spec loads
    spec = command_spec(args)
    opts = RunOptions(gpu=args.gpu, only=args.only, proof_timeout_s=args.timeout_s,
                      strict=args.strict, proof_cache=not args.no_cache,
                      kernel_cache=not args.no_cache, gpus=args.gpus,
                      verify_cache=args.verify_cache or 0.0, verify_seed=verify_seed(args),
                      workers_per_gpu=args.workers_per_gpu, proof_workers=args.proof_workers)
    out_dir = args.resume or args.report_dir or default_report_dir()
    redo: dict[str, str] = {}
    if args.resume is not None:
        opts.done, redo = _resumable(args.resume, spec)
    check_writable(out_dir)
    meta = run_meta(spec, opts)
    start = time.perf_counter()
    completed: list[Result] = []

    def on_result(r: Result) -> None:
        completed.append(r)
        tick(r)

    ahead = Ahead(spec)  # the report's per-result work, done while the GPU jobs run
    try:
        with progress(None if not (args.json or args.quiet) else False) as tick:
            results = run_all(spec, opts, on_result=on_result,
                              meanwhile=lambda: ahead.take(completed))
    except KeyboardInterrupt as exc:
        meta["seconds"] = round(time.perf_counter() - start, 3)
        meta["incomplete"] = {"interrupted_by": str(exc.args[0] if exc.args else "SIGINT"),
                              "completed": len(completed),
                              # of each result as results.json holds it (its reproduce lines)
                              "digests": {r.id: result_digest(with_reproduce(r, spec))
                                          for r in completed}}
        try:
            write_reports(out_dir, completed, meta, spec, cache=not args.no_cache, ahead=ahead)
        except OSError as err:  # a full disk: say so, and still end as interrupted
            print(f"ptxconf: error: {err}", file=sys.stderr)
        else:
            print(f"ptxconf: {len(completed)} completed results are in {out_dir} (marked "
                  f"incomplete); `ptxconf check --resume {out_dir}` runs the rest", file=sys.stderr)
        raise
    meta["seconds"] = round(time.perf_counter() - start, 3)
    meta.update({k: opts.extra[k] for k in ("kernels", "lanes") if k in opts.extra})
    witness = sys.modules.get("ptxconf.gpu.witness")  # imported only where its cases ran
    if witness is not None and (note := witness.sweep_note(spec)) is not None:
        meta["witness"] = note
    meta["from_cache"] = from_cache(results)
    if args.resume is not None:
        meta["resumed"] = {"kept": sum(1 for r in results if r.id in opts.done),
                           "run_again": redo}
    if opts.only and not any(r.id.find(opts.only) >= 0 for r in results):
        raise UsageError(f"--only {opts.only!r} matches no case id")
    try:
        paths = write_reports(out_dir, results, meta, spec, cache=not args.no_cache, ahead=ahead)
    except OSError:  # ReportWriteError: one line from main; the verdict still reaches the log
        if not (args.json or args.quiet):
            print(text_summary(results, args.strict))
        raise
    code = exit_code(results, args.strict)
    if args.json:  # through emit, so the object names the spec used, as every command's does
        emit(args, {"summary": summarize(results), "exit_code": code, "seconds": meta["seconds"],
                     "report_dir": str(out_dir), "results": str(paths[0]),
                     "failing": [r.id for r in results if r.status.failing],
                     "discrepancies": [r.id for r in results if r.status is Status.DISCREPANCY]}, "")
        return code
    if not args.quiet:
        print(text_summary(results, args.strict))
    if args.annotations == "github":
        from ptxconf.app.report import github_annotations

        print("\n".join(github_annotations(results, spec, args.strict)))
    if "kernels" in meta:
        print(kernels_line(meta["kernels"], meta.get("lanes")))
    if "witness" in meta:
        print(witness_line(meta["witness"]))
    if (kept := from_cache_line(meta["from_cache"])) is not None:
        print(kept)
    if (replays := replayed_line(results)) is not None:
        print(replays)
    if (missed := replay_misses_line(meta.get("lanes"))) is not None:
        print(missed)
    if (rejected := cache_rejected_line(results)) is not None:
        print(rejected)
    if args.verify_cache:
        print(verify_line(results, opts.verify_seed))
    if redo:
        print(resume_line(redo))
    print(f"report: {paths[2]} (results.json, junit.xml, summary.md, codequality.json beside it); "
          f"{meta['seconds']} s")
    return code


NOT_AS_WRITTEN = "not as the interrupted run wrote it"
JUDGED_BY_FINDINGS = "judged by the findings, which are judged again"


def _resumable(run_dir: Path, spec: Spec) -> tuple[dict[str, Result], dict[str, str]]:
    """The completed results of an interrupted run worth keeping, by id, and the ids of those
    run again with why (refused unless it was an interrupted run of this spec). A result is
    kept only as the run wrote it (its digest in the run's meta), and only where the findings
    do not judge it: a discrepancy, a `finding_*` verdict or a case the current findings name
    is run again, so that its verdict is judged against today's findings, as a fresh run's."""
    from ptxconf.app.report import load_results
    from ptxconf.core.results import Status, result_digest
    from ptxconf.oracle.spec import spec_sha256

    path = run_dir / "results.json"
    if not path.is_file():
        raise UsageError(f"--resume {run_dir}: no results.json there")
    results, meta = load_results(path)
    if not meta.get("incomplete"):
        raise UsageError(f"--resume {run_dir}: that run completed; nothing to resume")
    if meta.get("spec_sha256") not in (None, spec_sha256(spec)):
        raise UsageError(f"--resume {run_dir}: that run checked another spec "
                         f"(sha256 {str(meta.get('spec_sha256'))[:12]})")
    incomplete = meta["incomplete"]
    digests = incomplete.get("digests") if isinstance(incomplete, dict) else None
    digests = digests if isinstance(digests, dict) else {}
    kept: dict[str, Result] = {}
    redo: dict[str, str] = {}
    for r in results:
        if digests.get(r.id) != result_digest(r):
            redo[r.id] = NOT_AS_WRITTEN
        elif (r.status is Status.DISCREPANCY or r.code.startswith("finding_")
              or spec.findings.explain(r.id) is not None):
            redo[r.id] = JUDGED_BY_FINDINGS
        else:
            kept[r.id] = r
    return kept, redo


def cmd_prove(args: argparse.Namespace) -> int:
    """Run the proofs only: refuted and unknown first; exit 1 when any fails (unknown included)."""
    from ptxconf.app.providers import Z3

    why = Z3.problem()
    if why:
        raise UsageError(f"the proofs need z3-solver: {why}")
    from ptxconf.app.run import auto_proof_workers
    from ptxconf.core.cases import execute
    from ptxconf.core.results import Status
    from ptxconf.oracle.proofs.cases import proof_cases

    spec = command_spec(args)
    rows = []
    closers: list[Callable[[], None]] = []
    workers = auto_proof_workers() if args.proof_workers is None else args.proof_workers
    seed = verify_seed(args)
    cases = proof_cases(spec, timeout_s=args.timeout_s, cache=not args.no_cache, workers=workers,
                        wanted=lambda i: not args.only or args.only in i, closers=closers,
                        verify_fraction=args.verify_cache or 0.0, verify_seed=seed)
    try:
        results = [spec.findings.judge(execute(c)) for c in cases if not args.only or args.only in c.id]
    finally:
        for close in closers:
            close()
    from ptxconf.app.reproduce import with_reproduce

    results = [with_reproduce(r, spec) for r in results]
    for r in results:
        rows.append({"id": r.id, "claim": r.check,
                     "status": r.fields.get("proof_status", r.status.value),
                     "result": r.status.value, "code": r.code,
                     "counterexample": r.fields.get("counterexample"),
                     "reproduce": r.fields.get("reproduce"),
                     "reproduce_also": r.fields.get("reproduce_also", []),
                     "reproduce_python": r.fields.get("reproduce_python"),
                     "finding": r.fields.get("finding"),
                     "seconds": round(r.seconds, 4), "cached": bool(r.fields.get("cached")),
                     "message": r.message})
    if args.only and not rows:
        raise UsageError(f"--only {args.only!r} matches no proof")
    order = {"error": 0, "unknown": 1, "refuted": 2, "proved": 3}
    rows.sort(key=lambda x: order.get(x["status"], 4))
    text = "\n".join(f"{x['status']:8} {x['id']}: {x['message']}" for x in rows)
    if (rejected := cache_rejected_line(results)) is not None:
        text += "\n" + rejected
    if args.verify_cache:
        text += "\n" + verify_line(results, seed)
    emit(args, {"results": rows}, text)
    return 1 if any(Status(x["result"]).failing for x in rows) else 0


def cmd_report(args: argparse.Namespace) -> int:
    """Re-render the reports of a results.json, or merge several devices' runs."""
    from ptxconf.app.report import load_results, write_reports
    from ptxconf.app.text_report import text_summary

    if args.results[0] == "merge":
        return _merge(args)
    if len(args.results) != 1:
        raise UsageError("report takes one results.json (or `merge RUN_DIR...`)")
    src = Path(args.results[0])
    if not src.is_file():
        raise UsageError(f"{src}: no such results.json")
    results, meta = load_results(src)
    paths = write_reports(args.out_dir or src.parent, results, meta)
    print(text_summary(results))
    print(f"report: {paths[2]}")
    return 0


def _merge(args: argparse.Namespace) -> int:
    """report merge: exit 1 when an expectation went stale."""
    from ptxconf.app.merge import load_expectations, load_run, merge, write_merge

    dirs = [Path(p) for p in args.results[1:]]
    if not dirs or args.out_dir is None:
        raise UsageError("report merge needs run folders and -o OUT")
    runs = [load_run(d) for d in dirs]
    out = Path(args.out_dir).resolve()
    if any(out == run.path.resolve() for run in runs):
        raise UsageError(f"-o {args.out_dir} is one of the runs merged: write the matrix elsewhere "
                         "(a merge never writes into its inputs)")
    m = merge(runs, [e for f in args.expect for e in load_expectations(f)])
    paths = write_merge(args.out_dir, m)
    print(f"merged {len(m.cases)} cases on {', '.join(m.devices)}: {len(m.disagree())} where the "
          f"devices disagree, {len(m.applied)} expected, {len(m.stale)} stale expectations")
    if m.absent:
        print(f"{len(m.absent)} expectation(s) for a device no run is from, not applied: "
              + ", ".join(sorted({f"{e.device} ({e.source})" for e in m.absent})))
    if m.incomplete:
        print(f"INCOMPLETE: the runs of {', '.join(m.incomplete)} were interrupted (only what "
              "completed is merged)")
    print(f"matrix: {paths[1]} (merged.json, summary.md beside it)")
    return 1 if m.stale or m.incomplete else 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Print timings (see ptxconf.app.bench)."""
    from ptxconf.app.bench import run_bench

    return run_bench(command_spec(args), as_json=args.json, out=args.out, naive=args.naive_sample,
                     with_scaling=args.scaling)


def cmd_show(args: argparse.Namespace) -> int:
    """Draw an oracle answer (see ptxconf.app.show)."""
    from ptxconf.app.show import cmd_show as show

    return show(args, command_spec(args))


def cmd_explain(args: argparse.Namespace) -> int:
    """Explain a descriptor or a CuTe layout (see ptxconf.app.explain)."""
    from ptxconf.app.explain import cmd_explain as explain

    return explain(args, command_spec(args))


COMMANDS = {"spec": cmd_spec, "oracle": cmd_oracle, "check": cmd_check, "prove": cmd_prove,
            "report": cmd_report, "bench": cmd_bench, "show": cmd_show, "explain": cmd_explain}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: bad input is one line on stderr and a non-zero exit, never a traceback."""
    from ptxconf.core import interrupts
    from ptxconf.oracle.spec import SpecErrors

    try:
        with interrupts.watching():  # from parsing the arguments on
            args = build_parser().parse_args(argv)
            return COMMANDS[args.cmd](args)
    except SpecErrors as errs:
        for e in errs.errors:
            print(e, file=sys.stderr)
        return 2
    except BrokenPipeError:  # `ptxconf ... | head`: the reader left; nothing to report
        sys.stderr.close()
        return 0
    except (UsageError, ValueError, KeyError, OSError) as exc:
        if os.environ.get("PTXCONF_DEBUG"):
            raise
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"ptxconf: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        from ptxconf.core.interrupts import Interrupted

        name, status = ((exc.args[0], exc.exit_status) if isinstance(exc, Interrupted)
                        else ("SIGINT", 130))
        print(f"ptxconf: interrupted ({name})", file=sys.stderr)
        sys.unraisablehook = lambda _unraisable: None  # finalizer noise on the way out
        interrupts.settle()  # a provider's NVRTC compile under way ends before the process
        return status


if __name__ == "__main__":
    sys.exit(main())
