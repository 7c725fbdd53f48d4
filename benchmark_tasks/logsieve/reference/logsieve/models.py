"""Record types and the parse exception shared by all logsieve modules."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class LogEntry:
    """One parsed access-log line (Common or Combined Log Format)."""

    host: str
    ident: str | None
    user: str | None
    time: datetime
    request: str
    method: str | None
    path: str | None
    protocol: str | None
    status: int
    size: int | None
    referer: str | None = None
    user_agent: str | None = None


@dataclass(frozen=True)
class MalformedLine:
    """A line that could not be parsed, kept together with its 1-based line number."""

    lineno: int
    line: str
    reason: str


@dataclass
class ParseResult:
    """The outcome of parsing many lines: good entries and malformed lines, in input order."""

    entries: list[LogEntry] = field(default_factory=list)
    errors: list[MalformedLine] = field(default_factory=list)


@dataclass(frozen=True)
class Burst:
    """A host whose request count inside one sliding window exceeded the threshold."""

    host: str
    count: int
    start: datetime
    end: datetime


class LogParseError(ValueError):
    """Raised when a log line cannot be parsed (always, or in strict mode for many lines)."""

    def __init__(self, reason: str, line: str = "", lineno: int | None = None) -> None:
        self.reason = reason
        self.line = line
        self.lineno = lineno
        message = reason if lineno is None else f"line {lineno}: {reason}"
        super().__init__(message)
