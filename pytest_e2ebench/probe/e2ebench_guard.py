"""The test code a run must execute, and what project code may not do (issue 26, class 1).

Imported by ``e2ebench_probe`` when it is loaded, before the project under test is: only the
standard library and pytest, like the probe.

* :class:`SuiteCode` compiles every Python file of the harness's test folder from its bytes,
  as pytest's assertion rewriting does (and plainly, for modules pytest does not rewrite), and
  keeps a fingerprint of every function's code. :meth:`SuiteCode.check` then says whether a
  collected test runs that code: a test module replaced in ``sys.modules`` or a function whose
  ``__code__`` was swapped runs code the suite never had.
* :func:`install_audit_hook` adds a PEP 578 audit hook that reports, at once, what project code
  does that no honest library does under test (reading the suite's modules, compiling code that
  claims a suite file, walking the garbage collector, reaching the harness's frames, swapping a
  function's code, tracing, ``ctypes``). A hook cannot be removed, and its report is written
  before the code that raised the event gets control back. The hook installed is a sealed
  copy (:func:`seal`): nothing in this module's namespace is what it reads, so no write to
  the module (a dictionary write raises no audit event) switches it off.
"""

from __future__ import annotations

import _thread
import ast
import builtins
import hashlib
import os
import pathlib
import re
import sys
import sysconfig
import types

_MAX_BYTES = 2 << 20  # a test module bigger than this is not compiled (pytest would)
_MAX_FILES = 2000
_CONSTANTS = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))
_WRAPPED_DEPTH = 20
# pytest keeps a node's path in a slot (nodes.Node.__slots__)
_PATH_SLOT = vars(sys.modules["_pytest.nodes"].Node).get("path")


def _digest(code) -> str:
    """A fingerprint of what a code object does (bytecode, names, constants, nested code), or ""
    when it holds something a compiler never puts there (a project's object among its constants)."""
    h = hashlib.sha256()
    stack = [code]
    while stack:
        c = stack.pop()
        if type(c) is not types.CodeType:
            return ""
        head = (c.co_name, c.co_qualname, c.co_argcount, c.co_posonlyargcount)
        head += (c.co_kwonlyargcount, c.co_flags, c.co_names, c.co_varnames, c.co_freevars)
        h.update(repr((*head, c.co_cellvars)).encode())
        h.update(c.co_code)
        for const in c.co_consts:
            if type(const) is types.CodeType:
                h.update(b"<code>")
                stack.append(const)
            elif not _plain(const):
                return ""
            else:
                h.update(_constant_text(const).encode())
    return h.hexdigest()


def _plain(value) -> bool:
    if type(value) in _CONSTANTS:
        return True
    if type(value) is tuple or type(value) is frozenset:
        return all(_plain(v) for v in value)
    return False


def _constant_text(value) -> str:
    """The constant's exact text: a frozenset's items sorted (their order is not the source's)."""
    if type(value) is frozenset:
        return "frozenset(" + ",".join(sorted(_constant_text(v) for v in value)) + ")"
    if type(value) is tuple:
        return "(" + ",".join(_constant_text(v) for v in value) + ")"
    return f"{type(value).__name__}:{value!r}"


def _functions(code) -> list:
    """Every function's code object compiled into a module's code."""
    found, stack = [], [code]
    while stack:
        c = stack.pop()
        for const in c.co_consts:
            if type(const) is types.CodeType:
                found.append(const)
                stack.append(const)
    return found


def _compiled(path: str, source: bytes) -> list:
    """The module's code as pytest would run it: assertions rewritten, or plainly (a helper
    module pytest does not rewrite, ``--assert=plain``). The harness's ini never turns on
    ``enable_assertion_pass_hook`` (not among testconf's settings), which would change it."""
    from _pytest.assertion.rewrite import rewrite_asserts

    tree = ast.parse(source, filename=path)
    rewrite_asserts(tree, source, path, None)
    plain = compile(source, path, "exec", dont_inherit=True)
    return [plain, compile(tree, path, "exec", dont_inherit=True)]


