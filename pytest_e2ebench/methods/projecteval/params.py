"""The agent's parameter values (PV): read from its project, checked, handed to the tests.

The project's ``parameters.json`` is project-zone data: read with a size bound, never
followed through a link, and each value checked on its own. The harness writes what it found
(values and, per parameter, why one is unusable) as ``e2ebench_pv.json`` next to the
migrated tests, where the ``pv`` fixture of the :mod:`e2ebench_pv` plugin reads it. A test
that asks for a missing or malformed value fails with a message naming the parameter; the
other tests do not notice.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import AgentFileError
from ...untrusted.parse import read_json
from . import PARAMETERS_FILE, ProjectEvalSpec

PV_FILE = "e2ebench_pv.json"  # what the probe-side plugin reads (name shared with it)
MAX_PV_BYTES = 256 << 10
MAX_VALUE_CHARS = 4096


def read_answers(repo: Path, spec: ProjectEvalSpec) -> dict:
    """``{"values": {name: str}, "problems": {name: why}}`` of the project in ``repo``."""
    values: dict[str, str] = {}
    problems: dict[str, str] = {}
    try:
        data = read_json(repo, PARAMETERS_FILE, max_bytes=MAX_PV_BYTES)
    except AgentFileError as exc:  # a link, too large, too deep, not JSON: the agent's
        return {"values": {}, "problems": dict.fromkeys(spec.parameters, str(exc))}
    if data is None:
        why = f"the project has no {PARAMETERS_FILE}"
        return {"values": {}, "problems": dict.fromkeys(spec.parameters, why)}
    if not isinstance(data, dict):
        why = f"{PARAMETERS_FILE} is not a JSON object of name -> value"
        return {"values": {}, "problems": dict.fromkeys(spec.parameters, why)}
    for name in spec.parameters:
        value = data.get(name)
        if name not in data:
            problems[name] = f"{PARAMETERS_FILE} has no value for {name!r}"
        elif isinstance(value, bool) or not isinstance(value, str | int | float):
            problems[name] = f"{PARAMETERS_FILE}: {name!r} = {value!r:.80} is not a string"
        elif len(str(value)) > MAX_VALUE_CHARS:
            problems[name] = f"{PARAMETERS_FILE}: {name!r} is over {MAX_VALUE_CHARS} chars"
        elif not str(value).strip() and spec.canonical.get(name, None) != "":
            # an empty answer is taken only where the task's own canonical value is empty
            # (ProjectEval's project 11 answers title_text with ""; its test passes)
            problems[name] = f"{PARAMETERS_FILE}: {name!r} is empty"
        elif "\x00" in str(value):
            problems[name] = f"{PARAMETERS_FILE}: {name!r} contains a NUL character"
        else:
            values[name] = str(value)
    return {"values": values, "problems": problems}


def write_pv_file(dest: Path, answers: dict, project_dir: Path) -> Path:
    """Write the checked answers for the ``pv`` fixture into the tests folder ``dest``."""
    path = dest / PV_FILE
    payload = {**answers, "project_dir": str(project_dir)}
    path.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path
