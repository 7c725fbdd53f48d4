"""Record per-test outcomes and requirement tags as JSON lines (loaded with ``-p``).

One line per finished test, written and flushed as the run goes, so a run that is killed part
way still leaves the results it had. The harness passes a pipe (``E2EBENCH_PROBE_OUT_FD``) and
reads every line as it is written: what the project does later in the process (at exit, say)
can add lines, never take back or rewrite the ones the harness already has. Run by hand, the
probe writes to the file named by ``E2EBENCH_PROBE_OUT`` instead.

Before the project under test is imported, the probe also records the identity of what turns a
test into an outcome (pytest's runner, reports, test functions, assertion rewriting, pluggy's
hook calling, the hook implementations, and the probe's own signing) and checks it again at
collection end, at every report and at session end: a change is written as a ``tamper`` record
naming what changed (issue 11, class 7; the harness's cross-checks are in ``tamper.py``).
In the runs of the harness's Python suites it also checks that every test runs the code
compiled from the suite's files, and reports what the project's code does to the suite or the
harness through an audit hook (``e2ebench_guard.py``, issue 26).
"""

import gc
import hmac
import itertools
import json
import math
import os
import sys
import types
from operator import is_ as _is

import pytest
from e2ebench_guard import SuiteCode, install_audit_hook, seal

# The C functions themselves: what the project does to the hmac and json modules later (a
# test may well patch json.dumps) does not change what the probe writes and signs.
try:
    from _hashlib import hmac_digest as _hmac_digest
except ImportError:  # pragma: no cover - an interpreter without OpenSSL
    _hmac_digest = hmac.digest
try:
    from _json import encode_basestring_ascii as _quote
except ImportError:  # pragma: no cover - an interpreter without the C accelerator
    _quote = json.encoder.encode_basestring_ascii

_OUT = os.environ.get("E2EBENCH_PROBE_OUT", "")
_OUT_FD = os.environ.pop("E2EBENCH_PROBE_OUT_FD", "")
# The harness's test folder: its modules are compiled here, before the project is imported, and
# every test must run that code (issue 26, class 1).
_SUITE = SuiteCode(os.environ.pop("E2EBENCH_PROBE_SUITE", ""))


def _dumps(value) -> str:
    """JSON text of a record (keys sorted), as ``json.dumps`` writes it, without its module."""
    if isinstance(value, str):
        return _quote(value)
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    if isinstance(value, dict):
        items = sorted((str(k), v) for k, v in value.items())
        return "{" + ", ".join(f"{_quote(k)}: {_dumps(v)}" for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_dumps(v) for v in value) + "]"
    return _quote(str(value))


def _read_key() -> bytes:
    """The signing key, from the pipe the harness passed (read once, then closed)."""
    fd = os.environ.pop("E2EBENCH_PROBE_KEY_FD", "")
    if not fd.isdigit():
        return b""
    chunks = []
    try:
        while chunk := os.read(int(fd), 4096):
            chunks.append(chunk)
        os.close(int(fd))
    except OSError:
        return b""
    return b"".join(chunks)


# Every line is signed with a key the harness passes through a pipe, read here before the
# project under test is imported: lines the project appends to the file itself do not verify.
# The project can still reach this module and its key (sys.modules, or the config that pytest's
# assertion-rewriting hook in sys.meta_path holds, besides gc); the lines carry a
# sequence number, so lines it signs and adds collide with the probe's own (see
# docs/sandbox.md).
_KEY = _read_key()
_MESSAGE_LINES = 8
_MESSAGE_CHARS = 800
# "seq": one counter for the probe's lines and its audit hook's (a number taken and never
# written breaks the sequence, which the harness reports)
_state: dict = {"tags": {}, "phases": {}, "out": None, "reported": set(), "items": {}}
_state["seq"] = itertools.count()


# Records go out through a bare descriptor number and the os.write taken here: no file object
# whose methods a project could shadow with instance attributes (the number itself is watched).
_write = os.write


