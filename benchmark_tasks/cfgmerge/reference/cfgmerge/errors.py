"""Exception hierarchy of cfgmerge."""


class CfgmergeError(Exception):
    """Base class of all errors raised by cfgmerge."""


class LoadError(CfgmergeError):
    """A configuration file cannot be read or parsed.

    ``str(error)`` is ``"<path>:<line>: <detail>"`` when the line is known and
    ``"<path>: <detail>"`` otherwise.
    """

    def __init__(self, path: str, line: int | None, detail: str) -> None:
        self.path = path
        self.line = line
        self.detail = detail
        location = path if line is None else f"{path}:{line}"
        super().__init__(f"{location}: {detail}")


class InterpolationError(CfgmergeError):
    """A ``${...}`` reference is malformed, unresolved, not embeddable or cyclic."""


class ValidationError(CfgmergeError):
    """A configuration does not conform to its schema.

    ``errors`` holds every problem found, sorted; ``str(error)`` joins them with newlines.
    """

    def __init__(self, errors: list[str]) -> None:
        self.errors = sorted(errors)
        super().__init__("\n".join(self.errors))
