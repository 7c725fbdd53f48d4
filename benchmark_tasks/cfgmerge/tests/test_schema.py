"""Schema validation: types and structure, enum and bounds, defaults (R11, R12, R13)."""

import copy
import json

import pytest

from cfgmerge import ValidationError, validate

EXAMPLE_SCHEMA = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "db": {"type": "object", "properties": {"port": {"type": "integer"}}},
        "hosts": {"type": "array", "items": {"type": "string"}},
    },
}


def errors_of(config, schema):
    with pytest.raises(ValidationError) as info:
        validate(config, schema)
    return info.value.errors


# --- R11: types and structure ----------------------------------------------------------

@pytest.mark.requirement("R11")
def test_schema_example():
    config = {"db": {"port": "x"}, "hosts": ["a", 1], "extra": True}
    assert errors_of(config, EXAMPLE_SCHEMA) == [
        "db.port: expected integer, got string",
        "extra: unknown key",
        "hosts[1]: expected string, got integer",
        "name: required key missing",
    ]


@pytest.mark.requirement("R11")
def test_valid_config_returns_equal_copy():
    config = {"name": "svc", "db": {"port": 1}, "hosts": ["a"]}
    saved = copy.deepcopy(config)
    result = validate(config, EXAMPLE_SCHEMA)
    assert result == saved
    result["db"]["port"] = 2
    assert config == saved


@pytest.mark.requirement("R11")
@pytest.mark.parametrize(
    "type_name, value, error",
    [
        ("integer", 3, None),
        ("integer", True, "v: expected integer, got boolean"),
        ("integer", 1.5, "v: expected integer, got number"),
        ("number", 3, None),
        ("number", 2.5, None),
        ("number", "1", "v: expected number, got string"),
        ("number", False, "v: expected number, got boolean"),
        ("boolean", 1, "v: expected boolean, got integer"),
        ("string", ["a"], "v: expected string, got array"),
        ("array", {}, "v: expected array, got object"),
        ("object", [], "v: expected object, got array"),
        ("object", {}, None),
    ],
)
def test_types(type_name, value, error):
    schema = {"properties": {"v": {"type": type_name}}}
    if error is None:
        assert validate({"v": value}, schema) == {"v": value}
    else:
        assert errors_of({"v": value}, schema) == [error]


@pytest.mark.requirement("R11")
def test_type_error_stops_other_checks_and_root_path():
    schema = {"properties": {"v": {"type": "integer", "enum": [1], "minimum": 5}}}
    assert errors_of({"v": "x"}, schema) == ["v: expected integer, got string"]
    assert errors_of({}, {"type": "array"}) == ["<root>: expected array, got object"]


@pytest.mark.requirement("R11")
def test_nested_required_and_allowed_additional_keys():
    schema = {
        "properties": {
            "db": {"required": ["host", "port"], "properties": {"host": {}}, "additionalProperties": True},
            "servers": {"items": {"required": ["name"]}},
        }
    }
    config = {"db": {"port": 1, "other": 2}, "servers": [{"name": "a"}, {}]}
    assert errors_of(config, schema) == ["db.host: required key missing", "servers[1].name: required key missing"]


@pytest.mark.requirement("R11")
def test_error_string_joins_sorted_messages():
    with pytest.raises(ValidationError) as info:
        validate({"b": 1, "a": 1}, {"additionalProperties": False, "properties": {}})
    assert info.value.errors == ["a: unknown key", "b: unknown key"]
    assert str(info.value) == "a: unknown key\nb: unknown key"


@pytest.mark.requirement("R11")
def test_unknown_type_name_raises_value_error():
    with pytest.raises(ValueError):
        validate({"a": 1}, {"properties": {"a": {"type": "int"}}})


@pytest.mark.requirement("R11")
def test_cli_validate_ok_and_failure(cli, write):
    schema = write("schema.json", json.dumps(EXAMPLE_SCHEMA))
    good = write("good.toml", 'name = "svc"\n[db]\nport = 5432\n')
    result = cli("validate", "--schema", schema, good)
    assert (result.code, result.out, result.err) == (0, "OK\n", "")
    result = cli("validate", "--schema", schema, good, env={"APP__DB__PORT": "x", "APP__EXTRA": "1"})
    assert (result.code, result.out) == (1, "")
    assert result.err == (
        "cfgmerge: invalid: db.port: expected integer, got string\n"
        "cfgmerge: invalid: extra: unknown key\n"
    )


@pytest.mark.requirement("R11")
def test_cli_dump_with_failing_schema(cli, write):
    schema = write("schema.json", '{"required": ["name"]}')
    conf = write("conf.json", '{"a": 1}')
    result = cli("dump", "--schema", schema, conf)
    assert (result.code, result.out) == (1, "")
    assert result.err == "cfgmerge: invalid: name: required key missing\n"


@pytest.mark.requirement("R11")
def test_cli_unknown_schema_type_is_usage_error(cli, write):
    schema = write("schema.json", '{"properties": {"a": {"type": "int"}}}')
    conf = write("conf.json", '{"a": 1}')
    result = cli("validate", "--schema", schema, conf)
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith("cfgmerge: error: invalid schema: ")


# --- R12: enum and bounds --------------------------------------------------------------

