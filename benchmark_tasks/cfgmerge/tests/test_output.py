"""get, dump in every format, and diff (R14-R19)."""

import tomllib

import pytest

from cfgmerge import apply_env, diff, dumps, loads

BASE_TOML = '''\
debug = false
ratio = 0.25
[db]
host = "localhost"
port = 5432
[svc]
name = "caf\u00e9"
tags = ["a", "b"]
note = "line1\\nline2"
'''


@pytest.fixture
def base(write):
    return write("base.toml", BASE_TOML)


# --- R14: get --------------------------------------------------------------------------

@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "key, expected",
    [
        ("db.port", "5432\n"),
        ("db.host", "localhost\n"),
        ("debug", "false\n"),
        ("ratio", "0.25\n"),
        ("db", '{"host": "localhost", "port": 5432}\n'),
        ("svc.tags", '["a", "b"]\n'),
        ("svc.name", "caf\u00e9\n"),
        ("svc.note", "line1\nline2\n"),
    ],
)
def test_get_values(cli, base, key, expected):
    result = cli("get", key, base)
    assert (result.code, result.out, result.err) == (0, expected, "")


@pytest.mark.requirement("R14")
def test_get_table_with_non_ascii_and_nested_values(cli, write):
    conf = write("d.json", '{"t": {"z": [1, {"b": true, "a": 1.5}], "a": "\u00fc"}}')
    result = cli("get", "t", conf)
    assert (result.code, result.out) == (0, '{"a": "\u00fc", "z": [1, {"a": 1.5, "b": true}]}\n')


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("key", ["", "a..b", ".a", "a.", "."])
def test_get_invalid_key_is_usage_error_before_reading(cli, tmp_path, key):
    result = cli("get", key, str(tmp_path / "missing.json"))
    assert (result.code, result.out) == (2, "")
    assert result.err == f"cfgmerge: error: invalid key '{key}'\n"


@pytest.mark.requirement("R14")
@pytest.mark.parametrize("key", ["nope", "db.user", "db.port.x", "svc.tags.a"])
def test_get_key_not_found(cli, base, key):
    result = cli("get", key, base)
    assert (result.code, result.out) == (1, "")
    assert result.err == f"cfgmerge: error: key not found: {key}\n"


# --- R15: JSON output ------------------------------------------------------------------

@pytest.mark.requirement("R15")
def test_dump_json_exact(cli, base):
    result = cli("dump", base)
    assert (result.code, result.err) == (0, "")
    assert result.out == (
        "{\n"
        '  "db": {\n'
        '    "host": "localhost",\n'
        '    "port": 5432\n'
        "  },\n"
        '  "debug": false,\n'
        '  "ratio": 0.25,\n'
        '  "svc": {\n'
        '    "name": "caf\u00e9",\n'
        '    "note": "line1\\nline2",\n'
        '    "tags": [\n'
        '      "a",\n'
        '      "b"\n'
        "    ]\n"
        "  }\n"
        "}\n"
    )
    assert cli("dump", "--format", "json", base).out == result.out


@pytest.mark.requirement("R15")
def test_dump_json_empty_config(cli, write):
    result = cli("dump", write("empty.ini", "# nothing\n"))
    assert (result.code, result.out) == (0, "{}\n")
    assert dumps({}) == "{}\n"


@pytest.mark.requirement("R15")
def test_dumps_json_default_and_empty_containers():
    config = {"b": {"y": [], "x": {}}, "a": -1.5}
    expected = '{\n  "a": -1.5,\n  "b": {\n    "x": {},\n    "y": []\n  }\n}\n'
    assert dumps(config) == expected
    assert dumps(config, "json") == expected


@pytest.mark.requirement("R15")
def test_dumps_unknown_format():
    with pytest.raises(ValueError):
        dumps({"a": 1}, "yaml")


# --- R16: TOML output ------------------------------------------------------------------

TOML_EXAMPLE = {"name": "x", "debug": True, "db": {"port": 5432, "replica": {"hosts": ["a", "b"]}}, "z": {}}


@pytest.mark.requirement("R16")
def test_dump_toml_example():
    assert dumps(TOML_EXAMPLE, "toml") == (
        'debug = true\nname = "x"\n\n[db]\nport = 5432\n\n[db.replica]\nhosts = ["a", "b"]\n\n[z]\n'
    )


@pytest.mark.requirement("R16")
def test_dump_toml_string_escapes():
    config = {"s": 'a\\b"c\bd\te\nf\fg\rh\x01i\x7fj\u00e9'}
    assert dumps(config, "toml") == 's = "a\\\\b\\"c\\bd\\te\\nf\\fg\\rh\\u0001i\\u007Fj\u00e9"\n'