def _emit(record: dict) -> None:
    if _state["out"] is None:
        return
    body = _dumps({**record, "seq": next(_state["seq"])})
    mac = _hmac_digest(_KEY, body.encode(), "sha256").hex()
    data = (_dumps({"mac": mac, "body": body}) + "\n").encode()
    while data:
        data = data[_write(_state["out"], data) :]


def emit(record: dict) -> None:
    """Write ``record`` into the signed results: for the harness's own plugins in the run (the
    web plugin's browser and executability records)."""
    _emit(record)


# The harness's pipe, taken before any project code runs and kept from the processes the tests
# start. Run by hand: one file, created here (it must not exist before), so a process left over
# from a killed session cannot write into the results of the next one.
if _OUT_FD.isdigit():
    os.set_inheritable(int(_OUT_FD), False)
    _state["out"] = int(_OUT_FD)
    _emit({"kind": "start"})
elif _OUT:
    # appending: lines anything else adds stay in the file, as evidence
    _state["out"] = os.open(
        _OUT, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o644
    )
    _emit({"kind": "start"})


# --- what turns a test into an outcome, and whether it changed ------------------------------

# Names read from these modules' dictionaries (never through getattr, which could run code).
_WATCHED_NAMES = {
    "_pytest.runner": (
        "call_and_report runtestprotocol call_runtest_hook check_interactive_exception "
        "CallInfo TestReport SetupState collect_one_node pytest_runtest_protocol "
        "pytest_runtest_setup pytest_runtest_call pytest_runtest_teardown "
        "pytest_runtest_makereport pytest_make_collect_report"
    ),
    "_pytest.reports": "TestReport BaseReport CollectReport",
    "_pytest.python": "Function Module Class pytest_pyfunc_call",
    "_pytest.main": "Session pytest_runtestloop",
    "_pytest.nodes": "Node Item",
    "_pytest.skipping": (
        "pytest_runtest_setup pytest_runtest_call pytest_runtest_makereport "
        "evaluate_skip_marks evaluate_xfail_marks"
    ),
    "_pytest.outcomes": "fail skip xfail exit importorskip Failed Skipped XFailed Exit",
    "_pytest.assertion.rewrite": (
        "AssertionRewritingHook AssertionRewriter rewrite_asserts _rewrite_test _read_pyc"
    ),
    "pluggy._callers": "_multicall",
    "pluggy._hooks": "HookCaller HookImpl",
    "builtins": "compile exec",
}
# Classes whose every attribute is watched (a new one, e.g. a __setattr__, counts too).
_WATCHED_CLASSES = (
    "_pytest.runner.CallInfo",
    "_pytest.runner.SetupState",
    "_pytest.reports.BaseReport",
    "_pytest.reports.TestReport",
    "_pytest.python.Function",
    "_pytest.nodes.Node",
    "_pytest.nodes.Item",
    "_pytest.main.Session",
    "_pytest.assertion.rewrite.AssertionRewritingHook",
    "_pytest.assertion.rewrite.AssertionRewriter",
    "pluggy._hooks.HookCaller",
    "pluggy._hooks.HookImpl",
    "pluggy._manager.PluginManager",
)
# Hooks whose implementations make, change or record an outcome.
_WATCHED_HOOKS = (
    "pytest_runtestloop",
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_pyfunc_call",
    "pytest_collection_modifyitems",
    "pytest_collection_finish",
    "pytest_collectreport",
    "pytest_make_collect_report",
    "pytest_sessionfinish",
)
# Used only while pytest imports the test modules (all of them during collection).
# The guard's module-level values besides its functions (the hook itself reads none of them)
_GUARD_NAMES = ("_real", "_PATH_SLOT", "_CONSTANTS", "_WRAPPED_DEPTH")
_COLLECTION_ONLY = ("builtins.", "sys.meta_path", "_pytest.assertion.rewrite.")
_class_dict = type.__dict__["__dict__"].__get__  # the real one, whatever a metaclass says
_MISSING = object()
_HOOK_CALLER = vars(sys.modules["pluggy._hooks"]).get("HookCaller")
_HOOK_IMPL = vars(sys.modules["pluggy._hooks"]).get("HookImpl")


