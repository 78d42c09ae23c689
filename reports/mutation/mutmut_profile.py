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
profile that HYPOTHESIS_PROFILE names, which the runner sets to this one.

And it bounds each mutant's run (run_mutmut.py's --test-time-limit, passed as
PTXCONF_MUTANT_TEST_CPU_S): in a mutant's run, each test may take that many CPU seconds, after
which the kernel stops the process with SIGXCPU, which mutmut reads as a timeout (caught), as it
reads its own limit. A mutant that loops does so inside one test, so it stops that many seconds
into it; mutmut's own limit is 15 x the estimate of all the mutant's tests (wall clock): two
hours for a mutant of notation's parser, whose 967 tests are estimated at 490 s. A mutant that
is merely slow because it reaches many tests, each within the limit, runs them all: stopping it
would count a survivor as caught."""

import math
import os
import resource
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


#: The environment variable run_mutmut.py passes --test-time-limit in (CPU seconds a test).
LIMIT_ENV = "PTXCONF_MUTANT_TEST_CPU_S"
#: mutmut's own soft CPU limit of this process's mutant run, by pid (read once, before ours).
_MUTMUT_SOFT: dict[int, int] = {}


def in_a_mutant_run() -> bool:
    """Whether this process runs a mutant's tests (not mutmut's stats, clean or forced-fail run):
    mutmut names the mutant in MUTANT_UNDER_TEST."""
    return "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", "")


def next_soft_limit(used_s: float, limit_s: float, mutmut_soft: int) -> int:
    """The soft RLIMIT_CPU for the next test: `limit_s` CPU seconds past the `used_s` the process
    has used, never past mutmut's own soft limit."""
    mine = math.ceil(used_s + limit_s)
    return mine if mutmut_soft == resource.RLIM_INFINITY else min(mine, mutmut_soft)


def arm_test_limit() -> None:
    """In a mutant's run, let the coming test use LIMIT_ENV's CPU seconds (no core file when
    the kernel stops it); elsewhere nothing."""
    limit = os.environ.get(LIMIT_ENV)
    if not limit or not in_a_mutant_run():
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    own = _MUTMUT_SOFT.setdefault(os.getpid(), soft)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    new = next_soft_limit(usage.ru_utime + usage.ru_stime, float(limit), own)
    if hard != resource.RLIM_INFINITY:
        new = min(new, hard)
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    resource.setrlimit(resource.RLIMIT_CPU, (new, hard))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    arm_test_limit()
    forget_oracle_caches()
