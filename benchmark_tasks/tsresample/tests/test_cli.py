"""Command-line pipeline, exit statuses and the python -m entry point (R21, R22)."""

import json
import subprocess
import sys

import pytest

from tsresample.cli import main

TEMPS = (
    "timestamp,temp\n"
    "2024-01-01T00:10:00Z,1.5\n"
    "2024-01-01T00:50:00Z,2.5\n"
    "2024-01-01T03:30:00+01:00,10\n"
)

TWO_COLUMNS = (
    "time,a,b,note\n"
    "2024-01-01 00:00,1,10,x\n"
    "2024-01-01 00:30,3,,y\n"
    "2024-01-01 01:15,5,20,z\n"
)


# --- R21: pipeline ----------------------------------------------------------------------

@pytest.mark.requirement("R21")
def test_no_options_prints_normalised_csv(cli, write):
    result = cli(write(TEMPS))
    assert result.code == 0
    assert result.out == (
        "timestamp,temp\n"
        "2024-01-01T00:10:00Z,1.5\n"
        "2024-01-01T00:50:00Z,2.5\n"
        "2024-01-01T02:30:00Z,10\n"
    )
    assert result.err == ""


@pytest.mark.requirement("R21")
def test_every_with_several_aggregations(cli, write):
    result = cli(write(TEMPS), "--every", "1h", "--agg", "mean, count")
    assert result.code == 0
    assert result.out == (
        "timestamp,temp_mean,temp_count\n"
        "2024-01-01T00:00:00Z,2,2\n"
        "2024-01-01T01:00:00Z,,0\n"
        "2024-01-01T02:00:00Z,10,1\n"
    )


@pytest.mark.requirement("R21")
def test_every_with_fill_linear(cli, write):
    result = cli(write(TEMPS), "--every=1h", "--fill=linear")
    assert result.code == 0
    assert result.out == (
        "timestamp,temp\n"
        "2024-01-01T00:00:00Z,2\n"
        "2024-01-01T01:00:00Z,6\n"
        "2024-01-01T02:00:00Z,10\n"
    )


@pytest.mark.requirement("R21")
def test_single_agg_keeps_names_and_ffill_limit(cli, write):
    text = "timestamp,v\n2024-01-01T00:00Z,1\n2024-01-01T00:40Z,4\n2024-01-01T00:45Z,9\n"
    result = cli(write(text), "--every", "10min", "--agg", "max", "--fill", "ffill", "--limit", "2")
    assert result.code == 0
    assert result.out == (
        "timestamp,v\n"
        "2024-01-01T00:00:00Z,1\n"
        "2024-01-01T00:10:00Z,1\n"
        "2024-01-01T00:20:00Z,1\n"
        "2024-01-01T00:30:00Z,\n"
        "2024-01-01T00:40:00Z,9\n"
    )


@pytest.mark.requirement("R21")
def test_agg_is_ignored_without_every(cli, write):
    result = cli(write(TEMPS), "--agg", "sum,count")
    assert result.code == 0
    assert result.out.splitlines()[0] == "timestamp,temp"


@pytest.mark.requirement("R21")
def test_columns_time_column_and_naive_offset(cli, write):
    path = write(TWO_COLUMNS)
    result = cli(path, "--time-column", "time", "--columns", "b,a", "--naive-offset", "+01:00")
    assert result.code == 0
    assert result.out == (
        "timestamp,b,a\n"
        "2023-12-31T23:00:00Z,10,1\n"
        "2023-12-31T23:30:00Z,,3\n"
        "2024-01-01T00:15:00Z,20,5\n"
    )


@pytest.mark.requirement("R21")
def test_rolling_after_resample(cli, write):
    path = write(TWO_COLUMNS)
    result = cli(path, "--columns", "a", "--every", "30min", "--agg", "sum",
                 "--rolling", "1h", "--rolling-agg", "sum", "--min-periods", "2")
    assert result.code == 0
    assert result.out == (
        "timestamp,a\n"
        "2024-01-01T00:00:00Z,\n"
        "2024-01-01T00:30:00Z,4\n"
        "2024-01-01T01:00:00Z,8\n"
    )