class SuiteCode:
    """Fingerprints of the code compiled from a test folder's Python files."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.join(os.path.realpath(folder), "") if folder else ""
        self.codes: dict[str, dict[str, set[str]]] = {}  # file -> qualname -> digests
        self.defined: dict[str, set[str]] = {}  # file -> names bound by def
        self.problems: list[str] = []
        if self.folder:
            self._load()

    def _load(self) -> None:
        files = []
        for root, dirs, names in os.walk(self.folder):  # links to folders are not followed
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".py")]
        for path in files[:_MAX_FILES]:
            try:
                if os.path.islink(path) or os.path.getsize(path) > _MAX_BYTES:
                    continue
                with open(path, "rb") as f:
                    source = f.read()
                modules = _compiled(path, source)
            except (OSError, SyntaxError, ValueError) as exc:
                # pytest reports the module as a collection error itself
                self.problems.append(f"{path}: {type(exc).__name__}")
                continue
            table: dict[str, set[str]] = {}
            for module in modules:
                for code in _functions(module):
                    table.setdefault(code.co_qualname, set()).add(_digest(code))
            self.codes[path] = table
            self.defined[path] = {q.rpartition(".")[2] for q in table}

    def check(self, nodeid: str, item) -> str:
        """Empty when the test ``item`` runs the suite's code for it, else what is wrong."""
        path = _node_path(item)
        file = _resolved(str(path), self.codes) if path is not None else ""
        if file not in self.codes:
            return ""  # not a Python test of the suite (e.g. a doctest of a text file)
        space = vars(item)
        if space.get("_obj") is None:
            # not fetched yet (pytest fetches it, and the next check sees it), or let go: a
            # unittest item's teardown sets it to None after the test ran (checked then)
            return ""
        code, where = _test_code(space["_obj"], self.codes)
        if code is not None and _IMPERSONATED.get(id(code)) is code:
            return ""  # a test tool's wrapper under the test's name (hypothesis's @given)
        if code is None:
            return f"{nodeid}: runs code not compiled from the suite ({where})"
        name = nodeid.rpartition("::")[2].partition("[")[0]
        source = _resolved(code.co_filename, self.codes)
        if name in self.defined[file] and (code.co_name, source) != (name, file):
            return f"{nodeid}: runs the suite's {code.co_qualname}, not its own {name}"
        table = self.codes[source]
        if _digest(code) not in table.get(code.co_qualname, ()):
            return f"{nodeid}: its code is not what the suite's file compiles to"
        return ""


# A test tool's code under a suite file's name, id -> code: a read-only view of the dictionary
# only the installed hook writes (install_audit_hook); no cache of paths or digests either,
# since a project could write one (each check computes again: a few microseconds per report)
_IMPERSONATED = types.MappingProxyType({})
_TOOL_MADE: dict = {}  # a placeholder: the installed hook writes its private copy
_real = os.path.realpath


def _resolved(path: str, codes: dict) -> str:
    """``path`` with its links resolved. One of the suite's files is returned as it is: their
    paths were resolved when loaded, below folders the sandbox gives the project read-only, so
    no link can have come into them since. Resolving costs an ``lstat`` per folder of the path,
    at each of a test's three reports (issue 27)."""
    if type(path) is str and path in codes:
        return path
    return _real(path)


def _node_path(item):
    """The node's ``path`` slot, read with pytest's own descriptor (taken before the project)."""
    if type(_PATH_SLOT) is types.MemberDescriptorType:
        return _PATH_SLOT.__get__(item)
    return vars(item).get("path")


def _test_code(obj, codes: dict):
    """(code object, "") of the suite function behind a test object, or (None, why)."""
    for _ in range(_WRAPPED_DEPTH):
        if type(obj) is types.MethodType:
            obj = obj.__func__
        if type(obj) is not types.FunctionType:
            return None, f"a {type(obj).__name__}, not a function"
        code = obj.__code__
        if _resolved(code.co_filename, codes) in codes:
            return code, ""
        # a test tool's wrapper (functools.wraps): the suite's function is behind it; a
        # wrapper of the project's could run anything in front of the one it names
        if not code.co_filename.startswith(_TOOLS):
            return None, code.co_filename
        obj = vars(obj).get("__wrapped__")
        if obj is None:
            return None, code.co_filename
    return None, "wrapped too deep"


# --- the audit hook -------------------------------------------------------------------------

