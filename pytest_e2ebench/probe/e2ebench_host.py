"""The project's side of a split test run: it imports the project and does what the suite asks.

Run by the harness in a sandbox of its own (``python -m coverage run ... -m e2ebench_host
RFD WFD``), with the project's environment and none of the suite: no test file, no test name,
no expected value, no probe key. Each request of :mod:`e2ebench_split` is one operation on a
project object (import, attribute, call, comparison, iteration, formatting, ...); the answer
is data (:mod:`e2ebench_wire`) or a handle, a number naming an object kept here. Everything
this process says is the project's word: the suite's process takes nothing from it but data.

Standard library only, like the probe.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import importlib
import io
import logging
import operator
import os
import pickle
import signal
import sys
import threading
import warnings

import e2ebench_wire as wire

_SILENT_EXCEPTIONS = (KeyboardInterrupt, GeneratorExit)  # never raised as such in the suite


def _base_value(obj):
    """The builtin value inside an instance of a subclass of a plain type, read by the plain
    type's own methods (an override of ``__eq__`` or ``__str__`` plays no part), or None. The
    object's own type decides, not its ``__class__`` (which says what the object likes)."""
    real = type(obj)
    for kind, read in (
        (bool, None),
        (int, int.__int__),
        (float, float.__float__),
        (str, str.__str__),
        (bytes, bytes.__bytes__),
        (tuple, lambda o: tuple(tuple.__iter__(o))),
        (list, lambda o: list(list.__iter__(o))),
        (dict, lambda o: dict(dict.items(o))),
        (frozenset, lambda o: frozenset(frozenset.__iter__(o))),
        (set, lambda o: set(set.__iter__(o))),
    ):
        if issubclass(real, kind) and read is not None:
            return {"v": read(obj)}
    return None


def _checked(obj, questions):
    """Comparisons of ``obj`` asked at once, in the order the suite chose (its liar checks,
    :func:`e2ebench_split._checked`): ``questions`` is a list of ``[op, value]``. Each answer
    is its truth (the project's ``__bool__`` asked here, once), ``[result]`` where that
    truth raises (an array's elementwise answer), or ``{"raised": exception}``. When the
    questions are equalities and ``obj`` is an instance of a plain type's subclass, the answer
    is the builtin value inside instead (``{"v": ...}``): the suite compares that itself.
    No questions ask for that value alone (``{"r": []}`` for any other object)."""
    if all(op == "eq" for op, _ in questions):  # none: the builtin value, or nothing
        base = _base_value(obj)
        if base is not None:
            return base
    answers = []
    for op, value in questions:
        if op not in _ORDERS:
            raise wire.WireError(f"no checked comparison {op!r}")
        try:
            result = BINARY[op](obj, value)
        except Exception as exc:  # raised in the suite when it is the test's question
            answers.append({"raised": exc})
            continue
        try:
            answers.append(bool(result))
        except Exception:
            answers.append([result])
    return {"r": answers}


_ORDERS = ("eq", "lt", "le", "gt", "ge")


def _enter(obj):
    return type(obj).__enter__(obj)


UNARY = {
    "str": str,
    "repr": repr,
    "bool": bool,
    "len": len,
    "hash": hash,
    "iter": iter,
    "next": next,
    "neg": operator.neg,
    "pos": operator.pos,
    "abs": abs,
    "invert": operator.invert,
    "int": int,
    "float": float,
    "complex": complex,
    "index": operator.index,
    "bytes": bytes,
    "reversed": reversed,
    "dir": dir,
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "enter": _enter,
    "unpickle": pickle.loads,
    # the liar checks: a value no test wrote (made here, so it carries nothing of the suite)
    "eqfresh": lambda obj: obj == object(),
    "isfresh": lambda cls: isinstance(object(), cls),
}
BINARY = {
    name: getattr(operator, name)
    for name in (
        "eq ne lt le gt ge add sub mul truediv floordiv mod pow lshift rshift and_ or_ xor "
        "matmul getitem delitem"
    ).split()
}
BINARY.update(
    contains=lambda a, b: b in a,
    format=format,
    getattr=getattr,
    delattr=delattr,
    divmod=divmod,
    round=round,
    instancecheck=lambda cls, obj: isinstance(obj, cls),
    subclasscheck=lambda cls, sub: issubclass(sub, cls),
    checked=_checked,
    pickle=lambda obj, protocol: pickle.dumps(obj, protocol),
)
TERNARY = {"setattr": setattr, "setitem": operator.setitem}


