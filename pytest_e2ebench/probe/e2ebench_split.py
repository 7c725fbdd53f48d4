"""The suite's side of a split test run: pytest, the probe and the tests, with no project code.

The harness starts this process with ``python -S`` (no ``site``: nothing of the run's
environment is importable but the test tools it links into a folder of its own) and the
project's process (:mod:`e2ebench_host`) in another sandbox. A test's ``import pkg`` of a name
this process does not have gives a :class:`ProxyModule`; every operation on a project object
is a request to the host over the data-only channel (:mod:`e2ebench_wire`), answered with
data or with a :class:`Handle`. What the suite compares with plain data it compares itself:
an ``assert result == "1.2.3"`` whose left side came back as a string is decided by this
process's ``str.__eq__``, which the project cannot reach.

Where the project still decides (a handle compared with a literal, an ordering, ``in``,
``isinstance``), a true answer is checked against a value no test wrote (:data:`LIARS`):
an object that says it equals everything, contains everything or is before and after the
same value loses the comparison, and the count is in the run's record.

Standard library and pytest only, like the probe.
"""

from __future__ import annotations

import abc
import builtins
import contextlib
import fcntl
import importlib.abc
import importlib.machinery
import io
import logging
import operator
import os
import random
import stat
import subprocess
import sys
import types
import warnings
import weakref

import e2ebench_sides
import e2ebench_wire as wire

CHANNEL_ENV = "E2EBENCH_SPLIT_FDS"
SUITE_ENV = "E2EBENCH_SPLIT_SUITE"  # the suite's folder: never named to the project
PROJECT_ENV = "E2EBENCH_SPLIT_PROJECT"  # folders of the project's files (ProjectFirst)
NAMES_ENV = "E2EBENCH_SPLIT_NAMES"  # the project's top-level names found there
SUITE_MODULES_ENV = "E2EBENCH_SUITE_MODULES"  # the suite's own modules (environment/finder.py)
_HIDDEN_ENV = ("PYTEST_", "E2EBENCH_", "COV_CORE_", "COVERAGE_")
LIARS = {"count": 0, "examples": []}
AMBIGUOUS = "a"  # the kind of a handle whose truth the suite does not ask (_ambiguous)
_COMPLEMENT = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}
# what the suite decides itself on the builtin value inside a project object (_converted)
_BUILTIN_OPS = {op: getattr(operator, op) for op in ("eq", "lt", "le", "gt", "ge")}
_BUILTIN_OPS["contains"] = lambda container, item: item in container
_BUILTIN_OPS["truth"] = lambda value, _: bool(value)
_RNG = random.SystemRandom()


_GONE = object()
# what no callback hands the project (Peer._ref): a module, or the way into the suite's
# running code: a test's generator's ``gi_frame`` has ``f_builtins`` (the suite's ``eval``),
# ``f_back``, ``f_locals``; a code object's ``co_consts`` are the test's literals
_WITHHELD = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType)
# what a project's exception never is here: pytest ends the session on a KeyboardInterrupt
_UNRAISED = (KeyboardInterrupt, GeneratorExit)


class SplitError(Exception):
    """The project's process broke the channel or gave no answer: the test fails."""


class NotPlainData(SplitError):
    """An object of the project where the reference's value was plain data (its sides)."""


def _public(name) -> str:
    name = str(name)
    if name.startswith("_"):
        raise AttributeError(name)
    return name


_OPAQUE = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, type)


def _shown(target, how) -> str:
    """The text of a test's object, unless it would name the test (a function's or a class's,
    or the default ``<test_module.Class object>``)."""
    if isinstance(target, _OPAQUE) or type(target).__repr__ is object.__repr__:
        return "<an object of the test's>"
    return how(target)


# What the project may ask of an object a test gave it: no private attribute (no way to
# ``__class__``, ``__globals__``, the test module), no module
SERVED = {
    "call": lambda target, args, kwargs: target(*args, **kwargs),
    "getattr": lambda target, name: _served_getattr(target, name),
    "setattr": lambda target, name, value: setattr(target, _public(name), value),
    "iter": iter,
    "next": next,
    "len": len,
    "bool": bool,
    "str": lambda target: _shown(target, str),
    "repr": lambda target: _shown(target, repr),
    "hash": hash,
    "getitem": lambda target, key: target[key],
    "setitem": lambda target, key, value: target.__setitem__(key, value),
    "contains": lambda target, item: item in target,
    "eq": lambda target, other: _served_eq(target, other),
}


def _served_getattr(target, name):
    """An attribute of a test's object the project asked for: a public one, or a function's
    own name (``functools.wraps``, a deprecation message: its ``__qualname__`` is its name,
    never the test that holds it), unless that name is a test's."""
    if name in ("__name__", "__qualname__") and isinstance(target, types.FunctionType):
        if not target.__name__.startswith("test"):
            return target.__name__
    return getattr(target, _public(name))


def _served_eq(target, other) -> bool:
    """``target == other`` the project asked of a test's object: that object's own
    ``__eq__`` alone, identity when it has no answer. The project's side was asked already
    where it compared; asking it back (``other.__eq__``, a handle) would bounce between the
    two processes without end (``typing.Tuple[<a project Union>, int]``: ``arg in (Any, ...)``)."""
    answer = type(target).__eq__(target, other)
    return target is other if answer is NotImplemented else answer


