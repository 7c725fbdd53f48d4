"""Deep merge, list strategies and environment overrides (R6, R7, R8)."""

import copy

import pytest

from cfgmerge import apply_env, merge


# --- R6: deep merge --------------------------------------------------------------------

@pytest.mark.requirement("R6")
def test_merge_example():
    base = {"db": {"host": "a", "port": 1}, "x": 1}
    overlay = {"db": {"port": 2, "user": "u"}, "x": None}
    assert merge(base, overlay) == {"db": {"host": "a", "port": 2, "user": "u"}}


@pytest.mark.requirement("R6")
def test_merge_does_not_modify_inputs():
    base = {"a": {"b": [1, 2], "c": {"d": 1}}}
    overlay = {"a": {"c": {"e": 2}, "b": [3]}, "f": {"g": [4]}}
    saved_base, saved_overlay = copy.deepcopy(base), copy.deepcopy(overlay)
    result = merge(base, overlay)
    assert (base, overlay) == (saved_base, saved_overlay)
    result["a"]["c"]["d"] = 99
    result["f"]["g"].append(5)
    assert (base, overlay) == (saved_base, saved_overlay)


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    "base, overlay, expected",
    [
        ({"a": 1}, {"a": {"b": 2}}, {"a": {"b": 2}}),
        ({"a": {"b": 2}}, {"a": 1}, {"a": 1}),
        ({"a": {"b": 2}}, {"a": [1]}, {"a": [1]}),
        ({"a": [1]}, {"a": "s"}, {"a": "s"}),
        ({"a": 1}, {"a": {"b": None, "c": 1}}, {"a": {"c": 1}}),
        ({"a": 1}, {"zzz": None}, {"a": 1}),
        ({"a": {"b": {"c": 1, "d": 2}}}, {"a": {"b": {"d": None, "e": 3}}}, {"a": {"b": {"c": 1, "e": 3}}}),
    ],
)
def test_merge_rules(base, overlay, expected):
    assert merge(base, overlay) == expected


@pytest.mark.requirement("R6")
def test_cli_later_files_win_and_json_null_deletes(cli, write):
    base = write("base.toml", '[db]\nhost = "localhost"\nport = 5432\nuser = "app"\n')
    ini = write("mid.ini", "[db]\nport = 6000\n")
    over = write("over.json", '{"db": {"user": null, "host": "db.example.com"}}')
    result = cli("get", "db", base, ini, over)
    assert (result.code, result.err) == (0, "")
    assert result.out == '{"host": "db.example.com", "port": 6000}\n'


# --- R7: list strategies ---------------------------------------------------------------

@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "strategy, expected",
    [
        ("replace", [2, 3, 3, 1.0]),
        ("append", [1, 2, 2, 2, 3, 3, 1.0]),
        ("unique", [1, 2, 2, 3, 1.0]),
    ],
)
def test_list_strategies(strategy, expected):
    result = merge({"l": [1, 2, 2]}, {"l": [2, 3, 3, 1.0]}, list_strategy=strategy)
    assert result == {"l": expected}
    assert [type(item) for item in result["l"]] == [type(item) for item in expected]


@pytest.mark.requirement("R7")
def test_default_strategy_is_replace():
    assert merge({"l": [1]}, {"l": [2]}) == {"l": [2]}


@pytest.mark.requirement("R7")
def test_strategy_applies_at_depth():
    base = {"a": {"b": {"l": ["x"]}}}
    overlay = {"a": {"b": {"l": ["y"]}}}
    assert merge(base, overlay, list_strategy="append") == {"a": {"b": {"l": ["x", "y"]}}}


@pytest.mark.requirement("R7")
def test_unique_compares_tables_and_types():
    base = {"l": [{"a": 1, "b": 2}, 1]}
    overlay = {"l": [{"b": 2, "a": 1}, {"a": 2}, True, 1, "1"]}
    assert merge(base, overlay, list_strategy="unique") == {
        "l": [{"a": 1, "b": 2}, 1, {"a": 2}, True, "1"]
    }


