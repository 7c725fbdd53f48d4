"""The JSON Schema of results.json (``results.schema.json``, shipped with the package).

docs/metrics.md says what each key means; the schema says which keys a script may rely on and
their types. The tests validate every results.json a session of the suite writes against it.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS_SCHEMA = Path(__file__).with_name("results.schema.json")


def results_schema() -> dict:
    """The schema document of results.json (draft 2020-12)."""
    return json.loads(RESULTS_SCHEMA.read_text(encoding="utf-8"))


def results_problems(document: object) -> list[str]:
    """Why ``document`` is not a valid results.json: one line per problem, each naming the
    path of the offending value (``tasks/0/metrics/impl_rate``); empty when it is valid."""
    # jsonschema is a development dependency (pytest-e2ebench[dev]): only checks import it
    import jsonschema

    validator = jsonschema.Draft202012Validator(
        results_schema(), format_checker=jsonschema.FormatChecker()
    )
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(document)'}: {error.message[:300]}"
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    ]
