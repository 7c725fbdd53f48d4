"""The suite's shared tool caches, asked once at import (pytester later moves HOME)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pytest_e2ebench.environment.venv import uv_binary


def uv_cache() -> Path:
    """uv's cache folder for the real user (asked at import: pytester later moves HOME)."""
    out = subprocess.run([uv_binary(), "cache", "dir"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


UV_CACHE = Path(os.environ.setdefault("UV_CACHE_DIR", str(uv_cache())))
# uv makes its cache folder on first use; a fresh machine has none yet, and the tests that write
# beside it (the containment arenas' canaries) run before any venv is built (issue 46)
UV_CACHE.mkdir(parents=True, exist_ok=True)
