"""The command line: python -m logsieve COMMAND ... (in-process via main, plus subprocess)."""

import json
import subprocess
import sys

import pytest

from logsieve import (
    bursts_to_csv,
    counts_to_csv,
    detect_bursts,
    entries_to_csv,
    histogram,
    parse_file,
    summarize,
    to_json,
    top_n,
)
from logsieve.cli import main


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def clean_log(tmp_path, sample_lines):
    path = tmp_path / "clean.log"
    path.write_text("\n".join(sample_lines) + "\n", encoding="utf-8")
    return path


# --- R17: CLI summary command ------------------------------------------------------------

@pytest.mark.requirement("R17")
def test_summary_prints_json(capsys, clean_log):
    code, out, err = _run(capsys, ["summary", str(clean_log)])
    assert code == 0
    assert out == to_json(summarize(parse_file(clean_log).entries))
    assert json.loads(out)["total_requests"] == 6
    assert err == ""


@pytest.mark.requirement("R17")
def test_summary_concatenates_files_in_order(capsys, tmp_path, clean_log, make_line):
    second = tmp_path / "second.log"
    second.write_text(make_line(host="8.8.8.8", time="13/Mar/2024:00:00:00 +0000") + "\n")
    code, out, _ = _run(capsys, ["summary", str(clean_log), str(second)])
    data = json.loads(out)
    assert code == 0
    assert data["total_requests"] == 7
    assert data["unique_hosts"] == 4
    assert data["last_request"] == "2024-03-13T00:00:00Z"


@pytest.mark.requirement("R17")
def test_summary_with_filters(capsys, clean_log):
    code, out, _ = _run(capsys, [
        "summary", "--since", "2024-03-12T09:30:00Z", "--until", "2024-03-12T12:00:00+01:00",
        "--status", "2xx", "--method", "get", "--method", "DELETE", "--path-prefix", "/api",
        str(clean_log)])
    assert code == 0
    data = json.loads(out)
    assert data["total_requests"] == 1
    assert data["top_paths"] == [{"path": "/api/items", "count": 1}]


@pytest.mark.requirement("R17")
def test_summary_top_option(capsys, clean_log):
    code, out, _ = _run(capsys, ["summary", "--top", "1", str(clean_log)])
    data = json.loads(out)
    assert code == 0
    assert data["top_paths"] == [{"path": "/api/items", "count": 3}]
    assert data["top_hosts"] == [{"host": "10.0.0.5", "count": 2}]


@pytest.mark.requirement("R17")
def test_summary_output_file(capsys, tmp_path, clean_log):
    target = tmp_path / "report.json"
    code, out, _ = _run(capsys, ["summary", "-o", str(target), str(clean_log)])
    assert code == 0
    assert out == ""
    assert target.read_text(encoding="utf-8") == to_json(summarize(parse_file(clean_log).entries))


