"""pytest plugin for the oracle mutation run (`tox -e oracle-mutants`): one small hypothesis
profile, derandomized (the same examples every run, so a score is reproducible), no deadline
(the trampolines mutmut puts in front of every function make calls slower) and no example
database (what one mutant's run found must not steer the next one's).

It also makes every test start with the oracle's caches empty. mutmut runs the suite once in
its main process (the stats run) and forks each mutant's run from it, so whatever the oracle
cached there (`Spec.memo`: fragment maps, offsets; the `functools` caches of fragments,
canonical, interpret) was computed by the unmutated code and is inherited: a mutant of a cached
function would then be judged by the original's values and survive (the fragments maps did).
Emptied before each test, a mutant's code runs whenever a test needs its value, and the stats
run sees every test that reaches a cached function, not only the first.

Loaded with `-p mutmut_profile` from the staging tree; `conformance/strategies.py` loads the
profile that HYPOTHESIS_PROFILE names, which the runner sets to this one."""

import sys

import pytest
from hypothesis import settings

settings.register_profile("mutmut", max_examples=30, deadline=None, database=None, derandomize=True)
settings.load_profile("mutmut")


def forget_oracle_caches() -> None:
    """Drop every memoized value of the loaded `ptxconf` modules: the memo entries of each Spec
    they hold (the bundled one and any other at module level) and their functools caches."""
    spec_mod = sys.modules.get("ptxconf.oracle.spec")
    spec_cls = getattr(spec_mod, "Spec", None)
    for name, mod in list(sys.modules.items()):
        if not name.startswith(("ptxconf", "conformance", "test_")):
            continue
        for value in list(vars(mod).values()):
            specs = value.values() if isinstance(value, dict) else (value,)
            for spec in specs:
                if spec_cls is not None and isinstance(spec, spec_cls):
                    for key in [k for k in spec._index if isinstance(k, tuple) and k[:1] == ("memo",)]:
                        del spec._index[key]
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and name.startswith("ptxconf"):
                clear()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    forget_oracle_caches()
