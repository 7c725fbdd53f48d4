"""Entry point for ``python -m jsonkit``."""

import sys

from .cli import main

sys.exit(main())