_TEST_DEF = re.compile(rb"\bdef\s+test|\bclass\s+Test")
_FORBIDDEN = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys._current_frames",
        "sys.settrace",
        "sys.setprofile",
        "marshal.loads",
        "marshal.load",
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.addressof",
        "ctypes.cdata",
        "ctypes.cdata/buffer",
        "ctypes.PyObj_FromPtr",
        "ctypes.string_at",
        "ctypes.wstring_at",
        "ctypes.call_function",
    }
)
_EVENTS = _FORBIDDEN | {
    "open",
    "compile",
    "exec",
    "sys._getframe",
    "object.__setattr__",
    "object.__getattr__",
    "os.system",
    "subprocess.Popen",
    "os.posix_spawn",
    "os.exec",
}
_FUNCTION_FIELDS = ("__code__", "__defaults__", "__kwdefaults__")
_DISPLAY = (os.sep + "linecache.py",)
# importlib's frames that open a module's source or byte-code to import it
_IMPORTING = frozenset({"_find_and_load_unlocked", "_load_unlocked", "_exec", "_load"})
_LIMIT = 20  # audit records per run: the first ones are the evidence
# The test tools' and the interpreter's folders, set once by install_audit_hook (read by
# SuiteCode.check; the hook itself reads its own sealed copy)
_TOOLS: tuple = ()
# What the hook reads, in its sealed namespace only (see seal); these are the module's
# placeholders, never read by the hook once installed.
_CONFIG: dict = {"emit": None, "suite": (), "trusted": (), "stdlib": (), "written": ()}
_SEEN: set = set()
_BUSY: set = set()
_getframe = sys._getframe
_realpath = os.path.realpath
_thread_id = _thread.get_ident


def seal(space: dict, entry: str, private: dict):
    """A copy of the function ``space[entry]`` that reads its globals (and builtins) from a
    private copy of ``space`` updated with ``private``: every function of the module there is
    a copy bound to that namespace, and ``entry``'s copy gets a code object of its own.

    Why: what the hook reads through its module (its switches, its folders, its writer, the
    functions it calls, even ``type`` from builtins) a project can rebind with a plain
    dictionary write, which raises no audit event, and put back before the next check. The
    private namespace is reachable only from the returned function, which the caller keeps
    nowhere the project can read; reaching it takes ``gc`` or frames (audited, docs/sandbox.md).
    """
    own = dict(space)
    own["__builtins__"] = dict(vars(builtins))
    own.update(private)
    module = space["__name__"]
    for name, value in space.items():
        if type(value) is types.FunctionType and value.__module__ == module:
            code = value.__code__.replace() if name == entry else value.__code__
            own[name] = types.FunctionType(code, own, name, value.__defaults__, value.__closure__)
    return own[entry]


def install_audit_hook(
    suite: SuiteCode, trusted: tuple[str, ...], emit, under_test: tuple[str, ...] = ()
) -> None:
    """Report what project code does to the suite or the harness, as it happens, with ``emit``
    (the probe's signed writer). ``trusted``: folders of the test tools and the harness's own
    code besides the interpreter's; every other file (the project's, or none: code compiled at
    run time) is the project's. ``under_test``: the folders of the code under test when the
    tests are the project's (an agent's tests run against the reference): that code is the
    harness's, and its files are guarded as the suite's are (a test that reads them tests how
    the code is written, not what it does).

    The rule (docs/sandbox.md): an event counts when the innermost frame outside the standard
    library belongs to the project; what a standard library module does on the project's behalf
    (``dataclasses`` compiling an ``__init__``, ``logging`` looking at its caller) counts only
    where the event itself says harness (a suite file, a harness frame, a test's code).
    """
    paths = sysconfig.get_paths()
    stdlib = {paths["stdlib"], paths["platstdlib"]}
    stdlib = tuple(os.path.join(p, "") for s in stdlib for p in {s, _realpath(s)})
    tools = {paths["purelib"], paths["platlib"], *trusted}
    tools = tuple(os.path.join(p, "") for s in tools if s for p in {s, _realpath(s)})
    under = tuple(os.path.join(p, "") for s in under_test for p in {s, _realpath(s)})
    tools = (*tools, *under)
    config = {"emit": emit, "stdlib": (*stdlib, "<frozen "), "trusted": tools, "written": under}
    config["suite"] = under or ((suite.folder,) if suite.folder else ())
    global _TOOLS, _IMPERSONATED  # (the probe watches both names: rebinding is evidence)
    _TOOLS = (*tools, *config["stdlib"])
    impersonated: dict = {}
    _IMPERSONATED = types.MappingProxyType(impersonated)
    private = {"_CONFIG": config, "_SEEN": set(), "_BUSY": set(), "_TOOLS": _TOOLS}
    private["_IMPERSONATED"] = impersonated
    private["_TOOL_MADE"] = {}  # id -> code a test tool compiled from a string (never read here)
    sys.addaudithook(seal(globals(), "audit", private))


