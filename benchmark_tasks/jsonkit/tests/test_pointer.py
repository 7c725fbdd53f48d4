"""JSON Pointer: parsing, escaping, formatting and resolution (R1-R4)."""

import pytest

from jsonkit import (
    JsonKitError,
    PointerError,
    PointerResolveError,
    PointerSyntaxError,
    escape_token,
    format_pointer,
    get,
    parse_pointer,
    resolve,
    unescape_token,
)

DOC = {"a": {"b": [10, 20, {"c": None}]}, "": 1, "x/y": 2, "m~n": 3, "s": "text", "n": 4, "t": True}


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "pointer, tokens",
    [
        ("", []),
        ("/", [""]),
        ("/a/b", ["a", "b"]),
        ("/a//b/", ["a", "", "b", ""]),
        ("/a~1b/m~0n", ["a/b", "m~n"]),
        ("/~01", ["~1"]),
        ("/~10", ["/0"]),
        ("/0/-", ["0", "-"]),
    ],
)
def test_parse_pointer(pointer, tokens):
    assert parse_pointer(pointer) == tokens


@pytest.mark.requirement("R1")
def test_escape_and_unescape_token():
    assert escape_token("a/b~c") == "a~1b~0c"
    assert unescape_token("a~1b~0c") == "a/b~c"
    assert unescape_token("~01") == "~1"
    assert escape_token("plain") == "plain"


@pytest.mark.requirement("R1")
def test_format_pointer():
    assert format_pointer([]) == ""
    assert format_pointer(["a/b", 0, "~"]) == "/a~1b/0/~0"
    assert format_pointer([""]) == "/"


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("tokens", [["a", "b"], ["", ""], ["~1", "/0", "~/~"], ["01", "-"]])
def test_format_parse_round_trip(tokens):
    assert parse_pointer(format_pointer(tokens)) == tokens


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("pointer", ["a/b", " /a", "/a~2", "/a~", "/~x", "a"])
def test_parse_pointer_syntax_errors(pointer):
    with pytest.raises(PointerSyntaxError):
        parse_pointer(pointer)


@pytest.mark.requirement("R2")
@pytest.mark.parametrize("pointer", [None, 5])
def test_non_string_pointer(pointer):
    with pytest.raises(PointerSyntaxError):
        parse_pointer(pointer)


@pytest.mark.requirement("R2")
def test_syntax_error_hierarchy_and_resolve():
    with pytest.raises(PointerSyntaxError) as info:
        resolve(DOC, "a")
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, PointerError)
    assert isinstance(info.value, JsonKitError)
    with pytest.raises(PointerSyntaxError):
        get(DOC, "/a~9", "default")
    with pytest.raises(PointerSyntaxError):
        unescape_token("a~")


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "pointer, expected",
    [
        ("/a/b/1", 20),
        ("/a/b/0", 10),
        ("/a/b/2/c", None),
        ("/", 1),
        ("/x~1y", 2),
        ("/m~0n", 3),
    ],
)
def test_resolve(pointer, expected):
    assert resolve(DOC, pointer) == expected


@pytest.mark.requirement("R3")
def test_resolve_returns_the_object_itself():
    assert resolve(DOC, "") is DOC
    assert resolve(DOC, "/a/b") is DOC["a"]["b"]


@pytest.mark.requirement("R3")
def test_get_with_default():
    assert get(DOC, "/a/zz", 7) == 7
    assert get(DOC, "/a/b/9") is None
    assert get(DOC, "/a/b/2/c", 7) is None
    assert get(DOC, "/a/b/-", "end") == "end"
    assert get(DOC, "/s/0", "scalar") == "scalar"
    assert get(DOC, "/a/b/1", 0) == 20


@pytest.mark.requirement("R4")
@pytest.mark.parametrize(
    "pointer, reason",
    [
        ("/nope", "no member 'nope'"),
        ("/a/b/3", "index 3 out of range"),
        ("/a/b/01", "invalid array index '01'"),
        ("/a/b/-1", "invalid array index '-1'"),
        ("/a/b/+1", "invalid array index '+1'"),
        ("/a/b/1.0", "invalid array index '1.0'"),
        ("/a/b/x", "invalid array index 'x'"),
        ("/a/b/", "invalid array index ''"),
        ("/a/b/-", "index '-' is past the end of the array"),
        ("/n/0", "cannot descend into number"),
        ("/s/x", "cannot descend into string"),
        ("/t/x", "cannot descend into boolean"),
        ("/a/b/2/c/d", "cannot descend into null"),
    ],
)
def test_resolve_errors(pointer, reason):
    with pytest.raises(PointerResolveError) as info:
        resolve(DOC, pointer)
    assert info.value.reason == reason
    assert info.value.pointer == pointer


@pytest.mark.requirement("R4")
def test_resolve_error_message_and_hierarchy():
    with pytest.raises(PointerResolveError) as info:
        resolve({"a": [1]}, "/a/5")
    assert str(info.value) == "cannot resolve '/a/5': index 5 out of range"
    assert isinstance(info.value, LookupError)
    assert isinstance(info.value, PointerError)
    assert isinstance(info.value, JsonKitError)


@pytest.mark.requirement("R4")
def test_first_failing_token_decides():
    with pytest.raises(PointerResolveError) as info:
        resolve({"a": {}}, "/a/b/c")
    assert info.value.reason == "no member 'b'"
    assert info.value.pointer == "/a/b/c"
