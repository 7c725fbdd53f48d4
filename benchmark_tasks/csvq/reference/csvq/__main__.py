"""Entry point for ``python -m csvq``."""

import sys

from .cli import main

sys.exit(main())
