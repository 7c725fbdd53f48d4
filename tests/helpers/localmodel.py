"""Shared by the tests (moved from test_localmodel.py)."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import threading
import zipfile

import pytest

from pytest_e2ebench.tools.localmodel import ModelSpec, Wheel

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"second part " * 50, b"last"]


MODEL = b"".join(CHUNKS)


def wheel_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Index:
    """Wheels by project name, listed as the JSON simple API lists them; counts downloads."""

    def __init__(self) -> None:
        self.wheels: dict[str, tuple[str, bytes, str]] = {}  # name -> (filename, data, stated)
        self.downloads = 0
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                parts = self.path.strip("/").split("/")
                if parts[0] == "simple" and parts[1] in index.wheels:
                    filename, _, stated = index.wheels[parts[1]]
                    url = f"http://127.0.0.1:{index.port}/files/{parts[1]}"
                    files = [{"filename": filename, "url": url, "hashes": {"sha256": stated}}]
                    body = json.dumps({"files": files}).encode()
                elif parts[0] == "files" and parts[1] in index.wheels:
                    index.downloads += 1
                    body = index.wheels[parts[1]][1]
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        # a short poll: shutdown() at each test's end waits for one (0.5 s by default)
        poll = {"poll_interval": 0.02}
        threading.Thread(target=self.server.serve_forever, kwargs=poll, daemon=True).start()

    def add(self, name: str, files: dict[str, bytes], stated: str | None = None) -> Wheel:
        data = wheel_bytes(files)
        filename = f"{name.replace('-', '_')}-1.0-py3-none-any.whl"
        self.wheels[name] = (filename, data, stated or sha(data))
        return Wheel(name, "1.0", sha(data))


@pytest.fixture
def index(monkeypatch, tmp_path):
    served = Index()
    monkeypatch.setenv("UV_DEFAULT_INDEX", f"http://127.0.0.1:{served.port}/simple")
    monkeypatch.delenv("UV_INDEX_URL", raising=False)
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    yield served
    served.server.shutdown()
    served.server.server_close()


def publish(index: Index, stated_model_sha: str = sha(MODEL), **overrides) -> ModelSpec:
    manifest = index.add(
        "tiny-gguf", {"tiny_gguf/data/SHA256SUMS": f"{stated_model_sha}  tiny.gguf\n".encode()}
    )
    chunks = tuple(
        index.add(
            f"tiny-gguf-part{i + 1}", {f"tiny_gguf_part{i + 1}/data/tiny.gguf.part{i:02d}": c}
        )
        for i, c in enumerate(CHUNKS)
    )
    fields = dict(alias="tiny", filename="tiny.gguf", sha256=sha(MODEL), manifest=manifest)
    return ModelSpec(**(fields | {"chunks": chunks, "context": 512} | overrides))