class Peer:
    """This process's end of the channel: requests out, answers in, the project's callbacks
    into the test's objects answered meanwhile."""

    def __init__(self, channel: wire.Channel) -> None:
        self.channel = channel
        self.handles: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.mirrors: dict[int, type] = {}
        self.classes: dict[int, type] = {}  # the test's classes on project classes, by handle
        self.stand_ins: dict[int, type] = {}  # their project bases (RemoteType)
        self.kept: dict[int, object] = {}  # those classes' members, never forgotten
        self.live = wire.Live()  # containers read from project objects (e2ebench_wire.Live)
        self.objects: dict[int, object] = {}  # the test's objects the project may call
        self.released: list[int] = []
        self.forget = False  # the next request tells the project's process a test ended
        self.interrupt = -1  # the pipe that interrupts the project's process
        self.number = 0
        self.broken = ""
        self.synced = _Process()

    def request(self, op: str, args, *, call: bool = False, back=None):
        if self.broken:
            raise SplitError(self.broken)
        self.number += 1
        number = self.number
        message = {"op": op, "id": number, "a": self.encode(args)}
        if self.released:
            message["rel"], self.released = self.released, []
        if self.forget:
            message["fg"], self.forget = 1, False
        state = self.synced.changes() if call else None
        if state:
            message["st"] = state
        changed = self.live.changes(self.encode)
        if changed:
            message["sy"] = changed
        try:
            self.channel.send(message)
            reply = self._wait(number)
        except wire.WireError as exc:
            self.broken = f"the project's process ended or broke the channel: {exc}"
            raise SplitError(self.broken) from None
        except BaseException:  # the test's timeout: the project's process is interrupted, and
            # its late answer to this request is passed over by the next one (_wait)
            try:
                os.write(self.interrupt, b"!")
            except OSError:
                self.broken = "the project's process did not answer before the test's timeout"
            raise
        if call:
            self.synced.after(reply, back)
        _warn_again()
        if "exc" in reply:
            raise self.decode(reply["exc"])
        value = self.decode(reply.get("ok"))
        if type(reply.get("lv")) is int and type(value) in (list, dict, set):
            self.live.add(reply["lv"], value, self.encode)
        return value

    def _wait(self, number: int) -> dict:
        while True:
            message = self.channel.receive()
            _relay(message)
            self.live.apply(message.get("lb"), self.decode, self.encode)
            if "re" in message:
                if message["re"] == number:
                    return message
                continue
            self._serve(message)

    def _serve(self, message: dict) -> None:
        """The project asks about an object the test gave it (:data:`SERVED`)."""
        number = message.get("id")
        try:
            target, *rest = self.decode(message.get("a"))
            answer = SERVED.get(str(message.get("op")))
            if answer is None:
                raise wire.WireError("a request the suite does not answer")
            result = answer(target, *rest)
            if isinstance(result, _WITHHELD):
                raise AttributeError(f"a {type(result).__name__} of the suite's is withheld")
            reply = {"re": number, "ok": self.encode(result)}
        except StopIteration:
            reply = {"re": number, "stop": True}
        except AssertionError:  # its message would carry what the test expects
            reply = {"re": number, "type": "RuntimeError", "exc": "a check of the test's failed"}
        except Exception as exc:  # the test's object raised: the project sees its error
            kind = type(exc)
            reply = {"re": number, "type": kind.__qualname__, "exc": str(exc)}
            reply["module"] = kind.__module__
        self.channel.send(reply)

    # --- values -------------------------------------------------------------------------
    def encode(self, value):
        return wire.encode(value, self._ref, origin=self._origin)

    def _origin(self, value) -> int:
        """The number of a container or value sent as data: the project's process sends this
        very object back when it returns what it got (``resolve(doc, "") is doc``)."""
        self.objects[id(value)] = value
        return id(value)

    def _ref(self, value) -> dict:
        kind = type(value)
        if kind is Handle:
            return {"h": value._e2e_id}
        if kind is ProxyModule:
            return {"h": value._e2e_handle._e2e_id}
        if isinstance(value, RemoteType):
            return {"h": value._e2e_handle._e2e_id}
        if isinstance(value, Mirror) and value._e2e_ref is not None:
            return {"h": value._e2e_ref._e2e_id}
        if isinstance(value, type) and value in self.mirrors.values():
            return {"h": value._e2e_class}
        if isinstance(value, type) and getattr(builtins, value.__name__, None) is value:
            return {"bt": value.__name__}
        if kind is io.StringIO:
            return {"sio": [value.getvalue(), value.tell()]}
        if kind is io.BytesIO:
            return {"bio": [wire.encode(value.getvalue(), None)["b"], value.tell()]}
        if isinstance(value, io.IOBase) and value.readable() and not value.closed:
            name = str(getattr(value, "name", ""))
            return {"rf": [self.encode(value.read()), name]}
        if isinstance(value, _WITHHELD):
            raise wire.WireError(f"a {kind.__name__} of the suite's is not given to the project")
        if isinstance(value, types.GeneratorType):  # a generator there too (isgenerator)
            self.objects[id(value)] = value
            return {"g": id(value)}
        pid = id(value)
        self.objects[pid] = value
        return {"p": pid}

    def decode(self, data):
        return wire.decode(data, self._value)

    def _value(self, tag: str, payload):
        if tag == "bt":
            found = getattr(builtins, str(payload), None)
            if isinstance(found, type):
                return found
            raise wire.WireError(f"no builtin type {payload!r}")
        if tag == "p":
            found = self.objects.get(int(payload), _GONE)
            if found is _GONE:  # the test's failure, not the channel's
                raise SplitError("the project kept an object of an earlier test's")
            return found
        if tag != "h" or not isinstance(payload, list) or len(payload) < 2:
            raise wire.WireError(f"a reference off the schema: {tag!r}")
        hid, kind = int(payload[0]), str(payload[1])
        if kind == "x":
            return self._mirror(hid, payload)
        if kind == "e":
            return self._exception(hid, payload)
        if kind == "c" and hid in self.classes:
            return self.classes[hid]
        found = self.handles.get(hid)
        if found is None:
            found = ProxyModule(hid) if kind == "m" else Handle(hid, kind)
            self.handles[hid] = found
        return found

    def _mirror(self, hid: int, payload: list) -> type:
        """A class of this process for a project exception class, so that ``except`` and
        ``pytest.raises`` work; its builtin bases are the builtins themselves."""
        if hid not in self.mirrors:
            name, qualname, module, bases = (payload[2:6] + [None] * 4)[:4]
            known = _stdlib_class(str(module), str(qualname))
            if known is not None and not issubclass(known, _UNRAISED):
                self.mirrors[hid] = known  # subprocess.TimeoutExpired: what the test catches
                return known
            parents = tuple(self.decode(b) for b in bases or ())
            parents = tuple(p for p in parents if _raisable(p)) or (Exception,)
            if not any(issubclass(p, Mirror) for p in parents):
                parents = (Mirror, *parents)
            space = {"__module__": str(module), "__qualname__": str(qualname), "_e2e_class": hid}
            space["_e2e_handle"] = Handle(hid, "c")  # held for good: the class stays known
            try:
                self.mirrors[hid] = MirrorType(str(name), parents, space)
            except TypeError:  # bases that cannot be combined here
                self.mirrors[hid] = MirrorType(str(name), (Mirror, Exception), space)
        return self.mirrors[hid]

    def _exception(self, hid: int, payload: list) -> BaseException:
        cls = self.decode(payload[2])
        if not _raisable(cls):  # {"bt": "KeyboardInterrupt"} too: the session would end
            cls = RuntimeError
        args = self.decode(payload[4])
        args = tuple(args) if isinstance(args, (list, tuple)) else (str(payload[3]),)
        exc = None
        if not issubclass(cls, Mirror):  # a standard-library class: its own attributes
            with contextlib.suppress(Exception):
                exc = cls(*args)
        if exc is None:
            exc = cls.__new__(cls, *args)
        exc.args = args
        if isinstance(exc, Mirror):
            exc._e2e_ref, exc._e2e_text = self._value("h", [hid, "o"]), str(payload[3])
        if isinstance(exc, SystemExit) and args:
            exc.code = args[0]
        return exc


