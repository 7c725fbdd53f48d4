"""Command-line tool: report output and exit statuses (R18, R19)."""

import json
import subprocess
import sys

import pytest

from bankrec import load_bank, load_ledger, reconcile, to_text

BANK = (
    "date,description,amount,reference\n"
    "2024-03-01,ACME Corp #12345,\"-1,200.00\",INV-1\n"
    "2024-03-02,Coffee Shop,(4.50),\n"
    "2024-03-05,Salary REF:9981,\"2,500.00\",\n"
    "2024-03-07,Transfer,-300.00,\n"
    "2024-03-09,Bank fee,-2.00,\n"
)

LEDGER = (
    "date,payee,amount,reference\n"
    "2024-03-01,Acme Corp,-1200.00,inv-1\n"
    "2024-03-03,coffee shop,-4.50,\n"
    "2024-03-04,Salary,2500,\n"
    "2024-03-06,Rent part 1,-100.00,\n"
    "2024-03-08,Rent part 2,-200.00,\n"
    "2024-03-20,Other,-5,\n"
)

OVERVIEW_TEXT = (
    "Bank reconciliation: currency USD, window 3\n"
    "Bank: 5 transactions, 4 matched, 1 unmatched, total 993.50\n"
    "Ledger: 6 transactions, 5 matched, 1 unmatched, total 990.50\n"
    "Matches: 1 exact, 2 window, 1 split\n"
    "Unmatched bank:\n"
    "  line 6: 2024-03-09 -2.00 bank fee\n"
    "Unmatched ledger:\n"
    "  line 7: 2024-03-20 -5.00 other\n"
    "Duplicates:\n"
    "  none\n"
    "Balance: not checked\n"
    "Status: NOT RECONCILED\n"
)

BALANCED_BANK = "date,description,amount\n2024-03-01,Shop,-10.00\n2024-03-02,Pay,100\n"
BALANCED_LEDGER = "date,payee,amount\n2024-03-02,Shop,-10\n2024-03-02,Pay,100.00\n"


@pytest.fixture
def files(write):
    """Write the overview example files and return their paths."""
    return write(BANK, "bank.csv"), write(LEDGER, "ledger.csv")


@pytest.fixture
def balanced(write):
    """Write a pair of files that reconcile completely."""
    return write(BALANCED_BANK, "bank.csv"), write(BALANCED_LEDGER, "ledger.csv")


# --- R18: report ---------------------------------------------------------------------------

@pytest.mark.requirement("R18")
def test_default_text_report(cli, files):
    result = cli(*files, "--window", "3")
    assert result.code == 1
    assert result.out == OVERVIEW_TEXT
    assert result.err == ""


@pytest.mark.requirement("R18")
def test_text_report_equals_library_rendering(cli, files):
    result = cli(*files, "--format", "text")
    assert result.out == to_text(reconcile(load_bank(files[0]), load_ledger(files[1])))


@pytest.mark.requirement("R18")
def test_json_report(cli, files):
    result = cli(*files, "--format=json")
    assert result.code == 1
    document = json.loads(result.out)
    assert document["bank"] == {"count": 5, "matched": 4, "unmatched": 1, "total": "993.50"}
    assert [m["rule"] for m in document["matches"]] == ["exact", "window", "window", "split"]
    assert result.err == ""


@pytest.mark.requirement("R18")
def test_window_option(cli, files):
    document = json.loads(cli(*files, "--window", "0", "--format", "json").out)
    assert document["window"] == 0
    assert [m["rule"] for m in document["matches"]] == ["exact"]
    assert [item["line"] for item in document["unmatched_bank"]] == [3, 4, 5, 6]


@pytest.mark.requirement("R18")
def test_reconciled_files_exit_zero(cli, balanced):
    result = cli(*balanced)
    assert result.code == 0
    assert result.out.endswith("Status: RECONCILED\n")
    assert result.err == ""


@pytest.mark.requirement("R18")
def test_balance_options(cli, balanced):
    result = cli(*balanced, "--format", "json", "--opening=-1,000.00", "--closing", "(910)")
    assert result.code == 0
    assert json.loads(result.out)["balance"] == {
        "opening": "-1000.00", "closing": "-910.00", "expected_closing": "-910.00",
        "difference": "0.00",
    }
    result = cli(*balanced, "--opening", "0", "--closing", "90.01")
    assert result.code == 1
    assert "difference 0.01" in result.out


