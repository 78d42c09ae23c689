"""Z3 as the proofs' modules name it: the solver's own module where types are checked, and at
run time a stand-in that imports Z3 when the first of its names is used (each name is then
kept on the stand-in, so later uses cost a plain attribute read).

A module that makes claims (their statements, and the concrete re-checks of a refutation's
counterexample) therefore imports without Z3: a warm run whose proof outcomes all come from
the cache re-checks its known refutations without loading the solver. Proving a claim uses
Z3's names, which import it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import z3 as z3
else:

    class _Z3:
        """Imports Z3 at the first name asked of it."""

        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            value = getattr(importlib.import_module("z3"), name)
            self.__dict__[name] = value
            return value

    z3 = _Z3()

__all__ = ["z3"]