def _parts(value) -> tuple:
    """The objects that make ``value`` behave as it does, compared by identity later.

    Only exact types are inspected: reading attributes of anything else could run its code.
    """
    kind = type(value)
    if kind is classmethod or kind is staticmethod:
        return (value, *_parts(value.__func__))
    if kind is property:
        return (value, *_parts(value.fget), *_parts(value.fset))
    if kind is types.MethodType:
        return (value.__self__, *_parts(value.__func__))
    if kind is types.FunctionType:
        return (value, value.__code__, value.__defaults__, value.__kwdefaults__)
    return (value,)


def _holders(value) -> tuple:
    """``value`` and what it wraps, when :func:`_parts` reads their parts: a function's code
    and defaults, or what a wrapper holds (``property.__init__`` or ``classmethod.__init__``
    called again rebinds ``fget`` or ``__func__`` in place)."""
    kind = type(value)
    if kind is classmethod or kind is staticmethod or kind is types.MethodType:
        return (value, *_holders(value.__func__))
    if kind is property:
        return (value, *_holders(value.fget), *_holders(value.fset))
    if kind is types.FunctionType:
        return (value,)
    return ()


def _refs(holders: tuple) -> list:
    """The objects ``holders`` refer to, in order (their types' traversal: for a function its
    code, globals, defaults and the rest; for a wrapper its function)."""
    return gc.get_referents(*holders) if holders else []


def _pin_same(pin: tuple) -> bool:
    """One pin of :class:`_Watch` as it was (see :meth:`_Watch._pins_same`)."""
    (get, space, key, default, value), holders, referents = pin
    if get(space, key, default) is not value:
        return False
    now = _refs(holders)
    return len(now) == len(referents) and all(map(_is, now, referents))


def _settle(holders: tuple) -> None:
    """Make each function's annotations among ``holders`` a dictionary: Python keeps them in a
    compact form until they are first read (pluggy reads a hook's when it registers a plugin),
    which changes what the function refers to, not what it does."""
    for holder in holders:
        if type(holder) is types.FunctionType:
            holder.__annotations__  # noqa: B018 - read for its effect


def _hook_holders(caller) -> tuple | None:
    """The objects :meth:`_Watch._impls` reads the parts of, for a hook caller and its
    implementations as pluggy makes them (exact types, attributes in slots: ``gc`` sees every
    one); None for anything else, which is checked only by reading it."""
    if type(caller) is not _HOOK_CALLER or _HOOK_CALLER.__dictoffset__:
        return None
    impls = caller._hookimpls
    if type(impls) is not list or _HOOK_IMPL.__dictoffset__:
        return None
    holders: list = [caller, impls]
    for impl in list.copy(impls):
        if type(impl) is not _HOOK_IMPL:
            return None
        holders += [impl, *_holders(impl.function)]
    return tuple(holders)


def _keys(space) -> tuple:
    """A class's attribute names, less those pytest itself adds during a session."""
    return tuple(k for k in space if not _pytest_addition(space, k))


def _pytest_addition(space, name: str) -> bool:
    value = space[name]
    if name == "_pytest_diamond_inheritance_warning_shown":  # nodes.py, once warned
        return type(value) is bool
    if name in ("startdir", "fspath") and type(value) is property:  # legacypath.py
        return _code_file(value.fget).endswith(os.path.join("_pytest", "legacypath.py"))
    return False


def _meta_path(upto: int) -> tuple:
    if type(sys.meta_path) is not list:
        return (sys.meta_path,)
    return tuple(list.copy(sys.meta_path)[:upto])


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _code_file(function) -> str:
    while type(function) is types.MethodType:
        function = function.__func__
    if type(function) is types.FunctionType:
        return function.__code__.co_filename
    return ""


def _here(module) -> str:
    """The folder of a package (or of this probe and its siblings)."""
    file = str(vars(module).get("__file__") or "")
    return os.path.join(os.path.dirname(file), "") if file else "\0"


