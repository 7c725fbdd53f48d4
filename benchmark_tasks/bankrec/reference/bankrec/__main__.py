"""Entry point for ``python -m bankrec``."""

from .cli import main

raise SystemExit(main())
