"""The benchmark methods built into the harness: DevEval's lifecycle stages, ProjectEval,
RealDevWorld's apps.

Each is a sub-package registered as a built-in plugin (``<name>.plugin``, through the hooks an
outside plugin implements) and, where a method adds a table to task.toml, by the task model's
section registry (``TASK_SECTIONS`` of the modules in :data:`TASK_SECTION_MODULES`,
:mod:`pytest_e2ebench.taskmodel.sections`).
"""

# relative to this package; loaded by name, as pytest loads its built-in plugins
TASK_SECTION_MODULES = ("app", "projecteval.section")