@pytest.mark.requirement("R7")
def test_list_replaces_non_list_with_any_strategy():
    assert merge({"l": "x"}, {"l": [1]}, list_strategy="append") == {"l": [1]}
    assert merge({"l": [1]}, {"l": 5}, list_strategy="unique") == {"l": 5}


@pytest.mark.requirement("R7")
@pytest.mark.parametrize("strategy", ["merge", "", "APPEND"])
def test_unknown_strategy_raises(strategy):
    with pytest.raises(ValueError):
        merge({"a": 1}, {"b": 2}, list_strategy=strategy)


@pytest.mark.requirement("R7")
@pytest.mark.parametrize(
    "args, expected",
    [
        ((), '["a", "c"]\n'),
        (("--list-strategy", "append"), '["a", "b", "a", "c"]\n'),
        (("--list-strategy=unique",), '["a", "b", "c"]\n'),
    ],
)
def test_cli_list_strategy(cli, write, args, expected):
    one = write("one.json", '{"tags": ["a", "b"]}')
    two = write("two.toml", 'tags = ["a", "c"]\n')
    result = cli("get", *args, "tags", one, two)
    assert (result.code, result.out, result.err) == (0, expected, "")


@pytest.mark.requirement("R7")
def test_cli_invalid_list_strategy(cli, write):
    one = write("one.json", "{}")
    result = cli("dump", "--list-strategy", "merge", one)
    assert (result.code, result.out) == (2, "")
    assert result.err != ""


# --- R8: environment overrides ---------------------------------------------------------

@pytest.mark.requirement("R8")
def test_apply_env_example():
    environ = {"APP__DB__PORT": "5432", "APP__DEBUG": "true", "OTHER": "1"}
    result = apply_env({"db": {"host": "h"}}, environ)
    assert result == {"db": {"host": "h", "port": 5432}, "debug": True}


@pytest.mark.requirement("R8")
def test_apply_env_sorted_order_and_intermediate_replacement():
    environ = {"APP__DB__PORT": "1", "APP__DB": "x"}
    assert apply_env({}, environ) == {"db": {"port": 1}}
    assert apply_env({"db": {"port": 1}}, {"APP__DB": "off"}) == {"db": "off"}


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    "name",
    ["APP__", "APP__DB____PORT", "APP__DB__", "app__db", "APP_DB", "APPX__DB", "XAPP__DB"],
)
def test_apply_env_ignored_variables(name):
    assert apply_env({"db": {"port": 1}}, {name: "9"}) == {"db": {"port": 1}}


@pytest.mark.requirement("R8")
def test_apply_env_custom_prefix_coercion_and_lowercasing():
    environ = {"MY__Server__Name": '"42"', "MY__LIST": '["a", 1]', "APP__X": "1"}
    result = apply_env({"server": {"name": "old"}}, environ, prefix="MY")
    assert result == {"server": {"name": "42"}, "list": ["a", 1]}


@pytest.mark.requirement("R8")
def test_apply_env_does_not_modify_input():
    config = {"db": {"port": 1}}
    apply_env(config, {"APP__DB__PORT": "2"})
    assert config == {"db": {"port": 1}}


@pytest.mark.requirement("R8")
def test_cli_env_override(cli, write):
    conf = write("conf.toml", "[db]\nport = 5432\n")
    result = cli("get", "db.port", conf, env={"APP__DB__PORT": "6543", "APP__DB__SSL": "on"})
    assert (result.code, result.out) == (0, "6543\n")
    result = cli("get", "db", conf, env={"APP__DB__PORT": "6543", "APP__DB__SSL": "on"})
    assert result.out == '{"port": 6543, "ssl": "on"}\n'


@pytest.mark.requirement("R8")
def test_cli_no_env_and_env_prefix(cli, write):
    conf = write("conf.toml", "[db]\nport = 5432\n")
    env = {"APP__DB__PORT": "1", "SVC__DB__PORT": "2"}
    assert cli("get", "--no-env", "db.port", conf, env=env).out == "5432\n"
    assert cli("get", "--env-prefix", "SVC", "db.port", conf, env=env).out == "2\n"
    assert cli("get", "db.port", conf, env=env).out == "1\n"