def _flatten(pins: list) -> tuple:
    """The pins of :class:`_Watch` as columns for :meth:`_Watch._pins_same`: one group per
    mapping type (``dict.get``, ``mappingproxy.get``), then every holder and the objects it
    referred to when pinned."""
    groups: dict = {}
    for (get, space, key, default, value), _, _ in pins:
        group = groups.setdefault(get, ([], [], [], []))
        for column, item in zip(group, (space, key, default, value), strict=True):
            column.append(item)
    return (
        tuple((get, *map(tuple, columns)) for get, columns in groups.items()),
        tuple(h for _, holders, _ in pins for h in holders),
        [r for _, _, referents in pins for r in referents],
    )


class _Watch:
    """A snapshot of the watched objects and the checks against it."""

    def __init__(self) -> None:
        self.getters: dict = {}
        self.before: dict = {}
        self.trusted: tuple[str, ...] = ()
        # the values read by name from a dictionary, each pinned with its functions' parts:
        # checked together in one pass before any getter is called (see changed)
        self.pins: dict = {}
        self._flat: tuple = ()
        # a watched class's attribute names, as they were: the same names (the same objects)
        # in the same order mean :func:`_keys` finds the same
        self.key_pins: dict = {}
        for modname, names in _WATCHED_NAMES.items():
            module = sys.modules.get(modname)
            if module is not None:
                space = vars(module)
                for name in names.split():
                    self._pin(f"{modname}.{name}", space, name, None)
        for dotted in _WATCHED_CLASSES:
            self._watch_class(dotted)
        guard = vars(sys.modules["e2ebench_guard"])
        for name, value in list(guard.items()):
            if type(value) is types.FunctionType or name in _GUARD_NAMES:
                self._pin(f"e2ebench_guard.{name}", guard, name, None)
        probe = vars(sys.modules[__name__])
        for name, value in list(probe.items()):
            if type(value) is types.FunctionType or name in (
                "_hmac_digest",
                "_is",
                "_quote",
                "_state",
                "_write",
            ):
                self._pin(f"e2ebench_probe.{name}", probe, name, None)
        # The assertion-rewriting import hook, and any finder put before it (which could load
        # the test modules without their assertions).
        rewriter = vars(sys.modules["_pytest.assertion.rewrite"]).get("AssertionRewritingHook")
        hook = next((h for h in sys.meta_path if type(h) is rewriter), None)
        if hook is not None:
            upto = sys.meta_path.index(hook) + 1
            self._add("sys.meta_path", lambda: _meta_path(upto))
        # Where hook implementations may come from: the test tools, this probe and its
        # siblings, and the folders the harness names (its tests and their conftest.py files).
        site = os.path.dirname(os.path.dirname(_here(sys.modules["_pytest"])))
        tools = ("_pytest/", "pytest/", "pluggy/", "pytest_timeout.py", "pytest_bdd/")
        self.tools = (
            *(os.path.join(site, *t.split("/")) for t in tools),
            _here(sys.modules[__name__]),
        )
        self.trusted = self.tools + tuple(
            os.path.join(p, "")
            for p in os.environ.pop("E2EBENCH_PROBE_TRUSTED", "").split(os.pathsep)
            if p
        )

    def _watch_class(self, dotted: str) -> None:
        """Watch the class ``dotted``: its attribute names and each attribute."""
        modname, _, clsname = dotted.rpartition(".")
        cls = vars(sys.modules.get(modname, types)).get(clsname)
        if not isinstance(cls, type):  # read before any project code: still pytest's own
            return
        space = _class_dict(cls)
        # (not "<class>.__dict__": a class with instance dictionaries has an attribute of that
        # name, whose watch below took this one's place, so new attributes went unseen)
        self._add(f"{dotted}: its attribute names", lambda: _keys(space))
        self.key_pins[f"{dotted}: its attribute names"] = (space, list(space))
        for name in space:
            self._pin(f"{dotted}.{name}", space, name, _MISSING)

    def _add(self, name: str, getter) -> None:
        self.getters[name] = getter
        self.before[name] = getter()

    def _pin(self, name: str, space, key: str, default) -> None:
        """Watch ``space[key]`` (``default`` when missing) and what :func:`_parts` reads of it.

        Besides its getter, the value is pinned with every object its holders (:func:`_holders`)
        refer to now, before any project code runs."""
        self._add(name, lambda: _parts(space.get(key, default)))
        self._hold(name, space, key, default, _holders(space.get(key, default)))

    def _hold(self, name: str, space, key: str, default, holders: tuple) -> None:
        """Pin ``space[key]`` and what ``holders`` refer to now, for :meth:`_pins_same`."""
        _settle(holders)
        value = space.get(key, default)
        self.pins[name] = ((type(space).get, space, key, default, value), holders, _refs(holders))
        self._flat = ()

    def _pins_same(self) -> bool:
        """Every pinned value still the same object, and everything its holders refer to.

        In C, compared by identity (no ``__eq__`` of the project's runs): ``map`` over each
        mapping's ``get``, and one ``gc.get_referents`` over the holders, which sees a
        function's code and defaults, and a wrapper's function, without reading them as
        attributes (each such read is an audit event the guard's hook is called for: 669
        per report for the watched classes' and modules' functions alone). That is a superset
        of what :func:`_parts` reads, so True means no pinned getter could report a change; on
        False :meth:`changed` asks each one. At every report this replaces hundreds of calls
        of :func:`_parts`, most of a test's cost in a large suite (issue 27).
        """
        groups, holders, expected, _ = self._flattened()
        for get, spaces, keys, defaults, values in groups:
            if not all(map(_is, map(get, spaces, keys, defaults), values)):
                return False
        now = _refs(holders)
        return len(now) == len(expected) and all(map(_is, now, expected))

    def _flattened(self) -> tuple:
        if not self._flat:
            live = {name: pin for name, pin in self.pins.items() if name in self.getters}
            self._flat = (*_flatten(list(live.values())), frozenset(live))
        return self._flat

    def _unchanged(self) -> frozenset:
        """The names that the checks in C (:meth:`_pins_same`, and the classes' attribute
        names) find as they were: :meth:`changed` calls no getter of theirs."""
        live = self._flattened()[3]
        if self._pins_same():
            same = live
        else:  # the pins that differ: a getter each (one changed name costs no more)
            same = frozenset(name for name in live if _pin_same(self.pins[name]))
        keys = [
            name
            for name, (space, names) in self.key_pins.items()
            if len(space) == len(names) and all(map(_is, space, names))
        ]
        return same.union(keys) if keys else same

    def end_of_collection(self) -> None:
        """Stop watching what matters only while test modules are imported: compiling and the
        import hooks (a test may patch ``compile`` or ``sys.meta_path`` for its own purposes)."""
        for name in list(self.getters):
            if name.startswith(_COLLECTION_ONLY):
                del self.getters[name]
        self._flat = ()

    def changed(self) -> list[str]:
        """Names of the watched objects that are no longer what they were."""
        out = []
        try:
            same = self._unchanged()
        except Exception:  # a class's dictionary changed while read (a thread): ask each
            same = frozenset()
        for name, getter in self.getters.items():
            if name in same:
                continue
            try:
                now = getter()
            except Exception:  # a watched object that cannot even be read has changed
                now = (_MISSING,)
            if not _same(now, self.before[name]):
                out.append(name)
        return out

    def watch_hooks(self, config) -> list[str]:
        """Add the watched hooks' callers and implementations; untrusted ones now."""
        pm = config.pluginmanager
        self._add("pluginmanager._inner_hookexec", lambda: _parts(pm._inner_hookexec))
        relay = vars(pm.hook)
        for name in _WATCHED_HOOKS:
            caller = relay.get(name)
            if caller is None:
                continue
            self._add(f"hook {name}", lambda n=name: self._impls(relay.get(n)))
            holders = _hook_holders(caller)
            if holders is not None:
                self._hold(f"hook {name}", relay, name, None, holders)
        return self.untrusted(config)

    @staticmethod
    def _impls(caller) -> tuple:
        if type(caller) is not _HOOK_CALLER:
            return (caller,)
        parts: list = [caller, caller._hookexec, type(caller._hookimpls)]
        for impl in list.copy(caller._hookimpls):
            if type(impl) is not _HOOK_IMPL:
                parts.append(impl)
                continue
            parts += [impl, impl.plugin, impl.wrapper, impl.hookwrapper, *_parts(impl.function)]
        return tuple(parts)

    def untrusted(self, config) -> list[str]:
        """Hook implementations (of any hook) whose code lies outside the trusted folders."""
        try:
            return self._untrusted(config)
        except Exception:  # what the harness's plugin manager holds cannot even be read
            return ["hook implementations: unreadable"]

    def _untrusted(self, config) -> list[str]:
        out = []
        for name, caller in dict(vars(config.pluginmanager.hook)).items():
            if type(caller) is not _HOOK_CALLER:
                out.append(f"hook {name}: replaced")
                continue
            for impl in list.copy(caller._hookimpls):
                file = _code_file(impl.function) if type(impl) is _HOOK_IMPL else ""
                if not file.startswith(self.trusted):
                    who = impl.plugin_name if type(impl) is _HOOK_IMPL else "?"
                    out.append(f"hook {name}: {who} ({file or 'not Python'})")
        return out


