"""The one bounded parser for agent-written and peer-published JSON, TOML and text.

Python's ``json`` and ``tomllib`` recurse once per level of nesting: a ``parameters.json``
of 200,000 ``[`` or a ``pyproject.toml`` 5,000 arrays deep raises ``RecursionError``, which
no caller expected, so the run ended as a harness error and left the mean (issue 26, class 3).
Here every such file is read without following a link (:func:`~pytest_e2ebench.isolation.intake.
read_beneath`), with a size bound, decoded as strict UTF-8, and its nesting depth is measured
by a linear scan *before* the library sees it. Whatever still goes wrong, whatever it is, is
raised as :class:`~pytest_e2ebench.errors.AgentFileError` naming the file and the problem:
the author's failure, for the caller to grade, never an exception of the harness.

Missing files are not errors here (``None``): whether a missing file is a failure is the
caller's to say.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import json
import re
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from ..errors import AgentFileError
from ..isolation.intake import MAX_FSTRING_FIELDS, crowded_fstring, read_beneath

MAX_BYTES = 1 << 20
# Deeper than any real configuration or answer (pyproject.toml files reach 4 or 5) and far
# below the interpreter's recursion limit (1000), whatever the caller's stack depth.
MAX_DEPTH = 64
# Of a Python syntax tree: what the harness's own walks of it (ast.NodeTransformer,
# ast.unparse: two to three frames a level) take well within Python's recursion limit.
MAX_TREE_DEPTH = 200
# Where a scan jumps to: the characters that open or close nesting, strings or comments.
_JSON_STOPS = re.compile(r'[\[\]{}"]')
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# ``.`` too: a dotted key (``a.b.c = 1``, ``[a.b.c]``) nests without brackets, and tomllib
# takes quadratic time in its length (20,000 parts, 40 KB: 32 s in the harness's process;
# a 1 MiB pyproject.toml, hours). So the dots of a key count as depth, before parsing.
_TOML_STOPS = re.compile(r"[\[\]{}\"'#.]")
_TOML_KEY_END = re.compile(r"[=,\n]")  # between two stops: the dots so far were no key's
_TOML_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# A multi-line string may end in up to two quotes more than its delimiter (``"""a"""""``
# is ``a""``): a scan that stopped at the first three would take the rest for an unterminated
# string and measure nothing after it.
_TOML_ML_BASIC = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""(?:""?)?', re.DOTALL)
_TOML_LITERAL_END = re.compile(r"['\n]")
# JSON's ``\\uXXXX`` escapes may name one half of a surrogate pair alone (``"\\ud800"``): ``json``
# keeps it in the string, valid UTF-8 bytes or not, and every later UTF-8 encode of that text
# raises (a test's message in the HTML report ended the session with UnicodeEncodeError).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def read_data(root: Path, rel: str, *, max_bytes: int = MAX_BYTES, where: str = "") -> bytes | None:
    """The bytes of the regular file ``root/rel`` (None when it does not exist).

    Raises AgentFileError for a link anywhere below ``root``, a non-regular file, a file larger
    than ``max_bytes``, or a path that is absolute or leaves ``root``.
    """
    where = where or str(rel)
    # ``root`` is the caller's folder (a run's repo, the dataset the user named): trusted, so
    # a link in its own path is resolved; below it nothing is followed
    root = Path(root).resolve()
    try:
        return read_beneath(root, rel, max_bytes)
    except FileNotFoundError:
        return None
    except OSError as exc:
        # O_NOFOLLOW gives ELOOP for a link, and ENOTDIR for a link opened as a folder (as
        # for a/b where a is a file, which is just a missing file)
        if exc.errno == errno.ENOTDIR and not _link_on_path(root, rel):
            return None
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise AgentFileError(
                where, "is or lies behind a symbolic link (links are not followed)"
            ) from None
        raise AgentFileError(where, f"cannot be read ({exc.strerror or exc})") from None
    except ValueError:
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts or not parts:
            raise AgentFileError(where, "not a relative path inside the folder") from None
        raise AgentFileError(where, f"is larger than {max_bytes} bytes") from None
    except Exception as exc:  # noqa: BLE001 - whatever it is, it is the file's doing
        raise AgentFileError(where, f"cannot be read ({type(exc).__name__})") from None


def _link_on_path(root: Path, rel: str) -> bool:
    """Whether a component of ``root/rel`` is a symbolic link (for the error message only)."""
    here = Path(root)
    for part in Path(rel).parts:
        here = here / part
        if here.is_symlink():
            return True
    return False


def read_text(root: Path, rel: str, *, max_bytes: int = MAX_BYTES, where: str = "") -> str | None:
    """:func:`read_data` decoded as strict UTF-8 (invalid UTF-8 is an AgentFileError)."""
    data = read_data(root, rel, max_bytes=max_bytes, where=where)
    return None if data is None else decode(data, where or str(rel))


def read_json(
    root: Path, rel: str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH, where: str = ""
) -> object | None:
    """The JSON value of ``root/rel`` (None when missing); every problem an AgentFileError."""
    text = read_text(root, rel, max_bytes=max_bytes, where=where)
    return None if text is None else loads_json(text, where or str(rel), max_depth=max_depth)


def read_toml(
    root: Path, rel: str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH, where: str = ""
) -> dict | None:
    """The TOML document of ``root/rel`` (None when missing); every problem an AgentFileError."""
    text = read_text(root, rel, max_bytes=max_bytes, where=where)
    return None if text is None else loads_toml(text, where or str(rel), max_depth=max_depth)


def decode(data: bytes, where: str) -> str:
    """``data`` as strict UTF-8; AgentFileError naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise AgentFileError(
            where, f"not valid UTF-8 (byte 0x{bad} at offset {exc.start})"
        ) from None


