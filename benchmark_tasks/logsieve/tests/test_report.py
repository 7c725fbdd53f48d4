"""summarize / to_json / write_json and the CSV writers."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from logsieve import (
    Burst,
    bursts_to_csv,
    counts_to_csv,
    entries_to_csv,
    parse_line,
    parse_lines,
    summarize,
    to_json,
    write_csv,
    write_json,
)

SUMMARY_KEYS = [
    "total_requests", "total_bytes", "unique_hosts", "unique_visitors", "status_counts",
    "status_classes", "methods", "top_paths", "top_hosts", "size_percentiles", "first_request",
    "last_request", "requests_per_hour",
]


@pytest.fixture
def entries(sample_lines):
    return parse_lines(sample_lines).entries


# --- R15: JSON summary -------------------------------------------------------------------

@pytest.mark.requirement("R15")
def test_summary_values(entries):
    assert summarize(entries) == {
        "total_requests": 6,
        "total_bytes": 2000,
        "unique_hosts": 3,
        "unique_visitors": 3,
        "status_counts": {"200": 2, "201": 1, "204": 1, "404": 1, "500": 1},
        "status_classes": {"1xx": 0, "2xx": 4, "3xx": 0, "4xx": 1, "5xx": 1},
        "methods": {"GET": 4, "DELETE": 1, "POST": 1},
        "top_paths": [
            {"path": "/api/items", "count": 3},
            {"path": "/api/items/7", "count": 1},
            {"path": "/index.html", "count": 1},
            {"path": "/missing", "count": 1},
        ],
        "top_hosts": [
            {"host": "10.0.0.5", "count": 2},
            {"host": "192.168.1.10", "count": 2},
            {"host": "192.168.1.11", "count": 2},
        ],
        "size_percentiles": {"p50": 300.0, "p90": 800.0, "p99": 980.0},
        "first_request": "2024-03-12T09:05:00Z",
        "last_request": "2024-03-12T11:00:00Z",
        "requests_per_hour": {
            "2024-03-12T09:00:00Z": 3,
            "2024-03-12T10:00:00Z": 2,
            "2024-03-12T11:00:00Z": 1,
        },
    }


@pytest.mark.requirement("R15")
def test_summary_key_order(entries):
    assert list(summarize(entries)) == SUMMARY_KEYS
    assert list(summarize(entries)["size_percentiles"]) == ["p50", "p90", "p99"]


@pytest.mark.requirement("R15")
def test_summary_of_nothing():
    summary = summarize([])
    assert list(summary) == SUMMARY_KEYS
    assert summary["total_requests"] == 0
    assert summary["total_bytes"] == 0
    assert summary["status_counts"] == {}
    assert summary["status_classes"] == {"1xx": 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0}
    assert summary["methods"] == {}
    assert summary["top_paths"] == [] and summary["top_hosts"] == []
    assert summary["size_percentiles"] == {"p50": None, "p90": None, "p99": None}
    assert summary["first_request"] is None and summary["last_request"] is None
    assert summary["requests_per_hour"] == {}


@pytest.mark.requirement("R15")
def test_top_parameter_and_rounding(make_line):
    lines = [make_line(request=f"GET /{p} HTTP/1.1", size=str(s))
             for p, s in [("a", 100), ("b", 200), ("b", 300), ("c", 400)]]
    summary = summarize(parse_lines(lines).entries, top=1)
    assert summary["top_paths"] == [{"path": "/b", "count": 2}]
    assert summary["top_hosts"] == [{"host": "10.0.0.1", "count": 4}]
    assert summary["size_percentiles"] == {"p50": 250.0, "p90": 370.0, "p99": 397.0}


@pytest.mark.requirement("R15")
def test_summary_accepts_generator(entries):
    assert summarize(e for e in entries)["total_requests"] == 6


@pytest.mark.requirement("R15")
def test_to_json_format(make_line):
    summary = summarize([parse_line(make_line(request="GET /café HTTP/1.1"))])
    text = to_json(summary)
    assert text == json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    assert '"/café"' in text
    assert text.startswith('{\n  "total_requests": 1,\n  "total_bytes": 100,\n')
    assert json.loads(text) == summary


@pytest.mark.requirement("R15")
def test_write_json(tmp_path, entries):
    summary = summarize(entries)
    target = tmp_path / "report.json"
    assert write_json(summary, target) is None
    assert target.read_text(encoding="utf-8") == to_json(summary)


# --- R16: CSV output ---------------------------------------------------------------------

ENTRY_HEADER = "time,host,method,path,protocol,status,size,referer,user_agent\n"


@pytest.mark.requirement("R16")
def test_entries_to_csv_exact():
    entries = parse_lines([
        '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
        '10.1.1.1 - - [11/Oct/2000:08:00:00 +0530] "-" 400 - "http://a/,b" "Bot \\"x\\""',
    ]).entries
    assert entries_to_csv(entries) == (
        ENTRY_HEADER
        + "2000-10-10T13:55:36-07:00,127.0.0.1,GET,/apache_pb.gif,HTTP/1.0,200,2326,,\n"
        + '2000-10-11T08:00:00+05:30,10.1.1.1,,,,400,,"http://a/,b","Bot ""x"""\n'
    )


@pytest.mark.requirement("R16")
def test_entries_to_csv_empty():
    assert entries_to_csv([]) == ENTRY_HEADER


@pytest.mark.requirement("R16")
def test_write_csv(tmp_path, entries):
    target = tmp_path / "out.csv"
    write_csv(entries, target)
    content = target.read_bytes().decode("utf-8")
    assert content == entries_to_csv(entries)
    assert content.count("\n") == 7
    assert "\r" not in content


@pytest.mark.requirement("R16")
def test_counts_to_csv_headers():
    assert counts_to_csv([("/a", 3), ("/b,c", 1)]) == 'value,count\n/a,3\n"/b,c",1\n'
    assert counts_to_csv([], header=("path", "count")) == "path,count\n"
    assert counts_to_csv({"x": 2}.items(), header=("bucket", "n")) == "bucket,n\nx,2\n"


@pytest.mark.requirement("R16")
def test_bursts_to_csv():
    plus_two = timezone(timedelta(hours=2))
    bursts = [Burst("9.9.9.9", 4, datetime(2024, 1, 1, 10, 0, tzinfo=timezone.utc),
                    datetime(2024, 1, 1, 12, 0, 30, tzinfo=plus_two))]
    assert bursts_to_csv(bursts) == (
        "host,count,start,end\n9.9.9.9,4,2024-01-01T10:00:00Z,2024-01-01T10:00:30Z\n")
    assert bursts_to_csv([]) == "host,count,start,end\n"