_WATCH = _Watch()
_WATCH._add("e2ebench_probe._WATCH", lambda: _parts(vars(sys.modules[__name__]).get("_WATCH")))
_WATCH._add("e2ebench_probe._state['out']", lambda: (_state.get("out"),))
_WATCH._add("e2ebench_probe._state['seq']", lambda: (_state.get("seq"),))
_WATCH._add("e2ebench_probe._SUITE", lambda: (vars(sys.modules[__name__]).get("_SUITE"),))
if _SUITE.folder:
    # first of the hooks the project could meet: it cannot be removed, and what it sees is
    # written before the code that raised the event runs on
    # The hook writes through a sealed copy of _emit (its descriptor, counter, key and helpers
    # its own): rebinding this module's names cannot silence it, even for a moment.
    writer = {"out": _state["out"], "seq": _state["seq"]}
    # An agent's written tests run against the reference (the test stages): the code under
    # test is the harness's and the tests are the project's (issue 26, class 6).
    _UNDER = tuple(filter(None, os.environ.pop("E2EBENCH_PROBE_UNDER_TEST", "").split(os.pathsep)))
    install_audit_hook(
        _SUITE,
        _WATCH.tools if _UNDER else _WATCH.trusted,
        seal(globals(), "_emit", {"_state": writer}),
        under_test=_UNDER,
    )
    del writer
    _GUARD = vars(sys.modules["e2ebench_guard"])
    for _name in ("_TOOLS", "_IMPERSONATED"):  # set by install_audit_hook, read-only objects
        _WATCH._add(f"e2ebench_guard.{_name}", lambda n=_name: (_GUARD.get(n),))