@pytest.mark.requirement("R16")
def test_dump_toml_key_quoting():
    config = {"a b": 1, "ok_key-1": 2, "\u00fc": 3, "t.x": {"in ner": {"k": 4}}}
    assert dumps(config, "toml") == (
        '"a b" = 1\nok_key-1 = 2\n"\u00fc" = 3\n\n["t.x"]\n\n["t.x"."in ner"]\nk = 4\n'
    )


@pytest.mark.requirement("R16")
def test_dump_toml_values():
    config = {
        "f": 1.0,
        "g": 1e20,
        "h": -0.5,
        "n": float("nan"),
        "i": float("inf"),
        "j": float("-inf"),
        "e": [],
        "m": [[1, 2], ["x"]],
        "t": [{"b": 2, "a": "s"}, {}],
        "z": -7,
        "q": False,
    }
    assert dumps(config, "toml") == (
        'e = []\nf = 1.0\ng = 1e+20\nh = -0.5\ni = inf\nj = -inf\nm = [[1, 2], ["x"]]\n'
        'n = nan\nq = false\nt = [{ a = "s", b = 2 }, {}]\nz = -7\n'
    )


@pytest.mark.requirement("R16")
def test_dump_toml_only_tables_and_empty():
    assert dumps({"b": {"x": 1}, "a": {"y": {"z": 2}}}, "toml") == "[a]\n\n[a.y]\nz = 2\n\n[b]\nx = 1\n"
    assert dumps({}, "toml") == ""


@pytest.mark.requirement("R16")
@pytest.mark.parametrize(
    "config",
    [
        TOML_EXAMPLE,
        {"s": "multi\nline \"q\" \\ \u00e9", "weird key": {"x.y": [1.5, True, [{"k": "v"}]]}},
        {"a": {"b": {"c": {}}}, "n": 0},
    ],
)
def test_dump_toml_round_trip(config):
    assert tomllib.loads(dumps(config, "toml")) == config


@pytest.mark.requirement("R16")
def test_cli_dump_toml(cli, write):
    conf = write("c.json", '{"db": {"host": "h"}, "v": 1}')
    result = cli("dump", "--format=toml", conf, env={"APP__DB__PORT": "2"})
    assert (result.code, result.out, result.err) == (0, 'v = 1\n\n[db]\nhost = "h"\nport = 2\n', "")


# --- R17: INI output -------------------------------------------------------------------

@pytest.mark.requirement("R17")
def test_dump_ini_example():
    assert dumps(TOML_EXAMPLE, "ini") == (
        "debug = true\nname = x\n\n[db]\nport = 5432\n\n[db.replica]\nhosts = [\"a\", \"b\"]\n\n[z]\n"
    )


@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    "value, text",
    [
        ("localhost", "localhost"),
        ("5432", '"5432"'),
        ("true", '"true"'),
        ("1.5", '"1.5"'),
        ("", '""'),
        (" x", '" x"'),
        ('a"b', 'a"b'),
        ('"q"', '"\\"q\\""'),
        ("[x", "[x"),
        ("[1]", '"[1]"'),
        ("a\nb", '"a\\nb"'),
        ("tab\there", '"tab\\there"'),
        ("caf\u00e9", "caf\u00e9"),
        ("007", "007"),
        ("a = b", "a = b"),
    ],
)
def test_ini_string_quoting(value, text):
    assert dumps({"k": value}, "ini") == f"k = {text}\n"


@pytest.mark.requirement("R17")
def test_ini_scalars_and_arrays():
    config = {"b": False, "i": -3, "f": 2.5, "g": 1e-05, "l": ["x", 1, {"z": 1, "a": True}], "e": []}
    assert dumps(config, "ini") == (
        'b = false\ne = []\nf = 2.5\ng = 1e-05\ni = -3\nl = ["x", 1, {"a": true, "z": 1}]\n'
    )


@pytest.mark.requirement("R17")
@pytest.mark.parametrize(
    "config",
    [
        {"name": "demo", "db": {"port": 5432, "host": "localhost", "replica": {"hosts": ["r1", "r2"]}}},
        {"s": {"a": "5432", "b": " padded ", "c": "", "d": "x\ny", "e": '"quoted"', "f": 1e-05, "g": True}},
        {"a": {"b": {"c": {}}}},
    ],
)
def test_ini_round_trip(config):
    assert loads(dumps(config, "ini"), "ini") == config


