"""Shared by the tests (moved from test_vendor.py)."""

from __future__ import annotations

import json


def seed_package(cache, name: str, version: str, files: dict[str, str]) -> None:
    """A package as the vendor cache keeps it after ``npm pack`` (what fetch() would leave)."""
    root = cache / "vendor" / "npm" / f"{name.replace('/', '+')}@{version}"
    for rel, text in {"package.json": json.dumps({"name": name}), **files}.items():
        (root / "package" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "package" / rel).write_text(text)
    (root / ".complete").write_text(f"{name}@{version}\n")