def _check_code(when: str, nodeids) -> None:
    """A ``tamper`` record for tests that do not run the code compiled from the suite."""
    items = _state["items"]
    found = [_SUITE.check(n, items[n]) for n in nodeids if n in items]
    new = [f for f in found if f and f not in _state["reported"]]
    if new:
        _state["reported"].update(new)
        _emit({"kind": "tamper", "when": when, "changed": new[:50]})


def _check(when: str, config=None) -> None:
    """Write a ``tamper`` record for what changed since the snapshot (each thing once)."""
    found = _WATCH.changed()
    if config is not None:
        found += _WATCH.untrusted(config)
    new = [f for f in found if f not in _state["reported"]]
    if new:
        _state["reported"].update(new)
        _emit({"kind": "tamper", "when": when, "changed": new[:50]})


def _message(report) -> str:
    """The error lines ('E   ...') of a failure, else its last line; kept short."""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    if not lines:
        lines = [ln for ln in text.strip().splitlines()[-2:]]
    return "\n".join(lines[:_MESSAGE_LINES])[:_MESSAGE_CHARS]


def pytest_configure(config):
    config.addinivalue_line("markers", "requirement(*ids): requirements this test checks")


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    # Every plugin is registered by now (the session and fixture manager last); the tests,
    # and with them the project, are imported during collection, after this.
    found = _WATCH.watch_hooks(session.config)
    if found:
        _state["reported"].update(found)
        _emit({"kind": "tamper", "when": "session start", "changed": found[:50]})