@pytest.mark.requirement("R17")
def test_cli_dump_ini(cli, write):
    conf = write("c.toml", 'port = "8080"\n[db]\nhost = "h"\n[db.pool]\nsize = 4\n')
    result = cli("dump", conf, "--format", "ini")
    assert (result.code, result.out) == (0, 'port = "8080"\n\n[db]\nhost = h\n\n[db.pool]\nsize = 4\n')


# --- R18: env output -------------------------------------------------------------------

@pytest.mark.requirement("R18")
def test_dump_env_example():
    config = {"db": {"host": "h", "port": 5432}, "debug": False, "tags": ["a"]}
    assert dumps(config, "env") == 'APP__DB__HOST=h\nAPP__DB__PORT=5432\nAPP__DEBUG=false\nAPP__TAGS=["a"]\n'


@pytest.mark.requirement("R18")
def test_dump_env_sorted_by_name_and_quoting():
    config = {"a": {"b": 1}, "a1": "2", "ab": " x", "empty": {}, "Mixed": {"Case": ""}}
    assert dumps(config, "env", env_prefix="SVC") == (
        'SVC__A1="2"\nSVC__AB=" x"\nSVC__A__B=1\nSVC__MIXED__CASE=""\n'
    )
    assert dumps({}, "env") == ""
    assert dumps({"t": {}}, "env") == ""


@pytest.mark.requirement("R18")
def test_dump_env_round_trip_through_apply_env():
    config = {"db": {"host": "h", "port": 5432, "ratio": 0.5}, "name": "true", "tags": ["a", 2], "s": "x y"}
    environ = dict(line.split("=", 1) for line in dumps(config, "env").splitlines())
    assert apply_env({}, environ) == config


@pytest.mark.requirement("R18")
def test_cli_dump_env_with_prefix(cli, write):
    conf = write("c.ini", "[db]\nport = 5432\nname = main\n")
    result = cli("dump", "--format", "env", "--env-prefix", "SVC", conf, env={"SVC__DB__SSL": "true"})
    assert (result.code, result.out) == (0, "SVC__DB__NAME=main\nSVC__DB__PORT=5432\nSVC__DB__SSL=true\n")


# --- R19: diff -------------------------------------------------------------------------

@pytest.mark.requirement("R19")
def test_diff_example():
    old = {"a": 1, "b": {"c": 2}, "d": [1]}
    new = {"a": 1.0, "b": {"c": 2, "e": "x"}}
    assert diff(old, new) == ["~ a: 1 -> 1.0", '+ b.e = "x"', "- d = [1]"]


@pytest.mark.requirement("R19")
def test_diff_identical_and_reordered():
    assert diff({"a": {"x": 1, "y": [1, {"p": 1, "q": 2}]}}, {"a": {"y": [1, {"q": 2, "p": 1}], "x": 1}}) == []
    assert diff({}, {}) == []


@pytest.mark.requirement("R19")
def test_diff_table_replaced_by_scalar_and_empty_tables():
    assert diff({"db": {"host": "h", "port": 1}}, {"db": "none"}) == [
        '+ db = "none"',
        '- db.host = "h"',
        "- db.port = 1",
    ]
    assert diff({"a": {}}, {"a": {"b": True}}) == ["- a = {}", "+ a.b = true"]


@pytest.mark.requirement("R19")
def test_diff_types_and_non_ascii():
    old = {"flag": True, "s": "\u00e9", "t": {"k": [1, 2]}}
    new = {"flag": 1, "s": "\u00e8", "t": {"k": [2, 1]}}
    assert diff(old, new) == [
        "~ flag: true -> 1",
        '~ s: "\u00e9" -> "\u00e8"',
        "~ t.k: [1, 2] -> [2, 1]",
    ]


@pytest.mark.requirement("R19")
def test_cli_diff_with_differences(cli, write):
    a = write("a.toml", '[db]\nhost = "a"\nport = 1\n[x]\ny = true\n')
    b = write("b.json", '{"db": {"host": "b", "port": 1, "user": "u"}, "x": {"y": null}}')
    result = cli("diff", a, b)
    assert (result.code, result.err) == (1, "")
    assert result.out == '~ db.host: "a" -> "b"\n+ db.user = "u"\n+ x = {}\n- x.y = true\n'


@pytest.mark.requirement("R19")
def test_cli_diff_identical_across_formats(cli, write):
    a = write("a.ini", "[db]\nport = 5432\nhost = h\n")
    b = write("b.toml", '[db]\nhost = "h"\nport = 5432\n')
    result = cli("diff", a, b, env={"APP__DB__PORT": "1"})
    assert (result.code, result.out, result.err) == (0, "", "")
