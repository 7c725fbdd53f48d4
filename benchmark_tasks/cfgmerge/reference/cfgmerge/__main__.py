"""Entry point for ``python -m cfgmerge``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
