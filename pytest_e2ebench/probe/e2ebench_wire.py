"""The data-only channel between a split test run's two processes (docs/sandbox.md, issue 39).

The suite's process (pytest, the probe, the test modules: :mod:`e2ebench_split`) and the
project's process (:mod:`e2ebench_host`) talk over two pipes the harness made. Each message is
one frame: four bytes of length, then UTF-8 JSON. Values cross in a fixed schema of tagged
builtins, never pickled and never code: the idea of execnet's serializer (pytest-xdist's
channel carries only builtin values) and of RPyC's "netrefs" (what is not plain data stays
where it lives, named by a number), with the framing, bounds and handles written here because
the two ends are started by the harness in two sandboxes, not by one of them (execnet's
gateway bootstraps its far end by sending it code, which is what must not happen here).

Standard library only: this module is loaded on both sides, by interpreters that have
neither pytest-e2ebench nor each other's modules.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import fractions
import json
import os
import pathlib
import struct

MAX_FRAME = 64 << 20  # bytes of one message: a bigger one is the far side's failure
MAX_DEPTH = 64  # nesting of one value
_HEADER = struct.Struct(">I")
PLAIN_SCALARS = (type(None), bool, int, float, str)


class WireError(Exception):
    """The far side broke the protocol (a frame too big, not the schema, the pipe closed)."""


class Unencodable(Exception):
    """A value this side must send by reference (a handle or a callback), not as data."""


class Channel:
    """One end: frames read from ``rfd`` and written to ``wfd`` (blocking file descriptors)."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd, self.wfd = rfd, wfd

    def send(self, message) -> None:
        data = json.dumps(message, separators=(",", ":"), allow_nan=True).encode()
        if len(data) > MAX_FRAME:
            raise WireError(f"a message of {len(data)} bytes is over the channel's bound")
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(self.wfd, view) :]

    def receive(self):
        (size,) = _HEADER.unpack(self._exactly(_HEADER.size))
        if size > MAX_FRAME:
            raise WireError(f"the far side announced a message of {size} bytes")
        try:
            return json.loads(self._exactly(size))
        except (ValueError, RecursionError) as exc:
            raise WireError(f"the far side sent a message that is not JSON: {exc}") from None

    def _exactly(self, size: int) -> bytes:
        parts, left = [], size
        while left:
            chunk = os.read(self.rfd, min(left, 1 << 20))
            if not chunk:
                raise WireError("the far side closed the channel")
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)


def _tz(value):
    if value is None:
        return None
    if value is datetime.UTC or isinstance(value, datetime.timezone):
        return {"off": value.utcoffset(None).total_seconds()}
    key = getattr(value, "key", None)
    if type(value).__module__ == "zoneinfo" and isinstance(key, str):
        return {"zi": key}
    raise Unencodable(value)


def encode(value, by_ref, depth: int = 0):
    """``value`` in the schema; what is not plain data goes through ``by_ref(value)``, which
    returns its reference (a dict) or raises :class:`Unencodable`."""
    kind = type(value)
    if kind in PLAIN_SCALARS:
        return value
    if depth > MAX_DEPTH:
        raise WireError("a value nested too deeply to send")
    step = depth + 1
    if kind is list:
        return {"l": [encode(v, by_ref, step) for v in value]}
    if kind is tuple:
        return {"t": [encode(v, by_ref, step) for v in value]}
    if kind is dict:
        return {"d": [[encode(k, by_ref, step), encode(v, by_ref, step)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        return {"s" if kind is set else "f": [encode(v, by_ref, step) for v in value]}
    if kind is bytes or kind is bytearray:
        tag = "b" if kind is bytes else "ba"
        return {tag: base64.b64encode(value).decode()}
    simple = _simple(value, kind)
    return simple if simple is not None else by_ref(value)


def _simple(value, kind):
    """Immutable standard-library values (exact types only), or None."""
    try:
        if kind is datetime.datetime:
            return {"dt": value.replace(tzinfo=None).isoformat(), "tz": _tz(value.tzinfo)}
        if kind is datetime.date:
            return {"da": value.isoformat()}
        if kind is datetime.time:
            return {"ti": value.replace(tzinfo=None).isoformat(), "tz": _tz(value.tzinfo)}
    except Unencodable:
        return None
    if kind is datetime.timedelta:
        return {"td": [value.days, value.seconds, value.microseconds]}
    if kind is decimal.Decimal:
        return {"dec": str(value)}
    if kind is fractions.Fraction:
        return {"fr": [value.numerator, value.denominator]}
    if kind is complex:
        return {"c": [value.real, value.imag]}
    if kind is pathlib.PosixPath or kind is pathlib.PurePosixPath:
        return {"pp" if kind is pathlib.PosixPath else "ppp": str(value)}
    if kind is range:
        return {"r": [value.start, value.stop, value.step]}
    if value is Ellipsis:
        return {"e": 1}
    return None


def _zone(spec):
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise WireError("a time zone that is not in the schema")
    if "off" in spec:
        return datetime.timezone(datetime.timedelta(seconds=float(spec["off"])))
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(str(spec["zi"]))
    except (KeyError, ValueError, zoneinfo.ZoneInfoNotFoundError) as exc:
        raise WireError(f"a time zone that is not in the schema: {exc}") from None


_SIMPLE_DECODERS = {
    "da": datetime.date.fromisoformat,
    "td": lambda v: datetime.timedelta(*v),
    "dec": decimal.Decimal,
    "fr": lambda v: fractions.Fraction(*v),
    "c": lambda v: complex(*v),
    "pp": pathlib.PosixPath,
    "ppp": pathlib.PurePosixPath,
    "r": lambda v: range(*v),
    "e": lambda v: Ellipsis,
    "b": base64.b64decode,
    "ba": lambda v: bytearray(base64.b64decode(v)),
}


def decode(data, from_ref, depth: int = 0):
    """A value back from the schema; references (``h``, ``p`` and the like) through
    ``from_ref(tag, payload)``. Anything off the schema raises :class:`WireError`."""
    if type(data) in PLAIN_SCALARS:
        return data
    if depth > MAX_DEPTH or type(data) is not dict or len(data) not in (1, 2):
        raise WireError("a value that is not in the schema")
    tag = next(iter(data))
    payload = data[tag]
    step = depth + 1
    try:
        if tag in ("l", "t", "s", "f"):
            items = [decode(v, from_ref, step) for v in payload]
            return {"l": list, "t": tuple, "s": set, "f": frozenset}[tag](items)
        if tag == "d":
            return {decode(k, from_ref, step): decode(v, from_ref, step) for k, v in payload}
        if tag == "dt":
            return datetime.datetime.fromisoformat(payload).replace(tzinfo=_zone(data.get("tz")))
        if tag == "ti":
            return datetime.time.fromisoformat(payload).replace(tzinfo=_zone(data.get("tz")))
        if tag in _SIMPLE_DECODERS:
            return _SIMPLE_DECODERS[tag](payload)
        return from_ref(tag, payload)
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, ArithmeticError, RecursionError) as exc:
        raise WireError(f"a value that is not in the schema ({tag}): {exc}") from None
