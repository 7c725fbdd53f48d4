"""semverkit: Semantic Versioning 2.0.0 versions and npm-style version ranges.

>>> from semverkit import Version, satisfies
>>> Version.parse("1.0.0-alpha") < Version.parse("1.0.0")
True
>>> satisfies("1.4.2", "^1.2.0")
True
"""

from .errors import InvalidRange, InvalidVersion, SemverError
from .ranges import Range, satisfies
from .selection import max_satisfying, min_satisfying, sort_versions
from .version import Version, bump, coerce, compare, is_valid, parse

__all__ = [
    "InvalidRange",
    "InvalidVersion",
    "Range",
    "SemverError",
    "Version",
    "bump",
    "coerce",
    "compare",
    "is_valid",
    "max_satisfying",
    "min_satisfying",
    "parse",
    "satisfies",
    "sort_versions",
]