@contextlib.contextmanager
def _parsing(where: str, fmt: str, invalid: type[Exception]):
    """Whatever the parser raises inside becomes the text's AgentFileError (``invalid``: the
    parser's own error for bad syntax, named as not valid ``fmt``)."""
    try:
        yield
    except AgentFileError:
        raise  # a bound of the caller's, said already
    except invalid as exc:
        raise AgentFileError(where, f"not valid {fmt} ({_plain(exc)})") from None
    except (RecursionError, MemoryError) as exc:
        raise AgentFileError(where, f"cannot be parsed ({type(exc).__name__})") from None
    except Exception as exc:  # noqa: BLE001 - any parser failure is the text's
        raise AgentFileError(
            where, f"not valid {fmt} ({type(exc).__name__}: {_plain(exc)})"
        ) from None


def loads_json(
    text: str | bytes, where: str, *, max_depth: int = MAX_DEPTH, max_chars: int = 0
) -> object:
    """The JSON value of ``text`` (a file's content, a model's reply, a line from a pipe).

    ``max_chars`` (when > 0) bounds the text; the nesting depth is measured first. Raises
    AgentFileError for anything wrong, whatever ``json`` itself would have raised.
    """
    if isinstance(text, bytes):
        text = decode(text, where)
    if max_chars and len(text) > max_chars:
        raise AgentFileError(where, f"longer than {max_chars} characters")
    _check_depth(json_depth(text, max_depth), max_depth, where)
    with _parsing(where, "JSON", ValueError):
        value = json.loads(text)
    return scalar_strings(value) if _SURROGATE_ESCAPE.search(text) else value


MAX_XML_ELEMENTS = 200_000
# a document type declares entities (internal ones expand: the "billion laughs"; external ones
# name files): a test report has no need of one, so none is parsed at all
_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def loads_xml(
    data: bytes, where: str, *, max_depth: int = MAX_DEPTH, max_elements: int = MAX_XML_ELEMENTS
) -> ElementTree.Element:
    """The root element of the XML document ``data`` (a test runner's JUnit report).

    The caller has bounded ``data``'s size; here a document type declaration (and so any
    entity) is refused before parsing, and the stream parser stops past ``max_depth`` levels
    of nesting or ``max_elements`` elements. Raises AgentFileError for anything wrong.
    """
    if _DOCTYPE.search(data):
        raise AgentFileError(where, "has a document type declaration (entities are not read)")
    parser = ElementTree.XMLPullParser(events=("start", "end"))
    depth = elements = 0
    root = None
    with _parsing(where, "XML", ElementTree.ParseError):
        for start in range(0, len(data), 1 << 16):
            parser.feed(data[start : start + (1 << 16)])
            for event, element in parser.read_events():
                if event == "start":
                    depth, elements = depth + 1, elements + 1
                    root = element if root is None else root
                    if depth > max_depth or elements > max_elements:
                        raise AgentFileError(
                            where, f"nested deeper than {max_depth} or over {max_elements} elements"
                        )
                else:
                    depth -= 1
        parser.close()
    if root is None:
        raise AgentFileError(where, "not valid XML (no element)")
    return root


