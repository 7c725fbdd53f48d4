"""``--server xllamacpp``: the pinned wheel's package unpacked into the model cache, and
``serve`` starting llama.cpp's server through it (tools/xlserver.py) with llama-server's
settings. The index is the loopback one of test_localmodel; the package is a stand-in with
xllamacpp's ``CommonParams``/``Server`` names whose server answers ``/health`` and reports the
settings it was given (the real wheel is 33 MB and loads a model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from helpers.localmodel import publish

from pytest_e2ebench.tools import localmodel
from pytest_e2ebench.tools.localmodel import PrebuiltServer

STAND_IN = b"""
import http.server, json, threading, types

class CommonParams:
    def __init__(self):
        self.model = types.SimpleNamespace(path=None)
        self.cpuparams = types.SimpleNamespace(n_threads=-1)
        self.cpuparams_batch = types.SimpleNamespace(n_threads=-1)

class Server:
    def __init__(self, params):
        settings = {k: v for k, v in vars(params).items() if not hasattr(v, "__dict__")}
        settings.update(model=params.model.path, threads=params.cpuparams.n_threads,
                        batch_threads=params.cpuparams_batch.n_threads)
        settings["model_alias"] = sorted(settings["model_alias"])
        body = json.dumps(settings).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.end_headers()
                self.wfile.write(body)

        server = http.server.ThreadingHTTPServer((params.hostname, params.port), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.listening_address = f"http://{params.hostname}:{params.port}"
"""


def publish_package(index) -> PrebuiltServer:
    files = {"xllamacpp/__init__.py": STAND_IN, "xllamacpp/xllamacpp.abi3.so": b"\x7fELF"}
    wheel = index.add("xllamacpp", files | {"xllamacpp-1.0.dist-info/METADATA": b"x"})
    return PrebuiltServer(wheel, "xllamacpp/", (2, 17), "xllamacpp.abi3.so", "xllamacpp")


def test_the_package_is_unpacked_importable_once(index):
    server = publish_package(index)
    module = localmodel.install_server(server)
    assert module.name == "xllamacpp.abi3.so" and module.parent.name == "xllamacpp"
    imported = subprocess.run(
        [sys.executable, "-c", "import xllamacpp; print(xllamacpp.Server.__name__)"],
        env={"PYTHONPATH": str(module.parent.parent)},
        capture_output=True,
        text=True,
    )
    assert imported.stdout == "Server\n", imported.stderr
    assert localmodel.install_server(server) == module and index.downloads == 1


def test_serve_starts_the_server_in_process_with_llama_servers_settings(index, monkeypatch):
    spec = publish(index)
    monkeypatch.setattr(localmodel, "XLLAMACPP_SERVER", publish_package(index))
    with localmodel.serve(spec, server="xllamacpp", max_tokens=77, threads=1) as running:
        with urllib.request.urlopen(running.base_url.removesuffix("/v1") + "/health") as page:
            settings = json.loads(page.read())
        assert running.process.poll() is None
    assert running.process.poll() is not None  # stopped with the context
    assert settings["model"] == str(localmodel.fetch_model(spec))
    assert settings["model_alias"] == ["tiny"] and settings["use_jinja"] is True
    assert (settings["n_ctx"], settings["n_predict"]) == (512, 77)
    assert settings["hostname"] == "127.0.0.1"
    assert (settings["threads"], settings["batch_threads"]) == (1, 1)


def test_serve_with_nice_gives_the_server_a_session_and_autogroup_of_its_own(index, monkeypatch):
    spec = publish(index)
    monkeypatch.setattr(localmodel, "XLLAMACPP_SERVER", publish_package(index))
    with localmodel.serve(spec, server="xllamacpp", nice=7) as running:
        pid = running.process.pid
        assert os.getpriority(os.PRIO_PROCESS, pid) == 7
        assert os.getsid(pid) == pid != os.getsid(0)
        autogroup = Path(f"/proc/{pid}/autogroup")
        if autogroup.exists():
            assert autogroup.read_text().split()[-1] == "7"
