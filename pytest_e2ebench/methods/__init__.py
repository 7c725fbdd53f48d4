"""The registry of benchmark methods: the built-in ones (DevEval's lifecycle stages, ProjectEval,
RealDevWorld's apps) and those outside packages add, through one mechanism.

A method is a module named by an entry point of the ``pytest_e2ebench.methods`` group
(:data:`ENTRY_POINT_GROUP`, beside the agents' ``pytest_e2ebench.agents``). The built-in methods
are entry points of the same kind (:data:`BUILTIN`, loaded with the same
:class:`importlib.metadata.EntryPoint`), so an outside method does everything a built-in does:

* its hooks (``pytest_addoption``, ``pytest_e2ebench_settings``, ``pytest_e2ebench_run_extras``
  ...): the harness registers its plugin module (the module itself, or the one its ``PLUGIN``
  names: the built-ins' ``<method>.plugin``) as the pytest plugin ``e2ebench-<name>``;
* the parts the centre looks up without a pytest session, module attributes read by
  :func:`parts`: ``TASK_SECTIONS`` (its tables of task.toml, :mod:`..taskmodel.sections`: the
  parsed value goes into the task's slot of the section's name), ``STAGE_INPUTS`` (its stage
  tables, :mod:`..run.plan`), ``PLAN_DEFAULTS``, ``PLAN_WHERE``, ``EVALUATIONS`` (task kinds),
  ``STAGE_RUNNERS`` (lifecycle stages), ``RUN_PARTS`` (the folder part its runs are filed under,
  :mod:`..run.runs`). A part given as ``"module:attribute"`` is imported when it is first asked
  for: loading a task imports a method's table parser, not its stages.

Loading is by name (as pytest loads its ``pytest11`` plugins), so no module of the centre imports
a method.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
from collections.abc import Callable
from types import ModuleType

from ..errors import E2EBenchError

ENTRY_POINT_GROUP = "pytest_e2ebench.methods"
# name -> plugin module: the built-in methods, entry points like any other
BUILTIN = {
    "stages": "pytest_e2ebench.methods.stages",
    "projecteval": "pytest_e2ebench.methods.projecteval",
    "apps": "pytest_e2ebench.methods.app",
    "toolchain": "pytest_e2ebench.methods.toolchain",
}
PLUGIN_PREFIX = "e2ebench-"  # a method's pytest plugin name: e2ebench-<name>


@dataclasses.dataclass(frozen=True)
class RunPart:
    """A method's folder part of its runs (``RUN_PARTS``, read by :mod:`..run.runs`):
    ``of_task`` gives it for a task as the session takes it, ``of_record`` for a run's record
    (how results.json names a run); both None for a run that is not the method's."""

    of_task: Callable[[object], str | None]
    of_record: Callable[[dict], str | None]


class MethodError(E2EBenchError):
    """A method's entry point that cannot be loaded; the message names it and the fix."""


def entry_points() -> list[importlib.metadata.EntryPoint]:
    """The built-in methods' entry points, then the installed ones of :data:`ENTRY_POINT_GROUP`
    (an installed one with a built-in's name does not replace it)."""
    found = [
        importlib.metadata.EntryPoint(name, value, ENTRY_POINT_GROUP)
        for name, value in BUILTIN.items()
    ]
    installed = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return found + sorted((ep for ep in installed if ep.name not in BUILTIN), key=lambda e: e.name)


@functools.cache
def registered() -> tuple[tuple[str, ModuleType], ...]:
    """Every method as (name, its module), loaded once per process."""
    loaded = []
    for point in entry_points():
        try:
            module = point.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin is named, whatever it raised
            raise MethodError(
                f"method {point.name!r}: entry point {point.value!r} of group "
                f"{ENTRY_POINT_GROUP} cannot be loaded ({type(exc).__name__}: {exc}); fix or "
                "uninstall the package that declares it"
            ) from exc
        loaded.append((point.name, module))
    return tuple(loaded)


def _resolve(module: ModuleType, name: str, value: object) -> object:
    """``value``, or what the ``"module:attribute"`` it is names (imported now)."""
    if not isinstance(value, str):
        return value
    try:
        return importlib.metadata.EntryPoint(name, value, ENTRY_POINT_GROUP).load()
    except Exception as exc:  # noqa: BLE001 - a broken plugin is named, whatever it raised
        raise MethodError(
            f"method module {module.__name__}: {name} = {value!r} cannot be loaded "
            f"({type(exc).__name__}: {exc}); fix or uninstall the package that declares it"
        ) from exc


@functools.cache
def parts(attribute: str) -> tuple:
    """Every method's entries of ``attribute`` (a tuple's items, a dict's pairs), in order."""
    found: list = []
    for _, module in registered():
        value = _resolve(module, attribute, getattr(module, attribute, ()))
        found.extend(value.items() if isinstance(value, dict) else value)
    return tuple(found)


def plugin_module(module: ModuleType) -> ModuleType:
    """The pytest plugin of the method ``module``: the one its ``PLUGIN`` names, or itself."""
    return _resolve(module, "PLUGIN", getattr(module, "PLUGIN", module))


def report_sections() -> list:
    """Every method's report sections (``pytest_e2ebench_report_sections`` of its module, asked
    without a session): what ``e2ebench report`` writes and the schema is composed of."""
    found = []
    for _, module in registered():
        hook = getattr(plugin_module(module), "pytest_e2ebench_report_sections", None)
        found.extend((hook(config=None) or []) if hook is not None else [])
    return found
