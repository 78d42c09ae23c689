"""`python -m ptxconf.mutants`: every normative value of the spec perturbed (ptxconf.app.mutants)."""

import sys

from ptxconf.app.mutants import main

if __name__ == "__main__":
    sys.exit(main())
