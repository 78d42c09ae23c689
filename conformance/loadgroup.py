"""`--dist loadgroup` for pytest 9.2 (conftest.py's collection hook; test_xdist_groups.py runs it
in a pytest of its own, so this module imports nothing of ptxconf)."""

from __future__ import annotations

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
