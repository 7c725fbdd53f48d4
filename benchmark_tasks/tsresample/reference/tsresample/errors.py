"""Exception hierarchy of tsresample."""


class TsResampleError(Exception):
    """Base class of every error raised deliberately by tsresample."""


class UsageError(TsResampleError):
    """An argument or option value is invalid (command-line exit status 2)."""


class DataError(TsResampleError):
    """The input data cannot be read or violates a policy (command-line exit status 3)."""
