"""What hooks return: typed, JSON-able results (issue #13.2; docs/plugins.md).

Every class has ``to_dict`` (JSON-able builtins only, what crosses xdist and lands in
results.json) and ``from_dict`` (its inverse; keys it does not know are kept in ``extra``, so a
round trip loses nothing). Hooks may still return the plain dicts of earlier versions:
:func:`MigrationResult.coerce` and :func:`Judgement.coerce` accept both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypedDict

VERDICTS = ("implemented", "not_implemented", "inconclusive")
# the user_properties key a run's record rides on from an xdist worker to the reporter
RECORD_PROPERTY = "e2ebench"


def _split(cls, data: dict) -> tuple[dict, dict]:
    """``data`` as (the fields of ``cls`` except ``extra``, everything else)."""
    names = {f.name for f in dataclasses.fields(cls)} - {"extra"}
    return {k: v for k, v in data.items() if k in names}, {
        k: v for k, v in data.items() if k not in names
    }


def _to_dict(obj) -> dict:
    """The fields, ``extra`` merged in flat; fields left at None are omitted."""
    out = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name != "extra"}
    out = {k: list(v) if isinstance(v, tuple) else v for k, v in out.items() if v is not None}
    return {**obj.extra, **out}


@dataclasses.dataclass
class MigrationResult:
    """What ``pytest_e2ebench_migrate_tests`` returns about the tests it wrote.

    ``mapped``: what it changed (e.g. original import name -> generated name); ``missing``:
    names it could not map; ``packages``: packages of the generated project it found. Any key in
    ``extra`` is kept in the run's ``migration.json``; ``migrator``, ``mapped``, ``missing`` and
    ``packages`` go into the record's ``migration``.
    """

    migrator: str
    mapped: dict | list | None = None
    missing: list[str] | None = None
    packages: list[str] | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-able form."""
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict) -> MigrationResult:
        """The inverse of :meth:`to_dict`."""
        fields, extra = _split(cls, data)
        if not isinstance(fields.get("migrator"), str):
            raise ValueError(
                "a migration result needs 'migrator' (a string naming the migrator), got "
                f"{sorted(data)}; return MigrationResult(migrator='<name>', ...)"
            )
        return cls(**fields, extra=extra)

    @classmethod
    def coerce(cls, value: MigrationResult | dict) -> MigrationResult:
        """A hook's return value (a MigrationResult, or the dict of earlier versions)."""
        return value if isinstance(value, cls) else cls.from_dict(dict(value))


@dataclasses.dataclass
class RequirementVerdict:
    """A judge's decision on one requirement.

    Only ``id`` and ``verdict`` are the judge's to decide. ``tests``, ``passed`` and ``failing``
    (the requirement's reference tests and checks, those that passed, those that did not) are
    facts of the test run: left at None, the harness fills them in, as it does ``title`` and
    ``tags``. Anything in ``extra`` (e.g. ``{"confidence": 0.9}``) is kept in the requirement's
    entry of results.json.
    """

    id: str
    verdict: str
    title: str | None = None
    tags: list[str] | None = None
    tests: int | None = None
    passed: int | None = None
    failing: list[dict] | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(
                f"requirement {self.id}: verdict {self.verdict!r} is not one of "
                f"{', '.join(VERDICTS)}"
            )

    def to_dict(self) -> dict:
        """JSON-able form: the fields (None ones left out), ``extra`` flat beside them."""
        return _to_dict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RequirementVerdict:
        """The inverse of :meth:`to_dict`."""
        fields, extra = _split(cls, data)
        missing = [k for k in ("id", "verdict") if k not in fields]
        if missing:
            raise ValueError(
                f"a requirement verdict needs {' and '.join(map(repr, missing))}, got "
                f"{sorted(data)}; e.g. {{'id': 'R1', 'verdict': 'implemented'}}"
            )
        return cls(**fields, extra=extra)


@dataclasses.dataclass
class Judgement:
    """What ``pytest_e2ebench_judge_requirements`` returns: a verdict per requirement.

    ``extra`` holds run-level findings (e.g. ``{"my_judge": {"model": ...}}``); each key is
    copied into the run's entry of results.json (``verdicts`` and the record's own keys such as
    ``metrics`` are reserved).
    """

    verdicts: list[RequirementVerdict]
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-able form: ``{"verdicts": [...], **extra}``."""
        return {**self.extra, "verdicts": [v.to_dict() for v in self.verdicts]}

    @classmethod
    def from_dict(cls, data: dict) -> Judgement:
        """The inverse of :meth:`to_dict`."""
        if not isinstance(data.get("verdicts"), list):
            raise ValueError(
                f"a judgement needs 'verdicts' (a list, one per requirement), got {sorted(data)}"
            )
        extra = {k: v for k, v in data.items() if k != "verdicts"}
        return cls([RequirementVerdict.from_dict(v) for v in data["verdicts"]], extra)

    @classmethod
    def coerce(cls, value) -> Judgement:
        """A hook's return value: a Judgement, a list of verdicts, or the old dict."""
        if isinstance(value, cls):
            return value
        if isinstance(value, list):
            return cls(
                [
                    v if isinstance(v, RequirementVerdict) else RequirementVerdict.from_dict(v)
                    for v in value
                ]
            )
        return cls.from_dict(dict(value))


