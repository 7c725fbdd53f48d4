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
import collections
import datetime
import decimal
import fractions
import json
import os
import pathlib
import struct
import types

MAX_FRAME = 64 << 20  # bytes of one message: a bigger one is the far side's failure
MAX_DEPTH = 64  # nesting of one value
_HEADER = struct.Struct(">I")
PLAIN_SCALARS = (type(None), bool, int, float, str)
# what is sent with its origin, so that the object itself comes back (wire.encode's origin)
KEPT = frozenset(
    {list, dict, set, bytearray, collections.deque, datetime.date, datetime.datetime, datetime.time}
    | {datetime.timedelta, datetime.timezone, decimal.Decimal, fractions.Fraction}
)


# containers one side holds a copy of while the other holds the original (:class:`Live`)
MAX_LIVE = 16  # per test
LIVE_ITEMS = 1_000  # a container with more items is a copy only (each is encoded at every message)


class Live:
    """Containers read from an object of the far side, kept in step both ways: a test's
    ``settings.config["k"] = v`` reaches the project's dict before the project reads it, and
    what the project then adds reaches the test's copy. Each entry holds its encoding as last
    sent or applied; :meth:`changes` says what changed since (checked before every message)."""

    def __init__(self) -> None:
        self.held: dict[int, list] = {}  # this side's key -> [the far side's key, obj, encoding]

    def add(self, far: int, obj, encode) -> bool:
        if len(self.held) >= MAX_LIVE or len(obj) > LIVE_ITEMS:
            return False
        self.held[id(obj)] = [far, obj, encode(obj)]
        return True

    def changes(self, encode) -> list:
        """``[the far side's key, encoding]`` of each container changed since last seen."""
        out = []
        for entry in self.held.values():
            now = encode(entry[1])
            if now != entry[2]:
                entry[2] = now
                out.append([entry[0], now])
        return out

    def apply(self, pairs, decode, encode) -> None:
        """Fill this side's containers with what the far side sent for them."""
        for far, data in pairs if type(pairs) is list else ():
            for entry in self.held.values():
                if entry[0] == far:
                    refill(entry[1], decode(data))
                    entry[2] = encode(entry[1])

    def clear(self) -> None:
        self.held.clear()


def refill(original, value) -> None:
    """``original`` (a list, dict or set) made to hold what ``value`` holds, in place."""
    if type(original) is list and type(value) is list:
        original[:] = value
    elif type(original) in (dict, set) and type(value) is type(original):
        original.clear()
        original.update(value)


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


def encode(value, by_ref, depth: int = 0, *, known=None, origin=None):
    """``value`` in the schema; what is not plain data goes through ``by_ref(value)``, which
    returns its reference (a dict) or raises :class:`Unencodable`.

    ``known(value)``: a reference to send instead of the value's data, or None (the project's
    side: an object the suite sent, returned to it as the suite's own). ``origin(value)``: a
    number sent with a container's or a value's data (:data:`KEPT`), which the far side's
    ``seen`` learns, so that what comes back is the very object (``is`` holds across)."""
    kind = type(value)
    if kind in PLAIN_SCALARS:
        return value
    if depth > MAX_DEPTH:
        raise WireError("a value nested too deeply to send")
    if known is not None:
        hit = known(value)
        if hit is not None:
            return hit

    def inner(item):
        return encode(item, by_ref, depth + 1, known=known, origin=origin)

    out = _data(value, kind, inner)
    if out is None:
        return by_ref(value)
    if origin is not None and kind in KEPT:
        out["o"] = origin(value)
    return out


