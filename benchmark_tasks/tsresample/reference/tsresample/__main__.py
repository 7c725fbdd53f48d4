"""Entry point for ``python -m tsresample``."""

from .cli import main

raise SystemExit(main())