@dataclasses.dataclass
class RunRecord:
    """One run's entry of results.json (see docs/reports.md), as the hooks see it.

    ``requirements`` are the verdicts as they are written (dicts), ``metrics`` the run's
    metrics (None for a run that ended in an error); every other key of the record is in
    ``extra`` and :meth:`to_dict` gives back the record as it was.
    """

    schema: str
    task: str
    agent: str
    run: int
    status: str  # "ok" or "error"
    requirements: list[dict]
    metrics: dict | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict:
        """The record as results.json holds it."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {**out.pop("extra"), **out}

    @classmethod
    def from_dict(cls, data: dict) -> RunRecord:
        """The inverse of :meth:`to_dict`."""
        fields, extra = _split(cls, data)
        return cls(**fields, extra=extra)

    def verdict_of(self, requirement_id: str) -> dict | None:
        """The entry of one requirement, or None."""
        return next((r for r in self.requirements if r["id"] == requirement_id), None)


# --- DevEval's design judge (pytest_e2ebench_judge_design) ---------------------------------------

DESIGN_ARTEFACTS = ("class", "sequence", "architecture")  # DevEval's three design outputs
# What the design judge gets twice (the answer, the baseline): each artefact's text or None.
# Functional form: "class" is a keyword.
Design = TypedDict(
    "Design", {"class": str | None, "sequence": str | None, "architecture": str | None}
)


def check_design(design: dict, name: str) -> Design:
    """``design`` as the design judge receives it: each of :data:`DESIGN_ARTEFACTS` mapped to
    its text, or None when missing. Anything else is a ValueError naming ``name`` and the key."""
    if not isinstance(design, dict):
        raise ValueError(f"{name}: a design is a dict of artefact -> text, got {type(design)}")
    unknown = sorted(set(design) - set(DESIGN_ARTEFACTS))
    if unknown:
        raise ValueError(
            f"{name}: unknown design artefact(s) {unknown}; use {', '.join(DESIGN_ARTEFACTS)}"
        )
    for key, text in design.items():
        if text is not None and not isinstance(text, str):
            raise ValueError(f"{name}[{key!r}]: the artefact's text or None, got {type(text)}")
    return Design(**{key: design.get(key) for key in DESIGN_ARTEFACTS})


def _rate(value, name: str) -> float | None:
    """A fraction in [0, 1] or None; else a ValueError naming the field."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"design judgement: {name} = {value!r}; a fraction in [0, 1] or None")
    return float(value)


@dataclasses.dataclass
class DesignJudgement:
    """What ``pytest_e2ebench_judge_design`` returns: DevEval's two win rates of the agent's
    design over the baseline (fractions, or None when nothing was decided) and anything else
    the judge keeps in ``extra`` (``criteria``, ``wins``, ...). The whole dict is the stage
    record's ``details.judge``; the two rates join the stage's ``metrics``."""

    win_rate: float | None
    win_rate_no_ties: float | None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        self.win_rate = _rate(self.win_rate, "win_rate")
        self.win_rate_no_ties = _rate(self.win_rate_no_ties, "win_rate_no_ties")

    def to_dict(self) -> dict:
        """JSON-able form: ``extra`` flat beside the two rates (None rates kept)."""
        return {**self.extra, "win_rate": self.win_rate, "win_rate_no_ties": self.win_rate_no_ties}

    @classmethod
    def from_dict(cls, data: dict) -> DesignJudgement:
        """The inverse of :meth:`to_dict`; both rates must be named (None is a value)."""
        missing = [k for k in ("win_rate", "win_rate_no_ties") if k not in data]
        if missing:
            raise ValueError(
                f"a design judgement needs {' and '.join(missing)}, got {sorted(data)}; "
                "return DesignJudgement(win_rate, win_rate_no_ties, extra={...})"
            )
        fields, extra = _split(cls, data)
        return cls(**fields, extra=extra)

    @classmethod
    def coerce(cls, value) -> DesignJudgement:
        """A hook's return value: a DesignJudgement or the dict of earlier versions."""
        if isinstance(value, cls):
            return value
        if not isinstance(value, dict):
            raise ValueError(
                f"pytest_e2ebench_judge_design returned {type(value).__name__}; return a "
                "DesignJudgement (or a dict with win_rate and win_rate_no_ties) or None"
            )
        return cls.from_dict(dict(value))


# --- report sections (pytest_e2ebench_report_sections) -------------------------------------------


@dataclasses.dataclass(frozen=True)
class ReportSection:
    """A section of the session's report that a method (or a plugin) adds.

    ``key`` is its top-level key in results.json. ``summarize(records, stage_records)`` gets
    every run record and every lifecycle-stage record of the session (dicts, as results.json
    holds them) and returns the section's JSON-able content, or None to leave the key out.
    ``write(tr, document)`` writes its terminal lines from the finished document through
    ``tr.write_sep``/``tr.write_line`` (the terminal reporter, or ``e2ebench report``'s
    stand-in); ``before_summary`` puts them above the run table instead of below it.

    ``schema`` is the JSON Schema (draft 2020-12) of the section's value, and ``run_schema``
    the schemas of the keys the method adds to a run's entry of ``tasks`` (name -> schema):
    the schema results.json is validated against is the core's with every section's parts
    (:func:`pytest_e2ebench.schema.results_schema`). A section without ``schema`` admits any
    value.
    """

    key: str
    summarize: Callable[[list[dict], list[dict]], dict | None]
    write: Callable[[Any, dict], None] | None = None
    before_summary: bool = False
    schema: dict | None = None
    run_schema: dict | None = None
