"""Which replay worker takes which job (`ptxconf.app.replay_routing.Routed`): jobs sharing a
module go to one worker while the work stays even, an idle worker takes from the busiest, and
every job is taken exactly once."""

from __future__ import annotations

import threading

from ptxconf.app.replay_routing import Routed


def test_jobs_that_share_a_module_go_to_one_worker() -> None:
    needs = [frozenset({m}) for m in "abcabc"]
    routed = Routed(list(range(6)), [1.0] * 6, needs, 3)
    dealt = routed.dealt()
    assert sorted(len(d) for d in dealt) == [2, 2, 2]
    assert all(len({needs[j] for j in d}) == 1 for d in dealt)


def test_a_module_is_shared_out_where_its_jobs_outweigh_a_load() -> None:
    needs = [frozenset({"a"})] * 8
    routed = Routed(list(range(8)), [1.0] * 8, needs, 2)
    assert sorted(len(d) for d in routed.dealt()) == [4, 4]


def test_heavier_jobs_come_first_and_an_idle_worker_takes_from_the_busiest() -> None:
    weights = [1.0, 5.0, 1.0, 1.0, 1.0]
    routed = Routed([10, 11, 12, 13, 14], weights, [frozenset()] * 5, 2)
    first, second = routed.dealt()
    assert first[0] == 11  # the heaviest is dealt first, and taken first
    assert routed.take(0) == 11
    taken_by_second = []
    while (job := routed.take(1)) is not None:
        taken_by_second.append(job)
    assert set(taken_by_second) == {10, 12, 13, 14}
    assert routed.take(0) is None


def test_every_job_is_taken_once_by_workers_taking_at_once() -> None:
    jobs = list(range(500))
    routed = Routed(jobs, [1.0 + j % 7 for j in jobs],
                    [frozenset({f"m{j % 13}"}) for j in jobs], 4)
    taken: list[list[int]] = [[] for _ in range(4)]

    def work(k: int) -> None:
        while (job := routed.take(k)) is not None:
            taken[k].append(job)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(j for t in taken for j in t) == jobs
