"""The JSON Schema of results.json: the core's part (``results.schema.json``, shipped with the
package) composed with each method's report section (its top-level key and the keys it adds to
a run, :class:`~pytest_e2ebench.contracts.ReportSection`'s ``schema`` and ``run_schema``).

docs/metrics.md says what each key means; the schema says which keys a script may rely on and
their types. The tests validate every results.json a session of the suite writes against it,
and so do ``e2ebench report`` and ``compare`` with every file they read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from .. import methods
from ..contracts import ReportSection

RESULTS_SCHEMA = Path(__file__).with_name("results.schema.json")


def results_schema(sections: Sequence[ReportSection] | None = None) -> dict:
    """The schema document of results.json (draft 2020-12): the core's with the parts of
    ``sections`` (default: every registered method's, built-in and installed)."""
    # the harness's own file, shipped with the package: a missing one is a broken install
    document = json.loads(RESULTS_SCHEMA.read_text(encoding="utf-8"))
    found = methods.report_sections() if sections is None else sections
    for section in found:
        document["properties"][section.key] = section.schema if section.schema else {}
        document["$defs"]["run"]["properties"].update(section.run_schema or {})
    return document


def results_problems(
    document: object, sections: Sequence[ReportSection] | None = None
) -> list[str]:
    """Why ``document`` is not a valid results.json (against :func:`results_schema` of
    ``sections``): one line per problem, each naming the path of the offending value
    (``tasks/0/metrics/impl_rate``); empty when it is valid."""
    import jsonschema  # only a check imports it (0.1 s): not loaded by a benchmark session

    validator = jsonschema.Draft202012Validator(
        results_schema(sections), format_checker=jsonschema.FormatChecker()
    )
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(document)'}: {error.message[:300]}"
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    ]
