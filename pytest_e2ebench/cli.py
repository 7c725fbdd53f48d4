"""The ``e2ebench`` command: tools around the pytest plugin.

``e2ebench import e2edev SRC OUT`` converts E2EDev projects into web task folders,
``e2ebench import realdevbench SRC OUT`` RealDevBench projects into app task folders,
``e2ebench import deveval SRC OUT`` DevEval's Python repositories into tasks with every
lifecycle stage, ``e2ebench import e2edevbench DATASET OUT`` E2EDevBench's PyPI projects and
``e2ebench import projecteval SRC OUT`` ProjectEval's JSON into tasks with three levels and
parameters; ``e2ebench fetch NAME DEST`` downloads one of them at a pinned commit, checks its
content hash and imports it; ``e2ebench report RESULTS.json...`` rebuilds the summary (and
``--html``) from results files; ``e2ebench compare A.json B.json`` compares two agents on the
same tasks;
``e2ebench verify-import e2edev SRC TASKS`` compares the harness with E2EDev's Behave runner on
the imported reference apps, ``e2ebench verify-import pytest TASKS`` with plain pytest on
imported Python suites; ``e2ebench model fetch|serve`` a small local model behind llama-server
for the model test tier; ``e2ebench demo-model`` a stand-in model that writes each task's
reference, for a first LLM-agent run. The benchmark itself runs through pytest
(``pytest --e2e-agent=...``).
"""

from __future__ import annotations

import argparse
import sys

from .plugin import builtin_report_sections
from .report import commands as reports
from .tools import localmodel, verify
from .tools.importers import (
    deveval,
    e2edev,
    e2edev_verify,
    e2edevbench,
    fetch,
    gate,
    nl2repo,
    projecteval,
    projecteval_verify,
    realdevbench,
)
from .tools.testing import demo_model

IMPORTERS = {
    "e2edev": e2edev,
    "realdevbench": realdevbench,
    "deveval": deveval,
    "e2edevbench": e2edevbench,
    "projecteval": projecteval,
    "nl2repo": nl2repo,
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``e2ebench`` console script."""
    parser = argparse.ArgumentParser(
        prog="e2ebench", description="pytest-e2ebench tools (the benchmark runs via pytest)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    _add_importers(commands)
    _add_verifiers(commands)
    _add_reports(commands)
    _add_models(commands)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except reports.ResultsError as exc:
        parser.exit(2, f"e2ebench {args.command}: error: {exc}\n")


def _add_importers(commands) -> None:
    """``import FORMAT`` (one per importer) and ``fetch``: third-party benchmarks as tasks."""
    importing = commands.add_parser("import", help="convert a third-party benchmark into tasks")
    formats = importing.add_subparsers(dest="format", required=True)
    for name, module in IMPORTERS.items():
        sub = formats.add_parser(name, help=module.__doc__.splitlines()[0])
        module.add_arguments(sub)
        gated = getattr(module, "GATED", True)  # the import ends with its references tested
        if gated:
            gate.add_arguments(sub)
        sub.set_defaults(run=gate.gated(module.run) if gated else module.run)

    fetching = commands.add_parser(
        "fetch", help="download a published benchmark at a pinned commit, check it, import it"
    )
    fetch.add_arguments(fetching)
    fetching.set_defaults(run=fetch.run)


def _add_verifiers(commands) -> None:
    """``verify-import FORMAT``: imported references through the harness and the peer's runner."""
    verifying = commands.add_parser(
        "verify-import",
        help="run imported references through the harness and the peer's own runner; compare",
    )
    verifiers = verifying.add_subparsers(dest="format", required=True)

    sub = verifiers.add_parser("e2edev", help=e2edev_verify.__doc__.splitlines()[0])
    e2edev_verify.add_arguments(sub)
    sub.set_defaults(run=e2edev_verify.run)

    sub = verifiers.add_parser("projecteval", help=projecteval_verify.__doc__.splitlines()[0])
    projecteval_verify.add_arguments(sub)
    sub.set_defaults(run=projecteval_verify.run)

    sub = verifiers.add_parser(
        "pytest", help="Python suites (E2EDevBench, DevEval): the harness against plain pytest"
    )
    verify.add_arguments(sub)
    sub.set_defaults(run=verify.run)


def _add_reports(commands) -> None:
    """``report`` and ``compare``: reading results.json files."""
    reporting = commands.add_parser(
        "report", help="print the summary of results.json files; --html writes the HTML report"
    )
    reports.add_report_arguments(reporting)
    reporting.set_defaults(run=reports.report, sections=builtin_report_sections)
    comparing = commands.add_parser(
        "compare", help="paired comparison of two agents on the same tasks"
    )
    reports.add_compare_arguments(comparing)
    comparing.set_defaults(run=reports.compare)
    exporting = commands.add_parser("export", help="write runs in another format")
    formats = exporting.add_subparsers(dest="format", required=True)
    sub = formats.add_parser(
        "atif", help="each CLI agent run's trajectory in ATIF v1.8 (Harbor's format)"
    )
    reports.add_export_arguments(sub)
    sub.set_defaults(run=reports.export_atif)


def _add_models(commands) -> None:
    """``model`` and ``demo-model``: a local model, and a stand-in that writes the references."""
    modelling = commands.add_parser(
        "model", help="a small local model and llama-server for the model test tier (cached)"
    )
    localmodel.add_arguments(modelling)
    modelling.set_defaults(run=localmodel.run)

    demo = commands.add_parser(
        "demo-model",
        help="a stand-in OpenAI-compatible model that writes each task's reference (no model "
        "needed for a first LLM-agent run)",
    )
    demo_model.add_arguments(demo)
    demo.set_defaults(run=demo_model.run)


if __name__ == "__main__":
    sys.exit(main())
