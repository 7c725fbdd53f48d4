"""Feature-list tasks (``kind = "app"``) judged by a browser agent: RealDevWorld (issue #15).

A task gives a short SRD and a feature list (``### F1: ...``); there are no hand-written tests.
The harness starts the generated app under the task's launch contract, checks that it is
*executable*, has an LLM write concrete test cases from the feature list (:mod:`.cases`), lets
an LLM agent carry out each case in headless Chromium (:mod:`.agent`, through the sandboxed
driver :mod:`e2ebench_app` and :mod:`.session`), and a JudgeLLM turn each report into Yes / No /
Indeterminate (:mod:`.judge`). SQ is the mean of the case results (0 for an app that is not
executable); feature ``F1`` is implemented iff all its cases pass (:mod:`.evaluate`).
"""

from __future__ import annotations

import dataclasses
import re

from ...run.settings import MethodSettings
from ...taskmodel.sections import SectionSource, TaskSection
from ...taskmodel.task import FEATURE_PREFIX

LAUNCH_MODES = ("static", "command")
SCENARIOS = ("display", "analysis", "data", "game")  # RealDevBench's four scenarios
DEFAULT_CASES = (15, 20)  # RealDevWorld §3.2: 15-20 test cases per app
DEFAULT_STEPS = 20  # actions per test case of the app judge's browser agent
NAME = "app"  # the apps' key in Settings.methods, and their task slot

# the method's parts (pytest_e2ebench.methods): its hooks, its task kind's evaluation style,
# and the stages of an app's evaluation with the plan fields their keys are made of (run.plan)
PLUGIN = f"{__name__}.plugin"
EVALUATIONS = f"{__name__}.style:EVALUATIONS"
PLAN_SLOT = "apps"  # the method's slot of the run's plan (its entry point's name)
STAGE_INPUTS = {
    "app-eval": (
        *("materials", "apps.app", "apps.app_steps", "test_timeout", "apps.app_judge"),
        *("timeout", "requirements", "apps.model", "apps.app_cases"),
    ),
    "app-cases": ("requirements", "apps.model", "apps.app_cases"),
}


@dataclasses.dataclass(frozen=True)
class AppSettings(MethodSettings):
    """The apps' settings: test cases the LLM writes (MIN, MAX; ``--e2e-app-cases``) and the
    browser actions the judging agent may take per case (``--e2e-app-steps``)."""

    cases: tuple[int, int] = DEFAULT_CASES
    steps: int = DEFAULT_STEPS


def app_settings(settings) -> AppSettings:
    """The session's settings of the apps (``settings``: the run's ``Settings``)."""
    return settings.method(NAME, AppSettings())


@dataclasses.dataclass(frozen=True)
class AppSpec:
    """The ``[app]`` table of an app task's task.toml: how any generated app is started."""

    launch: str = "static"
    command: tuple[str, ...] = ()  # launch = "command": argv; "{port}" is the harness's port
    entry: str = ""  # the first page, relative to the app's root ("" = "/")
    scenario: str = ""
    network: bool = False

    def to_dict(self) -> dict:
        """JSON-able form (a stage key part, the driver's start message)."""
        return {**dataclasses.asdict(self), "command": list(self.command)}


def parse_app(meta: dict, where: str, problems: list[str]) -> AppSpec:
    """The ``[app]`` table, every problem naming the field and the fix."""
    table = meta.get("app", {})
    if not isinstance(table, dict):
        problems.append(f"{where}: field 'app' must be a table ([app] with launch = \"static\")")
        return AppSpec()
    launch = table.get("launch", "static")
    if launch not in LAUNCH_MODES:
        problems.append(
            f"{where}: field 'app.launch' = {launch!r}: use \"static\" (the harness serves the "
            'folder) or "command" (with app.command, serving on the port in $PORT / {port})'
        )
        launch = "static"
    command = table.get("command", [])
    if isinstance(command, str):
        command = command.split()
    if not isinstance(command, list) or not all(isinstance(c, str) for c in command):
        problems.append(
            f"{where}: field 'app.command' must be a list of strings, "
            'e.g. command = ["python3", "server.py", "--port", "{port}"]'
        )
        command = []
    if launch == "command" and not command:
        problems.append(
            f"{where}: field 'app.command' is missing; launch = \"command\" needs the command "
            'that serves the app, e.g. command = ["python3", "server.py", "--port", "{port}"]'
        )
    if launch == "static" and command:
        problems.append(
            f"{where}: field 'app.command' is set but app.launch is \"static\"; "
            'write launch = "command" or drop the command'
        )
    entry = table.get("entry", "")
    if not isinstance(entry, str) or entry.startswith("/") or ".." in entry.split("/"):
        problems.append(
            f"{where}: field 'app.entry' = {entry!r} must be a path inside the app, "
            'e.g. entry = "index.html" (or leave it out for "/")'
        )
        entry = ""
    scenario = table.get("scenario", "")
    if scenario and scenario not in SCENARIOS:
        problems.append(
            f"{where}: field 'app.scenario' = {scenario!r}: use one of {', '.join(SCENARIOS)}"
        )
    network = table.get("network", False)
    if not isinstance(network, bool):
        problems.append(f"{where}: field 'app.network' = {network!r} must be true or false")
        network = False
    unknown = sorted(set(table) - {"launch", "command", "entry", "scenario", "network"})
    if unknown:
        problems.append(
            f"{where}: unknown field(s) {', '.join('app.' + u for u in unknown)}; "
            "[app] takes launch, command, entry, scenario, network"
        )
    return AppSpec(launch, tuple(command), entry, scenario, network)


FEATURE_ID = re.compile(rf"^{FEATURE_PREFIX}\d+$")


def app_section(source: SectionSource) -> AppSpec | None:
    """The task's ``app`` slot: an app task's launch contract, else None."""
    return parse_app(source.meta, source.where, source.problems) if source.kind == "app" else None


TASK_SECTIONS = (TaskSection(NAME, app_section),)


def app_spec(task) -> AppSpec | None:
    """The launch contract of ``task`` (its ``app`` slot), None for a task of another kind."""
    return task.slots.get(NAME)