@pytest.mark.requirement("R12")
def test_enum():
    schema = {"properties": {"mode": {"enum": ["dev", "prod"]}}}
    assert validate({"mode": "dev"}, schema) == {"mode": "dev"}
    assert errors_of({"mode": "test"}, schema) == ['mode: must be one of ["dev", "prod"]']


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "value, enum, ok",
    [
        (1, [1, 2], True),
        (1.0, [1, 2], False),
        (True, [1], False),
        ({"b": 1, "a": 2}, [{"a": 2, "b": 1}], True),
        ([1, 2], [[2, 1]], False),
    ],
)
def test_enum_uses_sameness(value, enum, ok):
    schema = {"properties": {"v": {"enum": enum}}}
    if ok:
        assert validate({"v": value}, schema) == {"v": value}
    else:
        assert errors_of({"v": value}, schema) == [f"v: must be one of {json.dumps(enum)}"]


@pytest.mark.requirement("R12")
def test_enum_message_keeps_non_ascii():
    schema = {"properties": {"v": {"enum": ["caf\u00e9", 1]}}}
    assert errors_of({"v": "x"}, schema) == ['v: must be one of ["caf\u00e9", 1]']


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "value, error",
    [
        (1, None),
        (65535, None),
        (0, "port: must be >= 1"),
        (65536, "port: must be <= 65535"),
        (0.5, "port: must be >= 1"),
        (100.25, None),
    ],
)
def test_inclusive_bounds(value, error):
    schema = {"properties": {"port": {"minimum": 1, "maximum": 65535}}}
    if error is None:
        assert validate({"port": value}, schema) == {"port": value}
    else:
        assert errors_of({"port": value}, schema) == [error]


@pytest.mark.requirement("R12")
def test_float_bounds_and_non_numbers():
    schema = {"properties": {"r": {"minimum": 0.5, "maximum": 2.5}, "b": {"minimum": 5}, "s": {"maximum": 0}}}
    assert errors_of({"r": 0.25}, schema) == ["r: must be >= 0.5"]
    assert errors_of({"r": 3}, schema) == ["r: must be <= 2.5"]
    assert validate({"b": True, "s": "zzz"}, schema) == {"b": True, "s": "zzz"}


@pytest.mark.requirement("R12")
def test_enum_and_bound_errors_together():
    schema = {"properties": {"n": {"type": "integer", "enum": [10, 20], "maximum": 15}}}
    assert errors_of({"n": 30}, schema) == ["n: must be <= 15", "n: must be one of [10, 20]"]


@pytest.mark.requirement("R12")
def test_cli_bounds_failure(cli, write):
    schema = write("schema.json", '{"properties": {"db": {"properties": {"port": {"maximum": 65535}}}}}')
    conf = write("conf.toml", "[db]\nport = 70000\n")
    result = cli("get", "--schema", schema, "db.port", conf)
    assert (result.code, result.out) == (1, "")
    assert result.err == "cfgmerge: invalid: db.port: must be <= 65535\n"


# --- R13: defaults ---------------------------------------------------------------------

DEFAULTS_SCHEMA = {"properties": {"db": {"properties": {"port": {"default": 5432}}}}}


@pytest.mark.requirement("R13")
@pytest.mark.parametrize(
    "config, expected",
    [
        ({"db": {}}, {"db": {"port": 5432}}),
        ({}, {}),
        ({"db": {"port": 1}}, {"db": {"port": 1}}),
    ],
)
def test_defaults_example(config, expected):
    saved = copy.deepcopy(config)
    assert validate(config, DEFAULTS_SCHEMA) == expected
    assert config == saved


@pytest.mark.requirement("R13")
def test_required_with_default_and_recursive_fill():
    schema = {
        "required": ["db"],
        "properties": {
            "db": {
                "type": "object",
                "default": {},
                "required": ["port"],
                "properties": {"port": {"type": "integer", "default": 5432}, "opts": {"default": {"ssl": False}}},
            }
        },
    }
    assert validate({}, schema) == {"db": {"port": 5432, "opts": {"ssl": False}}}


@pytest.mark.requirement("R13")
def test_defaults_are_validated():
    schema = {"properties": {"port": {"type": "integer", "default": "x"}, "n": {"default": 3, "minimum": 5}}}
    assert errors_of({}, schema) == ["n: must be >= 5", "port: expected integer, got string"]


@pytest.mark.requirement("R13")
def test_defaults_are_copied():
    schema = {"properties": {"tags": {"default": ["a"]}}}
    first = validate({}, schema)
    first["tags"].append("b")
    assert validate({}, schema) == {"tags": ["a"]}
    assert schema == {"properties": {"tags": {"default": ["a"]}}}


@pytest.mark.requirement("R13")
def test_cli_outputs_filled_defaults(cli, write):
    schema = write("schema.json", '{"properties": {"db": {"properties": {"port": {"default": 5432}, "ssl": {"default": true}}}}}')
    conf = write("conf.ini", "[db]\nhost = h\n")
    result = cli("get", "--schema", schema, "db.port", conf)
    assert (result.code, result.out) == (0, "5432\n")
    result = cli("dump", conf, "--schema", schema)
    assert result.out == '{\n  "db": {\n    "host": "h",\n    "port": 5432,\n    "ssl": true\n  }\n}\n'
    assert cli("get", "db.port", conf).code == 1
