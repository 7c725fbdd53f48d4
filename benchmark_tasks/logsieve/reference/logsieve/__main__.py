"""Entry point for ``python -m logsieve``."""

import sys

from .cli import main

sys.exit(main())
