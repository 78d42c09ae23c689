"""pytest plugin for the oracle mutation run (`tox -e oracle-mutants`): one small hypothesis
profile, derandomized (the same examples every run, so a score is reproducible), no deadline
(the trampolines mutmut puts in front of every function make calls slower) and no example
database (what one mutant's run found must not steer the next one's).

Loaded with `-p mutmut_profile` from the staging tree; `conformance/strategies.py` loads the
profile that HYPOTHESIS_PROFILE names, which the runner sets to this one."""

from hypothesis import settings

settings.register_profile("mutmut", max_examples=30, deadline=None, database=None, derandomize=True)
settings.load_profile("mutmut")
