"""Command-line syntax, exit statuses and the python -m entry point (R19, R20)."""

import subprocess
import sys

import pytest

from csvq.cli import main


def _error(result, code, fragment):
    assert result.code == code
    assert result.out == ""
    assert result.err.startswith("csvq: error: ")
    assert result.err.endswith("\n") and result.err.count("\n") == 1
    assert fragment in result.err


# --- R19: command-line syntax ----------------------------------------------------------

@pytest.mark.requirement("R19")
def test_options_after_file(cli, people):
    result = cli(people, "-s", "name", "-n", "1")
    assert (result.code, result.out) == (0, "name\nAnn\n")


@pytest.mark.requirement("R19")
@pytest.mark.parametrize(
    "args",
    [
        ("--sort", "-age", "--select", "name"),
        ("--sort=-age", "--select=name"),
        ("--sort", "-age,+name", "-s", "name"),
    ],
)
def test_values_starting_with_dash_and_equals_form(cli, people, args):
    result = cli(*args, people)
    assert result.code == 0
    assert result.out == "name\nCy\nAnn\nEve\nBob\nDee\n"


@pytest.mark.requirement("R19")
def test_where_value_starting_with_dash(cli):
    result = cli("-w", "-x=1", "-", stdin="-x,y\n1,a\n2,b\n")
    assert (result.code, result.out) == (0, "-x,y\n1,a\n")


@pytest.mark.requirement("R19")
def test_equals_value_keeps_later_equals_signs(cli, people):
    result = cli("--where=name=Bob", "--select=name", people)
    assert result.out == "name\nBob\n"


@pytest.mark.requirement("R19")
def test_double_dash_ends_options(cli, write, tmp_path, monkeypatch):
    write("a\n1\n", "-n.csv")
    monkeypatch.chdir(tmp_path)
    result = cli("--", "-n.csv")
    assert (result.code, result.out) == (0, "a\n1\n")


@pytest.mark.requirement("R19")
def test_last_occurrence_wins(cli, people):
    result = cli("-s", "age", "--select", "name", "-n", "9", "--limit", "1", people)
    assert result.out == "name\nAnn\n"


@pytest.mark.requirement("R19")
@pytest.mark.parametrize(
    "args, fragment",
    [
        (("--bogus",), "unknown option '--bogus'"),
        (("-x",), "unknown option '-x'"),
        (("--select",), "requires a value"),
        (("-n",), "requires a value"),
        (("--distinct=yes",), ""),
    ],
)
def test_option_errors(cli, people, args, fragment):
    _error(cli(people, *args), 2, fragment)


@pytest.mark.requirement("R19")
@pytest.mark.parametrize("args", [(), ("a.csv", "b.csv"), ("-s", "name")])
def test_wrong_number_of_operands(cli, args):
    _error(cli(*args), 2, "FILE")


@pytest.mark.requirement("R19")
@pytest.mark.parametrize("args", [("--help",), ("-h",), ("-h", "--bogus", "x", "y")])
def test_help(cli, args):
    result = cli(*args)
    assert result.code == 0
    assert result.out.startswith("usage: csvq")
    assert result.err == ""


# --- R20: exit statuses and error reporting --------------------------------------------

@pytest.mark.requirement("R20")
def test_success_has_empty_stderr(cli, people):
    result = cli(people)
    assert result.code == 0
    assert result.err == ""
    assert result.out.startswith("name,age,city\n")


@pytest.mark.requirement("R20")
@pytest.mark.parametrize("fmt, expected", [("csv", "name\n"), ("json", "[]\n"),
                                           ("table", "+------+\n| name |\n+------+\n+------+\n(0 rows)\n")])
def test_fail_empty_prints_output_and_returns_1(cli, people, fmt, expected):
    result = cli("--fail-empty", "-w", "age > 100", "-s", "name", "-f", fmt, people)
    assert (result.code, result.out, result.err) == (1, expected, "")


@pytest.mark.requirement("R20")
def test_fail_empty_with_rows_and_limit_zero(cli, people):
    assert cli("--fail-empty", "-w", "age > 40", people).code == 0
    assert cli("--fail-empty", "-n", "0", people).code == 1
    assert cli("-w", "age > 100", people).code == 0


@pytest.mark.requirement("R20")
@pytest.mark.parametrize(
    "args, fragment",
    [
        (("-w", "age >"), "invalid where expression"),
        (("-a", "median:x"), "invalid aggregate"),
        (("--sort", "-"), "invalid sort key"),
        (("-n", "x"), "invalid limit"),
        (("-d", "::"), "invalid delimiter"),
        (("-s", "a,a"), "duplicate column 'a'"),
    ],
)
def test_option_values_checked_before_reading_input(cli, tmp_path, args, fragment):
    _error(cli(*args, str(tmp_path / "missing.csv")), 2, fragment)


@pytest.mark.requirement("R20")
def test_read_errors_before_column_checks(cli, write):
    result = cli("-s", "zip", write("a,b\n1\n"))
    _error(result, 3, "line 2")


@pytest.mark.requirement("R20")
def test_column_checks_before_processing(cli, write):
    result = cli("-a", "sum:b", "--sort", "nope", write("a,b\n1,x\n"))
    _error(result, 2, "unknown column 'nope'")


@pytest.mark.requirement("R20")
def test_main_uses_sys_argv_when_none(monkeypatch, capsys, people):
    monkeypatch.setattr(sys, "argv", ["csvq", "-s", "city", "-n", "1", people])
    assert main() == 0
    assert capsys.readouterr().out == "city\nOslo\n"


@pytest.mark.requirement("R20")
def test_python_dash_m_success(people):
    proc = subprocess.run(
        [sys.executable, "-m", "csvq", "--where", "city = Rome", "--sort", "-age", "-f", "table", people],
        capture_output=True, text=True, timeout=20,
    )
    assert proc.returncode == 0
    assert proc.stdout == (
        "+------+-----+------+\n"
        "| name | age | city |\n"
        "+------+-----+------+\n"
        "| Eve  |   9 | Rome |\n"
        "| Bob  |   5 | Rome |\n"
        "+------+-----+------+\n"
        "(2 rows)\n"
    )
    assert proc.stderr == ""


@pytest.mark.requirement("R20")
def test_python_dash_m_errors_and_stdin(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "csvq", str(tmp_path / "nope.csv")],
                          capture_output=True, text=True, timeout=20)
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert proc.stderr.startswith("csvq: error: cannot read")
    proc = subprocess.run([sys.executable, "-m", "csvq", "--fail-empty", "-"], input="a\n",
                          capture_output=True, text=True, timeout=20)
    assert (proc.returncode, proc.stdout) == (1, "a\n")