def pytest_collection_modifyitems(items):
    for item in items:
        ids = []
        for mark in item.iter_markers("requirement"):
            ids.extend(str(a) for a in mark.args)
        _state["tags"][item.nodeid] = ids


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    _check("collection", session.config)
    if _SUITE.folder:
        _state["items"] = {item.nodeid: item for item in session.items}
        _check_code("collection", list(_state["items"]))
    _WATCH.end_of_collection()
    # What the harness compares the reported tests with.
    _emit({"kind": "collected", "nodeids": [item.nodeid for item in session.items]})


def pytest_collectreport(report):
    if report.failed:
        _emit({"kind": "collect_error", "nodeid": report.nodeid, "message": _message(report)})


def pytest_runtest_logreport(report):
    _check(f"{report.when} of {report.nodeid}")
    _check_code(f"{report.when} of {report.nodeid}", (report.nodeid,))
    phases = _state["phases"].setdefault(report.nodeid, {})
    phases[report.when] = report
    if report.when != "teardown":
        return
    setup, call, teardown = phases.get("setup"), phases.get("call"), report
    wasxfail = hasattr(call, "wasxfail") or hasattr(setup, "wasxfail")
    if setup is not None and setup.failed:
        outcome, source = "error", setup
    elif setup is not None and setup.skipped:
        outcome, source = "skipped", setup
    elif call is not None and call.failed:
        outcome, source = "failed", call
    elif call is not None and call.skipped:
        outcome, source = ("skipped" if not wasxfail else "xfailed"), call
    elif teardown.failed:
        outcome, source = "error", teardown
    else:
        outcome, source = ("passed" if not wasxfail else "xpassed"), call
    _emit(
        {
            "kind": "test",
            "nodeid": report.nodeid,
            "outcome": outcome,
            "when": getattr(source, "when", "call"),
            "message": ""
            if outcome in ("passed", "xpassed") or source is None
            else _message(source),
            "duration": sum(getattr(r, "duration", 0.0) for r in phases.values()),
            "requirements": _state["tags"].get(report.nodeid, []),
            # e.g. a failing web scenario's screenshot and browser console
            "properties": {
                str(k): str(v)[:2000] for k, v in getattr(source, "user_properties", ())
            },
        }
    )
    del _state["phases"][report.nodeid]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    _check("session end", session.config)
    _emit({"kind": "end", "exitstatus": int(exitstatus)})
    if _state["out"] is not None:
        os.close(_state["out"])
        _state["out"] = None


class _MissingMeta(type):
    """Any use of a missing name fails the test that uses it, saying which name."""

    def __call__(cls, *args, **kwargs):
        pytest.fail(f"missing: {cls.qualified}", pytrace=False)

    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        pytest.fail(f"missing: {cls.qualified}", pytrace=False)


def attr_or(obj, name, fallback):
    """``obj.name`` when the project has it, else ``fallback()`` (bound by test migration: a
    name the static index did not see may still exist at run time, and then it wins)."""
    try:
        return getattr(obj, name)
    except AttributeError:
        return fallback()


def missing(qualified):
    """A stand-in for a name the generated project lacks (bound by test migration).

    It is an exception class, so ``pytest.raises(Name)`` and ``except Name`` still parse;
    calling it or reading its attributes fails with ``missing: <name>``.
    """
    return _MissingMeta(qualified.rsplit(".", 1)[-1], (Exception,), {"qualified": qualified})
