"""`python -m ptxconf`: the same as the `ptxconf` command."""

import sys

from ptxconf.cli import main

sys.exit(main())
