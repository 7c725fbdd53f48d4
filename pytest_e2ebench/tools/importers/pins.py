"""The pins of the published datasets ``e2ebench fetch`` downloads (``datasets.toml``, shipped
with the package): the harness's own data, read as such."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ...errors import E2EBenchError

PINS_FILE = Path(__file__).with_name("datasets.toml")  # one table a dataset


def read_pins(path: Path = PINS_FILE) -> dict:
    """The table of ``path``. A missing or broken file is a broken install, said with the fix
    (issue 41: it was read through the untrusted parser and a missing file became ``{}``, so
    ``e2ebench fetch`` of a wheel built without it knew no dataset and did not say why)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise E2EBenchError(
            f"{path}: missing; this install of pytest-e2ebench lacks its dataset pins (a wheel "
            "built without tools/importers/datasets.toml): reinstall pytest-e2ebench"
        ) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise E2EBenchError(f"{path}: not valid TOML ({exc}); reinstall pytest-e2ebench") from None