def _raisable(cls) -> bool:
    """Whether ``cls`` may be the class (or a base) of a project's exception here: an exception
    class that does not stop pytest's session (a class named ``builtins.KeyboardInterrupt``
    that is the project's own is looked up here by that name)."""
    return (
        isinstance(cls, type) and issubclass(cls, BaseException) and not issubclass(cls, _UNRAISED)
    )


def _stdlib_class(module: str, qualname: str):
    """The standard library's exception class ``module.qualname`` when this process has that
    module loaded already (nothing is imported on the project's word), else None."""
    if module.partition(".")[0] not in sys.stdlib_module_names or "<" in qualname:
        return None
    found = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if isinstance(found, type) and issubclass(found, BaseException):
        return found
    return None


class _Process:
    """What the test changed of its process that the project reads of its own: the
    environment, the working directory, ``sys.argv``, what ``sys.stdin`` holds."""

    def __init__(self) -> None:
        self.env = dict(os.environ)
        self.cwd = os.getcwd()
        self.argv = list(sys.argv)
        self.stdin_sent = False
        self.level = logging.WARNING  # the project's process's root level when it starts

    def changes(self) -> dict:
        state: dict = {}
        now = {k: v for k, v in os.environ.items() if not k.startswith(_HIDDEN_ENV)}
        before = {k: v for k, v in self.env.items() if not k.startswith(_HIDDEN_ENV)}
        delta = {k: v for k, v in now.items() if before.get(k) != v}
        delta.update({k: None for k in before if k not in now})
        if delta:
            state["env"] = delta
            self.env = dict(os.environ)
        cwd = os.getcwd()
        if cwd != self.cwd:
            state["cwd"] = self.cwd = cwd
        if sys.argv != self.argv:
            state["argv"] = self.argv = list(sys.argv)
        stdin = sys.stdin
        if type(stdin) is io.StringIO:
            state["stdin"] = stdin.getvalue()[stdin.tell() :]
            self.stdin_sent = True
        elif self.stdin_sent:
            state["stdin"], self.stdin_sent = None, False
        level = logging.getLogger().level  # caplog.set_level: what the project should log
        if level != self.level:
            state["log"] = self.level = level
        return state

    def after(self, reply: dict, back) -> None:
        stdin = sys.stdin
        if "stdin" in reply and type(stdin) is io.StringIO:
            stdin.seek(stdin.tell() + int(reply["stdin"]))
        for key, data in reply.get("back", ()):
            original = back(key) if back else None
            if original is not None:
                _restore(original, data)


def _restore(original, data) -> None:
    """Give a mutable argument of the test's what the project left in its copy."""
    if isinstance(data, dict) and ("sio" in data or "bio" in data):
        text, where = data.get("sio") or data.get("bio")
        value = text if "sio" in data else wire.decode({"b": text}, None)
        original.seek(0)
        original.truncate()
        original.write(value)
        original.seek(int(where))
        return
    value = PEER.decode(data)
    if type(original) is bytearray:
        original[:] = value
    else:
        wire.refill(original, value)


def _relay(message: dict) -> None:
    """What the project printed, printed here (so ``capsys`` and ``capfd`` see it), and what
    it logged, handled by this process's loggers (so ``caplog`` and ``assertLogs`` see it)."""
    for key, stream in (("out", sys.stdout), ("err", sys.stderr)):
        text = message.get(key)
        if isinstance(text, str) and text:
            stream.write(text)
            stream.flush()
    warned = message.get("warn")
    _WARNED.extend(warned if type(warned) is list else ())
    records = message.get("log")
    for entry in records if type(records) is list else ():
        record = _log_record(entry)
        if record is not None:
            logging.getLogger(record.name).handle(record)


_WARNED: list = []  # warnings of the project's (e2ebench_host): issued after its answer


def _warn_again() -> None:
    """Issue here the warnings the project issued while it answered (data: a category, text,
    a file and a line), under this process's filters: ``pytest.warns`` records them, and a
    filter that makes one an error raises it where the test called the project."""
    pending = _WARNED[:]
    _WARNED.clear()
    for entry in pending:
        if type(entry) is not list or len(entry) != 4:
            continue
        kind = PEER.decode(entry[0])
        if not (isinstance(kind, type) and issubclass(kind, Warning)):
            kind = UserWarning
        # the file's name in angle brackets: linecache never opens a path the project chose
        # (a FIFO would block this process) to show the warning's line
        text, where, line = str(entry[1]), f"<project {entry[2]}>", entry[3]
        warnings.warn_explicit(text, kind, where, line if type(line) is int else 0)


def _log_record(entry) -> logging.LogRecord | None:
    """A record of the project's (data: names, numbers, text) as this process's own."""
    if type(entry) is not dict or type(entry.get("n")) is not str:
        return None
    if type(entry.get("l")) is not int or type(entry.get("m")) is not str:
        return None
    fields = {"name": entry["n"], "levelno": entry["l"], "msg": entry["m"], "args": None}
    fields["levelname"] = logging.getLevelName(entry["l"])
    for key, name, kind in (("f", "funcName", str), ("p", "pathname", str),
                            ("no", "lineno", int), ("t", "created", float),
                            ("x", "exc_text", str)):  # fmt: skip
        if type(entry.get(key)) is kind:
            fields[name] = entry[key]
    return logging.makeLogRecord(fields)


def _ask(op: str, *args, call: bool = False, back=None):
    return PEER.request(op, list(args), call=call, back=back)


def _plain(value) -> bool:
    kind = type(value)
    if kind in wire.PLAIN_SCALARS or kind in (bytes, complex):
        return True
    if kind in (list, tuple, set, frozenset):
        return all(_plain(v) for v in value)
    if kind is dict:
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False


