"""Exception hierarchy of semverkit.

Every error the library defines derives from :class:`SemverError`, which is itself a
:class:`ValueError`, so callers may catch at whatever granularity suits them.
"""


class SemverError(ValueError):
    """Base class of every error raised deliberately by semverkit."""


class InvalidVersion(SemverError):
    """A version string, or an argument used to build a :class:`~semverkit.Version`, is invalid."""


class InvalidRange(SemverError):
    """A version range string does not follow the npm range grammar."""