def audit(event, args) -> None:
    """The audit hook: cheap for every event it does not watch, never raises. Installed as a
    sealed copy (see seal): the names it reads here are its private ones."""
    if event not in _EVENTS:
        return
    if event == "object.__getattr__" and not (_CONFIG["written"] and args[1] == "__code__"):
        return  # only a written test's read of a tested function's code counts (_code_read)
    me = _thread_id()
    if me in _BUSY:  # its own sys._getframe, and what _emit does, raise events too
        return
    _BUSY.add(me)  # per thread: another thread's events are still seen meanwhile
    try:
        caller = _getframe(1)
        who = _project_frame(caller, event)
        if who is None and event in _TOOL_EVENTS and _harness_stack(caller):
            if event == "exec":
                _note_tool_code(args[0])
            else:
                _note_impersonation(*args[:3])
        found = "" if who is None else _judge(event, args, who is caller)
        if found:
            _report(event, found, who)
    except Exception:  # an audit hook that raises would break the operation itself
        pass
    finally:
        _BUSY.discard(me)


def _project_frame(frame, event: str = ""):
    """The innermost frame outside the standard library, when it is the project's, else None.

    A file read through ``linecache`` is source shown in a traceback or by ``inspect`` (a
    project's ``logging.exception`` reads the test's file that way): no evidence.
    """
    stdlib, trusted, written = _CONFIG["stdlib"], _CONFIG["trusted"], _CONFIG["written"]
    while frame is not None:
        file = frame.f_code.co_filename
        if file.startswith(trusted):  # first: a tool may live below the stdlib's folder
            return None
        if not file.startswith(stdlib):
            return frame
        if written and frame.f_code.co_name in _IMPORTING and file.startswith("<frozen "):
            return None  # importing the code under test (reading, compiling, running it)
        if event == "open" and not written and file.endswith(_DISPLAY):
            return None
        frame = frame.f_back
    return None


def _judge(event: str, args: tuple, direct: bool) -> str:
    """What the event, raised on the project's behalf, shows it doing, or "". ``direct``: the
    project called the audited function itself (not through the standard library)."""
    if event in _FORBIDDEN:
        return "" if event.startswith("marshal.") and not direct else event
    if event == "open":
        return f"read the suite's {args[0]}" if _suite_file(args[0], (".py", ".pyc")) else ""
    if event == "compile":
        return _compiling(args, direct)
    if event == "exec":
        return _executing(args[0], direct)
    if event == "sys._getframe":
        frame = args[0]
        file = frame.f_code.co_filename if type(frame) is types.FrameType else ""
        return f"took the harness's frame in {file}" if file.startswith(_CONFIG["trusted"]) else ""
    if event == "object.__setattr__":
        return _function_change(args[0], args[1], direct)
    if event == "object.__getattr__":
        return _code_read(args[0], args[1], direct)
    text = _words(args)
    return f"started {event} on the suite" if any(s in text for s in _CONFIG["suite"]) else ""


def _words(args: tuple) -> str:
    """The strings among ``args`` and in their lists, joined. Only exact ``str``, ``bytes``
    and pathlib paths are read: ``str()`` of anything else (a list's items) would run the
    project's ``__repr__`` inside the hook, where every event it raises is ignored."""
    items = [x for a in args for x in (a if type(a) in (list, tuple) else (a,))]
    return " ".join(
        os.fsdecode(x) if type(x) is bytes else str(x) for x in items if type(x) in _WORDS
    )


_WORDS = (str, bytes, pathlib.PurePosixPath, pathlib.PosixPath)


_TOOL_EVENTS = frozenset({"object.__setattr__", "exec"})
_MAX_TOOL_MADE = 100_000  # functions a tool compiled from strings that the hook remembers


def _harness_stack(frame) -> bool:
    """Whether no frame of the whole stack is the project's: a test tool acting for the suite
    (``@given`` applied as a test module is imported), not called by project code."""
    stdlib, trusted, suite = _CONFIG["stdlib"], _CONFIG["trusted"], _CONFIG["suite"]
    while frame is not None:
        file = frame.f_code.co_filename
        if not file.startswith((*trusted, *stdlib)) and not _realpath(file).startswith(suite):
            return False
        frame = frame.f_back
    return True