@pytest.mark.requirement("R18")
def test_date_format_and_currency_options(cli, write):
    bank = write("date,description,amount\n31/12/2024,Fee,-1\n", "bank.csv")
    ledger = write("date,payee,amount,currency\n1/1/2025,Fee,-1,eur\n", "ledger.csv")
    result = cli(bank, ledger, "--date-format", "dmy", "--currency", "eur", "--format", "json")
    assert result.code == 0
    document = json.loads(result.out)
    assert document["currency"] == "EUR"
    assert document["matches"][0]["rule"] == "window"


@pytest.mark.requirement("R18")
def test_help(cli):
    result = cli("--help")
    assert result.code == 0
    assert "--window" in result.out


@pytest.mark.requirement("R18")
def test_python_dash_m(files):
    proc = subprocess.run([sys.executable, "-m", "bankrec", *files, "--window", "3"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == OVERVIEW_TEXT
    assert proc.stderr == ""


# --- R19: errors ---------------------------------------------------------------------------

@pytest.mark.requirement("R19")
@pytest.mark.parametrize(
    "extra",
    [
        ["--format", "xml"],
        ["--window", "abc"],
        ["--window", "-1"],
        ["--window", "1.5"],
        ["--currency", "EURO"],
        ["--opening", "10"],
        ["--closing", "10"],
        ["--opening", "abc", "--closing", "1"],
        ["--date-format", "ymd"],
        ["--unknown"],
        ["third.csv"],
    ],
)
def test_usage_errors(cli, files, extra):
    result = cli(*files, *extra)
    assert result.code == 2
    assert result.out == ""
    assert "error:" in result.err


@pytest.mark.requirement("R19")
@pytest.mark.parametrize("argv", [[], ["bank.csv"]])
def test_missing_positional_arguments(cli, argv):
    result = cli(*argv)
    assert result.code == 2
    assert result.out == ""
    assert "error:" in result.err


@pytest.mark.requirement("R19")
def test_usage_error_before_reading_files(cli, tmp_path):
    result = cli(tmp_path / "no-bank.csv", tmp_path / "no-ledger.csv", "--window", "-2")
    assert result.code == 2


@pytest.mark.requirement("R19")
def test_missing_file(cli, files, tmp_path):
    missing = str(tmp_path / "missing.csv")
    result = cli(files[0], missing)
    assert result.code == 3
    assert result.out == ""
    assert result.err.startswith(f"error: {missing}: ")
    assert "cannot read" in result.err
    assert result.err.endswith("\n") and result.err.count("\n") == 1


@pytest.mark.requirement("R19")
def test_invalid_amount_reports_file_and_line(cli, write):
    bank = write("date,description,amount\n2024-03-01,A,1\n\n2024-03-02,B,\"12,34\"\n", "bank.csv")
    ledger = write("date,payee,amount\n", "ledger.csv")
    result = cli(bank, ledger)
    assert result.code == 3
    assert result.out == ""
    assert result.err.startswith(f"error: {bank}:4: ")
    assert "invalid amount" in result.err
    assert result.err.count("\n") == 1


@pytest.mark.requirement("R19")
def test_missing_ledger_column(cli, write):
    bank = write("date,description,amount\n", "bank.csv")
    ledger = write("date,description,amount\n", "ledger.csv")
    result = cli(bank, ledger)
    assert result.code == 3
    assert result.err.startswith(f"error: {ledger}:1: ")
    assert "missing column" in result.err
    assert "payee" in result.err


@pytest.mark.requirement("R19")
def test_mixed_currencies_exit_three(cli, write):
    bank = write("date,description,amount,currency\n2024-03-01,A,1,EUR\n", "bank.csv")
    ledger = write("date,payee,amount\n2024-03-01,A,1\n", "ledger.csv")
    result = cli(bank, ledger)
    assert result.code == 3
    assert result.out == ""
    assert result.err == "error: mixed currencies: EUR, USD\n"


@pytest.mark.requirement("R19")
def test_python_dash_m_input_error(write):
    bank = write("date,description,amount\n2024-02-30,A,1\n", "bank.csv")
    ledger = write("date,payee,amount\n", "ledger.csv")
    proc = subprocess.run([sys.executable, "-m", "bankrec", bank, ledger],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"error: {bank}:2: ")
    assert "invalid date" in proc.stderr
