"""Operations over collections of versions: sorting and picking range matches."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .ranges import Range, ensure_range
from .version import Version, ensure_version


def sort_versions(versions: Iterable[Version | str], reverse: bool = False) -> list[Version]:
    """Return the versions sorted by precedence, ascending unless ``reverse`` is true.

    The sort is stable in both directions, so versions that differ only in build metadata
    keep their input order.
    """
    return sorted((ensure_version(item) for item in versions), reverse=reverse)


def _best_satisfying(
    versions: Iterable[Version | str],
    range_spec: Range | str,
    better: Callable[[Version, Version], bool],
) -> Version | None:
    """Return the first satisfying version for which no later one is ``better``."""
    accepted = ensure_range(range_spec)
    best: Version | None = None
    for item in versions:
        candidate = ensure_version(item)
        if accepted.contains(candidate) and (best is None or better(candidate, best)):
            best = candidate
    return best


def max_satisfying(versions: Iterable[Version | str], range_spec: Range | str) -> Version | None:
    """Return the highest version in ``versions`` that satisfies ``range_spec``, or None."""
    return _best_satisfying(versions, range_spec, lambda candidate, best: candidate > best)


def min_satisfying(versions: Iterable[Version | str], range_spec: Range | str) -> Version | None:
    """Return the lowest version in ``versions`` that satisfies ``range_spec``, or None."""
    return _best_satisfying(versions, range_spec, lambda candidate, best: candidate < best)
