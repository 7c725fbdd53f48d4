"""Validation against a small subset of JSON Schema, with default filling."""

import copy
import json
from typing import Any

from .errors import ValidationError
from .values import canonical, format_path

_TYPE_CHECKS = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
}


def type_name(value: Any) -> str:
    """Return the schema type name describing a configuration value."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return "number"


def validate(config: dict, schema: dict) -> dict:
    """Validate ``config`` against ``schema`` and return a copy with defaults filled in.

    Raises ValidationError listing every problem, or ValueError for an unknown type name.
    """
    result = copy.deepcopy(config)
    errors: list[str] = []
    _check(result, schema, [], errors)
    if errors:
        raise ValidationError(errors)
    return result


def _check(value: Any, schema: dict, path: list, errors: list[str]) -> None:
    """Check one value in place, filling defaults and collecting error messages."""
    where = format_path(path)
    expected = schema.get("type")
    if expected is not None:
        if expected not in _TYPE_CHECKS:
            raise ValueError(f"unknown schema type '{expected}'")
        if not _TYPE_CHECKS[expected](value):
            errors.append(f"{where}: expected {expected}, got {type_name(value)}")
            return
    if isinstance(value, dict):
        _check_object(value, schema, path, errors)
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            _check(item, schema["items"], path + [index], errors)
    if "enum" in schema:
        allowed = {canonical(member) for member in schema["enum"]}
        if canonical(value) not in allowed:
            members = json.dumps(schema["enum"], ensure_ascii=False)
            errors.append(f"{where}: must be one of {members}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: must be >= {json.dumps(schema['minimum'])}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: must be <= {json.dumps(schema['maximum'])}")


def _check_object(value: dict, schema: dict, path: list, errors: list[str]) -> None:
    """Apply ``properties``, ``required`` and ``additionalProperties`` to a dict."""
    properties = schema.get("properties", {})
    for name, subschema in properties.items():
        if name not in value and "default" in subschema:
            value[name] = copy.deepcopy(subschema["default"])
    for name in schema.get("required", []):
        if name not in value:
            errors.append(f"{format_path(path + [name])}: required key missing")
    if schema.get("additionalProperties") is False:
        for name in value:
            if name not in properties:
                errors.append(f"{format_path(path + [name])}: unknown key")
    for name, subschema in properties.items():
        if name in value:
            _check(value[name], subschema, path + [name], errors)
