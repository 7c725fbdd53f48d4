"""Entry point for ``python -m mdtoc``."""

from .cli import main

raise SystemExit(main())
