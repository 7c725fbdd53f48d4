"""Reading JSON, TOML and INI layers and reporting load errors (R1, R2, R3, R5)."""

import pytest

from cfgmerge import LoadError, load, loads


# --- R1: JSON layers -------------------------------------------------------------------

@pytest.mark.requirement("R1")
def test_json_example_keeps_member_nulls():
    text = '{"db": {"port": 5432, "host": null}, "tags": ["a"]}'
    assert loads(text, "json") == {"db": {"port": 5432, "host": None}, "tags": ["a"]}


@pytest.mark.requirement("R1")
def test_json_file_value_types(write):
    path = write("conf.json", '{"i": 1, "f": 1.5, "b": true, "s": "x", "l": [1, "y"], "t": {}}')
    data = load(path)
    assert data == {"i": 1, "f": 1.5, "b": True, "s": "x", "l": [1, "y"], "t": {}}
    assert type(data["i"]) is int and type(data["f"]) is float and data["b"] is True


@pytest.mark.requirement("R1")
@pytest.mark.parametrize("text", ["[1, 2]", '"text"', "3", "null"])
def test_json_top_level_must_be_object(text):
    with pytest.raises(LoadError) as info:
        loads(text, "json", name="top.json")
    assert info.value.line is None
    assert info.value.detail == "top-level value must be an object"
    assert str(info.value) == "top.json: top-level value must be an object"


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "text",
    ['{"a": [null]}', '{"a": [{"b": null}]}', '{"x": {"a": [[1, null]]}}'],
)
def test_json_null_inside_array_rejected(text):
    with pytest.raises(LoadError) as info:
        loads(text, "json", name="n.json")
    assert info.value.line is None
    assert str(info.value) == "n.json: null is not allowed inside arrays"


@pytest.mark.requirement("R1")
def test_json_byte_order_mark_ignored(write):
    path = write("bom.json", '\ufeff{"a": "\u00e9"}'.encode("utf-8"))
    assert load(path) == {"a": "\u00e9"}


# --- R2: TOML layers -------------------------------------------------------------------

@pytest.mark.requirement("R2")
def test_toml_tables_and_arrays(write):
    path = write(
        "conf.toml",
        'title = "x"\nratio = 0.5\n[db]\nport = 5432\nflags = [true, false]\n'
        '[db.replica]\nhost = "r"\n[[servers]]\nname = "a"\n[[servers]]\nname = "b"\n',
    )
    assert load(path) == {
        "title": "x",
        "ratio": 0.5,
        "db": {"port": 5432, "flags": [True, False], "replica": {"host": "r"}},
        "servers": [{"name": "a"}, {"name": "b"}],
    }


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    "line, expected",
    [
        ("d = 1979-05-27T07:32:00Z", "1979-05-27T07:32:00+00:00"),
        ("d = 1979-05-27T07:32:00", "1979-05-27T07:32:00"),
        ("d = 1979-05-27", "1979-05-27"),
        ("d = 07:32:00", "07:32:00"),
    ],
)
def test_toml_dates_become_isoformat_strings(line, expected):
    assert loads(line + "\n", "toml") == {"d": expected}


@pytest.mark.requirement("R2")
def test_toml_dates_inside_arrays_and_inline_tables():
    text = "l = [1979-05-27, 2000-01-02]\nt = { at = 12:00:00 }\n"
    assert loads(text, "toml") == {"l": ["1979-05-27", "2000-01-02"], "t": {"at": "12:00:00"}}


@pytest.mark.requirement("R2")
def test_empty_toml_file(write):
    assert load(write("empty.toml", "")) == {}


# --- R3: INI layers --------------------------------------------------------------------

INI_EXAMPLE = (
    "# service\n"
    "name = demo\n"
    "[db]\n"
    "port = 5432\n"
    'host = "localhost"\n'
    "[db.replica]\n"
    'hosts = ["r1", "r2"]\n'
)


@pytest.mark.requirement("R3")
def test_ini_example(write):
    assert load(write("conf.ini", INI_EXAMPLE)) == {
        "name": "demo",
        "db": {"port": 5432, "host": "localhost", "replica": {"hosts": ["r1", "r2"]}},
    }


@pytest.mark.requirement("R3")
def test_ini_comments_blank_lines_and_crlf():
    text = "; top comment\r\n\r\n  top = 1  \r\n[s]\r\n   # indented comment\r\nk=v\r\n"
    assert loads(text, "ini") == {"top": 1, "s": {"k": "v"}}


@pytest.mark.requirement("R3")
def test_ini_no_inline_comments_and_equals_in_value():
    text = "[s]\na = 1 # x\nurl = a=b=c\nempty =\n"
    assert loads(text, "ini") == {"s": {"a": "1 # x", "url": "a=b=c", "empty": ""}}


@pytest.mark.requirement("R3")
def test_ini_nested_sections_in_any_order():
    text = "[ a . b ]\nx = 1\n[a]\ny = 2\n[c]\n[c.d.e]\nz = true\n"
    assert loads(text, "ini") == {
        "a": {"b": {"x": 1}, "y": 2},
        "c": {"d": {"e": {"z": True}}},
    }


