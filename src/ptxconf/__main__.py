"""`python -m ptxconf`: the same as the `ptxconf` command."""

import sys

from ptxconf.app.entry import main

sys.exit(main())
