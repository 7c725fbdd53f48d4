"""DevEval's lifecycle stages (DevBench, Li et al., COLING 2025, arXiv:2403.08604).

An agent is graded on up to five stages of one task: software ``design``, environment
``setup``, ``implement``, ``acceptance-tests`` and ``unit-tests``. Each stage has its inputs
(the requirements document and the outputs of earlier stages) and its artefacts, which the
agent writes at fixed paths of its workspace (:data:`ARTEFACT_PATHS`). In *modular* mode, as in
DevEval, a stage gets the task's reference outputs of the stages before it; in *e2e* mode it
gets the agent's own outputs of those stages (from the same run).

A task provides the references in its folder (see docs/stages.md):

``design/class.mmd``, ``design/sequence.mmd``, ``design/architecture.txt``
    the Mermaid class diagram, the sequence diagram and the architecture file tree;
``setup/requirements.txt`` and ``setup/examples/*.py``
    the dependency file and the example-usage scripts;
``tests/`` (the reference tests)
    the reference answer of both test-writing stages (``tests/acceptance/`` and
    ``tests/unit/`` of each, when the task splits its tests so).

``implement`` is the pipeline of :mod:`pytest_e2ebench.run.pipeline` and needs none of these.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

# the stage names live with the run's identity; importable from here as before
from ...run.settings import IMPLEMENT as IMPLEMENT
from ...run.settings import STAGES as STAGES
from ...run.settings import MethodSettings
from ..toolchain import toolchain_of

MODES = ("modular", "e2e")
NAME = "stages"  # DevEval's key in Settings.methods

# the method's parts (pytest_e2ebench.methods): its hooks, its lifecycle stages' runner, and the
# key of a stage's grade (run.plan): the task's reference artefacts hashed, the judge, the format
PLUGIN = f"{__name__}.plugin"
STAGE_RUNNERS = f"{__name__}.run:STAGE_RUNNERS"
PLAN_SLOT = "stages"  # the method's slot of the run's plan (its entry point's name)
STAGE_INPUTS = {
    "stage-grade": (
        *("reference_hash", "stages.design_hash", "stages.setup_hash", "tests_hash"),
        *("stages.mutants_hash", "stages.stage_judge", "stages.stage_judge_model"),
        "stages.variant_format",
    ),
}


@dataclasses.dataclass(frozen=True)
class StageSettings(MethodSettings):
    """DevEval's settings besides the stages themselves (``Settings.stages``): what a stage is
    given of the earlier ones (``--e2e-stage-mode``: modular or e2e)."""

    mode: str = "modular"


def stage_settings(settings) -> StageSettings:
    """The session's settings of DevEval's stages (``settings``: the run's ``Settings``)."""
    return settings.method(NAME, StageSettings())


DESIGN_DIR = "design"
CLASS_DIAGRAM = "design/class.mmd"
SEQUENCE_DIAGRAM = "design/sequence.mmd"
ARCHITECTURE = "design/architecture.txt"
SETUP_DIR = "setup"
DEPENDENCY_FILE = "requirements.txt"
EXAMPLES_DIR = "setup/examples"
ACCEPTANCE_DIR = "tests/acceptance"
UNIT_DIR = "tests/unit"

# Where an agent (or a dir:/cmd: agent's output) puts each stage's artefacts.
ARTEFACT_PATHS: dict[str, tuple[str, ...]] = {
    "design": (CLASS_DIAGRAM, SEQUENCE_DIAGRAM, ARCHITECTURE),
    "setup": (DEPENDENCY_FILE, "pyproject.toml"),
    "acceptance-tests": (ACCEPTANCE_DIR,),
    "unit-tests": (UNIT_DIR,),
}
# The graded items of the design stage (one per artefact) and of the test stages.
DESIGN_ITEMS = ("class", "sequence", "architecture")
TEST_ITEMS = ("oracle",)


def parse_stages(raw: str) -> tuple[str, ...]:
    """``design,setup`` or ``all`` -> stage names in lifecycle order; ValueError if unknown."""
    names = [s.strip() for s in raw.split(",") if s.strip()]
    if "all" in names:
        return STAGES
    unknown = [n for n in names if n not in STAGES]
    if unknown or not names:
        raise ValueError(", ".join(unknown) or "(empty)")
    return tuple(s for s in STAGES if s in names)


@dataclasses.dataclass(frozen=True)
class StageReferences:
    """What a task folder provides for the stages besides ``implement``."""

    root: Path

    @property
    def design(self) -> Path:
        """``design/``: the reference class and sequence diagrams and file tree."""
        return self.root / DESIGN_DIR

    @property
    def dependency_file(self) -> Path:
        """``setup/requirements.txt``: the reference dependency file."""
        return self.root / SETUP_DIR / DEPENDENCY_FILE

    @functools.cached_property
    def examples(self) -> tuple[Path, ...]:
        """``setup/examples/*.py``: example-usage scripts, each passing iff it exits 0."""
        folder = self.root / EXAMPLES_DIR
        return tuple(sorted(folder.glob("*.py"))) if folder.is_dir() else ()

    def has(self, stage: str) -> bool:
        """True when the task carries the references ``stage`` needs."""
        if stage == "design":
            return all((self.root / p).is_file() for p in ARTEFACT_PATHS["design"])
        if stage == "setup":
            return self.dependency_file.is_file() and bool(self.examples)
        return True  # implement and the test stages use the task's reference and tests

    def problems(self) -> list[str]:
        """Half-provided references: each names the missing file and the fix."""
        name = self.root.name
        found = []
        design = [p for p in ARTEFACT_PATHS["design"] if (self.root / p).is_file()]
        if design and len(design) < len(ARTEFACT_PATHS["design"]):
            missing = sorted(set(ARTEFACT_PATHS["design"]) - set(design))
            found.append(
                f"{name}/{missing[0]}: missing; a task with a design/ reference needs "
                f"{', '.join(ARTEFACT_PATHS['design'])}"
            )
        has_deps = self.dependency_file.is_file()
        if has_deps != bool(self.examples):
            found.append(
                f"{name}/{SETUP_DIR}/: the setup stage needs both {SETUP_DIR}/{DEPENDENCY_FILE} "
                f"and example scripts {EXAMPLES_DIR}/*.py; add the missing one"
            )
        return found


def item_names(stage: str, refs: StageReferences) -> tuple[str, ...]:
    """The graded artefacts of ``stage`` (one pytest item each); empty for implement."""
    if stage == "design":
        return DESIGN_ITEMS
    if stage == "setup":
        return tuple(p.stem for p in refs.examples)
    if stage in ("acceptance-tests", "unit-tests"):
        return TEST_ITEMS
    return ()


def earlier(stage: str) -> tuple[str, ...]:
    """The stages whose outputs ``stage`` is given (DevBench Table 1: the inputs per task)."""
    inputs = {
        "design": (),
        "setup": ("design",),
        "implement": ("design",),
        "acceptance-tests": ("design",),
        "unit-tests": ("design", "implement"),
    }
    return inputs[stage]


def reference_artefacts(task, stage: str, workspace: Path) -> None:
    """Write the task's reference answer of ``stage`` into ``workspace`` (the oracle agent)."""
    import shutil

    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "baseline")
    if stage == "design":
        if (task.root / DESIGN_DIR).is_dir():
            shutil.copytree(task.root / DESIGN_DIR, workspace / DESIGN_DIR, ignore=ignore)
    elif stage == "setup":
        refs = StageReferences(task.root)
        if refs.dependency_file.is_file():
            shutil.copy2(refs.dependency_file, workspace / DEPENDENCY_FILE)
    elif toolchain_of(task) is not None:  # its own test folder (issue 43)
        found = toolchain_of(task).stage_suite(stage)
        if found is not None and (task.tests_dir / found[1]).is_dir():
            shutil.copytree(task.tests_dir / found[1], workspace / found[1], ignore=ignore)
    elif stage in ("acceptance-tests", "unit-tests"):
        folder = ACCEPTANCE_DIR if stage == "acceptance-tests" else UNIT_DIR
        own = task.tests_dir / Path(folder).name  # tests/acceptance or tests/unit, if split
        if own.is_dir():
            shutil.copytree(own, workspace / folder, ignore=ignore)
        else:
            task.copy_tests(workspace / folder)