def _note_tool_code(code) -> None:
    """Functions a test tool compiled from a string and ran (hypothesis's ``proxies`` makes its
    wrapper so, named ``<string>``): the tool's code, which it may then impersonate."""
    # only code compiled from a string (a file's code is judged by its path)
    if type(code) is not types.CodeType or not code.co_filename.startswith("<"):
        return
    if len(_TOOL_MADE) < _MAX_TOOL_MADE:
        for function in _functions(code):
            _TOOL_MADE[id(function)] = function


def _note_impersonation(obj, name: str, value) -> None:
    """A test tool giving its own wrapper the test's file name (hypothesis's ``impersonate``):
    the wrapper's new code is the tool's, and passes the suite check. The wrapper is the tool's
    when its code lies in the tool's files or the tool compiled it (:func:`_note_tool_code`)."""
    if name != "__code__" or type(obj) is not types.FunctionType:
        return
    code = obj.__code__
    made = _TOOL_MADE.get(id(code)) is code
    if type(value) is types.CodeType and (made or code.co_filename.startswith(_CONFIG["trusted"])):
        _IMPERSONATED[id(value)] = value


def _function_change(obj, name: str, direct: bool) -> str:
    """Swapping a function's code is never honest; changing its defaults is, for the project's
    own functions (``NamedTuple`` sets its ``__new__``'s defaults on the project's behalf)."""
    if type(obj) is not types.FunctionType or name not in _FUNCTION_FIELDS:
        return ""
    harness = obj.__code__.co_filename.startswith(_TOOLS)
    if name == "__code__" or direct and harness:
        return f"set {name} of function {obj.__qualname__}"
    return ""


def _code_read(obj, name, direct: bool) -> str:
    """A written test that reads a tested function's code object (to hash its bytecode, say)
    tests how the code is written. Only the project's own read counts: ``inspect.signature``
    reads ``__code__`` on an honest test's behalf."""
    if not _CONFIG["written"] or not direct or name != "__code__":
        return ""
    if type(obj) is not types.FunctionType:
        return ""
    if not _realpath(obj.__code__.co_filename).startswith(_CONFIG["written"]):
        return ""
    return f"read the code object of {obj.__qualname__}, under test"


def _compiling(args: tuple, direct: bool) -> str:
    source, filename = args[0], args[1] if len(args) > 1 else None
    if _suite_file(filename, (".py",)):
        return f"compiled code named as the suite's {filename}"
    if not direct:
        return ""
    named = filename if type(filename) is str else ""
    if named.startswith(_TOOLS):
        return f"compiled code named as the harness's {filename}"
    if issubclass(type(source), ast.AST):  # (C-level: a metaclass's __mro__ is never called)
        return "compiled a syntax tree"
    if type(source) in (str, bytes) and _TEST_DEF.search(os.fsencode(source)[:_MAX_BYTES]):
        return "compiled source that defines tests"
    return ""


def _executing(code, direct: bool) -> str:
    if type(code) is not types.CodeType:
        return ""
    if _suite_file(code.co_filename, (".py",)):
        return f"ran code named as the suite's {code.co_filename}"
    if direct and any(c.co_name.startswith(("test", "Test")) for c in _functions(code)):
        return "ran code that defines tests"
    return ""


def _absolute(path) -> str:
    if type(path) is bytes:
        path = os.fsdecode(path)
    elif type(path) is not str:
        path = os.fspath(path) if type(path).__module__ == "pathlib" else ""
    if not path:
        return ""
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))


def _suite_file(path, suffixes: tuple[str, ...]) -> bool:
    """Whether ``path`` names one of the suite's Python files (through links too)."""
    kind = type(path)
    if not _CONFIG["suite"] or kind not in (str, bytes) and kind.__module__ != "pathlib":
        return False
    path = _absolute(path)
    return path.endswith(suffixes) and _realpath(path).startswith(_CONFIG["suite"])


def _report(event: str, found: str, frame) -> None:
    key = (event, found)
    if key in _SEEN or len(_SEEN) >= _LIMIT:
        return
    _SEEN.add(key)
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    _CONFIG["emit"]({"kind": "tamper", "when": f"audit {event}", "changed": [f"{where}: {found}"]})
