"""`ptxconf bench` (`tox -e bench`): what a check costs on this machine, measured in one run.

Never a timed test: these figures are read by people. Every figure comes from this run:

* the variant space (`ptxconf.gpu.space.counts`);
* `ptxconf check --gpu on`, every case, as a user runs it (a fresh process, so process start
  is included): cold (an empty kernel cache, proof cache and CUDA compute cache, which on a
  GPU node also serves NVRTC) and warm (the same caches again; the median of WARM_RUNS),
  with its cases, statuses, per-provider seconds, the kernel build, and per GPU family its
  lanes' host seconds and its probe workers' own (`family_seconds`);
* the naive baseline, measured in the same run on a sample of variants spread over the space:
  each variant's kernel alone in a module compiled with no cache, every probe its own launch,
  synchronisation and worker round trip, one after another
  (`ptxconf.gpu.families.sweep.naive_variant`); its time for the whole space is the sample's
  mean per variant times the variants, and the ratio is that over the cold check;
* with `--scaling`, warm checks over more workers and GPUs (`scaling`): one probe worker
  against two sharing one GPU, and where two GPUs are visible, one GPU against two at the
  same workers a GPU and against the lanes of one GPU split over two;
* `ptxconf check --gpu off` cold and warm (the CPU machine's run), and spec load time.

On a machine without a usable sm_90a GPU the GPU rows say why they are absent.

    ptxconf bench [--out reports/bench/h100.json] [--naive-sample 24] [--scaling] [--json]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ptxconf.oracle.spec import Spec, identity

#: Where the CUDA driver keeps compiled code (its ComputeCache); NVRTC's builds use it too.
CUDA_CACHE_ENV = "CUDA_CACHE_PATH"


def _check(args: list[str], env: dict[str, str], report_dir: Path) -> dict[str, Any]:
    """One `ptxconf check` in a fresh process: wall seconds and what its results say."""
    cmd = [sys.executable, "-m", "ptxconf", "check", *args, "--quiet",
           "--report-dir", str(report_dir)]
    start = time.perf_counter()
    done = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - start
    out: dict[str, Any] = {"command": "ptxconf " + " ".join(args), "wall_s": round(wall, 2),
                           "exit_code": done.returncode,
                           "stdout_tail": done.stdout.strip().splitlines()[-2:]}
    path = report_dir / "results.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        results = data["results"]
        per: dict[str, float] = defaultdict(float)
        for r in results:
            per[r.get("provider") or "?"] += r.get("seconds") or 0.0
        out.update({"cases": len(results),
                    "status": dict(Counter(r["status"] for r in results)),
                    "variant_cases": sum(r["id"].startswith("gpu.variant[") for r in results),
                    "provider_seconds": {k: round(v, 2) for k, v in sorted(per.items())},
                    "kernels": data["meta"].get("kernels"), "lanes": data["meta"].get("lanes"),
                    "families": (fams := family_seconds(data["meta"].get("lanes"))),
                    "gpu_busy_s": gpu_busy_s(fams),
                    "witness": data["meta"].get("witness"),
                    "from_cache": data["meta"].get("from_cache"),
                    "replayed": sum(1 for r in results if (r.get("fields") or {}).get("replayed")),
                    "computed": _computed(results),
                    "run_seconds": data["meta"].get("seconds")})
    else:
        out["stderr_tail"] = done.stderr.strip().splitlines()[-3:]
    return out


#: The CPU providers whose work a warm run should not redo (it reads their results back).
CACHED_PROVIDERS = ("self-consistency", "proofs", "assembler-witness")


def _computed(results: list[dict[str, Any]]) -> dict[str, int]:
    """Per CPU provider, how many results the run computed (not taken from a cache): all 0 in
    a warm run, which starts no proof, witness or self-consistency work."""
    return {p: sum(1 for r in results if r.get("provider") == p
                   and not (r.get("fields") or {}).get("cached")) for p in CACHED_PROVIDERS}


#: Warm runs per check: the figure is their median (one run swings by several tenths).
WARM_RUNS = 3


def _cold_warm(args: list[str], tmp: Path, name: str) -> dict[str, Any]:
    """The same check over fresh caches: cold, then WARM_RUNS times warm; "warm" is the run
    of median wall time, "warm_walls_s" every warm run's."""
    env = {"PTXCONF_KERNEL_CACHE": str(tmp / f"{name}-kernels"),
           "PTXCONF_CACHE_DIR": str(tmp / f"{name}-proofs"),
           CUDA_CACHE_ENV: str(tmp / f"{name}-cuda-cache")}
    cold = _check(args, env, tmp / f"{name}-cold")
    warms = [_check(args, env, tmp / f"{name}-warm{i}") for i in range(WARM_RUNS)]
    median = sorted(warms, key=lambda r: r["wall_s"])[len(warms) // 2]
    return {"cold": cold, "warm": median, "warm_walls_s": [r["wall_s"] for r in warms]}


def lane_phase(lanes: dict[str, Any] | None) -> dict[str, Any]:
    """What a run's GPU lanes did, from its meta.lanes: how many lanes, the span from the first
    job's start to the last job's end (the GPU phase, inside the run's wall time) and the lanes'
    busy seconds summed (host and GPU work together), and of those, where the jobs say, the
    seconds spent waiting for the probe workers' answers (`lanes_wait_s`) and the workers' own
    seconds in those calls (`probe_s`); whether a lane pool started (`lane_pool`: a warm run
    that replays every job from its transcript starts none, `ptxconf.app.replay_run`); {}
    where the run has no lane timeline."""
    lanes = lanes or {}
    pool = lanes.get("mode") != "replay"
    if lanes.get("replay"):  # replayed first, the misses in lanes: both timelines
        lanes = {**lanes, "timeline": [*lanes["replay"]["timeline"], *lanes.get("timeline", [])]}
    timeline = [j for j in lanes.get("timeline") or [] if j.get("provider") != "kernel-build"]
    if not timeline:
        return {}
    out = {"lanes": lanes.get("lanes"), "lane_pool": pool,
           "lanes_span_s": round(max(j["end"] for j in timeline)
                                 - min(j["start"] for j in timeline), 2),
           "lanes_busy_s": round(sum(j["end"] - j["start"] for j in timeline), 2)}
    if all("wait_s" in j for j in timeline):
        out["lanes_wait_s"] = round(sum(j["wait_s"] for j in timeline), 2)
        out["probe_s"] = round(sum(j["probe_s"] for j in timeline), 2)
    if any("replayed" in j for j in timeline):  # transcripts (ptxconf.gpu.transcript)
        out["jobs_replayed"] = sum(1 for j in timeline if j.get("replayed"))
        for part in ("load", "call", "digest"):
            out[f"replay_{part}_s"] = round(sum(j.get(f"replay_{part}_s", 0.0) for j in timeline), 2)
    return out


def family_seconds(lanes: dict[str, Any] | None) -> dict[str, dict[str, float]]:
    """Per GPU family (provider), from a run's meta.lanes: its jobs, the seconds its jobs took
    in the lanes (`lane_s`), of those the lanes' own host work (`host_s`: the jobs' time less
    their wait for the probe workers' answers), the probe workers' own seconds in those
    calls (`worker_s`: copies, launches, the GPU's work and, in a replay, the digests) and,
    where the jobs recorded it, the GPU's own seconds in their kernels (`gpu_s`, CUDA events:
    `ptxconf.gpu.busy`). A warm run's replay jobs are one call each: their time is the
    workers'. {} where the run has no lane timeline."""
    lanes = lanes or {}
    timeline = [*((lanes.get("replay") or {}).get("timeline") or []),
                *(lanes.get("timeline") or [])]
    out: dict[str, dict[str, float]] = {}
    for j in timeline:
        if j.get("provider") == "kernel-build":
            continue
        row = out.setdefault(j["provider"], {"jobs": 0, "lane_s": 0.0, "host_s": 0.0,
                                             "worker_s": 0.0})
        took = j["end"] - j["start"]
        row["jobs"] += 1
        row["lane_s"] += took
        row["host_s"] += max(0.0, took - j.get("wait_s", 0.0))
        row["worker_s"] += j.get("probe_s", 0.0)
        if "gpu_s" in j:
            row["gpu_s"] = row.get("gpu_s", 0.0) + j["gpu_s"]
    return {p: {k: int(v) if k == "jobs" else round(v, 3 if k == "gpu_s" else 2)
                for k, v in row.items()}
            for p, row in sorted(out.items(), key=lambda kv: -kv[1]["lane_s"])}


def gpu_busy_s(fams: dict[str, dict[str, float]]) -> float | None:
    """The GPU's own seconds in a run's kernels, its families' summed (None where its jobs did
    not record them)."""
    got = [r["gpu_s"] for r in fams.values() if "gpu_s" in r]
    return round(sum(got), 3) if got else None


def device_floor(on: dict[str, Any]) -> dict[str, Any] | None:
    """The device floor of a bench's `check --gpu on` runs: the least of their GPU times in
    kernels (`gpu_busy_s`). The runs launch the same kernels (a warm run replays the calls the
    cold run recorded), and each run's figure bounds their time from above (the probe workers'
    contexts take turns on the GPU, `ptxconf.gpu.busy`), so the least is the nearest bound;
    with each run's wall as a multiple of it. None where no run recorded the figure."""
    got = [on[p]["gpu_busy_s"] for p in ("cold", "warm") if on[p].get("gpu_busy_s")]
    if not got:
        return None
    floor = min(got)
    return {"gpu_busy_s": floor, **{f"{p}_wall_over_floor": round(on[p]["wall_s"] / floor, 1)
                                    for p in ("cold", "warm")}}


def _families_line(phase: str, fams: dict[str, dict[str, float]]) -> str:
    """One line: each family's host seconds in the lanes, its probe workers' seconds and,
    where recorded, the GPU's own seconds in its kernels."""
    gpu = all("gpu_s" in r for r in fams.values())
    return (f"per family, {phase} (host s in the lanes / the probe workers' s"
            + (" / the GPU's own s in kernels" if gpu else "") + "): "
            + ", ".join(f"{p} {r['host_s']}/{r['worker_s']}" + (f"/{r['gpu_s']}" if gpu else "")
                        for p, r in fams.items()))


def _phase(run: dict[str, Any]) -> str:
    """ (lanes' span, busy seconds and, where recorded, their wait for the probe workers) of a
    scaling run, where it has them."""
    if "lanes_span_s" not in run:
        return ""
    waited = (f", {run['lanes_wait_s']} of them waiting for the probe workers, which worked "
              f"{run['probe_s']} s" if "lanes_wait_s" in run else "")
    return (f" (its {run['lanes']} lanes: {run['lanes_span_s']} s from the first job to the "
            f"last, {run['lanes_busy_s']} lane-s busy{waited})")


def scaling(tmp: Path, gpus: int) -> dict[str, Any]:
    """Warm `check --gpu on` over more workers and GPUs, on the caches of the cold run (nothing
    compiles, nothing is proved): one probe worker against two sharing one GPU; and, where two
    GPUs are visible, one GPU against two at the same workers per GPU, and against two GPUs
    sharing the one GPU's lanes. Each ratio is the one run's wall over the other's, from this
    run."""
    env = {"PTXCONF_KERNEL_CACHE": str(tmp / "gpu-kernels"),
           "PTXCONF_CACHE_DIR": str(tmp / "gpu-proofs"), CUDA_CACHE_ENV: str(tmp / "gpu-cuda-cache")}

    def wall(*args: str) -> dict[str, Any]:
        name = "scaling-" + "-".join(a.lstrip("-") for a in args)
        r = _check(["--gpu", "on", *args], env, tmp / name)
        return {**{k: r.get(k) for k in ("command", "wall_s", "exit_code", "cases", "status")},
                **lane_phase(r.get("lanes"))}

    one, two = wall("--workers-per-gpu", "1"), wall("--workers-per-gpu", "2")
    out: dict[str, Any] = {"one_gpu": {"workers_1": one, "workers_2": two,
                                       "ratio": _ratio(one, two)}}
    if gpus < 2:
        out["two_gpus"] = {"unmeasured": f"{gpus} visible GPU(s): the 1-vs-2-GPU ratio needs a "
                                         "node with two"}
        return out
    from ptxconf.app.lanes import auto_workers

    # what a user gets: `check --gpu on` (one GPU, its default lanes) against `--gpus 2` (the
    # same lanes split over two GPUs: the default); and each GPU with one GPU's lanes (twice
    # the host work at once: why that is not the default, the figures say)
    k1, k2 = auto_workers(1), auto_workers(2)
    g1, g2 = (wall("--gpus", "1", "--workers-per-gpu", str(k1)),
              wall("--gpus", "2", "--workers-per-gpu", str(k2)))
    doubled = wall("--gpus", "2", "--workers-per-gpu", str(k1))
    out["two_gpus"] = {"gpus_1": {**g1, "workers_per_gpu": k1},
                       "gpus_2": {**g2, "workers_per_gpu": k2}, "ratio": _ratio(g1, g2),
                       "gpus_2_doubled_lanes": {**doubled, "workers_per_gpu": k1,
                                                "ratio": _ratio(g1, doubled)}}
    return out


def _ratio(slow: dict[str, Any], fast: dict[str, Any]) -> float:
    """One run's wall time over another's, to two places."""
    slow_s: float = slow["wall_s"]
    fast_s: float = fast["wall_s"]
    return round(slow_s / max(fast_s, 1e-9), 2)


def naive_sample(spec: Spec, sample: int, tmp: Path) -> dict[str, Any]:
    """The naive baseline on `sample` variants spread evenly over the space."""
    from ptxconf.core.context import RunContext
    from ptxconf.core.results import Status
    from ptxconf.gpu import space
    from ptxconf.gpu.families.sweep import naive_variant
    from ptxconf.gpu.session import open_session

    variants = space.wgmma_variants(spec)
    step = max(1, len(variants) // max(sample, 1))
    chosen = variants[::step][:sample]
    ctx = RunContext(gpu="on")
    try:
        sess = open_session(spec, ctx)
        sess.describe()
        sess.runner.call("device.describe")  # the worker is up before the clock starts
        start = time.perf_counter()
        outcomes = [naive_variant(sess, v, str(tmp)) for v in chosen]
        seconds = time.perf_counter() - start
    finally:
        ctx.close()
    passed = sum(1 for o in outcomes if not isinstance(o, BaseException)
                 and o.status is Status.PASS)
    per = seconds / max(len(chosen), 1)
    return {"sampled_variants": len(chosen), "passed": passed, "seconds": round(seconds, 2),
            "seconds_per_variant": round(per, 3),
            "estimate_for_space_s": round(per * len(variants), 1),
            "how": "each variant alone: its own module compiled with no cache, one launch, one "
                   "synchronisation and one worker round trip per probe, serial"}


def measure(spec: Spec, naive: int = 24, with_scaling: bool = False) -> dict[str, Any]:
    """Every figure (see the module docstring)."""
    from ptxconf.app.bench_spec import spec_load_figures
    from ptxconf.app.run import _commit
    from ptxconf.gpu import space
    from ptxconf.gpu.session import gpu_problem

    figures: dict[str, Any] = {"commit": _commit(), "cpus": os.cpu_count(),
                               "space": space.counts(spec)}
    with tempfile.TemporaryDirectory(prefix="ptxconf-bench-") as tmp_:
        tmp = Path(tmp_)
        # The driver's own compile cache (~/.nv/ComputeCache) also serves NVRTC's sm_90a
        # builds: an earlier run's modules would compile in no time. Every phase gets a fresh
        # one, this process (the naive baseline) included.
        os.environ[CUDA_CACHE_ENV] = str(tmp / "naive-cuda-cache")
        problem = gpu_problem()
        if problem is None:
            figures["device"] = _device()
            figures["check_gpu_on"] = _cold_warm(["--gpu", "on"], tmp, "gpu")
            figures["device_floor"] = device_floor(figures["check_gpu_on"])
            figures["naive"] = naive_sample(spec, naive, tmp)
            cold = figures["check_gpu_on"]["cold"]["wall_s"]
            figures["speedup_vs_naive_cold"] = round(
                figures["naive"]["estimate_for_space_s"] / max(cold, 1e-9), 1)
            if with_scaling:
                figures["scaling"] = scaling(tmp, int(figures["device"].get("visible_gpus") or 1))
        else:
            figures["device"] = {"unusable": problem}
        figures["check_gpu_off"] = _cold_warm(["--gpu", "off"], tmp, "cpu")
    figures["spec_load"] = spec_load_figures()
    return figures


def _device() -> dict[str, Any]:
    """The device and its software stack, from a probe worker."""
    from ptxconf.gpu.session import gpu_count, new_runner

    runner = new_runner()
    try:
        res = runner.call("device.describe", timeout_s=180)
    finally:
        runner.close()
    info = dict(res.value) if res.ok else {"error": res.error}
    info["visible_gpus"] = gpu_count()
    return info


def _workers(n: int) -> str:
    return f"{n} worker" + ("" if n == 1 else "s")


def _lines(f: dict[str, Any]) -> list[str]:
    out = [f"space: {f['space']}"]
    dev = f.get("device", {})
    out.append("device: " + (dev.get("unusable") or f"{dev.get('name')} (driver "
                             f"{dev.get('cuda_driver_version')}, {dev.get('visible_gpus')} GPU(s))"))
    for key in ("check_gpu_on", "check_gpu_off"):
        if key not in f:
            continue
        for phase in ("cold", "warm"):
            r = f[key][phase]
            k = r.get("kernels") or {}
            w = r.get("witness") or {}
            runs = f" (median of {f[key]['warm_walls_s']})" if phase == "warm" else ""
            out.append(f"{r['command']:28} {phase}: {r['wall_s']:7.1f} s wall{runs} (process "
                       f"start included), {r.get('cases', '?')} cases {r.get('status', '')}, "
                       f"kernels compiled {k.get('compiled', '-')}, witness kernels compiled "
                       f"{w.get('compiled', '-')}, computed (not cached) "
                       f"{sum((r.get('computed') or {}).values())} CPU results, exit {r['exit_code']}"
                       + ("" if r.get("gpu_busy_s") is None else
                          f"; the GPU's time in kernels at most {r['gpu_busy_s']} s"))
    floor = f.get("device_floor")
    if floor:
        out.append(f"device floor: the GPU's time in kernels is at most {floor['gpu_busy_s']} s "
                   "(the least of the runs' figures, each a bound from above: the probe "
                   "workers' contexts take turns on the GPU); the walls are "
                   f"{floor['cold_wall_over_floor']}x (cold) and {floor['warm_wall_over_floor']}x "
                   "(warm) that")
    if "check_gpu_on" in f:
        for phase in ("cold", "warm"):
            fams = f["check_gpu_on"][phase].get("families")  # `_check`'s family_seconds
            if fams:
                out.append(_families_line(phase, fams))
    if "naive" in f:
        n = f["naive"]
        out.append(f"naive baseline: {n['seconds_per_variant']} s per variant over "
                   f"{n['sampled_variants']} sampled -> {n['estimate_for_space_s']} s for the space;"
                   f" cold check is {f['speedup_vs_naive_cold']}x faster")
    sc = f.get("scaling")
    if sc:
        one = sc["one_gpu"]
        out.append(f"one GPU, warm: 1 probe worker {one['workers_1']['wall_s']} s"
                   f"{_phase(one['workers_1'])}, 2 workers sharing it "
                   f"{one['workers_2']['wall_s']} s{_phase(one['workers_2'])}: {one['ratio']}x")
        two = sc["two_gpus"]
        out.append("two GPUs, warm: " + (two.get("unmeasured") or
                   f"{two['gpus_1']['wall_s']} s on one ({_workers(two['gpus_1']['workers_per_gpu'])})"
                   f"{_phase(two['gpus_1'])}, {two['gpus_2']['wall_s']} s on two (the same lanes "
                   f"split, {_workers(two['gpus_2']['workers_per_gpu'])} each)"
                   f"{_phase(two['gpus_2'])}: {two['ratio']}x"))
        doubled = two.get("gpus_2_doubled_lanes")
        if doubled:
            out.append(f"two GPUs, each with one GPU's lanes "
                       f"({_workers(doubled['workers_per_gpu'])} each): {doubled['wall_s']} s"
                       f"{_phase(doubled)}: {doubled['ratio']}x")
    for row in f.get("spec_load", []):
        out.append(f"spec load: {row}")
    return out


def run_bench(spec: Spec, as_json: bool = False, out: Path | None = None,
              naive: int = 24, with_scaling: bool = False) -> int:
    """Measure, print (a table or JSON), and write the JSON to `out` when given."""
    figures = {**measure(spec, naive, with_scaling), "spec": identity(spec)}
    text = json.dumps(figures, indent=1, default=str)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
    print(text if as_json else "\n".join(_lines(figures)))
    return 0
