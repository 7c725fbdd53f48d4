"""Command-line interface: ``python -m mdtoc <command> ...``.

Exit statuses: 0 success, 1 a check found something (broken links, a file
that would change), 2 usage error or a file that cannot be processed.
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .linkcheck import check_links
from .lists import renumber
from .metrics import stats
from .toc import MarkerError, make_toc, update_toc

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_ERROR = 2


class CommandError(Exception):
    """A problem that ends the command with exit status 2 and one stderr line."""


class _HelpShown(Exception):
    """Raised instead of exiting after argparse has printed help."""


class _Parser(argparse.ArgumentParser):
    """An argument parser that raises instead of calling ``sys.exit``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Turn an argparse usage error into a :class:`CommandError`."""
        raise CommandError(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        """Only reached after ``--help`` was printed: errors go through :meth:`error`."""
        raise _HelpShown


def _report_error(message: str) -> None:
    """Write one ``mdtoc: error:`` line to standard error."""
    sys.stderr.write(f"mdtoc: error: {message}\n")


def _read(path: str) -> str:
    """Read a UTF-8 file with universal newlines, or raise :class:`CommandError`."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise CommandError(f"cannot read '{path}'") from None


def _write(path: str, text: str) -> None:
    """Write ``text`` to a file as UTF-8, or raise :class:`CommandError`."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError:
        raise CommandError(f"cannot write '{path}'") from None


def _apply(args: argparse.Namespace, old: str, new: str) -> int:
    """Finish a rewriting command according to ``--check`` / ``--inplace``.

    Without either option the new text is printed.
    """
    if args.check:
        if new == old:
            return EXIT_OK
        sys.stdout.write(f"{args.file}: would change\n")
        return EXIT_FOUND
    if args.inplace:
        if new != old:
            _write(args.file, new)
        return EXIT_OK
    sys.stdout.write(new)
    return EXIT_OK


def _run_toc(args: argparse.Namespace) -> int:
    """``toc``: print the TOC, or maintain it between the markers of FILE."""
    text = _read(args.file)
    options = {"min_level": args.min_level, "max_level": args.max_level, "indent": args.indent}
    try:
        if not (args.inplace or args.check):
            sys.stdout.write(make_toc(text, **options))
            return EXIT_OK
        updated = update_toc(text, **options)
    except MarkerError as error:
        raise CommandError(f"{args.file}: {error}") from None
    except ValueError as error:
        raise CommandError(str(error)) from None
    return _apply(args, text, updated)


def _run_check_links(args: argparse.Namespace) -> int:
    """``check-links``: report broken links of every FILE, continuing after errors."""
    status = EXIT_OK
    for path in args.files:
        try:
            text = _read(path)
        except CommandError as error:
            _report_error(str(error))
            status = EXIT_ERROR
            continue
        for broken in check_links(text, Path(path).parent):
            sys.stdout.write(f"{path}:{broken.line}: {broken.reason} {broken.target}\n")
            if status == EXIT_OK:
                status = EXIT_FOUND
    return status


def _run_renumber(args: argparse.Namespace) -> int:
    """``renumber``: renumber the ordered lists of FILE."""
    text = _read(args.file)
    return _apply(args, text, renumber(text))


def _run_stats(args: argparse.Namespace) -> int:
    """``stats``: print the statistics report of FILE."""
    sys.stdout.write(stats(_read(args.file)).format())
    return EXIT_OK


def _add_rewrite_options(parser: argparse.ArgumentParser) -> None:
    """Add the mutually exclusive ``--inplace`` and ``--check`` options and FILE."""
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--inplace", action="store_true", help="rewrite FILE if it changes")
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if FILE would change; never write it"
    )
    parser.add_argument("file", metavar="FILE", help="Markdown file")


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with its four sub-commands."""
    parser = _Parser(prog="mdtoc", description="Maintain Markdown documents.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, handler: Callable[[argparse.Namespace], int], text: str):
        command = commands.add_parser(name, help=text, description=text)
        command.set_defaults(handler=handler)
        return command

    toc = add("toc", _run_toc, "print or update a table of contents")
    toc.add_argument("--min-level", type=int, default=1, metavar="N", help="default 1")
    toc.add_argument("--max-level", type=int, default=6, metavar="N", help="default 6")
    toc.add_argument("--indent", type=int, default=2, metavar="N", help="spaces per level")
    _add_rewrite_options(toc)

    links = add("check-links", _run_check_links, "report broken anchors and file links")
    links.add_argument("files", metavar="FILE", nargs="+", help="Markdown files")

    _add_rewrite_options(add("renumber", _run_renumber, "renumber ordered lists"))

    add("stats", _run_stats, "print document statistics").add_argument(
        "file", metavar="FILE", help="Markdown file"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run mdtoc with ``argv`` (default ``sys.argv[1:]``) and return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
        return args.handler(args)
    except _HelpShown:
        return EXIT_OK
    except CommandError as error:
        _report_error(str(error))
        return EXIT_ERROR