@pytest.mark.requirement("R3")
def test_cfg_extension_is_ini(write):
    assert load(write("setup.cfg", "[tool]\nname = x\n")) == {"tool": {"name": "x"}}


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    "text, line, detail",
    [
        ("[db\nport = 1\n", 1, "invalid section header"),
        ("a = 1\n[]\n", 2, "invalid section header"),
        ("[a..b]\n", 1, "invalid section header"),
        ("[a]\nx = 1\n[ a ]\n", 3, "duplicate section 'a'"),
        ("[s]\nx = 1\nx = 2\n", 3, "duplicate key 'x'"),
        ("[a.b]\n[a]\nb = 1\n", 3, "duplicate key 'b'"),
        ("a = 1\n\n[a.b]\n", 3, "duplicate key 'a'"),
        ("= 5\n", 1, "empty key"),
        ("\n# c\njust text\n", 3, "expected 'key = value'"),
    ],
)
def test_ini_errors(text, line, detail):
    with pytest.raises(LoadError) as info:
        loads(text, "ini", name="bad.ini")
    assert (info.value.line, info.value.detail) == (line, detail)
    assert str(info.value) == f"bad.ini:{line}: {detail}"


# --- R5: load errors -------------------------------------------------------------------

@pytest.mark.requirement("R5")
@pytest.mark.parametrize("name, suffix", [("conf.yaml", ".yaml"), ("Makefile", ""), ("a.TXT", ".txt")])
def test_unsupported_extension_without_reading(tmp_path, name, suffix):
    path = str(tmp_path / name)  # the file does not even exist
    with pytest.raises(LoadError) as info:
        load(path)
    assert info.value.path == path
    assert info.value.line is None
    assert str(info.value) == f"{path}: unsupported file type '{suffix}'"


@pytest.mark.requirement("R5")
def test_extension_is_case_insensitive(write):
    assert load(write("UPPER.JSON", '{"a": 1}')) == {"a": 1}


@pytest.mark.requirement("R5")
@pytest.mark.parametrize("kind", ["missing", "directory", "not-utf8"])
def test_cannot_read_file(tmp_path, kind):
    path = tmp_path / "conf.json"
    if kind == "directory":
        path.mkdir()
    elif kind == "not-utf8":
        path.write_bytes(b'{"a": "\xff\xfe"}')
    with pytest.raises(LoadError) as info:
        load(path)
    assert info.value.path == str(path)
    assert str(info.value) == f"{path}: cannot read file"


@pytest.mark.requirement("R5")
def test_json_syntax_error_line(write):
    path = write("conf.json", '{\n "a": 1\n "b": 2\n}\n')
    with pytest.raises(LoadError) as info:
        load(path)
    assert (info.value.line, info.value.detail) == (3, "Expecting ',' delimiter")
    assert str(info.value) == f"{path}:3: Expecting ',' delimiter"


@pytest.mark.requirement("R5")
def test_toml_syntax_error_line():
    with pytest.raises(LoadError) as info:
        loads("a = 1\nb = \nc = 3\n", "toml", name="x.toml")
    assert (info.value.path, info.value.line, info.value.detail) == ("x.toml", 2, "Invalid value")
    assert str(info.value) == "x.toml:2: Invalid value"


@pytest.mark.requirement("R5")
def test_toml_error_without_line():
    with pytest.raises(LoadError) as info:
        loads('a = "abc', "toml", name="x.toml")
    assert info.value.line is None
    assert str(info.value) == "x.toml: Unterminated string (at end of document)"


@pytest.mark.requirement("R5")
def test_loads_unknown_format():
    with pytest.raises(ValueError):
        loads("{}", "yaml")


@pytest.mark.requirement("R5")
def test_cli_missing_file(cli, tmp_path):
    path = str(tmp_path / "missing.toml")
    result = cli("dump", path)
    assert (result.code, result.out) == (3, "")
    assert result.err == f"cfgmerge: error: {path}: cannot read file\n"


@pytest.mark.requirement("R5")
def test_cli_parse_error_names_file_and_line(cli, write):
    good = write("good.toml", "a = 1\n")
    bad = write("bad.ini", "[s]\nthis is not valid\n")
    result = cli("get", "a", good, bad)
    assert (result.code, result.out) == (3, "")
    assert result.err == f"cfgmerge: error: {bad}:2: expected 'key = value'\n"


@pytest.mark.requirement("R5")
def test_cli_first_failing_file_is_reported(cli, write, tmp_path):
    bad = write("bad.json", "{")
    missing = str(tmp_path / "nope.json")
    result = cli("dump", bad, missing)
    assert result.code == 3
    assert result.err.startswith(f"cfgmerge: error: {bad}:1: ")
    assert result.err.count("\n") == 1


@pytest.mark.requirement("R5")
def test_cli_unsupported_schema_and_diff_files(cli, write):
    conf = write("a.json", "{}")
    schema = write("schema.yaml", "type: object\n")
    result = cli("validate", "--schema", schema, conf)
    assert (result.code, result.out) == (3, "")
    assert result.err == f"cfgmerge: error: {schema}: unsupported file type '.yaml'\n"
    result = cli("diff", conf, schema)
    assert (result.code, result.out) == (3, "")