def _sentinel(value):
    """A value of the same type and look as ``value`` that no sane object equals at the same
    time: one character, digit or element changed, so that the project cannot tell the test's
    value from the check's by its look."""
    kind = type(value)
    if kind is bool:
        return not value
    if kind is int:
        return _other_int(value)
    if kind is float:
        return _other_float(value)
    if kind in (str, bytes):
        text = value.decode("latin-1") if kind is bytes else value
        changed = _other_text(text)
        return changed.encode("latin-1") if kind is bytes else changed
    if kind in (list, tuple):
        if not value:
            return kind([0])
        at = _RNG.randrange(len(value))
        return kind([*value[:at], _sentinel(value[at]), *value[at + 1 :]])
    if kind is dict:  # one entry's key and value both changed: unequal by keys or by items
        if not value:
            return {"": 0}
        key = _RNG.choice(list(value))
        changed = {k: v for k, v in value.items() if k != key}
        changed[_absent(key, value)] = _sentinel(value[key])
        return changed
    if kind in (set, frozenset):
        return kind({*value, _absent(next(iter(value)), value) if value else 0})
    return _other_text(str(value))


def _other_int(value: int) -> int:
    """Another int of the same sign and number of digits, drawn evenly among them: the draw
    is symmetric (``a`` gives ``b`` as often as ``b`` gives ``a``), so the pair alone does not
    say which was the test's (``value`` plus up to ``|value|`` let the smaller be guessed in
    three of four)."""
    digits = len(str(abs(value)))
    low, high = (0 if digits == 1 else 10 ** (digits - 1)), 10**digits - 1
    drawn = _RNG.randint(low, high - 1)
    drawn += drawn >= abs(value)  # every other one of the same look, evenly
    return -drawn if value < 0 else drawn


def _other_float(value: float) -> float:
    """``value`` scaled up or down (evenly) by a factor in [1.1, 1.9]: symmetric in the
    ratio, so neither of the two is the likelier test value (always up named the smaller)."""
    if value == 0 or value != value or value in (float("inf"), float("-inf")):
        return _RNG.choice((-1.0, 1.0)) * _RNG.uniform(1.0, 9.0) if value == 0 else 0.5
    factor = _RNG.uniform(1.1, 1.9)
    return value * factor if _RNG.random() < 0.5 else value / factor


def _absent(like, among):
    """A sentinel of ``like`` that is not in ``among`` (a set's or a dict's keys): one drawn
    into the collection would leave it equal to the test's value (``{1, 2}`` with a 2 added)."""
    for _ in range(64):
        found = _sentinel(like)
        if found not in among:
            return found
    return f"e2e-{_RNG.getrandbits(64):016x}"  # {True, False}: no bool is left to draw


def _other_text(text: str) -> str:
    """``text`` with one character changed to another of its class (digit, lower- or upper-
    case letter), or one letter added when it has none."""
    places = [i for i, c in enumerate(text) if c.isascii() and c.isalnum()]
    if not places:
        at = _RNG.randrange(len(text) + 1)
        return text[:at] + _RNG.choice("abcdefghijklmnopqrstuvwxyz") + text[at:]
    at = _RNG.choice(places)
    char = text[at]
    pool = "0123456789" if char.isdigit() else "abcdefghijklmnopqrstuvwxyz"
    pool = pool.upper() if char.isupper() else pool
    return text[:at] + _RNG.choice(pool.replace(char, "")) + text[at + 1 :]


def _lied(what: str) -> bool:
    LIARS["count"] += 1
    if len(LIARS["examples"]) < 10:
        LIARS["examples"].append(what)
    return False


def _checked(handle, real: tuple, check: tuple):
    """Two comparisons of ``handle`` (``(op, value)`` each) in one request, in a random order
    (the project cannot tell which one the test asked): (the answer, the check's answer), or
    ``({"v": value}, None)`` for equalities the builtin value inside a subclass decides."""
    first = _RNG.random() < 0.5
    reply = _ask(
        "checked", handle, [list(check), list(real)] if first else [list(real), list(check)]
    )
    if type(reply) is not dict:
        raise SplitError("the project's process answered a comparison off the schema")
    if "v" in reply:
        return reply, None
    answers = [_answer(a) for a in reply.get("r") or ()]
    if len(answers) != 2:
        raise SplitError("the project's process answered a comparison off the schema")
    answer, checked = (answers[1], answers[0]) if first else (answers[0], answers[1])
    if isinstance(answer, BaseException):
        raise answer
    return answer, None if isinstance(checked, BaseException) else checked


def _answer(answer):
    """One answer of a checked comparison: a bool, an exception, or an ambiguous result."""
    if type(answer) is bool:
        return answer
    if type(answer) is dict and isinstance(answer.get("raised"), BaseException):
        return answer["raised"]
    return _ambiguous(answer)


def _ambiguous(answer):
    """A comparison's non-boolean answer (an array's elementwise one) whose truth the project
    would not give: the suite does not ask it again (a second answer could differ)."""
    value = answer[0] if isinstance(answer, list) and answer else answer
    if type(value) is Handle:
        object.__setattr__(value, "_e2e_kind", AMBIGUOUS)
    return value


# what the builtin value inside a project object may be (a handle there would be asked again)
_BUILTIN_VALUES = frozenset(wire.PLAIN_SCALARS) | {bytes, tuple, list, dict, set, frozenset}


def _inside(handle, asked: str):
    """The builtin value inside ``handle`` (a subclass of a plain type) at a site where the
    reference's value was plain data, else refused (counted). ``asked``: what the test asked."""
    reply = _ask("checked", handle, [])
    value = reply.get("v", _GONE) if type(reply) is dict else _GONE
    if type(value) not in _BUILTIN_VALUES:
        _lied(f"an object where the reference's value was plain data ({asked})")
        raise NotPlainData(
            "the project returned an object where the reference returns plain data "
            f"({asked}): the test takes plain data here"
        )
    return value


def _converted(handle, op: str, other, asked: str = ""):
    """``handle <op> other`` at a site where the reference's value was plain data: decided
    here on the builtin value inside ``handle`` (a subclass of a plain type), else refused.
    ``asked``: what the test asked, for the refusal (a comparison with ``other``'s type)."""
    value = _inside(handle, asked or f"compared with a {type(other).__name__}")
    return _BUILTIN_OPS[op](value, other)


def _attribute(handle, name: str):
    """``handle.name``: the project's answer where the reference read ``name`` of an object of
    its at this site; elsewhere (its value was plain data there) the builtin value's own
    attribute, read here, else refused. A ``str`` subclass's ``startswith``, or an object's
    whose every method says yes, never sees the test's argument (``text.startswith(x)``,
    ``tags.issubset(x)``); ``__class__`` is the builtin value's type (``isinstance``). Only
    what the suite's own code reads (a library's reads, pytest's, are the project's answers)."""
    if not SIDES.asked_here(3) or not SIDES.plain_only(name=name):
        return _ask("getattr", handle, name)
    value = _inside(handle, f"its {name} read")
    return type(value) if name == "__class__" else getattr(value, name)