@pytest.mark.requirement("R21")
def test_outliers_json_and_decimals(cli, write):
    text = "timestamp,v\n" + "".join(f"2024-01-01T00:{m:02d}Z,{v}\n" for m, v in
                                     enumerate([1, 2, 3, 4, 100]))
    result = cli(write(text), "--outliers", "iqr", "--format", "json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["columns"] == ["v", "v_outlier"]
    assert [row["v_outlier"] for row in data["rows"]] == [0, 0, 0, 0, 1]
    strict = cli(write(text), "--outliers", "zscore", "--threshold", "1.9")
    assert strict.out.splitlines()[-1] == "2024-01-01T00:04:00Z,100,1"
    rounded = cli(write("timestamp,v\n2024-01-01,0.126\n"), "--decimals", "2", "--format", "json")
    assert json.loads(rounded.out)["rows"] == [{"timestamp": "2024-01-01T00:00:00Z", "v": 0.13}]


@pytest.mark.requirement("R21")
def test_duplicates_option(cli, write):
    path = write("timestamp,v\n2024-01-01,1\n2024-01-01,2\n")
    assert cli(path, "--duplicates", "last").out == "timestamp,v\n2024-01-01T00:00:00Z,2\n"
    assert cli(path, "--duplicates", "first").out == "timestamp,v\n2024-01-01T00:00:00Z,1\n"


@pytest.mark.requirement("R21")
def test_output_file(cli, write, tmp_path):
    target = tmp_path / "out.json"
    result = cli(write(TEMPS), "--every", "1d", "--format", "json", "--output", target)
    assert result.code == 0
    assert result.out == ""
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data == {
        "columns": ["temp"],
        "rows": [{"timestamp": "2024-01-01T00:00:00Z", "temp": 4.666667}],
    }


@pytest.mark.requirement("R21")
def test_python_dash_m_entry_point(write):
    proc = subprocess.run(
        [sys.executable, "-m", "tsresample", write(TEMPS), "--every", "2h", "--agg", "sum"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stdout == "timestamp,temp\n2024-01-01T00:00:00Z,4\n2024-01-01T02:00:00Z,10\n"


# --- R22: exit status and diagnostics --------------------------------------------------

BAD = "timestamp,v\n2024-01-01T00:00Z,1\nnot-a-time,2\n\n2024-01-01T00:30Z,abc\n2024-01-01T01:00Z,3\n"


@pytest.mark.requirement("R22")
def test_status_1_with_warnings_for_skipped_rows(cli, write):
    result = cli(write(BAD))
    assert result.code == 1
    assert result.out == "timestamp,v\n2024-01-01T00:00:00Z,1\n2024-01-01T01:00:00Z,3\n"
    assert result.err == "warning: line 3: timestamp\nwarning: line 5: value\n"


@pytest.mark.requirement("R22")
def test_strict_turns_bad_rows_into_status_3(cli, write):
    result = cli(write(BAD), "--strict")
    assert result.code == 3
    assert result.out == ""
    assert "error:" in result.err
    assert "line 3: timestamp" in result.err


@pytest.mark.requirement("R22")
@pytest.mark.parametrize(
    "args",
    [
        ("--every", "5x"),
        ("--every", "1h", "--agg", "avg"),
        ("--every", "1h", "--agg", "mean,,max"),
        ("--columns", "nope"),
        ("--time-column", "nope"),
        ("--naive-offset", "UTC"),
        ("--fill", "cubic"),
        ("--limit", "x"),
        ("--limit", "0", "--fill", "ffill"),
        ("--rolling", "1h", "--min-periods", "0"),
        ("--rolling", "1h", "--rolling-agg", "avg"),
        ("--outliers", "zscore", "--threshold", "-1"),
        ("--outliers", "mad"),
        ("--format", "xml"),
        ("--decimals", "-1"),
        ("--no-such-option",),
    ],
)
def test_usage_errors_exit_2(cli, write, args):
    result = cli(write(TEMPS), *args)
    assert result.code == 2
    assert result.out == ""
    assert "error:" in result.err


@pytest.mark.requirement("R22")
def test_missing_file_argument_exits_2(cli):
    result = cli()
    assert result.code == 2
    assert result.out == ""
    assert "error:" in result.err


@pytest.mark.requirement("R22")
@pytest.mark.parametrize(
    "content",
    [None, "", "timestamp,v\n2024-01-01,1\n2024-01-01T00:00Z,2\n", "timestamp\n2024-01-01\n"],
)
def test_data_errors_exit_3(cli, write, tmp_path, content):
    path = tmp_path / "missing.csv" if content is None else write(content)
    result = cli(path)
    assert result.code == 3
    assert result.out == ""
    assert "error:" in result.err


@pytest.mark.requirement("R22")
def test_error_writes_no_output_file(cli, write, tmp_path):
    target = tmp_path / "out.csv"
    result = cli(write(TEMPS), "--every", "bad", "--output", target)
    assert result.code == 2
    assert not target.exists()


@pytest.mark.requirement("R22")
def test_help_returns_0(cli):
    result = cli("--help")
    assert result.code == 0
    assert "--every" in result.out


@pytest.mark.requirement("R22")
def test_main_returns_status_directly(write, capsys):
    assert main([write(TEMPS)]) == 0
    assert main([write(BAD)]) == 1
    assert main([write(TEMPS), "--every", "0h"]) == 2
    capsys.readouterr()


@pytest.mark.requirement("R22")
def test_python_dash_m_exit_status(write):
    proc = subprocess.run(
        [sys.executable, "-m", "tsresample", write(BAD)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr == "warning: line 3: timestamp\nwarning: line 5: value\n"
    invalid = subprocess.run(
        [sys.executable, "-m", "tsresample", write(TEMPS), "--every", "1x"],
        capture_output=True, text=True, timeout=60,
    )
    assert invalid.returncode == 2
    assert invalid.stdout == ""