def scalar_strings(value: object) -> object:
    """``value`` with each lone surrogate in its strings and keys replaced by U+FFFD (in place;
    iterative, as the value may be as deep as the parser allowed)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    stack = [value] if isinstance(value, dict | list) else []
    while stack:
        item = stack.pop()
        pairs = list(item.items()) if isinstance(item, dict) else list(enumerate(item))
        if isinstance(item, dict):
            item.clear()
        for key, child in pairs:
            if isinstance(child, str):
                child = _SURROGATE.sub("\ufffd", child)
            elif isinstance(child, dict | list):
                stack.append(child)
            item[_SURROGATE.sub("\ufffd", key) if isinstance(key, str) else key] = child
    return value


def loads_toml(text: str, where: str, *, max_depth: int = MAX_DEPTH) -> dict:
    """The TOML document of ``text``; AgentFileError for anything wrong.

    The depth of arrays and inline tables is measured before parsing; dotted keys (``a.b.c``,
    which ``tomllib`` nests without recursing) are measured on the result, so no caller walks
    a structure deeper than ``max_depth``.
    """
    _check_depth(toml_depth(text, max_depth), max_depth, where)
    with _parsing(where, "TOML", tomllib.TOMLDecodeError):
        document = tomllib.loads(text)
    _check_depth(value_depth(document, max_depth), max_depth, where)
    return document


def loads_python(text: str, where: str, *, max_depth: int = MAX_TREE_DEPTH) -> ast.Module:
    """The syntax tree of Python ``text`` (a peer's or an agent's code); AgentFileError for
    anything wrong, whatever the parser raised (RecursionError, MemoryError included).

    The tree's depth is measured without recursion: ``1+1+…+1`` 600 terms long parses, then
    raised RecursionError in a recursive walk of it (``ast.unparse`` from 450), outside every
    handler of ``SyntaxError``, and ended an importer. An f-string of more than
    :data:`~..isolation.intake.MAX_FSTRING_FIELDS` fields is refused before parsing, as by
    :func:`~..isolation.intake.parse_python` (Python 3.11 parses it in quadratic time).
    """
    if crowded_fstring(text.encode("utf-8", "surrogatepass")):
        raise AgentFileError(where, f"an f-string of over {MAX_FSTRING_FIELDS} fields")
    with _parsing(where, "Python", SyntaxError):
        tree = ast.parse(text)
    _check_depth(tree_depth(tree, max_depth), max_depth, where)
    return tree


def said(exc: AgentFileError) -> str:
    """``exc`` as a sentence about its text: "step code is not valid Python (…)", "step code:
    nested deeper than 200 levels"."""
    return f"{exc.where} is {exc.problem}" if exc.problem.startswith("not ") else str(exc)


def tree_depth(tree: ast.AST, limit: int = MAX_TREE_DEPTH) -> int:
    """The depth of a syntax tree, measured with a stack, stopping once past ``limit``."""
    deepest = 0
    stack = [(tree, 1)]
    while stack and deepest <= limit:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _check_depth(depth: int, max_depth: int, where: str) -> None:
    if depth > max_depth:
        raise AgentFileError(where, f"nested deeper than {max_depth} levels")


def _plain(exc: BaseException) -> str:
    # One line, bounded: a message may quote the hostile text.
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:199] + "…"


def json_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of arrays and objects in JSON ``text``, stopping once past
    ``limit``. Linear: it jumps from one bracket or string to the next, and stops at an
    unterminated string (where the parser stops too)."""
    depth = deepest = 0
    pos = 0
    while (found := _JSON_STOPS.search(text, pos)) is not None:
        char = found.group()
        if char == '"':
            string = _JSON_STRING.match(text, found.start())
            if string is None:
                break
            pos = string.end()
            continue
        pos = found.end()
        depth += 1 if char in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                break
    return deepest


def toml_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of brackets, braces and dotted keys in TOML ``text`` outside
    strings and comments (a table header ``[a]`` counts one, each dot of a key one more),
    stopping once past ``limit``. Linear.

    Dots are counted since the last ``=``, ``,``, newline or bracket: a key's dots, and the
    one of a float or a time in a value (at most one more than the value's real depth)."""
    depth = deepest = dots = 0
    pos = 0
    while (found := _TOML_STOPS.search(text, pos)) is not None:
        char, start = found.group(), found.start()
        if dots and _TOML_KEY_END.search(text, pos, start):
            dots = 0
        if char in "\"'#":
            end = _toml_skip(text, start, char)
            if end < 0:
                break  # unterminated: tomllib stops here too
            if char == "#":
                dots = 0  # a comment ends its line
            pos = end
            continue
        pos = found.end()
        if char in "]}":
            depth -= 1
            dots = 0
            continue
        if char == ".":
            dots += 1
        else:
            depth += 1
            dots = 0
        if depth + dots > deepest:
            deepest = depth + dots
            if deepest > limit:
                break
    return deepest


def _toml_skip(text: str, start: int, char: str) -> int:
    """Where the comment or string starting at ``start`` ends (-1: never)."""
    if char == "#":
        end = text.find("\n", start)
        return len(text) if end < 0 else end + 1
    if char == "'":
        if text.startswith("'''", start):
            end = text.find("'''", start + 3)
            if end < 0:
                return -1
            extra = len(text[end + 3 : end + 5]) - len(text[end + 3 : end + 5].lstrip("'"))
            return end + 3 + extra  # up to two quotes of the string's own before the delimiter
        end = _TOML_LITERAL_END.search(text, start + 1)
        return -1 if end is None or end.group() != "'" else end.end()
    if text.startswith('"""', start):
        found = _TOML_ML_BASIC.match(text, start)
    else:
        found = _TOML_BASIC.match(text, start)
    return -1 if found is None else found.end()


def value_depth(value: object, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of a parsed value (lists and dicts), measured without recursion and
    stopping once past ``limit``."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            break
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children)
    return deepest