def _equal(handle, other) -> object:
    """``handle == other``: by this process where the project's value is plain data (a str
    or int subclass, read by the builtin's own method), else by the project, checked. Off the
    reference's sides, whatever ``other`` is: a ``datetime``, a ``Decimal``, a
    ``pytest.approx`` (whose ``expected`` the project would read) or another handle."""
    if SIDES.plain_only():
        return _converted(handle, "eq", other)
    if _plain(other):
        answer, probe = _checked(handle, ("eq", other), ("eq", _sentinel(other)))
        if type(answer) is dict:  # the builtin value inside a subclass of a plain type
            return answer["v"] == other
        if answer is True and probe is True:
            return _lied(f"equal to a value no test wrote ({type(other).__name__})")
        return answer
    result = _ask("eq", handle, other)
    if result is True and _ask("eqfresh", handle) is True:
        return _lied("equal to an object made for the check")
    return result


def _ordered(op: str):
    def compare(self, other):
        if SIDES.plain_only():
            return _converted(self, op, other)
        if _plain(other):
            answer, opposite = _checked(self, (op, other), (_COMPLEMENT[op], other))
            if answer is True and opposite is True:
                return _lied(f"both {op} and {_COMPLEMENT[op]} the same value")
            return answer
        result = _ask(op, self, other)
        if result is True:
            try:
                opposite = _ask(_COMPLEMENT[op], self, other)
            except Exception:  # a class that defines only some orderings
                opposite = None
            if opposite is True:
                return _lied(f"both {op} and {_COMPLEMENT[op]} the same value")
        return result

    return compare


def _reflected(op: str):
    return lambda self, other: _ask(op, other, self)


def _forward(op: str):
    return lambda self, *args: _ask(op, self, *args)


# comparisons a test calls by name (``v.__eq__(w) is NotImplemented``): the project's method;
# ``v == w`` is this process's (:func:`_equal`, with its checks)
_EXPLICIT = frozenset(f"__{op}__" for op in ("eq", "ne", "lt", "le", "gt", "ge"))


class Handle:
    """An object that lives in the project's process; every operation on it is a request."""

    __slots__ = ("_e2e_id", "_e2e_kind", "__weakref__")

    def __init__(self, hid: int, kind: str) -> None:
        object.__setattr__(self, "_e2e_id", hid)
        object.__setattr__(self, "_e2e_kind", kind)

    def __del__(self) -> None:
        try:
            PEER.released.append(self._e2e_id)
        except Exception:  # at interpreter exit
            pass

    def __getattribute__(self, name):
        if name in _EXPLICIT:  # ``a.__eq__(b)`` asked in so many words: the project's answer
            return _attribute(self, name)  # (where the reference's value was an object)
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        return _attribute(self, str(name))

    def __setattr__(self, name, value) -> None:
        _ask("setattr", self, name, value)

    def __delattr__(self, name) -> None:
        _ask("delattr", self, name)

    @property
    def __class__(self):  # isinstance(handle, str): the builtin value's type off the sides
        return _attribute(self, "__class__")

    def __call__(self, *args, **kwargs):
        mutable = {**dict(enumerate(args)), **kwargs}

        def back(key):
            return mutable.get(key)

        return _ask("call", self, list(args), kwargs, call=True, back=back)

    def __eq__(self, other):
        return _equal(self, other)

    def __bool__(self) -> bool:
        if self._e2e_kind == AMBIGUOUS:
            raise ValueError(
                "the truth value of the project's answer to a comparison is ambiguous "
                "(it would not give one when asked): use .any() or .all()"
            )
        # ``assert result`` where the reference's value was plain data (a bool, a list): the
        # builtin value's truth, else refused (an object true for every question passes none)
        if SIDES.plain_only():
            return _converted(self, "truth", None, "asked for its truth")
        return _ask("bool", self)

    def __ne__(self, other):
        result = _equal(self, other)
        return not result if type(result) is bool else _ask("ne", self, other)

    __hash__ = _forward("hash")
    __lt__, __le__, __gt__, __ge__ = (_ordered(op) for op in ("lt", "le", "gt", "ge"))

    def __contains__(self, item) -> bool:
        # no liar check at the reference's sides: an honest container may hold every value (an
        # unbounded interval); off them, the builtin value inside or refused (``"x" in out``)
        if SIDES.plain_only():
            return _converted(self, "contains", item)
        return _ask("contains", self, item)

    def __instancecheck__(self, obj) -> bool:
        found = _ask("instancecheck", self, obj)
        if found is True and _ask("isfresh", self) is True:
            return _lied("a class every object is an instance of")
        return found

    def __subclasscheck__(self, sub) -> bool:
        return _ask("subclasscheck", self, sub)

    def __mro_entries__(self, bases):
        return (_stand_in(self),)  # a test's class on a project class (RemoteType)

    def __enter__(self):
        return _ask("enter", self)

    def __exit__(self, kind, value, traceback):
        if value is not None and not isinstance(value, Mirror):
            value = RuntimeError(str(value)) if not _plain(value.args) else value
        try:
            return _ask("exit", self, kind if kind is None or _is_builtin(kind) else None, value)
        except wire.WireError:
            return _ask("exit", self, None, None)

    def __reduce_ex__(self, protocol):
        # pickled by the project and unpickled there: the suite's stream holds only bytes
        return _unpickled, (_ask("pickle", self, protocol),)

    def __copy__(self):
        return _ask("copy", self)

    def __deepcopy__(self, memo):
        return _ask("deepcopy", self)

    def __format__(self, spec):
        return _ask("format", self, spec)

    def __round__(self, *digits):
        return _ask("round", self, *digits) if digits else _ask("round", self, None)

    def __pow__(self, other, modulo=None):
        return _ask("pow", self, other)

    def __rpow__(self, other):
        return _ask("pow", other, self)


def _unpickled(data: bytes):
    """The project's object pickled as ``data`` (by :meth:`Handle.__reduce_ex__`)."""
    return _ask("unpickle", data)


def _is_builtin(kind) -> bool:
    return getattr(builtins, getattr(kind, "__name__", ""), None) is kind


for _name, _op in {
    "str": "str", "repr": "repr", "len": "len", "iter": "iter",
    "next": "next", "neg": "neg", "pos": "pos", "abs": "abs", "invert": "invert",
    "int": "int", "float": "float", "complex": "complex", "index": "index",
    "bytes": "bytes", "reversed": "reversed", "dir": "dir",
}.items():  # fmt: skip
    setattr(Handle, f"__{_name}__", _forward(_op))