def _own_names(cls) -> list[str]:
    """The names ``cls`` has that ``object`` has not the same of (a test's subclass looks them
    up here: :func:`inherited`)."""
    return [n for n in dir(cls) if getattr(cls, n, None) is not getattr(object, n, None)]


def subclass(name, bases, body) -> type:
    """A test's class on project classes, made here by their metaclass: its members from the
    suite's :func:`e2ebench_split._member` descriptions, its methods calls back into the
    test's functions (:class:`Callback`). Its module and qualified name say nothing of the
    test."""
    space = {str(k): _body_member(str(k), v) for k, v in body.items()}
    space["__module__"] = "suite"
    made = type(bases[0])(str(name), tuple(bases), space)
    return made


def _body_member(name: str, spec):
    kind, *rest = spec
    if kind == "v":
        return rest[0]
    calls = [_forwarded(name, c) if c is not None else None for c in rest]
    if kind == "p":
        return property(*calls)
    if kind == "c" or (kind == "f" and name in ("__init_subclass__", "__class_getitem__")):
        return classmethod(calls[0])
    if kind == "s" or name == "__new__":
        return staticmethod(calls[0])
    return calls[0]


def _forwarded(name: str, callback):
    def method(*args, **kwargs):
        return callback(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def inherited(base, obj, owner, name):
    """What ``obj`` (or the class ``owner`` when ``obj`` is None) has of ``name`` from ``base``
    on in its MRO: past the test's own classes (``super()`` in a test's method), bound."""
    mro = type(obj).__mro__ if obj is not None else owner.__mro__
    if base not in mro:
        raise AttributeError(name)
    for klass in mro[mro.index(base) :]:
        if name in vars(klass):
            found = vars(klass)[name]
            get = getattr(type(found), "__get__", None)
            return (
                found if get is None else get(found, obj, type(obj) if obj is not None else owner)
            )
    raise AttributeError(name)


# operations of any number of operands
VARIADIC = {"subclass": subclass, "inherited": inherited}
UNARY["ownnames"] = _own_names
_MUTABLE = (list, dict, set, bytearray, io.StringIO, io.BytesIO)


class Callback:
    """An object of the suite's process (one a test passed: a function, an iterable, a file
    of its own): every operation on it is a question the suite's process answers for that one
    object, its private attributes refused."""

    __slots__ = ("_e2e_pid",)

    def __init__(self, pid: int) -> None:
        object.__setattr__(self, "_e2e_pid", pid)

    def __call__(self, *args, **kwargs):
        return HOST.ask("call", [self, list(args), kwargs])

    def __getattr__(self, name):
        if name.startswith("_") and name not in ("__name__", "__qualname__"):
            raise AttributeError(name)
        return HOST.ask("getattr", [self, name])

    def __setattr__(self, name, value) -> None:
        if name.startswith("_"):
            raise AttributeError(name)
        HOST.ask("setattr", [self, name, value])

    def __iter__(self):
        return HOST.ask("iter", [self])

    def __next__(self):
        return HOST.ask("next", [self])

    def __repr__(self) -> str:
        return HOST.ask("repr", [self])


for _name in ("len", "bool", "str", "hash"):
    setattr(Callback, f"__{_name}__", lambda self, _op=_name: HOST.ask(_op, [self]))
for _name in ("getitem", "contains", "eq"):
    setattr(Callback, f"__{_name}__", lambda self, key, _op=_name: HOST.ask(_op, [self, key]))
Callback.__setitem__ = lambda self, key, value: HOST.ask("setitem", [self, key, value])


def _fed(source: Callback):
    """A generator of this process that yields what the test's generator ``source`` does."""
    while True:
        try:
            item = HOST.ask("next", [source])
        except StopIteration:
            return
        yield item


def _callback_error(message: dict) -> BaseException:
    """What the test's object raised, as the builtin exception of its name when there is one
    (``hasattr`` of a test's object needs its AttributeError), else a RuntimeError."""
    name, text = str(message.get("type", "")), str(message.get("exc", ""))
    module = str(message.get("module", "builtins"))
    kind = None
    if module.partition(".")[0] in sys.stdlib_module_names and "<" not in name:
        kind = importlib.import_module(module)  # the standard library's: the suite named it
        for part in name.split("."):
            kind = getattr(kind, part, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(text)
        except Exception:  # a class whose constructor wants more than a message
            pass
    return RuntimeError(f"the test's callback raised: {name}: {text}")


MAX_LOG_RECORDS = 1000  # relayed with one message; beyond, one record says how many were not
MAX_LOG_TEXT = 64 << 10


class _LogRelay(logging.Handler):
    """On the project's root logger: each record it logs, as data for the suite's process,
    whose loggers handle it again (``caplog``, ``assertLogs`` see what the project logged)."""

    def __init__(self, host: Host) -> None:
        super().__init__(logging.NOTSET)
        self.host = host

    def emit(self, record: logging.LogRecord) -> None:
        found = self.host.logs
        if len(found) > MAX_LOG_RECORDS:
            return
        try:
            text = record.getMessage()
        except Exception as exc:  # noqa: BLE001 - a project's format that does not fit its args
            text = f"<the record's message could not be formatted: {type(exc).__name__}>"
        if len(found) == MAX_LOG_RECORDS:
            text, record = f"(more than {MAX_LOG_RECORDS} records: the rest not relayed)", None
        found.append(_log_entry(record, text))


def _log_entry(record: logging.LogRecord | None, text: str) -> dict:
    if record is None:
        return {"n": "e2ebench", "l": logging.WARNING, "m": text}
    entry = {"n": str(record.name)[:200], "l": int(record.levelno), "m": text[:MAX_LOG_TEXT]}
    entry.update(f=str(record.funcName)[:200], p=str(record.pathname)[:1000], no=record.lineno)
    entry["t"] = float(record.created)
    if record.exc_info and not record.exc_text:
        with contextlib.suppress(Exception):
            record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        entry["x"] = str(record.exc_text)[:MAX_LOG_TEXT]
    return entry


class Host:
    """The handle table and the request loop."""

    def __init__(self, channel: wire.Channel) -> None:
        self.channel = channel
        self.objects: dict[int, object] = {}
        self.numbers: dict[int, int] = {}
        self.next_id = 0
        self.out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
        self.err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
        self.stdin: io.StringIO | None = None
        self.busy = False  # answering a request (an interrupt is for it)
        # what the suite sent with its origin, by id: (the copy here, the suite's number)
        self.origins: dict[int, tuple[object, int]] = {}
        # one conversation at a time: the channel is a single exchange of frames, so a thread
        # of the project's that calls back into the test holds this from its request to its
        # answer, and the loop holds it to read a request and to send a reply (two threads
        # calling back at once interleaved their frames: "not JSON: Extra data")
        self.turn = threading.RLock()
        self.logs: list[dict] = []  # records the project logged since the last message
        self.warned: list[list] = []  # warnings it issued since (issued again by the suite)
        self.warned_in_test = 0
        self.live = wire.Live()  # containers of project objects the suite holds copies of
        self.relay = _LogRelay(self)

    # --- values -------------------------------------------------------------------------
    def ref(self, obj) -> dict:
        if type(obj) is Callback:
            return {"p": obj._e2e_pid}
        if isinstance(obj, type) and getattr(builtins, obj.__name__, None) is obj:
            return {"bt": obj.__name__}
        hid = self.numbers.get(id(obj))
        if hid is None:
            self.next_id += 1
            hid = self.next_id
            self.objects[hid], self.numbers[id(obj)] = obj, hid
        if isinstance(obj, type) and issubclass(obj, BaseException):
            bases = [self.ref(b) for b in obj.__bases__]
            names = [str(getattr(obj, a, "?")) for a in ("__name__", "__qualname__", "__module__")]
            return {"h": [hid, "x", *names, bases]}
        if isinstance(obj, BaseException):
            return {"h": [hid, "e", self.ref(type(obj)), _message(obj), self.encode(obj.args)]}
        # a module of a subclass of its own is a module too (cryptography's deprecating ones)
        kind = "m" if isinstance(obj, type(sys)) else "c" if isinstance(obj, type) else "o"
        return {"h": [hid, kind]}

    def encode(self, value, *, own: bool = True):
        """``value`` for the suite; an object the suite sent goes back as the suite's own
        (unless ``own`` is false: what a mutable argument holds after a call)."""
        try:
            return wire.encode(value, self.ref, known=self.known if own else None)
        except wire.WireError:
            return self.ref(value)

    def known(self, value) -> dict | None:
        found = self.origins.get(id(value))
        return {"p": found[1]} if found is not None and found[0] is value else None

    def seen(self, value, number: int) -> None:
        self.origins[id(value)] = (value, number)

    def value(self, tag: str, payload):
        if tag == "h":
            return self.objects[int(payload)]
        if tag == "p":
            return Callback(int(payload))
        if tag == "g":  # a test's generator: one here too, fed by it
            return _fed(Callback(int(payload)))
        if tag == "bt":
            found = getattr(builtins, str(payload), None)
            if isinstance(found, type):
                return found
        if tag == "sio":
            buf = io.StringIO(str(payload[0]))
            buf.seek(int(payload[1]))
            return buf
        if tag == "bio":
            buf = io.BytesIO(wire.decode({"b": payload[0]}, self.value))
            buf.seek(int(payload[1]))
            return buf
        if tag == "rf":
            data = wire.decode(payload[0], self.value)
            buf = io.StringIO(data) if isinstance(data, str) else io.BytesIO(data)
            buf.name = payload[1]
            return buf
        raise wire.WireError(f"an unknown reference {tag!r}")

    def decode(self, data):
        return wire.decode(data, self.value, seen=self.seen)

    # --- the loop -----------------------------------------------------------------------
    def serve(self) -> None:
        """Answer requests until the suite's process closes the channel."""
        while True:
            try:
                with self.turn:
                    message = self.channel.receive()
            except wire.WireError:
                return
            except KeyboardInterrupt:  # an interrupt that came when the request had ended
                continue
            if message.get("op") == "bye":
                return
            self.busy = True
            try:
                reply = self.reply(message)
            except KeyboardInterrupt:  # came after the project's code had returned
                reply = {"re": message.get("id"), "exc": self.ref(RuntimeError("interrupted"))}
            self.busy = False  # no interrupt in the middle of a frame
            with self.turn:
                self.channel.send(reply)

    def interrupted(self, fd: int) -> None:
        """On each byte of ``fd`` (the test timed out), interrupt the request being answered:
        the project's code raises KeyboardInterrupt, and the suite's next request goes on. A
        real signal, not ``_thread.interrupt_main()``: that only sets a flag checked once a
        blocking call returns, so a project's ``time.sleep(3600)`` (a lock's wait, a read) went
        on and every later test of the suite timed out too."""
        main = threading.main_thread().ident
        while os.read(fd, 1):
            if self.busy:
                signal.pthread_kill(main, signal.SIGINT)

    def ask(self, op: str, args: list):
        """A request of this side's (a callback called): the answer, serving the suite's
        requests made meanwhile (one thread at a time: :attr:`turn`)."""
        with self.turn:
            self.next_id += 1
            number = -self.next_id
            self.channel.send({"op": op, "id": number, "a": self.encode(args), **self.drained()})
            while True:
                message = self.channel.receive()
                if message.get("re") == number:
                    if "stop" in message:
                        raise StopIteration
                    if "exc" in message:
                        raise _callback_error(message)
                    return self.decode(message["ok"])
                self.answer(message)

    def answer(self, message: dict) -> None:
        self.channel.send(self.reply(message))

    def reply(self, message: dict) -> dict:
        number = message.get("id")
        try:
            self.released(message.get("rel", ()))
            if message.get("fg"):  # a test ended: the suite forgot what it had sent
                self.origins.clear()
                self.live.clear()
                self.warned_in_test = 0
            self.state(message.get("st"))
            self.live.apply(message.get("sy"), self.decode, self.encode)
            reply = {"re": number, **self.do(str(message.get("op")), message.get("a"))}
            changed = self.live.changes(self.encode)
            if changed:
                reply["lb"] = changed
        except wire.WireError as exc:
            reply = {"re": number, "exc": self.ref(RuntimeError(str(exc)))}
        except BaseException as exc:  # the project's exception: the suite raises its mirror
            if isinstance(exc, _SILENT_EXCEPTIONS):
                exc = RuntimeError(f"{type(exc).__name__} raised by the project: {exc}")
            reply = {"re": number, "exc": self.ref(exc)}
        reply.update(self.drained())
        return reply

    def do(self, op: str, data) -> dict:
        args = self.decode(data)
        if op == "import":
            return {"ok": self.ref(importlib.import_module(str(args[0])))}
        if op == "call":
            return self.call(*args)
        if op == "getattr" and len(args) == 2:
            return self.attribute(*args)
        if op == "exit":
            obj, kind, value = args
            return {"ok": self.encode(type(obj).__exit__(obj, kind, value, None))}
        if op in VARIADIC:
            return {"ok": self.encode(VARIADIC[op](*args))}
        for table, size in ((UNARY, 1), (BINARY, 2), (TERNARY, 3)):
            if op in table:
                if len(args) != size:
                    raise wire.WireError(f"{op} takes {size} operand(s)")
                return {"ok": self.encode(table[op](*args))}
        raise wire.WireError(f"an unknown operation {op!r}")

    def attribute(self, obj, name) -> dict:
        """``obj.name`` for the suite. A list, dict or set stays the project's: a module's as a
        handle (a test that adds to it adds to what the project reads:
        ``inflection.UNCOUNTABLES.add``), any other object's as a copy kept in step both ways
        (:class:`e2ebench_wire.Live`; beyond its bounds, a copy only)."""
        found = getattr(obj, name)
        if type(found) in _MUTABLE[:3]:
            if type(obj) is type(sys):
                return {"ok": self.ref(found)}
            if self.live.add(id(found), found, self.encode):
                return {"ok": self.encode(found), "lv": id(found)}
        return {"ok": self.encode(found)}

    def call(self, target, args, kwargs) -> dict:
        result = target(*args, **kwargs)
        back = [[i, self.state_of(a)] for i, a in enumerate(args) if type(a) in _MUTABLE]
        back += [[k, self.state_of(v)] for k, v in kwargs.items() if type(v) in _MUTABLE]
        reply = {"ok": self.encode(result)}
        if back:
            reply["back"] = back
        if self.stdin is not None:
            reply["stdin"] = self.stdin.tell()
        return reply

    def state_of(self, value):
        """What a mutable argument holds after the call, sent back to the suite's original."""
        if type(value) is io.StringIO:
            return {"sio": [value.getvalue(), value.tell()]}
        if type(value) is io.BytesIO:
            return {"bio": [self.encode(value.getvalue())["b"], value.tell()]}
        # the container's own items: what came from the suite goes back as the suite's own
        if type(value) is list:
            return {"l": [self.encode(v) for v in value]}
        if type(value) is dict:
            return {"d": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if type(value) is set:
            return {"s": [self.encode(v) for v in value]}
        return self.encode(value, own=False)

    def released(self, numbers) -> None:
        for hid in numbers:
            obj = self.objects.pop(int(hid), None)
            if obj is not None:
                self.numbers.pop(id(obj), None)

    def state(self, state) -> None:
        """What the test changed of its process since the last request: the environment, the
        working directory, ``sys.argv``, what ``sys.stdin`` holds."""
        if not state:
            return
        for name, value in state.get("env", {}).items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = str(value)
        if state.get("cwd"):
            try:
                os.chdir(state["cwd"])
            except OSError:
                pass
        if "argv" in state:
            sys.argv[:] = [str(a) for a in state["argv"]]
        if "stdin" in state:
            text = state["stdin"]
            self.stdin = None if text is None else io.StringIO(str(text))
            sys.stdin = self.stdin if self.stdin is not None else io.StringIO("")
        if type(state.get("log")) is int:  # the suite's root level (caplog.set_level)
            logging.getLogger().setLevel(state["log"])

    def drained(self) -> dict:
        """What the project printed since the last message, to be printed by the suite."""
        found = {}
        for key, stream in (("out", self.out), ("err", self.err)):
            buffer = stream.buffer
            if buffer.tell():
                found[key] = buffer.getvalue().decode("utf-8", "replace")
                buffer.seek(0)
                buffer.truncate()
        if self.logs:
            found["log"], self.logs = self.logs, []
        if self.warned:
            found["warn"], self.warned = self.warned, []
        root = logging.getLogger()
        if self.relay not in root.handlers:  # (again after a project's dictConfig)
            root.addHandler(self.relay)
        return found


MAX_WARNINGS = 200  # relayed with one message; beyond, the rest are not
# relayed in one test, and the text of each: the suite's process keeps every warning for
# pytest's summary, so a project issuing them without end must not fill its memory
MAX_TEST_WARNINGS = 1000
MAX_WARNING_TEXT = 4 << 10


def _warning_relay(host: Host):
    """``warnings.showwarning`` of this process: each warning the project issues, as data for
    the suite's process, which issues it again under its own filters (``pytest.warns``,
    ``filterwarnings``, ``-W error``); here every warning is shown (``always``)."""

    def shown(message, category, filename, lineno, file=None, line=None) -> None:
        if len(host.warned) < MAX_WARNINGS and host.warned_in_test < MAX_TEST_WARNINGS:
            host.warned_in_test += 1
            kind = category if isinstance(category, type) else UserWarning
            text = str(message)[:MAX_WARNING_TEXT]
            host.warned.append([host.ref(kind), text, str(filename)[:1000], int(lineno or 0)])

    return shown


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception as err:  # a project's __str__ that raises
        return f"<str() of the exception raised {type(err).__name__}>"


HOST: Host


def main(argv: list[str]) -> None:
    """``e2ebench_host RFD WFD STOP``: serve the suite's process over the first two
    descriptors; a byte on the third interrupts the request being answered."""
    global HOST
    rfd, wfd, stop = (int(a) for a in argv[:3])
    for fd in (rfd, wfd, stop):
        os.set_inheritable(fd, False)  # the project's own subprocesses never hold the channel
    HOST = Host(wire.Channel(rfd, wfd))
    threading.Thread(target=HOST.interrupted, args=(stop,), daemon=True).start()
    sys.stdout, sys.stderr = HOST.out, HOST.err
    logging.getLogger().addHandler(HOST.relay)
    warnings.simplefilter("always")
    warnings.showwarning = _warning_relay(HOST)
    sys.stdin = io.StringIO("")
    # the suite's process gone: a write to the channel ends this one instead of raising
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # a test's timeout is a SIGINT (Host.interrupted), even where the harness's start left it
    # ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    HOST.serve()


if __name__ == "__main__":
    main(sys.argv[1:])
