"""The probe server a GPU's lanes share (ptxconf.gpu.probe_server): one process answers every
lane's calls; a call that loses the CUDA context fails alone and the others go on at the next
server; a hung call is killed; a server with no lane left ends. Shown with the runner's
self-test probes (no GPU needed), the lanes played by processes of a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import json, multiprocessing as mp, sys
    from ptxconf.gpu.probe_server import IDLE_S, SharedRunner

    def lane(folder, k, plan, q):
        r = SharedRunner(folder, device=0, timeout_s=20, start_timeout_s=20,
                         idle_s=float(plan.get("idle", IDLE_S)))
        out = []
        for step in plan["steps"][k]:
            name, args = step[0], step[1:]
            kwargs = args.pop() if args and isinstance(args[-1], dict) else {}
            res = r.call(name, *args, **kwargs)
            out.append([name, res.ok, res.error_kind, res.worker_pid])
        r.close()
        q.put((k, out))

    if __name__ == "__main__":
        folder, plan = sys.argv[1], json.loads(sys.argv[2])
        q = mp.get_context("spawn").Queue()
        lanes = [mp.get_context("spawn").Process(target=lane, args=(folder, k, plan, q))
                 for k in range(len(plan["steps"]))]
        for p in lanes:
            p.start()
        got = dict(q.get(timeout=60) for _ in lanes)
        for p in lanes:
            p.join()
        print(json.dumps([got[k] for k in range(len(lanes))]))
""")


def _lanes(tmp_path: Path, steps: list[list[list[object]]], **plan: object) -> list[list[list]]:
    """Run the lanes; what each call answered. Their output goes to files, not pipes: a probe
    server the lanes started inherits their stdout and stderr and outlives them by its idle
    time, which a pipe's reader would wait out."""
    script = tmp_path / "lanes.py"
    script.write_text(SCRIPT)
    folder = tmp_path / "sockets"
    folder.mkdir()
    said, err = tmp_path / "lanes.out", tmp_path / "lanes.err"
    with said.open("w") as out, err.open("w") as errors:
        proc = subprocess.run([sys.executable, str(script), str(folder),
                               json.dumps({"steps": steps, **plan})],
                              stdout=out, stderr=errors, timeout=120, check=False)
    assert proc.returncode == 0, err.read_text()
    return json.loads(said.read_text())


SLEEP = ["runner.selftest_sleep", 0.02]


def test_lanes_share_one_server_and_a_fault_fails_only_its_own_call(tmp_path: Path) -> None:
    fault = ["runner.selftest_cuda_fault", "the context is lost"]
    lanes = _lanes(tmp_path, [[SLEEP] * 3 + [fault] + [SLEEP] * 3, [SLEEP] * 7, [SLEEP] * 7])
    calls = [c for lane in lanes for c in lane]
    failed = [c for c in calls if not c[1]]
    assert failed == [["runner.selftest_cuda_fault", False, "cuda", failed[0][3]]]
    assert len(calls) == 21
    servers = {c[3] for c in calls}
    assert len(servers) == 2  # the first, and the one after the fault: never one a lane
    first_server = lanes[0][0][3]
    assert all(c[3] != first_server for c in lanes[0][4:])  # after its fault, a new server


#: The limit of the call that hangs (its own `timeout_s`; the other calls keep the lane's 20 s).
HANG_LIMIT_S = 0.3
#: How long the server waits with no lane connected where the test waits for it to end.
IDLE_TEST_S = 0.2


def test_a_hung_call_is_killed_and_the_next_call_meets_a_new_server(tmp_path: Path) -> None:
    hang = ["runner.selftest_sleep", 30, {"timeout_s": HANG_LIMIT_S}]
    [lane] = _lanes(tmp_path, [[SLEEP, hang, SLEEP]])
    assert [c[1:3] for c in lane] == [[True, None], [False, "timeout"], [True, None]]
    assert lane[0][3] == lane[1][3] != lane[2][3]


def _running(pid: int) -> bool:
    """Whether the process runs: one that has exited is gone, or a zombie until its reaper (the
    server is no lane's child: init's, which on some machines reaps every second or so)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no /proc: alive as far as kill can tell
    return state != "Z"


def test_a_server_with_no_lane_left_ends(tmp_path: Path) -> None:
    """A server started with `idle_s` IDLE_TEST_S (the lanes of a run: IDLE_S)."""
    [lane] = _lanes(tmp_path, [[SLEEP]], idle=IDLE_TEST_S)
    pid = lane[0][3]
    deadline = time.monotonic() + IDLE_TEST_S + 9
    while _running(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"the probe server {pid} still runs {IDLE_TEST_S + 9} s after "
                                 "its last lane left")
        time.sleep(0.02)
    assert list((tmp_path / "sockets").iterdir()) == []  # its socket is gone too


def test_a_folder_no_server_can_listen_in_is_said_at_once(tmp_path: Path) -> None:
    from ptxconf.gpu.probe_server import SharedRunner

    runner = SharedRunner(str(tmp_path / "missing"), device=0, start_timeout_s=300)
    started = time.monotonic()
    res = runner.call("runner.selftest_sleep", 0.0)
    assert not res.ok
    assert res.error_kind == "crash"
    assert res.error.startswith(f"no probe server can listen at {tmp_path / 'missing'}/gpu0s0.0")
    assert time.monotonic() - started < 60  # said at once, not after the 300 s start limit
