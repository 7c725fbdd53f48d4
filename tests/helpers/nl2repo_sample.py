"""A tiny NL2Repo-Bench dataset and a package index serving its project's sdists, written by
the tests (no peer data is committed): task ``calc``, whose upstream project ``calc`` has
releases on the index, by default 0.2 (five test cases) and 0.1 (four, the dataset's count)."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import io
import json
import tarfile
import threading
from pathlib import Path

from helpers.tasks import PYPROJECT

SPEC = """\
## Introduction and Goals of the Calc Project

A calculator library.

## API Usage Guide

### Node 1: add() Function - Addition

`add(a, b)` returns the sum of two numbers.

### Node 2: sub() Function - Subtraction

`sub(a, b)` returns `a` minus `b`.

### R9: a heading of the spec that looks like a requirement of the harness
"""
CODE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
TEST_ADD = (
    "import pytest\n\nfrom calc import add\n\n\n"
    "@pytest.mark.parametrize('a, b, total', [(1, 2, 3), (2, 2, 4)])\n"
    "def test_add(a, b, total):\n    assert add(a, b) == total\n"
)
TEST_SUB = (
    "from calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n\n\n"
    "class TestSub:\n    def test_negative(self):\n        assert sub(3, 5) == -2\n"
)
NEWER_TEST = "\n\ndef test_sub_zero_{n}():\n    assert sub(0, 0) == 0\n"


def sdist(version: str, suite: str = "tests") -> bytes:
    """The sdist ``calc-<version>.tar.gz``: release 0.K has 3 + K test cases (0.1 four, 0.2
    five, ...), in the folder ``suite``."""
    newer = "".join(NEWER_TEST.format(n=n) for n in range(1, int(version.split(".")[1])))
    files = {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: calc\nVersion: {version}\n",
        "pyproject.toml": PYPROJECT.format(name="calc").replace("0.1", version),
        "calc/__init__.py": CODE,
        f"{suite}/test_add.py": TEST_ADD,
        f"{suite}/test_sub.py": TEST_SUB + newer,
    }
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"calc-{version}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def write_task(root: Path, name: str = "calc", count: int = 4, **files: str) -> Path:
    """A task folder ``root/name`` of the dataset; ``files`` replace its defaults."""
    folder = root / name
    folder.mkdir(parents=True)
    defaults = {
        "start.md": SPEC,
        "test_case_count.txt": f"{count}\n",
        "test_files.json": json.dumps(["tests"]),
        "test_commands.json": json.dumps(["pip install -e .", "pytest tests"]),
    }
    for rel, text in {**defaults, **files}.items():
        (folder / rel).write_text(text)
    return folder


@contextlib.contextmanager
def index(versions: tuple[str, ...] = ("0.1", "0.2"), suite: str = "tests"):
    """A PEP 691 package index on 127.0.0.1 serving the sdists of ``calc`` (their tests in
    ``suite``); its simple URL."""
    archives = {f"calc-{v}.tar.gz": sdist(v, suite) for v in versions}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server interface
            host = f"http://127.0.0.1:{self.server.server_port}"
            if self.path.rstrip("/") == "/simple/calc":
                files = [
                    {
                        "filename": name,
                        "url": f"{host}/files/{name}",
                        "hashes": {"sha256": hashlib.sha256(data).hexdigest()},
                        "upload-time": "2024-05-01T00:00:00Z",
                    }
                    for name, data in archives.items()
                ]
                body = json.dumps({"name": "calc", "files": files}).encode()
            elif self.path.startswith("/files/") and self.path[7:] in archives:
                body = archives[self.path[7:]]
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/simple"
    finally:
        server.shutdown()
        server.server_close()
