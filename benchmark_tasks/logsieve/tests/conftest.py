"""Shared fixtures: builders for access-log lines (the package is imported by test modules)."""

import pytest


def build_line(host="10.0.0.1", ident="-", user="-", time="10/Oct/2000:13:55:36 +0000",
               request="GET / HTTP/1.1", status="200", size="100", referer=None, agent=None):
    """Return one CLF line, or a Combined line when referer or agent is given."""
    text = f'{host} {ident} {user} [{time}] "{request}" {status} {size}'
    if referer is not None or agent is not None:
        text += f' "{"-" if referer is None else referer}" "{"-" if agent is None else agent}"'
    return text


@pytest.fixture
def make_line():
    """Factory fixture returning a log line built from keyword fields."""
    return build_line


SAMPLE_LINES = [
    '192.168.1.10 - alice [12/Mar/2024:09:15:02 +0000] "GET /index.html HTTP/1.1" 200 1000'
    ' "-" "Mozilla/5.0"',
    '192.168.1.11 - - [12/Mar/2024:09:40:10 +0000] "GET /api/items HTTP/1.1" 200 500'
    ' "http://example.com/" "curl/8.0"',
    '192.168.1.10 - alice [12/Mar/2024:10:05:00 +0100] "POST /api/items HTTP/1.1" 201 -'
    ' "-" "Mozilla/5.0"',
    '10.0.0.5 - - [12/Mar/2024:10:20:30 +0000] "GET /missing HTTP/1.1" 404 200',
    '192.168.1.11 - - [12/Mar/2024:10:59:59 +0000] "GET /api/items HTTP/1.1" 500 300'
    ' "-" "curl/8.0"',
    '10.0.0.5 - - [12/Mar/2024:11:00:00 +0000] "DELETE /api/items/7 HTTP/1.1" 204 0',
]


@pytest.fixture
def sample_lines():
    """Six valid lines (CLF and Combined) spanning 09:15-11:00 UTC on 2024-03-12."""
    return list(SAMPLE_LINES)


@pytest.fixture
def sample_log(tmp_path):
    """A plain-text log file with the sample lines plus one blank and one malformed line."""
    lines = SAMPLE_LINES[:3] + ["", "this is not a log line"] + SAMPLE_LINES[3:]
    path = tmp_path / "access.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
