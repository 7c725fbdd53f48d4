"""The benchmark methods built into the harness: DevEval's lifecycle stages, ProjectEval,
RealDevWorld's apps.

Each is a sub-package registered as a built-in plugin (``<name>.plugin``, through the hooks an
outside plugin implements: ``pytest_e2ebench.plugin.builtin_methods``). Where a method adds a
part the centre looks up by name -- a table of task.toml (``TASK_SECTIONS``, read by
:mod:`pytest_e2ebench.taskmodel.sections`), the evaluation style of a task kind
(``EVALUATIONS``, :mod:`pytest_e2ebench.run.evaluation`), the runner of a lifecycle stage
(``STAGE_RUNNERS``, :mod:`pytest_e2ebench.run.pipeline`) -- :data:`BUILTIN` names the modules
that hold it, loaded on first use by :func:`builtin` (as pytest loads its own plugins from a
list of names), so the centre never imports a method.
"""

from __future__ import annotations

import functools
import importlib

# attribute -> the modules (relative to this package) whose attribute of that name adds to it
BUILTIN = {
    "TASK_SECTIONS": ("app", "projecteval.section", "toolchain"),
    "EVALUATIONS": ("app.style", "toolchain.style"),
    "STAGE_RUNNERS": ("stages.run",),
}


@functools.cache
def builtin(attribute: str) -> tuple:
    """The built-in methods' entries of ``attribute`` (a tuple's items, a dict's pairs)."""
    found: list = []
    for name in BUILTIN[attribute]:
        value = getattr(importlib.import_module(f"{__name__}.{name}"), attribute)
        found.extend(value.items() if isinstance(value, dict) else value)
    return tuple(found)
