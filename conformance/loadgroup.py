"""`--dist loadgroup` for pytest 9.2 (conftest.py's collection hook; test_xdist_groups.py runs it
in a pytest of its own, so this module imports nothing of ptxconf)."""

from __future__ import annotations

from typing import Any

import pytest


def group_for_xdist(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker under `--dist loadgroup`, the `@group` suffix the scheduler reads off
    each node id. pytest-xdist 3.8 writes it to `item._nodeid`, which pytest 9.2 no longer reads
    (its node ids are structured: pytest-dev/pytest-xdist#1386), so groups were silently
    ignored; this writes the same suffix where pytest 9.2 keeps the id, and does nothing where
    xdist's own suffix took effect or pytest is older."""
    if not hasattr(config, "workerinput") or not config.getvalue("loadgroup"):
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2: xdist's suffix works
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        nodeid = item.nodeid
        if not names or nodeid.rfind("@") > nodeid.rfind("]") or not hasattr(item, "_id"):
            continue
        item._id = NodeId.parse(f"{nodeid}@{'_'.join(names)}")


#: The most tests a worker is handed at once (BatchedLoadGroup): enough that a worker is rarely
#: waiting on the controller, few enough that the run's end stays balanced.
MOST_AT_ONCE = 32


def batched_scheduler(config: pytest.Config, log: object) -> object:
    """`--dist loadgroup` handing each worker several tests at a time (see BatchedLoadGroup);
    built here so that this module imports xdist only where the run uses it."""
    from xdist.scheduler import LoadGroupScheduling

    class BatchedLoadGroup(LoadGroupScheduling):
        """xdist's loadgroup scheduler makes each ungrouped test a work unit of its own and
        hands a worker one unit whenever it has two tests left (a round trip per test, the
        worker waiting on the controller), and counts what is left by walking every unit the
        worker ever had (quadratic in the tests). This one drops a worker's finished units and
        hands it up to MOST_AT_ONCE tests at a time, fewer as the queue empties (a quarter of
        its share), so the run still ends balanced; a group is still one unit on one worker."""

        _queued: int | None = None
        #: Per worker, each node id's index in its collection (list.index per test was
        #: quadratic in the tests: about half a CPU second of the controller's at 5,000).
        _index_of: dict[Any, dict[str, int]] | None = None

        def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
            nodeid = self.registered_collections[node][item_index]
            scope = self._split_scope(nodeid)
            unit = self.assigned_work[node][scope]
            unit[nodeid] = True
            if all(unit.values()):
                del self.assigned_work[node][scope]
            self._reschedule(node)

        def remove_node(self, node: Any) -> str | None:
            self._queued = None  # a crashed worker's tests go back to the queue
            crashed: str | None = super().remove_node(node)
            return crashed

        def _reschedule(self, node: Any) -> None:
            if node.shutting_down:
                return
            if not self.workqueue:
                node.shutdown()
                return
            pending = self._pending_of(self.assigned_work[node])
            if pending > 2:
                return
            if self._queued is None:
                self._queued = sum(len(unit) for unit in self.workqueue.values())
            want = max(1, min(MOST_AT_ONCE, self._queued // (4 * max(1, len(self.nodes)))))
            indexes: list[int] = []
            if self._index_of is None:
                self._index_of = {}
            if node not in self._index_of:
                self._index_of[node] = {nodeid: i for i, nodeid in
                                        enumerate(self.registered_collections[node])}
            index_of = self._index_of[node]
            while self.workqueue and (not indexes or pending + len(indexes) < want):
                scope, unit = self.workqueue.popitem(last=False)
                self.assigned_work[node][scope] = unit
                self._queued -= len(unit)
                indexes += [index_of[nodeid] for nodeid, done in unit.items() if not done]
            node.send_runtest_some(indexes)

    return BatchedLoadGroup(config, log)
