"""Command-line interface: ``python -m jsonkit patch|diff|merge FILE1 FILE2``.

Exit status 0 means success, 1 that a patch could not be applied and 2 a usage error,
an unreadable file or invalid JSON input.  Results go to stdout, errors to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .canonical import canonical_dumps
from .diff import diff
from .errors import PatchError
from .merge import merge_patch
from .patch import apply_patch

EXIT_OK = 0
EXIT_PATCH_FAILED = 1
EXIT_USAGE = 2

STDIN = "-"

#: command name -> (help text, names of the two files, function combining their contents)
COMMANDS: dict[str, tuple[str, tuple[str, str], Callable[[Any, Any], Any]]] = {
    "patch": ("apply a JSON Patch (RFC 6902) to a document", ("DOCUMENT", "PATCH"), apply_patch),
    "diff": ("print a JSON Patch turning SOURCE into TARGET", ("SOURCE", "TARGET"), diff),
    "merge": ("apply a JSON Merge Patch (RFC 7396) to a document", ("DOCUMENT", "MERGE_PATCH"), merge_patch),
}


class InputError(Exception):
    """An input file cannot be read or does not hold valid JSON."""


def _indent(text: str) -> int:
    """argparse type for ``--indent``: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got '{text}'")
    return value


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``jsonkit`` command."""
    parser = argparse.ArgumentParser(prog="jsonkit", description="Process JSON documents.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, (first, second), _) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("first", metavar=first, help="JSON file, or '-' for standard input")
        sub.add_argument("second", metavar=second, help="JSON file, or '-' for standard input")
        sub.add_argument("--indent", type=_indent, default=None, metavar="N",
                         help="pretty-print with N spaces instead of canonical output")
    return parser


def _reject_constant(name: str) -> Any:
    """``json.loads`` hook: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON."""
    raise ValueError(f"{name} is not allowed")


def _finite_float(text: str) -> float:
    """``json.loads`` hook: a number too large for a float is rejected, not made infinite."""
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"number {text} is out of range")
    return number


def load_json(name: str) -> Any:
    """Read and parse the strict JSON held by file *name* (``-`` is standard input)."""
    try:
        if name == STDIN:
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise InputError(f"cannot read '{name}': {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read '{name}': not UTF-8 text") from exc
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except ValueError as exc:  # json.JSONDecodeError and the hooks' rejections
        raise InputError(f"invalid JSON in '{name}': {exc}") from exc


def render(value: Any, indent: int | None) -> str:
    """Return the output text of *value*: canonical, or pretty-printed with *indent*."""
    if indent is None:
        return canonical_dumps(value)
    return json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line given by *argv* (default ``sys.argv[1:]``); return the exit status.

    Usage errors raise ``SystemExit(2)`` through argparse.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.first == STDIN and args.second == STDIN:
        parser.error("standard input ('-') can be used for one file only")
    combine = COMMANDS[args.command][2]
    try:
        result = combine(load_json(args.first), load_json(args.second))
    except InputError as exc:
        print(f"jsonkit: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except PatchError as exc:
        print(f"jsonkit: error: {exc}", file=sys.stderr)
        return EXIT_PATCH_FAILED
    sys.stdout.write(render(result, args.indent) + "\n")
    return EXIT_OK