@pytest.mark.requirement("R17")
def test_summary_via_python_m(tmp_path, clean_log):
    proc = subprocess.run([sys.executable, "-m", "logsieve", "summary", "--status", "4", str(clean_log)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["total_requests"] == 1
    assert data["status_counts"] == {"404": 1}


# --- R18: CLI top, export, histogram and bursts commands ---------------------------------

@pytest.mark.requirement("R18")
@pytest.mark.parametrize("field", ["host", "path", "method", "referer", "user_agent"])
def test_top_command(capsys, clean_log, field):
    code, out, _ = _run(capsys, ["top", field, str(clean_log)])
    entries = parse_file(clean_log).entries
    assert code == 0
    assert out == counts_to_csv(top_n(entries, field, 10), header=(field, "count"))


@pytest.mark.requirement("R18")
def test_top_command_n_option(capsys, clean_log):
    code, out, _ = _run(capsys, ["top", "path", "-n", "2", str(clean_log)])
    assert code == 0
    assert out == "path,count\n/api/items,3\n/api/items/7,1\n"


@pytest.mark.requirement("R18")
def test_export_command_with_filter(capsys, clean_log):
    code, out, _ = _run(capsys, ["export", "--status", "5xx", str(clean_log)])
    assert code == 0
    assert out == ("time,host,method,path,protocol,status,size,referer,user_agent\n"
                   "2024-03-12T10:59:59+00:00,192.168.1.11,GET,/api/items,HTTP/1.1,500,300,,curl/8.0\n")


@pytest.mark.requirement("R18")
def test_export_to_file(capsys, tmp_path, clean_log):
    target = tmp_path / "entries.csv"
    code, out, _ = _run(capsys, ["export", "--output", str(target), str(clean_log)])
    assert code == 0
    assert out == ""
    assert target.read_text(encoding="utf-8") == entries_to_csv(parse_file(clean_log).entries)


@pytest.mark.requirement("R18")
def test_histogram_command_default_hour(capsys, clean_log):
    code, out, _ = _run(capsys, ["histogram", str(clean_log)])
    assert code == 0
    assert out == ("bucket,count\n2024-03-12T09:00:00Z,3\n"
                   "2024-03-12T10:00:00Z,2\n2024-03-12T11:00:00Z,1\n")


@pytest.mark.requirement("R18")
def test_histogram_command_minute_fill(capsys, clean_log):
    code, out, _ = _run(capsys, ["histogram", "--unit", "minute", "--fill", str(clean_log)])
    expected = counts_to_csv(histogram(parse_file(clean_log).entries, "minute", fill=True).items(),
                             header=("bucket", "count"))
    assert code == 0
    assert out == expected
    assert out.count("\n") == 1 + 116


@pytest.mark.requirement("R18")
def test_bursts_command(capsys, tmp_path, make_line):
    log = tmp_path / "burst.log"
    stamps = ["10:00:00", "10:00:20", "10:00:40", "10:02:00"]
    log.write_text("".join(make_line(host="6.6.6.6", time=f"01/Jan/2024:{s} +0100") + "\n"
                           for s in stamps))
    code, out, _ = _run(capsys, ["bursts", "--threshold", "2", "--window", "60", str(log)])
    assert code == 0
    assert out == "host,count,start,end\n6.6.6.6,3,2024-01-01T09:00:00Z,2024-01-01T09:00:40Z\n"
    assert out == bursts_to_csv(detect_bursts(parse_file(log).entries, threshold=2, window=60.0))


@pytest.mark.requirement("R18")
def test_bursts_command_none_found(capsys, clean_log):
    code, out, _ = _run(capsys, ["bursts", "--threshold", "5", "--window", "0.5", str(clean_log)])
    assert code == 0
    assert out == "host,count,start,end\n"


@pytest.mark.requirement("R18")
def test_top_invalid_field_is_usage_error(capsys, clean_log):
    code, out, err = _run(capsys, ["top", "status", str(clean_log)])
    assert code == 2
    assert out == ""
    assert err != ""


# --- R19: CLI diagnostics and exit codes -------------------------------------------------

@pytest.mark.requirement("R19")
def test_warnings_for_malformed_lines(capsys, sample_log):
    code, out, err = _run(capsys, ["top", "method", str(sample_log)])
    assert code == 0
    assert out == "method,count\nGET,4\nDELETE,1\nPOST,1\n"
    assert err.splitlines() == [f"warning: {sample_log}:5: unrecognized format"]


@pytest.mark.requirement("R19")
def test_strict_mode_fails_with_exit_1(capsys, sample_log):
    code, out, err = _run(capsys, ["export", "--strict", str(sample_log)])
    assert code == 1
    assert out == ""
    assert f"error: {sample_log}:5: unrecognized format" in err


@pytest.mark.requirement("R19")
def test_strict_mode_clean_file_succeeds(capsys, clean_log):
    code, out, err = _run(capsys, ["summary", "--strict", str(clean_log)])
    assert code == 0
    assert err == ""


@pytest.mark.requirement("R19")
def test_unreadable_file_exit_1(capsys, tmp_path, clean_log):
    missing = tmp_path / "missing.log"
    code, out, err = _run(capsys, ["summary", str(clean_log), str(missing)])
    assert code == 1
    assert out == ""
    assert f"error: cannot read {missing}" in err


@pytest.mark.requirement("R19")
@pytest.mark.parametrize("argv", [
    [],
    ["frobnicate", "LOG"],
    ["summary"],
    ["summary", "--no-such-option", "LOG"],
    ["summary", "--since", "2024-03-12T10:00:00", "LOG"],
    ["summary", "--until", "yesterday", "LOG"],
    ["summary", "--status", "9xx", "LOG"],
    ["summary", "--top", "-1", "LOG"],
    ["top", "-n", "-3", "path", "LOG"],
    ["histogram", "--unit", "day", "LOG"],
    ["bursts", "--threshold", "0", "--window", "60", "LOG"],
    ["bursts", "--threshold", "3", "--window", "0", "LOG"],
    ["bursts", "--window", "60", "LOG"],
])
def test_usage_errors_return_2(capsys, clean_log, argv):
    argv = [str(clean_log) if arg == "LOG" else arg for arg in argv]
    code, out, err = _run(capsys, argv)
    assert code == 2
    assert out == ""
    assert err != ""


@pytest.mark.requirement("R19")
def test_strict_exit_code_via_python_m(sample_log):
    proc = subprocess.run([sys.executable, "-m", "logsieve", "summary", "--strict", str(sample_log)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert ":5: unrecognized format" in proc.stderr