def _data(value, kind, inner):
    """The schema's form of a builtin container or value (items through ``inner``), or None."""
    if kind is list:
        return {"l": [inner(v) for v in value]}
    if kind is tuple:
        return {"t": [inner(v) for v in value]}
    if kind is dict:
        return {"d": [[inner(k), inner(v)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        return {"s" if kind is set else "f": [inner(v) for v in value]}
    if kind is bytes or kind is bytearray:
        tag = "b" if kind is bytes else "ba"
        return {tag: base64.b64encode(value).decode()}
    if kind is datetime.datetime or kind is datetime.time:
        return _moment(value, kind, inner)
    if kind is slice:
        return {"sl": [inner(value.start), inner(value.stop), inner(value.step)]}
    if kind is collections.deque:
        return {"dq": [[inner(v) for v in value], value.maxlen]}
    space = _NAMESPACES.get(f"{kind.__module__}.{kind.__qualname__}")
    if space is not None and _namespace(space) is kind:  # its attributes, as a dict's items
        return {"ns": [space, [[inner(k), inner(v)] for k, v in vars(value).items()]]}
    return _simple(value, kind)


# the standard library's classes of plain attributes, sent as data (``Namespace(x=1) ==
# Namespace(x=1)`` then holds across, decided by the side that compares)
_NAMESPACES = {"argparse.Namespace": "a", "types.SimpleNamespace": "s"}


def _namespace(tag: str) -> type:
    if tag == "s":
        return types.SimpleNamespace
    if tag == "a":
        import argparse  # loaded only when a namespace crosses (as zoneinfo is)

        return argparse.Namespace
    raise WireError("a namespace that is not in the schema")


def _moment(value, kind, inner):
    """A datetime or time: its wall clock, its zone as a value of its own (so that the zone
    object itself can come back) and its ``fold``, or None for a zone not in the schema."""
    zone = value.tzinfo
    if zone is not None and type(zone) is not datetime.timezone and _tz_key(zone) is None:
        return None
    tag = "dt" if kind is datetime.datetime else "ti"
    out = {tag: value.replace(tzinfo=None, fold=0).isoformat()}
    if zone is not None:
        out["tz"] = inner(zone)
    if value.fold:
        out["fd"] = 1
    return out


def _tz_key(zone):
    key = getattr(zone, "key", None)
    return key if type(zone).__module__ == "zoneinfo" and isinstance(key, str) else None


def _simple(value, kind):
    """Immutable standard-library values (exact types only), or None."""
    if kind is datetime.date:
        return {"da": value.isoformat()}
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
    if kind is datetime.timezone or (kind.__module__ == "zoneinfo" and kind.__name__ == "ZoneInfo"):
        try:
            return {"tz": _tz(value)}
        except Unencodable:
            return None
    if value is Ellipsis:
        return {"e": 1}
    if value is NotImplemented:  # a comparison's own answer, asked for explicitly
        return {"ni": 1}
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
    "ni": lambda v: NotImplemented,
    "tz": _zone,
    "b": base64.b64decode,
    "ba": lambda v: bytearray(base64.b64decode(v)),
}


def decode(data, from_ref, depth: int = 0, *, seen=None):
    """A value back from the schema; references (``h``, ``p`` and the like) through
    ``from_ref(tag, payload)``; ``seen(value, number)`` for a value sent with its origin
    (:func:`encode`). Anything off the schema raises :class:`WireError`."""
    if type(data) in PLAIN_SCALARS:
        return data
    if depth > MAX_DEPTH or type(data) is not dict or not 1 <= len(data) <= 4:
        raise WireError("a value that is not in the schema")
    tag = next(iter(data))
    try:
        value = _decoded(tag, data, lambda v: decode(v, from_ref, depth + 1, seen=seen))
        if value is _REFERENCE:
            return from_ref(tag, data[tag])
        if seen is not None and "o" in data:
            seen(value, int(data["o"]))
        return value
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, ArithmeticError, RecursionError) as exc:
        raise WireError(f"a value that is not in the schema ({tag}): {exc}") from None


_REFERENCE = object()  # what _decoded returns for a tag it leaves to from_ref


def _decoded(tag: str, data: dict, inner):
    payload = data[tag]
    if tag in ("l", "t", "s", "f"):
        items = [inner(v) for v in payload]
        return {"l": list, "t": tuple, "s": set, "f": frozenset}[tag](items)
    if tag == "d":
        return {inner(k): inner(v) for k, v in payload}
    if tag == "sl":
        return slice(*(inner(v) for v in payload))
    if tag == "ns":
        kind, items = payload
        return _namespace(str(kind))(**{str(inner(k)): inner(v) for k, v in items})
    if tag == "dq":
        items, maxlen = payload
        return collections.deque((inner(v) for v in items), None if maxlen is None else int(maxlen))
    if tag in ("dt", "ti"):
        zone = inner(data["tz"]) if "tz" in data else None
        if zone is not None and not isinstance(zone, datetime.tzinfo):
            raise WireError("a time zone that is not in the schema")
        parse = datetime.datetime if tag == "dt" else datetime.time
        return parse.fromisoformat(payload).replace(tzinfo=zone, fold=1 if data.get("fd") else 0)
    if tag in _SIMPLE_DECODERS:
        return _SIMPLE_DECODERS[tag](payload)
    return _REFERENCE
