"""${...} interpolation, its errors and cycle detection (R9, R10)."""

import copy

import pytest

from cfgmerge import InterpolationError, interpolate


# --- R9: interpolation -----------------------------------------------------------------

@pytest.mark.requirement("R9")
def test_interpolation_example():
    config = {
        "db": {"host": "h", "port": 5432},
        "url": "pg://${db.host}:${db.port}/${USER}",
        "p": "${db.port}",
        "lit": "$${HOME}",
    }
    assert interpolate(config, {"USER": "bob", "HOME": "/root"}) == {
        "db": {"host": "h", "port": 5432},
        "url": "pg://h:5432/bob",
        "p": 5432,
        "lit": "${HOME}",
    }


@pytest.mark.requirement("R9")
def test_whole_reference_keeps_type():
    config = {"flag": True, "l": [1, "x"], "t": {"k": "${flag}"}, "a": "${flag}", "b": "${l}", "c": "${t}"}
    result = interpolate(config, {})
    assert result["a"] is True
    assert result["b"] == [1, "x"]
    assert result["c"] == {"k": True}
    assert result["t"] == {"k": True}


@pytest.mark.requirement("R9")
@pytest.mark.parametrize(
    "value, expected",
    [
        (1.5, "v=1.5"),
        (True, "v=true"),
        (False, "v=false"),
        (-3, "v=-3"),
        (1e20, "v=1e+20"),
        ("s", "v=s"),
    ],
)
def test_embedded_values_use_plain_text(value, expected):
    assert interpolate({"x": value, "y": "v=${x}"}, {})["y"] == expected


@pytest.mark.requirement("R9")
def test_chained_references_and_arrays():
    config = {"a": "${b}x", "b": "${c}y", "c": "z", "l": ["${a}", ["${c}!"], {"k": "${b}"}]}
    assert interpolate(config, {}) == {
        "a": "zyx",
        "b": "zy",
        "c": "z",
        "l": ["zyx", ["z!"], {"k": "zy"}],
    }


@pytest.mark.requirement("R9")
def test_config_wins_over_environment_and_env_values_are_verbatim():
    config = {"name": "cfg", "a": "${name}", "b": "${RAW}", "c": "${TOKEN}"}
    environ = {"name": "env", "RAW": "${name}", "TOKEN": "42"}
    assert interpolate(config, environ) == {"name": "cfg", "a": "cfg", "b": "${name}", "c": "42"}


@pytest.mark.requirement("R9")
def test_dollar_signs_and_escapes():
    config = {"a": "cost $5 and $$ and $x", "b": "$${x} $${y}", "x": "1"}
    assert interpolate(config, {}) == {"a": "cost $5 and $$ and $x", "b": "${x} ${y}", "x": "1"}


@pytest.mark.requirement("R9")
def test_keys_not_interpolated_and_input_unchanged():
    config = {"${k}": "${v}", "v": "val", "k": "key"}
    saved = copy.deepcopy(config)
    assert interpolate(config, {}) == {"${k}": "val", "v": "val", "k": "key"}
    assert config == saved


@pytest.mark.requirement("R9")
def test_default_environ_is_os_environ(monkeypatch):
    monkeypatch.setenv("CFGMERGE_TEST_VALUE", "from-env")
    assert interpolate({"a": "<${CFGMERGE_TEST_VALUE}>"}) == {"a": "<from-env>"}


@pytest.mark.requirement("R9")
def test_cli_interpolates_after_env_overrides(cli, write):
    conf = write("conf.toml", '[db]\nhost = "localhost"\nport = 5432\n[app]\nurl = "pg://${db.host}:${db.port}/${DBNAME}"\n')
    env = {"APP__DB__HOST": "prod", "DBNAME": "main"}
    result = cli("get", "app.url", conf, env=env)
    assert (result.code, result.out, result.err) == (0, "pg://prod:5432/main\n", "")


# --- R10: interpolation errors and cycles ----------------------------------------------

@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "config, message",
    [
        ({"a": "${b}", "b": "${a}"}, "reference cycle: a -> b -> a"),
        ({"a": "x${a}"}, "reference cycle: a -> a"),
        ({"x": "${y}", "y": "${z}", "z": "${y}"}, "reference cycle: y -> z -> y"),
        ({"a": {"b": "${a}"}}, "reference cycle: a -> a.b -> a"),
        ({"b": {"c": "${d}"}, "d": "-${b.c}-"}, "reference cycle: b.c -> d -> b.c"),
        ({"l": ["ok", "${l}"]}, "reference cycle: l -> l[1] -> l"),
    ],
)
def test_cycles(config, message):
    with pytest.raises(InterpolationError) as info:
        interpolate(config, {})
    assert str(info.value) == message


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    "config, message",
    [
        ({"db": {"url": "x${nope}"}}, "unresolved reference '${nope}' at db.url"),
        ({"l": ["ok", "${db.missing}"], "db": {}}, "unresolved reference '${db.missing}' at l[1]"),
        ({"a": "${b.c}", "b": "text"}, "unresolved reference '${b.c}' at a"),
    ],
)
def test_unresolved(config, message):
    with pytest.raises(InterpolationError) as info:
        interpolate(config, {"OTHER": "1"})
    assert str(info.value) == message


@pytest.mark.requirement("R10")
@pytest.mark.parametrize("text", ["${}", "x${a b}", "${a..b}", "x ${a", "${a}${"])
def test_malformed(text):
    with pytest.raises(InterpolationError) as info:
        interpolate({"a": "1", "k": text}, {})
    assert str(info.value) == "malformed reference at k"


@pytest.mark.requirement("R10")
@pytest.mark.parametrize("target", ["db", "hosts"])
def test_cannot_embed_table_or_array(target):
    config = {"db": {"port": 1}, "hosts": ["a"], "k": "x${" + target + "}"}
    with pytest.raises(InterpolationError) as info:
        interpolate(config, {})
    assert str(info.value) == f"cannot embed table or array '${{{target}}}' at k"


@pytest.mark.requirement("R10")
def test_cli_interpolation_error(cli, write):
    conf = write("conf.json", '{"a": "${b}", "b": "${a}"}')
    result = cli("dump", conf)
    assert (result.code, result.out) == (1, "")
    assert result.err == "cfgmerge: error: reference cycle: a -> b -> a\n"
    result = cli("get", "a", write("u.json", '{"a": "${UNSET_VARIABLE}"}'))
    assert (result.code, result.out) == (1, "")
    assert result.err == "cfgmerge: error: unresolved reference '${UNSET_VARIABLE}' at a\n"