for _name, _op in {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "truediv", "floordiv": "floordiv",
    "mod": "mod", "lshift": "lshift", "rshift": "rshift", "and": "and_", "or": "or_",
    "xor": "xor", "matmul": "matmul", "divmod": "divmod",
}.items():  # fmt: skip
    setattr(Handle, f"__{_name}__", _forward(_op))
    setattr(Handle, f"__r{_name}__", _reflected(_op))
Handle.__getitem__ = _forward("getitem")
Handle.__delitem__ = _forward("delitem")
Handle.__setitem__ = lambda self, key, value: _ask("setitem", self, key, value)


class MirrorType(type):
    """The type of the classes made for the project's exception classes: a test that makes
    one (``LogParseError("bad", line=3)``) gets the project's own, made by the project."""

    def __call__(cls, *args, **kwargs):
        handle = cls.__dict__.get("_e2e_handle")
        if handle is None:  # a test's subclass of a mirror
            return super().__call__(*args, **kwargs)
        return _ask("call", handle, list(args), kwargs, call=True, back=lambda key: None)


# What Python reads of a class itself: never looked up in the project's class for a test's
# subclass (its creation, its attribute protocol, its own names)
_CLASS_OWN = frozenset(
    "__init_subclass__ __subclasshook__ __new__ __getattribute__ __getattr__ __setattr__ "
    "__delattr__ __class__ __dict__ __weakref__ __module__ __qualname__ __doc__ __slots__ "
    "__abstractmethods__ __annotations__ __mro_entries__ __set_name__".split()
)
# a test's class body: what is not a member of the class made in the project's process (its
# qualified name and module would name the test)
_BODY_SKIP = frozenset(
    "__module__ __qualname__ __classcell__ __firstlineno__ __static_attributes__ "
    "__orig_bases__".split()
)


class Inherited:
    """A name a test's subclass inherits from a project class, looked up in the project's
    process from that class on (a test's ``super().parse(text)`` and ``Sub.parse``)."""

    __slots__ = ("base", "name")

    def __init__(self, base: Handle, name: str) -> None:
        self.base, self.name = base, name

    def __get__(self, obj, owner=None):
        return _ask("inherited", self.base, obj, owner, self.name)


class RemoteType(type):
    """The type of a test's class on a project class: a class made in the project's process
    too (:func:`e2ebench_host.subclass`), whose methods are the test's own, called back here
    as the test's objects are; its instances live there (handles here). The class here holds
    the test's functions (their ``super()`` is this class's) and, in its base made by
    :func:`_stand_in`, what the project's class has (:class:`Inherited`)."""

    def __new__(mcs, name, bases, space, **kwargs):
        if "_e2e_handle" in space:  # a stand-in for the project's class
            return super().__new__(mcs, name, bases, space)
        parents = [b._e2e_handle for b in bases if isinstance(b, RemoteType)]
        if kwargs or len(parents) != len(bases):
            raise TypeError(
                "a test's class mixes a project class with others or names a metaclass: "
                "this suite cannot run split"
            )
        body = {k: _member(v) for k, v in space.items() if k not in _BODY_SKIP}
        made = _ask("subclass", str(name), parents, body)
        for member in body.values():  # called back after the test that made the class, too
            PEER.kept.update((id(v), v) for v in member[1:] if v is not None and not _plain(v))
        cls = super().__new__(mcs, name, bases, {**space, "_e2e_handle": made})
        PEER.classes[made._e2e_id] = cls
        return cls

    def __call__(cls, *args, **kwargs):
        return cls._e2e_handle(*args, **kwargs)

    def __getattr__(cls, name):
        if name.startswith("_e2e") or name in _CLASS_OWN:
            raise AttributeError(name)
        return _ask("getattr", cls._e2e_handle, name)


def _stand_in(handle: Handle) -> type:
    """This process's class for the project's class ``handle`` in a test's class's bases."""
    found = PEER.stand_ins.get(handle._e2e_id)
    if found is None:
        names = _ask("ownnames", handle)
        space = {n: Inherited(handle, n) for n in names if str(n) not in _CLASS_OWN}
        space["_e2e_handle"] = handle
        try:
            name = _ask("getattr", handle, "__name__")
        except Exception:  # a project's object that is no class: its test fails, not its module
            name = "ProjectClass"
        found = RemoteType(name if type(name) is str else "ProjectClass", (), space)
        PEER.stand_ins[handle._e2e_id] = found
    return found


def _member(value) -> list:
    """A member of a test's class body, as the project's process makes it: the test's
    functions as callbacks (``f``, ``c`` class, ``s`` static methods, ``p`` a property's
    three), anything else as a value (``v``: data copied, an object of the test's as a
    callback)."""
    if isinstance(value, types.FunctionType):
        return ["f", value]
    if isinstance(value, (classmethod, staticmethod)):
        return ["c" if isinstance(value, classmethod) else "s", value.__func__]
    if isinstance(value, property):
        return ["p", value.fget, value.fset, value.fdel]
    return ["v", value]


class Mirror:
    """Base of the classes made for the project's exception classes: its instances read what
    they do not hold from the project's exception."""

    _e2e_ref = None  # the project's exception (a Handle)
    _e2e_text = ""

    def __getattr__(self, name):
        if name.startswith("_e2e") or self._e2e_ref is None:
            raise AttributeError(name)
        return _ask("getattr", self._e2e_ref, name)

    def __str__(self) -> str:
        return self._e2e_text if self._e2e_ref is not None else super().__str__()


class ProxyModule(types.ModuleType):
    """A module of the project's, as the suite imports it."""

    def __init__(self, hid: int) -> None:
        super().__init__(f"<project module {hid}>")
        object.__setattr__(self, "_e2e_handle", Handle(hid, "m"))

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and name != "__file__":
            raise AttributeError(name)
        return _ask("getattr", self._e2e_handle, name)

    def __setattr__(self, name, value) -> None:
        if isinstance(value, ProxyModule) or (name.startswith("__") and name.endswith("__")):
            object.__setattr__(self, name, value)  # the import system's own bookkeeping
        else:
            _ask("setattr", self._e2e_handle, name, value)

    def __delattr__(self, name) -> None:
        _ask("delattr", self._e2e_handle, name)

    def __dir__(self):
        return _ask("dir", self._e2e_handle)


class ProjectFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on ``sys.meta_path``: a name this process cannot import is asked of the project's
    process; what it imports there is a :class:`ProxyModule` here."""

    def find_spec(self, name, path=None, target=None):
        try:
            module = _ask("import", name)
        except ImportError:
            return None
        except SplitError:
            return None
        spec = importlib.machinery.ModuleSpec(name, self, is_package=True)
        spec.submodule_search_locations = []
        spec._e2e_module = module
        return spec

    def create_module(self, spec):
        module = spec._e2e_module
        object.__setattr__(module, "__name__", spec.name)
        return module

    def exec_module(self, module) -> None:
        pass


def _far_file(stream, key: str):
    """The descriptor, in the project's process, of the file a test's file object has open
    (``stdout=open(path, "a")``): the same file opened there with the same access and append
    flags, at the same position. Its number here means nothing there (EBADF, or another file
    of that process). Only a file both processes see (the shared scratch folder, ``tmp_path``)
    can be handed on, and ``os.devnull`` (as ``subprocess.DEVNULL``); any other (a pipe, a file
    of the suite's) is refused by name."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.StringIO: Popen says so there too
        return None
    mine = os.fstat(fd)
    path = os.readlink(f"/proc/self/fd/{fd}")
    refused = TypeError(
        f"subprocess.Popen({key}=...): {path} is not a file of the folder both processes of "
        "a split suite share (tmp_path); a program's streams can be only such a file, "
        "subprocess.PIPE or subprocess.DEVNULL"
    )
    if path == os.devnull and stat.S_ISCHR(mine.st_mode):
        return subprocess.DEVNULL
    if not stat.S_ISREG(mine.st_mode) or not path.startswith("/"):
        raise refused
    flags = fcntl.fcntl(fd, fcntl.F_GETFL) & (os.O_ACCMODE | os.O_APPEND)
    far_os = _ask("import", "os")
    try:
        far = _ask("call", _ask("getattr", far_os, "open"), [path, flags], {})
    except OSError:
        raise refused from None
    theirs = _ask("call", _ask("getattr", far_os, "fstat"), [far], {})
    same = [_ask("getattr", theirs, name) for name in ("st_dev", "st_ino")]
    if same != [mine.st_dev, mine.st_ino]:  # another file at that path there
        _ask("call", _ask("getattr", far_os, "close"), [far], {})
        raise refused
    if not flags & os.O_APPEND:
        where = os.lseek(fd, 0, os.SEEK_CUR)
        _ask("call", _ask("getattr", far_os, "lseek"), [far, where, os.SEEK_SET], {})
    return far


class ProjectFirst(importlib.abc.MetaPathFinder):
    """Just ahead of the path finder: no file of the project's folders (:data:`PROJECT_ENV`:
    its copy the tests run in, its repository) is ever loaded here, whatever ``sys.path``
    holds (the working folder, a test's ``sys.path.insert``, a folder pytest prepends). A
    top-level name of the project's (:data:`NAMES_ENV`, less the suite's own modules) is the
    project's process's (a proxy) first; any other name the path finder would take from those
    folders is looked for past them (the standard library's ``json`` before a ``json.py`` of
    the project's), else it is the project's process's, else not importable."""

    def __init__(self, folders, names, suite) -> None:
        self.folders = tuple(os.path.realpath(f) for f in folders if f)
        self.names = frozenset(names) - frozenset(suite) - {""}

    def inside(self, where) -> bool:
        try:
            real = os.path.realpath(os.path.abspath(os.fspath(where)))
        except (TypeError, ValueError, OSError):
            return False
        return any(real == f or real.startswith(f + os.sep) for f in self.folders)

    def _project(self, spec) -> bool:
        places = list(spec.submodule_search_locations or ())
        if spec.origin and spec.has_location:
            places.append(spec.origin)
        return any(self.inside(p) for p in places)

    def local(self, name, path=None, target=None):
        """The path finder's spec of ``name`` from outside the project's folders, or None; the
        path finder of pytest's assertion rewriter too (it loads test-named modules and
        ``conftest.py`` files itself, ahead of every finder)."""
        return self._search(name, path, target)[0]

    def _search(self, name, path, target) -> tuple:
        """(the spec from outside the project's folders or None, whether the path finder
        alone would have taken ``name`` from them)."""
        entries = sys.path if path is None else path
        spec = importlib.machinery.PathFinder.find_spec(name, entries, target)
        if spec is None or not self._project(spec):
            return spec, False
        outside = [e for e in entries if not self.inside(e)]
        spec = importlib.machinery.PathFinder.find_spec(name, outside, target)
        return (None if spec is None or self._project(spec) else spec), True

    def find_spec(self, name, path=None, target=None):
        proxies = PROXIES[:1] if path is None else []
        if name in self.names and proxies:
            spec = proxies[0].find_spec(name)
            if spec is not None:
                return spec
        spec, theirs = self._search(name, path, target)
        if spec is not None or not theirs:
            return spec
        spec = proxies[0].find_spec(name) if proxies else None
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r} in the suite's process", name=name)
        return spec


def guard() -> None:
    """Put :class:`ProjectFirst` just ahead of the path finder and drop the project's folders
    from ``sys.path`` (before pytest is imported)."""
    folders = os.environ.pop(PROJECT_ENV, "").split(os.pathsep)
    names = os.environ.pop(NAMES_ENV, "").split(os.pathsep)
    suite = os.environ.get(SUITE_MODULES_ENV, "").split(os.pathsep)
    first = ProjectFirst(folders, names, suite)
    sys.path[:] = [p for p in sys.path if p and not first.inside(p)]
    where = next(
        (i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder),
        len(sys.meta_path),
    )
    sys.meta_path.insert(where, first)
    sys.path_importer_cache.clear()
    import _pytest.assertion.rewrite as rewrite

    rewrite.AssertionRewritingHook._find_spec = staticmethod(first.local)


