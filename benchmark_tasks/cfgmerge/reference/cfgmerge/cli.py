"""Command-line interface: ``python -m cfgmerge COMMAND ...``."""

import argparse
import os
import sys
from collections.abc import Mapping
from typing import Any

from .diffing import diff
from .dump import DUMP_FORMATS, dumps
from .errors import InterpolationError, LoadError, ValidationError
from .interpolation import interpolate
from .loader import load
from .merge import LIST_STRATEGIES, apply_env, merge
from .schema import validate
from .values import compact_json, scalar_text

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_FILE = 3


class _CommandError(Exception):
    """An error reported as ``cfgmerge: error: <message>`` with a given exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _build_parser() -> argparse.ArgumentParser:
    """Create the argument parser with its four subcommands."""
    layers = argparse.ArgumentParser(add_help=False)
    layers.add_argument("--list-strategy", choices=LIST_STRATEGIES, default="replace",
                        help="how two lists are merged (default: replace)")
    layers.add_argument("--env-prefix", default="APP", metavar="PREFIX",
                        help="prefix of override variables (default: APP)")
    layers.add_argument("--no-env", action="store_true",
                        help="do not apply environment-variable overrides")

    parser = argparse.ArgumentParser(prog="cfgmerge", allow_abbrev=False,
                                     description="Merge layered configuration files.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    dump = commands.add_parser("dump", parents=[layers], allow_abbrev=False,
                               help="print the merged configuration")
    dump.add_argument("--format", choices=DUMP_FORMATS, default="json")
    dump.add_argument("--schema", metavar="SCHEMA", help="validate and fill defaults")
    dump.add_argument("files", nargs="+", metavar="FILE")

    get = commands.add_parser("get", parents=[layers], allow_abbrev=False,
                              help="print one value of the merged configuration")
    get.add_argument("--schema", metavar="SCHEMA", help="validate and fill defaults")
    get.add_argument("key", metavar="KEY")
    get.add_argument("files", nargs="+", metavar="FILE")

    check = commands.add_parser("validate", parents=[layers], allow_abbrev=False,
                                help="validate the merged configuration")
    check.add_argument("--schema", metavar="SCHEMA", required=True)
    check.add_argument("files", nargs="+", metavar="FILE")

    compare = commands.add_parser("diff", allow_abbrev=False,
                                  help="compare two configuration files")
    compare.add_argument("old", metavar="A")
    compare.add_argument("new", metavar="B")
    return parser


def _merged(args: argparse.Namespace, environ: Mapping[str, str]) -> dict:
    """Load, merge, override, interpolate and (optionally) validate the layers."""
    layers = [load(path) for path in args.files]
    schema = load(args.schema) if args.schema is not None else None
    config: dict = {}
    for layer in layers:
        config = merge(config, layer, list_strategy=args.list_strategy)
    if not args.no_env:
        config = apply_env(config, environ, prefix=args.env_prefix)
    config = interpolate(config, environ)
    if schema is not None:
        try:
            config = validate(config, schema)
        except ValueError as exc:
            raise _CommandError(f"invalid schema: {exc}", EXIT_USAGE) from None
    return config


def _run_dump(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Print the final configuration in the requested format."""
    config = _merged(args, environ)
    sys.stdout.write(dumps(config, args.format, env_prefix=args.env_prefix))
    return EXIT_OK


def _run_get(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Print the value at a dotted key of the final configuration."""
    keys = args.key.split(".")
    if not all(keys):
        raise _CommandError(f"invalid key '{args.key}'", EXIT_USAGE)
    node: Any = _merged(args, environ)
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            raise _CommandError(f"key not found: {args.key}", EXIT_FAILED)
        node = node[key]
    text = compact_json(node) if isinstance(node, (dict, list)) else scalar_text(node)
    sys.stdout.write(text + "\n")
    return EXIT_OK


def _run_validate(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Print ``OK`` when the final configuration passes the schema."""
    _merged(args, environ)
    sys.stdout.write("OK\n")
    return EXIT_OK


def _run_diff(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Print the differences between two files; status 1 if there are any."""
    old = merge({}, load(args.old))
    new = merge({}, load(args.new))
    lines = diff(old, new)
    sys.stdout.write("".join(line + "\n" for line in lines))
    return EXIT_FAILED if lines else EXIT_OK


_COMMANDS = {"dump": _run_dump, "get": _run_get, "validate": _run_validate, "diff": _run_diff}


def _error(message: str) -> None:
    """Write one ``cfgmerge: error:`` line to stderr."""
    print(f"cfgmerge: error: {message}", file=sys.stderr)


def main(argv: list[str] | None = None, environ: dict | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    ``environ`` replaces ``os.environ`` for overrides and interpolation.
    """
    if environ is None:
        environ = dict(os.environ)
    try:
        args = _build_parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return _COMMANDS[args.command](args, environ)
    except LoadError as exc:
        _error(str(exc))
        return EXIT_FILE
    except InterpolationError as exc:
        _error(str(exc))
        return EXIT_FAILED
    except ValidationError as exc:
        for message in exc.errors:
            print(f"cfgmerge: invalid: {message}", file=sys.stderr)
        return EXIT_FAILED
    except _CommandError as exc:
        _error(str(exc))
        return exc.status
