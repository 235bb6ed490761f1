"""``python3 -m tools.bench``: the benchmark's command line (see ``cli`` and ``--help``)."""

import sys

from .cli import main

sys.exit(main())