def _popen(*args, **kwargs):
    """``subprocess.Popen`` in the project's process: a test's ``python -m pkg`` runs there,
    with no suite file, test name or variable of the suite's process. A stream that is a file
    of the test's goes there as that process's descriptor of the same file (:func:`_far_file`).
    A test tool's own program (selenium's chromedriver) stays here (:func:`_tools_call`)."""
    if _tools_call():
        return LOCAL_POPEN(*args, **kwargs)
    env = kwargs.get("env")
    if env is not None:
        kwargs["env"] = {k: str(v) for k, v in env.items() if not str(k).startswith(_HIDDEN_ENV)}
    for key in ("preexec_fn", "startupinfo", "creationflags"):
        if kwargs.get(key):
            raise TypeError(f"subprocess.Popen({key}=...) is not available to a split suite")
    kwargs.pop("pass_fds", None)
    for key in ("cwd", "executable"):
        if key in kwargs and kwargs[key] is not None:
            kwargs[key] = os.fspath(kwargs[key])
    if args and isinstance(args[0], (list, tuple)):
        args = ([os.fspath(a) if isinstance(a, os.PathLike) else a for a in args[0]], *args[1:])
    opened = []
    try:
        for key in ("stdin", "stdout", "stderr"):
            stream = kwargs.get(key)
            if stream is None or isinstance(stream, int) or type(stream) is Handle:
                continue  # a constant, or the project's own file (its descriptor is there)
            far = _far_file(stream, key)
            if far is not None:
                kwargs[key] = far
                if far >= 0:
                    opened.append(far)
        return _ask("call", PEER.subprocess_popen, list(args), kwargs, call=True)
    finally:  # the program has its own copies of the descriptors
        for far in opened:
            _ask("call", _ask("getattr", _ask("import", "os"), "close"), [far], {})


def _tools_call() -> bool:
    """Whether the code that asked for a program is a test tool's (the first frame past the
    standard library's and this module's is in the tools' folder): selenium starting
    chromedriver, whose browser must run where the suite's tests drive it, not beside the
    project. The suite's own code (its tests, fixtures, helpers) is never a tool's."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name != __file__ and not name.startswith(_STDLIB):
            return bool(TOOLS) and name.startswith(TOOLS)
        frame = frame.f_back
    return False


def _system(command) -> int:
    return _ask("call", PEER.os_system, [os.fspath(command)], {}, call=True)


def join() -> None:
    """Join the project's process; ask it for every module this process does not have (from
    before pytest starts: a ``conftest.py`` may import the project)."""
    global PEER, SIDES, LOCAL_POPEN
    rfd, wfd, stop = (int(fd) for fd in os.environ.pop(CHANNEL_ENV).split(","))
    os.environ.pop(SUITE_ENV, None)
    SIDES = e2ebench_sides.load(os.environ.get("E2EBENCH_PROBE_SUITE", ""))
    PEER = Peer(wire.Channel(rfd, wfd))
    PEER.interrupt = stop
    PROXIES.append(ProjectFinder())
    sys.meta_path.append(PROXIES[0])
    PEER.subprocess_popen = _ask("getattr", _ask("import", "subprocess"), "Popen")
    PEER.os_system = _ask("getattr", _ask("import", "os"), "system")
    LOCAL_POPEN = subprocess.Popen
    subprocess.Popen = _popen
    os.system = _system
    _forward_introspection()
    abc.ABCMeta.__instancecheck__ = _abc_instancecheck(abc.ABCMeta.__instancecheck__)


def _abc_instancecheck(local):
    """``isinstance(handle, collections.abc.Sequence)``: a standard-library ABC is asked of
    the project's process (where the object's class registered); any other ABC here."""

    def instancecheck(cls, instance):
        if type(instance) is not Handle:
            return local(cls, instance)
        if SIDES.asked_here(2) and SIDES.plain_only(name="__class__"):  # as isinstance(x, str)
            return local(cls, _inside(instance, "its __class__ read"))
        module = getattr(cls, "__module__", "")
        if module.partition(".")[0] not in sys.stdlib_module_names:
            return False
        far = _ask("import", module)
        for part in cls.__qualname__.split("."):
            far = _ask("getattr", far, part)
        return _ask("instancecheck", far, instance) is True

    return instancecheck


# Standard-library functions that read an object's class (``type(obj)``, which is the handle's
# here): given a project object they are asked of the project's process.
INTROSPECTION = {"dataclasses": ("is_dataclass", "fields", "asdict", "astuple", "replace")}


def _forward_introspection() -> None:
    for module_name, names in INTROSPECTION.items():
        module = __import__(module_name)
        for name in names:
            setattr(module, name, _introspect(module_name, name, getattr(module, name)))


def _introspect(module_name: str, name: str, local):
    far = []  # the project's own function, asked for once

    def function(obj, *args, **kwargs):
        if type(obj) is not Handle:
            return local(obj, *args, **kwargs)
        if not far:
            far.append(_ask("getattr", _ask("import", module_name), name))
        return _ask("call", far[0], [obj, *args], kwargs, call=True, back=lambda key: None)

    function.__name__ = function.__qualname__ = name
    return function


def pytest_runtest_teardown(item) -> None:
    PEER.objects.clear()
    PEER.objects.update(PEER.kept)
    PEER.live.clear()
    PEER.forget = True


def pytest_sessionfinish(session) -> None:
    import e2ebench_probe

    e2ebench_probe.emit(
        {
            "kind": "split",
            "lies": LIARS["count"],
            "examples": LIARS["examples"],
            "sides": SIDES.reported(),
        }
    )
    try:
        PEER.channel.send({"op": "bye"})
    except wire.WireError:
        pass


PEER: Peer
LOCAL_POPEN = subprocess.Popen  # this process's own, for the test tools (:func:`_tools_call`)
TOOLS = ""  # the folder of links to the test tools, with a separator at its end (main)
_STDLIB = os.path.dirname(os.__file__) + os.sep
PROXIES: list = []  # the proxy finder, once the project's process is joined
SIDES = e2ebench_sides.Sides("", None)


def _venv_prefix() -> None:
    """``sys.prefix`` the run's environment, as ``site`` makes it in a virtual environment's
    interpreter (not run here: ``-S``), so that a test's ``site.getsitepackages()`` names the
    environment's folder (ProjectEval's conftest hands it to the site it serves), as in one
    process. Only the names: the environment's site-packages stays off this process's path."""
    here = os.path.dirname(os.path.abspath(sys.executable))
    for folder in (here, os.path.dirname(here)):
        if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            sys.prefix = sys.exec_prefix = folder
            return


def main() -> None:
    """``python -S e2ebench_parent.py TOOLS ARGS...``: pytest with the test tools of the
    folder TOOLS (links the harness made), nothing else."""
    global TOOLS
    _venv_prefix()
    tools = sys.argv[1]
    TOOLS = os.path.join(os.path.abspath(tools), "")
    sys.path.insert(0, tools)
    guard()
    import _pytest.tmpdir
    import pytest

    # tmp_path is in the scratch folder the project reads: named after no test (pytest names
    # it after the test, which would tell the project which test is running)
    _pytest.tmpdir._mk_tmp = lambda request, factory: factory.mktemp("t", numbered=True)
    join()
    raise SystemExit(pytest.main(sys.argv[2:], plugins=[sys.modules[__name__]]))
