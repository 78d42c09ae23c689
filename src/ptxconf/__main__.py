"""`python -m ptxconf`: the same as the `ptxconf` command."""

import sys

from ptxconf.app.cli import main

sys.exit(main())
